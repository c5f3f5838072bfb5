function [] = __kernel__ fill(y : vec, value : scalar, pos : int)
    y[pos] = value
endfunction
v = zeros(8)
fill(v, 1.0, 0)
