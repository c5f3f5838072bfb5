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
