% Constructs of real Quasar code as the original compiler accepted them (tests/e2e_real_code.rs
% and tests/gpu_kernels.rs). Written for these tests; every result is checked against plain Rust.

% ---- a vector literal is a row (1 x n) -----------------------------------------------------

function [r, c] = dims_of(m : mat)
    r = size(m, 0)
    c = size(m, 1)
endfunction

function [r, c] = literal_dims()
    [r, c] = dims_of([-1, 1, 0])
endfunction

function [a, b, c] = literal_as_matrix()
    m = [-4, 5, 6]
    a = m[0, 2]
    b = m[0, 0]
    w : mat = [7.0, 8.0]
    c = size(w, 1) * 10 + size(w, 0)
endfunction

% A horizontal filter whose taps come from a literal: y[i, j] = sum_k h[0, k] x[i, j + k - c]
% (zero outside), with the taps' orientation read from the mask itself.
function [] = __kernel__ filter_rows(x : mat, h : mat, y : mat, pos : ivec2)
    c = int(floor(size(h, 1) / 2))
    acc = 0.0
    for k = 0..size(h, 1) - 1
        acc += h[0, k] * x[pos[0], pos[1] + k - c]
    endfor
    y[pos] = acc
endfunction

function y = derivative(x : mat)
    y = zeros(size(x))
    parallel_do(size(y), x, [-1, 1, 0], y, filter_rows)
endfunction

function y = filter_with(x : mat, h : vec)
    y = zeros(size(x))
    parallel_do(size(y), x, h, y, filter_rows)
endfunction

% ---- a lambda that is never called ---------------------------------------------------------

function y = unused_lambdas(x : scalar)
    twice = t -> t * 2
    offset = 3.0
    shifted = (t, u) -> t + u + offset
    y = x + 1
endfunction

% ---- branches on type predicates -------------------------------------------------------------

function y = magnitude(x)
    if isscalar(x)
        y = abs(x)
    elseif isvector(x)
        y = sum(abs(x))
    else
        y = sum(sum(abs(x)))
    endif
endfunction

function [a, b, c] = magnitudes(v : vec, m : mat)
    a = magnitude(-2.5)
    b = magnitude(v)
    c = magnitude(m)
endfunction

% ---- older built-in forms and integer vectors from scalar ones -------------------------------

function [c, d] = centre(h : mat)
    c : ivec2 = ceil(size(h) / 2) - 1
    d = size(h, [0..1])
endfunction

% ---- a cube with one channel where a matrix is expected --------------------------------------

function s = total(x : mat)
    s = 0.0
    for i = 0..size(x, 0) - 1
        for j = 0..size(x, 1) - 1
            s += x[i, j] * (j + 1)
        endfor
    endfor
endfunction

function s = gray_total(img : cube)
    s = total(img)
endfunction

function s = column_sum(v : vec)
    s = sum(v) + 100 * size(v, 0)
endfunction

function s = of_column(m : mat)
    s = column_sum(m)
endfunction

% ---- logical masks and index vectors on the host ---------------------------------------------

function [pos, picked, cleared, count] = select(x : vec, idx : ivec)
    pos = x[x > 0]
    picked = x[idx]
    cleared = copy(x)
    cleared[cleared < 0 || cleared > 10] = 0
    count = numel(find(x != 0))
endfunction

function y = big_entries(m : mat)
    y = m[m >= 2]
endfunction

% ---- kernels whose `pos` has fewer or more components than the launch has dimensions ----------

% Launched over an M x N x 3 cube with a 2-component `pos`: runs for every (m, n, c), each time
% writing the whole pixel (the same values), as the original did.
function [] = __kernel__ per_pixel(x : cube, y : cube, pos : ivec2)
    y[pos[0], pos[1], 0..2] = x[pos[0], pos[1], 0..2] * 2.0 + [0.0, 1.0, 2.0]
endfunction

% Launched over a vector (one dimension) with a 2-component `pos`: the launch is a row.
function [] = __kernel__ on_row(x : vec, y : vec, pos : ivec2)
    y[pos[0], pos[1]] = x[pos[0], pos[1]] + pos[0] * 100.0 + 1.0
endfunction

% Launched over a matrix with a 3-component `pos`: the third component is 0.
function [] = __kernel__ with_depth(y : mat, pos : ivec3)
    y[pos[0], pos[1]] = pos[2] * 1000 + 10 * pos[0] + pos[1]
endfunction

% Launched over a matrix with an `int` position: its first dimension.
function [] = __kernel__ first_only(y : mat, count : vec, pos : int)
    count[pos] += 1.0
endfunction

function [y, v, z, c] = launch_ranks(x : cube, w : vec)
    y = zeros(size(x))
    parallel_do(size(y), x, y, per_pixel)
    v = zeros(size(w))
    parallel_do(size(w), w, v, on_row)
    z = zeros(2, 3)
    parallel_do(size(z), z, with_depth)
    c = zeros(2)
    parallel_do(size(z), z, c, first_only)
endfunction

% ---- a lambda that writes into a captured array (an event handler in real code) --------------

function y = fill_through_lambda(n : int)
    lut = zeros(n)
    set_all = () -> lut[:] = 3.0
    set_one = () -> lut[1] = 2.0
    set_all()
    set_one()
    y = lut
endfunction
