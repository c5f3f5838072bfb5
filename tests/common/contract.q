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
