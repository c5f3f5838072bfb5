//! End to end: kernels with cooperative groups and warp shuffles (manual §9.8) compile
//! through `quasar!`; without a GPU, calling them is an `Error::Unsupported` that names the
//! kernel (the manual: such kernels need the CUDA target; the CPU needs a separate kernel),
//! never a panic. `syncthreads(block)` alone is a plain barrier and runs on the CPU. With a
//! GPU (CI runs this file under `QUASAR_SIM_GPU=ptx`) they run there and are checked against
//! values computed here.

use quasar::{Array, Error};

mod k {
    quasar::quasar! { r#"
function y : scalar = __kernel__ reduce_sum(coalesced_threads : thread_block, x : vec, pos : int)
    {!kernel target="nvidia_cuda"}
    val = x[pos]
    lane = coalesced_threads.thread_idx
    i = int(coalesced_threads.size / 2)
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
    val += coalesced_threads.shfl_down(val, 16)
    val += coalesced_threads.shfl_down(val, 8)
    val += coalesced_threads.shfl_down(val, 4)
    val += coalesced_threads.shfl_down(val, 2)
    val += coalesced_threads.shfl_down(val, 1)
    if lane==0
        y += val
    endif
endfunction

function y = __device__ tile_sum(g : thread_block, v : scalar)
    y = v
    for o = [8, 4, 2, 1]
        y += g.shfl_xor(y, o)
    endfor
endfunction

function [] = __kernel__ tiles(this_thread_block : thread_block, x : vec, pos : int)
    t = this_thread_block.partition(16)
    x[pos] = tile_sum(t, x[pos])
    this_thread_block.sync()
endfunction

function [] = __kernel__ reverse_blocks(x : vec, y : vec, pos : int, blkpos : int, blkdim : int)
    tile = shared(blkdim)
    tile[blkpos] = x[pos]
    syncthreads(block)
    y[pos] = tile[blkdim - 1 - blkpos]
endfunction

function s = warp_sum(x : vec)
    s = parallel_do(numel(x), x, reduce_sum)
endfunction

function s = warp_sum32(x : vec)
    s = parallel_do(numel(x), x, reduce_sum32)
endfunction

function [] = tile_sums(x : vec)
    parallel_do(numel(x), x, tiles)
endfunction

function y = reversed(x : vec)
    y = zeros(numel(x))
    parallel_do([[numel(x)], [8]], x, y, reverse_blocks)
endfunction
"# }
}

fn unsupported(r: quasar::Result<impl std::fmt::Debug>, kernel: &str) -> String {
    match r {
        Err(Error::Unsupported(msg)) => {
            assert!(msg.contains(&format!("kernel `{kernel}`")), "{msg}");
            assert!(msg.contains("only on an NVIDIA GPU"), "{msg}");
            assert!(msg.contains("separate kernel for the CPU"), "{msg}");
            msg
        }
        other => panic!("expected Error::Unsupported for `{kernel}`, got {other:?}"),
    }
}

/// Whether the process has a GPU (`QUASAR_SIM_GPU=ptx`: the PTX interpreter), where the
/// GPU-only kernels run.
fn gpu() -> bool {
    quasar::Runtime::global().gpu().is_some()
}

#[test]
fn warp_shuffle_kernels_are_gpu_only() {
    let x = Array::from_fn(&[64], |i| i as f32).unwrap();
    if gpu() {
        // Whole warps of integers: the shuffles' tree gives the exact sum.
        assert_eq!(k::warp_sum(&x).unwrap(), 2016.0);
        assert_eq!(k::warp_sum32(&x).unwrap(), 2016.0);
        return;
    }
    let msg = unsupported(k::warp_sum(&x), "reduce_sum");
    assert!(msg.contains("warp-level operations"), "{msg}");
    unsupported(k::warp_sum32(&x), "reduce_sum32");
}

#[test]
fn thread_block_tiles_and_device_functions_are_gpu_only() {
    let x = Array::from_fn(&[64], |i| i as f32).unwrap();
    if gpu() {
        // Each lane holds the sum of its tile of 16 (a butterfly of shfl_xor).
        k::tile_sums(&x).unwrap();
        let want: Vec<f32> =
            (0..64).map(|i| (0..16).map(|j| (i / 16 * 16 + j) as f32).sum()).collect();
        assert_eq!(x.to_vec().unwrap(), want);
        return;
    }
    unsupported(k::tile_sums(&x), "tiles");
}

#[test]
fn syncthreads_block_is_a_barrier_on_the_cpu() {
    let x = Array::from_fn(&[64], |i| i as f32).unwrap();
    let y = k::reversed(&x).unwrap().to_vec().unwrap();
    let expect: Vec<f32> = (0..64).map(|i| ((i / 8) * 8 + 7 - i % 8) as f32).collect();
    assert_eq!(y, expect);
}
