#!/usr/bin/env bash
# Makes the sysroot the ARM cross builds link against: the Debian -dev packages of
# cpuinfo, pthreadpool, XNNPACK, libpng and libjpeg-turbo (and their runtime libraries) for arm64 or armhf,
# fetched with `apt-get download` and unpacked with `dpkg -x` into .sysroot/<triplet>/
# (git-ignored). `apt-get install libcpuinfo-dev:arm64` does not work on an amd64
# host: libpthreadpool-dev is not Multi-Arch: same, and libcpuinfo-dev:arm64 collides
# with the amd64 package. Headers-only dependencies (flatbuffers, doctest) come from the
# host's /usr/include, which Debian's cross compilers also search.
#
#   scripts/arm_sysroot.sh arm64|armhf
#
# Needs `dpkg --add-architecture arm64/armhf` and `apt-get update` once (install_deps.sh
# does both when it installs the cross toolchains).
set -euo pipefail
arch="${1:?usage: arm_sysroot.sh arm64|armhf}"
case "$arch" in
  arm64) triplet=aarch64-linux-gnu ;;
  armhf) triplet=arm-linux-gnueabihf ;;
  *) echo "arm_sysroot.sh: unknown architecture $arch" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.sysroot/$triplet"
pkgs=(libcpuinfo-dev libcpuinfo0 libpthreadpool-dev libpthreadpool0 libxnnpack-dev libxnnpack0
      libpng-dev libpng16-16 zlib1g libjpeg62-turbo-dev libjpeg62-turbo)
stamp="$dest/.done"
want="$(for p in "${pkgs[@]}"; do apt-cache policy "$p:$arch" | sed -n 's/^ *Candidate: //p'; done | tr '\n' ' ')"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
rm -rf "$dest"
mkdir -p "$dest/debs"
# (readable by apt's sandbox user, or apt warns that it downloads as root)
chmod 777 "$dest/debs"
if ! ( cd "$dest/debs" && apt-get download -q "${pkgs[@]/%/:$arch}" > download.log 2>&1 ); then
  cat "$dest/debs/download.log" >&2
  exit 1
fi
for d in "$dest"/debs/*.deb; do
  dpkg -x "$d" "$dest"
done
rm -rf "$dest/debs"
echo "$want" > "$stamp"
echo "sysroot: $dest"
