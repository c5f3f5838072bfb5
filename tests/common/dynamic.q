% Values whose type is known at run time only (manual §4.1, §3.5, §7.4): `object()` with
% fields added at run time, `??` parameters, cell arrays (`cell(n)`, `{…}`, `vec[mat]`),
% dynamic classes, strings. Used by tests/e2e_dynamic.rs.

type bird : dynamic class
  name : string
  height : scalar
endtype

% Fields of an object passed to a function are read and added there (the object is shared).
function [] = update_curve(t : object)
  t.b = (t.hdr_max^t.a - t.mid_in) / t.d
  t.c = t.b * 2
endfunction

function [] = __kernel__ scale_kernel(x : vec, y : vec, a : scalar, b : scalar, pos : int)
  y[pos] = a * x[pos] + b
endfunction

% Object fields as kernel arguments, as real code passes its parameter objects.
function y = object_parameters(x : vec, gain : scalar)
  params = object()
  params.a = gain
  params.mid_in = 0.5
  params.hdr_max = 2.0
  params.d = 0.25
  update_curve(params)
  y = zeros(size(x))
  parallel_do(size(x), x, y, params.a, params.c, scale_kernel)
endfunction

function [r : scalar] = object_of_mixed_fields(n : int)
  o = object()
  o.count = n
  o.name = "abc"
  o.values = [1.0, 2.0, 3.0]
  o.count += 1
  v : vec = o.values
  s : string = o.name
  r = o.count * 100 + sum(v) + numel(s)
endfunction

function y = twice(x : ??)
  y = x * 2
endfunction

function r = dynamic_parameters(a : scalar, k : int)
  p : ?? = a
  q : ?? = k
  r : scalar = twice(p) + twice(q)
endfunction

function [r : scalar] = cell_arrays(a : scalar)
  c = cell(3)
  c[0] = a
  c[1] = [1.0, 2.0, 3.0]
  c[2] = "hi"
  v : vec = c[1]
  r = c[0] + sum(v) + numel(c)
endfunction

function r = cell_literal(a : scalar)
  c = {a, [2.0, 3.0], "x"}
  b : vec = c[1]
  r = c[0] + b[1] + numel(c)
endfunction

function r = typed_cells(n : int)
  c = vec[mat](2)
  c[0] = ones(2, 2)
  c[1] = zeros(n, n) + 2.0
  r = sum(c[0]) + sum(c[1])
endfunction

function [r : scalar] = dynamic_class_fields(h : scalar)
  b = bird(name:="duck", height:=h)
  b.speed = 3.0
  r = b.height * b.speed
endfunction

function r = wrong_type_read(a : scalar)
  c = cell(2)
  c[0] = "text"
  c[1] = a
  r : scalar = c[0]
endfunction

function r = missing_field()
  o = object()
  o.a = 1
  r : scalar = o.b
endfunction

function r = string_operations(s : string)
  t = s + "_x"
  r = 0
  if t == "ab_x"
    r = 1
  endif
  if t != s
    r += 10
  endif
endfunction

% Slices of cell arrays (a new cell of those elements) and the shape of `??` values.
function [n : int, s : string, last : scalar] = cell_slices(k : int)
  c = {1, "two", 3.5, [4, 5, 6], "five"}
  d = c[1..3]
  e = c[4..-2..0]
  n = numel(d) * 100 + numel(e) * 10 + numel(c[:])
  s = d[0] + e[0]
  last = e[2]
endfunction

function r = shape_of(x : ??)
  r = 1000 * ndims(x) + 100 * size(x, 0) + 10 * size(x, 1) + numel(x)
endfunction

function r = shape_of_cell(m : int, n : int)
  c = cell(m, n)
  s = size(c)
  r = shape_of(c) + 100000 * s[1]
endfunction

function r = shape_of_array(m : int, n : int)
  r = shape_of(zeros(m, n))
endfunction


function r = bad_slice_of_number(v : int)
  c = cell(1)
  c[0] = v
  x = c[0]
  r = x[0..1]
endfunction

% The manual's cell matrices (§2.1): nested cells, a deep copy, and operators on cells of one
% structure element by element.
function [a : scalar, b : scalar, c : scalar, d : int] = manual_cells(t : scalar)
    A = cell(2,2)
    A[0,0] = eye(4)
    A[1,1] = t
    A[0,1] = cell(1,4)
    A[0,1][1] = ones(3,3)
    A[0,1][1][0,0] = 2
    B = copy(A)
    B[1,1] = 3 * t
    A[0,1][1][1,1] = 5
    C = B - A
    D = B * 4
    a = C[1,1]
    m : mat = C[0,1][1]
    b = sum(m)
    c = D[0,0][0,0] + D[1,1]
    d = numel(C)
endfunction
