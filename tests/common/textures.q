% Reads of hardware-texture arrays at real positions (manual §9.3), computed in software:
% 'hwtex_linear interpolates between the elements around the position, 'hwtex_nearest reads
% the nearest one; the array's boundary mode applies to every element read.

% The manual's image scaling kernels: by hand, and with the texture hint.
function [] = __kernel__ interpolate_nonhwtex (y:mat, x:mat, scale:scalar, pos:ivec2)
    scaled_pos = scale * pos
    f = frac(scaled_pos)
    i = int(floor(scaled_pos))

    y[pos] = (1 - f[0]) * (1 - f[1]) * x[i[0], i[1]] +
              f[0] * (1 - f[1]) * x[i[0]+1, i[1]] +
              (1 - f[0]) * f[1] * x[i[0], i[1]+1] +
              f[0] * f[1] * x[i[0]+1, i[1]+1]
endfunction

function [] = __kernel__ interpolate_hwtex (y:mat, x:mat'hwtex_linear,
    scale:scalar, pos:ivec2)
    y[pos] = x[scale * pos]
endfunction

function [] = __kernel__ interpolate_clamped (y : mat, x : mat'hwtex_linear'clamped, scale :
    scalar, pos : ivec2)
    y[pos] = x[scale * pos]
endfunction

function [by_hand, with_texture, clamped] = rescale(x : mat, scale : scalar, m : int, n : int)
    by_hand = zeros(m, n)
    with_texture = zeros(m, n)
    clamped = zeros(m, n)
    parallel_do([m, n], by_hand, x, scale, interpolate_nonhwtex)
    parallel_do([m, n], with_texture, x, scale, interpolate_hwtex)
    parallel_do([m, n], clamped, x, scale, interpolate_clamped)
endfunction

% One dimension, periodic: a shift by a fraction of an element.
function y = shifted(x : vec, d : scalar)
    function [] = __kernel__ shift(y : vec, x : vec'hwtex_linear'circular, d : scalar, pos : int)
        y[pos] = x[pos + d]
    endfunction
    y = zeros(size(x))
    parallel_do(numel(x), y, x, d, shift)
endfunction

% Three dimensions, mirrored at the edges, the position from a device function.
function q : vec3 = __device__ offset(p : ivec3, t : vec3)
    q = p + t
endfunction

function y = trilinear(x : cube, t : vec3)
    function [] = __kernel__ sample(y : cube, x : cube'hwtex_linear'mirror, t : vec3, pos : ivec3)
        y[pos] = x[offset(pos, t)]
    endfunction
    y = zeros(size(x))
    parallel_do(size(y), y, x, t, sample)
endfunction

% A texture passed on to a device function, read along a line in a loop.
function y = line_sums(x : mat, step : vec2, k : int)
    function total : scalar = __device__ line_sum(x : mat'hwtex_linear, p : vec2, step : vec2, k : int)
        total = 0.0
        for j = 0..k-1
            total += x[p + j * step]
        endfor
    endfunction
    function [] = __kernel__ walk(y : mat, x : mat'hwtex_linear, step : vec2, k : int, pos : ivec2)
        y[pos] = line_sum(x, [pos[0], pos[1]] + 0.25, step, k)
    endfunction
    y = zeros(size(x))
    parallel_do(size(y), y, x, step, k, walk)
endfunction

% Nearest: one real subscript beside an integer one, and integer elements.
function [] = __kernel__ nearest_rows(y : mat, x : mat'hwtex_nearest, s : scalar, c : scalar, pos : ivec2)
    y[pos] = x[s * pos[0] + c, pos[1]]
endfunction

function [] = __kernel__ nearest_labels(y : imat, x : imat'hwtex_nearest'clamped, s : scalar, pos : ivec2)
    y[pos] = x[s * pos]
endfunction

function [rows, labels] = nearest(x : mat, l : imat, s : scalar, c : scalar, m : int, n : int)
    rows = zeros(m, n)
    labels = mat[int](m, n)
    parallel_do([m, n], rows, x, s, c, nearest_rows)
    parallel_do([m, n], labels, l, s, nearest_labels)
endfunction
