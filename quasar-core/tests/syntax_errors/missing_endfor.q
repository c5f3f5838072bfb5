function y = f(x)
    for i = 0..numel(x)-1
        y += x[i]
    endfunction
