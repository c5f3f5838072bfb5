% Function values, kernel outputs assigned with `=`, variadic functions and exceptions
% (manual §2.1 items 13-15 and 19, §3.9, §4.2, §4.6-§4.8, §4.13), used by tests/e2e_functions.rs.

type binary_function : [__device__ (scalar, scalar) -> scalar]

% --- Function values --------------------------------------------------------------------

function y = cube_of(x : scalar)
    y = x * x * x
endfunction

% A handle of a named function, called through a variable.
function y = through_handle(x : scalar)
    h = cube_of
    y = h(x) + h(x + 1)
endfunction

% A function-typed parameter, called on the host with a closure over `k`.
function y = fold(f : binary_function, v : vec)
    y = v[0]
    for i = 1..numel(v) - 1
        y = f(y, v[i])
    endfor
endfunction

function y = fold_weighted(v : vec, k : scalar)
    y = fold(__device__ (a : scalar, b : scalar) -> k * a + b, v)
endfunction

% A device function value passed to a kernel, with a captured scalar.
function y : vec = pointwise(x : vec, fn : [__device__ scalar -> scalar])
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = fn(x[pos]))
endfunction

function y : vec = shifted_squares(x : vec, g : scalar)
    sq = __device__ (v : scalar) -> v * v + g
    y = pointwise(x, sq)
endfunction

% Nested kernel and device functions capturing the enclosing function's arrays and scalars,
% launched without listing them (manual §4.2).
function y : mat = gamma_correction(x : mat, gamma : scalar, gain : scalar)
    function r = __device__ scaled(v : scalar)
        r = gain * v
    endfunction
    function [] = __kernel__ my_kernel(pos : ivec2)
        y[pos] = scaled(x[pos] ^ gamma)
    endfunction
    y = uninit(size(x))
    parallel_do(size(x), my_kernel)
endfunction

% A function returning a closure that captures a value computed inside it.
function f : [scalar -> scalar] = affine(kind : int)
    if kind == 0
        f = x -> x
    else
        slope = 2.0 * kind
        f = x -> slope * x + 1
    endif
endfunction

function [a, b] = use_affine(x : scalar)
    a = affine(0)(x)
    g = affine(3)
    b = g(x) + g(2 * x)
endfunction

% Partial application: a lambda fixing the first argument of a named function.
function y = digits(a : scalar, b : scalar, c : scalar)
    y = a * 100 + b * 10 + c
endfunction

function y = partial(b : scalar, c : scalar)
    p = (q, r) -> digits(7, q, r)
    y = p(b, c)
endfunction

% A multi-expression lambda (its value is the last expression).
function y = noisy_sum(a : scalar, b : scalar)
    f = (p, q) -> (s = p + q; print("sum: ", s); 2 * s)
    y = f(a, b)
endfunction

% Closures bind their captures when they are defined.
function y = bound_at_definition(x : scalar)
    a = 10.0
    f = t -> t + a
    a = 1000.0
    y = f(x) + a
endfunction

% --- Kernel outputs assigned with `=` (manual §4.7) ------------------------------------

function [found : int] = __kernel__ any_nonzero(A : mat, pos : ivec2)
    if A[pos] != 0
        found = 1
    endif
endfunction

function found = has_nonzero(A : mat)
    found = parallel_do(size(A), A, any_nonzero)
endfunction

% Every output reduction: `=`, `+=`, `^^=` (maximum), `__=` (minimum) and `|=`.
function [flag : int, total : scalar, hi : scalar, lo : scalar, bits : int] = _
        __kernel__ summary(A : vec, pos : int)
    if A[pos] > 0
        flag = 1
    endif
    total += A[pos]
    hi ^^= A[pos]
    lo __= A[pos]
    bits |= A[pos] > 0 ? 2 : 1
endfunction

function [flag, total, hi, lo, bits] = summarise(A : vec)
    [flag, total, hi, lo, bits] = parallel_do(numel(A), A, summary)
endfunction

% --- Exceptions (manual §4.13) ----------------------------------------------------------

function y = checked_root(x : scalar)
    if x < 0
        error "negative argument"
    endif
    y = sqrt(x)
endfunction

% The caught message is the error's text; code after the failing call does not run.
function [y, msg] = safe_root(x : scalar)
    msg = ""
    y = -1.0
    try
        y = checked_root(x)
        y = y + 100
    catch ex
        msg = ex
    endtry
endfunction

function [] = __kernel__ check_positive(A : vec, pos : int)
    if A[pos] < 0
        error "a negative element"
    endif
endfunction

% An error raised inside a kernel is caught around `parallel_do`.
function [ok, msg] = kernel_failure(A : vec)
    ok = 1
    msg = ""
    try
        parallel_do(numel(A), A, check_positive)
    catch ex
        ok = 0
        msg = ex
    endtry
endfunction

% --- Recursion and curried lambdas (manual §2.1 item 13, §4.6.1) --------------------------

function y = fact(n)
    y = n > 1 ? n * fact(n - 1) : 1
endfunction

function [a, b] = recursive_forms(n : int)
    fib = k -> k < 2 ? k : fib(k - 1) + fib(k - 2)
    a = fact(n)
    b = fib(n)
endfunction

% The declared function type applies to the inner lambda too.
function [a, b] = curried(x : scalar, y : scalar)
    add : [scalar -> scalar -> scalar] = p -> q -> p + 2 * q
    a = add(x)(y)
    inc = add(1)
    b = inc(x) * inc(y)
endfunction

% --- Variadic functions, spread, optional parameters (manual §2.1 item 15, §4.8) ---------

function s = total(... args : vec)
    s = 0.0
    for i = 0..numel(args) - 1
        s += (i + 1) * args[i]
    endfor
endfunction

function s = __device__ dev_total(... args : vec)
    s = 0.0
    for i = 0..numel(args) - 1
        s += args[i]
    endfor
endfunction

function [] = __kernel__ variadic_in_kernel(y : vec, x : vec, pos : int)
    y[pos] = dev_total(x[pos], 2.0, 0.5 * x[pos])
endfunction

function [a, b] = swap(p, q)
    a = q
    b = p
endfunction

function y = weigh(a, b, c)
    y = 100 * a + 10 * b + c
endfunction

function y = scaled_sum(v : vec, scale : scalar = 2 * numel(v), offset = 1)
    y = scale * sum(v) + offset
endfunction

function [t0, t1, s0, s1, c, o1, o2] = variadic_forms(x : vec, w : vec3)
    t0 = total()
    t1 = total(1, 2.5, x[0])
    s0 = weigh(...w)
    s1 = weigh(...swap(1, 2), 3)
    c = [...w, 4, ...w]
    o1 = scaled_sum(x)
    o2 = scaled_sum(x, 1)
endfunction

% A spread whose length is known only at run time fills the rest parameter (the vector
% itself, or joined with the other rest arguments); a cell spreads its items.
function [t2, t3, t4, t5] = spread_forms(x : vec)
    t2 = total(...x)
    t3 = total(0.5, ...x, 2)
    cells = {1.5, x[0]}
    t4 = total(...cells)
    t5 = weigh(...{1, 2}, x[1])
endfunction

function y : vec = variadic_kernel(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), y, x, variadic_in_kernel)
endfunction

% Rest arguments of other types than numbers (manual §4.8, `func(1, 2, "hello")`): packed into
% one cell vector, whose items are checked against their use at run time.
function [] = print_each(...args)
    for i = 0..numel(args) - 1
        print args[i]
    endfor
endfunction
function n = count_rest(a : int, ...rest : vec[??])
    n = a + numel(rest)
endfunction
function [s, v] = pick_items(...args)
    s : string = args[1]
    v : scalar = args[0] * 2
endfunction
function [n, s, v] = variadic_cells(t : scalar)
    print_each(1, 2, "hello")
    n = count_rest(1, "a", t, [1, 2])
    [s, v] = pick_items(t, "second", 3)
endfunction
