#!/usr/bin/env bash
# Sets everything up and runs the main job:
#   1. installs the Debian packages (only those missing),
#   2. builds pte-run (release, with XNNPACK) into build/,
#   3. runs the committed tiny LLaMA fixture end to end: `info`, then `run` with its
#      first recorded inputs (text generation with a real model comes with issue 4).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
if [ ! -f build/build.ninja ]; then meson setup build -Dbuildtype=release >/dev/null; fi
ninja -C build >/dev/null
echo "built: build/bin/pte-run"
model=fixtures/data/tiny_llama/model.pte
if [ -f "$model" ]; then
  ./build/bin/pte-run info "$model"
  inputs=()
  for f in fixtures/data/tiny_llama/input_0_*.npy; do inputs+=(--input "$f"); done
  ./build/bin/pte-run run "$model" "${inputs[@]}"
fi
