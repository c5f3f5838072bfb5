#!/usr/bin/env bash
# Installs ptxas from NVIDIA's `nvidia-cuda-nvcc-cu12` wheel on PyPI into .whl/nvcc (git-ignored)
# and prints the path of the ptxas binary on stdout (progress goes to stderr).
# The version is pinned so that CI checks the PTX with the same assembler every time; PTX ISA 7.8
# (what the PTX back end emits) needs ptxas from CUDA 11.8 or later.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VERSION="12.9.86"
DEST=".whl/nvcc-${VERSION}"

find_ptxas() {
    { find "$DEST" -type f -name ptxas -path "*/bin/*" 2>/dev/null || true; } | head -n 1
}

PTXAS="$(find_ptxas)"
if [ -z "$PTXAS" ]; then
    PYTHON="$(command -v python3 || command -v python || true)"
    if [ -z "$PYTHON" ]; then
        echo "install-ptxas: python3 is needed to install the nvidia-cuda-nvcc-cu12 wheel" >&2
        exit 1
    fi
    echo "install-ptxas: installing nvidia-cuda-nvcc-cu12==${VERSION} into ${DEST}" >&2
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$DEST" "nvidia-cuda-nvcc-cu12==${VERSION}" >&2
    PTXAS="$(find_ptxas)"
fi
if [ -z "$PTXAS" ]; then
    echo "install-ptxas: the wheel did not contain bin/ptxas" >&2
    exit 1
fi
chmod +x "$PTXAS"
"$PTXAS" --version >&2
echo "$(cd "$(dirname "$PTXAS")" && pwd)/$(basename "$PTXAS")"
