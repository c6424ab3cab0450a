#!/usr/bin/env bash
# Sizes against the embedding targets (stripped bytes; reported, not asserted):
#   the full CLI <= 3 MB on x86-64; the core runtime without kernels <= 100 KB; a selective
#   build for SmolLM2-135M 8da4w <= 1 MB on aarch64; peak RSS of SmolLM2 8da4w generation
#   <= file + KV cache + 16 MB (when models/smollm2/ holds the program; else a visible skip).
#   scripts/size_report.sh FULL_BUILD_DIR [SELECT_BUILD_DIR]        (x86-64 builds)
#   scripts/size_report.sh --arm TRIPLET SELECT_BUILD_DIR           (a cross build's line)
set -euo pipefail
cd "$(dirname "$0")/.."
kb() { awk -v b="$1" 'BEGIN { printf "%.0f KB", b / 1024 }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1048576 }'; }
stripped() {  # strip-tool, file -> bytes of the stripped copy
  local t
  t=$(mktemp)
  "$1" -o "$t" "$2"
  stat -c %s "$t"
  rm -f "$t"
}
line() { printf '%-58s %14s   %s\n' "$1" "$2" "$3"; }

if [ "${1:-}" = --arm ]; then
  tri="$2" dir="$3"
  b=$(stripped "$tri-strip" "$dir/bin/pte-run")
  line "$tri selective pte-run (SmolLM2 8da4w)" "$(mb "$b")" "target 1 MB; our libraries static, libc/libstdc++/cpuinfo/pthreadpool shared"
  exit 0
fi

full="${1:?usage: size_report.sh FULL_BUILD_DIR [SELECT_BUILD_DIR]}"
sel="${2:-}"
echo "== sizes (stripped; targets from issue 12, reported, not asserted)"
b=$(stripped strip "$full/bin/pte-run")
line "x86-64 pte-run, every front end" "$(mb "$b")" "target 3 MB"
# the core without kernels: the interpreter and memory planner objects of libpte-core, with
# and without the XNNPACK delegate's parsing and node executors
core_sum() {  # find pattern (the core's objects: libpte-core and its hot-kernel group)
  find "$full"/libpte-core*.a.p -name "$1" -print0 | xargs -0 size | awk 'NR > 1 { s += $1 + $2 } END { print s + 0 }'
}
i=$(core_sum 'interpreter_[!x]*.o')
p=$(core_sum 'memory_planner_*.o')
x=$(core_sum 'interpreter_xnnpack_*.o')
line "core runtime without kernels (text + data)" "$(kb $((i + p)))" "target 100 KB; + XNNPACK delegate $(kb "$x")"
k=$(core_sum 'ops_*.o')
line "kernels, all (text + data)" "$(kb "$k")" ""
for lib in util tokenizer llm image; do
  [ -d "$full/libpte-$lib.a.p" ] || continue
  s=$(find "$full/libpte-$lib.a.p" -name '*.o' -print0 | xargs -0 size | awk 'NR > 1 { s += $1 + $2 } END { print s + 0 }')
  line "libpte-$lib (text + data)" "$(kb "$s")" ""
done
if [ -n "$sel" ]; then
  b=$(stripped strip "$sel/bin/pte-run")
  line "x86-64 selective pte-run (SmolLM2 8da4w)" "$(mb "$b")" "no XNNPACK library, image or server"
fi

model=models/smollm2/smollm2_xnnpack_8da4w.pte
if [ -f "$model" ]; then
  stats=$("$full/bin/pte-run" "$model" "The capital of France is" -n 32 --ignore-eos --stats 2>&1 >/dev/null | grep 'peak RSS')
  rss=$(printf '%s\n' "$stats" | sed -nE 's/.*peak RSS ([0-9.]+) MB.*/\1/p')
  kv=$("$full/bin/pte-run" info --memory "$model" | sed -nE 's/.*KV cache .* ([0-9,]+) bytes,.*/\1/p' | tr -d ,)
  file=$(stat -c %s "$model")
  target=$(awk -v f="$file" -v k="${kv:-0}" 'BEGIN { printf "%.1f", (f + k) / 1048576 + 16 }')
  line "peak RSS, SmolLM2-135M 8da4w, 32 tokens" "${rss} MB" "target ${target} MB (file $(mb "$file") + KV $(mb "${kv:-0}") + 16 MB)"
else
  echo "skipped: peak RSS of SmolLM2-135M 8da4w ($model absent: bash scripts/run.sh makes it)"
fi
