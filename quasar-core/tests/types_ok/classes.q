% Classes, methods (first parameter `self`), nested classes, pointers.
type point : class
    x : scalar
    y : scalar
endtype
type rectangle : class
    p1 : point
    p2 : point
endtype
type counter : mutable class
    n : int
endtype
function d = norm2(self : point)
    d = self.x^2 + self.y^2
endfunction
function [] = increment(self : ^counter)
    self.n += 1
endfunction
function y = point(px : scalar, py : scalar)
    y = point(x := px, y := py)
endfunction
p = point(x := 1.0, y := 2.0)
q = point(3.0, 4.0)
r = rectangle(p1 := p, p2 := q)
w = r.p2.x - r.p1.x
n = p.norm2()
c = counter(n := 0)
c.increment()
k = c.n
