% Kernels for the PTX back end: arithmetic with Quasar's promotions, control flow, every
% access mode, atomics, output arguments, integer widths, device functions.

function [] = __kernel__ saxpy(x : vec'const, y : vec, a : scalar, pos : int)
    y[pos] = a * x[pos] + y[pos]
endfunction

function [] = __kernel__ modes(a : mat'clamped, b : mat'circular, c : mat'mirror, _
                               d : mat'unchecked, e : mat'checked, y : mat, pos : ivec2)
    y[pos] = a[pos + [1, -1]] + b[pos - [3, 0]] + c[pos[0] - 2, pos[1] + 5] + d[pos] + e[pos]
endfunction

function [] = __kernel__ control(y : vec'unchecked, n : int, pos : int)
    acc = 0.0
    k = 0
    while k < n
        k += 1
        if mod(k, 3) == 0
            continue
        elseif k > 100
            break
        endif
        acc += k / 2
    endwhile
    repeat
        k -= 7
    until k < 0
    for i = n..-2..0
        acc = acc - i
    endfor
    y[pos] = acc + k
endfunction

function [] = __kernel__ histogram(x : vec[int]'const, h : vec[int], s : vec, pos : int)
    bin = x[pos]
    h[bin] += 1
    s[bin] += 0.5
    s[0] ^^= float(bin)
    h[1] __= bin
    s[2] *= 1.5
endfunction

function [total : scalar, biggest : int] = __kernel__ reduce_out(a : vec, pos : int)
    total += a[pos]
    biggest ^^= int(a[pos])
endfunction

function [] = __kernel__ widths(a : vec[uint8], b : vec[int16], c : vec[int64], d : vec[uint32], pos : int)
    a[pos] = a[pos] + uint8(200)
    b[pos] = b[pos] * int16(3)
    c[pos] = c[pos] + int64(pos)
    d[pos] = d[pos] - uint32(1)
endfunction

function y = __device__ clamp01(x : scalar)
    y = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x)
endfunction

function [] = __kernel__ math(x : mat, y : mat, pos : ivec2)
    v = x[pos]
    w = exp(v) + log(abs(v) + 1.0) + sin(v) * cos(v) + sqrt(abs(v)) + floor(v) + ceil(v)
    w += round(v) + frac(v) + sign(v) + min(v, 2.0) + max(v, -2.0) + mod(v, 3.0) + v ^ 2.5
    w += pow(abs(v), 0.3) + tan(v) + exp2(v) + log2(abs(v) + 1.0) + log10(abs(v) + 1.0)
    y[pos] = clamp01(w) + saturate(w) + (isnan(w) ? 1.0 : 0.0)
endfunction

x = ones(8)
y = zeros(8)
parallel_do(8, x, y, 2.0, saxpy)
m = ones(4, 4)
run_modes(m, zeros(4, 4))
run_control(y, 10)
parallel_do(8, [1, 2, 3, 1, 2, 3, 1, 2], int(zeros(8)), zeros(8), histogram)
[t, b] = parallel_do(8, y, reduce_out)
parallel_do(4, uint8(zeros(4)), int16(zeros(4)), int64(zeros(4)), uint32(zeros(4)), widths)
parallel_do(size(m), m, zeros(4, 4), math)

% Host functions of tests/gpu_ptx_kernels.rs, which runs each kernel on the CPU and on the
% PTX interpreter with inputs of its own (NaN, ±0, ±inf, subnormals, odd sizes).
function [] = run_saxpy(x : vec, y : vec, a : scalar)
    parallel_do(numel(x), x, y, a, saxpy)
endfunction

function [] = run_modes(a : mat, y : mat)
    parallel_do(size(y), a, a, a, a, a, y, modes)
endfunction

function [] = run_control(y : vec, n : int)
    parallel_do(numel(y), y, n, control)
endfunction

function [] = run_histogram(x : vec[int], h : vec[int], s : vec)
    parallel_do(numel(x), x, h, s, histogram)
endfunction

function [t : scalar, b : int] = run_reduce(a : vec)
    [t, b] = parallel_do(numel(a), a, reduce_out)
endfunction

function [] = run_widths(a : vec[uint8], b : vec[int16], c : vec[int64], d : vec[uint32])
    parallel_do(numel(a), a, b, c, d, widths)
endfunction

function [] = run_math(x : mat, y : mat)
    parallel_do(size(x), x, y, math)
endfunction
