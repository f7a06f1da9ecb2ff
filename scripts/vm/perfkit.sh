#!/bin/bash
# Bundle the host's perf (Debian's linux-perf, which matches the guest
# kernel's 6.1) with the libraries it links for the guest, which has no
# perf of its own: DIR/perfkit/perf and DIR/perfkit/lib/. The guest runs
# it as LD_LIBRARY_PATH=/mnt/host/perfkit/lib /mnt/host/perfkit/perf.
#
#   scripts/vm/perfkit.sh DIR      (installs linux-perf when it is missing)
set -euo pipefail
case "${1:-}" in -h|--help|"") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
if ! command -v perf > /dev/null || ! perf --version > /dev/null 2>&1; then
	$APT_GET update > /dev/null
	DEBIAN_FRONTEND=noninteractive $APT_GET install -y linux-perf > /dev/null
fi
P=$(command -v perf)
# Debian's /usr/bin/perf is the binary itself in bookworm (a wrapper that
# runs perf_VERSION in older releases): take what it runs
[ -x "/usr/bin/perf_6.1" ] && P=/usr/bin/perf_6.1
K=$1/perfkit
rm -rf "$K"; mkdir -p "$K/lib"
cp "$P" "$K/perf"
ldd "$P" | awk '$3 ~ /^\// {print $3}' | while read -r l; do cp -L "$l" "$K/lib/"; done
echo "$K: $("$K/perf" --version), $(ls "$K/lib" | wc -l) libraries, $(du -sh "$K" | cut -f1)"
