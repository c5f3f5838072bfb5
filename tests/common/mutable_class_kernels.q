% Mutable classes and classes with vector fields in kernels and device functions (manual
% chapter 7: `class` and `mutable class` can be used from host, device and kernel functions).
% In kernel code a class value is the thread's own: `p.x = 3` changes the thread's copy; an
% element of an array of classes is written in place (`a[i].n += 1`, atomically as on
% elements of numbers). Used by tests/e2e_mutable_class_kernels.rs.

type particle : mutable class
  pos : vec3
  vel : vec3
  hits : int
  mass : scalar
endtype

type particle_vec : vec[particle]

% One step of a particle, by value: the caller's value is not changed.
function q : particle = __device__ stepped(p : particle, dt : scalar)
  q = p
  q.pos = q.pos + dt * q.vel
  q.vel[2] -= 10 * dt
  q.hits += 1
endfunction

function [] = __kernel__ advance_kernel(ps : vec[particle], dt : scalar, steps : int, pos : int)
  p = ps[pos]
  start = p
  for k = 1..steps
    p = stepped(p, dt)
  endfor
  p.mass = p.mass + start.hits
  ps[pos] = p
  ps[pos].mass *= 2
  ps[pos].vel = ps[pos].vel + [0.5, 0, 0]
endfunction

% Particles made and read on the host (elements of an array of a mutable class are stored in
% place), advanced by a kernel; one row per particle: pos, vel, hits, mass.
function out = advance(n : int, dt : scalar, steps : int)
  ps = particle_vec(n)
  for i = 0..n-1
    ps[i] = particle(pos := [i, 0, 1], vel := [1, 2 * i, 0], hits := i, mass := 1 + i)
  endfor
  parallel_do(n, ps, dt, steps, advance_kernel)
  out = zeros(n, 8)
  for i = 0..n-1
    q = ps[i]
    for c = 0..2
      out[i, c] = q.pos[c]
      out[i, 3 + c] = q.vel[c]
    endfor
    out[i, 6] = q.hits
    out[i, 7] = q.mass
  endfor
endfunction

type counter : mutable class
  n : int
  total : scalar
endtype

type counter_vec : vec[counter]

% Threads that fall in the same bin update its fields together.
function [] = __kernel__ count_kernel(x : vec[int], cs : vec[counter], pos : int)
  cs[x[pos]].n += 1
  cs[x[pos]].total += pos
endfunction

function [n, total] = bin_counts(x : vec[int], bins : int)
  cs = counter_vec(bins)
  cs[0].n = 100
  parallel_do(numel(x), x, cs, count_kernel)
  cs[bins - 1].total += 0.5
  n = zeros(bins)
  total = zeros(bins)
  for b = 0..bins-1
    n[b] = cs[b].n
    total[b] = cs[b].total
  endfor
endfunction

% An immutable class with vector fields as a kernel argument, and a mutable local holding
% vectors and a nested class value, changed in a loop.
type ray : class
  origin : vec3
  dir : vec3
endtype

type walker : mutable class
  at : vec3
  steps : int
  last : ray
endtype

function [] = __kernel__ walk_kernel(y : mat, r0 : ray, pos : int)
  r = ray(origin := r0.origin + [pos, 0, 0], dir := r0.dir)
  w = walker(at := r.origin, steps := 0, last := r)
  while w.at[2] > 0
    w.at = w.at + r.dir
    w.steps += 1
  endwhile
  w.last = ray(origin := w.at, dir := -w.last.dir)
  y[pos, 0] = w.steps
  y[pos, 1] = w.at[0]
  y[pos, 2] = w.at[2]
  y[pos, 3] = w.last.dir[2]
  y[pos, 4] = w.last.origin[1]
endfunction

function y = walk(n : int, height : scalar, fall : scalar)
  r0 = ray(origin := [0.0, 1.0, height], dir := [0.5, 0.25, -fall])
  y = zeros(n, 5)
  parallel_do(n, y, r0, walk_kernel)
endfunction

% A mutable class value passed to a kernel: every thread reads the launch's copy, and changes
% its own copy in a local.
function [] = __kernel__ offset_kernel(y : vec, c : counter, pos : int)
  mine = c
  mine.n += pos
  y[pos] = mine.n + c.total
endfunction

function y = offsets(n : int, base : int, extra : scalar)
  c = counter(n := base, total := extra)
  y = zeros(n)
  parallel_do(n, y, c, offset_kernel)
endfunction
