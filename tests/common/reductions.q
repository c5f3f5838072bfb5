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
