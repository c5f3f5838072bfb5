% Classes in kernels (manual §2.2.6, §7): arrays of class values stored in place, read and
% written by kernels, class values as kernel arguments and in device functions.
% Used by tests/e2e_class_kernels.rs.

type pixel : class
  r : scalar
  g : scalar
  b : scalar
endtype

type weights : class
  wr : scalar
  wg : scalar
  wb : scalar
endtype

type pixel_vec : vec[pixel]

function y = __device__ luma(p : pixel, w : weights)
  y = w.wr * p.r + w.wg * p.g + w.wb * p.b
endfunction

% An array of pixels in, a gray image out; the weights are one class value.
function [] = __kernel__ gray_kernel(src : vec[pixel], dst : vec, w : weights, pos : int)
  dst[pos] = luma(src[pos], w)
endfunction

% Class values written into an array by a kernel.
function [] = __kernel__ swap_kernel(src : vec[pixel], dst : vec[pixel], pos : int)
  p = src[pos]
  dst[pos] = pixel(r:=p.b, g:=p.g, b:=p.r)
endfunction

function a = make_pixels(n : int)
  a = pixel_vec(n)
  for i = 0..n-1
    a[i] = pixel(r:=i, g:=2.0*i, b:=1.0)
  endfor
endfunction

function y = gray(n : int, wr : scalar)
  a = make_pixels(n)
  w = weights(wr:=wr, wg:=0.5, wb:=0.25)
  y = zeros(n)
  parallel_do(n, a, y, w, gray_kernel)
endfunction

function y = swapped_red(n : int)
  a = make_pixels(n)
  b = pixel_vec(n)
  parallel_do(n, a, b, swap_kernel)
  y = zeros(n)
  for i = 0..n-1
    y[i] = b[i].r + 10 * b[i].b
  endfor
endfunction
