% Small matrices in kernels (manual §4.5: `mat(X, Y)` and `cube(X, Y, Z)` of at most 64
% elements are fixed-length vectors internally): local matrices, matrix fields of classes in
% arrays of classes, read and written by subscripts, on the CPU and in registers on the GPU.
% Used by tests/e2e_small_matrices.rs.

type patch : mutable class
    w : scalar
    m : mat(2, 3)
endtype

% A local 2 x 3 matrix: written and read at run-time subscripts, its size, a whole-matrix
% reduction, element-wise arithmetic and a read outside it (0).
function [] = __kernel__ local_k(y : mat, pos : ivec2)
    m : mat(2, 3) = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    r = mod(pos[0], 2)
    c = mod(pos[1], 3)
    m[r, c] = m[r, c] + pos[0]
    t = m .* 2.0 + m
    y[pos] = t[r, c] + sum(m) + size(m, 1) * 100 + ndims(m) * 1000 + m[2, 0] + m[pos[1], 7]
endfunction

function y = local_matrix(h : int, w : int)
    y = zeros(h, w)
    parallel_do(size(y), y, local_k)
endfunction

% A cube literal and zeros(2, 2), indexed with three and two subscripts, one linear; two
% matrices stacked into a cube.
function [] = __kernel__ cube_k(y : vec, pos : int)
    q : cube(2, 2, 2) = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]
    z = zeros(2, 2)
    z[mod(pos, 2), 1] = q[1, mod(pos, 2), 0]
    s = [z, z]
    y[pos] = z[0, 1] * 10 + z[1, 1] + q[mod(pos, 8)] * 100 + s[1, mod(pos, 2), 1] * 1000
endfunction

function y = cube_and_zeros(n : int)
    y = zeros(n)
    parallel_do(n, y, cube_k)
endfunction

% Matrix fields of the elements of an array of classes: read at subscripts, one element
% written and one updated in place.
function [] = __kernel__ field_k(a : vec[patch], y : mat, pos : ivec2)
    y[pos] = a[pos[0]].m[1, pos[1]] * a[pos[0]].w + a[pos[0]].m[0, pos[1]]
endfunction

function [] = __kernel__ field_write_k(a : vec[patch], pos : int)
    a[pos].m[1, 2] = a[pos].w
    a[pos].m[0, mod(pos, 3)] += 0.5
endfunction

function [y, s] = patches(n : int)
    a = vec[patch](n)
    {!serial for}
    for i = 0..n-1
        a[i] = patch(w := i + 1, m := [[i, 2 * i, 3 * i], [1.0, 2.0, 3.0]])
    endfor
    y = zeros(n, 3)
    parallel_do(size(y), a, y, field_k)
    parallel_do(n, a, field_write_k)
    s = zeros(n, 6)
    {!serial for}
    for i = 0..n-1
        {!serial for}
        for j = 0..5
            s[i, j] = a[i].m[j]
        endfor
    endfor
endfunction
