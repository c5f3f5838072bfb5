% Small vectors given to kernels as arguments (`ctr : ivec3`) in arithmetic, and
% `size(x, 0..1)` in a kernel (manual §4.5 filter and §11 Mandelbrot examples, in new words).
% Used by tests/e2e_vector_params.rs.

% A correlation with a mask around `ctr` (outside the image reads 0).
function [] = __kernel__ correlate_k(x : cube, y : cube, mask : mat, ctr : ivec3, pos : ivec3)
    acc = 0.0
    for m = 0..size(mask, 0) - 1
        for n = 0..size(mask, 1) - 1
            acc += x[pos + [m, n, 0] - ctr] * mask[m, n]
        endfor
    endfor
    y[pos] = acc
endfunction

function y = correlate(x : cube, mask : mat)
    y = zeros(size(x))
    parallel_do(size(y), x, y, mask, [1, 1, 0], correlate_k)
endfunction

% Each element gets its position scaled to [0, 1) by the image's size.
function [] = __kernel__ unit_k(im : mat, pos : ivec2)
    p = float(pos) ./ size(im, 0..1)
    im[pos] = p[0] + 10 * p[1]
endfunction

function im = unit_positions(h : int, w : int)
    im = zeros(h, w)
    parallel_do(size(im), im, unit_k)
endfunction
