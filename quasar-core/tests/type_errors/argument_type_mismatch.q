function y = scale(x : mat, a : scalar)
    y = x * a
endfunction
z = scale("image.png", 2.0)
