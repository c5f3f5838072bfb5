% A type parameter binds to the first variable's type: points of two element types do not match.
type point[T] : class
    x : T
endtype
reduction (T, a : point[T], b : point[T]) -> a - b = point[T](x := a.x - b.x)
function y = f()
    d = point[scalar](x := 1.0) - point[int](x := 2)
    y = d.x
endfunction
