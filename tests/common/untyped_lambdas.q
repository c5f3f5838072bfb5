% Untyped lambdas as values (manual §1.13, §4.6, §4.10): curried lambdas, partial
% application, composition, lambdas passed to functions whose parameters have no types and to
% parameters of a function type. Used by tests/e2e_untyped_lambdas.rs.

% The manual's examples of §1.13 and §4.10.
function [a, b, c, d] = manual_examples(t : scalar)
    v = (x, y) -> 2 * x + y
    w = x -> y -> x + y
    z = w(10)
    a = v(1, t)
    b = z(t)
    c = w(4)(t)
    f = (x, y) -> x + y
    g = y -> x -> f(x, y)
    d = g(t)(5)
endfunction

% One curried lambda called with integers and with scalars: an instance for each.
function [a, b] = curried_twice(t : scalar)
    add = x -> y -> 3 * x + y
    a = add(2)(5)
    b = add(t)(0.25)
endfunction

% Composition: the composed lambda captures the two lambdas it composes.
function [a, b] = composed(t : scalar)
    compose = (f, g) -> x -> f(g(x))
    inc = x -> x + 1
    dbl = x -> 2 * x
    h = compose(inc, dbl)
    a = h(t)
    b = compose(dbl, inc)(t)
endfunction

% Lambdas given to a nested function without parameter types, returned from one, and
% recursive lambdas passed on as values.
function [a, b, c] = higher_order(t : scalar, k : int)
    function y = twice(f, x)
        y = f(f(x))
    endfunction
    function f = scaler(s)
        f = x -> s * x
    endfunction
    fact = n -> n > 0 ? n * fact(n - 1) : 1
    apply = (f, x) -> f(x)
    a = twice(x -> x * x + 1, t)
    b = twice(scaler(3), t)
    c = apply(fact, k)
endfunction

% An untyped lambda where a function type is declared: instantiated for the declared types.
function [a, b] = through_typed(t : scalar)
    function y = integrate(f : [scalar -> scalar], lo : scalar, hi : scalar, n : int)
        h = (hi - lo) / n
        y = 0.0
        for i = 0..n - 1
            y += f(lo + (i + 0.5) * h) * h
        endfor
    endfunction
    c = t
    a = integrate(x -> c * x * x, 0.0, 1.0, 100)
    sq = x -> x * x
    g : [scalar -> scalar] = sq
    b = g(t) + integrate(sq, 0.0, 2.0, 50)
endfunction

% Captured values are copied when the lambda is evaluated; arrays are captured too.
function [a, b] = captures(x : vec, t : scalar)
    s = 2.0
    scale = y -> s * y
    s = 100.0
    pick = v -> i -> v[i] + t
    p = pick(x)
    a = scale(t)
    b = p(1) + p(numel(x) - 1)
endfunction

% A lambda value passed on and called in a kernel: the kernel captures its closure.
function y : vec = mapped(x : vec, k : scalar)
    function y = each(v, f)
        y = zeros(numel(v))
        parallel_do(numel(v), __kernel__ (pos : int) -> y[pos] = f(v[pos]))
    endfunction
    y = each(x, __device__ (u) -> k * u + 1)
endfunction
