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

% One lambda definition evaluated where its captured variable has different types: a typed
% lambda returned by a function called with an integer, a scalar and a vector, and an
% untyped one. Each evaluation is its own instance (the captured type is part of it).
function [a, b, c, d] = captured_types(t : scalar, x : vec)
    function f = offset_by(s)
        f = (u : scalar) -> u + s
    endfunction
    function f = times(s)
        f = u -> s * u
    endfunction
    a = offset_by(2)(0.5)
    b = offset_by(t)(0.5)
    c = sum(offset_by(x)(1.0))
    d = times(3)(t) + sum(times(x)(2.0))
endfunction

% A nested function capturing a variable of a function instantiated for an integer and then
% for a scalar: the nested function is instantiated for each.
function [a, b] = nested_captures(t : scalar)
    function y = outer(s)
        function z = inner(u)
            z = s * u
        endfunction
        y = inner(3)
    endfunction
    a = outer(2)
    b = outer(t)
endfunction

% One function launching a kernel lambda that calls the lambda it is given, given two
% different lambdas: the kernel is instantiated for each.
function [y, z] = mapped_twice(x : vec, k : scalar)
    function y = each(v, f)
        y = zeros(numel(v))
        parallel_do(numel(v), __kernel__ (pos : int) -> y[pos] = f(v[pos]))
    endfunction
    y = each(x, __device__ (u) -> k * u + 1)
    z = each(x, __device__ (u) -> u * u - k)
endfunction

% A variable declared with a function type takes two untyped lambdas, each instantiated for
% the declared parameter types (the one a variable without a type cannot hold).
function [a, b] = chosen(t : scalar)
    f : [scalar -> scalar] = x -> x + 1
    a = f(t)
    if t > 0
        f = x -> 2 * x
    endif
    b = f(t)
endfunction

% Function values in class fields (manual §7.2): a field of a concrete function type takes a
% typed lambda; a field of type `[(??, ??) -> ??]` takes an untyped lambda, instantiated at each
% call for the arguments given there.
type shaper : class
  scale : [scalar -> scalar]
  combine : [(??, ??) -> ??]
endtype

function [a, b, c, d] = lambda_fields(x : vec, t : scalar)
  function r = apply_combine(o : shaper, p, q)
    r = o.combine(p, q)
  endfunction
  k = 3.0
  obj = shaper(scale := (u : scalar) -> 2 * u, combine := (p, q) -> p * q + k)
  a = obj.scale(t)
  b = obj.combine(t, 2)
  c = sum(obj.combine(x, t))
  d = apply_combine(obj, 4, t)
endfunction

% A variable without a type given two different untyped lambdas: its calls tell the
% parameter types, each lambda is instantiated for them, and the joined results complete
% the function type (manual §4.6; as if declared `f : [scalar -> scalar]`).
function [a, b] = picked(t : scalar)
    f = x -> x + 1
    a = f(t)
    if t > 0
        f = x -> 2 * x
    endif
    b = f(t)
endfunction

% Calls with an integer and a scalar take a scalar; an integer result and a scalar one give
% a scalar; two parameters.
function [a, b, c] = widened(t : scalar, k : int)
    f = x -> x + 1
    if k > 2
        f = x -> x * 0.5
    endif
    a = f(k)
    b = f(t)
    op = (p, q) -> p + q
    if t > 1
        op = (p, q) -> p * q - k
    endif
    c = op(t, 3)
endfunction

% One composed lambda capturing other lambdas in turn (the same closure class with other
% types); an untyped lambda followed by a typed one; a variable reassigned in a loop.
function [a, b, c] = reassigned(t : scalar, n : int)
    compose = (f, g) -> x -> f(g(x))
    inc = x -> x + 1
    dbl = x -> 2 * x
    h = compose(inc, dbl)
    if t > 1
        h = compose(dbl, inc)
    endif
    a = h(t) + h(2)
    g = x -> x * x
    if n > 3
        g = (x : scalar) -> x - 1
    endif
    b = g(t)
    s = x -> x
    c = 0.0
    for i = 1..n
        c += s(i)
        s = x -> 2 * x + 0.5
    endfor
endfunction

% Two `__device__` lambdas chosen at run time and called in a kernel: the kernel calls the
% chosen one through the common function type.
function y : vec = chosen_in_kernel(x : vec, k : scalar)
    f = __device__ (u) -> k * u
    if k > 1
        f = __device__ (u) -> u + k
    endif
    y = zeros(numel(x))
    parallel_do(numel(x), __kernel__ (pos : int) -> y[pos] = f(x[pos]))
endfunction

% A lambda returning several values as a cell vector, its type written as a cell array type
% (manual §3.5): `vec[{string, scalar}]` is the cell vector of a string and a scalar.
function [s, v] = cell_result(t : scalar)
    get_string_and_value : [scalar -> vec[{string, scalar}]] =
      value -> {"String", 2 * value}
    [s, v] = get_string_and_value(t)
endfunction

% `?:` choosing between function values of other types (nested, with a typed lambda), and
% between two `__device__` lambdas called in a kernel: the variable takes the function type
% its calls imply.
function [y, z] = chosen_by_conditions(t : scalar, k : int)
    inc = x -> x + 1
    dbl = x -> 2 * x
    sq = (x : scalar) -> x * x
    f = t > 0 ? inc : (k > 2 ? dbl : sq)
    y = f(t)
    g = __device__ (u) -> u + k
    h = k > 1 ? g : __device__ (u) -> u * t
    z = zeros(5)
    parallel_do(numel(z), __kernel__ (pos : int) -> z[pos] = h(pos + 0.5))
endfunction
