% Launches over more than three dimensions (`pos : ivec4`, `ivec5`), as real code writes an
% `im2col`: the compiler folds the dimensions from the third on into one (CUDA grids have
% three). Used by tests/e2e_folded_launches.rs.

% The columns of B are the p x q windows of A, column by column of windows.
function B : mat = windows(A : mat, p : int, q : int)
    [h, w] = size(A, 0..1)
    function [] = __kernel__ windows_k(B : mat, A : mat, pos : ivec4)
        B[pos[2] * q + pos[3], pos[1] * (h - p + 1) + pos[0]] = A[pos[0] + pos[2], pos[1] + pos[3]]
    endfunction
    B = zeros(p * q, (h - p + 1) * (w - q + 1))
    parallel_do([h - p + 1, w - q + 1, p, q], B, A, windows_k)
endfunction

% Five dimensions, the extents in a variable: each element gets its position's digits.
function [] = __kernel__ digits_k(y : vec, n : ivec5, pos : ivec5)
    i = (((pos[0] * n[1] + pos[1]) * n[2] + pos[2]) * n[3] + pos[3]) * n[4] + pos[4]
    y[i] = pos[0] * 10000 + pos[1] * 1000 + pos[2] * 100 + pos[3] * 10 + pos[4]
endfunction

function y = digits(n : ivec5)
    y = zeros(prod(n))
    parallel_do(n, y, n, digits_k)
endfunction

% Four dimensions from `size`: every element of a 4-D array set from its position.
function [] = __kernel__ fill4_k(y : cube{4}, pos : ivec4)
    y[pos] = pos[0] + 10 * pos[1] + 100 * pos[2] + 1000 * pos[3]
endfunction

function y = fill4(a : int, b : int, c : int, d : int)
    y = zeros(a, b, c, d)
    parallel_do(size(y), y, fill4_k)
endfunction
