#!/bin/bash
# On the host: boot the storage image (run-guest.sh -s) with one of the
# storage ULP tests, as their --boot does (nvme.sh, nfs.sh).
#
#   tests/vm/boot-storage.sh SCRIPT DEFAULT_GUEST_T [ARGS...]
#
# driver=rxe among ARGS shares lib.sh and topo.sh alone, any other driver
# the whole project (-P: needs mroce.ko built). env: GUEST_T (guest time
# limit), RUN_NAME (default: the script's name and the driver).
script=$1 t=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
drv=mroce
for a in "$@"; do case $a in driver=*) drv=${a#*=};; esac; done
share=(-P)
[ "$drv" = mroce ] || share=(-f "$root/tests/vm/lib.sh" -f "$root/tests/vm/topo.sh")
exec "$root/scripts/vm/run-guest.sh" -s "${share[@]}" -t "${GUEST_T:-$t}" \
	-n "${RUN_NAME:-$(basename "$script" .sh)-$drv}" "$script" -- "$@"
