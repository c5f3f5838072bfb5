% A variable holds one lambda without parameter types: each call instantiates it.
function y = pick(t : scalar)
    f = x -> x + 1
    if t > 0
        f = x -> 2 * x
    endif
    y = f(t)
endfunction
r = pick(1.5)
