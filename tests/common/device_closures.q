% Device code capturing arrays of the enclosing function (manual §4.2, §5.1): a nested
% `__device__` function and a `__device__` lambda that read an array they capture, called from
% kernels that capture them in turn. Used by tests/e2e_device_closures.rs.

% A nested device function reading the captured weights; the nested kernel captures `x`, `y`
% and the device function.
function y : vec = weighted(x : vec, w : vec)
    function r = __device__ weight_at(i : int)
        r = 2.0 * w[mod(i, numel(w))]
    endfunction
    function [] = __kernel__ apply(pos : int)
        y[pos] = x[pos] * weight_at(pos)
    endfunction
    y = zeros(numel(x))
    parallel_do(numel(x), apply)
endfunction

% A device lambda capturing an array and a scalar, called from a kernel lambda.
function y : vec = shifted(x : vec, table : vec, k : int)
    at = __device__ (i : int) -> table[i + k] + 1.0
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, __kernel__ (a : vec, b : vec, pos : int) -> b[pos] = a[pos] * at(pos))
endfunction

% A device function writing into a captured array: a 3-tap box filter into a scratch array
% of the enclosing function.
function y : vec = box3(x : vec)
    y = zeros(numel(x))
    function [] = __device__ put(i : int, v : scalar)
        y[i] = v
    endfunction
    function [] = __kernel__ filt(pos : int)
        total = 0.0
        for k = -1..1
            j = pos + k
            if j >= 0 && j < numel(x)
                total += x[j]
            endif
        endfor
        put(pos, total / 3)
    endfunction
    parallel_do(numel(x), filt)
endfunction

% The manual's lookup table (§4.2): a device lambda reading a captured array, given as a value
% to a function with a parameter of a device function type, called in a kernel there. The
% function is instantiated for this lambda, and its kernel takes `lut` as an argument.
function y : vec = gamma_lut(x : vec, gamma : scalar)
    function y = pointwise_op(x : vec, fn : [__device__ scalar -> scalar])
        y = uninit(numel(x))
        parallel_do(numel(x), __kernel__ (pos : int) -> y[pos] = fn(x[pos]))
    endfunction
    lut = ((0..255) / 255) .^ gamma * 255
    gamma_correction = __device__ (x : scalar) -> lut[x]
    y = pointwise_op(x, gamma_correction)
endfunction

% A device lambda reducing a whole captured array (manual §4.2, `D = __device__ (x : scalar)
% -> sum(A) + x`), called in a kernel: a loop over the array's elements in every thread.
function y : vec = shifted_by_totals(x : vec, a : mat)
    D = __device__ (u : scalar) -> sum(a) + u * prod(a) - mean(a)
    y = zeros(numel(x))
    parallel_do(numel(x), __kernel__ (pos : int) -> y[pos] = D(x[pos]))
endfunction

% The same over an integer array, and the mean of a cube.
function [y : ivec, z : vec] = integer_and_cube_totals(x : ivec, b : ivec, c : cube)
    S = __device__ (u : int) -> sum(b) * u + prod(b)
    M = __device__ (u : int) -> mean(c) + u
    y = zeros(numel(x))
    z = zeros(numel(x))
    parallel_do(numel(x), __kernel__ (pos : int) -> (y[pos] = S(x[pos]); z[pos] = M(x[pos])))
endfunction

% Device functions called from host code with arrays (manual §4.2: `D = __device__ (x :
% scalar) -> sum(A) + x; A = ones(2,2); print D(0)` prints 16): the captured array is the one
% at the definition; an array parameter a device function writes is written.
function [a, b, c] = device_functions_called_on_the_host(x : mat, t : scalar)
    A = copy(x)
    D = __device__ (u : scalar) -> sum(A) + u
    A = zeros(2, 2)
    a = D(t)
    b = weighted_total(x, t)
    v = zeros(numel(x) + 1)
    bump(v, 1)
    bump(v, 1)
    c = v[1] + sum(A)
endfunction

function y = __device__ weighted_total(m : mat, w : scalar)
    y = 0.0
    for i = 0..numel(m)-1
        y += w * m[i]
    endfor
endfunction

function [] = __device__ bump(v : vec, i : int)
    v[i] = v[i] + 1
endfunction
