#!/usr/bin/env python3
"""True error (in ULPs, against mpmath at 60 digits) of the `f64` routines, from the samples
that the ignored test `math::tests::dump_f64_samples` writes:

    QUASAR_MATH_DUMP=/tmp/f64.txt QUASAR_MATH_SAMPLES=100000 cargo test --release -p quasar-std \
        --lib math::tests::dump_f64_samples -- --ignored
    python3 quasar-std/src/math/mpcheck.py /tmp/f64.txt
"""
import math
import sys

from mpmath import mp, mpf

mp.dps = 60
REF = {
    "exp": mp.exp, "exp2": lambda x: mpf(2) ** x, "log": mp.log, "log2": lambda x: mp.log(x, 2),
    "log10": mp.log10, "sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "atan": mp.atan,
    "asin": mp.asin, "acos": mp.acos, "tanh": mp.tanh, "sqrt": mp.sqrt,
    "rsqrt": lambda x: 1 / mp.sqrt(x), "pow": lambda x, y: mpf(x) ** y, "atan2": mp.atan2,
}


def ulp_err(got, want):
    if math.isnan(got) or not mp.isfinite(want):
        return 0.0
    w = float(want)
    if math.isinf(w) or math.isinf(got):
        return 0.0 if got == w else math.inf
    if w == 0.0:
        u = 5e-324
    else:
        u = math.ulp(w) if abs(w) >= 2.2250738585072014e-308 else 5e-324
    return float(abs(mpf(got) - want) / u)


worst = {}
for line in open(sys.argv[1]):
    name, rng, args, got = line.rstrip("\n").split("\t")
    args = [float(a) for a in args.split(",")]
    got = float(got)
    if any(math.isnan(a) or math.isinf(a) for a in args):
        continue
    try:
        if name == "pow" and args[0] < 0:
            want = mpf(args[0]) ** int(args[1]) if args[1] == int(args[1]) else mp.nan
        elif name == "atan2":
            want = mp.atan2(mpf(args[0]), mpf(args[1]))
        else:
            want = REF[name](*[mpf(a) for a in args])
    except (ValueError, ZeroDivisionError):
        continue
    if isinstance(want, mp.mpc):
        continue
    e = ulp_err(got, want)
    key = (name, rng)
    if key not in worst or e > worst[key][0]:
        worst[key] = (e, args)
for (name, rng), (e, args) in worst.items():
    print(f"{name:6} {rng:28} max {e:.3f} ULP at {args}")
