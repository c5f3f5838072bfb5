% Constant guards are folded (`transform::fold_guards`); a kernel with shared memory and a
% barrier gets no partition.
function y : scalar = pick(x : scalar)
    if 1
        y = x
    else
        y = -x
    endif
    while 0
        y = y + 1
    endwhile
endfunction

function [] = __kernel__ reverse_tiles(x : vec, y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    tile[blkpos] = x[pos]
    syncthreads
    y[pos] = tile[blkdim - 1 - blkpos]
endfunction

function y : vec = reversed(x : vec)
    y = zeros(numel(x))
    parallel_do([[numel(x)], [8]], x, y, reverse_tiles)
    z = pick(2.0)
endfunction
