% Shared memory sized from the block dimensions: dynamic shared memory laid out as the CPU
% backend's `shared_bytes(blkdim)`.

function [] = __kernel__ transpose_tile(x : mat'const, y : mat, pos : ivec2, blkpos : ivec2, blkdim : ivec2)
    tile = shared(blkdim)
    counts = shared_zeros(blkdim[0])
    tile[blkpos] = x[pos]
    counts[blkpos[0]] += 1.0
    syncthreads
    y[pos] = tile[blkpos[1], blkpos[0]] + counts[blkpos[1]]
endfunction

function [] = __kernel__ block_sum(x : vec, blkpos : int, blkdim : int, pos : int)
    s = shared(blkdim)
    s[blkpos] = x[pos]
    syncthreads
    if blkpos == 0
        t = 0.0
        for k = 0..blkdim - 1
            t += s[k]
        endfor
        x[pos] = t
    endif
endfunction

% Host functions of tests/gpu_ptx_kernels.rs: square blocks of 8 x 8, blocks of 32.
function [] = run_transpose_tile(x : mat, y : mat)
    parallel_do([[size(x, 0), size(x, 1)], [8, 8]], x, y, transpose_tile)
endfunction

function [] = run_block_sum(x : vec)
    parallel_do([[numel(x)], [32]], x, block_sum)
endfunction
