#!/usr/bin/env bash
# Runs an ARM binary of a cross build under qemu-user (the cross files' exe_wrapper).
#   scripts/qemu_run.sh TRIPLET PROGRAM [ARGS...]
# TRIPLET is aarch64-linux-gnu or arm-linux-gnueabihf. QEMU_CPU picks the emulated CPU
# (e.g. cortex-a53: NEON only; max: dotprod, i8mm, fp16, bf16, SVE). The guest loader and
# libc are Debian's cross ones (/usr/TRIPLET); the guest's LD_LIBRARY_PATH names them and the
# sysroot scripts/arm_sysroot.sh made, so the guest never loads a second libc.
set -euo pipefail
tri="${1:?usage: qemu_run.sh TRIPLET PROGRAM [ARGS...]}"; shift
case "$tri" in
  aarch64-linux-gnu) qemu=qemu-aarch64 ;;
  arm-linux-gnueabihf) qemu=qemu-arm ;;
  *) echo "qemu_run.sh: unknown triplet $tri" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
unset LD_LIBRARY_PATH
exec "$qemu" -L "/usr/$tri" -E "LD_LIBRARY_PATH=/usr/$tri/lib:$root/.sysroot/$tri/usr/lib/$tri" "$@"
