% linalg.q: linear algebra of Quasar for Rust's standard library, on the built-ins inv, det,
% linsolve, chol, svd and symeig (which need the cargo feature `linalg` of quasar).
%
% The original's definitions are not published; these follow MATLAB:
%   trace(A)      the sum of the diagonal
%   logdet(A)     log(det(A)) of a symmetric positive definite A, as 2 sum(log(diag(chol(A))))
%                 (no overflow for large matrices)
%   cholesky(A)   the upper-triangular R with R' R = A (MATLAB's chol)
%   solve(A, b)   the x with A x = b (MATLAB's A \ b for a square A)
%   norm2(x)      the Euclidean (Frobenius) norm sqrt(sum(x .* x))
%   symeig(A)     [V, D] with A V = V D for a symmetric A: a built-in.

function t = trace(A : mat)
    t = 0.0
    for k = 0..min(size(A, 0), size(A, 1)) - 1
        t = t + A[k, k]
    endfor
endfunction

function d = logdet(A : mat)
    R = chol(A)
    d = 0.0
    for k = 0..size(R, 0) - 1
        d = d + 2 * log(R[k, k])
    endfor
endfunction

function R = cholesky(A : mat)
    R = chol(A)
endfunction

function x = solve(A : mat, b : vec)
    x = linsolve(A, b)
endfunction

function n = norm2(x : cube)
    n = sqrt(sum(x .* x))
endfunction
