#!/usr/bin/env bash
# Installs the Debian packages pte-run builds and tests with (only when missing): the
# native toolchain and libraries, ccache, and for the ARM cross builds the cross
# toolchains and qemu-user. The ARM libraries themselves are unpacked by
# scripts/arm_sysroot.sh (apt-get download of the :arm64 / :armhf packages, which needs
# those architectures in dpkg's list: added here).
set -euo pipefail
pkgs=(meson ninja-build pkg-config g++ flatbuffers-compiler libflatbuffers-dev libxnnpack-dev
      libcpuinfo-dev libpthreadpool-dev libpng-dev libjpeg62-turbo-dev doctest-dev clang libclang-rt-14-dev ccache
      crossbuild-essential-arm64 crossbuild-essential-armhf qemu-user
      libcpp-httplib-dev)  # pte-run serve (left out of the build without it)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
update=0
for a in arm64 armhf; do
  if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
    $SUDO dpkg --add-architecture "$a"
    update=1
  fi
done
if [ ${#missing[@]} -gt 0 ] || [ $update = 1 ]; then
  [ ${#missing[@]} -gt 0 ] && echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
