% Kernels whose launches copy less (manual §16.6; tests/e2e_transfers.rs counts the bytes):
% read-only arrays are `'const` (never copied back), arrays every thread writes at its position
% before any read are `'nocopy` when the launch covers them (never uploaded).

function [] = __kernel__ scale_k(x : mat, y : mat, pos : ivec2)
    y[pos] = 2 * x[pos]
endfunction

function [] = scale(x : mat, y : mat)
    parallel_do(size(x), x, y, scale_k)
endfunction

% The launch leaves the last row of `y` alone: `y` must be uploaded.
function [] = scale_but_last_row(x : mat, y : mat)
    parallel_do([size(x, 0) - 1, size(x, 1)], x, y, scale_k)
endfunction

% Each thread writes `y` at its position's components swapped: `'nocopy` when the launch is
% over `y`'s extents swapped (a transpose over its operand), uploaded when it covers less.
function [] = __kernel__ transpose_k(x : mat, y : mat, pos : ivec2)
    y[pos[1], pos[0]] = x[pos]
endfunction

function [] = transpose_into(x : mat, y : mat)
    parallel_do(size(x), x, y, transpose_k)
endfunction

% Declared `'nocopy`: the kernel reads `y` after writing it.
function [] = __kernel__ twice_k(x : vec, y : vec'nocopy, pos : int)
    y[pos] = x[pos]
    y[pos] += x[pos]
endfunction

function [] = twice(x : vec, y : vec)
    parallel_do(numel(x), x, y, twice_k)
endfunction

% Inferred in place: `y` is read, so uploaded.
function [] = __kernel__ add_k(x : vec, y : vec, pos : int)
    y[pos] += x[pos]
endfunction

function [] = add(x : vec, y : vec)
    parallel_do(numel(x), x, y, add_k)
endfunction

% An array expression: the kernel generator's output array is `'nocopy`.
function y : cube = gamma(x : cube)
    y = x .^ 0.45
endfunction

% The library's transpose as a generated kernel: it runs where `x` is.
function y : mat = flip(x : mat)
    y = transpose(x)
endfunction

% The matrix product as a generated kernel where the scheduler picks the GPU (here: always).
function c : mat = product(a : mat, b : mat)
    c = a * b
endfunction
