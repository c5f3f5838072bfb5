#!/usr/bin/env bash
# What a new user does: `cargo new`, `cargo add quasar` (here: this checkout, by path) and
# `cargo add ndarray` (no version given, so the newest), then a program that converts arrays
# both ways between ndarray and a `quasar!` function (scripts/user-crate/main.rs). Fails when
# the newest ndarray is not the version quasar converts from and to.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

cd "$work"
cargo new --quiet --bin user-crate
cd user-crate
cargo add --quiet --path "$root" quasar
cargo add --quiet ndarray
grep -E '^(quasar|ndarray) ' Cargo.toml
cp "$root/scripts/user-crate/main.rs" src/main.rs
cargo run --quiet
