function [] = __kernel__ fill(y : mat, pos : ivec2)
    y[pos] = 1
endfunction
y = zeros(4, 8)
parallel_do([4, 8], [2, 4, 1], y, fill)
