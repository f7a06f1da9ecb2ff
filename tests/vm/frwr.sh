# shellcheck shell=bash
# Guest test of fast registration (FRWR) for kernel ULPs: the kernel test
# module tests/kmod/mroce_frwr_test.ko runs its cases (page sizes other than
# PAGE_SIZE and an SG offset, REG_MR then LOCAL_INV then access, key
# rotation and stale keys, remote invalidation, another PD's key refused;
# kernel CQs of all four poll contexts; completion vectors: one per CPU,
# each CQ's completions handled on its vector's CPU)
# between two mroce devices on a veth pair in init_net, where kernel ULPs
# live; then the same module on two rdma_rxe devices, reported, not asserted
# (a comparison: what rxe does in the same cases). And, in the same
# topology, a one-device ping-pong on mA goes straight to its receive path
# (loop_direct) though the rules route the node's own address out of a
# wire.
#
#   scripts/vm/run-guest.sh -P -f tests/kmod/mroce_frwr_test.ko -t 300 tests/vm/frwr.sh
. /mnt/host/lib.sh
. /mnt/host/topo.sh
KO=/mnt/host/mroce_frwr_test.ko

t_ok "install mroce" mroce_install
t_ok "load mroce and rdma_rxe" bash -c '. /mnt/host/topo.sh; driver_load mroce && driver_load rxe'
topo_init || { echo "not ok - topology"; exit 1; }
t_ok "devices mA/mB (mroce), rA/rB (rxe) on vethA/vethB" bash -c \
	'rdma link add mA type mroce netdev vethA && rdma link add mB type mroce netdev vethB &&
	 rdma link add rA type rxe netdev vethA && rdma link add rB type rxe netdev vethB'
t_ok "ports ACTIVE, IPv4 GIDs" t_wait 10 bash -c \
	". /mnt/host/topo.sh; for d in mA rA; do gid_index \$d $C_IP; done && for d in mB rB; do gid_index \$d $S_IP; done"

# frwr DEV_A DEV_B: load the module on them; its log lines; "failed" in $FAILED
frwr() {
	local ga gb
	ga=$(gid_index "$1" "$C_IP") gb=$(gid_index "$2" "$S_IP")
	dmesg -c >/dev/null
	if ! timeout 120 insmod "$KO" dev_a="$1" dev_b="$2" gid_a="$ga" gid_b="$gb"; then
		FAILED=load
		return
	fi
	FAILED=$(cat /sys/module/mroce_frwr_test/parameters/failed)
	dmesg | sed -n 's/.*mroce_frwr_test: //p' > "/tmp/frwr-$1.log"
	rmmod mroce_frwr_test
}

before=$(res_counts mA)
frwr mA mB
sed 's/^/#   mroce: /' /tmp/frwr-mA.log
t_ok "the FRWR cases pass on mroce ($(tail -1 /tmp/frwr-mA.log))" test "$FAILED" = 0
# 65 FRWR checks, 2 of the vectors and 3 for each of the first 4 vectors
nchk=$((65 + 2 + 3 * ($(nproc) < 4 ? $(nproc) : 4)))
t_ok "all $nchk checks ran" test "$(grep -cE '^(not )?ok' /tmp/frwr-mA.log)" = $nchk
t_ok "the module left no objects on mA ($(res_counts mA))" test "$(res_counts mA)" = "$before"

# A one-device ping-pong here, where a rule routes the node's own address
# out of vethB: straight to mA's receive path (loop_direct), not out of the
# wire and back (IP sees fewer than a quarter of mA's received packets:
# the side channel's TCP alone)
PAIR_LOG=/tmp/pairs
mkdir -p "$PAIR_LOG"
loop_self() {
	local g rx0 ip0 rx ip hw=/sys/class/infiniband/mA/ports/1/hw_counters/rx_packets
	# shellcheck disable=SC2016
	ip_in() { awk '$1 == "Ip:" && $4 ~ /^[0-9]+$/ { print $4 }' /proc/net/snmp; }
	g=$(gid_index mA "$C_IP")
	ip0=$(ip_in) rx0=$(cat $hw)
	pair self 30 ibv_rc_pingpong -d mA -g "$g" -n 200 -- \
		ibv_rc_pingpong -d mA -g "$g" -n 200 "$C_IP" || return 1
	ip=$(($(ip_in) - ip0)) rx=$(($(cat $hw) - rx0))
	echo "mA rx_packets +$rx, IP InReceives +$ip" | tee /tmp/loop-self
	[ "$rx" -ge 400 ] && [ "$ip" -lt $((rx / 4)) ]
}
t_ok "mroce: one device to its own address goes straight to its receive path" loop_self
sed 's/^/#   /' /tmp/loop-self 2>/dev/null

frwr rA rB
sed 's/^/#   rxe: /' /tmp/frwr-rA.log
echo "# rdma_rxe, for comparison (not asserted): $(tail -1 /tmp/frwr-rA.log 2>/dev/null), failed=$FAILED"

t_done
