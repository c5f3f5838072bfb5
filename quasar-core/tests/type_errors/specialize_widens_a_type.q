function y = half(x : scalar)
    y = x / 2
endfunction
h = $specialize(half, type(x, "int"))
