% The kernels of tests/e2e_kernels.rs (CPU, against plain Rust) and tests/gpu_kernels.rs
% (CPU against GPU): boundary modes, atomics, kernel outputs, shared memory with
% syncthreads, device functions, lambdas with captures.

function [] = __kernel__ gamma_kernel(x : mat, y : mat, g : scalar, pos : ivec2)
    y[pos] = x[pos] ^ g
endfunction

function y : mat = gamma(x : mat, g : scalar)
    y = uninit(size(x))
    parallel_do(size(x), x, y, g, gamma_kernel)
endfunction

function [] = __kernel__ box3_clamped(x : mat'clamped, y : mat, pos : ivec2)
    acc = 0.0
    for dy = -1..1
        for dx = -1..1
            acc += x[pos[0] + dy, pos[1] + dx]
        endfor
    endfor
    y[pos] = acc / 9
endfunction

function y : mat = box3(x : mat)
    y = uninit(size(x))
    parallel_do(size(x), x, y, box3_clamped)
endfunction

function [] = __kernel__ shift_circular(x : vec'circular, y : vec, s : int, pos : int)
    y[pos] = x[pos + s]
endfunction

function [] = __kernel__ shift_mirror(x : vec'mirror, y : vec, s : int, pos : int)
    y[pos] = x[pos + s]
endfunction

function [] = __kernel__ shift_safe(x : vec, y : vec, s : int, pos : int)
    y[pos] = x[pos + s]
endfunction

function [] = __kernel__ shift_checked(x : vec'checked, y : vec, s : int, pos : int)
    y[pos] = x[pos + s]
endfunction

function y : vec = shift(x : vec, s : int, mode : int)
    y = zeros(numel(x))
    if mode == 0
        parallel_do(numel(x), x, y, s, shift_circular)
    elseif mode == 1
        parallel_do(numel(x), x, y, s, shift_mirror)
    elseif mode == 2
        parallel_do(numel(x), x, y, s, shift_safe)
    else
        parallel_do(numel(x), x, y, s, shift_checked)
    endif
endfunction

function [] = __kernel__ histogram_kernel(x : vec[int], h : vec[int], pos : int)
    h[x[pos]] += 1
endfunction

function h : vec[int] = histogram(x : vec[int], bins : int)
    h = int(zeros(bins))
    parallel_do(numel(x), x, h, histogram_kernel)
endfunction

function [s : scalar] = __kernel__ total_kernel(a : vec, pos : int)
    s += a[pos]
endfunction

function [m : scalar] = __kernel__ max_kernel(a : vec, pos : int)
    m ^^= a[pos]
endfunction

function [s, m] = total_and_max(a : vec)
    s = parallel_do(numel(a), a, total_kernel)
    m = parallel_do(numel(a), a, max_kernel)
endfunction

function [] = __kernel__ reverse_tiles(x : vec, y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    tile[blkpos] = x[pos]
    syncthreads
    y[pos] = tile[blkdim - 1 - blkpos]
endfunction

function y : vec = reverse_in_blocks(x : vec)
    y = zeros(numel(x))
    parallel_do([[numel(x)], [8]], x, y, reverse_tiles)
endfunction

function [] = __kernel__ block_sums(x : vec, y : vec, pos : int, blkpos : int, blkdim : int, blkidx : int)
    acc = shared_zeros(blkdim)
    acc[blkpos] = x[pos]
    syncthreads
    if blkpos == 0
        s = 0.0
        for i = 0..blkdim - 1
            s += acc[i]
        endfor
        y[blkidx] = s
    endif
endfunction

function y : vec = sums_of_blocks(x : vec)
    y = zeros(numel(x) / 16)
    parallel_do([[numel(x)], [16]], x, y, block_sums)
endfunction

function y = __device__ smoothstep(t : scalar)
    c = clamp(t, 0.0, 1.0)
    y = c * c * (3 - 2 * c)
endfunction

function y : mat = scale_and_smooth(x : mat, k : scalar)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec2) -> y[pos] = smoothstep(k * x[pos]))
endfunction

function y : cube = pointwise(x : cube, fn : [__device__ scalar -> scalar])
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = fn(x[pos]))
endfunction

function y : cube = affine(x : cube, a : scalar, b : scalar)
    f = __device__ (v : scalar) -> a * v + b
    y = pointwise(x, f)
endfunction

function [] = __kernel__ sep_row(x : mat'mirror, y : mat, w : vec'const, pos : ivec2)
    acc = 0.0
    for i = 0..numel(w) - 1
        acc += x[pos + [0, i - 2]] * w[i]
    endfor
    y[pos] = acc
endfunction

function y : mat = filter_rows(x : mat, w : vec)
    y = uninit(size(x))
    parallel_do(size(x), x, y, w, sep_row)
endfunction

function [] = __kernel__ tiled_matmul(A : mat, B : mat, C : mat, pos : ivec2, blkpos : ivec2, blkdim : ivec2)
    sA = shared(blkdim[0], 8)
    sB = shared(8, blkdim[1])
    acc = 0.0
    for m = 0..8..size(A, 1) - 1
        for n = blkpos[1]..blkdim[1]..7
            sA[blkpos[0], n] = pos[0] < size(A, 0) && m + n < size(A, 1) ? A[pos[0], m + n] : 0.0
        endfor
        for n = blkpos[0]..blkdim[0]..7
            sB[n, blkpos[1]] = m + n < size(B, 0) && pos[1] < size(B, 1) ? B[m + n, pos[1]] : 0.0
        endfor
        syncthreads
        for n = 0..7
            acc += sA[blkpos[0], n] * sB[n, blkpos[1]]
        endfor
        syncthreads
    endfor
    if pos[0] < size(C, 0) && pos[1] < size(C, 1)
        C[pos] = acc
    endif
endfunction

function C : mat = matmul_tiled(A : mat, B : mat)
    C = zeros(size(A, 0), size(B, 1))
    parallel_do([[size(A, 0), size(B, 1)], [4, 4]], A, B, C, tiled_matmul)
endfunction

function [] = __kernel__ rgb_swap(x : cube, y : cube, pos : ivec2)
    c = x[pos[0], pos[1], 0..2]
    y[pos[0], pos[1], 0..2] = [c[2], c[1], 0.5 * c[0]]
    y[pos[0], pos[1], 3..4] = 7
endfunction

function y : cube = swap_channels(x : cube)
    y = zeros(size(x, 0), size(x, 1), 5)
    parallel_do(size(x, 0..1), x, y, rgb_swap)
endfunction

function [] = __kernel__ box_radius(x : mat'mirror, y : mat, w : vec, r : int, pos : ivec2)
    acc = 0.0
    for i = 0..numel(w) - 1
        for j = -r..r
            acc += x[pos + [j, i - r]] * w[i]
        endfor
    endfor
    y[pos] = acc
endfunction

function y : mat = filter_radius(x : mat, w : vec, r : int)
    y = uninit(size(x))
    parallel_do(size(x), x, y, w, r, box_radius)
endfunction

function [] = __kernel__ tree_sum(x : vec, y : vec, pos : int, blkpos : int, blkdim : int, blkidx : int)
    bins = shared(blkdim)
    bins[blkpos] = x[pos]
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
    if blkpos == 0
        y[blkidx] = bins[0]
    endif
endfunction

function y : vec = tree_sums(x : vec)
    y = zeros(numel(x) / 32)
    parallel_do([[numel(x)], [32]], x, y, tree_sum)
endfunction

% Pointwise over a cube: the trailing dimensions (colour channels) are looped over flat.
function y : cube = pointwise_gamma(x : cube, g : scalar)
    y = uninit(size(x))
    parallel_do(size(x), __kernel__ (pos : ivec3) -> y[pos] = 255 * (x[pos] / 255) ^ g)
endfunction

% The launch is smaller than `x`: its rows are not contiguous runs, the flat loop must not run.
function y : cube = pointwise_crop(x : cube, m : int, n : int)
    y = zeros(m, n, size(x, 2))
    parallel_do(size(y), __kernel__ (pos : ivec3) -> y[pos] = x[pos] + 1)
endfunction

% A stencil over a cube along its first two dimensions ('mirror): the flat loop's interior in
% each row and its mirrored borders.
function [] = __kernel__ cube_stencil(x : cube'mirror, y : cube, r : int, pos : ivec3)
    acc = 0.0
    for i = -r..r
        acc += x[pos + [0, i, 0]] * (i + r + 1) + x[pos + [i, 0, 0]]
    endfor
    y[pos] = acc
endfunction

function y : cube = stencil3(x : cube, r : int)
    y = uninit(size(x))
    parallel_do(size(x), x, y, r, cube_stencil)
endfunction
