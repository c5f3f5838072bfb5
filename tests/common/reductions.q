% Reductions (manual §4.9, §3.8), used by tests/e2e_reductions.rs. Several of these programs
% mean something only because a reduction applies: `distanceto` is no method of `point`,
% `sq` and `twice` are no functions and `|>` has no meaning of its own.

% --- A class method through a reduction (manual §3.8) -------------------------------------

type point : class
    x : scalar
    y : scalar
endtype

function d = point_distance(p : point, q : point)
    d = sqrt((p.x - q.x)^2 + (p.y - q.y)^2)
endfunction

reduction (p : point, q : point) -> p.distanceto(q) = point_distance(p, q)

function d = distance(ax : scalar, ay : scalar, bx : scalar, by : scalar)
    p = point(x := ax, y := ay)
    q = point(x := bx, y := by)
    d = p.distanceto(q)
endfunction

% --- Names given a meaning by reductions, by the types of their arguments ----------------

reduction (x : scalar) -> twice(x) = 2 * x
reduction (x : vec) -> twice(x) = [x, x]
reduction (x : scalar) -> sq(x) = x * x

function [s, v] = doubled(t : scalar, u : vec)
    s = twice(sq(t)) % twice(t * t) = 2 * (t * t)
    v = twice(u)
endfunction

% --- More variables first, and the inside first (§4.9.2) ----------------------------------

function y = total(x : vec)
    y = 0.0
    for i = 0..numel(x) - 1
        y += x[i]
    endfor
endfunction

function y = squared_distance(a : vec, b : vec)
    y = total((a - b).^2)
endfunction

% `norm2(a - b)` has two variables, `norm2(x)` one: the first wins where both match.
reduction (x : vec) -> norm2(x) = sqrt(total(x.^2))
reduction (a : vec, b : vec) -> norm2(a - b) = sqrt(squared_distance(a, b))

function [n, m] = norms(a : vec, b : vec)
    n = norm2(a)
    m = norm2(a - b)
endfunction

% --- where clauses: at compile time and at run time (§4.9.4) -----------------------------

function y = ramp(x : scalar)
    y = x < 0 ? 0.0 : x
endfunction

reduction (x : scalar) -> ramp(x) = x where x >= 0
reduction (x : scalar) -> ramp(x) = 0.0 where x < 0

function [a, b, c] = ramps(t : scalar)
    a = ramp(2.5)  % the clause holds: 2.5
    b = ramp(-1.5) % the first clause fails, the second holds: 0
    c = ramp(t)    % decided at run time
endfunction

% --- The pipeline operator, defined by a reduction (chapter 15) --------------------------

reduction (x, f) -> x |> f = f(x)

function y = add_one(x : scalar)
    y = x + 1
endfunction

function y = halve(x : scalar)
    y = x / 2
endfunction

function y = piped(t : scalar)
    y = t |> add_one |> halve
endfunction

% --- Reductions inside kernels, and `$ftype` (§4.9.4) ------------------------------------

reduction (x : scalar) -> where_run(x) = x + 1000 where $ftype("__kernel__")
reduction (x : scalar) -> where_run(x) = x where $ftype("__host__")

function [y : vec, h : scalar] = kernel_site(x : vec, t : scalar)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = where_run(sq(x[pos])))
    h = where_run(t)
endfunction

% --- Symbolic derivatives (§4.9.1): the manual's rules, the larger pattern first ----------

reduction (x : scalar, a : scalar) -> diff(a, x) = 0
reduction (x : scalar, a : int) -> diff(x^a, x) = a*x^(a-1)
reduction (x, y, z : scalar) -> diff(x + y, z) = diff(x, z) + diff(y, z)
reduction (x : scalar, y : scalar) -> diff(x, y) = 0
reduction (x, y : scalar) -> diff(sin(x), y) = cos(x) * diff(x, y)

function y = slope(x : scalar)
    y = diff(sin(x^4) + 2, x) % 4*cos(x^4)*x^3
endfunction

% The manual's form: an untyped lambda, rewritten when a call gives `x` a type.
slope_of = x -> diff(sin(x^4) + 2, x)
function y = lambda_slope(t : scalar)
    y = slope_of(t)
endfunction

% The same rules inside a kernel (the PTX back end runs the rewritten expression).
function y : vec = slopes(x : vec)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : int) -> y[pos] = diff(x[pos]^3 + 1, x[pos]))
endfunction

% --- A parametric reduction: the operator `-` of a generic class (§7.5) ------------------

type pair[T] : class
    a : T
    b : T
endtype

reduction (T, p : pair[T], q : pair[T]) -> p - q = pair[T](a := p.a - q.a, b := p.b - q.b)

function [fa, fb, ia, ib] = pair_differences(s : scalar, k : int)
    d = pair[scalar](a := s, b := 2 * s) - pair[scalar](a := 1.0, b := 0.5)
    e = pair[int](a := k, b := 3) - pair[int](a := 1, b := k)
    [fa, fb, ia, ib] = [d.a, d.b, e.a, e.b]
endfunction

% --- A property with a getter and a setter (§7.3.2) -------------------------------------

type arrow : mutable class
    x : scalar
    y : scalar
endtype

reduction (a : arrow) -> a.length = sqrt(a.x^2 + a.y^2)
reduction (a : ^arrow, b : scalar) -> (a.length = b) = _
    (a = arrow(x := b / a.length * a.x, y := b / a.length * a.y)) where b >= 0
% Tried after the rule above (defined later); the last alternative, so the setter as written
% (`arrow` has no field `length`) is never needed.
reduction (a : ^arrow, b : scalar) -> (a.length = b) = (a = arrow(x := 0.0, y := 0.0))

function [before, x, y, after] = rescale(ax : scalar, ay : scalar, len : scalar)
    v = arrow(x := ax, y := ay)
    before = v.length
    v.length = len % the sign of `len` is known at run time only
    [x, y, after] = [v.x, v.y, v.length]
endfunction

% --- A variadic reduction (§4.9.5) calling a variadic function ---------------------------

function y = total(...args : vec)
    y = 0.0
    for i = 0..numel(args) - 1
        y += args[i]
    endfor
endfunction

reduction (w : scalar, ...rest : vec) -> weighted(w, rest) = w * total(...rest)

function [one, three] = weighted_sums(t : scalar)
    one = weighted(2.0, t)
    three = weighted(t, 1.0, 2.0, 3.5)
endfunction

% --- The definition-assignment `:=` given a meaning by a reduction (chapter 15) -----------

function y = tabulated(f : [scalar -> scalar], n : int)
    y = zeros(n)
    {!serial for}
    for i = 0..n - 1
        y[i] = f(i)
    endfor
endfunction

reduction (y : vec, f : [scalar -> scalar]) -> (y := f) = y = tabulated(f, numel(y))

function y = sampled(n : int, c : scalar)
    y = zeros(n)
    y := (i : scalar) -> c * i + 1
endfunction
