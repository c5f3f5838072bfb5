% Kernel functions cannot be variadic (manual §4.8.1).
function [] = __kernel__ fill(y : vec, ...args : vec, pos : int)
    y[pos] = 1
endfunction
y = zeros(4)
parallel_do(4, y, 1.0, 2.0, fill)
