% imboundary.q: boundary extension of Quasar for Rust's standard library.
%
% The original's definitions are not published; this follows MATLAB's padarray:
%   padarray(x, pad, mode)  x with pad[0] rows above and below and pad[1] columns left and
%     right, the new pixels taken by mode: "symmetric" (the default; Quasar's 'mirror),
%     "replicate" (the nearest border pixel), "circular" or "zero".

function [] = __kernel__ pad_mirror(x : cube'mirror'const, y : cube, pad : ivec2, pos : ivec3)
    y[pos] = x[pos[0] - pad[0], pos[1] - pad[1], pos[2]]
endfunction

function [] = __kernel__ pad_clamped(x : cube'clamped'const, y : cube, pad : ivec2, pos : ivec3)
    y[pos] = x[pos[0] - pad[0], pos[1] - pad[1], pos[2]]
endfunction

function [] = __kernel__ pad_circular(x : cube'circular'const, y : cube, pad : ivec2, pos : ivec3)
    y[pos] = x[pos[0] - pad[0], pos[1] - pad[1], pos[2]]
endfunction

function [] = __kernel__ pad_zero(x : cube'safe'const, y : cube, pad : ivec2, pos : ivec3)
    y[pos] = x[pos[0] - pad[0], pos[1] - pad[1], pos[2]]
endfunction

function y = padarray(x : cube, pad : ivec2, mode : string = "symmetric")
    y = uninit(size(x, 0) + 2 * pad[0], size(x, 1) + 2 * pad[1], size(x, 2))
    if mode == "symmetric" || mode == "mirror"
        parallel_do(size(y), x, y, pad, pad_mirror)
    elseif mode == "replicate" || mode == "clamped"
        parallel_do(size(y), x, y, pad, pad_clamped)
    elseif mode == "circular"
        parallel_do(size(y), x, y, pad, pad_circular)
    elseif mode == "zero"
        parallel_do(size(y), x, y, pad, pad_zero)
    else
        error("padarray: unknown mode ", mode, " (symmetric, replicate, circular, zero)")
    endif
endfunction
