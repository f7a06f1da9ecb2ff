# shellcheck shell=bash
# Guest test of the extended QP (ibv_create_qp_ex, ibv_wr_*): mroce-wr-check
# between two mroce devices in two network namespaces (topo_netns), then
# the applications that use it (ibv_rc_pingpong -N) next to the same ones on
# the old API and perftest, to show nothing regressed. Also re-registration
# (in the checker's main run) and dma-buf MRs (--dmabuf, with the test
# exporter tests/kmod/mroce_dmabuf_exp.ko in the share).
#
#   scripts/vm/run-guest.sh -P -f tests/kmod/mroce_dmabuf_exp.ko -t 200 tests/vm/wr-check.sh
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/wr-check	# pair logs: scripts/vm/runs/NAME/share/out/wr-check/
. /mnt/host/topo.sh

t_ok "install mroce" mroce_install
t_ok "load modules" driver_load mroce
topo_netns mroce || { echo "not ok - topology"; exit 1; }
t_ok "both ports ACTIVE" t_wait 10 bash -c "grep -q ACTIVE /sys/class/infiniband/$C_DEV/ports/1/state && grep -q ACTIVE /sys/class/infiniband/$S_DEV/ports/1/state"
t_ok "IPv4 RoCE v2 GIDs" t_wait 10 bash -c ". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP"
CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")

# the checker opens both devices from init_net (rdma netns mode shared)
echo "# mroce-wr-check $C_DEV $CG $S_DEV $SG"
timeout $((120 * T_SCALE)) mroce-wr-check "$C_DEV" "$CG" "$S_DEV" "$SG" | tee "$PAIR_LOG/checker.out" /tmp/wr-check.out |
	grep -v '^ok - ' | sed 's/^/#   /'
grep -q '^[0-9]* passed, 0 failed$' /tmp/wr-check.out &&
	echo "ok - mroce-wr-check ($(tail -1 /tmp/wr-check.out))" && T_PASS=$((T_PASS + 1)) ||
	{ echo "not ok - mroce-wr-check"; T_FAIL=$((T_FAIL + 1)); }

# a READ/ATOMIC response that finds its local MR gone, and a READ whose
# responder loses the remote read right: the responder's packets are held
# back 300 ms, the MR or the right goes meanwhile
"${SX[@]}" tc qdisc add dev "$S_IF" root netem delay 300ms
echo "# mroce-wr-check --sink-gone (responder delayed 300 ms)"
timeout $((60 * T_SCALE)) mroce-wr-check --sink-gone "$C_DEV" "$CG" "$S_DEV" "$SG" | tee "$PAIR_LOG/sink-gone.out" /tmp/sink-gone.out |
	sed 's/^/#   /'
grep -q '^[0-9]* passed, 0 failed$' /tmp/sink-gone.out &&
	echo "ok - READ/ATOMIC into a deregistered MR: LOC_PROT_ERR; a READ whose right went: not SUCCESS ($(tail -1 /tmp/sink-gone.out))" && T_PASS=$((T_PASS + 1)) ||
	{ echo "not ok - READ/ATOMIC into a deregistered MR, READ whose right went"; T_FAIL=$((T_FAIL + 1)); }
"${SX[@]}" tc qdisc del dev "$S_IF" root

# ibv_reg_dmabuf_mr, with the test exporter's buffers (Debian's kernel has
# no udmabuf): the exporter counts attachments, pins and mappings, hands
# out read-only fds and exporters that cannot pin
t_ok "load the test dma-buf exporter" insmod /mnt/host/mroce_dmabuf_exp.ko
echo "# mroce-wr-check --dmabuf"
timeout $((60 * T_SCALE)) mroce-wr-check --dmabuf "$C_DEV" "$CG" "$S_DEV" "$SG" | tee "$PAIR_LOG/dmabuf.out" /tmp/dmabuf.out |
	sed 's/^/#   /'
grep -q '^[0-9]* passed, 0 failed$' /tmp/dmabuf.out &&
	echo "ok - dma-buf MRs: WRITE, READ, SEND into them; pinned while registered; bad ranges, fds, fd modes and unpinnable exporters refused ($(tail -1 /tmp/dmabuf.out))" && T_PASS=$((T_PASS + 1)) ||
	{ echo "not ok - dma-buf MRs"; T_FAIL=$((T_FAIL + 1)); }
t_ok "unload the exporter (every buffer released)" rmmod mroce_dmabuf_exp

# rdma res show qp -dd: the driver's view of an RC QP (restrack.c)
mroce-wr-check --idle-recv $((4 * T_SCALE)) "$C_DEV" "$CG" "$S_DEV" "$SG" > /tmp/idle.out 2>&1 &
IDLE=$!
t_wait 10 grep -q '^idle-recv: qpn' /tmp/idle.out
RES=$(rdma res show qp link "$S_DEV/1" -dd 2>&1 | tr '\n' ' ')
echo "# rdma res show qp link $S_DEV/1 -dd: $(echo "$RES" | cut -c1-400)"
t_ok "rdma res -dd: an RC QP shows its peer, connection id and state, paths and stream" \
	bash -c "echo '$RES' | grep -q 'drv_peer $C_IP ' && echo '$RES' | grep -Eq 'drv_cid 0x[0-9a-f]+ drv_remote_cid 0x[0-9a-f]+' &&
		echo '$RES' | grep -q 'drv_conn established' && echo '$RES' | grep -Eq 'drv_paths [1-9][0-9]* drv_paths_good [1-9]' &&
		echo '$RES' | grep -q 'drv_stream_state active'"
# an unprivileged user sees the QP, not its connection's secrets (ids,
# streams, message numbers: what a forged RESET or request needs)
RES=$(mroce-asuser 65534 rdma res show qp link "$S_DEV/1" -dd 2>&1 | tr '\n' ' ')
echo "# as uid 65534: rdma res show qp link $S_DEV/1 -dd: $(echo "$RES" | cut -c1-400)"
t_ok "rdma res -dd as uid 65534: the peer and state, no connection ids, streams or msns" \
	bash -c "echo '$RES' | grep -q 'drv_peer $C_IP ' && echo '$RES' | grep -q 'drv_stream_state active' &&
		! echo '$RES' | grep -Eq 'drv_(cid|remote_cid|stream|remote_stream|msn_next|msn_done) '"
# the same for its CQs and MRs (the checker's user rings and buffers)
RES=$(rdma res show cq dev "$S_DEV" -dd 2>&1 | tr '\n' ' ')
echo "# rdma res show cq dev $S_DEV -dd: $(echo "$RES" | cut -c1-300)"
t_ok "rdma res -dd: a CQ shows its ring's size and fill, arming, overflow" \
	bash -c "echo '$RES' | grep -Eq 'drv_entries [1-9][0-9]* drv_waiting [0-9]+ drv_armed (no|next|solicited) drv_overflow no drv_ring user drv_notify_shared [0-9]+'"
RES=$(rdma res show mr dev "$S_DEV" -dd 2>&1 | tr '\n' ' ')
echo "# rdma res show mr dev $S_DEV -dd: $(echo "$RES" | cut -c1-300)"
t_ok "rdma res -dd: an MR shows its kind, iova, rights and pinned pages" \
	bash -c "echo '$RES' | grep -Eq 'drv_type user drv_iova 0x[0-9a-f]+ drv_access lw[a-z,]* drv_pages [1-9][0-9]*'"
wait "$IDLE"

C=(-d "$C_DEV") S=(-d "$S_DEV")
t_ok "ibv_rc_pingpong (old API)" pair rc 30 ibv_rc_pingpong "${S[@]}" -g "$SG" -n 200 -c -- \
	ibv_rc_pingpong "${C[@]}" -g "$CG" -n 200 -c "$S_IP"
t_ok "ibv_rc_pingpong -N (new post send API)" pair rc-N 30 ibv_rc_pingpong "${S[@]}" -g "$SG" -n 200 -c -N -- \
	ibv_rc_pingpong "${C[@]}" -g "$CG" -n 200 -c -N "$S_IP"
t_ok "ibv_rc_pingpong 16 B (old API, inline)" pair rc-inl 30 ibv_rc_pingpong "${S[@]}" -g "$SG" -n 200 -s 16 -c -- \
	ibv_rc_pingpong "${C[@]}" -g "$CG" -n 200 -s 16 -c "$S_IP"
t_ok "ibv_rc_pingpong -N 16 B (inline)" pair rc-N-inl 30 ibv_rc_pingpong "${S[@]}" -g "$SG" -n 200 -s 16 -c -N -- \
	ibv_rc_pingpong "${C[@]}" -g "$CG" -n 200 -s 16 -c -N "$S_IP"
t_ok "ibv_ud_pingpong (no new-API option in 44)" pair ud 30 ibv_ud_pingpong "${S[@]}" -g "$SG" -n 200 -s 512 -c -- \
	ibv_ud_pingpong "${C[@]}" -g "$CG" -n 200 -s 512 -c "$S_IP"
t_ok "ibv_srq_pingpong" pair srq 30 ibv_srq_pingpong "${S[@]}" -g "$SG" -q 4 -n 100 -c -- \
	ibv_srq_pingpong "${C[@]}" -g "$CG" -q 4 -n 100 -c "$S_IP"
PS=("${S[@]}" -x "$SG" -F) PC=("${C[@]}" -x "$CG" -F)
t_ok "ib_send_bw 64 KiB" pair send_bw 60 ib_send_bw "${PS[@]}" -s 65536 -n 300 -- ib_send_bw "${PC[@]}" -s 65536 -n 300 "$S_IP"
t_ok "ib_write_bw 64 KiB" pair write_bw 60 ib_write_bw "${PS[@]}" -s 65536 -n 300 -- ib_write_bw "${PC[@]}" -s 65536 -n 300 "$S_IP"
t_ok "ib_send_lat 2 B (inline)" pair send_lat 60 ib_send_lat "${PS[@]}" -s 2 -n 300 -- ib_send_lat "${PC[@]}" -s 2 -n 300 "$S_IP"
t_ok "ib_atomic_bw" pair atomic_bw 60 ib_atomic_bw "${PS[@]}" -n 500 -- ib_atomic_bw "${PC[@]}" -n 500 "$S_IP"
for f in rc rc-N rc-inl rc-N-inl ud; do grep -h "iters in" "$PAIR_LOG/$f.cli" 2>/dev/null | sed "s/^/# $f: /"; done
t_done
