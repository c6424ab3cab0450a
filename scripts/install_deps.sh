#!/usr/bin/env bash
# Installs the Debian packages pte-run builds and tests with (only when missing).
set -euo pipefail
pkgs=(meson ninja-build pkg-config g++ flatbuffers-compiler libflatbuffers-dev libxnnpack-dev
      libcpuinfo-dev libpthreadpool-dev doctest-dev clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
