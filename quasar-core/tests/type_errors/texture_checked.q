function [] = __kernel__ scale_up(y : mat, x : mat'hwtex_linear'checked, s : scalar, pos : ivec2)
    y[pos] = x[s * pos]
endfunction
