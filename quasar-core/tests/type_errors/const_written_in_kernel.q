function [] = __kernel__ clear(x : vec'const, pos : int)
    x[pos] = 0.0
endfunction
v = ones(10)
parallel_do(size(v), v, clear)
