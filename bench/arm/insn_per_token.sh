#!/usr/bin/env bash
# Guest instructions per decode step of an aarch64 (or armhf) pte-run under qemu-user, with
# every kernel's scalar reference (PTE_ISA_OFF=all) against the default dispatch (NEON,
# dotprod, i8mm as the emulated CPU has them). Timing under emulation means nothing;
# instruction counts say what the vector kernels save. One thread, greedy.
#
#   bash bench/arm/insn_per_token.sh BUILD_DIR MODEL.pte [CPU...]
#     BUILD_DIR: a cross build (meson setup --cross-file cross/aarch64-linux-gnu.ini ...)
#     CPU: qemu CPU models (default: cortex-a53 max)
#   env: PROMPT (default "Hello"), STEPS (decode steps measured, default 4), TRIPLET
#        (default aarch64-linux-gnu), XNNPACK (pte-run --xnnpack, default auto)
#
# Prints a Markdown table: per CPU and dispatch, instructions of the whole run with 1 new
# token, and per further decode step ((I(1 + STEPS) - I(1)) / STEPS).
set -euo pipefail
build="${1:?usage: insn_per_token.sh BUILD_DIR MODEL.pte [CPU...]}"
model="${2:?usage: insn_per_token.sh BUILD_DIR MODEL.pte [CPU...]}"
shift 2
cpus=("$@")
[ ${#cpus[@]} -gt 0 ] || cpus=(cortex-a53 max)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tri="${TRIPLET:-aarch64-linux-gnu}"
steps="${STEPS:-4}"
prompt="${PROMPT:-Hello}"
plugin="$build/insn_count.so"
cc -shared -fPIC -O2 -o "$plugin" "$root/bench/arm/insn_count.c"

count() {  # cpu, PTE_ISA_OFF value, new tokens -> instructions
  local out
  out="$(PTE_ISA_OFF="$2" QEMU_CPU="$1" "$root/scripts/qemu_run.sh" "$tri" -plugin "$plugin" \
    "$build/bin/pte-run" "$model" "$prompt" -n "$3" --ignore-eos --threads 1 --xnnpack "${XNNPACK:-auto}" 2>&1 >/dev/null)" || {
    echo "pte-run failed: $out" >&2
    exit 1
  }
  sed -n 's/^insns \([0-9]*\)$/\1/p' <<<"$out"
}

echo "| qemu CPU | kernels | instructions, run with 1 new token | per decode step |"
echo "| --- | --- | ---: | ---: |"
for cpu in "${cpus[@]}"; do
  for off in all ""; do
    a="$(count "$cpu" "$off" 1)"
    b="$(count "$cpu" "$off" $((1 + steps)))"
    name="${off:+scalar (PTE_ISA_OFF=all)}"
    echo "| $cpu | ${name:-default} | $a | $(( (b - a) / steps )) |"
  done
done
