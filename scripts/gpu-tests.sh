#!/usr/bin/env bash
# Builds the GPU test binaries (release, feature `cuda`) on this machine and packs them with
# a runner into gpu-bin/, so that they can be copied to a machine with an NVIDIA GPU and a
# driver (no Rust toolchain or CUDA toolkit needed there) and run with `gpu-bin/run.sh`.
#
#   scripts/gpu-tests.sh            # build and pack
#   gpu-bin/run.sh                  # on the GPU machine: every binary, QUASAR_REQUIRE_GPU=1
#   gpu-bin/run.sh math             # only tests whose name contains `math`
#
# The binaries: gpu_kernels (CPU against GPU for the kernels of tests/e2e_kernels.rs and the
# math built-ins), e2e_kernels (the same kernels against plain Rust, in the default mode),
# kernel_errors (run-time errors of kernels: the same text, Quasar file:line:col, whole
# index and shape, on the GPU as on the CPU), gpu_fft (the FFTs through cuFFT against rustfft;
# libcufft is loaded at run time: put its folder on LD_LIBRARY_PATH if the loader does not find
# it) and runtime_cuda (quasar-runtime's CUDA device with hand-written PTX).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/gpu-bin"
json="$(mktemp)"
trap 'rm -f "$json"' EXIT

echo "building the test binaries (release, --features cuda)…" >&2
cargo test --release --features cuda --no-run --message-format=json \
    --test gpu_kernels --test e2e_kernels --test kernel_errors --test gpu_fft >>"$json"
cargo test --release -p quasar-runtime --features cuda --no-run --message-format=json \
    --test cuda >>"$json"

rm -rf "$out"
mkdir -p "$out"
python3 - "$json" "$out" "$root" <<'EOF'
import json, os, shutil, sys
# (manifest relative to the workspace root, test target) -> packed name
wanted = {("Cargo.toml", "gpu_kernels"): "gpu_kernels",
          ("Cargo.toml", "e2e_kernels"): "e2e_kernels",
          ("Cargo.toml", "kernel_errors"): "kernel_errors",
          ("Cargo.toml", "gpu_fft"): "gpu_fft",
          ("quasar-runtime/Cargo.toml", "cuda"): "runtime_cuda"}
found = {}
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    if not m.get("profile", {}).get("test"):
        continue
    key = (os.path.relpath(m["manifest_path"], sys.argv[3]), m["target"]["name"])
    if key in wanted:
        found[wanted[key]] = m["executable"]
missing = set(wanted.values()) - set(found)
if missing:
    sys.exit(f"test binaries not found in cargo's output: {sorted(missing)}")
for name, exe in sorted(found.items()):
    shutil.copy2(exe, os.path.join(sys.argv[2], name))
    print(name)
EOF

if command -v strip >/dev/null; then
    strip "$out"/gpu_kernels "$out"/e2e_kernels "$out"/kernel_errors "$out"/gpu_fft "$out"/runtime_cuda
fi

cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the GPU test binaries packed by scripts/gpu-tests.sh. A missing GPU is a failure
# (QUASAR_REQUIRE_GPU=1). Arguments are passed to every binary (a test-name filter, …).
cd "$(dirname "$0")"
export QUASAR_REQUIRE_GPU=1
passed=(); failed=()
for t in gpu_kernels e2e_kernels kernel_errors gpu_fft runtime_cuda; do
    echo "=== $t"
    extra=()
    # Needs the source tree's tests/ptx/kernels.ptx and ptxas; checked where it is built.
    [ "$t" = runtime_cuda ] && extra=(--skip the_test_ptx_passes_ptxas)
    if ./"$t" --test-threads=1 --nocapture "${extra[@]}" "$@"; then
        passed+=("$t")
    else
        failed+=("$t")
    fi
done
echo "=== passed: ${passed[*]:-none}"
echo "=== failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
EOF
chmod +x "$out/run.sh"
echo "packed into $out (run $out/run.sh on a machine with an NVIDIA GPU)" >&2
