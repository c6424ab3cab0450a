#!/usr/bin/env bash
# The test command: builds pte-run in three configurations and runs the suite in each
#   1. release with XNNPACK, 2. release without XNNPACK, 3. debug with ASan + UBSan,
# then runs the loader fuzzer for a bounded time (PTE_FUZZ_SECONDS, default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

run_config() {  # name, meson options...
  local dir="build-test-$1"; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir" >/dev/null
  echo "== tests ($dir)"
  local log="$dir/test-log.txt"
  if ! PTE_RUN="$PWD/$dir/bin/pte-run" "$dir/tests/pte-tests" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "tests failed in $dir"
    exit 1
  fi
  grep -E "^\[doctest\] (test cases|assertions)" "$log"
  local p f
  p=$(sed -nE 's/^\[doctest\] test cases: *[0-9]+ \| *([0-9]+) passed.*/\1/p' "$log")
  f=$(sed -nE 's/^\[doctest\] test cases:.*\| *([0-9]+) failed.*/\1/p' "$log")
  total_passed=$((total_passed + ${p:-0})); total_failed=$((total_failed + ${f:-0}))
}
total_passed=0; total_failed=0

run_config release -Dbuildtype=release -Dxnnpack=enabled
run_config noxnnpack -Dbuildtype=release -Dxnnpack=disabled
run_config asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dxnnpack=enabled \
  -Dcpp_args=-fno-sanitize=alignment -Dcpp_link_args=-fno-sanitize=alignment

if [ -f scripts/fuzz.sh ]; then
  bash scripts/fuzz.sh "${PTE_FUZZ_SECONDS:-60}"
fi
echo "all test configurations passed"
echo "tests: ${total_passed} passed, ${total_failed} failed"
