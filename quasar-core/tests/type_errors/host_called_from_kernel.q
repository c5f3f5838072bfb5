function y = square(x)
    y = x * x
endfunction
function [] = __kernel__ square_all(y : vec, pos : int)
    y[pos] = square(y[pos])
endfunction
v = ones(16)
parallel_do(numel(v), v, square_all)
