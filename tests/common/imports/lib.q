% A library imported by main.q (tests/e2e_more.rs): a kernel, a device function and a checked
% helper whose failure names this file.
function y = __device__ clamp01(x : scalar)
    y = min(max(x, 0.0), 1.0)
endfunction

function [] = __kernel__ saturate_kernel(x : vec, y : vec, pos : int)
    y[pos] = clamp01(x[pos])
endfunction

function y = positive_sqrt(x : scalar)
    assert(x >= 0)
    y = sqrt(x)
endfunction
