#!/usr/bin/env bash
# Checks a selective build (-Dselect_ops=fixtures/select/smollm2_8da4w.txt) against a full
# build of the same target: programs inside the selection give the same output bytes,
# programs outside it are refused in one line naming what is missing.
#   scripts/select_check.sh FULL_PTE_RUN SELECTIVE_PTE_RUN    (commands: may be qemu wrappers)
set -euo pipefail
cd "$(dirname "$0")/.."
full="${1:?usage: select_check.sh FULL_PTE_RUN SELECTIVE_PTE_RUN}"
sel="${2:?usage: select_check.sh FULL_PTE_RUN SELECTIVE_PTE_RUN}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "select_check: $*" >&2; exit 1; }

same() {  # fixture: run on its first recorded inputs (input_0_<k>.npy)
  local f="fixtures/data/$1/model.pte"
  local args=() k=0
  while [ -f "fixtures/data/$1/input_0_$k.npy" ]; do args+=(--input "fixtures/data/$1/input_0_$k.npy"); k=$((k + 1)); done
  rm -rf "$work/a" "$work/b"
  $full run "$f" "${args[@]}" --save-outputs "$work/a" >/dev/null
  $sel run "$f" "${args[@]}" --save-outputs "$work/b" >/dev/null || fail "the selective build cannot run $f"
  local n=0 o
  for o in "$work"/a/*.npy; do
    cmp -s "$o" "$work/b/$(basename "$o")" || fail "$f: $(basename "$o") differs between the full and the selective build"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "$f: no outputs saved"
}
refused() {  # fixture, the name the one-line refusal must hold
  local out
  if out=$($sel run "fixtures/data/$1/model.pte" --input "fixtures/data/$1/input_0_0.npy" 2>&1); then
    fail "the selective build ran $1, which needs $2"
  fi
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "refusing $1 took more than one line: $out"
  case "$out" in *"$2"*) ;; *) fail "refusing $1 does not name $2: $out" ;; esac
}
same llama_custom_sdpa
same qlinear_8da4w_xnnpack
refused cnn "unsupported operator aten::convolution.out"
refused cnn_xnnpack "XNNConv2d"
echo "select_check: 2 programs equal to the full build, 2 refused by name ($sel)"
