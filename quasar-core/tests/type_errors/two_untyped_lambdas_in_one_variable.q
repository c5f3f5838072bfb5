% Two lambdas without parameter types in one variable whose calls pass a scalar and a
% vector: no one function type takes both.
function [a, b] = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    a = f(t)
    b = f([1.0, 2.0])
endfunction
[a, b] = pick(1.5)
