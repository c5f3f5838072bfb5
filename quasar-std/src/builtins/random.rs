//! `rand(dims)` (uniform in `[0, 1)`) and `randn(dims)` (standard normal), reproducible.
//!
//! **Generator.** A counter-based SplitMix64 stream: the `i`-th number of a stream with key
//! `K` is `mix64(K + (i + 1) · φ)` with `φ = 0x9E3779B97F4A7C15` (SplitMix64's Weyl increment)
//! and `mix64` the SplitMix64 finaliser (Steele, Lea & Flood 2014; it passes BigCrush).
//! This is exactly the reference SplitMix64 sequence started from state `K`, the seed.
//! Because every element depends only on its position in the stream, large arrays are filled
//! in parallel and the values do not depend on the number of threads.
//!
//! * Uniform: the top 24 bits (`f32`) or 53 bits (`f64`) of a number, times `2^-24` / `2^-53`:
//!   every representable multiple of that step in `[0, 1)`, equally likely.
//! * Normal: Box–Muller on consecutive pairs of numbers `(u1, u2)`, computed in `f64`:
//!   `sqrt(-2 ln(1 - u1)) · (cos, sin)(2π u2)` for elements `2j` and `2j + 1`.
//!
//! [`rand`]/[`randn`] draw from a process-wide stream (seed 0 at start, like MATLAB's fixed
//! start-up seed; [`set_seed`] restarts it). Each call takes the next `numel` positions, so a
//! single-threaded program gets the same numbers on every run; calls from several threads
//! get disjoint parts of the stream in the order they happen. [`Rng`] is an independent
//! stream with its own seed.

use super::num::Float;
use super::par::{collect_index, for_pieces, PARALLEL_MIN};
use super::{alloc, count};
use quasar_runtime::{Array, Result};
use std::sync::Mutex;

const PHI: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 finaliser.
#[inline]
fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A reproducible stream of random numbers (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    key: u64,
    next: u64,
}

impl Rng {
    /// A stream seeded with `seed`.
    pub const fn new(seed: u64) -> Rng {
        Rng { key: seed, next: 0 }
    }

    /// Takes the next `n` positions of the stream; returns the first.
    fn take(&mut self, n: usize) -> u64 {
        let start = self.next;
        self.next = self.next.wrapping_add(n as u64);
        start
    }

    /// `rand(dims)` from this stream.
    pub fn rand<F: Float>(&mut self, dims: &[usize]) -> Result<Array<F>> {
        let n = count("rand", dims)?;
        let start = self.take(n);
        uniform(dims, n, self.key, start)
    }

    /// `randn(dims)` from this stream.
    pub fn randn<F: Float>(&mut self, dims: &[usize]) -> Result<Array<F>> {
        let out = alloc::<F>("randn", dims)?;
        let start = self.take(out.numel().div_ceil(2) * 2);
        fill_normal(&out, self.key, start)?;
        Ok(out)
    }

    /// The next uniform number in `[0, 1)` (53 bits).
    pub fn next_f64(&mut self) -> f64 {
        let start = self.take(1);
        unit53(self.word(start))
    }

    #[inline]
    fn word(&self, i: u64) -> u64 {
        word(self.key, i)
    }
}

#[inline]
fn word(key: u64, i: u64) -> u64 {
    mix64(key.wrapping_add(i.wrapping_add(1).wrapping_mul(PHI)))
}

#[inline]
fn unit53(w: u64) -> f64 {
    (w >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform number in `[0, 1)` with the precision of `F`: its mantissa bits of `w`.
#[inline]
fn unit<F: Float>(w: u64, bits: u32) -> F {
    F::from_f64((w >> (64 - bits)) as f64 * (-(bits as f64)).exp2())
}

/// The number of random bits a uniform `F` gets: 24 for `f32`, 53 for `f64`.
fn mantissa_bits<F: Float>() -> u32 {
    (-F::EPS.to_f64().log2()) as u32 + 1
}

fn uniform<F: Float>(shape: &[usize], n: usize, key: u64, start: u64) -> Result<Array<F>> {
    let bits = mantissa_bits::<F>();
    let v = collect_index(n, &|i| unit::<F>(word(key, start.wrapping_add(i as u64)), bits))?;
    Array::from_vec(shape, v)
}

fn fill_normal<F: Float>(out: &Array<F>, key: u64, start: u64) -> Result<()> {
    const PAIRS: usize = 8 * 1024;
    let mut v = out.host_view_mut()?;
    let parallel = v.len() >= PARALLEL_MIN;
    for_pieces(&mut v, 2 * PAIRS, parallel, |k, piece| {
        for (p, pair) in piece.chunks_mut(2).enumerate() {
            let j = (k * PAIRS + p) as u64;
            let u1 = unit53(word(key, start.wrapping_add(2 * j)));
            let u2 = unit53(word(key, start.wrapping_add(2 * j + 1)));
            let r = (-2.0 * (1.0 - u1).ln()).sqrt();
            let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
            pair[0] = F::from_f64(r * c);
            if let Some(second) = pair.get_mut(1) {
                *second = F::from_f64(r * s);
            }
        }
    });
    Ok(())
}

static GLOBAL: Mutex<Rng> = Mutex::new(Rng::new(0));

/// Runs `f` on the process-wide stream (a poisoned lock is harmless: the state is two words).
fn with_global<R>(f: impl FnOnce(&mut Rng) -> R) -> R {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Restarts the process-wide stream of [`rand`]/[`randn`] with `seed`.
pub fn set_seed(seed: u64) {
    with_global(|g| *g = Rng::new(seed));
}

/// `rand(dims)`: uniformly distributed numbers in `[0, 1)` from the process-wide stream.
pub fn rand<F: Float>(dims: &[usize]) -> Result<Array<F>> {
    let n = count("rand", dims)?;
    let (key, start) = with_global(|g| (g.key, g.take(n)));
    uniform(dims, n, key, start)
}

/// `randn(dims)`: standard normally distributed numbers from the process-wide stream.
pub fn randn<F: Float>(dims: &[usize]) -> Result<Array<F>> {
    let out = alloc::<F>("randn", dims)?;
    let (key, start) = with_global(|g| (g.key, g.take(out.numel().div_ceil(2) * 2)));
    fill_normal(&out, key, start)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        (m, v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n)
    }

    #[test]
    fn the_stream_is_the_reference_splitmix64_sequence() {
        // SplitMix64 from state 0 (Vigna's splitmix64.c).
        assert_eq!(word(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(word(0, 1), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn uniform_numbers_are_in_range_with_the_right_moments() {
        let mut r = Rng::new(7);
        let a: Array<f32> = r.rand(&[300, 400]).unwrap();
        assert_eq!(a.shape(), &[300, 400]);
        let v: Vec<f64> = a.to_vec().unwrap().iter().map(|&x| x as f64).collect();
        assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
        let (m, var) = moments(&v);
        assert!((m - 0.5).abs() < 0.005 && (var - 1.0 / 12.0).abs() < 0.002, "{m} {var}");
        let b: Array<f64> = r.rand(&[10]).unwrap();
        assert!(b.to_vec().unwrap().iter().all(|&x| (0.0..1.0).contains(&x)));
        assert_eq!(mantissa_bits::<f32>(), 24);
        assert_eq!(mantissa_bits::<f64>(), 53);
    }

    #[test]
    fn normal_numbers_have_the_right_moments() {
        let mut r = Rng::new(11);
        let a: Array<f64> = r.randn(&[200_001]).unwrap();
        let v = a.to_vec().unwrap();
        let (m, var) = moments(&v);
        assert!(m.abs() < 0.01 && (var - 1.0).abs() < 0.01, "{m} {var}");
        let within = v.iter().filter(|x| x.abs() < 1.0).count() as f64 / v.len() as f64;
        assert!((within - 0.6827).abs() < 0.005, "{within}");
        assert!(v.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn streams_are_reproducible_and_split_like_one_long_draw() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let x: Array<f32> = a.rand(&[50_000]).unwrap();
        let y: Array<f32> = b.rand(&[50_000]).unwrap();
        assert_eq!(x.to_vec().unwrap(), y.to_vec().unwrap());
        // Two draws equal one long one (the values depend only on the stream position).
        let mut c = Rng::new(42);
        let first: Array<f32> = c.rand(&[20_000]).unwrap();
        let second: Array<f32> = c.rand(&[30_000]).unwrap();
        let mut joined = first.to_vec().unwrap();
        joined.extend(second.to_vec().unwrap());
        assert_eq!(joined, x.to_vec().unwrap());
        let z: Array<f32> = Rng::new(43).rand(&[100]).unwrap();
        assert_ne!(z.to_vec().unwrap()[..], x.to_vec().unwrap()[..100]);
        let n1: Array<f32> = Rng::new(5).randn(&[3, 3]).unwrap();
        let n2: Array<f32> = Rng::new(5).randn(&[3, 3]).unwrap();
        assert_eq!(n1.to_vec().unwrap(), n2.to_vec().unwrap());
        assert!(Rng::new(1).rand::<f32>(&[1; 17]).unwrap_err().to_string().contains("`rand`"));
        assert!((0.0..1.0).contains(&Rng::new(3).next_f64()));
    }

    #[test]
    fn the_process_wide_stream_restarts_with_set_seed() {
        // The only test that uses the process-wide stream.
        set_seed(2024);
        let a: Array<f32> = rand(&[1000]).unwrap();
        let n: Array<f64> = randn(&[5]).unwrap();
        set_seed(2024);
        let b: Array<f32> = rand(&[1000]).unwrap();
        let m: Array<f64> = randn(&[5]).unwrap();
        assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
        assert_eq!(n.to_vec().unwrap(), m.to_vec().unwrap());
        let c: Array<f32> = rand(&[1000]).unwrap();
        assert_ne!(a.to_vec().unwrap(), c.to_vec().unwrap());
        let mut r = Rng::new(2024);
        assert_eq!(r.rand::<f32>(&[1000]).unwrap().to_vec().unwrap(), a.to_vec().unwrap());
    }
}
