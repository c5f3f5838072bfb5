% Two curried lambdas in one variable: called with an integer, they return two other
% lambdas, and nothing calls what they return, so those have no one type.
function y = pick(t : scalar)
    f = x -> y -> x + y
    if t > 0
        f = x -> y -> x * y
    endif
    g = f(2)
    y = t
endfunction
r = pick(1.5)
