// The CPU kernels of the Rust backend support `syncthreads` only at the top level of a kernel.
quasar::quasar! { r#"
function [] = __kernel__ smooth(y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    for k = 0..1
        tile[blkpos] = y[pos]
        syncthreads
        y[pos] = tile[blkdim - 1 - blkpos]
    endfor
endfunction
function [] = smooth_in_blocks(y : vec)
    parallel_do([[numel(y)], [8]], y, smooth)
endfunction
"# }

fn main() {}
