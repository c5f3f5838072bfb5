a = 1.0
function [] = f(x : scalar)
    a = a + x
    print a
endfunction
f(2.0)
