% Small vectors given to kernels as arguments (`ctr : ivec3`) in arithmetic, and
% `size(x, 0..1)` in a kernel (manual §4.5 filter and §11 Mandelbrot examples, in new words).
% Used by tests/e2e_vector_params.rs.

% A correlation with a mask around `ctr` (outside the image reads 0).
function [] = __kernel__ correlate_k(x : cube, y : cube, mask : mat, ctr : ivec3, pos : ivec3)
    acc = 0.0
    for m = 0..size(mask, 0) - 1
        for n = 0..size(mask, 1) - 1
            acc += x[pos + [m, n, 0] - ctr] * mask[m, n]
        endfor
    endfor
    y[pos] = acc
endfunction

function y = correlate(x : cube, mask : mat)
    y = zeros(size(x))
    parallel_do(size(y), x, y, mask, [1, 1, 0], correlate_k)
endfunction

% Each element gets its position scaled to [0, 1) by the image's size.
function [] = __kernel__ unit_k(im : mat, pos : ivec2)
    p = float(pos) ./ size(im, 0..1)
    im[pos] = p[0] + 10 * p[1]
endfunction

function im = unit_positions(h : int, w : int)
    im = zeros(h, w)
    parallel_do(size(im), im, unit_k)
endfunction

% Manual §11.6: an accumulator kept in a vector of length 1 on the device, which every
% thread adds to (`result +=` on the whole array parameter), the position held in a `vec3`.
function [] = __kernel__ calc_sum(result : vec(1), data : cube, pos : vec3)
  result += data[pos]
endfunction

function r = total(data : cube)
  r = zeros(1)
  parallel_do(size(data), r, data, calc_sum)
endfunction

% Every element of a longer array parameter, with a vector value.
function [] = __kernel__ add_each(acc : vec(3), pos : int)
  acc += [1.0, 2.0, 3.0] * pos
endfunction

function a = added(n : int)
  a = zeros(3)
  parallel_do(n, a, add_each)
endfunction

% A position held in a real vector indexes at its integer parts.
function [] = __kernel__ at_real_position(y : mat, x : mat, pos : ivec2)
  q = pos + 0.5
  y[pos] = x[q]
endfunction

function y = copied(x : mat)
  y = zeros(size(x))
  parallel_do(size(x), y, x, at_real_position)
endfunction
