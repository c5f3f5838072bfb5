//! Element-wise math on numbers, in PTX instructions (there is no libdevice).
//!
//! `f32` transcendental functions use the hardware's `.approx` instructions after an exact
//! argument reduction:
//!
//! * `exp(x)`: `x = n·ln2 + r` (Cody–Waite, `|r| ≤ ln2/2`), `ex2.approx(r·log2 e)·2ⁿ`; about
//!   2 ulp (`ex2.approx` is accurate to 2^-22.5 relative).
//! * `log(x)`, `log2`, `log10`: `lg2.approx` (absolute error ≤ 2^-22 in log2), scaled; the
//!   relative error grows near `x = 1`, as CUDA's `__logf`.
//! * `sin`/`cos`: reduction by 2π in three parts with `fma` (the quotient rounded to the
//!   nearest integer in `f32`; accurate while that is the nearest integer, `|x| < 2^24·2π ≈
//!   1.05e8`, beyond which the error grows with `|x|`: tests/gpu_ptx_kernels.rs, `TRIG_RANGE`),
//!   then `sin.approx`/`cos.approx` (absolute error ≤ 2^-20.9); `tan = sin/cos`.
//! * `pow(x, y)`: `ex2.approx(y·lg2.approx|x|)` with the sign for negative `x` and integer `y`,
//!   NaN for negative `x` and fractional `y`, `pow(x, 0) = 1`; relative error about
//!   `|y·log2 x|·2^-22`.
//!
//! `sqrt` is IEEE (`sqrt.rn`); `floor/ceil/round/frac/sign/min/max/abs/mod/saturate` are exact
//! and follow `quasar-std` (`round` halves away from zero, `mod` has the divisor's sign and
//! `mod(x, 0) = x`, `min`/`max` ignore NaN).
//!
//! `atan`, `atan2`, `asin`, `acos`, `sinh`, `cosh` and `tanh` in single precision convert to
//! `f64`, call the double-precision routine and round once (within 0.5 ulp of f32 plus a
//! negligible 2-4 ulp of f64). Every `f64` function is our own routine (`math_f64.rs`, with
//! its table of error bounds).

use super::kernel::Ctx;
use super::math_f64;
use super::regs::{NumTy, Reg, RegClass};
use super::{unsupported, Res};
use crate::ir::{Builtin, Builtin as B};
use crate::span::Span;

/// Single-precision functions computed by the `f64` routines, then rounded to `f32`.
const VIA_F64: [Builtin; 7] = [B::Atan, B::Atan2, B::Asin, B::Acos, B::Sinh, B::Cosh, B::Tanh];

const LOG2E: f64 = std::f64::consts::LOG2_E;
const LN2: f64 = std::f64::consts::LN_2;

impl Ctx<'_> {
    /// `and or xor not shl shr` on integers (manual table 14.1): C's operators, the shift
    /// count taken modulo the width as PTX does for `shl`/`shr` with counts below it (larger
    /// counts give 0, or the sign for `shr` of a negative number); results wrap to `rt`.
    fn bit_function(
        &mut self,
        b: Builtin,
        args: &[(Reg, NumTy)],
        rt: NumTy,
        span: Span,
    ) -> Res<Reg> {
        let bits = rt.bits();
        let arg = |cx: &mut Self, k: usize, t: NumTy| -> Res<Reg> {
            match args.get(k) {
                Some(&(r, from)) => Ok(cx.convert_reg(r, from, t)),
                None => unsupported(
                    span,
                    format!("`{}` with {} argument(s)", b.name(), args.len()),
                    format!("check the number of arguments of `{}` in the manual", b.name()),
                ),
            }
        };
        let x = arg(self, 0, rt)?;
        let d = self.reg(rt.class());
        match b {
            B::Not => self.ins(format!("not.{bits} {d}, {x}")),
            B::Shl | B::Shr => {
                let n = arg(self, 1, NumTy::U32)?;
                let op = match (b, rt.is_signed()) {
                    (B::Shl, _) => format!("shl.{bits}"),
                    (_, true) => format!("shr.s{}", &bits[1..]),
                    _ => format!("shr.u{}", &bits[1..]),
                };
                self.ins(format!("{op} {d}, {x}, {n}"));
            }
            _ => {
                let y = arg(self, 1, rt)?;
                let op = match b {
                    B::And => "and",
                    B::Or => "or",
                    _ => "xor",
                };
                self.ins(format!("{op}.{bits} {d}, {x}, {y}"));
            }
        }
        self.wrap(d, rt);
        Ok(d)
    }

    /// `name(args…)` on numbers with the result type `rt`.
    pub fn math(&mut self, b: Builtin, args: &[(Reg, NumTy)], rt: NumTy, span: Span) -> Res<Reg> {
        if rt == NumTy::F16 {
            // Computed in single precision, rounded once to half.
            let d = self.math(b, args, NumTy::F32, span)?;
            return Ok(self.round_f16(d));
        }
        let name = b.name();
        let conv = |cx: &mut Self, k: usize| -> Res<Reg> {
            match args.get(k) {
                Some(&(r, t)) => Ok(cx.convert_reg(r, t, rt)),
                None => unsupported(
                    span,
                    format!("`{name}` with {} argument(s)", args.len()),
                    format!("check the number of arguments of `{name}` in the manual"),
                ),
            }
        };
        let a = rt.arith();
        let one = |cx: &mut Self, ins: &str| -> Res<Reg> {
            let x = conv(cx, 0)?;
            let d = cx.reg(rt.class());
            cx.ins(format!("{ins}.{a} {d}, {x}"));
            Ok(d)
        };
        match b {
            B::Int
            | B::Float
            | B::Cast
            | B::Int8
            | B::Int16
            | B::Int32
            | B::Int64
            | B::Uint8
            | B::Uint16
            | B::Uint32
            | B::Uint64 => conv(self, 0),
            B::Abs if !rt.is_signed() && !rt.is_float() => conv(self, 0),
            B::Abs => {
                let d = one(self, "abs")?;
                self.wrap(d, rt);
                Ok(d)
            }
            B::Min | B::Max if args.len() == 2 => {
                let (x, y) = (conv(self, 0)?, conv(self, 1)?);
                let d = self.reg(rt.class());
                self.ins(format!("{name}.{a} {d}, {x}, {y}"));
                Ok(d)
            }
            // Coordinates (CPU: in `i64`, the result an `int`); integer `periodize` is `mod`.
            B::MirrorExt | B::Periodize if b == B::MirrorExt || rt.is_float() => {
                match (args.first(), args.get(1)) {
                    (Some(&x), Some(&n)) => Ok(self.coordinate(b, x, n, rt)),
                    _ => unsupported(
                        span,
                        format!("`{name}` with {} argument(s)", args.len()),
                        format!("call `{name}(x, N)`"),
                    ),
                }
            }
            B::Mod | B::Periodize => {
                let (x, y) = (conv(self, 0)?, conv(self, 1)?);
                self.modulo(x, y, rt)
            }
            B::Clamp if args.len() == 2 || args.len() == 3 => {
                let x = conv(self, 0)?;
                let (lo, hi) = if args.len() == 2 {
                    (self.imm(rt, 0.0), conv(self, 1)?)
                } else {
                    (conv(self, 1)?, conv(self, 2)?)
                };
                let d = self.reg(rt.class());
                self.ins(format!("max.{a} {d}, {x}, {lo}"));
                self.ins(format!("min.{a} {d}, {d}, {hi}"));
                Ok(d)
            }
            B::Lerp => {
                let (x, y, t) = (conv(self, 0)?, conv(self, 1)?, conv(self, 2)?);
                let d = self.reg(rt.class());
                self.ins(format!("sub.{a} {d}, {y}, {x}"));
                if rt.is_float() {
                    self.ins(format!("fma.rn.{a} {d}, {d}, {t}, {x}"));
                } else {
                    self.ins(format!("mad.lo.{a} {d}, {d}, {t}, {x}"));
                }
                Ok(d)
            }
            B::Sign => {
                let x = conv(self, 0)?;
                let (p, q) = (self.reg(RegClass::Pred), self.reg(RegClass::Pred));
                let z = rt.imm(0.0);
                self.ins(format!("setp.gt.{a} {p}, {x}, {z}"));
                self.ins(format!("setp.lt.{a} {q}, {x}, {z}"));
                let d = self.reg(rt.class());
                // 0, -0 and NaN stay as they are.
                self.ins(format!("selp.{a} {d}, {}, {x}, {p}", rt.imm(1.0)));
                let m = if rt.is_signed() || rt.is_float() { rt.imm(-1.0) } else { z };
                self.ins(format!("selp.{a} {d}, {m}, {d}, {q}"));
                Ok(d)
            }
            B::Floor | B::Ceil | B::Round | B::Frac | B::Saturate if !rt.is_float() => {
                let x = conv(self, 0)?;
                match b {
                    B::Frac => Ok(self.imm(rt, 0.0)),
                    B::Saturate => {
                        let d = self.reg(rt.class());
                        self.ins(format!("max.{a} {d}, {x}, {}", rt.imm(0.0)));
                        self.ins(format!("min.{a} {d}, {d}, {}", rt.imm(1.0)));
                        Ok(d)
                    }
                    _ => Ok(x),
                }
            }
            B::Floor => one(self, &format!("cvt.rmi.{a}")),
            B::Ceil => one(self, &format!("cvt.rpi.{a}")),
            B::Saturate => one(self, &format!("cvt.sat.{a}")),
            B::Round => {
                // trunc(x) + sign(x) when the dropped part is at least one half.
                let x = conv(self, 0)?;
                let (t, f, s) = (self.reg(rt.class()), self.reg(rt.class()), self.reg(rt.class()));
                self.ins(format!("cvt.rzi.{a}.{a} {t}, {x}"));
                self.ins(format!("sub.{a} {f}, {x}, {t}"));
                self.ins(format!("abs.{a} {f}, {f}"));
                let p = self.reg(RegClass::Pred);
                self.ins(format!("setp.ge.{a} {p}, {f}, {}", rt.imm(0.5)));
                self.ins(format!("copysign.{a} {s}, {x}, {}", rt.imm(1.0)));
                self.ins(format!("@{p} add.{a} {t}, {t}, {s}"));
                Ok(t)
            }
            B::Frac => {
                let x = conv(self, 0)?;
                let (fl, d) = (self.reg(rt.class()), self.reg(rt.class()));
                self.ins(format!("cvt.rmi.{a}.{a} {fl}, {x}"));
                self.ins(format!("sub.{a} {d}, {x}, {fl}"));
                // A tiny negative x gives 1 - tiny, which can round to 1.
                let below = if rt == NumTy::F32 {
                    1.0 - f32::EPSILON as f64 / 2.0
                } else {
                    1.0 - f64::EPSILON / 2.0
                };
                // `min` would turn NaN (x = NaN or ±inf) into `below`: NaN stays NaN.
                let p = self.reg(RegClass::Pred);
                self.ins(format!("setp.ge.{a} {p}, {d}, {}", rt.imm(below)));
                self.ins(format!("@{p} mov.{a} {d}, {}", rt.imm(below)));
                Ok(d)
            }
            B::Isnan | B::Isinf | B::Isfinite => {
                let (x, t) = args.first().copied().ok_or_else(|| super::Unsupported {
                    what: format!("`{name}` without an argument"),
                    instead: format!("pass `{name}` the number to test (`{name}(x[pos])`)"),
                    span,
                })?;
                let p = self.reg(RegClass::Pred);
                if t.is_float() {
                    let test = match b {
                        B::Isnan => "notanumber",
                        B::Isinf => "infinite",
                        _ => "finite",
                    };
                    self.ins(format!("testp.{test}.{} {p}, {x}", t.arith()));
                    let r = self.pred_to_int(p);
                    Ok(self.convert_reg(r, NumTy::I32, rt))
                } else {
                    Ok(self.imm(rt, if b == B::Isfinite { 1.0 } else { 0.0 }))
                }
            }
            // `angle` of a real number: atan2(0, x) as on the CPU (π for negative x and -0).
            B::Angle if rt.is_float() => {
                let x = conv(self, 0)?;
                let z = self.imm(rt, 0.0);
                self.math(B::Atan2, &[(z, rt), (x, rt)], rt, span)
            }
            B::Sqrt if rt.is_float() => one(self, "sqrt.rn"),
            B::And | B::Or | B::Xor | B::Shl | B::Shr | B::Not if !rt.is_float() => {
                self.bit_function(b, args, rt, span)
            }
            _ if !rt.is_float() => unsupported(
                span,
                format!("`{name}` giving an integer"),
                format!("convert the argument to `scalar` first (`{name}(float(x))`)"),
            ),
            B::Rsqrt if rt == NumTy::F32 => one(self, "rsqrt.approx"),
            B::Rsqrt => {
                let x = conv(self, 0)?;
                let d = self.reg(rt.class());
                self.ins(format!("sqrt.rn.{a} {d}, {x}"));
                self.ins(format!("rcp.rn.{a} {d}, {d}"));
                Ok(d)
            }
            _ if rt == NumTy::F64 || VIA_F64.contains(&b) => {
                // Our double-precision routines (`math_f64.rs`); single precision rounds
                // their result once.
                let mut xs = Vec::new();
                for k in 0..args.len() {
                    let x = conv(self, k)?;
                    xs.push(self.convert_reg(x, rt, NumTy::F64));
                }
                match math_f64::call(self, name, &xs) {
                    Some(d) => Ok(self.convert_reg(d, NumTy::F64, rt)),
                    None => unsupported(
                        span,
                        format!("the built-in `{name}`"),
                        "compute it in single precision (`scalar'single`), or in host \
                         code",
                    ),
                }
            }
            B::Exp => {
                let x = conv(self, 0)?;
                Ok(self.exp_f32(x))
            }
            B::Exp2 => one(self, "ex2.approx"),
            B::Log | B::Log2 | B::Log10 => {
                let x = conv(self, 0)?;
                let d = self.reg(RegClass::F32);
                self.ins(format!("lg2.approx.f32 {d}, {x}"));
                let scale = match b {
                    B::Log => LN2,
                    B::Log10 => std::f64::consts::LOG10_2,
                    _ => return Ok(d),
                };
                self.ins(format!("mul.f32 {d}, {d}, {}", NumTy::F32.imm(scale)));
                Ok(d)
            }
            B::Sin | B::Cos | B::Tan => {
                let x = conv(self, 0)?;
                let r = self.reduce_2pi(x);
                let d = self.reg(RegClass::F32);
                if b == B::Tan {
                    let c = self.reg(RegClass::F32);
                    self.ins(format!("sin.approx.f32 {d}, {r}"));
                    self.ins(format!("cos.approx.f32 {c}, {r}"));
                    self.ins(format!("div.rn.f32 {d}, {d}, {c}"));
                } else {
                    self.ins(format!("{name}.approx.f32 {d}, {r}"));
                }
                Ok(d)
            }
            B::Pow => {
                let (x, y) = (conv(self, 0)?, conv(self, 1)?);
                self.pow(x, y, rt, span)
            }
            _ => unsupported(
                span,
                format!("the built-in `{name}`"),
                format!("compute `{name}` in host code and pass the result to the kernel"),
            ),
        }
    }

    /// `mod(x, y)` with the sign of `y`; `mod(x, 0) = x`.
    fn modulo(&mut self, x: Reg, y: Reg, t: NumTy) -> Res<Reg> {
        let a = t.arith();
        let d = self.reg(t.class());
        let z = t.imm(0.0);
        if t.is_float() {
            // x - y·floor(x/y), then brought into the half-open range of y's sign.
            let q = self.reg(t.class());
            self.ins(format!("div.rn.{a} {q}, {x}, {y}"));
            self.ins(format!("cvt.rmi.{a}.{a} {q}, {q}"));
            self.ins(format!("neg.{a} {q}, {q}"));
            self.ins(format!("fma.rn.{a} {d}, {q}, {y}, {x}"));
            let p = self.reg(RegClass::Pred);
            self.ins(format!("setp.eq.{a} {p}, {d}, {y}"));
            self.ins(format!("selp.{a} {d}, {z}, {d}, {p}"));
        } else {
            self.ins(format!("rem.{a} {d}, {x}, {y}"));
            if t.is_signed() {
                // A remainder of the other sign than y moves by y.
                let (p, q, r) =
                    (self.reg(RegClass::Pred), self.reg(RegClass::Pred), self.reg(RegClass::Pred));
                self.ins(format!("setp.lt.{a} {p}, {d}, {z}"));
                self.ins(format!("setp.lt.{a} {q}, {y}, {z}"));
                self.ins(format!("xor.pred {p}, {p}, {q}"));
                self.ins(format!("setp.ne.{a} {r}, {d}, {z}"));
                self.ins(format!("and.pred {p}, {p}, {r}"));
                self.ins(format!("@{p} add.{a} {d}, {d}, {y}"));
            }
        }
        let p = self.reg(RegClass::Pred);
        self.ins(format!("setp.eq.{a} {p}, {y}, {z}"));
        self.ins(format!("selp.{a} {d}, {x}, {d}, {p}"));
        if t.is_narrow() {
            self.wrap(d, t);
        }
        Ok(d)
    }

    /// `e^x` in f32 (see the module documentation).
    fn exp_f32(&mut self, x: Reg) -> Reg {
        let f = |v: f64| NumTy::F32.imm(v);
        let (n, r, t) = (self.reg(RegClass::F32), self.reg(RegClass::F32), self.reg(RegClass::F32));
        // Clamp so that n fits the exponent arithmetic; the result saturates anyway.
        self.ins(format!("min.f32 {t}, {x}, {}", f(128.0)));
        self.ins(format!("max.f32 {t}, {t}, {}", f(-160.0)));
        self.ins(format!("mul.f32 {n}, {t}, {}", f(LOG2E)));
        self.ins(format!("cvt.rni.f32.f32 {n}, {n}"));
        // ln2 = C1 + C2 with C1 exact in 16 bits, so n·C1 is exact.
        let c1 = 0.693_145_751_953_125;
        self.ins(format!("fma.rn.f32 {r}, {n}, {}, {t}", f(-c1)));
        self.ins(format!("fma.rn.f32 {r}, {n}, {}, {r}", f(-(LN2 - c1))));
        self.ins(format!("mul.f32 {r}, {r}, {}", f(LOG2E)));
        self.ins(format!("ex2.approx.f32 {r}, {r}"));
        // 2^n as two factors 2^(n/2) built from exponent bits (n in [-231, 185]).
        let (ni, h1, h2, s) = (
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::B32),
            self.reg(RegClass::F32),
        );
        self.ins(format!("cvt.rni.s32.f32 {ni}, {n}"));
        self.ins(format!("shr.s32 {h1}, {ni}, 1"));
        self.ins(format!("sub.s32 {h2}, {ni}, {h1}"));
        for h in [h1, h2] {
            self.ins(format!("add.s32 {h}, {h}, 127"));
            self.ins(format!("shl.b32 {h}, {h}, 23"));
            self.ins(format!("mov.b32 {s}, {h}"));
            self.ins(format!("mul.f32 {r}, {r}, {s}"));
        }
        // The clamps above turn NaN into 128: NaN stays NaN.
        let nan = self.reg(RegClass::Pred);
        self.ins(format!("testp.notanumber.f32 {nan}, {x}"));
        self.ins(format!("@{nan} mov.f32 {r}, {x}"));
        r
    }

    /// `x - 2π·rint(x/2π)` in three parts (the first two products exact).
    fn reduce_2pi(&mut self, x: Reg) -> Reg {
        let f = |v: f64| NumTy::F32.imm(v);
        let two_pi = std::f64::consts::TAU;
        let (k, r) = (self.reg(RegClass::F32), self.reg(RegClass::F32));
        self.ins(format!("mul.f32 {k}, {x}, {}", f(1.0 / two_pi)));
        self.ins(format!("cvt.rni.f32.f32 {k}, {k}"));
        let c1 = (two_pi as f32 as f64 * 256.0).floor() / 256.0;
        let c2 = ((two_pi - c1) as f32) as f64;
        let c3 = two_pi - c1 - c2;
        self.ins(format!("fma.rn.f32 {r}, {k}, {}, {x}", f(-c1)));
        self.ins(format!("fma.rn.f32 {r}, {k}, {}, {r}", f(-c2)));
        self.ins(format!("fma.rn.f32 {r}, {k}, {}, {r}", f(-c3)));
        r
    }

    /// `x ^ y` (see the module documentation).
    pub fn pow(&mut self, x: Reg, y: Reg, t: NumTy, span: Span) -> Res<Reg> {
        if t == NumTy::F64 {
            return Ok(math_f64::pow(self, x, y));
        }
        if t != NumTy::F32 {
            return unsupported(
                span,
                format!("`^` on {}", t.mem()),
                "convert the operands to `scalar` first (`float(x) ^ y`)",
            );
        }
        let f = |v: f64| NumTy::F32.imm(v);
        let r = self.reg(RegClass::F32);
        self.ins(format!("abs.f32 {r}, {x}"));
        self.ins(format!("lg2.approx.f32 {r}, {r}"));
        self.ins(format!("mul.f32 {r}, {r}, {y}"));
        self.ins(format!("ex2.approx.f32 {r}, {r}"));
        let (yi, half, hi, nr) = (
            self.reg(RegClass::F32),
            self.reg(RegClass::F32),
            self.reg(RegClass::F32),
            self.reg(RegClass::F32),
        );
        let (int, odd, neg) =
            (self.reg(RegClass::Pred), self.reg(RegClass::Pred), self.reg(RegClass::Pred));
        self.ins(format!("cvt.rzi.f32.f32 {yi}, {y}"));
        self.ins(format!("setp.eq.f32 {int}, {yi}, {y}"));
        self.ins(format!("mul.f32 {half}, {y}, {}", f(0.5)));
        self.ins(format!("cvt.rzi.f32.f32 {hi}, {half}"));
        self.ins(format!("setp.ne.f32 {odd}, {hi}, {half}"));
        self.ins(format!("and.pred {odd}, {odd}, {int}"));
        // An odd integer exponent keeps the sign of x (also of -0 and -inf).
        self.ins(format!("@{odd} copysign.f32 {r}, {x}, {r}"));
        // A negative finite base with a fractional exponent has no real power.
        let fin = self.reg(RegClass::Pred);
        self.ins(format!("setp.lt.f32 {neg}, {x}, {}", f(0.0)));
        self.ins(format!("setp.gt.f32 {fin}, {x}, {}", f(f64::NEG_INFINITY)));
        self.ins(format!("and.pred {neg}, {neg}, {fin}"));
        self.ins(format!("not.pred {int}, {int}"));
        self.ins(format!("and.pred {neg}, {neg}, {int}"));
        self.ins(format!("selp.f32 {r}, 0f7FFFFFFF, {r}, {neg}"));
        // pow(x, ±0) = pow(1, y) = pow(-1, ±inf) = 1, even for NaN (C99, as on the CPU).
        let (z, one, ax, ay) =
            (self.reg(RegClass::Pred), self.reg(RegClass::Pred), nr, self.reg(RegClass::F32));
        self.ins(format!("setp.eq.f32 {z}, {y}, {}", f(0.0)));
        self.ins(format!("setp.eq.f32 {one}, {x}, {}", f(1.0)));
        self.ins(format!("or.pred {z}, {z}, {one}"));
        self.ins(format!("abs.f32 {ax}, {x}"));
        self.ins(format!("abs.f32 {ay}, {y}"));
        self.ins(format!("setp.eq.f32 {one}, {ax}, {}", f(1.0)));
        self.ins(format!("setp.eq.and.f32 {one}, {ay}, {}, {one}", f(f64::INFINITY)));
        self.ins(format!("or.pred {z}, {z}, {one}"));
        self.ins(format!("selp.f32 {r}, {}, {r}, {z}", f(1.0)));
        Ok(r)
    }
}
