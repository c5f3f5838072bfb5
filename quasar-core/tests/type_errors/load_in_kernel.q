function [] = __kernel__ k(y : vec, pos : int)
    d = load("x.qd")
    y[pos] = 1.0
endfunction
parallel_do(4, zeros(4), k)
