% Regressions of the IR contract (issue 12), run on the CPU by tests/e2e_contract.rs and on
% both devices by tests/gpu_kernels.rs.

% `warpSize` is the special parameter `warpsize` under its CUDA spelling: both back ends bind
% it (it once type-checked but was unbound in the Rust code and unknown to the PTX).
function [] = __kernel__ lane_kernel(y : vec, pos : int, warpSize : int)
    y[pos] = mod(pos, warpSize)
endfunction

function y : vec = lanes(n : int)
    y = zeros(n)
    parallel_do(n, y, lane_kernel)
endfunction

function [] = __kernel__ warp_count_kernel(y : vec, pos : int, warpsize : int)
    y[pos] = warpsize
endfunction

function y : vec = warp_sizes(n : int)
    y = zeros(n)
    parallel_do(n, y, warp_count_kernel)
endfunction

% A kernel that writes an array only through a `__device__` function: the launch must copy
% it back from a device, and the CPU must keep the write (both were lost once).
function [] = __device__ put(y : vec, i : int, v : scalar)
    y[i] = v
endfunction

function [] = __device__ put_twice(y : vec, i : int, v : scalar)
    put(y, i, 2 * v)
endfunction

function [] = __kernel__ put_kernel(x : vec, y : vec, pos : int)
    put_twice(y, pos, x[pos])
endfunction

function y : vec = doubled(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, put_kernel)
endfunction

% … and through a function value passed to the kernel.
function [] = __kernel__ store_kernel(x : vec, y : vec, f : [__device__ (vec, int, scalar) -> ()], pos : int)
    f(y, pos, x[pos] + 1)
endfunction

function y : vec = stored(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, put, store_kernel)
endfunction
