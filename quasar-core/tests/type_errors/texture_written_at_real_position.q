function [] = __kernel__ splat(x : mat'hwtex_nearest, s : scalar, pos : ivec2)
    x[s * pos] = 1.0
endfunction
