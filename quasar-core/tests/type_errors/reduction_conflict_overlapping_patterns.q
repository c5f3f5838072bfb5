% Two reductions whose patterns overlap (manual §4.9.2, §4.9.3): `a * b` matches inside
% `a * b + c`. The one with more variables is applied; reducing `p * q` first would give
% another result, so this is a reduction conflict (a warning at the default safety level).
function y = times(a : scalar, b : scalar)
    y = a .* b
endfunction

function y = fma3(a : scalar, b : scalar, c : scalar)
    y = a .* b + c
endfunction

reduction (a : scalar, b : scalar) -> a * b = times(a, b)
reduction (a : scalar, b : scalar, c : scalar) -> a * b + c = fma3(a, b, c)

function y = f(p : scalar, q : scalar, r : scalar)
    y = p * q + r
endfunction
