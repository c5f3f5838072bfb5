function y = half(x : scalar)
    y = x / 2
endfunction
h = $specialize(halve, x > 0)
