#!/bin/bash
# NVMe over RDMA IOPS on mroce under module parameter sets, one boot:
# tests/vm/nvme.sh's iops phase once per set (the module reloaded with the
# set in /etc/modprobe.d between runs), rdma_rxe first and last as the
# yardstick. A figure, not a timed test.
#
#   scripts/vm/run-guest.sh -s -P -f tests/vm/nvme.sh -t 1800 -n nvme-params \
#       bench/guest/nvme-params.sh -- "SET" ["SET"...]
#   SET: module parameters, e.g. "npaths=1 small_msg=0" ("" = defaults)
. /mnt/host/lib.sh

iops() {	# iops DRIVER: the iops phase's figure
	bash /mnt/host/nvme.sh driver="$1" phases=iops removal=0 > /tmp/np.log 2>&1
	sed -n 's/^# iops ([a-z]*): .*IOPS=\([^,]*\),.*/\1/p' /tmp/np.log | head -1
}
echo "# rxe: $(iops rxe) IOPS"
for set in "$@"; do
	lsmod | grep -q '^mroce ' && rmmod mroce
	mkdir -p /etc/modprobe.d
	echo "options mroce $set" > /etc/modprobe.d/mroce.conf
	v=$(iops mroce)
	echo "# mroce [${set:-defaults}]: ${v:-?} IOPS"
	t_ok "mroce [${set:-defaults}] gave a figure" test -n "$v"
done
rm -f /etc/modprobe.d/mroce.conf
echo "# rxe: $(iops rxe) IOPS"
t_done
