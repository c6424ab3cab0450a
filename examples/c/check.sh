#!/usr/bin/env bash
# Runs the C examples built out of tree (scripts/embed_test.sh builds them into DIR, shared
# and `-static` variants) on committed fixtures; run from the repository root.
#   bash examples/c/check.sh DIR
set -euo pipefail
dir="${1:?usage: check.sh DIR (holding run_program, generate and their -static builds)}"
fail() { echo "examples/c/check.sh: $*" >&2; exit 1; }
for v in "" -static; do
  run="$dir/run_program$v" gen="$dir/generate$v"
  [ -x "$run" ] || fail "no $run"
  out=$("$run" fixtures/data/add/model.pte 1 2 3 4 5 6 10 20 30 40 50 60)
  grep -qx 'output 0: float32\[2, 3\] = 11 22 33 44 55 66' <<<"$out" || fail "run_program$v printed: $out"
  if err=$("$run" fixtures/data/no_such.pte 2>&1); then fail "run_program$v: a missing file did not fail"; fi
  grep -q 'PTE_ERR_FILE_NOT_FOUND' <<<"$err" || fail "run_program$v: no code for a missing file: $err"
  if [ -x "$gen" ]; then
    err=$("$gen" fixtures/data/decoder_llama/model.pte "Hello" 4 2>&1 >/dev/null)
    grep -q ' generated; prefill' <<<"$err" || fail "generate$v: $err"
  fi
done
echo "examples/c: run_program and generate ran on fixtures (shared and static)"
