#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and fuzzes the loader for a
# bounded time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET]      defaults: 60 s, fuzz_loader (also fuzz_json, fuzz_image)
#
# Seeds: the shared corpus (../shared/pte-corpus: .pte, .bpte, .ptd and program+.ptd
# pairs) and fixtures/data/*/model.pte, copied at run time into fuzz/corpus-work/
# (git-ignored), plus every committed input in fuzz/regressions/. Crashes are written
# to fuzz/artifacts/ (git-ignored); add a small crashing input to fuzz/regressions/
# once it is fixed. Environment: BUILD_DIR (default build-fuzz), JOBS (parallel
# fuzzing processes, default 1), FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
TARGET="${2:-fuzz_loader}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-build-fuzz}"
JOBS="${JOBS:-1}"
cd "$ROOT"

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # -fno-sanitize=alignment as in the sanitizer test build (scripts/test.sh): lists of
  # 8-byte items are not always 8-aligned in real files and are accepted (check_tables).
  CXX="${CXX:-clang++}" CC="${CC:-clang}" meson setup "$BUILD_DIR" -Dfuzz=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dtests=false -Dbuildtype=debugoptimized \
    -Dcpp_args=-fno-sanitize=alignment -Dcpp_link_args=-fno-sanitize=alignment
fi
ninja -C "$BUILD_DIR" "fuzz/$TARGET"

WORK="fuzz/corpus-work/$TARGET"
ART="fuzz/artifacts/$TARGET"
mkdir -p "$WORK" "$ART"
SEEDS="$WORK/seeds"
mkdir -p "$SEEDS"
MARKER=$'\n--pte-run-ptd--\n'   # fuzz/exercise.h kPtdMarker
CORPUS=../shared/pte-corpus
if [ "$TARGET" = fuzz_loader ]; then
  if [ -d "$CORPUS" ]; then
    find "$CORPUS" -type f \( -name '*.pte' -o -name '*.bpte' -o -name '*.ptd' \) | while read -r f; do
      rel="${f#"$CORPUS"/}"
      cp "$f" "$SEEDS/corpus_$(echo "$rel" | tr '/' '_')"   # (not "..": no hidden seed files)
    done
    # Programs with their external data (program + marker + .ptd).
    for pair in "executorch/module_linear.pte executorch/module_linear.ptd" \
                "executorch/xor_training.pte executorch/xor_training.ptd" \
                "executorch-rs/data_map_model.pte executorch-rs/_default_external_constant.ptd"; do
      set -- $pair
      if [ -f "$CORPUS/$1" ] && [ -f "$CORPUS/$2" ]; then
        { cat "$CORPUS/$1"; printf '%s' "$MARKER"; cat "$CORPUS/$2"; } > "$SEEDS/pair_$(basename "$1" .pte)"
      fi
    done
  else
    echo "fuzz.sh: $CORPUS not found; seeding from fixtures only" >&2
  fi
  for f in fixtures/data/*/model.pte; do
    [ -f "$f" ] || continue
    # Large fixtures slow every iteration down; libFuzzer caps inputs at -max_len anyway.
    if [ "$(stat -c %s "$f")" -le 65536 ]; then cp "$f" "$SEEDS/fixture_$(basename "$(dirname "$f")").pte"; fi
  done
  if [ -d fuzz/regressions ]; then
    for f in fuzz/regressions/*; do
      case "$f" in *.md|*.txt) continue ;; esac
      [ -f "$f" ] && cp "$f" "$SEEDS/regression_$(basename "$f")"
    done
  fi
  MAX_LEN=65536
elif [ "$TARGET" = fuzz_image ]; then
  # Image seeds: the committed test images (PNG, JPEG, progressive, palette, 16-bit, CMYK, huge headers).
  for f in fixtures/data/image_inputs/*.png fixtures/data/image_inputs/*.jpg; do
    [ -f "$f" ] && cp "$f" "$SEEDS/$(basename "$f")"
  done
  MAX_LEN=16384
else
  # JSON seeds: the fixture manifest and small hand-written documents.
  [ -f fixtures/data/manifest.json ] && cp fixtures/data/manifest.json "$SEEDS/manifest.json"
  printf '%s' '{"a":[1,2.5,-3e-7,"x\u00e9\ud83d\ude00",true,null,{}],"b":{"c":"\"\\\/\b\f\n\r\t"}}' > "$SEEDS/doc.json"
  printf '%s' '[9223372036854775807,-9223372036854775808,9223372036854775808,1e400,1e-400]' > "$SEEDS/nums.json"
  MAX_LEN=16384
fi

mkdir -p "$WORK/queue"
LOG="$WORK/fuzz.log"
EXTRA=()
if [ "$JOBS" -gt 1 ]; then EXTRA+=(-fork="$JOBS" -ignore_crashes=1); fi
echo "fuzz.sh: $TARGET for ${SECONDS_TO_RUN}s, $JOBS job(s); seeds: $(ls "$SEEDS" | wc -l); log: $LOG; crashes go to $ART/"
status=0
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
"$BUILD_DIR/fuzz/$TARGET" "$WORK/queue" "$SEEDS" \
  -max_total_time="$SECONDS_TO_RUN" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$ART/" -print_final_stats=1 "${EXTRA[@]}" ${FUZZ_ARGS:-} >"$LOG" 2>&1 || status=$?
tail -n 25 "$LOG"
if ls "$ART"/crash-* "$ART"/leak-* "$ART"/timeout-* "$ART"/oom-* >/dev/null 2>&1; then
  echo "fuzz.sh: findings in $ART/:" >&2
  ls -l "$ART" >&2
  status=1
fi
exit "$status"
