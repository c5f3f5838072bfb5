function y = blend(a, b, w : scalar = 0.5)
    y = (1 - w) * a + w * b
endfunction
function [y, k] = my_func(b : mat, a : mat = eye(4))
    y = a + b
    k = 0
endfunction
x1 = blend(1.0, 3.0)
x2 = blend(1.0, 3.0, 0.25)
x3 = blend([1.0, 2.0], [3.0, 4.0])
[y, k] = my_func(ones(4, 4))
