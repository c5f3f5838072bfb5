% Untyped lambdas of no one type passed on to functions whose parameters have no types:
% the calls the callee makes through its parameter give the function type.

function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = apply(f, t)
endfunction

function [a, b] = branches(t : scalar, k : int)
    inc = x -> x + k
    dbl = x -> 2 * x
    a = apply(t > 0 ? inc : dbl, t)
    b = apply(t > 1 ? (x -> x * x) : (x -> x - 1), t)
endfunction

% Passed on twice: `twice` passes its parameter to `apply`.
function y = passed_twice(t : scalar)
    f = x -> x / 2
    if t < 0
        f = x -> -x
    endif
    y = twice(f, t)
endfunction

% Curried lambdas: each call with an int returns a lambda, called with a scalar.
function y = curried(t : scalar)
    f = x -> y -> x + y
    if t > 0
        f = x -> y -> x * y
    endif
    y = f(2)(t)
endfunction

% The same chosen by `?:` and passed on to a function that calls what they return.
function y = curried_passed_on(t : scalar)
    y = twice_curried(t > 0 ? (x -> y -> x + y) : (x -> y -> x * y), t)
endfunction

function y = twice_curried(g, t)
    y = g(2)(t) + g(3)(t)
endfunction

% Cells of untyped lambdas given to a function that calls their elements.
function [a, b, c] = cells(t : scalar)
    a = sum_all({x -> x + 1, x -> 2 * x, x -> x * x}, t)
    fs = {x -> x - 3, x -> x / 4}
    b = sum_all(fs, t)
    c = first_two(fs, t)
endfunction

% Device lambdas of no one type passed to a function whose kernel calls them: the kernel's
% calls through the captured parameter give the type (`[__device__ scalar -> scalar]`).
function [a : vec, b : vec] = to_a_kernel(x : vec, t : scalar)
    a = map(t > 0 ? (__device__ (u) -> u + 1) : (__device__ (u) -> 2 * u), x)
    f = __device__ (u) -> u * u
    if t > 1
        f = __device__ (u) -> u - t
    endif
    b = map(f, x)
endfunction

function y = map(f, x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), __kernel__ (pos : int) -> y[pos] = f(x[pos]))
endfunction

function y = apply(g, x)
    y = g(x)
endfunction

function y = twice(g, x)
    y = apply(g, apply(g, x))
endfunction

function y = sum_all(fs, x : scalar)
    y = 0.0
    {!serial for}
    for i = 0..numel(fs)-1
        y += fs[i](x)
    endfor
endfunction

function y = first_two(fs, x : scalar)
    y = fs[0](x) * fs[1](x)
endfunction
