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
# Each phase asserts: the tool's calls behaved (exit 0), no kernel
# warning, BUG, Oops, KASAN/UBSAN report, lockdep splat, list corruption,
# soft lockup or RCU stall, never more than max_peers peers; then the
# device is deleted and mroce unloads (every peer reference given back).
#
#   scripts/vm/run-guest.sh -P -t 300 -n race tests/vm/race.sh [-- secs=20]
. /mnt/host/lib.sh
. /mnt/host/topo.sh

SECS=20
for a in "$@"; do
	case $a in
	secs=*) SECS=${a#*=};;
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

doorbell() {
	local k0 out=/tmp/race-doorbell max=0 n rc pid
	k0=$(dmesg | wc -l)
	timeout $((SECS + 60)) mroce-race doorbell "$DEV" "$GIDX" "$SECS" $ADDRS > "$out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		n=$(grep -c '^peer ' "$PEERS" 2>/dev/null)
		[ "${n:-0}" -gt "$max" ] && max=$n
		sleep 0.5
	done
	wait "$pid"; rc=$?
	sed 's/^/#   /' "$out"
	echo "# doorbell: at most $max peers; peers_reclaimed $(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_reclaimed), peers_limited $(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_limited)"
	dmesg | tail -n +$((k0 + 1)) > /tmp/race-doorbell.dmesg
	grep -E "$KBAD" /tmp/race-doorbell.dmesg | head -5 | sed 's/^/# doorbell: dmesg: /'
	t_ok "doorbell: the tool's calls behaved (exit $rc)" test "$rc" = 0
	t_ok "doorbell: no kernel report" bash -c "! grep -qE '$KBAD' /tmp/race-doorbell.dmesg"
	t_ok "doorbell: never more than max_peers peers (at most $max)" test "$max" -le 4
	t_ok "doorbell: peers were reclaimed under the race" \
		test "$(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/peers_reclaimed)" -gt 0
}
doorbell

t_ok "rdma link delete $DEV" rdma link delete "$DEV"
t_ok "rmmod mroce (every reference given back)" rmmod mroce
KALL=$(dmesg | grep -E "$KBAD" | head -3)
[ -n "$KALL" ] && echo "$KALL" | sed 's/^/# dmesg: /'
t_ok "kernel log clean over the whole run" test -z "$KALL"
t_done
