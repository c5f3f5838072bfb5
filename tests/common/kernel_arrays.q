% Arrays created inside kernels (issue 15): small vectors from ranges of constant length
% (`n + (0..3)`: manual §4.5, a range of known length is a fixed-length vector, held in
% registers on the GPU) used as values and as lists of indices of a slice.
% Used by tests/e2e_kernel_arrays.rs.

% The manual's vectorised horizontal filter (§ "a list of indices inside a kernel"): each
% thread sums K taps for four outputs at once.
function [] = __kernel__ conv4(im8 : mat[uint8], im_out : mat[uint8], K : int, pos : ivec2)
    m = pos[0]
    n = 4 * pos[1]
    r2 = vec[int](4)
    for x = 0..K-1
        r2 += im8[m, n+x+(0..3)]
    endfor
    im_out[m, n+(0..3)] = int(r2/(2*K))
endfunction

% `x` has K-1 more columns than the result, whose width is a multiple of 4.
function y = conv_rows(x : mat[uint8], K : int)
    y = mat[uint8](size(x, 0), size(x, 1) - K + 1)
    parallel_do([size(y, 0), int(size(y, 1) / 4)], x, y, K, conv4)
endfunction

% Ranges as values: with a step, descending, in arithmetic, indexed and summed; a list of
% indices reversing a row into a small vector and written back through a list.
function [] = __kernel__ ranges_k(x : mat, y : mat, pos : int)
    r = pos + (0..2..6)
    d = 3..-1..0
    v = x[pos, d]
    y[pos, (0..3) + 4] = v .* (r[0..3] - pos) + d
    y[pos, 0..3] = sum(r) + (0..3)
endfunction

function y = ranges(x : mat)
    y = zeros(size(x, 0), 8)
    parallel_do(size(x, 0), x, y, ranges_k)
endfunction

% Dynamic kernel memory (manual §8.3): a thread's own scratch matrix of run-time size,
% written and read by element, its size and element count read back; a second allocation
% per loop iteration, with `ones`.
function [] = __kernel__ scratch_k(x : mat, y : mat, n : int, pos : int)
    A = zeros(n, 2)
    for i = 0..n-1
        A[i, 0] = x[pos, i]
        A[i, 1] = A[max(i-1, 0), 0] * 2
    endfor
    s = 0.0
    for i = 0..numel(A)-1
        s += A[i]
    endfor
    y[pos, 0] = s + size(A, 0) * 100
    for k = 1..2
        B = ones(k + pos)
        B[0] = k
        t = 0.0
        for i = 0..numel(B)-1
            t += B[i]
        endfor
        y[pos, k] = t
    endfor
endfunction

function y = scratch(x : mat, n : int)
    y = zeros(size(x, 0), 3)
    parallel_do(size(x, 0), x, y, n, scratch_k)
endfunction

% Dynamic kernel memory in a kernel with shared memory and a barrier (its locals are kept
% per thread of the block): each thread's own array, summed into the block's shared array.
function [] = __kernel__ scratch_bar_k(x : vec, y : vec, n : int, pos : int, blkpos : int, blkdim : int)
    s = shared(blkdim)
    A = zeros(n)
    for i = 0..n-1
        A[i] = x[pos] * i
    endfor
    s[blkpos] = sum(A)
    syncthreads
    y[pos] = s[mod(blkpos + 1, blkdim)] + A[n-1]
endfunction

function y = scratch_bar(x : vec, n : int)
    y = zeros(numel(x))
    parallel_do([[numel(x)], [8]], x, y, n, scratch_bar_k)
endfunction
