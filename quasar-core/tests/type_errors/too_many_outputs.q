function y = f(x)
    y = x
endfunction
[a, b] = f(1)
