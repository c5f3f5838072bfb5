% Element-wise array expressions that the kernel generator fuses into one kernel each
% (tests/e2e_fusion.rs compares them with the operators evaluated one at a time).

function y : mat = axpy_sq(a : mat, x : mat, b : mat)
    y = a .* x + b .^ 2
endfunction

function y : mat = several(a : mat, x : mat, c : scalar)
    y = abs(sin(a) .* x - c) ./ (1 + x .* x) + sqrt(abs(a)) * 0.5 - max(a, x)
endfunction

function y : cube = gamma(x : cube, g : scalar)
    y = 255 * (x / 255) .^ (1 / g)
endfunction

function y : vec = steps(x : vec, v : vec, dt : scalar, n : int)
    y = x
    for it = 1..n
        y = y + dt * v - 0.01 * y
    endfor
endfunction

function y : mat = scale(x : mat, k : scalar)
    y = x * k
endfunction

function y : mat = with_calls(x : mat, k : scalar)
    y = scale(x, k) - x .* exp(-k)
endfunction

function [s : scalar, m : scalar] = dot_and_mean(x : vec, y : vec)
    s = sum(x .* y)
    m = mean((x - y) .^ 2)
endfunction

function s : scalar = sum_of_squares(x : mat)
    s = sum(x .* x + 1)
endfunction
