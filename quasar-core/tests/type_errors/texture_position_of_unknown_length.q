function [] = __kernel__ sample(y : vec, x : cube'hwtex_linear, p : vec, pos : int)
    y[pos] = x[p]
endfunction
