% Two curried lambdas in one variable: called with an integer, they return two other
% lambdas, which have no one type.
function y = pick(t : scalar)
    f = x -> y -> x + y
    if t > 0
        f = x -> y -> x * y
    endif
    y = f(2)(t)
endfunction
r = pick(1.5)
