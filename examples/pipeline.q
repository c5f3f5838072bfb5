% An image pipeline in Quasar, bundled with the `pipeline` example of Quasar for Rust:
%   1. Gaussian blur as two separable passes (horizontal, vertical), each a __kernel__
%      function launched with parallel_do; the image borders are mirrored.
%   2. Gamma correction: a __device__ lambda applied to every pixel by a generic kernel.

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

% Applies a device function to every element of x.
function y : cube = pointwise_op(x : cube, fn : [__device__ scalar -> scalar])
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = fn(x[pos]))
endfunction

% Gamma correction of an image with intensities in [0, 255].
function y : cube = gamma_correct(x : cube, gamma : scalar)
    correct = __device__ (v : scalar) -> 255 * (v / 255) ^ (1 / gamma)
    y = pointwise_op(x, correct)
endfunction

function [] = main()
    % A synthetic 256 x 256 RGB test image (a bundled photograph comes later).
    im = 255 * rand(256, 256, 3)
    out = gamma_correct(gaussian_blur(im, 1.5), 2.2)
    print "mean intensity before: ", mean(im), ", after: ", mean(out)
endfunction
