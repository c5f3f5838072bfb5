% The manual's GPU examples, as the manual writes them (typos of the text fixed), run by
% tests/gpu_ptx_kernels.rs on the CPU and on the PTX interpreter: the parallel reduction sum
% and the generic parallel reduction (§10.6), the three matrix products of `dense_multiply`
% (§10.9: a reduction over a 3-D block, the tiled product with shared memory, the direct
% one) and the global-memory histogram (§9.2.3.1).

% §10.6: the parallel sum (blkdim a power of two).
function [y : scalar] = __kernel__ my_sum(x : vec'unchecked, blkpos : int, blkdim : int)
    bins = shared(blkdim)
    nblocks = (numel(x) + blkdim - 1) / blkdim
    % step 1 - parallel sum
    val = 0.0
    for m = 0..nblocks - 1
        if blkpos + m * blkdim < numel(x)
            val += x[blkpos + m * blkdim]
        endif
    endfor
    bins[blkpos] = val
    % step 2 - reduction
    syncthreads
    bit = 1
    while bit < blkdim
        index = 2 * bit * blkpos
        if index + bit < blkdim
            bins[index] = bins[index] + bins[index + bit]
        endif
        syncthreads
        bit *= 2
    endwhile
    % write output
    if blkpos == 0
        y += bins[0]
    endif
endfunction

% One block of 512 threads (each block sums all of x: the manual's launch is one block).
function y = manual_sum(x : vec)
    y = parallel_do([[512], [512]], x, my_sum)
endfunction

% §10.6: the reduction with the accumulation passed as a function value.
type accumulator : [__device__ (scalar, scalar) -> scalar]

function y : scalar = __kernel__ parallel_reduction(x : vec'unchecked, acc : accumulator, _
                                                    val : scalar, blkpos : int, blkdim : int)
    bins = shared(blkdim)
    nblocks = (numel(x) + blkdim - 1) / blkdim
    for m = 0..nblocks - 1
        if blkpos + m * blkdim < numel(x)
            val = acc(val, x[blkpos + m * blkdim])
        endif
    endfor
    bins[blkpos] = val
    syncthreads
    bit = 1
    while bit < blkdim
        index = 2 * bit * blkpos
        if index + bit < blkdim
            bins[index] = acc(bins[index], bins[index + bit])
        endif
        syncthreads
        bit *= 2
    endwhile
    % One thread writes the output (the manual adds bins[0] from every thread).
    if blkpos == 0
        y += bins[0]
    endif
endfunction

function [s : scalar, p : scalar] = manual_sum_and_product(x : vec)
    device_sum = __device__ (a : scalar, b : scalar) -> a + b
    device_prod = __device__ (a : scalar, b : scalar) -> a * b
    s = parallel_do([[512], [512]], x, device_sum, 0.0, parallel_reduction)
    p = parallel_do([[512], [512]], x, device_prod, 1.0, parallel_reduction)
endfunction

% §10.9, algorithm 1: products of large matrices with a small result, summed over a 3-D block.
function [] = __kernel__ kernel1(a : mat'unchecked, b : mat'unchecked, c : mat'unchecked, _
                                 blkdim : ivec3, blkpos : ivec3)
    n = size(a, 1)
    bins = shared(blkdim)
    nblocks = int(ceil(n / blkdim[0]))
    % step 1 - parallel sum
    val = 0.0
    for m = 0..nblocks - 1
        if blkpos[0] + m * blkdim[0] < n
            d = blkpos[0] + m * blkdim[0]
            val += a[blkpos[1], d] * b[d, blkpos[2]]
        endif
    endfor
    bins[blkpos] = val
    % step 2 - reduction
    syncthreads
    bit = 1
    while bit < blkdim[0]
        if mod(blkpos[0], bit * 2) == 0
            bins[blkpos] += bins[blkpos + [bit, 0, 0]]
        endif
        syncthreads
        bit *= 2
    endwhile
    % write output
    if blkpos[0] == 0
        c[blkpos[1], blkpos[2]] = bins[0, blkpos[1], blkpos[2]]
    endif
endfunction

% §10.9, algorithm 2: the block-based product of the CUDA manual.
function [] = __kernel__ kernel2(A : mat'unchecked, B : mat'unchecked, C : mat'unchecked, _
                                 BLOCK_SIZE : int, pos : ivec2, blkpos : ivec2, blkdim : ivec2)
    % The manual sizes the tiles by BLOCK_SIZE; shared arrays sized by a parameter are not
    % supported by the code generators yet: the tiles have the size the caller passes (8).
    sA = shared(blkdim[0], 8)
    sB = shared(8, blkdim[1])
    sum = 0.0
    for m = 0..BLOCK_SIZE..size(A, 1) - 1
        % Copy submatrix
        for n = blkpos[1]..blkdim[1]..BLOCK_SIZE - 1
            sA[blkpos[0], n] = pos[0] < size(A, 0) && m + n < size(A, 1) ? A[pos[0], m + n] : 0.0
        endfor
        for n = blkpos[0]..blkdim[0]..BLOCK_SIZE - 1
            sB[n, blkpos[1]] = m + n < size(B, 0) && pos[1] < size(B, 1) ? B[m + n, pos[1]] : 0.0
        endfor
        syncthreads
        % Compute the product of the two submatrices
        for n = 0..BLOCK_SIZE - 1
            sum += sA[blkpos[0], n] * sB[n, blkpos[1]]
        endfor
        syncthreads
    endfor
    if pos[0] < size(C, 0) && pos[1] < size(C, 1)
        C[pos] = sum % Write the result
    endif
endfunction

% §10.9, algorithm 3: the direct product.
function [] = __kernel__ kernel3(A : mat'unchecked, B : mat'unchecked, C : mat'unchecked, _
                                 pos : ivec2)
    sum = 0.0
    for m = 0..size(A, 1) - 1
        sum += A[pos[0], m] * B[m, pos[1]]
    endfor
    C[pos] = sum
endfunction

% `dense_multiply` with the algorithm chosen by the caller (the manual picks it by the sizes
% and `max_block_size`): 1 (P threads along the sum), 2 (tiles of P) or 3.
function C = dense_multiply(A : mat, B : mat, algorithm : int, P : int)
    [M, N] = [size(A, 0), size(B, 1)]
    C = zeros(M, N)
    if algorithm == 1
        % One block holds the whole launch (the kernel reduces within it).
        parallel_do([[P, M, N], [P, M, N]], A, B, C, kernel1)
    elseif algorithm == 2
        % The launch rounded up to whole 8 x 8 blocks.
        parallel_do([[8 * int(ceil(M / 8)), 8 * int(ceil(N / 8))], [8, 8]], A, B, C, P, kernel2)
    else
        parallel_do(size(C), A, B, C, kernel3)
    endif
endfunction

% §9.2.3.1: the histogram in global memory.
function [] = __kernel__ hist_kernel_global(im : vec, hist : vec, pos : int)
    hist[int(im[pos])] += 1
endfunction

function hist = manual_histogram(im : vec, bins : int)
    hist = zeros(bins)
    parallel_do(numel(im), im, hist, hist_kernel_global)
endfunction

% A kernel that assigns to its parameter (each thread has its own copy, as on the GPU).
function [] = __kernel__ countdown(y : vec, k : int, pos : int)
    while k > pos
        k -= 1
        y[pos] += 1
    endwhile
endfunction

function y = run_countdown(n : int, k : int)
    y = zeros(n)
    parallel_do(n, y, k, countdown)
endfunction
