# shellcheck shell=bash
# Guest race stress (issue 29): verbs calls the kernel runs at once, bounded
# in time. On any kernel; on the debug kernel (run-guest.sh -D) a
# use-after-free, a lock taken wrongly or a list corrupted shows as a report.
#
#   doorbell  mroce-race doorbell: one thread rings an RC QP's SQ doorbell
#             (empty POST_SEND) while another cycles the QP RESET -> INIT
#             -> RTR -> RTS, each RTR to the next of 8 node addresses, with
#             max_peers=4 so that the peer the QP left is reclaimed and
#             freed at once (one user may hold 2 of them: an RTR that
#             finds both still held is refused with ENOMEM, counted by
#             the tool and allowed). The doorbell must take the peer with a
#             reference under the QP's lock and kick the stream only under
#             the lock of the peer it belongs to.
#
#   mr        mroce-race mr between mA and mB (topo_netns): WRITEs and
#             READs in flight while the target MR is deregistered and
#             registered, re-registered (translation, rights), covered by a
#             type 2 window that is then invalidated, and the requester's
#             sink MR swapped; placement meets every one of them.
#   destroy   mroce-race destroy with 20 % loss on both ends: QPs destroyed
#             with operations in flight and the connection's timers armed.
#             The ARP entries are pinned first: netem drops ARP too, and
#             an RTR whose address resolution loses it fails (ETIMEDOUT).
#   link      mroce-race traffic, and under it rdma link delete of the
#             responder's device (its ucontext disassociated); the device
#             is added again.
#   rmmod     mroce-race traffic, and under it rmmod mroce (every device
#             removed); then mroce loads again and carries traffic.
#
# Each phase asserts: the tool's calls behaved (exit 0), no kernel
# warning, BUG, Oops, KASAN/UBSAN report, lockdep splat, list corruption,
# soft lockup or RCU stall; the doorbell phase never more than max_peers
# peers. The run ends with the devices deleted and mroce unloaded (every
# peer reference given back).
#
#   scripts/vm/run-guest.sh -P -t 400 -n race tests/vm/race.sh [-- ARGS]
#     secs=20                            each phase's time
#     phases="doorbell mr destroy link rmmod"   the phases to run
#     loss=20                            the destroy phase's netem loss, %
. /mnt/host/lib.sh
. /mnt/host/topo.sh

SECS=20 PHASES="doorbell mr destroy link rmmod" LOSS=20
for a in "$@"; do
	case $a in
	secs=*) SECS=${a#*=};;
	phases=*) PHASES=${a#*=};;
	loss=*) LOSS=${a#*=};;
	"") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
KBAD='WARNING|BUG|Oops|soft lockup|detected stall|RCU stall|KASAN|UBSAN|possible circular|inconsistent lock|list_add corruption|list_del corruption|ODEBUG'
DEV=mR IP=198.18.9.1
ADDRS="198.18.9.10 198.18.9.11 198.18.9.12 198.18.9.13 198.18.9.14 198.18.9.15 198.18.9.16 198.18.9.17"
PEERS=/sys/kernel/debug/mroce/$DEV/peers

echo 5 > /proc/sys/kernel/watchdog_thresh
echo 10 > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null
t_ok "install mroce" mroce_install
t_ok "load modules (max_peers=4 peer_idle_s=1)" bash -c \
	"modprobe -a ib_uverbs dummy && modprobe mroce max_peers=4 peer_idle_s=1"
ip link add d0 type dummy && ip addr add "$IP/24" dev d0 && ip link set d0 up
t_ok "device $DEV on a dummy netdev" rdma link add "$DEV" type mroce netdev d0
t_ok "GID of $IP" t_wait 10 gid_index "$DEV" "$IP"
GIDX=$(gid_index "$DEV" "$IP")
on() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }

# phase_start NAME CMD...: CMD in the background (its output in
# /tmp/race-NAME), the kernel log from here on watched
phase_start() {
	PH=$1
	shift
	PH_K0=$(dmesg | wc -l)
	timeout $((SECS * 4 + 180)) "$@" > "/tmp/race-$PH" 2>&1 &
	PH_PID=$!
}

# phase_end: the tool's exit and the kernel's log of the phase asserted
phase_end() {
	local rc
	wait "$PH_PID"; rc=$?
	sed 's/^/#   /' "/tmp/race-$PH"
	dmesg | tail -n +$((PH_K0 + 1)) > "/tmp/race-$PH.dmesg"
	grep -E "$KBAD" "/tmp/race-$PH.dmesg" | head -5 | sed "s/^/# $PH: dmesg: /"
	t_ok "$PH: the tool's calls behaved (exit $rc)" test "$rc" = 0
	t_ok "$PH: no kernel report" bash -c "! grep -qE '$KBAD' /tmp/race-$PH.dmesg"
}

doorbell() {
	local max=0 n
	phase_start doorbell mroce-race doorbell "$DEV" "$GIDX" "$SECS" $ADDRS
	while kill -0 "$PH_PID" 2>/dev/null; do
		n=$(grep -c '^peer ' "$PEERS" 2>/dev/null)
		[ "${n:-0}" -gt "$max" ] && max=$n
		sleep 0.5
	done
	phase_end
	echo "# doorbell: at most $max peers; peers_reclaimed $(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_reclaimed), peers_limited $(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_limited)"
	t_ok "doorbell: never more than max_peers peers (at most $max)" test "$max" -le 4
	t_ok "doorbell: peers were reclaimed under the race" \
		test "$(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_reclaimed)" -gt 0
}
on doorbell && doorbell
t_ok "rdma link delete $DEV" rdma link delete "$DEV"

# the pair's devices, mA in nsA and mB in nsB, and their GIDs
pair_up() {	# (sets CG and SG: not in a subshell)
	topo_netns mroce && t_wait 10 bash -c \
		". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP" &&
		CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")
}
pair_up
t_ok "pair of devices on a veth pair, their GIDs ($CG, $SG)" test -n "$CG" -a -n "$SG"

if on mr; then
	snap "$C_DEV" "$S_DEV"
	phase_start mr mroce-race mr "$C_DEV" "$CG" "$S_DEV" "$SG" "$SECS"
	phase_end
	echo "# mr: counters that moved: $(delta "$C_DEV" "$S_DEV")"
	t_ok "mr: every kind of change met operations in flight" \
		grep -qE 'churned: [1-9][0-9]* dereg.* [1-9][0-9]* rereg translation, [1-9][0-9]* rereg rights, [1-9][0-9]* windows, [1-9][0-9]* sink' /tmp/race-mr
fi

if on destroy; then
	# every cycle connects under the loss: ARP is kept out of it
	t_ok "destroy: ARP entries pinned" neigh_pin
	netem_on loss "$LOSS%"
	phase_start destroy mroce-race destroy "$C_DEV" "$CG" "$S_DEV" "$SG" "$SECS"
	phase_end
	netem_off
	neigh_unpin
fi

# under_traffic NAME CMD...: CMD while mroce-race traffic runs; the tool
# must see its device go and end
under_traffic() {
	local name=$1
	shift
	phase_start "$name" mroce-race traffic "$C_DEV" "$CG" "$S_DEV" "$SG" $((SECS * 3))
	t_wait 30 grep -q 'race traffic: connected' "/tmp/race-$name"
	sleep 2
	t_ok "$name: $* under traffic" timeout $((120 * T_SCALE)) "$@"
	phase_end
	t_ok "$name: the tool saw the device go" grep -q 'a device went away' "/tmp/race-$name"
}
if on link; then
	under_traffic link rdma link delete "$S_DEV"
	t_ok "link: $S_DEV added again" "${SX[@]}" rdma link add "$S_DEV" type mroce netdev "$S_IF"
	t_ok "link: its GID back" t_wait 10 gid_index "$S_DEV" "$S_IP"
	SG=$(gid_index "$S_DEV" "$S_IP")
fi

if on rmmod; then
	under_traffic rmmod rmmod mroce
	topo_netns_del
	t_ok "rmmod: mroce loads again" modprobe mroce
	CG="" SG=""
	pair_up
	t_ok "rmmod: devices added again" test -n "$CG" -a -n "$SG"
	phase_start again mroce-race traffic "$C_DEV" "$CG" "$S_DEV" "$SG" 3
	phase_end
	t_ok "again: traffic completed" grep -qE 'race traffic: [1-9][0-9]* operations completed' /tmp/race-again
	topo_netns_del
fi
t_ok "rmmod mroce (every reference given back)" rmmod mroce
KALL=$(dmesg | grep -E "$KBAD" | head -3)
[ -n "$KALL" ] && echo "$KALL" | sed 's/^/# dmesg: /'
t_ok "kernel log clean over the whole run" test -z "$KALL"
t_done
