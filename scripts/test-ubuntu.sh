#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's test command (scripts/test.sh) on Ubuntu 24.04 from any
# Debian or Ubuntu host: a minimal Ubuntu 24.04 chroot made with
# debootstrap, a clean clone of this checkout's HEAD inside it, and the
# test command run there as on a fresh machine (it installs what it needs).
# Ubuntu 24.04 brings GStreamer 1.24, GLib 2.80, PoCL 5.0 and GCC 13, where
# Debian 12 has 1.22, 2.74, 3.1 and 12.
#
# Needs root (debootstrap, chroot, mounts) and the Ubuntu archive. When it
# cannot make the chroot it says why and exits 77 (skipped); a failing test
# fails it. UBUNTU_ROOT=DIR builds the chroot there and keeps it (a second
# run then skips the bootstrap); by default it lives in /tmp and goes.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=noble
mirror=${UBUNTU_MIRROR:-https://archive.ubuntu.com/ubuntu}
skip() {
  echo "test-ubuntu: skipped: $*" >&2
  exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot and mounts)"
if ! command -v debootstrap >/dev/null; then
  { apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap \
      ca-certificates >/dev/null; } || skip "could not install debootstrap"
fi

root=${UBUNTU_ROOT:-$(mktemp -d /tmp/clfilters-ubuntu.XXXXXX)}
mkdir -p "$root"
cleanup() {
  for m in dev sys proc; do
    umount -R -l "$root/$m" 2>/dev/null || true
  done
  if [ -z "${UBUNTU_ROOT:-}" ]; then
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

if [ ! -x "$root/usr/bin/apt-get" ]; then
  # Debian 12's debootstrap has no script named for 24.04; every Ubuntu
  # release since 7.10 uses gutsy's. The host has no Ubuntu keyring, so the
  # bootstrap trusts the archive's TLS certificate instead; apt inside the
  # chroot checks signatures with the keyring the bootstrap installs.
  script=/usr/share/debootstrap/scripts/$suite
  [ -e "$script" ] || script=/usr/share/debootstrap/scripts/gutsy
  debootstrap --variant=minbase --no-check-gpg "$suite" "$root" "$mirror" \
    "$script" >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log" >&2; rm -f "$root.debootstrap.log";
      skip "debootstrap of Ubuntu $suite failed (see above)"; }
  rm -f "$root.debootstrap.log"
fi
# a default Ubuntu install's components (pocl-opencl-icd is in universe)
cat >"$root/etc/apt/sources.list" <<EOF
deb http://archive.ubuntu.com/ubuntu $suite main restricted universe multiverse
deb http://archive.ubuntu.com/ubuntu $suite-updates main restricted universe multiverse
deb http://security.ubuntu.com/ubuntu $suite-security main restricted universe multiverse
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" || skip "cannot mount /proc in the chroot"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"

rm -rf "$root/root/clfilters"
git clone -q "$PWD" "$root/root/clfilters"
echo "test-ubuntu: $(. "$root/etc/os-release" && echo "$PRETTY_NAME"), HEAD $(git rev-parse --short HEAD)"
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /root/clfilters && scripts/test.sh' </dev/null
echo "test-ubuntu: the test command passed on Ubuntu $suite"
