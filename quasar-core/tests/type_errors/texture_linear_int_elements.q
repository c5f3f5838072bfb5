function [] = __kernel__ scale_up(y : imat, x : imat'hwtex_linear, s : scalar, pos : ivec2)
    y[pos] = x[s * pos]
endfunction
