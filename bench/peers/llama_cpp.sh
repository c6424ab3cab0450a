#!/usr/bin/env bash
# Builds the llama.cpp peer of the benchmark from the llama.cpp source vendored in the
# PyPI sdist of llama-cpp-python (nothing of llama.cpp enters this repository), then
# makes the Q8_0 and F32 GGUFs of SmolLM2-135M from its Q4_1 GGUF.
#
#   bash bench/peers/llama_cpp.sh            # idempotent: skips what exists
#
# Environment:
#   PEERS_DIR    where the sdist, the build and nothing else go (default models/peers,
#                git-ignored)
#   SMOLLM2_DIR  the SmolLM2 folder (default models/smollm2): reads gguf/*Q4_1.gguf
#   GGUF_OUT     where the requantised GGUFs go (default PEERS_DIR/gguf):
#                SmolLM2-135M-Instruct.{Q8_0,F32,F16}.gguf
#   VENV         the Python environment whose pip downloads the sdist (default .venv)
#   JOBS         parallel compile jobs (default 2)
# Prints the three binaries' folder and the llama.cpp version at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

PKG_VERSION=0.3.36
PEERS_DIR=${PEERS_DIR:-$ROOT/models/peers}
SMOLLM2_DIR=${SMOLLM2_DIR:-$ROOT/models/smollm2}
VENV=${VENV:-$ROOT/.venv}
JOBS=${JOBS:-2}
GGUF_OUT=${GGUF_OUT:-$PEERS_DIR/gguf}

SDIST=$PEERS_DIR/llama_cpp_python-$PKG_VERSION.tar.gz
SRC=$PEERS_DIR/llama_cpp_python-$PKG_VERSION/vendor/llama.cpp
BUILD=$PEERS_DIR/llama.cpp-build
BIN=$BUILD/bin
TOOLS=(llama-bench llama-quantize llama-completion)

mkdir -p "$PEERS_DIR"
if [[ ! -f $SDIST ]]; then
  echo "llama_cpp.sh: downloading llama-cpp-python==$PKG_VERSION (sdist)"
  "$VENV/bin/pip" download --no-binary :all: --no-deps "llama-cpp-python==$PKG_VERSION" -d "$PEERS_DIR"
fi
if [[ ! -f $SRC/CMakeLists.txt ]]; then
  tar xzf "$SDIST" -C "$PEERS_DIR"
fi
# the vendored commit, from the sdist's changelog ("update llama.cpp to ggml-org/llama.cpp@<sha>")
COMMIT=$(sed -n "/^## \[$PKG_VERSION\]/,/^## \[/p" "$PEERS_DIR/llama_cpp_python-$PKG_VERSION/CHANGELOG.md" |
  grep -o 'llama.cpp@[0-9a-f]*' | head -1 | cut -d@ -f2)
COMMIT=${COMMIT:-unknown}

built=1
for t in "${TOOLS[@]}"; do [[ -x $BIN/$t ]] || built=0; done
if [[ $built == 0 ]]; then
  echo "llama_cpp.sh: building ${TOOLS[*]} (llama.cpp $COMMIT, Release, native CPU, no GPU, no network)"
  nice cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=ON -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_OPENCL=OFF \
    -DGGML_RPC=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_TOOLS_INSTALL=OFF \
    -DLLAMA_BUILD_COMMIT="$COMMIT" -DLLAMA_BUILD_NUMBER=0 >"$PEERS_DIR/cmake-configure.log"
  nice cmake --build "$BUILD" --config Release -j "$JOBS" --target "${TOOLS[@]}"
fi

GGUF_DIR=$SMOLLM2_DIR/gguf
Q4=$(ls "$GGUF_DIR"/*Q4_1.gguf 2>/dev/null | head -1 || true)
if [[ -z $Q4 ]]; then
  echo "llama_cpp.sh: no Q4_1 GGUF in $GGUF_DIR: skipping the requantisations" >&2
else
  mkdir -p "$GGUF_OUT"
  base=$GGUF_OUT/$(basename "${Q4%.Q4_1.gguf}")
  for type in Q8_0 F32 F16; do
    out=$base.$type.gguf
    [[ -s $out ]] && continue
    echo "llama_cpp.sh: $type from $(basename "$Q4") (llama-quantize --allow-requantize)"
    nice "$BIN/llama-quantize" --allow-requantize "$Q4" "$out.tmp" "$type" >"$PEERS_DIR/quantize-$type.log" 2>&1 ||
      { echo "llama_cpp.sh: llama-quantize $type failed, see $PEERS_DIR/quantize-$type.log" >&2; rm -f "$out.tmp"; exit 1; }
    mv "$out.tmp" "$out"
  done
fi
echo "llama_cpp.sh: llama.cpp $COMMIT (vendored by llama-cpp-python $PKG_VERSION) in $BIN"
