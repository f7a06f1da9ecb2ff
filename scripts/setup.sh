#!/bin/bash
# Install everything mroce needs on a Debian bookworm host, from Debian's
# packages only (apt-get, using the machine's own apt configuration).
# Root, non-interactive, idempotent; when everything is installed it only
# checks (no apt-get at all).
#
#   scripts/setup.sh [--help]
#
#   env: SETUP_EXTRA="pkg ..."  more packages
#        KVER=...               guest kernel ABI (default: scripts/kver.sh)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/vm/config.sh" 2>/dev/null || true
export DEBIAN_FRONTEND=noninteractive
APT="apt-get -o DPkg::Lock::Timeout=900 -y -q"
t0=$(now)

[ "$(id -u)" -eq 0 ] || { echo "setup.sh: needs root (apt-get install)" >&2; exit 1; }

lists_empty() { ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; }
apt_update() { echo "setup: apt-get update" >&2; $APT update >/dev/null; }

# the guest kernel version needs package lists
lists_empty && apt_update
KVER=${KVER:-$("$ROOT/scripts/kver.sh")}
[ -n "$KVER" ] || { apt_update; KVER=$("$ROOT/scripts/kver.sh"); }
[ -n "$KVER" ] || { echo "setup: cannot tell the guest kernel version (linux-image-amd64)" >&2; exit 1; }

PKGS="gcc make pkg-config clang libclang-rt-14-dev linux-headers-$KVER
  qemu-system-x86 cpio kmod zstd xz-utils binutils
  libibverbs-dev librdmacm-dev ibverbs-utils rdma-core
  sparse valgrind gnuplot-nox python3-matplotlib
  flex bison bc libelf-dev libssl-dev python3 tshark groff-base man-db
  dpkg-dev debhelper dh-dkms dkms lintian openssl fakeroot ${SETUP_EXTRA:-}"

missing=""
for p in $PKGS; do
  s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$s" = installed ] || missing="$missing $p"
done

if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  # a failure here is usually stale lists (a version gone from the mirror)
  # shellcheck disable=SC2086
  if ! $APT install --no-install-recommends $missing >/dev/null; then
    apt_update
    # shellcheck disable=SC2086
    $APT install --no-install-recommends $missing >/dev/null
  fi
fi
tlog setup "$(elapsed "$t0")" "KVER=$KVER installed:${missing:- nothing new}"
