//! The math built-ins of tests/gpu_kernels.rs: inputs (a few thousand points over each
//! routine's domain plus the special values), an `f64` reference, and the error each device
//! may have.
//!
//! The GPU bounds are those documented in `quasar-core/src/backend/ptx/math.rs`, with a
//! margin of about 2× for the final rounding to `f32`:
//!
//! | routine | PTX | bound on `|got - ref|` |
//! |---|---|---|
//! | `exp`, `exp2` | `ex2.approx` after exact reduction, ~2 ulp | `2^-21·|ref|` |
//! | `log`, `log2`, `log10` | `lg2.approx`, ≤ 2^-22 absolute in log2 | `2^-21 + 2^-22·|ref|` |
//! | `sin`, `cos` | exact reduction, `.approx` ≤ 2^-20.9 absolute | `2^-19 + 2^-23·|ref|` |
//! | `tan` | `sin/cos` | `2^-19·(1/|cos x| + 1/cos²x) + 2^-22·|ref|` |
//! | `pow` | `ex2(y·lg2|x|)`, ~`|y·log2 x|·2^-22` relative | `(|y·log2 x| + 2)·2^-21·|ref|` |
//! | `sqrt` | `sqrt.rn` (IEEE) | `2^-23·|ref|` |
//! | `floor ceil round abs min max` | exact | 0 |
//! | `frac`, `mod` | as quasar-std, one `f32` rounding | `2^-23`, `2^-22·(|x| + |y|)` |
//! | `asin acos atan atan2 sinh cosh tanh` | the `f64` routine, rounded once | `2^-22·|ref| + 2^-40` |
//!
//! A NaN reference needs a NaN, an infinite one the same infinity; the sign of zero is not
//! compared. Both devices are held to the same bound (the CPU routines of quasar-std are
//! more accurate than the GPU's).

/// The unary routines, in the order of `unary(x, op)` in gpu_kernels.q.
pub const MATH_UNARY: [&str; 20] = [
    "sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10", "sqrt", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "floor", "ceil", "round", "frac", "abs",
];
/// The binary routines, in the order of `binary(x, z, op)`.
pub const MATH_BINARY: [&str; 5] = ["pow", "atan2", "mod", "min", "max"];

/// Routines the PTX back end does not compile yet (their kernels run on the CPU only).
pub const NO_PTX_YET: [&str; 0] = [];

const EDGES: [f32; 5] = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];

fn lin(a: f64, b: f64, n: usize) -> impl Iterator<Item = f32> {
    (0..n).map(move |i| (a + (b - a) * i as f64 / (n - 1) as f64) as f32)
}
fn logspace(a: f64, b: f64, n: usize) -> impl Iterator<Item = f32> {
    lin(a.log10(), b.log10(), n).map(|e| 10f64.powf(e as f64) as f32)
}

/// The inputs of a unary routine.
pub fn unary_inputs(name: &str) -> Vec<f32> {
    let mut v: Vec<f32> = match name {
        "sin" | "cos" | "tan" => lin(-1e4, 1e4, 3000).chain(lin(-10.0, 10.0, 1001)).collect(),
        "exp" => lin(-87.0, 88.5, 4000).collect(),
        "exp2" => lin(-125.9, 127.9, 4000).collect(),
        "log" | "log2" | "log10" | "sqrt" => {
            logspace(1e-37, 1e37, 3000).chain(lin(0.5, 2.0, 1001)).chain([1.0, -1.0]).collect()
        }
        "asin" | "acos" => lin(-1.0, 1.0, 4001).collect(),
        "atan" => lin(-1e3, 1e3, 2000).chain(lin(-4.0, 4.0, 2001)).collect(),
        "sinh" | "cosh" => lin(-85.0, 85.0, 4001).collect(),
        "tanh" => lin(-20.0, 20.0, 4001).collect(),
        _ => (-4000..4000).map(|k| k as f32 * 0.25 + if k % 3 == 0 { 0.1 } else { 0.0 }).collect(),
    };
    v.extend(EDGES);
    v
}

/// The inputs `(x, z)` of a binary routine.
pub fn binary_inputs(name: &str) -> (Vec<f32>, Vec<f32>) {
    let (mut x, mut z): (Vec<f32>, Vec<f32>) = match name {
        "pow" => {
            let xs: Vec<f32> = logspace(1e-3, 1e3, 60).collect();
            let zs: Vec<f32> = lin(-8.0, 8.0, 50).collect();
            let mut p: Vec<(f32, f32)> =
                xs.iter().flat_map(|&a| zs.iter().map(move |&b| (a, b))).collect();
            // Negative bases with integer exponents, and x^0.
            p.extend((-5..=5).flat_map(|n| [(-2.5f32, n as f32), (-0.75, n as f32)]));
            p.extend([(0.0, 2.0), (0.0, 0.0), (7.0, 0.0), (-2.0, 0.5), (1.0, 1e6)]);
            p.into_iter().unzip()
        }
        "atan2" => {
            let g: Vec<f32> = lin(-10.0, 10.0, 63).collect();
            g.iter().flat_map(|&a| g.iter().map(move |&b| (a, b))).unzip()
        }
        "mod" => {
            let zs = [-7.5f32, -3.0, 0.7, 2.0, 5.0, 0.0];
            lin(-100.0, 100.0, 700).flat_map(|a| zs.map(|b| (a, b))).unzip()
        }
        _ => lin(-50.0, 50.0, 4001).map(|a| (a, 50.0 - a * 1.5)).unzip(),
    };
    for (a, b) in [(f32::NAN, 1.0), (1.0, f32::NAN), (f32::INFINITY, 2.0)] {
        x.push(a);
        z.push(b);
    }
    (x, z)
}

/// The `f64` reference of `name` at `x` (and `z` for binary routines).
pub fn reference(name: &str, x: f32, z: f32) -> f64 {
    let (x, z) = (x as f64, z as f64);
    match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "sqrt" => x.sqrt(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "frac" => x - x.floor(),
        "abs" => x.abs(),
        "pow" => x.powf(z),
        "atan2" => x.atan2(z),
        "mod" if z == 0.0 => x,
        "mod" => x - z * (x / z).floor(),
        "min" => x.min(z),
        "max" => x.max(z),
        _ => f64::NAN,
    }
}

/// The largest `|got - ref|` allowed for `name` at `(x, z)` with reference `r`.
pub fn bound(name: &str, x: f32, z: f32, r: f64) -> f64 {
    let (x, z, a) = (x as f64, z as f64, r.abs());
    let p = |e: i32| 2f64.powi(e);
    match name {
        "exp" | "exp2" => p(-21) * a + 1e-40,
        "log" | "log2" | "log10" => p(-21) + p(-22) * a,
        "sin" | "cos" => p(-19) + p(-23) * a,
        "tan" => {
            let c = x.cos().abs();
            p(-19) * (1.0 / c + 1.0 / (c * c)) + p(-22) * a
        }
        "pow" => (z * x.abs().log2()).abs().max(0.0) * p(-21) * a + 2.0 * p(-21) * a + 1e-40,
        "sqrt" => p(-23) * a,
        "floor" | "ceil" | "round" | "abs" | "min" | "max" => 0.0,
        "frac" => p(-23),
        "mod" => p(-22) * (x.abs() + z.abs()),
        // Through the f64 routines (≤ 6 ulp of f64), one rounding to f32 (0.5 ulp), with a margin; the CPU's
        // f32 routines of quasar-std are held to the same bound.
        "asin" | "acos" | "atan" | "atan2" | "sinh" | "cosh" | "tanh" => p(-22) * a + p(-40),
        _ => p(-18) * (1.0 + a),
    }
}

/// The error of `got` against the reference: `Ok((|got - ref|, |got - ref| / bound))` (0
/// when both are the same special value), or `Err` when it exceeds the bound or misses a
/// special value.
pub fn check(name: &str, x: f32, z: f32, got: f32) -> Result<(f64, f64), String> {
    let r = reference(name, x, z);
    let g = got as f64;
    let bad = || Err(format!("{name}({x:e}, {z:e}) = {got:e}, reference {r:e}"));
    if r.is_nan() {
        return if g.is_nan() { Ok((0.0, 0.0)) } else { bad() };
    }
    // References beyond f32 range round to infinity.
    if r.is_infinite() || r.abs() > f32::MAX as f64 {
        return if g == (r as f32) as f64 { Ok((0.0, 0.0)) } else { bad() };
    }
    let err = (g - r).abs();
    let b = bound(name, x, z, r);
    if err.is_nan() || err > b {
        return bad();
    }
    Ok((err, if b > 0.0 { err / b } else { 0.0 }))
}

/// One device's results for one routine.
pub struct Report {
    /// The largest `|got - ref|`.
    pub max_err: f64,
    /// The largest `|got - ref| / |ref|` (for `|ref| > 1e-30`).
    pub max_rel: f64,
    /// The largest `|got - ref| / bound`.
    pub max_ratio: f64,
    /// The failures (at most 5 listed, then the count).
    pub fails: Vec<String>,
}

/// Checks `out` (one device's results for inputs `x`, `z`).
pub fn evaluate(name: &str, x: &[f32], z: &[f32], out: &[f32]) -> Report {
    let mut rep = Report { max_err: 0.0, max_rel: 0.0, max_ratio: 0.0, fails: Vec::new() };
    let fails = &mut rep.fails;
    for (i, &g) in out.iter().enumerate() {
        let zi = z.get(i).copied().unwrap_or(0.0);
        match check(name, x[i], zi, g) {
            Ok((e, r)) => {
                let a = reference(name, x[i], zi).abs();
                if a > 1e-30 && a.is_finite() {
                    rep.max_rel = rep.max_rel.max(e / a);
                }
                rep.max_err = rep.max_err.max(e);
                rep.max_ratio = rep.max_ratio.max(r);
            }
            Err(m) => fails.push(m),
        }
    }
    if fails.len() > 5 {
        let n = fails.len();
        fails.truncate(5);
        fails.push(format!("… {n} failures in all"));
    }
    rep
}
