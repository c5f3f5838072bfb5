% Generic functions and implicit specialization (manual §6).
function y = twice(x)
    y = 2 * x
endfunction
function y = first[T](v : vec[T])
    y = v[0]
endfunction
function n = len[N](v : vec(N))
    n = N
endfunction
a = twice(3)
b = twice(1.5)
c = twice([1.0, 2.0])
d = first([1, 2])
e = first[scalar]([1.5, 2.0])
f = len([1.0, 2.0, 3.0])
