#!/usr/bin/env python3
"""Runs the benchmark workloads with NumPy, SciPy and OpenCV on the same data as
`benches/transforms.rs` and `benches/suite.rs`, and prints `RATIO` lines against the explicit
Quasar kernel's time from the Rust benchmarks' output, for scripts/benchmarks-md.py:

    cargo bench --bench transforms -- --warm-up-time 1 --measurement-time 2 > bench.txt
    cargo bench --bench suite -- --warm-up-time 1 --measurement-time 2 >> bench.txt
    python3 scripts/bench-peers.py bench.txt >> bench.txt     # installs into .venv-peers
    python3 scripts/benchmarks-md.py bench.txt

The peers are installed from PyPI into a virtual environment (`.venv-peers` in the checkout,
or QUASAR_PEERS_VENV); the script re-runs itself there. Each time is the best of 5 batches of
3 runs, as the Rust side measures. A workload without a peer in a library is left out; a
library that cannot be installed is reported and skipped.
"""

import os
import re
import subprocess
import sys
import time

PACKAGES = ["numpy", "scipy", "opencv-python-headless"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("QUASAR_PEERS_VENV", os.path.join(ROOT, ".venv-peers"))
RESULT = re.compile(r"^RESULT (\S+) kernel: ([\d.]+) ms$")


def in_venv():
    """Re-runs this script with the venv's Python (creating it first) unless it is running."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    have = subprocess.run([python, "-c", "import numpy, scipy, cv2"], capture_output=True)
    if have.returncode != 0:
        for p in PACKAGES:  # one at a time: one that fails leaves the others
            r = subprocess.run([python, "-m", "pip", "install", "-q", p], capture_output=True)
            if r.returncode != 0:
                print(f"# could not install {p}: {r.stderr.decode()[-300:]}", file=sys.stderr)
    os.execv(python, [python] + sys.argv)


def best(f):
    f()
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(3):
            f()
        times.append((time.perf_counter() - t) / 3)
    return min(times) * 1e3


def data(np, shape, seed):
    """The Rust benchmarks' test data: ((i * 7919 + seed) % 1000) / 1000 in row-major order."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919 + seed) % 1000) / 1000).astype(np.float32).reshape(shape)


def gaussian(np, r, sigma):
    fc = np.exp(-((np.arange(2 * r + 1) - r) ** 2) / (2 * sigma**2)).astype(np.float32)
    return fc / fc.sum()


def workloads():
    """(workload, library, function) for every peer we have; each function runs once."""
    import numpy as np

    try:
        import scipy.ndimage as ndi
    except ImportError:
        ndi = None
    try:
        import cv2
    except ImportError:
        cv2 = None
    out = []
    sizes = {"1080p": (1080, 1920), "4k": (2160, 3840)}

    def add(name, lib, f):
        if f is not None:
            out.append((name, lib, f))

    # benches/transforms.rs: 4K images, 10^7-element vectors.
    x = data(np, (2160, 3840), 0)
    add("box3", "scipy", ndi and (lambda: ndi.uniform_filter(x, 3, mode="nearest")))
    add("box3", "opencv", cv2 and (lambda: cv2.blur(x, (3, 3), borderType=cv2.BORDER_REPLICATE)))
    g = data(np, (2160, 3840), 1)
    add("gamma", "numpy", lambda: np.power(g, np.float32(0.45)))
    add("gamma", "opencv", cv2 and (lambda: cv2.pow(g, 0.45)))
    a, xx, b, y = (data(np, (2160, 3840), s) for s in (2, 3, 4, 5))
    add("fused", "numpy", lambda: a * xx + b * y + np.float32(0.5))
    v = (((np.arange(10_000_000) * 7919) % 1000) / 1000).astype(np.float32)
    w = (((np.arange(10_000_000) * 104729) % 1000) / 1000).astype(np.float32)
    add("sum", "numpy", lambda: np.sum(v))
    add("dot", "numpy", lambda: np.dot(v, w))
    # benches/suite.rs.
    for size, shape in sizes.items():
        c = data(np, shape, 0)
        add(f"copy_{size}", "numpy", lambda c=c: c.copy())
        b9 = data(np, shape, 1)
        add(f"box9_{size}", "scipy", ndi and (lambda b9=b9: ndi.uniform_filter(b9, 9, mode="nearest")))
        add(f"box9_{size}", "opencv", cv2 and (lambda b9=b9: cv2.blur(b9, (9, 9), borderType=cv2.BORDER_REPLICATE)))
        ga = data(np, shape, 2)
        fc = gaussian(np, 6, 2.0)
        add(f"gauss_{size}", "scipy", ndi and (lambda ga=ga, fc=fc: ndi.correlate1d(
            ndi.correlate1d(ga, fc, axis=1, mode="reflect"), fc, axis=0, mode="reflect")))
        add(f"gauss_{size}", "opencv", cv2 and (lambda ga=ga, fc=fc: cv2.sepFilter2D(
            ga, -1, fc, fc, borderType=cv2.BORDER_REFLECT)))
        m, n = shape
        cr = (-2.0 + 3.0 * np.arange(n, dtype=np.float32) / n)[None, :]
        ci = (-1.2 + 2.4 * np.arange(m, dtype=np.float32) / m)[:, None]

        def mandel(cr=cr, ci=ci, m=m, n=n):
            zr = np.zeros((m, n), np.float32)
            zi = np.zeros((m, n), np.float32)
            k = np.zeros((m, n), np.float32)
            for _ in range(64):
                live = zr * zr + zi * zi < 4.0
                t = zr * zr - zi * zi + cr
                zi = np.where(live, 2 * zr * zi + ci, zi)
                zr = np.where(live, t, zr)
                k += live
            return k

        add(f"mandel_{size}", "numpy", mandel)
        h = data(np, shape, 4)
        add(f"hist_{size}", "numpy", lambda h=h: np.bincount((h * 255).astype(np.int32).ravel(), minlength=256))
        add(f"hist_{size}", "opencv", cv2 and (lambda h=h: cv2.calcHist([h], [0], None, [256], [0, 256 / 255])))
        t = data(np, shape, 5)
        add(f"transpose_{size}", "numpy", lambda t=t: np.ascontiguousarray(t.T))
        add(f"transpose_{size}", "opencv", cv2 and (lambda t=t: cv2.transpose(t)))
        gc = data(np, shape + (3,), 8)
        add(f"gamma_cube_{size}", "numpy", lambda gc=gc: np.power(gc, np.float32(0.45)))
    mx = data(np, (10_000_000,), 3)
    add("max", "numpy", lambda: np.max(mx))
    for k in (512, 1024):
        ma, mb = data(np, (k, k), 6), data(np, (k, k), 7)
        add(f"matmul_{k}", "numpy", lambda ma=ma, mb=mb: ma @ mb)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    kernels = {}
    with open(sys.argv[1]) as f:
        for line in f:
            m = RESULT.match(line.strip())
            if m:
                kernels[m.group(1)] = float(m.group(2))
    if not kernels:
        sys.exit("no RESULT lines in the input: run the Rust benchmarks first")
    in_venv()
    for name, lib, f in workloads():
        if name not in kernels:
            continue
        t, k = best(f), kernels[name]
        print(f"RATIO {name} {lib}: {t:.3f} ms / kernel {k:.3f} ms = {t / k:.3f}", flush=True)


if __name__ == "__main__":
    main()
