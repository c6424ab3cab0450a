#!/usr/bin/env bash
# Guest instructions per decode step of an aarch64 (or armhf) pte-run under qemu-user, per
# function of pte-run (the plugin bench/arm/insn_profile.c; shared libraries' code is "?"),
# with the default dispatch (or PTE_ISA_OFF as set in the environment). One thread, greedy.
#
#   bash bench/arm/insn_profile.sh BUILD_DIR MODEL.pte [CPU]
#     CPU: the qemu CPU model (default cortex-a53)
#   env: PROMPT (default "Hello"), STEPS (decode steps, default 2), TOP (rows, default 25),
#        TRIPLET (default aarch64-linux-gnu), XNNPACK (pte-run --xnnpack, default auto)
#
# Prints a Markdown table: per function, instructions per decode step
# ((I(1 + STEPS) - I(1)) / STEPS) and the share of the step, largest first.
set -euo pipefail
build="${1:?usage: insn_profile.sh BUILD_DIR MODEL.pte [CPU]}"
model="${2:?usage: insn_profile.sh BUILD_DIR MODEL.pte [CPU]}"
cpu="${3:-cortex-a53}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tri="${TRIPLET:-aarch64-linux-gnu}"
steps="${STEPS:-2}"
prompt="${PROMPT:-Hello}"
plugin="$build/insn_profile.so"
cc -shared -fPIC -O2 -o "$plugin" "$root/bench/arm/insn_profile.c"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run() {  # new tokens, output file
  QEMU_CPU="$cpu" "$root/scripts/qemu_run.sh" "$tri" -plugin "$plugin" "$build/bin/pte-run" "$model" "$prompt" \
    -n "$1" --ignore-eos --threads 1 --xnnpack "${XNNPACK:-auto}" 2>"$2" >/dev/null || {
    echo "pte-run failed: $(tail -3 "$2")" >&2
    exit 1
  }
}
run 1 "$tmp/a"
run $((1 + steps)) "$tmp/b"
echo "| function (qemu -cpu $cpu${PTE_ISA_OFF:+, PTE_ISA_OFF=$PTE_ISA_OFF}) | instructions per decode step | share |"
echo "| --- | ---: | ---: |"
awk -v steps="$steps" '
  FNR == 1 { f++ }
  $1 == "prof" { c[$3] += (f == 1 ? -$2 : $2) }
  END { for (s in c) if (c[s] != 0) printf "%d %s\n", c[s] / steps, s }' "$tmp/a" "$tmp/b" |
  sort -k1,1 -n -r >"$tmp/d"
sum="$(awk '{ t += $1 } END { print t }' "$tmp/d")"
head -n "${TOP:-25}" "$tmp/d" | while read -r n s; do
  printf '| `%s` | %s | %.1f%% |\n' "$(c++filt "$s" | cut -c1-90)" "$n" "$(awk -v n="$n" -v t="$sum" 'BEGIN { print 100 * n / t }')"
done
echo "| (all) | $sum | 100% |"
