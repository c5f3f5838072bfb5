% Cells of function values (manual §3: `cube[[?? -> ??]]`): typed lambdas, untyped lambdas
% converted to a declared cell type, closures stored element by element, named functions.

function y = offset(x : scalar)
    y = x + 10
endfunction

% The sum of every function of the cell applied to x.
function y = apply_all(fs : vec[[scalar -> scalar]], x : scalar)
    y = 0.0
    {!serial for}
    for i = 0..numel(fs)-1
        y += fs[i](x)
    endfor
endfunction

% Typed lambdas and a named function in a cell literal.
function y = typed_literal(t : scalar)
    fs = {(x : scalar) -> x + 1, (x : scalar) -> 2 * x, offset}
    y = apply_all(fs, t)
endfunction

% Untyped lambdas where the cell's type is declared: a variable, an argument, and a variable
% without a type passed where the type is declared.
function [a, b, c] = declared_cells(t : scalar)
    fs : vec[[scalar -> scalar]] = {x -> x * x, x -> x - 3}
    a = apply_all(fs, t)
    b = apply_all({x -> 3 * x, x -> x / 2, x -> -x}, t)
    gs = {x -> x + 0.5, x -> 4 * x}
    c = apply_all(gs, t)
endfunction

% Closures stored one by one, each capturing its own k; one element replaced by `offset`.
function y = closures_in_a_loop(t : scalar, n : int)
    fs : vec[[scalar -> scalar]] = cell(n)
    {!serial for}
    for k = 0..n-1
        fs[k] = x -> x * k + 1
    endfor
    fs[n - 1] = offset
    y = apply_all(fs, t)
endfunction

% A function value read from a cell of type `vec[??]`: checked at run time.
function y = first_applied(c : vec[??], x : scalar)
    f : [scalar -> scalar] = c[0]
    y = f(x)
endfunction

function y = right_type(x : scalar)
    y = first_applied({(k : scalar) -> k / 4}, x)
endfunction

function y = wrong_type(x : scalar)
    y = first_applied({(k : int) -> k + 1}, x)
endfunction

% Function values in a cell of type `vec[??]`, called as they are: each call finds the
% function type that takes its arguments at run time.
function [a : scalar, b : int] = called_from_a_dynamic_cell(t : scalar)
    c = cell(3)
    c[0] = (x : scalar) -> 2 * x
    c[1] = offset
    c[2] = (k : int) -> k * 3
    a = c[0](t) + c[1](t)
    b = c[2](4)
endfunction

function y = called_with_the_wrong_argument(t : scalar)
    c = cell(1)
    c[0] = (k : int) -> k * 3
    y = c[0](t)
endfunction

% Lambdas without parameter types stored in cells of `??` values: each is stored as its
% instance for the argument types of the calls through the cell's elements.
function y : scalar = untyped_in_a_dynamic_cell(t : scalar, k : scalar)
    c = cell(2)
    c[0] = x -> x + k
    c[1] = (x : scalar) -> 2 * x
    y = c[0](t) * c[1](t)
endfunction

function y = untyped_in_a_declared_dynamic_cell(t : scalar)
    c : vec[??] = {x -> x * x, x -> x - 1}
    y = c[0](t) + c[1](t)
endfunction

function y = untyped_in_a_cell_literal(n : int)
    c = {x -> x * 3, x -> x + 7}
    y = c[0](n) - c[1](n)
endfunction

% Cells of `__device__` function values given to kernels: the function is specialised for
% the cell's elements (known where the cell is made), which its kernel takes one by one.
function y = apply_each(fs : vec[[__device__ scalar -> scalar]], x : vec)
    y = zeros(numel(fs), numel(x))
    parallel_do(size(y), __kernel__ (pos : ivec2) -> y[pos] = fs[pos[0]](x[pos[1]]))
endfunction

function y = apply_untyped(fs, x : vec)
    y = zeros(numel(fs), numel(x))
    parallel_do(size(y), __kernel__ (pos : ivec2) -> y[pos] = fs[pos[0]](x[pos[1]]) + fs[1](1.0))
endfunction

function y : mat = device_cell_in_kernel(x : vec, k : scalar)
    sq = __device__ (t : scalar) -> t * t
    fs = {sq, __device__ (t : scalar) -> k * t, __device__ (t : scalar) -> t + 1}
    y = apply_each(fs, x)
endfunction

function y : mat = device_cell_literal_in_kernel(x : vec)
    y = apply_untyped({__device__ (t : scalar) -> -t, __device__ (t : scalar) -> 0.5 * t}, x)
endfunction

% The same cell as a kernel's parameter: the kernel is specialised for the cell's elements,
% which the launch passes one by one.
function [] = __kernel__ apply_kernel(y : mat, fs : vec[[__device__ scalar -> scalar]], x : vec, pos : ivec2)
    y[pos] = fs[pos[0]](x[pos[1]])
endfunction

function y : mat = device_cell_as_kernel_parameter(x : vec, k : scalar)
    y = zeros(2, numel(x))
    fs = {__device__ (t : scalar) -> t - k, __device__ (t : scalar) -> k * t}
    parallel_do(size(y), y, fs, x, apply_kernel)
    z = zeros(2, numel(x))
    parallel_do(size(z), z, fs, x, __kernel__ (z : mat, gs : vec[[__device__ scalar -> scalar]], x : vec, pos : ivec2) -> z[pos] = gs[pos[0]](x[pos[1]]))
    y = y + z
endfunction
