# shellcheck shell=bash disable=SC2046
# Guest test of the limits on new peers (issue 29, item 7; kernel/peertab.c,
# Documentation/mroce.rst max_peers, max_peer_mb, max_peers_per_user). One
# device on a dummy netdev; mroce-peers takes an RC QP per address to RTR
# (making that node's peer) and holds them; mroce-asuser runs it as
# unprivileged users (uids 65534, 65533, 65532).
#
#   own       max_peers=8: QPs may make 7 peers (an eighth is left to
#             CONNECTs), a user at most half of that: 3. A user makes 3,
#             lets go of them (its QPs are destroyed, the peers stay until
#             peer_idle_s) and makes 3 to other nodes: its own unused
#             peers are freed at once to make room.
#   quota     the first user's QPs to 8 new nodes: 3 made, 5 refused with
#             ENOMEM (peers_user_limited). Another user can still make
#             peers to new nodes (before the limit per user: ENOMEM, the
#             first user held every slot); a third makes the 7th and is
#             refused the 8th (peers_limited): left to CONNECTs.
#   bytes     max_peer_mb=1 (a peer counts 132 KiB at window 10: 7 fit),
#             max_peers_per_user=0: root's QPs to 10 new nodes, some
#             refused (peers_mem_limited), none by peers_limited.
#
#   scripts/vm/run-guest.sh -P -t 600 -n peers tests/vm/peers.sh
. /mnt/host/lib.sh
. /mnt/host/topo.sh

DEV=mP IP=198.18.10.1 NET=198.18.10
CTR=/sys/class/infiniband/$DEV/ports/1/hw_counters
PEERS=/sys/kernel/debug/mroce/$DEV/peers
UA=65534 UB=65533 UC=65532
GIDX=
HOLDERS=

ctr() { cat "$CTR/$1"; }
npeers() { grep -c '^peer ' "$PEERS" 2>/dev/null; }
addrs() { local i; for ((i = $1; i <= $2; i++)); do echo "$NET.$i"; done; }

# up PARAMS...: mroce loaded with PARAMS, the device on d0, verbs for all
up() {
	modprobe -a ib_uverbs dummy && modprobe mroce "$@" || return 1
	ip link show d0 >/dev/null 2>&1 || ip link add d0 type dummy || return 1
	ip addr replace "$IP/24" dev d0 && ip link set d0 up || return 1
	rdma link add "$DEV" type mroce netdev d0 || return 1
	t_wait 10 gid_index "$DEV" "$IP" || return 1
	chmod 666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null
	return 0
}

# down: the holders stopped (their QPs go), the device deleted, mroce out
down() {
	local p
	for p in $HOLDERS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	HOLDERS=
	t_ok "rdma link delete $DEV, rmmod mroce (every peer reference back)" \
		bash -c "rdma link delete $DEV && rmmod mroce"
}

# run UID OUT ADDR...: mroce-peers as UID (0: root) to ADDRs, waits for it
run() {
	local uid=$1 out=$2
	shift 2
	if [ "$uid" = 0 ]; then
		mroce-peers "$DEV" "$GIDX" 0 "$@" > "$out" 2>&1
	else
		mroce-asuser "$uid" mroce-peers "$DEV" "$GIDX" 0 "$@" > "$out" 2>&1
	fi
}

# hold UID OUT ADDR...: the same in the background, its QPs held; sets HPID
hold() {
	local uid=$1 out=$2
	shift 2
	mroce-asuser "$uid" mroce-peers "$DEV" "$GIDX" 600 "$@" > "$out" 2>&1 &
	HPID=$!
	HOLDERS="$HOLDERS $HPID"
	t_wait 60 grep -q '^holding' "$out"
}

# said OUT OK NOMEM: the tool's summary is that
said() { grep -q "^peers: $2 ok, $3 ENOMEM, 0 other" "$1"; }
show() { grep '^peers:' "$1" | sed "s/^/# $2: /"; }

t_ok "install mroce" mroce_install
t_ok "mroce max_peers=8, device $DEV on a dummy netdev" up max_peers=8
GIDX=$(gid_index "$DEV" "$IP")

# --- own
run $UA /tmp/peers-own1 $(addrs 10 12)
show /tmp/peers-own1 "own, first"
t_ok "own: a user makes 3 peers (half of the 7 QPs may make)" said /tmp/peers-own1 3 0
run $UA /tmp/peers-own2 $(addrs 13 15)
show /tmp/peers-own2 "own, again"
t_ok "own: its 3 unused peers make room for 3 new ones" said /tmp/peers-own2 3 0
t_ok "own: not refused (peers_user_limited 0)" test "$(ctr peers_user_limited)" = 0

# --- quota
u0=$(ctr peers_user_limited) l0=$(ctr peers_limited)
hold $UA /tmp/peers-a $(addrs 20 27)
show /tmp/peers-a "quota, user $UA"
t_ok "quota: user $UA's QPs to 8 nodes: 3 peers made, 5 refused with ENOMEM" \
	said /tmp/peers-a 3 5
t_ok "quota: counted (peers_user_limited +5)" \
	test "$(($(ctr peers_user_limited) - u0))" = 5
hold $UB /tmp/peers-b $(addrs 30 32)
show /tmp/peers-b "quota, user $UB"
t_ok "quota: user $UB can still make peers to new nodes (3 of 3)" \
	said /tmp/peers-b 3 0
t_ok "quota: debugfs peers names each one's owner (3 of $UA, 3 of $UB)" \
	test "$(grep -c "^peer .* owner $UA\$" "$PEERS")" = 3 -a "$(grep -c "^peer .* owner $UB\$" "$PEERS")" = 3
run $UC /tmp/peers-c $(addrs 40 41)
show /tmp/peers-c "quota, user $UC"
t_ok "quota: user $UC makes the 7th peer, the 8th is left to CONNECTs" \
	said /tmp/peers-c 1 1
t_ok "quota: that one counted as peers_limited (+1)" \
	test "$(($(ctr peers_limited) - l0))" = 1
echo "# quota: $(npeers) peers; peers_user_limited $(ctr peers_user_limited), peers_limited $(ctr peers_limited), peers_reclaimed $(ctr peers_reclaimed)"
t_ok "quota: never more than 7 peers made for QPs" test "$(npeers)" -le 7
down

# --- bytes
t_ok "mroce max_peers=64 max_peer_mb=1 max_peers_per_user=0" \
	up max_peers=64 max_peer_mb=1 max_peers_per_user=0
GIDX=$(gid_index "$DEV" "$IP")
run 0 /tmp/peers-bytes $(addrs 50 59)
show /tmp/peers-bytes "bytes, root"
ok=$(sed -n 's/^peers: \([0-9]*\) ok, \([0-9]*\) ENOMEM, 0 other$/\1/p' /tmp/peers-bytes)
nomem=$(sed -n 's/^peers: \([0-9]*\) ok, \([0-9]*\) ENOMEM, 0 other$/\2/p' /tmp/peers-bytes)
echo "# bytes: $(npeers) peers; peers_mem_limited $(ctr peers_mem_limited), peers_limited $(ctr peers_limited)"
t_ok "bytes: 1 MiB holds some peers, not 10 ($ok made, $nomem refused)" \
	test "${ok:-0}" -ge 1 -a "${ok:-0}" -le 8 -a "${nomem:-0}" -ge 2
t_ok "bytes: refusals counted as peers_mem_limited" \
	test "$(ctr peers_mem_limited)" = "${nomem:-x}"
t_ok "bytes: none as peers_limited or peers_user_limited" \
	test "$(ctr peers_limited)$(ctr peers_user_limited)" = 00
down
KBAD='WARNING|BUG|Oops|soft lockup|RCU stall|KASAN|UBSAN|list_add corruption|list_del corruption'
KALL=$(dmesg | grep -E "$KBAD" | head -3)
[ -n "$KALL" ] && echo "$KALL" | sed 's/^/# dmesg: /'
t_ok "kernel log clean" test -z "$KALL"
t_done
