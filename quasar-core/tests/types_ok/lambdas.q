% Lambdas: untyped (instantiated per call), typed, device, closures capturing by value,
% a curried lambda called in two steps, nested functions capturing, returned lambdas.
sq = x -> x * x
a = sq(3)
b = sq(1.5)
add = (p : scalar, q : scalar) -> p + q
c = add(1.0, 2.0)
lerp = __device__ (lo : scalar, hi : scalar, t : scalar) -> lo + (hi - lo) * t
d = lerp(0.0, 10.0, 0.25)
offset = 10
shift = x -> x + offset
e = shift(5)
scaled = (k : scalar) -> (x : scalar) -> k * x
triple = scaled(3.0)
nine = triple(3.0)
ten = scaled(2.0)(5.0)
body = (a, b) -> (s = a + b; s * 2)
f = body(1, 2)
function f : [cube -> cube] = make_filter(name : string)
    mask = [[0, -1, 0], [-1, 4, -1], [0, -1, 0]]
    f = x -> x + sum(mask)
endfunction
g = make_filter("Laplacian")
im = zeros(4, 4, 3)
h = g(im)
function y = outer(x : scalar)
    factor = 2.0
    function z = inner(w : scalar)
        z = factor * w
    endfunction
    y = inner(x) + 1.0
endfunction
o = outer(1.5)
