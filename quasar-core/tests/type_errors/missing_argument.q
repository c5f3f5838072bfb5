function y = blend(a, b, w)
    y = (1 - w) * a + w * b
endfunction
z = blend(1.0, 2.0)
