# shellcheck shell=bash
# Guest test of the offload boundary (include/mroce/offload.h,
# Documentation/offload.rst): the registration contract, a device's choice
# of datapath and its lifetime, and traffic between a device on the
# software NIC (mroce_swnic) and one on mroce's software datapath, then
# with both on the software NIC. Both veth ends in init_net (topo_init),
# devices mA on vethA, mB on vethB.
#
#   scripts/vm/run-guest.sh -P -f tests/kmod/mroce_ofl_test.ko -t 600 tests/vm/offload.sh
#
# (The whole datapath suite through the software NIC is datapath.sh
# drivers=swnic; the fabric test through it is fabric.sh datapath=swnic.)
. /mnt/host/lib.sh
. /mnt/host/topo.sh
KO=/mnt/host/mroce_ofl_test.ko
SYS=/sys/class/infiniband

datapath_is() { [ "$(cat "$SYS/$1/datapath")" = "$2" ]; }
sw() { sed -n "s/^$1 //p" /sys/kernel/debug/mroce_swnic/"${2:-mA}"; }
hw() { cat "$SYS/$1/ports/1/hw_counters/$2"; }
param() { cat "/sys/module/mroce_ofl_test/parameters/$1"; }

# ofl_test ARGS...: load the contract module; its lines; failures in $FAILED
ofl_test() {
	dmesg -c >/dev/null
	if ! insmod "$KO" "$@"; then FAILED=load; return; fi
	FAILED=$(param failed)
	dmesg | sed -n 's/.*mroce_ofl_test: //p' > /tmp/ofl.log
	sed 's/^/#   /' /tmp/ofl.log
}

# traffic TAG: verbs, perftest, RDMA-CM and the verifying transfer, mA -> mB
traffic() {
	local t=$1 CG SG CG6 SG6
	CG=$(gid_index mA "$C_IP") SG=$(gid_index mB "$S_IP")
	CG6=$(gid_index mA "$C_IP6") SG6=$(gid_index mB "$S_IP6")
	t_ok "$t: ibv_rc_pingpong 4 KiB, validated" pair "rc-$t" 30 \
		ibv_rc_pingpong -d mB -g "$SG" -n 200 -c -- ibv_rc_pingpong -d mA -g "$CG" -n 200 -c "$S_IP"
	t_ok "$t: ibv_rc_pingpong over IPv6 GIDs" pair "rc6-$t" 30 \
		ibv_rc_pingpong -d mB -g "$SG6" -n 100 -c -- ibv_rc_pingpong -d mA -g "$CG6" -n 100 -c "$S_IP"
	t_ok "$t: ibv_ud_pingpong" pair "ud-$t" 30 \
		ibv_ud_pingpong -d mB -g "$SG" -n 100 -s 512 -c -- ibv_ud_pingpong -d mA -g "$CG" -n 100 -s 512 -c "$S_IP"
	t_ok "$t: ib_write_bw 64 KiB" pair "wbw-$t" 60 ib_write_bw -d mB -x "$SG" -F -s 65536 -n 200 -- \
		ib_write_bw -d mA -x "$CG" -F -s 65536 -n 200 "$S_IP"
	t_ok "$t: ib_read_lat 2 B" pair "rlat-$t" 60 ib_read_lat -d mB -x "$SG" -F -s 2 -n 300 -- \
		ib_read_lat -d mA -x "$CG" -F -s 2 -n 300 "$S_IP"
	t_ok "$t: ib_atomic_bw" pair "abw-$t" 60 ib_atomic_bw -d mB -x "$SG" -F -n 500 -- \
		ib_atomic_bw -d mA -x "$CG" -F -n 500 "$S_IP"
	t_ok "$t: rping -V (RDMA-CM)" pair "rping-$t" 60 ready=cm rping -s -a "$S_IP" -V -C 50 -S 1024 -- \
		rping -c -a "$S_IP" -V -C 50 -S 1024
	t_ok "$t: mroce-xfer lossless" pair "xfer-$t" 180 ready=tcp:18600 mroce-xfer -d mB -g "$SG" -- \
		mroce-xfer -d mA -g "$CG" -n 150 "$S_IP"
	t_ok "$t: netem loss 1% delay 50us reorder 25% on both ends" netem_on loss 1% delay 50us reorder 25% 50%
	t_ok "$t: mroce-xfer under netem: 0 bytes corrupted" pair "xfer-netem-$t" 300 ready=tcp:18600 \
		mroce-xfer -d mB -g "$SG" -- mroce-xfer -d mA -g "$CG" -n 100 -T 200 "$S_IP"
	echo "# netem: $(netem_drops)"
	netem_off
	counters mA mB
}

t_ok "install mroce and mroce_swnic" mroce_install
t_ok "load mroce" driver_load mroce
topo_init && t_ok "init_net veth pair with policy routing ($C_IF $C_IP, $S_IF $S_IP)" test -n "$S_IP"

# ---- the registration contract, nothing else registered ----
ofl_test
t_ok "registration contract: every case passes ($(tail -1 /tmp/ofl.log))" test "$FAILED" = 0
t_ok "all 27 cases ran" test "$(grep -cE '^(not )?ok' /tmp/ofl.log)" = 27
t_ok "rmmod the contract module" rmmod mroce_ofl_test

# ---- claim and attach ----
ofl_test hold=1 fail_netdev=vethB
t_ok "an offload that claims nothing is registered ($FAILED failed)" test "$FAILED" = 0
t_ok "rdma link add mA: the offload says no, so the software datapath" bash -c \
	'rdma link add mA type mroce netdev vethA && [ "$(cat /sys/class/infiniband/mA/datapath)" = software ]'
t_ok "claim() was asked once" test "$(param claims)" = 1
t_fail "rdma link add mB: the offload claims vethB, its attach fails, so does the link" \
	rdma link add mB type mroce netdev vethB
t_ok "attach() was tried once and no mB exists" bash -c \
	"[ \"\$(cat /sys/module/mroce_ofl_test/parameters/attaches)\" = 1 ] && [ ! -e $SYS/mB ]"
t_ok "the offload is not pinned: rmmod while mA exists" rmmod mroce_ofl_test
t_ok "rdma link delete mA" rdma link delete mA

# ---- object commands (MROCE_OFL_OBJECTS): each verb tells the offload ----
ofl_test hold=1 obj_netdev=vethB
t_ok "an offload that takes object commands is registered ($FAILED failed)" test "$FAILED" = 0
t_ok "rdma link add mB: its datapath is that offload" bash -c \
	'rdma link add mB type mroce netdev vethB && [ "$(cat /sys/class/infiniband/mB/datapath)" = mroce_ofl_test ]'
c0=$(param created) d0=$(param destroyed)
t_ok "the offload's counters, by query, in mroce's debugfs: $(tr '\n' ' ' < /sys/kernel/debug/mroce/mB/ofl_counters)" \
	test "$(cat /sys/kernel/debug/mroce/mB/ofl_counters)" = "$(printf 'created %s\ndestroyed %s' "$c0" "$d0")"
t_ok "the device's own objects (the MAD layer's) were told at registration (created $c0, destroyed $d0)" \
	bash -c "[ $c0 -ge 3 ] && [ $d0 = 0 ] && [ $(cat $SYS/mB/ofl_cmds) -ge $c0 ]"
# the server makes its PD, MR, CQ and QP, then waits for a client: killed
timeout 5 ibv_rc_pingpong -d mB -g 0 >/tmp/pp.log 2>&1
t_ok "a verbs program's PD, MR, CQ and QP: each created and destroyed (created $c0 -> $(param created))" \
	t_wait 10 bash -c "c=\$(cat /sys/module/mroce_ofl_test/parameters/created) d=\$(cat /sys/module/mroce_ofl_test/parameters/destroyed); [ \$c -ge $((c0 + 4)) ] && [ \$d = \$((c - $c0)) ]"
echo 3 > /sys/module/mroce_ofl_test/parameters/refuse_op	# MR_CREATE
e0=$(cat $SYS/mB/ofl_cmd_errors)
timeout 5 ibv_rc_pingpong -d mB -g 0 >/tmp/pp.log 2>&1
sed 's/^/#   /' /tmp/pp.log
t_ok "the offload refuses MR_CREATE: ibv_reg_mr fails (ofl_cmd_errors $e0 -> $(cat $SYS/mB/ofl_cmd_errors))" \
	bash -c "grep -q \"Couldn't register MR\" /tmp/pp.log && [ $(param refused) = 1 ] && [ $(cat $SYS/mB/ofl_cmd_errors) = $((e0 + 1)) ]"
echo 0 > /sys/module/mroce_ofl_test/parameters/refuse_op
# events up: the offload fails a QP, then the whole device
evwait() {	# evwait LOG: the program's QP number once it is in INIT
	t_wait 10 grep -q '^qpn ' "$1" && sed -n 's/^qpn //p' "$1"
}
evcount() {	# evcount LOG QPN: "QP-events device-events" it printed
	echo "$(grep -c "^event .* qpn $2\$" "$1") $(grep '^event ' "$1" | grep -vc ' qpn ')"
}
# (the QP is on an SRQ: once in ERR and flushed, its Last WQE Reached too)
mroce-asyncev -d mB -n 2 -t 20 > /tmp/ev1.log 2>&1 & ev=$!
q=$(evwait /tmp/ev1.log)
echo "qp $q" > /sys/module/mroce_ofl_test/parameters/raise
wait $ev; rc=$?
sed 's/^/#   /' /tmp/ev1.log
t_ok "the offload's QP_FATAL for QP $q: mroce_ofl_event() $(param raised), its owner gets IBV_EVENT_QP_FATAL, then IBV_EVENT_QP_LAST_WQE_REACHED (rc $rc)" \
	test "$rc" = 0 -a "$(param raised)" = 0 -a "$(evcount /tmp/ev1.log "$q")" = "2 0" -a \
	"$(sed -n 2,3p /tmp/ev1.log | cut -d' ' -f2- | tr '\n' /)" = "local work queue catastrophic error qpn $q/last WQE reached qpn $q/"
echo "qp 999999" > /sys/module/mroce_ofl_test/parameters/raise
t_ok "QP_FATAL for a QP the device does not have: -ENOENT ($(param raised))" test "$(param raised)" = -2
raise() {	# raise EVENT: mroce_ofl_event()'s answer
	echo "$1" > /sys/module/mroce_ofl_test/parameters/raise && param raised
}
# the CQ's completion interrupt, its error and the SRQ's limit: each taken
# once while armed (or not yet reported), -EALREADY (-114) the second time;
# then the QP's fatal and its Last WQE Reached, the program's last events,
# so that it exits (and its CQ and SRQ go) only after all six
mroce-asyncev -d mB -n 5 -t $((20 * T_SCALE)) > /tmp/ev3.log 2>&1 & ev=$!
q=$(evwait /tmp/ev3.log)
cq=$(param last_cq) srq=$(param last_srq)
r="$(raise "cqcomp $cq") $(raise "cqcomp $cq") $(raise "cqerr $cq") $(raise "cqerr $cq")"
r="$r $(raise "srqlimit $srq") $(raise "srqlimit $srq")"
raise "qp $q" > /dev/null
wait $ev; rc=$?
sed 's/^/#   /' /tmp/ev3.log
t_ok "CQ_COMP, CQ_ERR for CQ $cq and SRQ_LIMIT for SRQ $srq, twice each: answers $r" \
	test "$r" = "0 -114 0 -114 0 -114"
t_ok "the owner hears each once: a completion on its channel, IBV_EVENT_CQ_ERR, IBV_EVENT_SRQ_LIMIT_REACHED (rc $rc)" \
	test "$rc" = 0 -a "$(grep -c '^comp$' /tmp/ev3.log) $(grep -c '^event CQ error$' /tmp/ev3.log) $(grep -c '^event SRQ limit reached$' /tmp/ev3.log) $(grep -c "^event .* qpn $q\$" /tmp/ev3.log)" = "1 1 1 2"
gone() {	# the CQ's and SRQ's answers once the program's objects are gone
	[ "$(raise "cqerr $cq") $(raise "srqlimit $srq")" = "-2 -2" ]
}
t_ok "after the program's exit its CQ and SRQ are unknown to events: -ENOENT" t_wait 10 gone
t_ok "an event of an unknown type: -EINVAL" test "$(raise "type 99")" = -22
# an arm the NIC answers at once with its completion interrupt: mroce
# holds the arm before the doorbell tells the NIC (else the event is lost)
echo 1 > /sys/module/mroce_ofl_test/parameters/comp_on_arm
mroce-asyncev -d mB -n 1 -t $((10 * T_SCALE)) > /tmp/ev4.log 2>&1; rc=$?
echo 0 > /sys/module/mroce_ofl_test/parameters/comp_on_arm
sed 's/^/#   /' /tmp/ev4.log
t_ok "CQ_COMP raised from within the CQ arm's doorbell: taken ($(param comp_on_arm_answer)), the owner's channel wakes (rc $rc)" \
	test "$rc" = 0 -a "$(param comp_on_arm_answer)" = 0 -a "$(grep -c '^comp$' /tmp/ev4.log)" = 1
mroce-asyncev -d mB -n 3 -t 20 > /tmp/ev2.log 2>&1 & ev=$!
q=$(evwait /tmp/ev2.log)
echo device > /sys/module/mroce_ofl_test/parameters/raise
wait $ev; rc=$?
sed 's/^/#   /' /tmp/ev2.log
t_ok "DEVICE_FATAL: the QP's owner gets QP $q's fatal and Last WQE Reached, and the device's fatal (rc $rc, events $(evcount /tmp/ev2.log "$q"))" \
	test "$rc" = 0 -a "$(param raised)" = 0 -a "$(evcount /tmp/ev2.log "$q")" = "2 1"
t_ok "ofl_events counts the seven taken ($(cat $SYS/mB/ofl_events))" test "$(cat $SYS/mB/ofl_events)" = 7
t_ok "rdma link delete mB: every object told of is destroyed (created $(param created))" bash -c \
	"rdma link delete mB && [ \$(cat /sys/module/mroce_ofl_test/parameters/destroyed) = \$(cat /sys/module/mroce_ofl_test/parameters/created) ]"
t_ok "rmmod the contract module" rmmod mroce_ofl_test

# ---- mixed: mA on the software NIC, mB on the software datapath ----
DBGA=/sys/kernel/debug/mroce_swnic/mA
t_ok "modprobe mroce_swnic netdevs=vethA" modprobe mroce_swnic netdevs=vethA
ofl_test busy=1
t_ok "contract with mroce_swnic registered: a second offload gets -EBUSY ($FAILED failed)" test "$FAILED" = 0
rmmod mroce_ofl_test 2>/dev/null
t_ok "rdma link add mA (vethA), mB (vethB)" bash -c \
	'rdma link add mA type mroce netdev vethA && rdma link add mB type mroce netdev vethB'
t_ok "mA runs on mroce_swnic, mB on software (sysfs datapath)" bash -c \
	'[ "$(cat /sys/class/infiniband/mA/datapath)" = mroce_swnic ] && [ "$(cat /sys/class/infiniband/mB/datapath)" = software ]'
t_ok "mA's NIC gave mroce a DMA device (its bus addresses are physical + 2^40): every page list is mapped for it" bash -c \
	'[ -d /sys/devices/mroce_swnic ] && dmesg | grep -q "mA on vethA: packets level with object tables and a DMA device"'
t_ok "ports ACTIVE, GIDs" t_wait 10 bash -c \
	". /mnt/host/topo.sh; gid_index mA $C_IP && gid_index mB $S_IP && gid_index mA $C_IP6 && gid_index mB $S_IP6"
traffic mixed
t_ok "mixed: mA's packets crossed the software NIC both ways (rx_offload $(hw mA rx_offload), tx_offload $(hw mA tx_offload))" \
	bash -c "[ $(hw mA rx_offload) -gt 500 ] && [ $(hw mA tx_offload) -gt 500 ]"
t_ok "mixed: every packet mA received came through the NIC (rx_packets $(hw mA rx_packets) = rx_offload)" \
	test "$(hw mA rx_packets)" = "$(hw mA rx_offload)"
t_ok "mixed: mB's did not (rx_offload $(hw mB rx_offload), tx_offload $(hw mB tx_offload))" \
	bash -c "[ $(hw mB rx_offload) = 0 ] && [ $(hw mB tx_offload) = 0 ]"
sed "s/^/# swnic: /" /sys/kernel/debug/mroce_swnic/mA
t_ok "mixed: the NIC framed and checked every frame (no tx_errors, rx_bad_*)" bash -c \
	"grep -E '^(tx_frames|rx_frames) [1-9]' /sys/kernel/debug/mroce_swnic/mA | wc -l | grep -qx 2 &&
	 ! grep -E '^(rx_bad_header|rx_bad_csum|tx_errors) [1-9]' /sys/kernel/debug/mroce_swnic/mA"
t_ok "mixed: mA's verbs told the NIC of every object (ofl_cmds $(cat $SYS/mA/ofl_cmds), none refused)" \
	bash -c "[ $(cat $SYS/mA/ofl_cmds) -gt 20 ] && [ $(cat $SYS/mA/ofl_cmd_errors) = 0 ] && [ $(sw shadow_cmd_refused) = 0 ]"
t_ok "mixed: mB, on software, issues no command (ofl_cmds $(cat $SYS/mB/ofl_cmds))" test "$(cat $SYS/mB/ofl_cmds)" = 0
t_ok "mixed: every DATA/UD packet the NIC carried, every doorbell and every send WQE it fetched names objects it was told of (tx $(sw shadow_tx_checked), rx $(sw shadow_rx_checked), doorbells $(sw shadow_db), WQEs $(sw shadow_wqe_checked), $(sw shadow_wqe_raced) raced)" \
	bash -c "[ $(sw shadow_tx_checked) -gt 500 ] && [ $(sw shadow_rx_checked) -gt 500 ] && [ $(sw shadow_db) -gt 100 ] && [ $(sw shadow_wqe_checked) -gt 100 ] && swnic_no_holes mA"
t_ok "mixed: mroce shows the NIC's counters by query, the ones its debugfs has (tx_frames $(sed -n 's/^tx_frames //p' /sys/kernel/debug/mroce/mA/ofl_counters))" \
	bash -c "[ \"\$(cut -d' ' -f1 /sys/kernel/debug/mroce/mA/ofl_counters)\" = \"\$(grep -E '^(tx|rx|shadow)_' $DBGA | cut -d' ' -f1)\" ] &&
		 grep -qE '^tx_frames [1-9]' /sys/kernel/debug/mroce/mA/ofl_counters && [ ! -e /sys/kernel/debug/mroce/mB/ofl_counters ]"
t_fail "rmmod mroce_swnic is refused while mA uses it" rmmod mroce_swnic

# ---- the NIC's receive checks: frames with a bad UDP header (raw socket,
# from vethB's address to mA's) ----
badframe() {	# badframe KIND STAT: 20 frames of KIND; STAT +20, mroce saw none
	local s0 r0
	s0=$(sw "$2") r0=$(hw mA rx_packets)
	mroce-badframe -s "$S_IP" -d "$C_IP" -n 20 "$1" || return 1
	t_wait 5 bash -c "[ \$(sed -n 's/^$2 //p' /sys/kernel/debug/mroce_swnic/mA) -ge $((s0 + 20)) ]"
	echo "$2 $s0 -> $(sw "$2"), rx_packets $r0 -> $(hw mA rx_packets)"
	[ "$(sw "$2")" = $((s0 + 20)) ] && [ "$(hw mA rx_packets)" = "$r0" ]
}
t_ok "20 frames with a wrong UDP checksum: rx_bad_csum +20, none reach mroce" badframe csum rx_bad_csum
t_ok "20 with a UDP length past the datagram: rx_bad_header +20, none reach mroce" badframe ulen-long rx_bad_header
t_ok "20 with a UDP length under 8: rx_bad_header +20, none reach mroce" badframe ulen-short rx_bad_header
control() {	# 20 right frames (garbage inside): they reach mroce, which drops them
	local r0
	r0=$(hw mA rx_packets)
	mroce-badframe -s "$S_IP" -d "$C_IP" -n 20 good &&
		t_wait 5 bash -c "[ \$(cat $SYS/mA/ports/1/hw_counters/rx_packets) -ge $((r0 + 20)) ]"
}
t_ok "control: 20 with a right header (garbage inside) reach mroce, which drops them" control

# ---- both on the software NIC (netdevs changed through sysfs) ----
t_ok "netdevs=vethA,vethB through /sys/module/mroce_swnic/parameters" bash -c \
	'echo vethA,vethB > /sys/module/mroce_swnic/parameters/netdevs'
t_ok "mA stays on mroce_swnic: a device keeps its datapath" datapath_is mA mroce_swnic
t_ok "rdma link delete mB; add it again: now on mroce_swnic" bash -c \
	'rdma link delete mB && rdma link add mB type mroce netdev vethB && [ "$(cat /sys/class/infiniband/mB/datapath)" = mroce_swnic ]'
t_ok "ports ACTIVE, GIDs" t_wait 10 bash -c \
	". /mnt/host/topo.sh; gid_index mB $S_IP && gid_index mB $S_IP6"
traffic both
t_ok "both: mB's packets crossed the software NIC (rx_offload $(hw mB rx_offload), tx_offload $(hw mB tx_offload))" \
	bash -c "[ $(hw mB rx_offload) -gt 500 ] && [ $(hw mB tx_offload) -gt 500 ]"
t_ok "both: mB's objects told, its traffic checked, no hole (rx $(sw shadow_rx_checked mB) checked, READ responses $(sw shadow_read_checked mB) compared with the MR's pages)" \
	bash -c "[ $(cat $SYS/mB/ofl_cmds) -gt 20 ] && [ $(sw shadow_rx_checked mB) -gt 500 ] && [ $(sw shadow_read_checked mB) -gt 100 ] && swnic_no_holes mA && swnic_no_holes mB"
t_ok "both: no frame failed the NIC's checks but the 60 bad ones sent to mA" bash -c \
	"! grep -E '^(rx_bad_header|rx_bad_csum|tx_errors) [1-9]' /sys/kernel/debug/mroce_swnic/mB &&
	 [ $(sw rx_bad_header) = 40 ] && [ $(sw rx_bad_csum) = 20 ] && [ $(sw tx_errors) = 0 ]"

# ---- planes: the NIC follows them (plane_add, plane_del) ----
DBG=/sys/kernel/debug/mroce_swnic/mA
ip link add vethP type veth peer name vethQ && ip link set vethP up && ip link set vethQ up
ip link add br0 type bridge && ip link set vethP master br0
t_fail "a plane the NIC cannot take (vethP is a bridge port): the sysfs write fails" \
	sh -c "echo add vethP > $SYS/mA/planes"
t_ok "... and mA has no such plane" bash -c "! grep -w vethP $SYS/mA/planes"
t_ok "plane 1 on vethQ: added, and the NIC receives on it" bash -c \
	"echo add vethQ > $SYS/mA/planes && grep -x 'rx plane 1 vethQ' $DBG"
t_ok "plane 1 removed: the NIC lets go of vethQ" bash -c \
	"echo del vethQ > $SYS/mA/planes && ! grep -q vethQ $DBG"
t_ok "plane 1 again, then its netdev deleted: the plane and the NIC's hold go" bash -c \
	"echo add vethQ > $SYS/mA/planes && ip link del vethQ && ! grep -q vethQ $DBG && ! grep -q vethQ $SYS/mA/planes"
ip link del br0

# ---- a netdev going away under an attached device ----
t_ok "deleting the veth pair under both devices: they go (the NIC lets go of its netdevs)" bash -c \
	"ip link del vethA && for i in \$(seq 100); do [ -e $SYS/mA ] || [ -e $SYS/mB ] || exit 0; sleep 0.1; done; exit 1"
t_ok "rmmod mroce_swnic once no device uses it" rmmod mroce_swnic
topo_init_del
topo_init && t_ok "init_net veth pair again" test -n "$S_IP"
t_ok "without the offload, a new device is on software" bash -c \
	'rdma link add mA type mroce netdev vethA && [ "$(cat /sys/class/infiniband/mA/datapath)" = software ] && rdma link delete mA'
t_ok "rmmod mroce" rmmod mroce
topo_init_del
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
t_done
