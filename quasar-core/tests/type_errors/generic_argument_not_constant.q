function [] = __kernel__ fill[N : int](y : vec(N), pos : int)
    y[pos] = N
endfunction
n = 4
y = zeros(4)
parallel_do(4, y, fill[n + 0.5])
