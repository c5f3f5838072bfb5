function y = f(x)
    y = x
endfunction
z = f(1, 2)
