% system.q: basic functions of Quasar for Rust's standard library.
%
% The type predicates isreal, iscomplex, isscalar, isvector, ismatrix, iscube of the manual's
% system.q (section 2.2) are built-ins, decided from the argument's type at compile time.
% The original's other definitions are not published; these follow the manual where it
% defines them and MATLAB otherwise:
%   isempty(x)     numel(x) == 0
%   nextpow2(n)    the power of two 2^ceil(log2(n)) (the manual's definition; MATLAB's
%                  nextpow2 returns the exponent)
%   std(x), var(x) the sample standard deviation and variance (divisor N - 1) of all elements
%   median(x)      the median of all elements (the mean of the middle two for an even count)
%   find(x)        the zero-based linear (row-major) indices of the non-zero elements
%   diag(v)        the square matrix with the vector v on its diagonal; of a matrix, its
%                  diagonal (as diagonal)
%   diagonal(A)    the diagonal of a matrix, as a vector
%   vertcat(a, b), horzcat(a, b)   a above b, a left of b (MATLAB's [a; b] and [a, b])
%   fliplr(x), flipud(x)           x with its columns (rows) in reverse order
%   fftshift2(x)   x shifted circularly by floor(size / 2) in dimensions 0 and 1 (MATLAB's
%                  fftshift over the first two dimensions), moving frequency 0 to the centre

function y = isempty(x : cube)
    y = numel(x) == 0
endfunction

function y = nextpow2(n : scalar)
    y = int(2 ^ ceil(log2(n)))
endfunction

function v = var(x : cube)
    n = numel(x)
    m = mean(x)
    v = sum((x - m) .* (x - m)) / (n - 1)
endfunction

function s = std(x : cube)
    s = sqrt(var(x))
endfunction

function m = median(x : cube)
    v = reshape(copy(x), [numel(x)])
    n = numel(v)
    % insertion sort of a copy
    for i = 1..n - 1
        t = v[i]
        j = i - 1
        while j >= 0 && v[j] > t
            v[j + 1] = v[j]
            j = j - 1
        endwhile
        v[j + 1] = t
    endfor
    if mod(n, 2) == 1
        m = v[(n - 1) / 2]
    else
        m = (v[n / 2 - 1] + v[n / 2]) / 2
    endif
endfunction

function y = find(x : cube)
    v = reshape(x, [numel(x)])
    count = 0
    for k = 0..numel(v) - 1
        if v[k] != 0
            count = count + 1
        endif
    endfor
    y = int(zeros(count))
    i = 0
    for k = 0..numel(v) - 1
        if v[k] != 0
            y[i] = k
            i = i + 1
        endif
    endfor
endfunction

% A vector gives the matrix, a matrix its diagonal (MATLAB's diag); decided by the type.
function A = diag(v)
    if isvector(v)
        A = diag_matrix(v)
    else
        A = diagonal(v)
    endif
endfunction

function A = diag_matrix(v : vec)
    n = numel(v)
    A = zeros(n, n)
    for k = 0..n - 1
        A[k, k] = v[k]
    endfor
endfunction

function v = diagonal(A : mat)
    n = min(size(A, 0), size(A, 1))
    v = zeros(n)
    for k = 0..n - 1
        v[k] = A[k, k]
    endfor
endfunction

function [] = __kernel__ flip_kernel(x : cube'const, y : cube, rows : int, cols : int, pos : ivec3)
    m = pos[0]
    n = pos[1]
    if rows == 1
        m = size(x, 0) - 1 - pos[0]
    endif
    if cols == 1
        n = size(x, 1) - 1 - pos[1]
    endif
    y[pos] = x[m, n, pos[2]]
endfunction

function y = fliplr(x : cube)
    y = uninit(size(x))
    parallel_do(size(y), x, y, 0, 1, flip_kernel)
endfunction

function y = flipud(x : cube)
    y = uninit(size(x))
    parallel_do(size(y), x, y, 1, 0, flip_kernel)
endfunction

function [] = __kernel__ shift_kernel(x : cube'circular'const, y : cube, s : ivec2, pos : ivec3)
    y[pos] = x[pos[0] - s[0], pos[1] - s[1], pos[2]]
endfunction

function y = fftshift2(x : cube)
    y = uninit(size(x))
    s = [int(floor(size(x, 0) / 2)), int(floor(size(x, 1) / 2))]
    parallel_do(size(y), x, y, s, shift_kernel)
endfunction

function y = vertcat(a : mat, b : mat)
    if size(a, 1) != size(b, 1)
        error("vertcat: the matrices have ", size(a, 1), " and ", size(b, 1), " columns")
    endif
    y = zeros(size(a, 0) + size(b, 0), size(a, 1))
    y[0..size(a, 0) - 1, :] = a
    y[size(a, 0)..size(y, 0) - 1, :] = b
endfunction

function y = horzcat(a : mat, b : mat)
    if size(a, 0) != size(b, 0)
        error("horzcat: the matrices have ", size(a, 0), " and ", size(b, 0), " rows")
    endif
    y = zeros(size(a, 0), size(a, 1) + size(b, 1))
    y[:, 0..size(a, 1) - 1] = a
    y[:, size(a, 1)..size(y, 1) - 1] = b
endfunction
