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

% A nested class, a narrow integer and a double (padding in the layout), and methods with
% `self` by value, used by a kernel over a 2-D array of such values.
type tag : class
  id : int8
  weight : scalar
endtype

type particle : class
  x : scalar
  z : scalar
  t : tag
  mass : scalar'double
endtype

function e = __device__ energy(self : particle, g : scalar)
  e = self.mass * g * self.z + self.t.weight * self.t.id
endfunction

function q = __device__ lifted(self : particle, dz : scalar)
  q = particle(x:=self.x, z:=self.z + dz, t:=self.t, mass:=self.mass)
endfunction

function [] = __kernel__ lift_kernel(src : mat[particle], dst : mat[particle], out : mat, g : scalar, pos : ivec2)
  a = src[pos]
  if a.t.id > 2
    b = a.lifted(10.0)
  else
    b = a
  endif
  dst[pos] = b
  out[pos] = b.energy(g)
endfunction

function [y, z] = lift(h : int, w : int, g : scalar)
  a = mat[particle](h, w)
  for i = 0..h-1
    for j = 0..w-1
      a[i, j] = particle(x:=i, z:=i + j, t:=tag(id:=mod(i * w + j, 5), weight:=0.5), mass:=1.0 + j)
    endfor
  endfor
  b = mat[particle](h, w)
  y = zeros(h, w)
  parallel_do([h, w], a, b, y, g, lift_kernel)
  z = zeros(h, w)
  for i = 0..h-1
    for j = 0..w-1
      z[i, j] = b[i, j].z + 100 * b[i, j].t.id + 1000 * (b[i, j].x - i)
    endfor
  endfor
endfunction
