# shellcheck shell=bash
# Topologies and helpers shared by the guest datapath tests (datapath.sh,
# pyverbs.sh) and the benchmarks (bench/guest/). Source it after lib.sh.
#
# Two topologies, one per kind of RDMA driver:
#
#   topo_netns DRIVER      the real two-host setup: nsA / nsB joined by a
#                          veth pair, one device in each (mroce; rdma_rxe in
#                          6.1 does not work across namespaces: its sockets
#                          and routes are init_net's)
#       nsA: vA 198.18.1.1/24 2001:db8:1::1/64 <-> nsB: vB 198.18.1.2/24 2001:db8:1::2/64
#            device ${P}A                               device ${P}B
#
#   topo_init              both veth ends in init_net, policy routing so that
#                          traffic between the two local addresses really
#                          crosses the veth pair (and its netem qdisc)
#                          instead of lo (the rxe recipe of the lab,
#                          shared/reference/vm-rig/tests/rxe-baseline.sh),
#                          for IPv4 and IPv6
#       vethA 198.18.0.1/24 2001:db8::1/64 <-> vethB 198.18.0.2/24 2001:db8::2/64
#   topo_init_dev DRIVER NAME NETDEV   a device on one of them (rxe and mroce
#                          devices can sit on the same veth: different UDP ports)
#
# Both set (for the client = requester = data sender, and the server):
#   CX / SX     command prefixes (arrays) that run in the client's / server's
#               network namespace (empty in init_net)
#   C_IF S_IF   netdevs;  C_IP S_IP C_IP6 S_IP6  addresses
#   C_DEV S_DEV devices (topo_init: set them yourself)
# gid_index DEV ADDR   index of the RoCE v2 GID of ADDR (IPv4 or IPv6) on DEV
# pair NAME SECS SERVER-CMD... -- CLIENT-CMD...
#               run a server in SX and a client in CX with a time limit;
#               logs in $PAIR_LOG/NAME.{srv,cli}; status 0 if both exited 0;
#               on failure prints both logs' tails and the devices' counters

PAIR_LOG=${PAIR_LOG:-/tmp/pairs}
mkdir -p "$PAIR_LOG"

# swnic: mroce with its software NIC (mroce_swnic) taking every new device
driver_load() {	# driver_load mroce|swnic|rxe
	modprobe -a ib_uverbs rdma_ucm veth sch_netem || return 1
	case $1 in
	mroce) grep -q '^mroce ' /proc/modules || modprobe mroce;;
	swnic) { grep -q '^mroce ' /proc/modules || modprobe mroce; } &&
		modprobe mroce_swnic netdevs='*';;
	rxe) modprobe rdma_rxe;;
	*) echo "unknown driver $1" >&2; return 1;;
	esac
}

driver_module() { case $1 in mroce) echo mroce;; swnic) echo mroce_swnic mroce;; rxe) echo rdma_rxe;; esac; }
# the rdma link type of a driver_load name
driver_link() { case $1 in swnic) echo mroce;; *) echo "$1";; esac; }

topo_netns() {	# topo_netns DRIVER [PREFIX]: nsA/nsB, devices ${PREFIX}A/${PREFIX}B
	local drv=$1 p=${2:-}
	[ -n "$p" ] || p=$([ "$1" = mroce ] && echo m || echo r)
	ip netns add nsA && ip netns add nsB || return 1
	ip link add vA netns nsA type veth peer name vB netns nsB || return 1
	ip -n nsA addr add 198.18.1.1/24 dev vA
	ip -n nsB addr add 198.18.1.2/24 dev vB
	ip -n nsA addr add 2001:db8:1::1/64 dev vA nodad
	ip -n nsB addr add 2001:db8:1::2/64 dev vB nodad
	ip -n nsA link set lo up; ip -n nsB link set lo up
	ip -n nsA link set vA up; ip -n nsB link set vB up
	CX=(/usr/sbin/ip netns exec nsA); SX=(/usr/sbin/ip netns exec nsB)	# (busybox timeout would run its own ip applet)
	C_IF=vA S_IF=vB C_IP=198.18.1.1 S_IP=198.18.1.2 C_IP6=2001:db8:1::1 S_IP6=2001:db8:1::2
	C_DEV=${p}A S_DEV=${p}B
	"${CX[@]}" rdma link add "$C_DEV" type "$drv" netdev vA || return 1
	"${SX[@]}" rdma link add "$S_DEV" type "$drv" netdev vB || return 1
}

topo_netns_del() {
	ip netns del nsA 2>/dev/null
	ip netns del nsB 2>/dev/null
	ip netns del nsX 2>/dev/null
	return 0
}

# topo_attacker ADDR [MORE...]: after topo_netns, a third host nsX (the
# rig has no bridge to put it on the veth link) with ADDR (and MORE) in
# 198.18.2.0/24, routed through nsA, which forwards; nsB routes the
# attacker's subnet back through nsA. No peer's address, its own MetaRoCE
# port: the victim's RETRYs and RESETs reach it.
topo_attacker() {
	local a
	ip netns add nsX || return 1
	ip link add vX netns nsX type veth peer name vXA netns nsA || return 1
	for a in "$@"; do ip -n nsX addr add "$a/24" dev vX || return 1; done
	ip -n nsA addr add 198.18.2.1/24 dev vXA &&
	ip -n nsX link set lo up && ip -n nsX link set vX up && ip -n nsA link set vXA up &&
	ip netns exec nsA sysctl -qw net.ipv4.ip_forward=1 &&
	ip -n nsX route add default via 198.18.2.1 &&
	ip -n nsB route add 198.18.2.0/24 via "$C_IP"
}

topo_init() {	# topo_init [MTU]: vethA/vethB in init_net, policy routing
	local mtu=${1:-1500} i A=198.18.0.1 B=198.18.0.2 A6=2001:db8::1 B6=2001:db8::2
	ip link add vethA mtu "$mtu" type veth peer name vethB mtu "$mtu" || return 1
	ip addr add $A/24 dev vethA; ip addr add $B/24 dev vethB
	ip addr add $A6/64 dev vethA nodad; ip addr add $B6/64 dev vethB nodad
	ip link set vethA up; ip link set vethB up
	for i in all default vethA vethB; do
		echo 0 > /proc/sys/net/ipv4/conf/$i/rp_filter
		echo 1 > /proc/sys/net/ipv4/conf/$i/accept_local
	done
	# local addresses are found through "local" after our rules
	ip rule add pref 100 lookup local; ip rule del pref 0 lookup local
	ip rule add pref 10 iif lo to $B lookup 100
	ip rule add pref 11 iif lo to $A lookup 101
	ip route add $B dev vethA src $A table 100
	ip route add $A dev vethB src $B table 101
	ip -6 rule add pref 100 lookup local; ip -6 rule del pref 0 lookup local
	ip -6 rule add pref 10 iif lo to $B6 lookup 100
	ip -6 rule add pref 11 iif lo to $A6 lookup 101
	ip -6 route add $B6 dev vethA src $A6 table 100
	ip -6 route add $A6 dev vethB src $B6 table 101
	CX=(); SX=()
	C_IF=vethA S_IF=vethB C_IP=$A S_IP=$B C_IP6=$A6 S_IP6=$B6
}

topo_init_del() {
	ip link del vethA 2>/dev/null
	ip rule add pref 0 lookup local 2>/dev/null; ip rule del pref 100 lookup local 2>/dev/null
	ip rule del pref 10 2>/dev/null; ip rule del pref 11 2>/dev/null
	ip -6 rule add pref 0 lookup local 2>/dev/null; ip -6 rule del pref 100 lookup local 2>/dev/null
	ip -6 rule del pref 10 2>/dev/null; ip -6 rule del pref 11 2>/dev/null
	return 0
}

topo_init_dev() {	# topo_init_dev DRIVER NAME NETDEV
	rdma link add "$2" type "$1" netdev "$3"
}

gid_sysfs() {	# gid_sysfs ADDR: the GID of an IPv4/IPv6 address as sysfs prints it
	local a=$1 h=() t=() o=() i n
	if [[ $a != *:* ]]; then
		IFS=. read -r -a h <<<"$a"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${h[@]}"
		return
	fi
	if [[ $a == *::* ]]; then
		IFS=: read -r -a h <<<"${a%%::*}"; IFS=: read -r -a t <<<"${a#*::}"
	else
		IFS=: read -r -a h <<<"$a"
	fi
	n=$((8 - ${#h[@]} - ${#t[@]}))
	o=("${h[@]}"); for ((i = 0; i < n; i++)); do o+=(0); done; o+=("${t[@]}")
	for ((i = 0; i < 8; i++)); do o[i]=$(printf '%04x' "0x${o[i]:-0}"); done
	(IFS=:; echo "${o[*]}")
}

gid_index() {	# gid_index DEV ADDR: RoCE v2 GID index of ADDR on DEV
	# (bash builtins only: rxe has 1024 entries, a fork each is slow in TCG)
	local d=/sys/class/infiniband/$1/ports/1 g v t i n
	g=$(gid_sysfs "$2")
	n=$(ls "$d/gids" 2>/dev/null | wc -l)
	for ((i = 0; i < n; i++)); do
		read -r v < "$d/gids/$i" 2>/dev/null || continue
		[ "$v" = "$g" ] || continue
		read -r t < "$d/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] || continue
		echo "$i"; return 0
	done
	return 1
}

port_active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"; }

# wait until a server is ready: a TCP port listening in its netns, or an
# RDMA-CM listener; at most 10 s, then go on anyway
wait_server() {	# wait_server tcp:PORT | cm | sleep:SECS
	local i
	case $1 in
	tcp:*) for ((i = 0; i < 100; i++)); do
			"${SX[@]}" ss -Hltn 2>/dev/null | grep -q ":${1#tcp:} " && return 0
			sleep 0.1
		done;;
	cm) for ((i = 0; i < 100; i++)); do
			rdma res show cm_id 2>/dev/null | grep -q LISTEN && return 0
			sleep 0.1
		done;;
	sleep:*) sleep "${1#sleep:}";;
	esac
	return 0
}

counters() {	# counters DEV...: one line of non-zero hw counters per device
	local d f line v
	for d in "$@"; do
		line=""
		for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
			[ -e "$f" ] || continue
			read -r v < "$f" 2>/dev/null; [ "${v:-0}" = 0 ] || line="$line ${f##*/}=$v"
		done
		echo "# counters $d:${line:- (all zero)}"
	done
}

declare -A SNAP
snap() {	# snap DEV...: remember the hw counters
	local d f v
	for d; do for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
		[ -e "$f" ] || continue; read -r v < "$f"; SNAP[$d.${f##*/}]=$v
	done; done
}
delta() {	# delta DEV...: the counters that changed since snap
	local d f v out=""
	for d; do for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
		[ -e "$f" ] || continue; read -r v < "$f"; v=$((v - ${SNAP[$d.${f##*/}]:-0}))
		[ "$v" = 0 ] || out="$out,$d.${f##*/}=$v"
	done; done
	echo "${out#,}"
}

# what a stuck process is doing: state, wait channel, kernel stack
stuck_report() {	# stuck_report PID...
	local p st
	for p in "$@"; do
		[ -d "/proc/$p" ] || continue
		read -r st < "/proc/$p/stat" 2>/dev/null
		st=${st#*) }
		echo "# stuck: pid $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-80)"
		echo "#   state ${st%% *}, wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
		sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null | head -16
	done
	for p in /sys/kernel/debug/mroce/*/peers; do
		[ -r "$p" ] || continue
		echo "# $p:"; head -20 "$p" | sed 's/^/#   /'
	done
}

# pair NAME SECS [ready=tcp:PORT|cm|sleep:S] SERVER... -- CLIENT...
# Both run in the background under a time limit; if the client is still
# there after SECS, both are reported (stuck_report) and killed. Their
# stdout is line-buffered (mroce-linebuf.so) so that a killed program's
# output is not lost.
pair() {
	local name=$1 to=$(($2 * ${T_SCALE:-1})) ready=tcp:18515 s=() sp cp crc src i end lb=""
	shift 2
	case $1 in ready=*) ready=${1#ready=}; shift;; esac
	while [ $# -gt 0 ] && [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	[ -f "$MROCE_SHARE/mroce-linebuf.so" ] && lb=$MROCE_SHARE/mroce-linebuf.so
	[ -n "${C_DEV:-}" ] && snap "$C_DEV" "$S_DEV"
	LD_PRELOAD=$lb timeout -k 3 $((to + 15)) "${SX[@]}" "${s[@]}" > "$PAIR_LOG/$name.srv" 2>&1 &
	sp=$!
	wait_server "$ready"
	LD_PRELOAD=$lb timeout -k 3 $((to + 5)) "${CX[@]}" "$@" > "$PAIR_LOG/$name.cli" 2>&1 &
	cp=$!
	end=$(($(date +%s) + to))
	while kill -0 "$cp" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.2; done
	if kill -0 "$cp" 2>/dev/null; then
		echo "# $name: client still running after ${to} s" > "$PAIR_LOG/$name.stuck"
		stuck_report "$cp" "$sp" >> "$PAIR_LOG/$name.stuck"
		kill "$cp" 2>/dev/null
	fi
	wait "$cp"; crc=$?
	# a healthy server ends right after its client; give it 10 s
	for ((i = 0; i < 100; i++)); do kill -0 "$sp" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$sp" 2>/dev/null; then
		[ -f "$PAIR_LOG/$name.stuck" ] || { echo "# $name: server still running 10 s after its client"; stuck_report "$sp"; } >> "$PAIR_LOG/$name.stuck"
		kill "$sp" 2>/dev/null
	fi
	wait "$sp"; src=$?
	echo "$crc $src" > "$PAIR_LOG/$name.rc"
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
		echo "server: ${SX[*]} ${s[*]}"
		echo "client: ${CX[*]} $*"
		for i in srv cli; do
			[ $i = srv ] && echo "--- server rc=$src$([ $src -ge 124 ] && echo ' (timeout/killed)'):" ||
				echo "--- client rc=$crc$([ $crc -ge 124 ] && echo ' (timeout/killed)'):"
			grep -m6 -iE 'error|fail|couldn|unable|timeout|status|wrong|mismatch|invalid|refused' "$PAIR_LOG/$name.$i"
			echo "  (last lines:)"
			tail -5 "$PAIR_LOG/$name.$i"
		done
		[ -f "$PAIR_LOG/$name.stuck" ] && head -40 "$PAIR_LOG/$name.stuck"
		[ -n "${C_DEV:-}" ] && echo "counters that changed during the pair: $(delta "$C_DEV" "$S_DEV")"
		return 1
	fi
	return 0
}

# one line of a pair's client output worth keeping in the log
pair_summary() {	# pair_summary NAME
	local f=$PAIR_LOG/$1.cli
	[ -f "$f" ] || return 0
	grep -m1 -E 'usec/iter|^xfer: [0-9]+ ops' "$f" ||
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print; exit}' "$f"
}

# netem NETEM-SPEC... on both veth ends (each in its namespace); netem_off
netem_on() {
	"${CX[@]}" tc qdisc replace dev "$C_IF" root netem "$@" &&
	"${SX[@]}" tc qdisc replace dev "$S_IF" root netem "$@"
}
netem_off() {
	"${CX[@]}" tc qdisc del dev "$C_IF" root 2>/dev/null
	"${SX[@]}" tc qdisc del dev "$S_IF" root 2>/dev/null
	return 0
}

# neigh_pin: each end's ARP entry for the other made permanent. A netem loss
# drops ARP too: under it the entry's unicast probes can all be lost (the
# entry FAILED), and an RTR then resolves the address anew within the 1 s
# the RDMA core gives it, or fails with ETIMEDOUT. A test that connects
# under loss pins; neigh_unpin gives the entries back to ARP.
neigh_pin() {
	local cm sm
	cm=$("${CX[@]}" cat "/sys/class/net/$C_IF/address") &&
	sm=$("${SX[@]}" cat "/sys/class/net/$S_IF/address") &&
	"${CX[@]}" ip neigh replace "$S_IP" lladdr "$sm" dev "$C_IF" nud permanent &&
	"${SX[@]}" ip neigh replace "$C_IP" lladdr "$cm" dev "$S_IF" nud permanent
}
neigh_unpin() {
	"${CX[@]}" ip neigh del "$S_IP" dev "$C_IF" 2>/dev/null
	"${SX[@]}" ip neigh del "$C_IP" dev "$S_IF" 2>/dev/null
	return 0
}
netem_drops() {	# netem_drops: "C_IF dropped N, S_IF dropped N"
	local a b
	a=$("${CX[@]}" tc -s qdisc show dev "$C_IF" | sed -n 's/.*(dropped \([0-9]*\).*/\1/p' | head -1)
	b=$("${SX[@]}" tc -s qdisc show dev "$S_IF" | sed -n 's/.*(dropped \([0-9]*\).*/\1/p' | head -1)
	echo "$C_IF dropped ${a:-?}, $S_IF dropped ${b:-?}"
}

res_counts() {	# res_counts DEV: "pd N cq N qp N cm_id N mr N ctx N srq N"
	rdma res show 2>/dev/null | awk -v d="$1" '$2 == d":" {$1 = $2 = ""; sub(/^ +/, ""); print}'
}

# ib_core's CQ pool (ib_cq_pool_get: nvme-rdma, nvmet-rdma, rpcrdma, ...)
# allocates CQs per device, a batch of one per CPU, and keeps them until the
# device is unregistered: after a kernel ULP has gone, its pool CQs are still
# counted, idle (users 0, owned by [ib_core])
res_cq_pool() {	# res_cq_pool DEV: how many idle pool CQs DEV has
	rdma res show cq 2>/dev/null | awk -v d="$1" '$2 == d && / users 0 / && /comm \[ib_core\]/ {n++} END {print n + 0}'
}
res_counts_nopool() {	# res_counts_nopool DEV: res_counts without the idle pool CQs
	local r p
	r=$(res_counts "$1") p=$(res_cq_pool "$1")
	echo "$r" | awk -v p="$p" '{for (i = 1; i < NF; i++) if ($i == "cq") $(i+1) -= p; print}'
}

# datagrams the victim's kernel dropped before mroce saw them, as "NAME
# VALUE" lines like the tests' refused_now (counted drops too; fuzz.sh,
# hostile.sh): the UDP and IP drop counters of the victim's namespace
# (SX), its veth's rx_dropped (a full peer queue), and the backlog drops
# of /proc/net/softnet_stat (every CPU and namespace: an upper bound for
# the victim's share)
kernel_drops() {
	"${SX[@]}" awk '$1 == "Udp:" && !u { for (i = 2; i <= NF; i++) h[i] = $i; u = 1; next }
		$1 == "Udp:" { for (i = 2; i <= NF; i++) if (h[i] ~ /^(InErrors|RcvbufErrors|InCsumErrors)$/) print "kernel_udp_" h[i], $i }
		$1 == "Ip:" && !p { for (i = 2; i <= NF; i++) g[i] = $i; p = 1; next }
		$1 == "Ip:" { for (i = 2; i <= NF; i++) if (g[i] ~ /^(InDiscards|InHdrErrors|InAddrErrors)$/) print "kernel_ip_" g[i], $i }' /proc/net/snmp
	echo "kernel_rx_dropped $("${SX[@]}" cat "/sys/class/net/$S_IF/statistics/rx_dropped")"
	local a b s=0
	while read -r a b _; do s=$((s + 16#$b)); done < /proc/net/softnet_stat
	echo "kernel_backlog_dropped $s"
}
