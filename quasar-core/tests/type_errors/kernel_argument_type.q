function [] = __kernel__ k(y : vec, pos : int)
    y[pos] = pos
endfunction
parallel_do(4, 7, k)
