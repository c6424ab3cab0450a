#!/usr/bin/env bash
# The embedding checks of the test command (scripts/test.sh), on a finished release build:
#   1. `meson install` into a staging folder, then the C example (examples/c/) builds out of
#      tree against it with `pkg-config --cflags --libs pte-run` and runs a committed fixture;
#   2. a selective build (-Dselect_ops=fixtures/select/smollm2_8da4w.txt: SmolLM2-135M
#      8da4w's operators and XNNPACK nodes) of the core, tokenizer, runners and CLI: programs
#      inside the selection give the same bytes as the full build, programs outside it are
#      refused naming what is missing; the selection given as .pte paths configures the
#      same kernel table;
#   3. the size report (scripts/size_report.sh);
#   4. with CORE_BUILD_DIR: libpte-core alone (no util, tokenizer, LLM library or CLI, and
#      -Dllm_passes=false), installed, and the C example run_program built against it.
#   scripts/embed_test.sh RELEASE_BUILD_DIR SELECT_BUILD_DIR [CORE_BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
full="${1:?usage: embed_test.sh RELEASE_BUILD_DIR SELECT_BUILD_DIR}"
sel="${2:?usage: embed_test.sh RELEASE_BUILD_DIR SELECT_BUILD_DIR}"
core="${3:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "embed_test: $*" >&2; exit 1; }

# ---- 1. install, pkg-config, the C example out of tree
meson install -C "$full" --destdir "$work/stage" >/dev/null
pc=$(find "$work/stage" -name pte-run.pc | head -n 1)
[ -n "$pc" ] || fail "meson install wrote no pte-run.pc"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$work/stage"
for h in pte/program.h pte/status.h; do
  [ -f "$(pkg-config --variable=includedir pte-run)/$h" ] || fail "installed headers lack $h"
done
for l in libpte-core.a libpte-core.so libpte-llm.a libpte-tokenizer.so; do
  [ -e "$libdir/$l" ] || fail "meson install wrote no $l"
done
compgen -G "examples/c/*.c" >/dev/null || fail "no examples/c/*.c to build out of tree"

for src in examples/c/*.c; do
  exe="$work/$(basename "$src" .c)"
  # the shared libraries (C, so only the C API: libpte-core links libstdc++ itself)
  cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags pte-run) "$src" -o "$exe" $(pkg-config --libs pte-run)
  # and statically: the same libraries' .a files, with what pkg-config --static adds
  cc -std=c99 $(pkg-config --cflags pte-run) "$src" -o "$exe-static" \
    -Wl,-Bstatic $(pkg-config --libs-only-l pte-run) -Wl,-Bdynamic \
    $(pkg-config --static --libs-only-other --libs-only-L pte-run) \
    $(pkg-config --static --libs-only-l pte-run | tr ' ' '\n' | grep -v '^-lpte-' | tr '\n' ' ')
done
echo "embed: examples/c built out of tree with pkg-config (shared and static)"
LD_LIBRARY_PATH="$libdir" bash examples/c/check.sh "$work"

# ---- 2. the selective build
list=fixtures/select/smollm2_8da4w.txt
if [ ! -f "$sel/build.ninja" ]; then
  meson setup "$sel" -Dbuildtype=release -Dselect_ops="$list" -Dxnnpack=disabled -Dimage=disabled \
    -Dserver=disabled -Dtests=false -Dbench=false >/dev/null
fi
ninja -C "$sel" bin/pte-run >/dev/null
bash scripts/select_check.sh "$full/bin/pte-run" "$sel/bin/pte-run"
# the same selection given as .pte paths: meson lists them with a built pte-run at configure
# time (configured, not built: the tables must equal what --ops-list prints)
ptes="fixtures/data/llama_custom_sdpa/model.pte,fixtures/data/qlinear_8da4w_xnnpack/model.pte"
meson setup "$work/sel-pte" -Dselect_ops="$ptes" -Dselect_ops_tool="$PWD/$full/bin/pte-run" -Dxnnpack=disabled \
  -Dimage=disabled -Dserver=disabled -Dtests=false -Dbench=false >/dev/null
want=$("$full/bin/pte-run" info --ops-list ${ptes//,/ } | grep -v '^#' | grep -v Backend | sort)
got=$(sed -nE 's/^PTE_KERNEL\("([^"]+)".*/\1/p' "$work/sel-pte/ops/selected_ops.def" | sort)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "-Dselect_ops=.pte paths: kernel table [$got], --ops-list [$want]"
if meson setup "$work/sel-pte-bad" -Dselect_ops="$ptes" -Dselect_ops_tool=/nonexistent/pte-run -Dtests=false \
  >"$work/bad.log" 2>&1; then
  fail "-Dselect_ops=.pte paths without a pte-run configured"
fi
grep -q 'select_ops_tool' "$work/bad.log" || fail "-Dselect_ops=.pte paths without a pte-run: no hint in $(tail -n 3 "$work/bad.log")"
echo "embed: -Dselect_ops as .pte paths gives the kernel table --ops-list names ($(wc -l <<<"$got") kernels)"

# ---- 3. sizes
bash scripts/size_report.sh "$full" "$sel"

# ---- 4. the core library alone
if [ -n "$core" ]; then
  if [ ! -f "$core/build.ninja" ]; then
    meson setup "$core" -Dbuildtype=release -Dxnnpack=enabled -Dllm_passes=false -Dllm=false -Dtokenizer=false \
      -Dutils=false -Dcli=false -Dtests=false -Dbench=false -Dimage=disabled -Dserver=disabled >/dev/null
  fi
  ninja -C "$core" >/dev/null
  meson install -C "$core" --destdir "$work/core-stage" >/dev/null
  pc=$(find "$work/core-stage" -name pte-run.pc | head -n 1)
  [ -n "$pc" ] || fail "the core-only install wrote no pte-run.pc"
  clib=$(dirname "$(dirname "$pc")")
  for l in libpte-llm.a libpte-util.a libpte-tokenizer.a; do
    [ ! -e "$clib/$l" ] || fail "the core-only install has $l"
  done
  mkdir -p "$work/core"
  export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$work/core-stage"
  cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags pte-run) examples/c/run_program.c -o "$work/core/run_program" \
    $(pkg-config --libs pte-run)
  cc -std=c99 $(pkg-config --cflags pte-run) examples/c/run_program.c -o "$work/core/run_program-static" \
    -Wl,-Bstatic $(pkg-config --libs-only-l pte-run) -Wl,-Bdynamic \
    $(pkg-config --static --libs-only-other --libs-only-L pte-run) \
    $(pkg-config --static --libs-only-l pte-run | tr ' ' '\n' | grep -v '^-lpte-' | tr '\n' ' ')
  LD_LIBRARY_PATH="$clib" bash examples/c/check.sh "$work/core" >/dev/null
  echo "embed: libpte-core alone (-Dllm_passes=false, no other library): run_program built against it and ran (shared and static)"
fi
