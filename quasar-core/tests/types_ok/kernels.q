% Kernel functions with parallel_do; special parameters typed from the dimensions; a kernel
% output reduced by parallel_do; a nested kernel capturing its function's variables; shared
% memory.
function [] = __kernel__ gamma_kernel(x : mat, y : mat, g : scalar, pos : ivec2, blkpos : ivec2)
    y[pos] = x[pos] ^ g
endfunction
function [] = __kernel__ fill_kernel(y : vec, value : scalar, pos : int)
    y[pos] = value
endfunction
function [s : scalar] = __kernel__ total(a : vec, pos : int)
    s += a[pos]
endfunction
function y : mat = gamma_correction(x : mat, gamma : scalar)
    function [] = __kernel__ my_kernel(pos : ivec2)
        y[pos] = x[pos] ^ gamma
    endfunction
    y = uninit(size(x))
    parallel_do(size(x), my_kernel)
endfunction
x = ones(4, 4)
y = zeros(size(x))
parallel_do(size(y), x, y, 0.5, gamma_kernel)
v = zeros(16)
parallel_do(numel(v), v, 2.0, fill_kernel)
t = parallel_do(4, [1.0, 2.0, 3.0, 4.0], total)
z = gamma_correction(x, 2.2)
function [] = __kernel__ block_copy(x : mat, y : mat, pos : ivec2, blkpos : ivec2, blkdim : ivec2, blkidx : ivec2)
    tile = shared(blkdim)
    tile[blkpos] = x[pos]
    syncthreads
    y[pos] = tile[blkdim[0] - 1 - blkpos[0], blkpos[1]]
endfunction
big = ones(32, 32)
out = zeros(32, 32)
parallel_do(size(big), big, out, block_copy)
function [] = __kernel__ sum_rows(a : mat, y : vec, pos : int)
    s = 0.0
    for n = 0..size(a, 1) - 1
        s += a[pos, n]
    endfor
    y[pos] = s
endfunction
rows = zeros(4)
parallel_do(size(x, 0), x, rows, sum_rows)
