#!/bin/bash
# The main demo: build, boot the guest, create two mroce devices on a veth
# pair whose ends sit in two network namespaces, and show what rdma-core
# sees: rdma link, ibv_devices, ibv_devinfo -v, the counters. (A verbs
# workload between the two devices joins when the datapath exists.)
#
#   scripts/demo.sh [--help]
#   Needs root; runs scripts/setup.sh, make and the rig build first if needed.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
scripts/setup.sh
make module provider tools >/dev/null
[ -f scripts/vm/build/initramfs.cpio ] || { scripts/vm/fetch-debs.sh && scripts/vm/build-initramfs.sh; }
exec scripts/vm/run-guest.sh -P -q -t 300 -n demo tests/vm/demo.sh
