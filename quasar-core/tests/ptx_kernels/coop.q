% Cooperative groups and warp shuffles (manual §9.8): the manual's two `reduce_sum` kernels,
% the `this_thread_block` loop of §9.2, and every method of `thread_block`.

function y : scalar = __kernel__ reduce_sum(coalesced_threads : thread_block, x : vec, pos : int)
    {!kernel target="nvidia_cuda"}
    val = x[pos]
    lane = coalesced_threads.thread_idx
    i = int(coalesced_threads.size / 2)
    val = x[pos]

    % accumulate within the warp
    while i > 0
        val += coalesced_threads.shfl_down(val, i)
        i /= 2
    endwhile

    if lane==0
        y += val
    endif
endfunction

function y : scalar = __kernel__ reduce_sum32(coalesced_threads : thread_block, x : vec, pos : int)
    {!kernel target="nvidia_cuda"}
    val = x[pos]
    lane = coalesced_threads.thread_idx

    % accumulate within the warp (of fixed size 32)
    val += coalesced_threads.shfl_down(val, 16)
    val += coalesced_threads.shfl_down(val, 8)
    val += coalesced_threads.shfl_down(val, 4)
    val += coalesced_threads.shfl_down(val, 2)
    val += coalesced_threads.shfl_down(val, 1)

    if lane==0
        y += val
    endif
endfunction

% The code the manual's shared memory designators generate (§9.2), with the index
% arithmetic of `ind2pos` written out.
function [] = __kernel__ block_copy(A : mat, a : scalar, b : scalar, pos : ivec2, this_thread_block : thread_block)
    B = shared(10, 10)
    for i = this_thread_block.thread_idx..this_thread_block.size..99
        k01 = int(floor(i / 10))
        k11 = mod(i, 10)
        B[k01, k11] = a * A[k11, k01] + b
    endfor
    this_thread_block.sync()
    for i = this_thread_block.thread_idx..this_thread_block.size..99
        k00 = int(floor(i / 10))
        k10 = mod(i, 10)
        A[k00, k10] = B[k10, k00]
    endfor
endfunction

% Every shuffle and vote, on 32-bit, 64-bit and vector values.
function [] = __kernel__ warp_ops(coalesced_threads : thread_block, x : vec, n : vec[int], d : vec[int64], v : vec'unchecked, pos : int)
    {!kernel target="nvidia_cuda"}
    g = coalesced_threads
    s = x[pos]
    k = n[pos]
    w = d[pos]
    a = g.shfl(s, 0) + g.shfl_up(s, 1) + g.shfl_xor(s, 3)
    b = g.shfl(k, 5) + g.shfl_down(k, 2)
    c = g.shfl_xor(w, 16)
    e = g.shfl_down([s, 2.0 * s, 3.0 * s], 1)
    m = g.ballot(s > 0.5) + g.all(k > 0) + g.any(k < 0) + g.active_mask
    q = g.match_any(k) + g.match_all(s) + g.match_any(w)
    syncthreads(warp)
    g.sync()
    x[pos] = a + e[1]
    n[pos] = b + m + q
    d[pos] = c
endfunction

% Tiles of a thread block, and device functions taking a `thread_block`.
function y = __device__ tile_sum(g : thread_block, v : scalar)
    y = v
    for o = [8, 4, 2, 1]
        y += g.shfl_xor(y, o)
    endfor
endfunction

function [] = __kernel__ tiles(this_thread_block : thread_block, x : vec, pos : int)
    {!kernel target="nvidia_cuda"}
    t = this_thread_block.partition(16)
    s = tile_sum(t, x[pos])
    r = t.shfl(s, 0) + t.shfl_up(s, 1) + t.shfl_down(s, 1)
    if t.thread_idx == 0 && t.any(s > 0) && t.all(s >= 0)
        x[pos] = r + t.size + t.ballot(s > 1.0)
    endif
    this_thread_block.sync()
    syncthreads(block)
endfunction

% Host functions of tests/gpu_ptx_kernels.rs (the warp kernels are GPU-only: the test
% computes their results in Rust).
function y = warp_sum(x : vec)
    y = parallel_do(numel(x), x, reduce_sum)
endfunction

function y = warp_sum32(x : vec)
    y = parallel_do(numel(x), x, reduce_sum32)
endfunction

% One block of 4 x 4 threads (the kernel rewrites all of A in each block).
function [] = run_block_copy(A : mat, a : scalar, b : scalar)
    parallel_do([[4, 4], [4, 4]], A, a, b, block_copy)
endfunction

function [] = run_warp_ops(x : vec, n : vec[int], d : vec[int64], v : vec)
    parallel_do(numel(x), x, n, d, v, warp_ops)
endfunction

function [] = run_tiles(x : vec)
    parallel_do(numel(x), x, tiles)
endfunction
