#!/usr/bin/env bash
# The C examples (examples/c/) built out of tree against an install, as a user builds them:
# `meson install --destdir` of BUILD_DIR into a temporary root, then the examples' Makefile
# with pkg-config (pte-run.pc) from there, run on committed fixtures.
#   bash scripts/c_example.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root/dest" --quiet
pc=$(find "$root/dest" -name pte-run.pc | head -n 1)
[ -n "$pc" ] || { echo "c_example: no pte-run.pc in the install" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
cp -r examples/c "$root/src"
PKG_CONFIG_SYSROOT_DIR="$root/dest" PKG_CONFIG_PATH="$(dirname "$pc")" make -s -C "$root/src"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=$("$root/src/run_program" fixtures/data/add/model.pte 1 2 3 4 5 6 10 20 30 40 50 60)
echo "$out"
grep -qx 'output 0: float32\[2, 3\] = 11 22 33 44 55 66' <<<"$out" || { echo "c_example: run_program printed the wrong sum" >&2; exit 1; }
if "$root/src/run_program" fixtures/data/no_such.pte 2>"$root/err"; then
  echo "c_example: a missing file did not fail" >&2; exit 1
fi
grep -q 'PTE_ERR_FILE_NOT_FOUND' "$root/err" || { echo "c_example: no error code for a missing file" >&2; exit 1; }
"$root/src/generate" fixtures/data/decoder_llama/model.pte "Hello" 4 >/dev/null 2>"$root/err"
grep -q '4 generated' "$root/err" || { cat "$root/err" >&2; echo "c_example: generate did not generate 4 tokens" >&2; exit 1; }
echo "c_example: ok (run_program and generate built with pkg-config against the install)"
