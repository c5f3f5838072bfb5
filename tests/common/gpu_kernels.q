% Kernels of tests/gpu_kernels.rs besides those of kernels.q: shared memory of constant size
% (what the PTX back end compiles today; kernels.q sizes it by `blkdim`), and one kernel per
% math built-in, so that a routine the PTX back end lacks costs only its own kernel.
%
% The order of the routines is the `op` number the test passes (see MATH_UNARY and
% MATH_BINARY in gpu_kernels.rs).

function [] = __kernel__ reverse_tiles8(x : vec, y : vec, pos : int, blkpos : int)
    tile = shared(8)
    tile[blkpos] = x[pos]
    syncthreads
    y[pos] = tile[7 - blkpos]
endfunction

function y : vec = reverse_in_blocks8(x : vec)
    y = zeros(numel(x))
    parallel_do([[numel(x)], [8]], x, y, reverse_tiles8)
endfunction

function [] = __kernel__ block_sums16(x : vec, y : vec, pos : int, blkpos : int, blkidx : int)
    acc = shared_zeros(16)
    acc[blkpos] = x[pos]
    syncthreads
    if blkpos == 0
        s = 0.0
        for i = 0..15
            s += acc[i]
        endfor
        y[blkidx] = s
    endif
endfunction

function y : vec = sums_of_blocks16(x : vec)
    y = zeros(numel(x) / 16)
    parallel_do([[numel(x)], [16]], x, y, block_sums16)
endfunction

function [] = __kernel__ m_sin(x : vec, y : vec, pos : int)
    y[pos] = sin(x[pos])
endfunction

function [] = __kernel__ m_cos(x : vec, y : vec, pos : int)
    y[pos] = cos(x[pos])
endfunction

function [] = __kernel__ m_tan(x : vec, y : vec, pos : int)
    y[pos] = tan(x[pos])
endfunction

function [] = __kernel__ m_exp(x : vec, y : vec, pos : int)
    y[pos] = exp(x[pos])
endfunction

function [] = __kernel__ m_exp2(x : vec, y : vec, pos : int)
    y[pos] = exp2(x[pos])
endfunction

function [] = __kernel__ m_log(x : vec, y : vec, pos : int)
    y[pos] = log(x[pos])
endfunction

function [] = __kernel__ m_log2(x : vec, y : vec, pos : int)
    y[pos] = log2(x[pos])
endfunction

function [] = __kernel__ m_log10(x : vec, y : vec, pos : int)
    y[pos] = log10(x[pos])
endfunction

function [] = __kernel__ m_sqrt(x : vec, y : vec, pos : int)
    y[pos] = sqrt(x[pos])
endfunction

function [] = __kernel__ m_asin(x : vec, y : vec, pos : int)
    y[pos] = asin(x[pos])
endfunction

function [] = __kernel__ m_acos(x : vec, y : vec, pos : int)
    y[pos] = acos(x[pos])
endfunction

function [] = __kernel__ m_atan(x : vec, y : vec, pos : int)
    y[pos] = atan(x[pos])
endfunction

function [] = __kernel__ m_sinh(x : vec, y : vec, pos : int)
    y[pos] = sinh(x[pos])
endfunction

function [] = __kernel__ m_cosh(x : vec, y : vec, pos : int)
    y[pos] = cosh(x[pos])
endfunction

function [] = __kernel__ m_tanh(x : vec, y : vec, pos : int)
    y[pos] = tanh(x[pos])
endfunction

function [] = __kernel__ m_floor(x : vec, y : vec, pos : int)
    y[pos] = floor(x[pos])
endfunction

function [] = __kernel__ m_ceil(x : vec, y : vec, pos : int)
    y[pos] = ceil(x[pos])
endfunction

function [] = __kernel__ m_round(x : vec, y : vec, pos : int)
    y[pos] = round(x[pos])
endfunction

function [] = __kernel__ m_frac(x : vec, y : vec, pos : int)
    y[pos] = frac(x[pos])
endfunction

function [] = __kernel__ m_abs(x : vec, y : vec, pos : int)
    y[pos] = abs(x[pos])
endfunction

function [] = __kernel__ m2_pow(x : vec, z : vec, y : vec, pos : int)
    y[pos] = pow(x[pos], z[pos])
endfunction

function [] = __kernel__ m2_atan2(x : vec, z : vec, y : vec, pos : int)
    y[pos] = atan2(x[pos], z[pos])
endfunction

function [] = __kernel__ m2_mod(x : vec, z : vec, y : vec, pos : int)
    y[pos] = mod(x[pos], z[pos])
endfunction

function [] = __kernel__ m2_min(x : vec, z : vec, y : vec, pos : int)
    y[pos] = min(x[pos], z[pos])
endfunction

function [] = __kernel__ m2_max(x : vec, z : vec, y : vec, pos : int)
    y[pos] = max(x[pos], z[pos])
endfunction

function y : vec = unary(x : vec, op : int)
    y = zeros(numel(x))
    if op == 0
        parallel_do(numel(x), x, y, m_sin)
    elseif op == 1
        parallel_do(numel(x), x, y, m_cos)
    elseif op == 2
        parallel_do(numel(x), x, y, m_tan)
    elseif op == 3
        parallel_do(numel(x), x, y, m_exp)
    elseif op == 4
        parallel_do(numel(x), x, y, m_exp2)
    elseif op == 5
        parallel_do(numel(x), x, y, m_log)
    elseif op == 6
        parallel_do(numel(x), x, y, m_log2)
    elseif op == 7
        parallel_do(numel(x), x, y, m_log10)
    elseif op == 8
        parallel_do(numel(x), x, y, m_sqrt)
    elseif op == 9
        parallel_do(numel(x), x, y, m_asin)
    elseif op == 10
        parallel_do(numel(x), x, y, m_acos)
    elseif op == 11
        parallel_do(numel(x), x, y, m_atan)
    elseif op == 12
        parallel_do(numel(x), x, y, m_sinh)
    elseif op == 13
        parallel_do(numel(x), x, y, m_cosh)
    elseif op == 14
        parallel_do(numel(x), x, y, m_tanh)
    elseif op == 15
        parallel_do(numel(x), x, y, m_floor)
    elseif op == 16
        parallel_do(numel(x), x, y, m_ceil)
    elseif op == 17
        parallel_do(numel(x), x, y, m_round)
    elseif op == 18
        parallel_do(numel(x), x, y, m_frac)
    elseif op == 19
        parallel_do(numel(x), x, y, m_abs)
    endif
endfunction

function y : vec = binary(x : vec, z : vec, op : int)
    y = zeros(numel(x))
    if op == 0
        parallel_do(numel(x), x, z, y, m2_pow)
    elseif op == 1
        parallel_do(numel(x), x, z, y, m2_atan2)
    elseif op == 2
        parallel_do(numel(x), x, z, y, m2_mod)
    elseif op == 3
        parallel_do(numel(x), x, z, y, m2_min)
    elseif op == 4
        parallel_do(numel(x), x, z, y, m2_max)
    endif
endfunction
