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

% One component of a vector field of an array element written in place by kernel code, as
% host code writes it (`components_host` is the same on the host): `=` stores the component,
% `+=` updates it atomically (every thread adds to element 0), a component outside the vector
% is not written, and a device function writes a component of a field after an `int` field.
type rig : mutable class
  n : int
  tip : vec3
endtype

function [] = __device__ kick(rs : vec[rig], i : int, c : int, by : scalar)
  rs[i].tip[c] += by
endfunction

function [] = __kernel__ components_kernel(ps : vec[particle], rs : vec[rig], t : scalar, pos : int)
  ps[pos].pos[1] = 2 * pos + t
  ps[pos].vel[mod(pos, 3)] += 10
  ps[0].vel[2] += 1
  ps[pos].pos[pos + 3] = -1
  rs[pos].tip[2] -= pos
  kick(rs, pos, mod(pos + 1, 3), t)
endfunction

function [ps, rs] = component_inputs(n : int)
  ps = particle_vec(n)
  rs = vec[rig](n)
  for i = 0..n-1
    ps[i] = particle(pos := [i, 0, 0], vel := [0, i, 0], hits := i, mass := 1)
    rs[i] = rig(n := i, tip := [i, 1, 1])
  endfor
endfunction

% One row per element: the particle's pos and vel, the rig's tip.
function out = component_rows(ps : vec[particle], rs : vec[rig])
  n = numel(ps)
  out = zeros(n, 9)
  {!serial for}
  for i = 0..n-1
    {!serial for}
    for c = 0..2
      out[i, c] = ps[i].pos[c]
      out[i, 3 + c] = ps[i].vel[c]
      out[i, 6 + c] = rs[i].tip[c]
    endfor
  endfor
endfunction

function out = components_kernel_run(n : int, t : scalar)
  [ps, rs] = component_inputs(n)
  parallel_do(n, ps, rs, t, components_kernel)
  out = component_rows(ps, rs)
endfunction

function out = components_host(n : int, t : scalar)
  [ps, rs] = component_inputs(n)
  {!serial for}
  for pos = 0..n-1
    ps[pos].pos[1] = 2 * pos + t
    ps[pos].vel[mod(pos, 3)] += 10
    ps[0].vel[2] += 1
    ps[pos].pos[pos + 3] = -1
    rs[pos].tip[2] -= pos
    rs[pos].tip[mod(pos + 1, 3)] += t
  endfor
  out = component_rows(ps, rs)
endfunction
