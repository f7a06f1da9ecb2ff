#!/bin/bash
# mroce fabric builder: a leaf/spine fabric made of network namespaces, for
# the guest (scripts/vm/run-guest.sh; as root; needs veth, sch_netem and, for
# ECN marking, sch_red). Run it, or source it and call the fab_* functions.
#
#   fabric.sh up [k=4] [planes=1] [hosts=init|netns] [mtu=1500] [addrs=1]
#                [KNOB=V...]
#   fabric.sh down
#   fabric.sh set [plane=P|all] [spine=I|all] [dir=fwd|rev|both] KNOB=V...
#   fabric.sh blackhole I [plane=P] [dir=both]   a silent black hole: spine I
#                                 drops what it should forward (blackhole
#                                 routes); links stay up, nothing is signalled
#   fabric.sh slow I [plane=P] [dir=both] KNOB=V...  temporary knobs on spine I
#   fabric.sh restore [I|all] [plane=P|all]    undo blackhole/slow (base knobs stay)
#   fabric.sh plane-down P [mode=carrier|silent|admin]   carrier: the leaves'
#                                 host ports go down (hosts see NO-CARRIER);
#                                 silent: both leaves black-hole the plane;
#                                 admin: the hosts' plane netdevs are set down
#   fabric.sh plane-up P
#   fabric.sh which SPORT [plane=P] [dport=4796] [dir=fwd]   spine that ECMP
#                                 picks for that UDP source port
#   fabric.sh stats [plane=P]     per-spine packets/bytes (fwd, rev), drops
#   fabric.sh sample [interval=0.1] [secs=N] [plane=all] [rdma=DEV:CTR,CTR/...]
#                    [net=IF,IF]  TSV of cumulative counters on stdout every
#                                 interval (s): per-spine bytes both ways, the
#                                 hosts' netdevs, chosen RDMA hw counters
#   fabric.sh show | check | env
#
# Topology, per plane P (0..planes-1), K spines, two hosts:
#
#   host 1 hHpP ---- dn [leaf p<P>l1] s1..sK ---- l1 [spine p<P>s<I>] l2 ---- sI [leaf p<P>l2] dn ---- h2pP host 2
#
#   host H, plane P:    netdev h<H>p<P>, address 10.<P+1>.<H>.1/24, gateway
#                       10.<P+1>.<H>.254 (the leaf's dn); with addrs=N also
#                       10.<P+1>.<H>.2 .. .N on the same netdev: address J of
#                       host 1 and address J of host 2 make pair J, a
#                       separate RDMA connection or TCP flow over the same
#                       fabric (N separate "hosts" per side, 1..32)
#   leaf H - spine I:   10.<P+1>.<64H+I>.1 (leaf sI) / .2 (spine lH), /24
#   hosts=init (default): both hosts' netdevs in the initial namespace (what
#     rdma_rxe in 6.1 needs), with policy routing (the local table moved to
#     pref 100; "iif lo to <peer> lookup <table>" sends to the leaf;
#     accept_local=1, rp_filter=0) so that traffic between the two local
#     addresses crosses the fabric (a side channel can use 127.0.0.1);
#     hosts=netns: host H in namespace fh<H>, plus a management link "mg"
#     between them, off the fabric, 10.254.0.<H>/24 (for side channels).
#   The leaves route the remote host subnet over all K spines (ECMP,
#   net.ipv4.fib_multipath_hash_policy=1: the hash includes UDP ports), so
#   each UDP source port picks one spine; the spines route statically.
#   "fwd" is host 1 -> host 2, "rev" the other way.
#
# Knobs (per plane, spine and direction; `up` sets all of them):
#   delay=TIME jitter=TIME loss=PCT netem="ARGS"   netem on the leaf's egress
#                       towards the spine (leaf 1 for fwd, leaf 2 for rev)
#   rate=RATE limit=PKTS   the spine's egress (towards leaf 2 for fwd): netem
#                       rate RATE limit PKTS (default limit 1000)
#   ecn=1 [red="ARGS"]  RED with ECN marking at the spine's egress: tbf rate
#                       RATE, RED (limit PKTS x 1500 bytes) as its queue (needs
#                       rate=; default red min 15000 max 45000 avpkt 1500
#                       burst 20 probability 0.2)
#   Each packet meets each knob once per direction. An empty value clears a
#   knob (loss=). Times and rates as tc writes them: 2ms, 100mbit.
#
# sch_red and sch_tbf are not in the rig image: `up` tries modprobe, then
# insmod of sch_red.ko / sch_tbf.ko next to this script (scripts/bench-fabric.sh
# puts them there).
# State: $FAB_RUN (default /run/fabric). Sourced, it defines fab_* and
# fab_if H P, fab_ip H P, fab_ns H (host namespace, empty for init), FAB_K,
# FAB_P, FAB_HOSTS.
# shellcheck disable=SC2034  # state variables are used by sourcing scripts

FAB_RUN=${FAB_RUN:-/run/fabric}
FAB_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IP=/usr/sbin/ip; [ -x $IP ] || IP=ip
TC=/usr/sbin/tc; [ -x $TC ] || TC=tc
FAB_KNOBS="delay jitter loss netem rate limit ecn red"

fab_die() { echo "fabric: $*" >&2; return 1; }

# ---- names and addresses -------------------------------------------------
fab_if() { echo "h$1p$2"; }			# fab_if HOST PLANE
fab_ip() { echo "10.$(($2 + 1)).$1.${3:-1}"; }	# fab_ip HOST PLANE [J]
fab_gw() { echo "10.$(($2 + 1)).$1.254"; }
fab_net() { echo "10.$(($2 + 1)).$1.0/24"; }
fab_ns() { [ "${FAB_HOSTS:-init}" = netns ] && echo "fh$1"; return 0; }	# fab_ns HOST
fab_leaf() { echo "p$2l$1"; }			# fab_leaf HOST PLANE
fab_spine() { echo "p$2s$1"; }			# fab_spine I PLANE
fab_link() { echo "10.$(($3 + 1)).$((64 * $1 + $2))"; }	# fab_link HOST I PLANE: /24 prefix
fab_hx() {	# fab_hx HOST CMD...: run CMD in the host's namespace
	local ns
	ns=$(fab_ns "$1"); shift
	if [ -n "$ns" ]; then $IP netns exec "$ns" "$@"; else "$@"; fi
}

# ---- state ----------------------------------------------------------------
declare -A FAB_KN=() FAB_SLOW=() FAB_BH=() FAB_PID=() FAB_PDOWN=()
fab_save() {	# the state as "declare -g" lines, so that fab_load works in a function
	mkdir -p "$FAB_RUN"
	declare -p FAB_K FAB_P FAB_HOSTS FAB_MTU FAB_ADDRS FAB_KN FAB_SLOW FAB_BH FAB_PID FAB_PDOWN |
		sed 's/^declare -- /declare -g /; s/^declare -A /declare -gA /' > "$FAB_RUN/state"
}
fab_load() {
	[ -f "$FAB_RUN/state" ] || { fab_die "no fabric (run: fabric.sh up)"; return 1; }
	# shellcheck disable=SC1091
	. "$FAB_RUN/state"
}

# ---- helpers --------------------------------------------------------------
fab_kv() {	# fab_kv KEY ARGS...: the value of KEY=V among ARGS (empty if absent)
	local k=$1 a
	shift
	for a; do [ "${a%%=*}" = "$k" ] && { echo "${a#*=}"; return 0; }; done
	return 1
}
fab_range() {	# fab_range SPEC MAX BASE: "all" -> BASE..MAX, N -> N
	local s=$1 max=$2 base=$3 i
	if [ -z "$s" ] || [ "$s" = all ]; then
		for ((i = base; i <= max; i++)); do echo "$i"; done
	else
		echo "$s"
	fi
}
fab_dirs() { case ${1:-both} in both) echo fwd rev;; fwd|rev) echo "$1";; *) fab_die "dir: fwd|rev|both";; esac; }

fab_modules() {
	local m
	modprobe -a veth sch_netem || return 1
	for m in sch_red sch_tbf; do
		grep -q "^$m " /proc/modules && continue
		modprobe $m 2>/dev/null ||
			{ [ -f "$FAB_HERE/$m.ko" ] && insmod "$FAB_HERE/$m.ko" 2>/dev/null; } || true
	done
}
fab_have_red() { grep -q '^sch_red ' /proc/modules && grep -q '^sch_tbf ' /proc/modules; }

# ---- up / down ------------------------------------------------------------
fab_up() {
	local k=4 planes=1 hosts=init mtu=1500 addrs=1 a p i h n ns b rt
	local -a knobs=()
	for a; do
		case $a in
		k=*) k=${a#*=};; planes=*) planes=${a#*=};; hosts=*) hosts=${a#*=};;
		mtu=*) mtu=${a#*=};; addrs=*) addrs=${a#*=};;
		delay=*|jitter=*|loss=*|netem=*|rate=*|limit=*|ecn=*|red=*) knobs+=("$a");;
		*) fab_die "up: unknown argument $a"; return 1;;
		esac
	done
	[ "$k" -ge 1 ] && [ "$k" -le 32 ] || { fab_die "k: 1..32"; return 1; }
	[ "$planes" -ge 1 ] && [ "$planes" -le 8 ] || { fab_die "planes: 1..8"; return 1; }
	case $hosts in init|netns) ;; *) fab_die "hosts: init|netns"; return 1;; esac
	[ "$addrs" -ge 1 ] && [ "$addrs" -le 32 ] || { fab_die "addrs: 1..32"; return 1; }
	[ -f "$FAB_RUN/state" ] && { fab_die "a fabric is up (fabric.sh down first)"; return 1; }
	fab_modules || return 1
	FAB_K=$k FAB_P=$planes FAB_HOSTS=$hosts FAB_MTU=$mtu FAB_ADDRS=$addrs
	FAB_KN=() FAB_SLOW=() FAB_BH=() FAB_PID=() FAB_PDOWN=()
	mkdir -p "$FAB_RUN"
	fab_save

	# namespaces and links: one `ip -batch` in the initial namespace
	b=$FAB_RUN/up.batch; : > "$b"
	if [ "$hosts" = netns ]; then echo "netns add fh1" >> "$b"; echo "netns add fh2" >> "$b"; fi
	for ((p = 0; p < planes; p++)); do
		echo "netns add $(fab_leaf 1 $p)" >> "$b"; echo "netns add $(fab_leaf 2 $p)" >> "$b"
		for ((i = 1; i <= k; i++)); do echo "netns add $(fab_spine $i $p)" >> "$b"; done
	done
	$IP -batch "$b" || { fab_die "netns add failed"; return 1; }
	: > "$b"
	for ((p = 0; p < planes; p++)); do
		for h in 1 2; do
			ns=$(fab_ns $h)
			echo "link add $(fab_if $h $p) mtu $mtu ${ns:+netns $ns} type veth peer name dn mtu $mtu netns $(fab_leaf $h $p)" >> "$b"
			for ((i = 1; i <= k; i++)); do
				echo "link add s$i mtu $mtu netns $(fab_leaf $h $p) type veth peer name l$h mtu $mtu netns $(fab_spine $i $p)" >> "$b"
			done
		done
	done
	$IP -batch "$b" || { fab_die "link add failed"; return 1; }

	# routers: forwarding, ECMP on L4, addresses and routes (a batch each)
	for ((p = 0; p < planes; p++)); do
		for h in 1 2; do
			ns=$(fab_leaf $h $p); : > "$b"
			echo "link set lo up" >> "$b"
			echo "addr add $(fab_gw $h $p)/24 dev dn" >> "$b"; echo "link set dn up" >> "$b"
			for ((i = 1; i <= k; i++)); do
				echo "addr add $(fab_link $h $i $p).1/24 dev s$i" >> "$b"; echo "link set s$i up" >> "$b"
			done
			# the ECMP route, after the links are up (nexthops need them)
			fab_ecmp add $h $p >> "$b"
			fab_sysctl "$ns" || return 1
			$IP -n "$ns" -batch "$b" || { fab_die "$ns: setup failed"; return 1; }
		done
		for ((i = 1; i <= k; i++)); do
			ns=$(fab_spine $i $p); : > "$b"
			echo "link set lo up" >> "$b"
			for h in 1 2; do
				echo "addr add $(fab_link $h $i $p).2/24 dev l$h" >> "$b"; echo "link set l$h up" >> "$b"
				echo "route add $(fab_net $h $p) via $(fab_link $h $i $p).1 dev l$h" >> "$b"
			done
			fab_sysctl "$ns" || return 1
			$IP -n "$ns" -batch "$b" || { fab_die "$ns: setup failed"; return 1; }
		done
	done
	fab_hosts_up || return 1

	# processes parked in the leaves (and host namespaces): /proc/PID/net/dev
	# reads their counters without a fork
	for ((p = 0; p < planes; p++)); do
		for h in 1 2; do
			$IP netns exec "$(fab_leaf $h $p)" sleep 2147483 </dev/null >/dev/null 2>&1 &
			FAB_PID[$p.$h]=$!
		done
	done
	if [ "$hosts" = netns ]; then
		for h in 1 2; do
			$IP netns exec "fh$h" sleep 2147483 </dev/null >/dev/null 2>&1 &
			FAB_PID[h$h]=$!
		done
	fi
	fab_save
	if [ ${#knobs[@]} -gt 0 ]; then fab_set "${knobs[@]}" || return 1; fi
	for ((n = 0; n < 50; n++)); do
		fab_reach 0 >/dev/null 2>&1 && break
		sleep 0.1
	done
	echo "fabric: up: $k spines, $planes plane(s), hosts in $([ "$hosts" = init ] && echo "the initial namespace" || echo "fh1, fh2"), mtu $mtu$([ "$addrs" = 1 ] || echo ", $addrs addresses per host")${knobs[*]:+, ${knobs[*]}}"
}

fab_ecmp() {	# fab_ecmp add|replace HOST PLANE: leaf HOST's route to the other host, as a batch line
	local h=$2 p=$3 i rt
	rt="route $1 $(fab_net $((3 - h)) "$p")"
	if [ "$FAB_K" = 1 ]; then
		echo "$rt via $(fab_link "$h" 1 "$p").2 dev s1"
		return
	fi
	for ((i = 1; i <= FAB_K; i++)); do rt="$rt nexthop via $(fab_link "$h" $i "$p").2 dev s$i"; done
	echo "$rt"
}

fab_sysctl() {	# fab_sysctl NS: a router
	$IP netns exec "$1" sysctl -q -w net.ipv4.ip_forward=1 \
		net.ipv4.fib_multipath_hash_policy=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 >/dev/null ||
		fab_die "$1: sysctl failed"
}

fab_hosts_up() {
	local p h j ns b=$FAB_RUN/hosts.batch i f
	: > "$b"
	if [ "$FAB_HOSTS" = netns ]; then
		# a management link between the hosts, off the fabric (side channels)
		$IP link add mg netns fh1 type veth peer name mg netns fh2 || return 1
		for h in 1 2; do
			ns=$(fab_ns $h); : > "$b"
			echo "link set lo up" >> "$b"
			echo "addr add 10.254.0.$h/24 dev mg" >> "$b"
			echo "link set mg up" >> "$b"
			for ((p = 0; p < FAB_P; p++)); do
				for ((j = 1; j <= FAB_ADDRS; j++)); do
					echo "addr add $(fab_ip $h $p $j)/24 dev $(fab_if $h $p)" >> "$b"
				done
				echo "link set $(fab_if $h $p) up" >> "$b"
				echo "route add $(fab_net $((3 - h)) $p) via $(fab_gw $h $p) dev $(fab_if $h $p)" >> "$b"
			done
			$IP -n "$ns" -batch "$b" || return 1
		done
		return 0
	fi
	# both hosts here: policy routing (as tests/vm/topo.sh topo_init)
	for ((p = 0; p < FAB_P; p++)); do
		for h in 1 2; do
			for ((j = 1; j <= FAB_ADDRS; j++)); do
				echo "addr add $(fab_ip $h $p $j)/24 dev $(fab_if $h $p)" >> "$b"
			done
			echo "link set $(fab_if $h $p) up" >> "$b"
			for ((j = 1; j <= FAB_ADDRS; j++)); do
				# to the other host's address J of this plane: via our leaf
				echo "rule add pref 10 iif lo to $(fab_ip $((3 - h)) $p $j) lookup $((200 + 2 * p + h))" >> "$b"
				echo "route add $(fab_ip $((3 - h)) $p $j) via $(fab_gw $h $p) dev $(fab_if $h $p) src $(fab_ip $h $p $j) table $((200 + 2 * p + h))" >> "$b"
				# with the netdev down: unreachable, not the local table's loopback
				echo "route add unreachable $(fab_ip $((3 - h)) $p $j) metric 4096 table $((200 + 2 * p + h))" >> "$b"
			done
		done
	done
	if ! $IP rule show pref 100 | grep -q 'lookup local'; then
		echo "rule add pref 100 lookup local" >> "$b"
		echo "rule del pref 0 lookup local" >> "$b"
	fi
	for f in all default; do
		echo 0 > /proc/sys/net/ipv4/conf/$f/rp_filter
		echo 1 > /proc/sys/net/ipv4/conf/$f/accept_local
	done
	$IP -batch "$b" || return 1
	for ((p = 0; p < FAB_P; p++)); do
		for h in 1 2; do
			i=$(fab_if $h $p)
			echo 0 > /proc/sys/net/ipv4/conf/"$i"/rp_filter
			echo 1 > /proc/sys/net/ipv4/conf/"$i"/accept_local
		done
	done
}

fab_down() {
	local p i h k
	fab_load 2>/dev/null || return 0
	for k in "${!FAB_PID[@]}"; do kill "${FAB_PID[$k]}" 2>/dev/null; done
	for ((p = 0; p < FAB_P; p++)); do
		for h in 1 2; do $IP netns del "$(fab_leaf $h $p)" 2>/dev/null; done
		for ((i = 1; i <= FAB_K; i++)); do $IP netns del "$(fab_spine $i $p)" 2>/dev/null; done
	done
	if [ "$FAB_HOSTS" = netns ]; then
		$IP netns del fh1 2>/dev/null; $IP netns del fh2 2>/dev/null
	else
		for ((p = 0; p < FAB_P; p++)); do
			$IP link del "$(fab_if 1 $p)" 2>/dev/null; $IP link del "$(fab_if 2 $p)" 2>/dev/null
			# the unreachable fallbacks are bound to no device: they stay
			for h in 1 2; do $IP route flush table $((200 + 2 * p + h)) 2>/dev/null; done
		done
		while $IP rule del pref 10 2>/dev/null; do :; done
		if $IP rule show pref 100 | grep -q 'lookup local'; then
			$IP rule add pref 0 lookup local && $IP rule del pref 100 lookup local
		fi
	fi
	rm -rf "$FAB_RUN"
	echo "fabric: down"
}

# ---- knobs ----------------------------------------------------------------
fab_set() {	# fab_set [plane=] [spine=] [dir=] KNOB=V...
	local a p i d kn v pl=all sp=all dir=both
	local -a set=()
	fab_load || return 1
	for a; do
		case $a in
		plane=*) pl=${a#*=};; spine=*) sp=${a#*=};; dir=*) dir=${a#*=};;
		delay=*|jitter=*|loss=*|netem=*|rate=*|limit=*|ecn=*|red=*) set+=("$a");;
		*) fab_die "set: unknown argument $a"; return 1;;
		esac
	done
	for p in $(fab_range "$pl" $((FAB_P - 1)) 0); do
		for i in $(fab_range "$sp" "$FAB_K" 1); do
			for d in $(fab_dirs "$dir"); do
				for a in "${set[@]}"; do
					kn=${a%%=*} v=${a#*=}
					if [ -z "$v" ]; then unset "FAB_KN[$p.$i.$d.$kn]"; else FAB_KN[$p.$i.$d.$kn]=$v; fi
				done
			done
			fab_apply "$p" "$i" || return 1
		done
	done
	fab_save
}

fab_knob() {	# fab_knob P I DIR KNOB: the knob in force (slow overrides base)
	local s=${FAB_SLOW[$1.$2.$3.$4]:-}
	[ -n "$s" ] && { echo "$s"; return; }
	echo "${FAB_KN[$1.$2.$3.$4]:-}"
}

fab_apply() {	# fab_apply P I: put the qdiscs of spine I of plane P in place
	local p=$1 i=$2 d leaf sp dev ne rate lim ecn red delay jit loss raw
	for d in fwd rev; do
		if [ $d = fwd ]; then leaf=$(fab_leaf 1 "$p") dev=l2; else leaf=$(fab_leaf 2 "$p") dev=l1; fi
		sp=$(fab_spine "$i" "$p")
		delay=$(fab_knob "$p" "$i" $d delay) jit=$(fab_knob "$p" "$i" $d jitter)
		loss=$(fab_knob "$p" "$i" $d loss) raw=$(fab_knob "$p" "$i" $d netem)
		ne=""
		[ -n "$delay" ] && ne="delay $delay${jit:+ $jit}"
		[ -n "$loss" ] && [ "$loss" != 0 ] && [ "$loss" != 0% ] && ne="$ne loss ${loss%\%}%"
		[ -n "$raw" ] && ne="$ne $raw"
		if [ -n "$ne" ]; then
			# shellcheck disable=SC2086
			$TC -n "$leaf" qdisc replace dev "s$i" root netem limit 10000 $ne ||
				{ fab_die "$leaf s$i: netem $ne failed"; return 1; }
		else
			$TC -n "$leaf" qdisc del dev "s$i" root 2>/dev/null
		fi
		rate=$(fab_knob "$p" "$i" $d rate) lim=$(fab_knob "$p" "$i" $d limit)
		ecn=$(fab_knob "$p" "$i" $d ecn) red=$(fab_knob "$p" "$i" $d red)
		lim=${lim:-1000}
		$TC -n "$sp" qdisc del dev $dev root 2>/dev/null
		if [ -n "$ecn" ] && [ "$ecn" != 0 ]; then
			[ -n "$rate" ] || { fab_die "ecn needs rate="; return 1; }
			fab_have_red || { fab_die "ecn: sch_red/sch_tbf not available"; return 1; }
			# tbf does the rate, the queue is RED's (it must see the backlog)
			red=${red:-min 15000 max 45000 avpkt 1500 burst 20 probability 0.2}
			# shellcheck disable=SC2086
			$TC -n "$sp" qdisc add dev $dev root handle 1: tbf rate "$rate" burst 15000 limit $((lim * 1500)) &&
			$TC -n "$sp" qdisc add dev $dev parent 1:1 handle 10: red limit $((lim * 1500)) $red bandwidth "$rate" ecn ||
				{ fab_die "$sp $dev: tbf/red failed"; return 1; }
		elif [ -n "$rate" ]; then
			$TC -n "$sp" qdisc add dev $dev root netem rate "$rate" limit "$lim" ||
				{ fab_die "$sp $dev: netem rate failed"; return 1; }
		fi
	done
}

# ---- actions --------------------------------------------------------------
fab_args() {	# fab_args: parse plane= dir= out of "$@" into PL, DIR; rest in REST
	local a
	PL=0 DIR=both REST=()
	for a; do
		case $a in plane=*) PL=${a#*=};; dir=*) DIR=${a#*=};; *) REST+=("$a");; esac
	done
}

fab_blackhole() {	# fab_blackhole I [plane=P] [dir=both]
	local i=$1 p d sp
	shift
	fab_load || return 1
	fab_args "$@"
	[ "$i" -ge 1 ] && [ "$i" -le "$FAB_K" ] || { fab_die "no spine $i"; return 1; }
	for p in $(fab_range "$PL" $((FAB_P - 1)) 0); do
		sp=$(fab_spine "$i" "$p")
		for d in $(fab_dirs "$DIR"); do
			# fwd traffic goes to host 2's subnet
			if [ "$d" = fwd ]; then
				$IP -n "$sp" route replace blackhole "$(fab_net 2 "$p")" || return 1
			else
				$IP -n "$sp" route replace blackhole "$(fab_net 1 "$p")" || return 1
			fi
			FAB_BH[$p.$i.$d]=1
		done
	done
	fab_save
}

fab_slow() {	# fab_slow I [plane=P] [dir=both] KNOB=V...
	local i=$1 p d a
	shift
	fab_load || return 1
	fab_args "$@"
	[ ${#REST[@]} -gt 0 ] || { fab_die "slow: which knobs? (delay=, rate=, loss=...)"; return 1; }
	for p in $(fab_range "$PL" $((FAB_P - 1)) 0); do
		for d in $(fab_dirs "$DIR"); do
			for a in "${REST[@]}"; do
				case ${a%%=*} in
				delay|jitter|loss|netem|rate|limit|ecn|red) FAB_SLOW[$p.$i.$d.${a%%=*}]=${a#*=};;
				*) fab_die "slow: unknown knob $a"; return 1;;
				esac
			done
		done
		fab_apply "$p" "$i" || return 1
	done
	fab_save
}

fab_restore() {	# fab_restore [I|all] [plane=P|all]
	local sp=${1:-all} p i h k
	[ $# -gt 0 ] && shift
	fab_load || return 1
	fab_args "$@"
	[ "$PL" = 0 ] && [ "$sp" = all ] && PL=all
	for p in $(fab_range "$PL" $((FAB_P - 1)) 0); do
		for i in $(fab_range "$sp" "$FAB_K" 1); do
			for h in 1 2; do
				$IP -n "$(fab_spine "$i" "$p")" route replace "$(fab_net $h "$p")" \
					via "$(fab_link $h "$i" "$p").1" dev "l$h" || return 1
			done
			for k in "${!FAB_SLOW[@]}" "${!FAB_BH[@]}"; do
				case $k in "$p.$i."*) unset "FAB_SLOW[$k]" "FAB_BH[$k]";; esac
			done
			fab_apply "$p" "$i" || return 1
		done
	done
	fab_save
}

fab_plane_down() {	# fab_plane_down P [mode=carrier|silent|admin]
	local p=$1 mode=carrier a h
	shift
	for a; do case $a in mode=*) mode=${a#*=};; *) fab_die "plane-down: unknown $a"; return 1;; esac; done
	fab_load || return 1
	[ "$p" -ge 0 ] && [ "$p" -lt "$FAB_P" ] || { fab_die "no plane $p"; return 1; }
	for h in 1 2; do
		case $mode in
		carrier) $IP -n "$(fab_leaf $h "$p")" link set dn down;;
		silent) $IP -n "$(fab_leaf $h "$p")" route replace blackhole "$(fab_net $((3 - h)) "$p")";;
		admin) fab_hx $h $IP link set "$(fab_if $h "$p")" down;;
		*) fab_die "mode: carrier|silent|admin"; return 1;;
		esac || return 1
	done
	FAB_PDOWN[$p]=$mode
	fab_save
}

fab_plane_up() {	# fab_plane_up P
	local p=$1 mode h j
	fab_load || return 1
	mode=${FAB_PDOWN[$p]:-}
	for h in 1 2; do
		case $mode in
		carrier) $IP -n "$(fab_leaf $h "$p")" link set dn up;;
		silent) fab_ecmp replace $h "$p" | $IP -n "$(fab_leaf $h "$p")" -batch -;;
		admin)
			fab_hx $h $IP link set "$(fab_if $h "$p")" up
			if [ "$FAB_HOSTS" = netns ]; then
				fab_hx $h $IP route replace "$(fab_net $((3 - h)) "$p")" via "$(fab_gw $h "$p")" dev "$(fab_if $h "$p")"
			else
				for ((j = 1; j <= FAB_ADDRS; j++)); do
					$IP route replace "$(fab_ip $((3 - h)) "$p" $j)" via "$(fab_gw $h "$p")" dev "$(fab_if $h "$p")" \
						src "$(fab_ip $h "$p" $j)" table $((200 + 2 * p + h))
				done
			fi;;
		"") ;;
		esac
	done
	unset "FAB_PDOWN[$p]"
	fab_save
}

# ---- looking at it --------------------------------------------------------
fab_which() {	# fab_which SPORT... [plane=P] [dport=4796] [dir=fwd]: the spine ECMP picks, one line each
	local a p=0 dport=4796 dir=fwd s d line
	local -a ports=()
	for a; do
		case $a in plane=*) p=${a#*=};; dport=*) dport=${a#*=};; dir=*) dir=${a#*=};; *) ports+=("$a");; esac
	done
	fab_load || return 1
	if [ "$dir" = fwd ]; then s=1 d=2; else s=2 d=1; fi
	for a in "${ports[@]}"; do
		echo "route get $(fab_ip $d "$p") from $(fab_ip $s "$p") iif dn ipproto udp sport $a dport $dport"
	done | $IP -n "$(fab_leaf $s "$p")" -batch - | while read -r line; do
		[[ $line =~ dev\ s([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
	done
}

fab_netdev() {	# fab_netdev PID: NETDEV_RX[IF] NETDEV_TX[IF] ... from /proc/PID/net/dev
	local line ifc
	local -a f
	NETDEV_RXB=() NETDEV_TXB=() NETDEV_RXP=() NETDEV_TXP=() NETDEV_TXD=()
	while read -r line; do
		[[ $line == *:* ]] || continue
		ifc=${line%%:*}; read -r -a f <<<"${line#*:}"
		NETDEV_RXB[$ifc]=${f[0]} NETDEV_RXP[$ifc]=${f[1]} NETDEV_TXB[$ifc]=${f[8]} NETDEV_TXP[$ifc]=${f[9]} NETDEV_TXD[$ifc]=${f[11]}
	done < "/proc/$1/net/dev"
}
declare -A NETDEV_RXB NETDEV_TXB NETDEV_RXP NETDEV_TXP NETDEV_TXD

fab_qdrops() {	# fab_qdrops NS DEV: packets the root qdisc dropped
	$TC -n "$1" -s qdisc show dev "$2" 2>/dev/null | sed -n 's/.*(dropped \([0-9]*\).*/\1/p' | head -1
}

fab_stats() {	# fab_stats [plane=P]: a table per spine
	local a p=0 i fb fp rb rp
	for a; do case $a in plane=*) p=${a#*=};; esac; done
	fab_load || return 1
	printf '%-6s %14s %12s %14s %12s %8s %8s %s\n' spine fwd_bytes fwd_pkts rev_bytes rev_pkts fwd_drop rev_drop state
	declare -A L1B L1P
	fab_netdev "${FAB_PID[$p.1]}"
	for ((i = 1; i <= FAB_K; i++)); do L1B[$i]=${NETDEV_TXB[s$i]:-0} L1P[$i]=${NETDEV_TXP[s$i]:-0}; done
	fab_netdev "${FAB_PID[$p.2]}"
	for ((i = 1; i <= FAB_K; i++)); do
		fb=${L1B[$i]} fp=${L1P[$i]} rb=${NETDEV_TXB[s$i]:-0} rp=${NETDEV_TXP[s$i]:-0}
		printf '%-6s %14s %12s %14s %12s %8s %8s %s\n' "$i" "$fb" "$fp" "$rb" "$rp" \
			"$(fab_qdrops "$(fab_leaf 1 "$p")" "s$i")" "$(fab_qdrops "$(fab_leaf 2 "$p")" "s$i")" \
			"$([ -n "${FAB_BH[$p.$i.fwd]:-}${FAB_BH[$p.$i.rev]:-}" ] && echo blackhole)$(fab_slowtag "$p" "$i")"
	done
}
fab_slowtag() { local k; for k in "${!FAB_SLOW[@]}"; do case $k in "$1.$2."*) echo -n " slow"; return;; esac; done; }

fab_show() {
	local p i k
	fab_load || return 1
	echo "fabric: $FAB_K spines, $FAB_P plane(s), hosts=$FAB_HOSTS, mtu $FAB_MTU, addrs $FAB_ADDRS"
	for ((p = 0; p < FAB_P; p++)); do
		echo "plane $p: host 1 $(fab_if 1 $p) $(fab_ip 1 $p)${FAB_HOSTS/init/}, host 2 $(fab_if 2 $p) $(fab_ip 2 $p)${FAB_PDOWN[$p]:+ DOWN (${FAB_PDOWN[$p]})}"
	done
	for k in $(printf '%s\n' "${!FAB_KN[@]}" | sort); do echo "  knob $k=${FAB_KN[$k]}"; done
	for k in $(printf '%s\n' "${!FAB_SLOW[@]}" | sort); do echo "  slow $k=${FAB_SLOW[$k]}"; done
	for k in $(printf '%s\n' "${!FAB_BH[@]}" | sort); do echo "  blackhole $k"; done
	for ((p = 0; p < FAB_P; p++)); do
		echo "plane $p leaf 1 route: $($IP -n "$(fab_leaf 1 $p)" route show "$(fab_net 2 $p)" | tr -s ' \n' ' ')"
		for ((i = 1; i <= FAB_K; i++)); do
			echo "  spine $i: fwd leaf qdisc: $($TC -n "$(fab_leaf 1 $p)" qdisc show dev s$i | head -1)"
			echo "           fwd spine qdisc: $($TC -n "$(fab_spine $i $p)" qdisc show dev l2 | tr '\n' ';')"
		done
	done
}

fab_reach() {	# fab_reach P: host 1 pings host 2 over plane P
	fab_hx 1 ping -c 1 -W 2 -I "$(fab_ip 1 "$1")" "$(fab_ip 2 "$1")" >/dev/null
}

fab_check() {	# routes, reachability, the ECMP spread of 64 source ports
	local p s n ok=0
	declare -A cnt
	fab_load || return 1
	for ((p = 0; p < FAB_P; p++)); do
		if [ -n "${FAB_PDOWN[$p]:-}" ]; then echo "plane $p: down (${FAB_PDOWN[$p]})"; continue; fi
		if fab_reach $p; then echo "plane $p: host 1 -> host 2 reachable"; else echo "plane $p: host 2 NOT reachable"; ok=1; fi
		cnt=()
		for n in $(fab_which $(seq 49152 49215) plane=$p); do cnt[$n]=$((${cnt[$n]:-0} + 1)); done
		echo -n "plane $p: 64 UDP source ports over the spines:"
		for ((n = 1; n <= FAB_K; n++)); do echo -n " s$n=${cnt[$n]:-0}"; done
		echo
		[ ${#cnt[@]} -eq "$FAB_K" ] || [ "$FAB_K" -gt 16 ] || { echo "plane $p: some spine gets no port"; ok=1; }
	done
	return $ok
}

fab_env() {	# shell assignments for the hosts
	local p h
	fab_load || return 1
	echo "FAB_K=$FAB_K FAB_P=$FAB_P FAB_HOSTS=$FAB_HOSTS FAB_ADDRS=$FAB_ADDRS"
	for ((p = 0; p < FAB_P; p++)); do
		for h in 1 2; do echo "H${h}P${p}_IF=$(fab_if $h $p) H${h}P${p}_IP=$(fab_ip $h $p) H${h}_NS=$(fab_ns $h)"; done
	done
	if [ "$FAB_HOSTS" = netns ]; then echo "H1_MGMT=10.254.0.1 H2_MGMT=10.254.0.2"; else echo "H1_MGMT=127.0.0.1 H2_MGMT=127.0.0.1"; fi
}

# ---- the sampler ----------------------------------------------------------
# fab_sample [interval=0.1] [secs=N] [plane=all] [rdma=DEV:C1,C2/DEV2:C3] [net=IF,IF]
# Columns: t (CLOCK_REALTIME seconds, as $EPOCHREALTIME), per plane and spine
# the fwd and rev bytes (p0s1f p0s1r ...: what the leaves sent to the
# spine), per host netdev (host namespace) rx and tx bytes, then the RDMA
# hw counters. Cumulative values; stops after secs (0: when killed). Uses
# mroce-fabric-sample (bench/guest/fabric-sample.c) when it is next to this
# script or in PATH, else a slower shell loop.
fab_sample() {
	local iv=0.1 secs=0 pl=all rdma="" net="" a p i h dev k ms v
	local -a planes=() devs=() nets=() spec=() c=()
	for a; do
		case $a in
		interval=*) iv=${a#*=};; secs=*) secs=${a#*=};; plane=*) pl=${a#*=};;
		rdma=*) rdma=${a#*=};; net=*) net=${a#*=};;
		*) fab_die "sample: unknown $a"; return 1;;
		esac
	done
	fab_load || return 1
	read -r -a planes <<<"$(fab_range "$pl" $((FAB_P - 1)) 0 | tr '\n' ' ')"
	IFS=, read -r -a nets <<<"$net"
	IFS=/ read -r -a devs <<<"$rdma"
	for p in "${planes[@]}"; do
		for ((i = 1; i <= FAB_K; i++)); do
			spec+=("p${p}s${i}f=/proc/${FAB_PID[$p.1]}/net/dev:s$i:8" "p${p}s${i}r=/proc/${FAB_PID[$p.2]}/net/dev:s$i:8")
		done
	done
	for a in "${nets[@]}"; do
		h=${a#h}; h=${h%%p*}
		if [ "$FAB_HOSTS" = netns ] && [ -n "${FAB_PID[h$h]:-}" ]; then
			spec+=("$a.rx=/proc/${FAB_PID[h$h]}/net/dev:$a:0" "$a.tx=/proc/${FAB_PID[h$h]}/net/dev:$a:8")
		else
			spec+=("$a.rx=/sys/class/net/$a/statistics/rx_bytes" "$a.tx=/sys/class/net/$a/statistics/tx_bytes")
		fi
	done
	for a in "${devs[@]}"; do
		dev=${a%%:*}
		IFS=, read -r -a c <<<"${a#*:}"
		for k in "${c[@]}"; do spec+=("$dev.$k=/sys/class/infiniband/$dev/ports/1/hw_counters/$k"); done
	done
	ms=$(awk -v i="$iv" 'BEGIN { printf "%d", i * 1000 }')
	if v=$(command -v "$FAB_HERE/mroce-fabric-sample" mroce-fabric-sample | head -1) && [ -n "$v" ]; then
		exec "$v" -i "$ms" -d "$secs" "${spec[@]}"
	fi
	fab_sample_sh "$ms" "$secs" "${spec[@]}"
}

fab_sample_sh() {	# the same in bash (slow: ~20 ms a tick in TCG)
	local ms=$1 secs=$2 s line v t0 now fd n f
	shift 2
	line=t
	for s; do line="$line	${s%%=*}"; done
	echo "$line"
	mkfifo "$FAB_RUN/tick.$$" && exec {fd}<>"$FAB_RUN/tick.$$" && rm -f "$FAB_RUN/tick.$$" || return 1
	t0=${EPOCHREALTIME/./}
	while :; do
		line=$EPOCHREALTIME
		for s; do
			f=${s#*=}
			if [[ $f == *:*:* ]]; then
				n=${f#*:}; v=-
				while read -r s; do
					[ "${s%%:*}" = "${n%%:*}" ] || continue
					read -r -a s <<<"${s#*:}"; v=${s[${n#*:}]}; break
				done < "${f%%:*}"
			else
				read -r v < "$f" 2>/dev/null || v=-
			fi
			line="$line	${v%%[^0-9]*}"
		done
		echo "$line"
		now=${EPOCHREALTIME/./}
		[ "$secs" != 0 ] && [ $(( (now - t0) / 1000 )) -ge $((secs * 1000)) ] && break
		v=$(( ms * 1000 - (now - t0) % (ms * 1000) ))
		read -r -t "$((v / 1000000)).$(printf '%06d' $((v % 1000000)))" -u "$fd" _ || true
	done
}

# ---- command line ---------------------------------------------------------
fab_main() {
	local cmd=${1:-}
	[ $# -gt 0 ] && shift
	case $cmd in
	up) fab_up "$@";;
	down) fab_down;;
	set) fab_set "$@";;
	blackhole) fab_blackhole "$@";;
	slow) fab_slow "$@";;
	restore) fab_restore "$@";;
	plane-down) fab_plane_down "$@";;
	plane-up) fab_plane_up "$@";;
	which) fab_which "$@";;
	stats) fab_stats "$@";;
	sample) fab_sample "$@";;
	show) fab_show;;
	check) fab_check;;
	env) fab_env;;
	-h|--help|help|"") sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" | sed '/^shellcheck/d';;
	*) fab_die "unknown command $cmd (--help)";;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	fab_main "$@"
fi
