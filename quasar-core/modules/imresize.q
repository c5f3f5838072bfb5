% imresize.q: image resizing of Quasar for Rust's standard library.
%
% The original's definitions are not published; these follow MATLAB's imresize without its
% anti-aliasing when shrinking:
%   imresize(x, scale, method)  every channel of x resized by scale (a number: both
%     dimensions; output size round(size(x, 0..1) * scale)), method "nearest", "bilinear"
%     (the default) or "bicubic" (Keys' kernel with a = -0.5, as MATLAB).
%   imresize(x, [rows, cols], method), imresize_to(x, rows, cols, method)  to rows x cols.
% Output pixel m samples the input at (m + 0.5) / s - 0.5 (pixel centres aligned, MATLAB);
% samples outside the image take the nearest border pixel.

function [] = __kernel__ resize_nearest(x : cube'clamped'const, y : cube, s : vec2, pos : ivec3)
    m = int(floor((pos[0] + 0.5) / s[0]))
    n = int(floor((pos[1] + 0.5) / s[1]))
    y[pos] = x[m, n, pos[2]]
endfunction

function [] = __kernel__ resize_bilinear(x : cube'clamped'const, y : cube, s : vec2, pos : ivec3)
    u = (pos[0] + 0.5) / s[0] - 0.5
    v = (pos[1] + 0.5) / s[1] - 0.5
    m = int(floor(u))
    n = int(floor(v))
    a = u - m
    b = v - n
    c = pos[2]
    top = (1 - b) * x[m, n, c] + b * x[m, n + 1, c]
    bottom = (1 - b) * x[m + 1, n, c] + b * x[m + 1, n + 1, c]
    y[pos] = (1 - a) * top + a * bottom
endfunction

function w = __device__ keys(t : scalar)
    d = abs(t)
    if d <= 1
        w = (1.5 * d - 2.5) * d * d + 1
    elseif d < 2
        w = ((-0.5 * d + 2.5) * d - 4) * d + 2
    else
        w = 0.0
    endif
endfunction

function [] = __kernel__ resize_bicubic(x : cube'clamped'const, y : cube, s : vec2, pos : ivec3)
    u = (pos[0] + 0.5) / s[0] - 0.5
    v = (pos[1] + 0.5) / s[1] - 0.5
    m = int(floor(u))
    n = int(floor(v))
    acc = 0.0
    for i = -1..2
        wi = keys(u - (m + i))
        for j = -1..2
            acc = acc + wi * keys(v - (n + j)) * x[m + i, n + j, pos[2]]
        endfor
    endfor
    y[pos] = acc
endfunction

function y = imresize_to(x : cube, rows : int, cols : int, method : string = "bilinear")
    s = [rows / size(x, 0), cols / size(x, 1)]
    y = uninit(rows, cols, size(x, 2))
    if method == "nearest"
        parallel_do(size(y), x, y, s, resize_nearest)
    elseif method == "bilinear"
        parallel_do(size(y), x, y, s, resize_bilinear)
    elseif method == "bicubic"
        parallel_do(size(y), x, y, s, resize_bicubic)
    else
        error("imresize: unknown method ", method, " (nearest, bilinear, bicubic)")
    endif
endfunction

function y = imresize(x : cube, scale : scalar, method : string = "bilinear")
    y = imresize_to(x, int(round(size(x, 0) * scale)), int(round(size(x, 1) * scale)), method)
endfunction

function y = imresize(x : cube, sz : ivec2, method : string = "bilinear")
    y = imresize_to(x, sz[0], sz[1], method)
endfunction
