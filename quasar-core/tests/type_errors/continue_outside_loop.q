function y = f(x)
    continue
    y = x
endfunction
z = f(1)
