% The image pipeline of the `pipeline` example (README's main command):
%   1. gamma correction: a kernel lambda applied to every pixel;
%   2. Gaussian blur as two separable passes, each a __kernel__ function launched with
%      parallel_do; the image borders are mirrored;
%   3. a 3x3 sharpening filter whose borders are clamped.
% Images are M x N x 3 cubes with intensities in [0, 255], as imread gives them.

% Normalised 1-D Gaussian coefficients fc[0..2n] with standard deviation sigma.
function fc : vec = gaussian_coefficients(sigma : scalar, n : int)
    fc = zeros(2 * n + 1)
    for i = 0..2 * n
        fc[i] = exp(-(i - n)^2 / (2 * sigma^2))
    endfor
    fc = fc / sum(fc)
endfunction

function [] = __kernel__ blur_horizontal(x : cube'mirror, y : cube, fc : vec'const, _
                                         n : int, pos : ivec3)
    acc = 0.0
    for i = 0..numel(fc) - 1
        acc += x[pos + [0, i - n, 0]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ blur_vertical(x : cube'mirror, y : cube, fc : vec'const, _
                                       n : int, pos : ivec3)
    acc = 0.0
    for i = 0..numel(fc) - 1
        acc += x[pos + [i - n, 0, 0]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function y : cube = gaussian_blur(x : cube, sigma : scalar)
    n = int(ceil(3 * sigma))
    fc = gaussian_coefficients(sigma, n)
    tmp = uninit(size(x))
    y = uninit(size(x))
    parallel_do(size(y), x, tmp, fc, n, blur_horizontal)
    parallel_do(size(y), tmp, y, fc, n, blur_vertical)
endfunction

% Gamma correction of an image with intensities in [0, 255].
function y : cube = gamma_correct(x : cube, gamma : scalar)
    g = 1 / gamma
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = 255 * (x[pos] / 255) ^ g)
endfunction

% Unsharp masking with a 3x3 box: borders are clamped (the edge pixel repeats).
function [] = __kernel__ sharpen_kernel(x : cube'clamped, y : cube, amount : scalar, pos : ivec3)
    acc = 0.0
    for dy = -1..1
        for dx = -1..1
            acc += x[pos + [dy, dx, 0]]
        endfor
    endfor
    c = x[pos]
    y[pos] = clamp(c + amount * (c - acc / 9), 0.0, 255.0)
endfunction

function y : cube = sharpen(x : cube, amount : scalar)
    y = uninit(size(x))
    parallel_do(size(x), x, y, amount, sharpen_kernel)
endfunction
