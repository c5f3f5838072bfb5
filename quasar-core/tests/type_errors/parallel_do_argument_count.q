function [] = __kernel__ add(x : vec, y : vec, z : vec, pos : int)
    z[pos] = x[pos] + y[pos]
endfunction
a = ones(8)
b = ones(8)
c = zeros(8)
parallel_do(size(c), a, b, add)
