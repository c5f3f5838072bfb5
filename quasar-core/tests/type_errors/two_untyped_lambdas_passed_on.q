% Two lambdas without parameter types in one variable that is only passed on, to a function
% that does not call it: no call tells the types of their parameters.
function y = keep(f, x)
    y = x
endfunction
function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = keep(f, t)
endfunction
r = pick(1.5)
