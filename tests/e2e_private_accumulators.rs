//! End to end: kernels that only accumulate into an argument (`h[i] += v`, `h[i] -= v`;
//! quasar-core `analysis::accumulators`). On the CPU a block with many more positions than the
//! array has elements adds into a private copy and adds that into the argument at its end;
//! smaller blocks (explicit block sizes) and large arrays keep the atomic updates. On the GPU
//! a block adds into a copy in shared memory when the array fits in 12 KB and the launch has
//! 16 positions per element (quasar-core `backend/ptx/private.rs`). Every result is compared
//! with the same computation in plain Rust: counts exactly, float sums within the rounding of
//! any order of additions. Run on the CPU device and by `.ci/run` with every launch on
//! interpreted PTX (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).

use quasar::Array;
use quasar_core::driver::{self, BackEnd};

mod k {
    quasar::quasar! { r#"
function [] = __kernel__ hist_k(x : mat, h : vec, pos : ivec2)
    h[int(x[pos] * 255.0)] += 1.0
endfunction

function h : vec = histogram(x : mat)
    h = zeros(256)
    parallel_do(size(x), x, h, hist_k)
endfunction

function h : vec = histogram_small_blocks(x : mat)
    h = zeros(256)
    parallel_do(size(x), [4, 8], x, h, hist_k)
endfunction

function [] = __kernel__ signed_k(x : vec[int], h : vec[int], pos : int)
    b = mod(x[pos], 16)
    if x[pos] >= 0
        h[b] += x[pos]
    else
        h[b] -= 1
    endif
endfunction

function h : vec[int] = signed_counts(x : vec[int])
    h = zeros(16)
    parallel_do(numel(x), x, h, signed_k)
endfunction

function [] = __kernel__ weights_k(x : vec, w : vec, h : mat, pos : int)
    h[mod(pos, 3), int(x[pos] * 7.0)] += w[pos]
endfunction

function h : mat = weighted(x : vec, w : vec)
    h = zeros(3, 8)
    parallel_do(numel(x), x, w, h, weights_k)
endfunction

function [] = __kernel__ scatter_k(x : vec, y : vec, pos : int)
    y[mod(pos * 7, numel(x))] += x[pos]
endfunction

function y : vec = scatter(x : vec)
    y = zeros(numel(x))
    parallel_do(numel(x), x, y, scatter_k)
endfunction

function [] = __kernel__ bad_bin_k(x : vec, h : vec'checked, pos : int)
    h[int(x[pos])] += 1.0
endfunction

function h : vec = bad_bins(x : vec)
    h = zeros(4)
    parallel_do(numel(x), x, h, bad_bin_k)
endfunction

function [] = __kernel__ dropped_bin_k(x : vec, h : vec, pos : int)
    h[int(x[pos])] += 1.0
endfunction

function h : vec = dropped_bins(x : vec)
    h = zeros(4)
    parallel_do(numel(x), x, h, dropped_bin_k)
endfunction

function [] = __kernel__ tiny_k(x : vec, h : vec, pos : int)
    h[0] += x[pos]
endfunction

function [] = add_tiny(x : vec, h : vec)
    parallel_do(numel(x), x, h, tiny_k)
endfunction
"# }
}

/// Whether the kernels run on the PTX interpreter (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).
fn on_ptx() -> bool {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    var("QUASAR_SIM_GPU") == "ptx" && var("QUASAR_DEVICE") == "gpu"
}

/// Deterministic values in [0, 1).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32) / (1u64 << 24) as f32
        })
        .collect()
}

fn counts(x: &[f32]) -> Vec<f32> {
    let mut h = vec![0.0f32; 256];
    x.iter().for_each(|&v| h[(v * 255.0) as usize] += 1.0);
    h
}

#[test]
fn histograms_count_exactly_with_and_without_private_copies() {
    for (m, n) in [(512, 640), (33, 77), (1, 5)] {
        let v = data(m * n, (m * n) as u64);
        let x = Array::from_vec(&[m, n], v.clone()).unwrap();
        let want = counts(&v);
        assert_eq!(k::histogram(&x).unwrap().to_vec().unwrap(), want, "{m}x{n}");
        assert_eq!(k::histogram_small_blocks(&x).unwrap().to_vec().unwrap(), want, "{m}x{n}");
    }
}

#[test]
fn integer_additions_and_subtractions_are_exact() {
    let n = 100_000;
    let v: Vec<i32> = data(n, 7).iter().map(|f| (f * 2000.0) as i32 - 1000).collect();
    let mut want = vec![0i32; 16];
    for &x in &v {
        let b = x.rem_euclid(16) as usize;
        if x >= 0 {
            want[b] += x;
        } else {
            want[b] -= 1;
        }
    }
    let x = Array::from_vec(&[n], v).unwrap();
    assert_eq!(k::signed_counts(&x).unwrap().to_vec().unwrap(), want);
}

#[test]
fn weighted_two_dimensional_bins_agree_with_f64_sums() {
    let n = 200_000;
    let (x, w) = (data(n, 3), data(n, 4));
    let (mut want, mut terms) = (vec![0.0f64; 24], vec![0usize; 24]);
    for (p, (&a, &b)) in x.iter().zip(&w).enumerate() {
        let bin = (p % 3) * 8 + (a * 7.0) as usize;
        want[bin] += b as f64;
        terms[bin] += 1;
    }
    let (xa, wa) = (Array::from_vec(&[n], x).unwrap(), Array::from_vec(&[n], w).unwrap());
    let got = k::weighted(&xa, &wa).unwrap().to_vec().unwrap();
    for ((g, want), t) in got.iter().zip(&want).zip(&terms) {
        // Any order of `t` f32 additions of positive terms: within t * 6e-8 of the sum.
        assert!((*g as f64 - want).abs() <= *t as f64 * 6e-8 * want, "{g} vs {want}");
    }
}

#[test]
fn scatters_into_arrays_as_large_as_the_launch_stay_atomic_and_exact() {
    let n = 70_000;
    let v: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
    let mut want = vec![0.0f32; n];
    for (p, &x) in v.iter().enumerate() {
        want[(p * 7) % n] += x;
    }
    let got = k::scatter(&Array::from_vec(&[n], v).unwrap()).unwrap().to_vec().unwrap();
    assert_eq!(got, want);
}

#[test]
fn bins_outside_the_array_follow_the_access_mode() {
    let mut v = vec![1.5f32; 10_000];
    v[9_000] = 7.0;
    let x = Array::from_vec(&[v.len()], v).unwrap();
    // 'safe (the default): the update outside is dropped.
    assert_eq!(k::dropped_bins(&x).unwrap().to_vec().unwrap(), [0.0, 9999.0, 0.0, 0.0]);
    // 'checked: an error naming the kernel, the index and the array.
    let err = k::bad_bins(&x).unwrap_err().to_string();
    let want = "in kernel `bad_bin_k`: index [7] is out of range for `h` with shape [4]";
    assert!(err.contains(want), "{err}");
}

#[test]
fn gpu_blocks_add_into_a_shared_copy_only_when_the_array_is_small() {
    // 4096 terms of 2^-24 added to 1.0: added one at a time, each rounds away (1 + 2^-24 is a
    // tie, rounded to the even 1.0); a block's copy sums its terms exactly first, and adding
    // those sums (even multiples of 2^-24) to 1.0 is exact.
    let n = 4096;
    let tiny = 2f32.powi(-24);
    let x = Array::from_vec(&[n], vec![tiny; n]).unwrap();
    let exact = 1.0 + n as f32 * tiny;
    // 1 element: a copy; 1000: fewer than 16 positions per element; 4000: over 12 KB.
    for (len, shared) in [(1, true), (1000, false), (4000, false)] {
        let mut v = vec![0.0f32; len];
        v[0] = 1.0;
        let h = Array::from_vec(&[len], v).unwrap();
        k::add_tiny(&x, &h).unwrap();
        let got = h.to_vec().unwrap();
        assert!(got[1..].iter().all(|&g| g == 0.0), "{len}");
        if on_ptx() {
            assert_eq!(got[0], if shared { exact } else { 1.0 }, "{len} elements");
        } else {
            assert!((1.0..=exact).contains(&got[0]), "{len} elements: {}", got[0]);
        }
    }
}

#[test]
fn the_histogram_ptx_adds_into_shared_memory_and_loads_on_the_interpreter() {
    let src = "function [] = __kernel__ hist_k(x : mat, h : vec, pos : ivec2)\n\
               \x20   h[int(x[pos] * 255.0)] += 1.0\n\
               endfunction\n\
               function h : vec = histogram(x : mat)\n\
               \x20   h = zeros(256)\n\
               \x20   parallel_do(size(x), x, h, hist_k)\n\
               endfunction\n";
    let mut opts = driver::Options::new("hist.q", src, "hist.q");
    opts.back_ends = vec![BackEnd::Ptx];
    let (art, _) = driver::compile(&opts);
    assert!(!art.has_errors(), "{:?}", art.diagnostics);
    let text = art.ptx.expect("PTX").release.text;
    for want in ["_acc[12288]", "atom.shared.add.f32", "bar.sync 0", "atom.global.add.f32"] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
    quasar_ptx_sim::Module::parse(&text).expect("the interpreter loads the module");
}
