function [] = __kernel__ negate(y, pos : int)
    y[pos] = -y[pos]
endfunction
data = load("data.qd")
parallel_do(100, data, negate)
