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
# qemu-user 7.2 keeps a page descriptor for every guest page ever mapped, even never
# touched: the loader tests' damaged plans map (MAP_NORESERVE, never written) arenas of up
# to a TiB, which natively cost nothing but grew qemu to 7 GB. A bounded guest address
# space makes such mappings fail as they would on a small board (the loader then refuses
# the plan cleanly). 32-bit guests are bounded by their 4 GiB anyway.
if [ "$tri" = aarch64-linux-gnu ]; then export QEMU_RESERVED_VA="${QEMU_RESERVED_VA:-16G}"; fi
exec "$qemu" -L "/usr/$tri" -E "LD_LIBRARY_PATH=/usr/$tri/lib:$root/.sysroot/$tri/usr/lib/$tri:$root/.sysroot/$tri/lib/$tri" "$@"
