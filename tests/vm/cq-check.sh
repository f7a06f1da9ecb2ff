# shellcheck shell=bash
# Guest test of ibv_resize_cq and the extended CQ (ibv_create_cq_ex):
# mroce-cq-check on one device (a UD QP sending to itself), then the
# device's resources (rdma res) must be back to what they were.
# (Against rdma_rxe the resize checks pass too; its extended CQ accepts
# comp_mask bits it ignores, does not check start_poll's comp_mask, and
# an end_poll after a start_poll that found nothing moves its consumer
# index past the producer's, so the cq_ex checks fail there.)
#
#   scripts/vm/run-guest.sh -P -t 300 tests/vm/cq-check.sh
. /mnt/host/lib.sh
. /mnt/host/topo.sh

t_ok "install mroce" mroce_install
t_ok "load modules" driver_load mroce
topo_netns mroce || { echo "not ok - topology"; exit 1; }
t_ok "port ACTIVE" t_wait 10 port_active "$C_DEV"
t_ok "IPv4 RoCE v2 GID" t_wait 10 gid_index "$C_DEV" "$C_IP"
CG=$(gid_index "$C_DEV" "$C_IP")

BEFORE=$(res_counts "$C_DEV")	# the kernel's own GSI QP, its CQ and PD
echo "# mroce-cq-check $C_DEV $CG; rdma res before: $BEFORE"
# (line by line: busybox's grep has no --line-buffered)
timeout 200 mroce-cq-check "$C_DEV" "$CG" | tee /tmp/cq-check.out |
	while IFS= read -r l; do case $l in "ok - "*) ;; *) echo "#   $l";; esac; done
grep -q '^[0-9]* passed, 0 failed$' /tmp/cq-check.out &&
	echo "ok - mroce-cq-check ($(tail -1 /tmp/cq-check.out))" && T_PASS=$((T_PASS + 1)) ||
	{ echo "not ok - mroce-cq-check"; T_FAIL=$((T_FAIL + 1)); }
AFTER=$(res_counts "$C_DEV")
echo "# rdma res after: $AFTER"
t_ok "rdma res: back to what it was (nothing left by the checks)" test "$AFTER" = "$BEFORE"

# rdma link delete while a process has the device open: the core
# disassociates the context (ib_device_ops.disassociate_ucontext) and the
# delete returns; without that op it waits for the process to close
"${CX[@]}" ibv_rc_pingpong -d "$C_DEV" -g "$CG" -p 18555 > /tmp/holder.out 2>&1 &
HOLDER=$!
t_wait 10 bash -c "ls -l /proc/$HOLDER/fd 2>/dev/null | grep -q uverbs"
t_ok "rdma link delete with a process holding the device: returns (disassociate)" \
	timeout 20 "${CX[@]}" rdma link delete "$C_DEV"
t_ok "the device is gone" bash -c "! ${CX[*]} rdma link show | grep -q ' $C_DEV/'"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null
t_done
