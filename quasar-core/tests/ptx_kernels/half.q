% Half precision: arrays of `scalar'half` are 16-bit in memory; values are computed in f32 and
% rounded back to half after each operation.

function [] = __kernel__ half_axpy(x : vec[scalar'half]'const, y : vec[scalar'half], a : scalar'half, pos : int)
    y[pos] = a * x[pos] + y[pos]
endfunction

function [] = __kernel__ half_mixed(x : vec[scalar'half]'const, y : vec, z : vec[scalar'half], pos : int)
    h = x[pos]
    y[pos] = float(h) * 0.1 + exp(h) + sqrt(abs(h))
    z[pos] = scalar'half(y[pos]) + h / 3.0
endfunction

function y = __device__ half_sq(h : scalar'half)
    y = h * h
endfunction

function [] = __kernel__ half_device(x : mat[scalar'half], pos : ivec2)
    h = half_sq(x[pos])
    if h > 2.0
        h = -h
    endif
    x[pos] = h + x[pos[0], 0]
endfunction

% Host functions of tests/gpu_ptx_kernels.rs.
function [] = run_half_axpy(x : vec[scalar'half], y : vec[scalar'half], a : scalar'half)
    parallel_do(numel(x), x, y, a, half_axpy)
endfunction

function [] = run_half_mixed(x : vec[scalar'half], y : vec, z : vec[scalar'half])
    parallel_do(numel(x), x, y, z, half_mixed)
endfunction

function [] = run_half_device(x : mat[scalar'half])
    parallel_do(size(x), x, half_device)
endfunction
