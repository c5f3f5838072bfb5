type point : class
    x : scalar
    y : scalar
endtype
p = point(x := 1.0, y := 2.0)
d = p.z
