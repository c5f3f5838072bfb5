% Two reductions of different patterns apply to `dist(p*q, r)` and give different results
% (manual §4.9.3, reduction conflicts): the one with more variables is applied, and the
% conflict is an error at the strict safety level.
#pragma reduction_safetylevel strict
function y = fused(a : scalar, b : scalar, x : scalar)
    y = (a*x - b)^2
endfunction
reduction (a : scalar, b : scalar, x : scalar) -> dist(a*x, b) = fused(a, b, x)
reduction (a : scalar, b : scalar) -> dist(a, b) = (a - b)^2
function y = f(p : scalar, q : scalar, r : scalar)
    y = dist(p*q, r)
endfunction
