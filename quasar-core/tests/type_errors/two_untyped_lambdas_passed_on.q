% Two lambdas without parameter types in one variable that is only passed on: no call here
% tells the types of their parameters.
function y = apply(f, x)
    y = f(x)
endfunction
function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = apply(f, t)
endfunction
r = pick(1.5)
