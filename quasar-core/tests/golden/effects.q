% Writes through a device function and a function value (the launch copies `y` back), and
% `warpSize`, the CUDA spelling of the special parameter `warpsize`.
function [] = __device__ put(y : vec, i : int, v : scalar)
    y[i] = v
endfunction

function [] = __kernel__ through_call(x : vec, y : vec, pos : int, warpSize : int)
    put(y, pos, x[pos] + warpSize)
endfunction

function [] = __kernel__ through_value(x : vec, y : vec, f : [__device__ (vec, int, scalar) -> ()], pos : int)
    f(y, pos, x[pos])
endfunction

function y : vec = both(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, through_call)
    parallel_do(numel(x), x, y, put, through_value)
endfunction
