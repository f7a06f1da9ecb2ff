# shellcheck shell=bash
# Guest test of issue 2 (foundation): module load and autoload, device
# create/delete, port state and async events following the netdev, GIDs
# following addresses, verbs through our provider, counters, the UDP port
# (default and udp_port=), two devices in two network namespaces, removal
# with the netdev or its namespace, rmmod with devices present. The rig
# fails the run on any kernel warning.
#
#   scripts/vm/run-guest.sh -P tests/vm/foundation.sh
#
# Topology (198.18.0.0/15 is the RFC 2544 benchmarking range):
#
#   init_net:  vethA 198.18.0.1 <--veth--> vethB 198.18.0.2
#              mroce0 on vethA, zz9 on vethB (any name: no name matching)
#   nsA / nsB: vA 198.18.1.1 (nsA) <--veth--> vB 198.18.1.2 (nsB)
#              mA on vA in nsA, mB on vB in nsB
. /mnt/host/lib.sh

port_state() {	# port_state IBDEV: ACTIVE / DOWN from sysfs
	sed 's/^[0-9]*: *//' "/sys/class/infiniband/$1/ports/1/state"
}
state_is() { [ "$(port_state "$1")" = "$2" ]; }
has_gid() {	# has_gid IBDEV GID-as-in-sysfs
	grep -qx "$2" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}
no_gid() { ! has_gid "$@"; }
dev_exists() { [ -e "/sys/class/infiniband/$1" ]; }
dev_gone() { ! dev_exists "$1"; }
udp_bound() {	# udp_bound PORT [NETNS]: v4 and v6 sockets on PORT
	local out
	out=$(if [ -n "${2:-}" ]; then ip netns exec "$2" ss -Hnlu; else ss -Hnlu; fi)
	grep -q "0.0.0.0:$1 " <<<"$out" && grep -qE "(\[::\]|\*):$1 " <<<"$out"
}
udp_unbound() { ! (if [ -n "${2:-}" ]; then ip netns exec "$2" ss -Hnlu; else ss -Hnlu; fi) | grep -q ":$1 "; }
counter() {	# counter IBDEV NAME
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
mroce_loaded() { grep -q '^mroce ' /proc/modules; }
mroce_unloaded() { ! mroce_loaded; }

echo "# kernel $(uname -r), $(nproc) cpus"
t_ok "install module and provider" mroce_install
for m in ib_uverbs rdma_ucm veth dummy; do modprobe "$m"; done

# --- load, create, UDP port -------------------------------------------------
t_ok "modprobe mroce" modprobe mroce
t_ok "module listed" mroce_loaded
ip link add vethA type veth peer name vethB
ip link set vethA up
ip link set vethB up
t_ok "rdma link add mroce0 on vethA" rdma link add mroce0 type mroce netdev vethA
t_ok "rdma link shows mroce0 on vethA" bash -c 'rdma link show mroce0/1 | grep -q "netdev vethA"'
t_ok "driver sysfs attribute mroce_abi = 1" grep -qx 1 /sys/class/infiniband/mroce0/mroce_abi
t_ok "UDP 4796 bound (IPv4 + IPv6)" udp_bound 4796
t_fail "second mroce device on the same netdev refused" rdma link add again type mroce netdev vethA
t_ok "second device on vethB, any name (zz9)" rdma link add zz9 type mroce netdev vethB
t_ok "node_guid is EUI-64 of vethA's MAC" bash -c '
	mac=$(cat /sys/class/net/vethA/address); g=$(cat /sys/class/infiniband/mroce0/node_guid)
	IFS=: read -r a b c d e f <<<"$mac"
	want=$(printf "%02x%s:%s%s:%s%s:%s%s" $((0x$a ^ 2)) $b $c ff fe $d $e $f)
	echo "$g vs $want"; [ "$g" = "$want" ]'

# --- port state and events --------------------------------------------------
ibv_asyncwatch -d mroce0 > /tmp/events.txt 2>&1 &
watch_pid=$!
sleep 1
t_ok "port ACTIVE with netdev up + carrier" state_is mroce0 ACTIVE
ip link set vethA down
t_ok "netdev down -> port DOWN" t_wait 5 state_is mroce0 DOWN
ip link set vethA up
t_ok "netdev up -> port ACTIVE" t_wait 5 state_is mroce0 ACTIVE
ip link set vethB down
t_ok "peer down (carrier off) -> port DOWN" t_wait 5 state_is mroce0 DOWN
ip link set vethB up
t_ok "peer up (carrier on) -> port ACTIVE" t_wait 5 state_is mroce0 ACTIVE
t_ok "rdma link reports state" bash -c 'rdma link show mroce0/1 | grep -q "state ACTIVE physical_state LINK_UP"'
sleep 0.5
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
t_ok "async events: PORT_ERR then PORT_ACTIVE" bash -c '
	cat /tmp/events.txt; grep -q "IBV_EVENT_PORT_ERR" /tmp/events.txt &&
	grep -q "IBV_EVENT_PORT_ACTIVE" /tmp/events.txt'
t_ok "link_downed counter = 2" bash -c '[ "$(cat /sys/class/infiniband/mroce0/ports/1/hw_counters/link_downed)" = 2 ]'
# a QP on an SRQ that its owner moves to ERR: Last WQE Reached, once (the
# tool waits 3 s for a second event that must not come)
t_ok "QP on an SRQ to ERR: IBV_EVENT_QP_LAST_WQE_REACHED, once" bash -c '
	mroce-asyncev -d mroce0 -n 2 -t 3 -e > /tmp/lastwqe.txt; sed "s/^/#   /" /tmp/lastwqe.txt
	q=$(sed -n "s/^qpn //p" /tmp/lastwqe.txt)
	[ -n "$q" ] && [ "$(grep -c "^event " /tmp/lastwqe.txt)" = 1 ] &&
	grep -qx "event last WQE reached qpn $q" /tmp/lastwqe.txt'

# --- GIDs follow addresses --------------------------------------------------
v4gid=0000:0000:0000:0000:0000:ffff:c612:0001
v6gid=2001:0db8:0000:0000:0000:0000:0000:0001
ip addr add 198.18.0.1/24 dev vethA
ip addr add 198.18.0.2/24 dev vethB
t_ok "IPv4 address -> RoCEv2 GID" t_wait 5 has_gid mroce0 "$v4gid"
t_ok "GID type RoCE v2" bash -c 'grep -l "RoCE v2" /sys/class/infiniband/mroce0/ports/1/gid_attrs/types/* | head -1 | grep -q .'
ip addr add 2001:db8::1/64 dev vethA nodad
t_ok "IPv6 address -> GID" t_wait 5 has_gid mroce0 "$v6gid"
t_ok "ibv_devinfo -v lists both GIDs" bash -c '
	ibv_devinfo -v -d mroce0 | grep GID; o=$(ibv_devinfo -v -d mroce0)
	grep -q "::ffff:198.18.0.1, RoCE v2" <<<"$o" && grep -q "2001:db8::1, RoCE v2" <<<"$o"'
ip addr del 198.18.0.1/24 dev vethA
ip addr del 2001:db8::1/64 dev vethA
t_ok "IPv4 address removed -> GID gone" t_wait 5 no_gid mroce0 "$v4gid"
t_ok "IPv6 address removed -> GID gone" t_wait 5 no_gid mroce0 "$v6gid"
ip addr add 198.18.0.1/24 dev vethA

# --- verbs through our provider ---------------------------------------------
t_ok "ibv_devices lists mroce0 and zz9" bash -c 'o=$(ibv_devices); echo "$o"; grep -qw mroce0 <<<"$o" && grep -qw zz9 <<<"$o"'
t_ok "ibv_devinfo: transport, vendor, GUID, port, link layer" bash -c '
	o=$(ibv_devinfo -d mroce0); echo "$o"
	grep -q "transport:.*InfiniBand" <<<"$o" && grep -q "vendor_id:.*0x0*26d72" <<<"$o" &&
	! grep -q "node_guid:.*0000:0000:0000:0000" <<<"$o" &&
	grep -q "state:.*PORT_ACTIVE" <<<"$o" && grep -q "link_layer:.*Ethernet" <<<"$o"'
t_ok "verbs check on mroce0 (provider, PD, CQ, MR, MW, mmap)" mroce-verbs-check mroce0 ACTIVE
t_ok "verbs check on zz9" mroce-verbs-check zz9 ACTIVE
t_ok "rdma statistic shows our counters" bash -c 'o=$(rdma statistic show link mroce0/1); echo "$o"; grep -q rx_packets <<<"$o" && grep -q tx_packets <<<"$o" && grep -q drop_short <<<"$o" && grep -q ud_drop_no_qp <<<"$o" && grep -q cq_overflow <<<"$o" && ! grep -q rx_drops <<<"$o"'

# --- two network namespaces joined by a veth pair ---------------------------
ip netns add nsA
ip netns add nsB
ip link add vA netns nsA type veth peer name vB netns nsB
ip -n nsA addr add 198.18.1.1/24 dev vA
ip -n nsB addr add 198.18.1.2/24 dev vB
ip -n nsA link set vA up
ip -n nsB link set vB up
ip -n nsA link set lo up
ip -n nsB link set lo up
t_ok "rdma link add mA in nsA" ip netns exec nsA rdma link add mA type mroce netdev vA
t_ok "rdma link add mB in nsB" ip netns exec nsB rdma link add mB type mroce netdev vB
t_ok "UDP 4796 bound in nsA" udp_bound 4796 nsA
t_ok "UDP 4796 bound in nsB" udp_bound 4796 nsB
t_ok "mA port ACTIVE with GID 198.18.1.1" t_wait 5 bash -c \
	'[ "$(sed "s/^[0-9]*: *//" /sys/class/infiniband/mA/ports/1/state)" = ACTIVE ] &&
	 grep -qx 0000:0000:0000:0000:0000:ffff:c612:0101 /sys/class/infiniband/mA/ports/1/gids/*'
t_ok "ping nsA -> nsB" ip netns exec nsA ping -c 1 -W 3 198.18.1.2
t_ok "verbs check on mA from nsA" ip netns exec nsA mroce-verbs-check mA ACTIVE
t_ok "verbs check on mB from nsB" ip netns exec nsB mroce-verbs-check mB ACTIVE
ip netns exec nsB bash -c 'echo probe > /dev/udp/198.18.1.1/4796' 2>/dev/null
# (in init_net both veth ends are local addresses: datagrams go over lo)
t_ok "datagram nsB -> nsA on UDP 4796: counted and dropped on mA as too short" t_wait 3 bash -c \
	'[ "$(cat /sys/class/infiniband/mA/ports/1/hw_counters/rx_packets)" -ge 1 ] &&
	 [ "$(cat /sys/class/infiniband/mA/ports/1/hw_counters/drop_short)" -ge 1 ]'
ip -n nsB link set vB down
t_ok "peer in nsB down -> mA port DOWN" t_wait 5 state_is mA DOWN
ip -n nsB link set vB up
t_ok "peer in nsB up -> mA port ACTIVE" t_wait 5 state_is mA ACTIVE

# --- removal -------------------------------------------------------------------
ip netns exec nsB ip link del vB
t_ok "deleting the netdev (veth pair) removes mA and mB" t_wait 5 bash -c \
	'[ ! -e /sys/class/infiniband/mA ] && [ ! -e /sys/class/infiniband/mB ]'
t_ok "UDP 4796 closed in nsA after its last device" t_wait 5 udp_unbound 4796 nsA
ip netns del nsB
ip link add vC netns nsA type dummy
ip -n nsA link set vC up
t_ok "device on a dummy in nsA" ip netns exec nsA rdma link add mC type mroce netdev vC
ip netns del nsA
t_ok "deleting namespace nsA removes mC" t_wait 10 dev_gone mC
t_ok "rdma link delete zz9" rdma link delete zz9
t_ok "zz9 gone" t_wait 5 dev_gone zz9
t_ok "rmmod mroce with mroce0 present" rmmod mroce
t_ok "mroce0 gone after rmmod" dev_gone mroce0
t_ok "UDP 4796 closed after rmmod" udp_unbound 4796

# --- autoload and udp_port= ---------------------------------------------------
t_ok "rdma link add autoloads mroce" rdma link add auto0 type mroce netdev vethA
t_ok "module loaded by autoload" mroce_loaded
t_ok "auto0 exists" dev_exists auto0
t_ok "rmmod mroce (auto0 present)" rmmod mroce
t_fail "udp_port=4791 (RoCEv2) refused" modprobe mroce udp_port=4791
t_fail "udp_port=4793 (UET) refused" modprobe mroce udp_port=4793
t_ok "modprobe mroce udp_port=5000" modprobe mroce udp_port=5000
t_ok "parameter visible" grep -qx 5000 /sys/module/mroce/parameters/udp_port
t_ok "rdma link add on udp_port=5000" rdma link add p5000 type mroce netdev vethA
t_ok "UDP 5000 bound, 4796 not" bash -c 'ss -Hnlu; ss -Hnlu | grep -q ":5000 " && ! ss -Hnlu | grep -q ":4796 "'
t_ok "rdma link delete p5000" rdma link delete p5000
t_ok "rmmod mroce" rmmod mroce
t_ok "module gone" mroce_unloaded

t_done
