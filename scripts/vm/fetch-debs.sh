#!/bin/bash
# Download (apt-get download, not install) the guest kernel image and the
# guest userspace .debs into scripts/vm/cache, and unpack them into
# scripts/vm/stage. The host's installed packages are not touched. Cached
# .debs are reused; the newest cached version of each package is unpacked.
#
#   scripts/vm/fetch-debs.sh [--help]
#   env: RIG_PYTHON=1  also python3 + python3-pyverbs (the pyverbs image)
#        RIG_STORAGE=1 also fio, nvme-cli, the NFS tools (the storage image)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
[ -n "$KVER" ] || { echo "KVER unknown: run scripts/setup.sh first" >&2; exit 1; }
pkgs="linux-image-$KVER $GUEST_PKGS"
[ "${RIG_PYTHON:-0}" = 1 ] && pkgs="$pkgs $PY_PKGS"
[ "${RIG_STORAGE:-0}" = 1 ] && pkgs="$pkgs $STORAGE_PKGS"
# shellcheck disable=SC2086
pkgs=$(printf '%s\n' $pkgs | awk '!seen[$0]++')   # the lists overlap

mkdir -p "$CACHE"
t=$(now)
need=""
for p in $pkgs; do
  ls "$CACHE/${p}"_*.deb >/dev/null 2>&1 || need="$need $p"
done
# shellcheck disable=SC2086
[ -z "$need" ] || (cd "$CACHE" && apt_download $need)
for p in $pkgs; do
  ls "$CACHE/${p}"_*.deb >/dev/null 2>&1 || { echo "missing .deb for $p" >&2; exit 1; }
done
tlog fetch-debs "$(elapsed "$t")" "$(du -sh "$CACHE" | cut -f1) cache, fetched:${need:- nothing}"

# unpack only when the package set or a .deb changed
stamp=$STAGE/.stamp
want=$(for p in $pkgs; do ls -v "$CACHE/${p}"_*.deb | tail -1; done)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  tlog unpack-debs 0 "stage up to date"
  exit 0
fi
t=$(now)
rm -rf "$STAGE"; mkdir -p "$STAGE"
for d in $want; do dpkg-deb -x "$d" "$STAGE"; done
echo "$want" > "$stamp"
tlog unpack-debs "$(elapsed "$t")" "$(du -sh "$STAGE" | cut -f1) unpacked"
