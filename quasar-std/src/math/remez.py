#!/usr/bin/env python3
"""Minimax (Remez exchange) fits for the polynomial kernels of `quasar_std::math`.

Run `python3 quasar-std/src/math/remez.py` (needs mpmath) to regenerate every coefficient set in
`f32.rs` and `f64.rs`; each printed block names the kernel it belongs to. The fits are
weighted-minimax in a linear basis: minimise max |w(x) (f(x) - sum c_k b_k(x))| over [a, b].
The printed `err` is the fit's own error (in the weighted sense, usually relative to the final
function value) before the coefficients are rounded to the target precision.
"""
import sys

from mpmath import mp, mpf, matrix, lu_solve, cos, sin, tan, exp, log, atan, asin, sqrt, pi, atanh, expm1

mp.dps = 60


def remez(f, basis, w, a, b, iters=40, grid=3000):
    n = len(basis)
    a, b = mpf(a), mpf(b)

    def err(c, x):
        return w(x) * (f(x) - sum(ck * bk(x) for ck, bk in zip(c, basis)))

    def nudge(x):
        # keep points off a zero of the weight (the symmetric fits vanish at 0)
        return x + (b - a) * mpf("1e-7") if abs(x) < (b - a) * mpf("1e-9") else x

    xs = [nudge((a + b) / 2 - (b - a) / 2 * cos(pi * i / n)) for i in range(n + 1)]
    grid_pts = [nudge((a + b) / 2 - (b - a) / 2 * cos(pi * i / grid)) for i in range(grid + 1)]
    best = None
    for _ in range(iters):
        m = matrix(n + 1, n + 1)
        rhs = matrix(n + 1, 1)
        for i, x in enumerate(xs):
            for k, bk in enumerate(basis):
                m[i, k] = bk(x)
            m[i, n] = (-1) ** i / w(x)
            rhs[i] = f(x)
        sol = lu_solve(m, rhs)
        c = [sol[k] for k in range(n)]
        lev = abs(sol[n])
        es = [err(c, x) for x in grid_pts]
        # local extrema of the error on the grid, refined by golden-section search
        ext = []
        for i in range(len(grid_pts)):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i + 1 < len(es) else None
            e = es[i]
            is_ext = (left is None or abs(e) >= abs(left) or (e > 0) != (left > 0)) and (
                right is None or abs(e) >= abs(right) or (e > 0) != (right > 0)
            )
            if not is_ext:
                continue
            x = grid_pts[i]
            if left is not None and right is not None:
                lo, hi = grid_pts[i - 1], grid_pts[i + 1]
                sgn = 1 if e > 0 else -1
                g = (sqrt(5) - 1) / 2
                for _ in range(40):
                    x1 = hi - g * (hi - lo)
                    x2 = lo + g * (hi - lo)
                    if sgn * err(c, x1) > sgn * err(c, x2):
                        hi = x2
                    else:
                        lo = x1
                x = (lo + hi) / 2
                e = err(c, x)
            ext.append((x, e))
        # merge same-sign neighbours, keeping the larger
        alt = []
        for x, e in ext:
            if alt and (alt[-1][1] > 0) == (e > 0):
                if abs(e) > abs(alt[-1][1]):
                    alt[-1] = (x, e)
            else:
                alt.append((x, e))
        while len(alt) > n + 1:
            if abs(alt[0][1]) < abs(alt[-1][1]):
                alt.pop(0)
            else:
                alt.pop()
        maxerr = max(max(abs(e) for e in es), max(abs(e) for _, e in ext))
        if best is None or maxerr < best[1]:
            best = (c, maxerr)
        if len(alt) < n + 1:
            break
        xs = [x for x, _ in alt]
        if maxerr <= lev * (1 + mpf("1e-6")):
            break
    return best


def show(name, c, e, prec):
    print(f"// {name}: err {float(e):.3e} (2^{float(log(e, 2)):.1f})")
    for ck in c:
        if prec == 32:
            print(f"    {float(ck):.9e},")
        else:
            print(f"    {mp.nstr(ck, 20, min_fixed=-1, max_fixed=-1)},")


def pw(k):
    return lambda x: x**k


TINY = mpf("1e-30")
LN2 = log(2)


def fit_exp(nc, half=mpf("0.35")):
    # e^r = 1 + r + r^2 P(r), relative error
    return remez(lambda r: (exp(r) - 1 - r) / r**2 if r != 0 else mpf(1) / 2,
                 [pw(k) for k in range(nc)], lambda r: r**2 / exp(r) if r != 0 else TINY, -half, half)


def fit_exp2(nc):
    # 2^r = 1 + r P(r), relative error, r in [-1/2, 1/2]
    return remez(lambda r: (2**r - 1) / r if r != 0 else LN2,
                 [pw(k) for k in range(nc)], lambda r: abs(r) / 2**r if r != 0 else TINY, -mpf(1) / 2, mpf(1) / 2)


def fit_exp2_split(nc):
    # 2^r = 1 + r ln2 + r^2 P(r), relative error, r in [-1/2, 1/2]
    return remez(lambda r: (2**r - 1 - r * LN2) / r**2 if r != 0 else LN2**2 / 2,
                 [pw(k) for k in range(nc)], lambda r: r**2 / 2**r if r != 0 else TINY, -mpf(1) / 2, mpf(1) / 2)


def fit_expm1(nc):
    # expm1(r) = r + r^2/2 + r^3 P(r), relative error
    return remez(lambda r: (expm1(r) - r - r**2 / 2) / r**3 if r != 0 else mpf(1) / 6,
                 [pw(k) for k in range(nc)], lambda r: abs(r**3 / expm1(r)) if r != 0 else TINY, -mpf("0.35"), mpf("0.35"))


ZLOG = (3 - 2 * sqrt(2)) ** 2 * mpf("1.0001")  # s = f/(2+f), f in [sqrt(1/2)-1, sqrt(2)-1]


def fit_log(nc):
    # log1p(f) = 2s + s R(z), R(z) = sum c_k z^(k+1); absolute error of R (relative of log1p)
    return remez(lambda z: (2 * atanh(sqrt(z)) - 2 * sqrt(z)) / sqrt(z),
                 [pw(k + 1) for k in range(nc)], lambda z: mpf(1) / 2, TINY, ZLOG)


def fit_log2_s(nc):
    # log2(1 + f) = s Q(z), s = f/(2+f), Q(z) = sum c_k z^k (c_0 = 2/ln 2); relative error
    return remez(lambda z: 2 * atanh(sqrt(z)) / sqrt(z) / LN2,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) * LN2 / (2 * atanh(sqrt(z))), TINY, ZLOG)


def fit_log_tail(nc):
    # log1p(f) = 2s (1 + z/3 + z^2 U(z)); U relative-to-log1p weight ~ z^2
    return remez(lambda z: ((atanh(sqrt(z)) / sqrt(z)) - 1 - z / 3) / z**2,
                 [pw(k) for k in range(nc)], lambda z: z**2, TINY, ZLOG)


QPI4 = pi / 4 * mpf("1.0001")


def fit_sin(nc, top=QPI4):
    return remez(lambda z: (sin(sqrt(z)) - sqrt(z)) / sqrt(z) ** 3,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) ** 3 / sin(sqrt(z)), TINY, top**2)


def fit_cos(nc, top=QPI4):
    return remez(lambda z: (cos(sqrt(z)) - 1 + z / 2) / z**2,
                 [pw(k) for k in range(nc)], lambda z: z**2 / cos(sqrt(z)), TINY, top**2)


def fit_atan(nc, top):
    return remez(lambda z: (atan(sqrt(z)) - sqrt(z)) / sqrt(z) ** 3,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) ** 3 / atan(sqrt(z)), TINY, top**2)


def fit_asin(nc, top=mpf("0.5")):
    return remez(lambda z: (asin(sqrt(z)) - sqrt(z)) / sqrt(z) ** 3,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) ** 3 / asin(sqrt(z)), TINY, top**2)


def fit_tan(nc, top=QPI4):
    return remez(lambda z: (tan(sqrt(z)) - sqrt(z)) / sqrt(z) ** 3,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) ** 3 / tan(sqrt(z)), TINY, top**2)


def fit_tanh(nc, top=mpf("0.625")):
    from mpmath import tanh
    return remez(lambda z: (tanh(sqrt(z)) - sqrt(z)) / sqrt(z) ** 3,
                 [pw(k) for k in range(nc)], lambda z: sqrt(z) ** 3 / tanh(sqrt(z)), TINY, top**2)


KERNELS = {
    "tanh": fit_tanh,
    "exp": fit_exp,
    "exp2": fit_exp2,
    "exp2_split": fit_exp2_split,
    "expm1": fit_expm1,
    "log": fit_log,
    "log_tail": fit_log_tail,
    "log2_s": fit_log2_s,
    "sin": fit_sin,
    "cos": fit_cos,
    "tan": fit_tan,
    "atan_tan_pi_8": lambda nc: fit_atan(nc, sqrt(2) - 1 + mpf("1e-6")),
    "atan_7_16": lambda nc: fit_atan(nc, mpf(7) / 16 + mpf("1e-6")),
    "asin": fit_asin,
}

if __name__ == "__main__":
    if len(sys.argv) > 1:
        # survey: remez.py NAME lo hi -> errors per number of coefficients
        name, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        for nc in range(lo, hi + 1):
            c, e = KERNELS[name](nc)
            print(name, nc, f"{float(e):.3e}", f"2^{float(log(e, 2)):.1f}")
        sys.exit()

# (label, fit, number of coefficients, target precision)
CHOSEN = [
    ("f32 exp: e^r = 1 + r + r^2 P(r)", "exp", 5, 32),
    ("f32 exp2: 2^r = 1 + r P(r)", "exp2", 6, 32),
    ("f32 log: R(z) = z P(z)", "log", 3, 32),
    ("f32 sin: r + r^3 S(z)", "sin", 3, 32),
    ("f32 cos: 1 - z/2 + z^2 C(z)", "cos", 3, 32),
    ("f32 atan on [0, tan(pi/8)]: t + t^3 A(z)", "atan_tan_pi_8", 5, 32),
    ("f32 asin on [0, 1/2]: x + x^3 B(z)", "asin", 6, 32),
    ("f32 tanh on [0, 0.625]: x + x^3 T(z)", "tanh", 5, 32),
    ("f32 tan (f64 arithmetic): r + r^3 T(z)", "tan", 8, 64),
    ("f32 pow log2 (f64 arithmetic): log2(1 + f) = s Q(z)", "log2_s", 5, 64),
    ("f32 pow exp2 (f64 arithmetic): 1 + r P(r)", "exp2", 6, 64),
    ("f64 exp", "exp", 10, 64),
    ("f64 exp2 (and pow): 2^r = 1 + r ln2 + r^2 P(r)", "exp2_split", 10, 64),
    ("f64 expm1", "expm1", 10, 64),
    ("f64 log", "log", 7, 64),
    ("f64 log tail (pow): 1 + z/3 + z^2 U(z)", "log_tail", 8, 64),
    ("f64 sin", "sin", 6, 64),
    ("f64 cos", "cos", 6, 64),
    ("f64 tan", "tan", 15, 64),
    ("f64 atan on [0, 7/16]", "atan_7_16", 11, 64),
    ("f64 asin on [0, 1/2]", "asin", 13, 64),
]

if __name__ == "__main__":
    for label, name, nc, prec in CHOSEN:
        c, e = KERNELS[name](nc)
        show(label, c, e, prec)
