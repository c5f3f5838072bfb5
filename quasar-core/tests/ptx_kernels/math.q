% Transcendental functions in kernels. `tests/ptxas.rs` assembles this file in single and in
% double precision (where `scalar` is f64 and every function is one of our f64 routines).

function [] = __kernel__ elementary(x : vec'const, y : mat, pos : int)
    v = x[pos]
    a = abs(v) + 0.5
    y[pos, 0] = exp(v) + exp2(v) + log(a) + log2(a) + log10(a)
    y[pos, 1] = sin(v) + cos(v) + tan(v)
    y[pos, 2] = pow(a, v) + a ^ 2.5 + sqrt(a) + rsqrt(a)
    y[pos, 3] = atan(v) + atan2(v, a) + asin(v / a) + acos(v / a)
    y[pos, 4] = sinh(v) + cosh(v) + tanh(v)
    y[pos, 5] = floor(v) + ceil(v) + round(v) + frac(v) + mod(v, 3.0) + sign(v)
endfunction

function [] = __kernel__ vector_math(x : mat'const, y : mat, pos : int)
    v = [x[pos, 0], x[pos, 1], x[pos, 2]]
    w = exp(v) + sin(v) .* atan(v)
    y[pos, 0] = w[0] + w[1] * w[2]
endfunction

% `sin`, `cos` and `tan` alone, for large arguments (the range reduction).
function [] = __kernel__ trig(x : vec'const, y : mat, pos : int)
    v = x[pos]
    y[pos, 0] = sin(v)
    y[pos, 1] = cos(v)
    y[pos, 2] = tan(v)
endfunction

% Host functions of tests/gpu_ptx_kernels.rs.
function [] = run_elementary(x : vec, y : mat)
    parallel_do(numel(x), x, y, elementary)
endfunction

function [] = run_vector_math(x : mat, y : mat)
    parallel_do(size(x, 0), x, y, vector_math)
endfunction

function [] = run_trig(x : vec, y : mat)
    parallel_do(numel(x), x, y, trig)
endfunction
