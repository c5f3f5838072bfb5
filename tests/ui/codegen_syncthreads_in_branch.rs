// The CPU kernels of the Rust backend support `syncthreads` at the top level of a kernel and
// inside `for`/`while` loops, not inside a branch (its condition could differ between threads).
quasar::quasar! { r#"
function [] = __kernel__ smooth(y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    if blkdim > 4
        tile[blkpos] = y[pos]
        syncthreads
        y[pos] = tile[blkdim - 1 - blkpos]
    endif
endfunction
function [] = smooth_in_blocks(y : vec)
    parallel_do([[numel(y)], [8]], y, smooth)
endfunction
"# }

fn main() {}
