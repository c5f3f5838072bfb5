% Classes (manual §2.2.6, §3.8, chapter 7): immutable and mutable classes, named-argument
% construction, user constructors, methods, pointers and nullptr, parametric classes,
% inheritance and enumerations. Used by tests/e2e_classes.rs.

type point : class
  x : scalar
  y : scalar
endtype

type counter : mutable class
  n : int
  total : scalar
endtype

type vec2d : mutable class
  x : scalar
  y : scalar
endtype

type node : mutable class
  value : int
  next : ^node
endtype

type stack[T] : mutable class
  tab : vec[T]
  pointer : int
endtype

type shape : mutable class
  color : scalar
endtype

type dot : shape
  x : scalar
  y : scalar
endtype

type disc : dot
  radius : scalar
endtype

type weekday : enum
  Monday
  Tuesday
  Friday = 5
  Saturday
endtype

% A user constructor: the class name with positional parameters.
function p = point(px : scalar, py : scalar)
  p = point(x:=px, y:=py)
endfunction

function d = norm2(p : point)
  d = sqrt(p.x^2 + p.y^2)
endfunction

% Methods: the first parameter is the object (by value, or by reference with ^).
function q = scaled(self : point, b : scalar)
  q = point(x:=b*self.x, y:=b*self.y)
endfunction

function [] = translate(self : ^vec2d, dx : scalar, dy : scalar)
  self.x += dx
  self.y += dy
endfunction

function [] = push[T](self : stack[T], item : T)
  self.tab[self.pointer] = item
  self.pointer += 1
endfunction

function y = pop[T](self : stack[T])
  self.pointer -= 1
  y = self.tab[self.pointer]
endfunction

function d = distance_from_origin(p : ^dot)
  d = sqrt(p.x^2 + p.y^2)
endfunction

% Named arguments in any order; a value passed to a function; a constructor.
function r = immutable_points(a : scalar, b : scalar)
  p = point(y:=b, x:=a)
  q = point(1.5, 2.0)
  s = q.scaled(2.0)
  r = [norm2(p), q.x * q.y, s.x, s.y]
endfunction

% A mutable object is shared: changes through `d` are seen through `c`.
function r = shared_counter(k : int)
  c = counter(n:=0, total:=0.0)
  d = c
  for i = 1..k
    d.n += 1
    d.total += i
  endfor
  r = [c.n, c.total]
endfunction

function r = methods_by_reference(dx : scalar)
  v = vec2d(x:=1.0, y:=2.0)
  v.translate(dx, 2.0 * dx)
  translate(v, 1.0, 1.0)
  r = [v.x, v.y]
endfunction

% A linked list through pointers, ended by nullptr.
function s = linked_list_sum(k : int)
  head : ^node = nullptr
  for i = 1..k
    head = node(value:=i * i, next:=head)
  endfor
  s = 0
  p = head
  while p != nullptr
    s += p.value
    p = p.next
  endwhile
endfunction

function r = parametric_stack(a : int, b : int)
  s = stack[int](tab:=vec[int](10), pointer:=0)
  push(s, a)
  s.push(b)
  first = pop(s)
  second = s.pop()
  r = first * 100 + second
endfunction

% A derived class has its parent's fields; an object is accepted where its parent is.
function r = inherited_fields(rad : scalar)
  c = disc(color:=0.5, radius:=rad, x:=12.0, y:=5.0)
  p = dot(x:=4.0, y:=3.0, color:=1.0)
  r = [distance_from_origin(p), distance_from_origin(c), c.radius + c.color]
endfunction

function r = enum_values(k : int)
  d = weekday.Saturday
  r = 0
  match d with
  | Monday -> r = 1
  | Saturday -> r = 2
  | _ -> r = 3
  endmatch
  r += int(weekday.Friday) * 10 + k
endfunction

function r = default_constructed()
  v = vec2d()
  c = counter()
  c.n += 3
  r = v.x + v.y + c.n + c.total
endfunction

% One component of a vector field of an element of an array of classes, assigned and updated
% in place on the host (`a[i].v[1] = x`, `a[i].v[k] += x`).
type tracked : mutable class
  v : vec3
  n : int
endtype

function out = field_components(n : int, t : scalar)
  a = vec[tracked](n)
  {!serial for}
  for i = 0..n-1
    a[i] = tracked(v := [i, 0, 0], n := i)
    a[i].v[1] = 2 * i + t
    a[i].v[mod(i, 3)] += 10
  endfor
  out = zeros(n, 3)
  {!serial for}
  for i = 0..n-1
    {!serial for}
    for c = 0..2
      out[i, c] = a[i].v[c]
    endfor
  endfor
endfunction

% The manual's interface emulation (§7.7): a mutable class of function fields, one of which
% takes the object itself.
type counter_iface : mutable class
  times2_function : [__device__ scalar -> scalar]
  sum_function : [__device__ vec -> scalar]
  do_something : [(^counter_iface) -> ??]
  count : int
endtype

function [a, b, c] = interface_calls(x : vec, t : scalar)
  obj = counter_iface(
    times2_function := (__device__ (x : scalar) -> 2*x),
    sum_function := (__device__ (x : vec) -> sum(x)),
    do_something := (self : ^counter_iface) -> (self.count += 1),
    count := 0)
  a = obj.times2_function(t)
  b = obj.sum_function(x)
  obj.do_something(obj)
  obj.do_something(obj)
  c = obj.count
endfunction

% The manual's program as written (it prints 4, 6 and the object).
type my_interface : mutable class
  times2_function : [__device__ scalar -> scalar]
  sum_function : [__device__ vec -> scalar]
  do_something : [(^my_interface) -> ??]
endtype

function [] = manual_interface()
  obj = my_interface(
    times2_function := (__device__ (x : scalar) -> 2*x),
    sum_function := (__device__ (x : vec) -> sum(x)),
    do_something := (self : ^my_interface) -> print(self)
  )

  print obj.times2_function(2)
  print obj.sum_function([1,2,3])
  obj.do_something(obj)
endfunction

% Printed objects: fields as a constructor writes them; objects in fields by class name.
function [] = print_classes()
  a = node(value := 1, next := nullptr)
  b = node(value := 2, next := a)
  print b
  print a.next
  print tracked(v := [1.0, 2.5, 3.0], n := 4)
endfunction
