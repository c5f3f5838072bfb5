% 'hwtex_linear reads at a real position: the position once, then the four corners weighed
% (transform::texture_reads); 'hwtex_nearest rounds.
function [] = __kernel__ scale_up(y : mat, x : mat'hwtex_linear'clamped, s : scalar, pos : ivec2)
    y[pos] = x[s * pos]
endfunction

function [] = __kernel__ nearest(y : mat, x : mat'hwtex_nearest, s : scalar, pos : ivec2)
    y[pos] = x[s * pos]
endfunction

function y = rescale(x : mat, s : scalar)
    y = zeros(size(x))
    parallel_do(size(y), y, x, s, scale_up)
    parallel_do(size(y), y, x, s, nearest)
endfunction
