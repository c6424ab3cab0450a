#!/usr/bin/env bash
# The test command: builds pte-run in three x86-64 configurations and runs the suite in each
#   1. release with XNNPACK, 2. release without XNNPACK, 3. debug with ASan + UBSan,
# runs the loader fuzzer for a bounded time (PTE_FUZZ_SECONDS, default 60), then
# cross-builds aarch64 and armhf (Debian's cross toolchains, cross/*.ini) and runs the
# doctest suite and the CLI tests under qemu-user, on emulated CPUs with and without the
# optional ARM features so that every dispatch branch runs:
#   4. aarch64 on a Cortex-A53 (NEON only: no dotprod, i8mm, fp16 arithmetic, SVE): the
#      whole suite but the damaged-file sweep of the loader (5 minutes under qemu; its
#      64-bit logic is the x86 build's, and armhf below runs it with a 32-bit size_t);
#   5. aarch64 on qemu's "max" CPU (dotprod, i8mm, fp16, bf16, SVE): the kernel tests
#      (ops/), whose dispatch depends on those features;
#   6. armhf on a Cortex-A7 (32-bit ARMv7 with NEON and VFPv4): the whole suite, the
#      damaged-file sweep on every third file (PTE_ROBUSTNESS_STRIDE=3): with a 32-bit size_t
#      is where byte counts wrap (it found the truncations behind an earlier heap corruption).
# The ASan + UBSan run (3) takes every second file of that sweep (PTE_ROBUSTNESS_STRIDE=2).
# After the two release builds: `meson install`, the C example built out of tree with
# pkg-config, a selective build (SmolLM2 8da4w's operators; the same selection given as
# .pte paths, configured only), the size report, and libpte-core alone (-Dllm_passes=false)
# with the C example (scripts/embed_test.sh); an aarch64 selective build adds its size line.
# With the fixtures venv present (.venv), the server is also driven by the openai client.
# Measured on a contended 2-core machine: ASan suite ~11 min, aarch64 A53 run ~6.5 min
# without the sweep, "max" kernel run ~15 s; each cold cross build 11-15 min.
# PTE_TEST_ARM=0 skips 4-6. Each stage prints its wall time. Compiles go through ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# ccache: hits across the configurations (and checkouts) need paths without the
# checkout's location in them
export CCACHE_BASEDIR="$(cd .. && pwd)" CCACHE_NOHASHDIR=1

stage_t0=$SECONDS
stage_done() {  # name
  echo "== time: $1 $((SECONDS - stage_t0)) s"
  stage_t0=$SECONDS
}

# Runs a built test binary (with an optional wrapper command), tallies its results.
run_suite() {  # dir, log, command...
  local dir="$1" log="$2"; shift 2
  if ! "$@" > "$log" 2>&1; then
    tail -n 40 "$log"
    # the failing test cases and their first failed checks, last (CI shows the end of the log)
    echo "== failed checks in $log:"
    awk '/^TEST CASE:/ { tc = $0; shown = 0 }
         /: (ERROR|FATAL ERROR):/ { if (!shown) { print tc; shown = 1 } print substr($0, 1, 300) }' "$log" | head -n 60
    echo "tests failed in $dir"
    exit 1
  fi
  grep -E "^\[doctest\] (test cases|assertions)" "$log"
  local p f
  p=$(sed -nE 's/^\[doctest\] test cases: *[0-9]+ \| *([0-9]+) passed.*/\1/p' "$log")
  f=$(sed -nE 's/^\[doctest\] test cases:.*\| *([0-9]+) failed.*/\1/p' "$log")
  total_passed=$((total_passed + ${p:-0})); total_failed=$((total_failed + ${f:-0}))
}

run_config() {  # name, meson options...
  local dir="build-test-$1"; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir" >/dev/null
  echo "== tests ($dir)"
  PTE_RUN="$PWD/$dir/bin/pte-run" run_suite "$dir" "$dir/test-log.txt" "$dir/tests/pte-tests"
}
total_passed=0; total_failed=0

# Cross build under qemu: name, triplet, debian arch
build_cross() {
  local dir="build-test-$1" tri="$2" arch="$3"
  bash scripts/arm_sysroot.sh "$arch" >/dev/null
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" --cross-file "cross/$tri.ini" -Dbuildtype=release -Dxnnpack=enabled >/dev/null
  fi
  ninja -C "$dir" tests/pte-tests bin/pte-run >/dev/null
}
# Runs the cross build's suite under qemu-user on one emulated CPU: name, triplet, cpu,
# doctest arguments... The CLI tests spawn $PTE_RUN: a wrapper that runs pte-run under
# the same qemu and CPU.
run_cross() {
  local dir="build-test-$1" tri="$2" cpu="$3"; shift 3
  # the features the emulated CPU has: ops/isa_test.cpp fails if detection misses one (the
  # variant tests would otherwise skip, visibly but unnoticed)
  local expect
  case "$cpu" in
    cortex-a53) expect="neon" ;;
    max) expect="neon dotprod i8mm" ;;
    cortex-a7) expect="neon" ;;
    *) expect="" ;;
  esac
  local wrap="$PWD/$dir/pte-run-qemu-$cpu"
  printf '#!/bin/sh\nQEMU_CPU=%s exec "%s" %s "%s" "$@"\n' "$cpu" "$PWD/scripts/qemu_run.sh" "$tri" "$PWD/$dir/bin/pte-run" > "$wrap"
  chmod +x "$wrap"
  echo "== tests ($dir, qemu -cpu $cpu${*:+, $*})"
  QEMU_CPU="$cpu" PTE_RUN="$wrap" PTE_EXPECT_ISA="$expect" run_suite "$dir" "$dir/test-log-$cpu.txt" \
    scripts/qemu_run.sh "$tri" "$dir/tests/pte-tests" "$@"
}

run_config release -Dbuildtype=release -Dxnnpack=enabled
stage_done release
run_config noxnnpack -Dbuildtype=release -Dxnnpack=disabled
stage_done noxnnpack
# install + the C example out of tree with pkg-config, the selective build, the size report,
# libpte-core alone with the C example
bash scripts/embed_test.sh build-test-release build-test-select build-test-core
stage_done embedding
# The sanitizer run (-O0) is ~50x slower than release: it takes every second file of the
# loader's damaged-file sweep (release runs them all; the fuzz stage adds random damage).
PTE_ROBUSTNESS_STRIDE=2 run_config asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dxnnpack=enabled \
  -Dcpp_args=-fno-sanitize=alignment -Dcpp_link_args=-fno-sanitize=alignment
stage_done asan

if [ -x .venv/bin/python ]; then
  PTE_RUN="$PWD/build-test-release/bin/pte-run" .venv/bin/python scripts/serve_openai_test.py
  stage_done "server with the openai client"
else
  echo "skipped: the server test with the openai client (no .venv; bash fixtures/setup_venv.sh)"
fi

if [ -f scripts/fuzz.sh ]; then
  bash scripts/fuzz.sh "${PTE_FUZZ_SECONDS:-60}"
  stage_done fuzz
fi

if [ "${PTE_TEST_ARM:-1}" != 0 ]; then
  build_cross aarch64 aarch64-linux-gnu arm64
  stage_done "aarch64 build"
  # the embedded build for SmolLM2-135M 8da4w (selective, -Dsmall=true), for its size
  # (scripts/size_report.sh) and its outputs against the full aarch64 build's under qemu
  if [ ! -f build-test-aarch64-select/build.ninja ]; then
    meson setup build-test-aarch64-select --cross-file cross/aarch64-linux-gnu.ini -Dbuildtype=release \
      -Dsmall=true -Dselect_ops=fixtures/select/smollm2_8da4w.txt -Dxnnpack=disabled -Dimage=disabled \
      -Dserver=disabled -Dtests=false -Dbench=false >/dev/null
  fi
  ninja -C build-test-aarch64-select bin/pte-run >/dev/null
  bash scripts/size_report.sh --arm aarch64-linux-gnu build-test-aarch64-select
  QEMU_CPU=cortex-a53 bash scripts/select_check.sh "scripts/qemu_run.sh aarch64-linux-gnu build-test-aarch64/bin/pte-run" \
    "scripts/qemu_run.sh aarch64-linux-gnu build-test-aarch64-select/bin/pte-run"
  stage_done "aarch64 selective build"
  run_cross aarch64 aarch64-linux-gnu cortex-a53 '-tce=loader robustness: truncated*'
  stage_done "aarch64 tests (cortex-a53)"
  run_cross aarch64 aarch64-linux-gnu max '-sf=*ops/*'
  stage_done "aarch64 kernel tests (max)"
  build_cross armhf arm-linux-gnueabihf armhf
  stage_done "armhf build"
  PTE_ROBUSTNESS_STRIDE=3 run_cross armhf arm-linux-gnueabihf cortex-a7
  stage_done "armhf tests (cortex-a7)"
fi

echo "all test configurations passed"
echo "tests: ${total_passed} passed, ${total_failed} failed"
