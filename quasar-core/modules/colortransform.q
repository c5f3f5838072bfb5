% colortransform.q: colour space conversions of Quasar for Rust's standard library.
%
% Images are cubes M x N x 3. The original's definitions are not published; these follow
% MATLAB's functions of the same names (and the sRGB and CIE standards):
%   rgb2gray(x)     0.299 R + 0.587 G + 0.114 B (Rec. 601 luma; MATLAB's rgb2gray), a mat
%   rgb2yuv(x)      Y = 0.299 R + 0.587 G + 0.114 B, U = 0.492 (B - Y), V = 0.877 (R - Y)
%   yuv2rgb(x)      its inverse
%   rgb2hsv(x)      hue, saturation, value, each in [0, 1] (MATLAB's rgb2hsv); x in [0, 1]
%   hsv2rgb(x)      its inverse
%   sRGB_decode(x)  sRGB-encoded values in [0, 1] to linear light (IEC 61966-2-1); x a cube
%                   or one scalar
%   sRGB_encode(x)  linear light in [0, 1] to sRGB-encoded values
%   rgb2lab(x)      sRGB in [0, 1] (D65) to CIE L*a*b* (MATLAB's rgb2lab): L in [0, 100]
%   lab2rgb(x)      its inverse (sRGB values, not clamped)

function y = __device__ srgb_decode_value(v : scalar)
    if v <= 0.04045
        y = v / 12.92
    else
        y = ((v + 0.055) / 1.055) ^ 2.4
    endif
endfunction

function y = __device__ srgb_encode_value(v : scalar)
    if v <= 0.0031308
        y = 12.92 * v
    else
        y = 1.055 * v ^ (1 / 2.4) - 0.055
    endif
endfunction

function [] = __kernel__ srgb_decode_kernel(x : cube'const, y : cube, pos : ivec3)
    y[pos] = srgb_decode_value(x[pos])
endfunction

function [] = __kernel__ srgb_encode_kernel(x : cube'const, y : cube, pos : ivec3)
    y[pos] = srgb_encode_value(x[pos])
endfunction

function y = sRGB_decode(x : cube)
    y = uninit(size(x))
    parallel_do(size(x), x, y, srgb_decode_kernel)
endfunction

function y = sRGB_encode(x : cube)
    y = uninit(size(x))
    parallel_do(size(x), x, y, srgb_encode_kernel)
endfunction

% One value (real code converts thresholds: `sRGB_decode(222 / 255)`).
function y = sRGB_decode(x : scalar)
    y = srgb_decode_value(x)
endfunction

function y = sRGB_encode(x : scalar)
    y = srgb_encode_value(x)
endfunction

function [] = __kernel__ rgb2gray_kernel(x : cube'const, y : mat, pos : ivec2)
    y[pos] = 0.299 * x[pos[0], pos[1], 0] + 0.587 * x[pos[0], pos[1], 1] + 0.114 * x[pos[0], pos[1], 2]
endfunction

function y = rgb2gray(x : cube)
    y = uninit(size(x, 0), size(x, 1))
    parallel_do([size(x, 0), size(x, 1)], x, y, rgb2gray_kernel)
endfunction

function [] = __kernel__ rgb2yuv_kernel(x : cube'const, y : cube, pos : ivec2)
    r = x[pos[0], pos[1], 0]
    g = x[pos[0], pos[1], 1]
    b = x[pos[0], pos[1], 2]
    l = 0.299 * r + 0.587 * g + 0.114 * b
    y[pos[0], pos[1], 0] = l
    y[pos[0], pos[1], 1] = 0.492 * (b - l)
    y[pos[0], pos[1], 2] = 0.877 * (r - l)
endfunction

function [] = __kernel__ yuv2rgb_kernel(x : cube'const, y : cube, pos : ivec2)
    l = x[pos[0], pos[1], 0]
    b = l + x[pos[0], pos[1], 1] / 0.492
    r = l + x[pos[0], pos[1], 2] / 0.877
    y[pos[0], pos[1], 0] = r
    y[pos[0], pos[1], 1] = (l - 0.299 * r - 0.114 * b) / 0.587
    y[pos[0], pos[1], 2] = b
endfunction

function y = rgb2yuv(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, rgb2yuv_kernel)
endfunction

function y = yuv2rgb(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, yuv2rgb_kernel)
endfunction

function [] = __kernel__ rgb2hsv_kernel(x : cube'const, y : cube, pos : ivec2)
    r = x[pos[0], pos[1], 0]
    g = x[pos[0], pos[1], 1]
    b = x[pos[0], pos[1], 2]
    v = max(r, max(g, b))
    d = v - min(r, min(g, b))
    h = 0.0
    if d > 0
        if v == r
            h = (g - b) / d
        elseif v == g
            h = 2 + (b - r) / d
        else
            h = 4 + (r - g) / d
        endif
        h = h / 6
        if h < 0
            h = h + 1
        endif
    endif
    s = 0.0
    if v > 0
        s = d / v
    endif
    y[pos[0], pos[1], 0] = h
    y[pos[0], pos[1], 1] = s
    y[pos[0], pos[1], 2] = v
endfunction

function [] = __kernel__ hsv2rgb_kernel(x : cube'const, y : cube, pos : ivec2)
    h = 6 * x[pos[0], pos[1], 0]
    s = x[pos[0], pos[1], 1]
    v = x[pos[0], pos[1], 2]
    k = floor(h)
    f = h - k
    p = v * (1 - s)
    q = v * (1 - s * f)
    t = v * (1 - s * (1 - f))
    sector = mod(int(k), 6)
    r = v
    g = t
    b = p
    if sector == 1
        r = q
        g = v
        b = p
    elseif sector == 2
        r = p
        g = v
        b = t
    elseif sector == 3
        r = p
        g = q
        b = v
    elseif sector == 4
        r = t
        g = p
        b = v
    elseif sector == 5
        r = v
        g = p
        b = q
    endif
    y[pos[0], pos[1], 0] = r
    y[pos[0], pos[1], 1] = g
    y[pos[0], pos[1], 2] = b
endfunction

function y = rgb2hsv(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, rgb2hsv_kernel)
endfunction

function y = hsv2rgb(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, hsv2rgb_kernel)
endfunction

function y = __device__ lab_f(t : scalar)
    if t > 216.0 / 24389.0
        y = t ^ (1.0 / 3.0)
    else
        y = (24389.0 / 27.0 * t + 16.0) / 116.0
    endif
endfunction

function y = __device__ lab_finv(t : scalar)
    if t > 6.0 / 29.0
        y = t * t * t
    else
        y = (116.0 * t - 16.0) * 27.0 / 24389.0
    endif
endfunction

function [] = __kernel__ rgb2lab_kernel(x : cube'const, y : cube, pos : ivec2)
    r = srgb_decode_value(x[pos[0], pos[1], 0])
    g = srgb_decode_value(x[pos[0], pos[1], 1])
    b = srgb_decode_value(x[pos[0], pos[1], 2])
    % sRGB (D65) to XYZ, normalised by the D65 white point.
    fx = lab_f((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047)
    fy = lab_f(0.2126729 * r + 0.7151522 * g + 0.0721750 * b)
    fz = lab_f((0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883)
    y[pos[0], pos[1], 0] = 116 * fy - 16
    y[pos[0], pos[1], 1] = 500 * (fx - fy)
    y[pos[0], pos[1], 2] = 200 * (fy - fz)
endfunction

function [] = __kernel__ lab2rgb_kernel(x : cube'const, y : cube, pos : ivec2)
    fy = (x[pos[0], pos[1], 0] + 16) / 116
    fx = fy + x[pos[0], pos[1], 1] / 500
    fz = fy - x[pos[0], pos[1], 2] / 200
    cx = 0.95047 * lab_finv(fx)
    cy = lab_finv(fy)
    cz = 1.08883 * lab_finv(fz)
    y[pos[0], pos[1], 0] = srgb_encode_value(3.2404542 * cx - 1.5371385 * cy - 0.4985314 * cz)
    y[pos[0], pos[1], 1] = srgb_encode_value(-0.9692660 * cx + 1.8760108 * cy + 0.0415560 * cz)
    y[pos[0], pos[1], 2] = srgb_encode_value(0.0556434 * cx - 0.2040259 * cy + 1.0572252 * cz)
endfunction

function y = rgb2lab(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, rgb2lab_kernel)
endfunction

function y = lab2rgb(x : cube)
    y = uninit(size(x))
    parallel_do([size(x, 0), size(x, 1)], x, y, lab2rgb_kernel)
endfunction
