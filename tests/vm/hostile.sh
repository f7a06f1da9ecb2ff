# shellcheck shell=bash
# Guest test of the hostile network (the security issue): two mroce nodes
# (topo_netns: mA in nsA, mB in nsB) run a verifying transfer (mroce-xfer:
# every byte checked) while an attacker on the same link (its own address
# 198.18.2.66 in its own namespace nsX, routed through nsA; no peer's; its
# MetaRoCE port is its own, so the victim's RETRYs and RESETs reach it) sends crafted MetaRoCE
# packets (mroce-craft, tests/vm/craft.c) at the victim mB:
#
#   baseline  no attack: the transfer alone, through the same checks (those
#             of the test itself)
#   flood     CONNECTs, each naming a new node (plane-0 address) with a new
#             src_cid
#   proven    CONNECTs as in flood, each sent again with the cookie of
#             the victim's RETRY: proven, but all from the attacker's one
#             address, whatever node their blobs name
#   many      one cookie-proven CONNECT from each of 8 more addresses of
#             the attacker: the module is loaded with max_peers=4 and
#             peer_idle_s=2, so peers no QP uses are reclaimed to make room,
#             and the rest when idle
#   garbage   random and mutated datagrams (seeded)
#   foreign   WRITE / ACK / PROBE / ACCEPT with the live connection id (from
#             the victim's debugfs), at its live TSN, from the attacker
#   forged    one CONNECT claiming to be the victim's real peer (its address
#             as plane 0 of the blob), with a new src_cid; sent again with
#             the cookie the victim's RETRY gave the attacker's own address
#   far-read  one READ_REQ, length 0, rdsn 0xfffffffe, on the live
#             connection and the transfer's QPs, at the live TSN, from
#             the attacker's address (refused: not the peer's). The rdsn
#             window itself is tested on the engine (tests/unit
#             conn_read_far_rdsn_refused, fuzz_conn): a malformed READ from
#             the peer's own address fails the QP it names, as any
#             malformed RC request does, so it cannot run beside a transfer
#
# Each phase runs on freshly created devices (rdma link delete/add: no
# state carries over), attacks a second into the transfer, lets the
# transfer go on 3 s more, and asserts:
#   - the transfer completed with 0 corrupted bytes and no error;
#   - no kernel warning, BUG, Oops, soft lockup or RCU stall appeared (both
#     detectors set to fire after 10 s);
#   - no CPU went STALL_S (2) s without running its pinned heartbeat;
#   - the victim's MemAvailable shrank and its Slab grew by less than
#     mem_limit_mib, from just before the attack to 1 s after it;
#   - the attack reached the victim (rx_packets moved by at least the
#     number of packets sent);
#   - every attack packet was refused under a reason: the victim's drop
#     counters (REFUSED below), with what its kernel dropped before mroce
#     saw it (kernel_drops, topo.sh), moved by at least the number sent,
#     from just before the tool ran to just after it (the victim handles a
#     datagram in the sender's softirq; flood: 1 s after, for the connect
#     work);
#   - flood: the victim made no peer for the nodes named;
#   - proven: it made one, the attacker's (its CONNECTs after the first
#     are challenged on that connection, not refused: the refusal check
#     counts only the CONNECTs without a cookie); the real peer's kept its
#     remote connection id;
# After the phases, a malicious connected peer's SEND for the second of
# two posted receives (mroce-wr-check --idle-recv): no receive completes
# successfully out of order. Then its malformed READ_REQ naming the
# peer's next message (mroce-wr-check --idle-read): the victim's QP fails
# and flushes, the peer completes nothing, no CPU stalls, the log is clean.
# Last, frames from the victim's own address, spoofed by the attacker: the
# stack drops them (software datapath), or mroce does (rx_drop_src_ours,
# on the software NIC, whose upcall comes before the stack's checks).
#   - many: never more than max_peers (4) peers; peers reclaimed to make
#     room (peers_reclaimed); 4 s later at most the real peer is left
#     (idle too once the transfer ended), whose connection kept its remote
#     id while the transfer's QP used it;
#   - forged: the real peer's connection kept its remote connection id.
# A connection the attack broke adds drops of its own (drop_state) to the
# refusals; the transfer's assertion catches that. Figures: "#" lines.
#
#   scripts/vm/run-guest.sh -P -t 600 -n hostile tests/vm/hostile.sh [-- ARGS]
#     phases="baseline flood proven many garbage foreign forged far-read"
#     flood=2000 flood_rate=400   CONNECTs, a second (0: as fast as possible)
#     garbage=2000 foreign=200    datagrams
#     far_rdsn=0xfffffffe         the far READ's rdsn
#     xfer_ops=100 xfer_max=262144   mroce-xfer operations at least (it goes
#                        on until 3 s after the attack), largest message
#     mem_limit_mib=16   seed=N
#     datapath=software|swnic   swnic: both devices run on the software NIC
#                        (mroce_swnic, Documentation/offload.rst): the
#                        attack crosses its receive checks first
#
# Logs: $RIG_OUT/hostile/ (scripts/vm/runs/NAME/share/out/hostile/ on the
# host): PHASE-xfer.{srv,cli}, PHASE-craft.out, PHASE-peers (the victim's
# debugfs after the attack), PHASE-dmesg.
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/hostile
. /mnt/host/topo.sh

PHASES="baseline flood proven many garbage foreign forged far-read"
PROVEN=200 FLOOD=2000 FLOOD_RATE=400 GARBAGE=2000 FOREIGN=200 FAR_RDSN=0xfffffffe
XOPS=100 XMAX=262144 MEM_LIMIT_MIB=16 SEED=$RANDOM DP=software
for a in "$@"; do
	case $a in
	datapath=software|datapath=swnic) DP=${a#*=};;
	phases=*) PHASES=${a#*=};; proven=*) PROVEN=${a#*=};; flood=*) FLOOD=${a#*=};; flood_rate=*) FLOOD_RATE=${a#*=};;
	garbage=*) GARBAGE=${a#*=};; foreign=*) FOREIGN=${a#*=};; far_rdsn=*) FAR_RDSN=${a#*=};;
	xfer_ops=*) XOPS=${a#*=};; xfer_max=*) XMAX=${a#*=};;
	mem_limit_mib=*) MEM_LIMIT_MIB=${a#*=};; seed=*) SEED=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

ATK_IP=198.18.2.66
# The victim's counters that count a refused packet: every drop reason of
# the glue and the engine (Documentation/mroce.rst), and the CONNECTs
# without a valid cookie (answered with a RETRY, nothing kept).
REFUSED='^(rx_drop_|ud_drop_|drop_)'
REFUSED_EXTRA="connect_cookie"
KBAD='WARNING|BUG|Oops|soft lockup|detected stall|RCU stall'
PEERS=/sys/kernel/debug/mroce/mB/peers

ctr() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0; }
refused_now() {	# refused_now DEV: "NAME VALUE" of each REFUSED counter
	local f n v
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		n=${f##*/}
		[[ $n =~ $REFUSED ]] || [[ " $REFUSED_EXTRA " == *" $n "* ]] || continue
		read -r v < "$f"; echo "$n $v"
	done
}
refused_diff() {	# refused_diff BEFORE AFTER: "SUM name=+N ..." of what moved
	awk 'NR == FNR {b[$1] = $2; next} $2 != b[$1] {d = $2 - b[$1]; s += d; l = l " " $1 "=+" d}
		END {print s + 0 l}' "$1" "$2"
}
mem_kib() { awk '/^MemAvailable:/ {a = $2} /^Slab:/ {s = $2} END {print a, s}' /proc/meminfo; }
npeers() { grep -c '^peer ' "$PEERS" 2>/dev/null; }
peer_line() { grep -m1 "^peer $C_IP " "$PEERS" 2>/dev/null; }	# the real peer, A
established() { peer_line | grep -q ' established '; }
rc_qp() {	# rc_qp DEV: "LQPN RQPN" of the transfer's RC QP
	rdma res show qp link "$1/1" 2>/dev/null |
		sed -n 's/.* lqpn \([0-9]*\) rqpn \([0-9]*\) type RC state RTS.*/\1 \2/p' | head -1
}
# (from init_net into nsA by the tool itself, after it opened the victim's
# debugfs: ip netns exec would mount a /sys without debugfs)
craft() { timeout 90 mroce-craft --netns nsX --dst "$S_IP" --src "$ATK_IP" --sport 4796 "$@"; }

fresh_devices() {
	"${CX[@]}" rdma link delete "$C_DEV" 2>/dev/null
	"${SX[@]}" rdma link delete "$S_DEV" 2>/dev/null
	"${CX[@]}" rdma link add "$C_DEV" type mroce netdev "$C_IF" &&
	"${SX[@]}" rdma link add "$S_DEV" type mroce netdev "$S_IF" || return 1
	if [ "$DP" = swnic ] && ! grep -qx mroce_swnic "/sys/class/infiniband/$S_DEV/datapath"; then
		echo "$S_DEV is not on the software NIC"; return 1
	fi
	t_wait 10 port_active "$C_DEV" && t_wait 10 port_active "$S_DEV" &&
	t_wait 10 gid_index "$C_DEV" "$C_IP" >/dev/null && t_wait 10 gid_index "$S_DEV" "$S_IP" >/dev/null || return 1
	CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")
}

# the attacks: each prints the tool's output; the tool's summary line
# "craft MODE: sent N ..." says how many packets went
atk_flood() { craft --count "$FLOOD" --rate "$FLOOD_RATE" connect-flood; }
atk_garbage() { craft --count "$GARBAGE" --seed "$SEED" garbage; }
# DATA goes at the victim's receive base (read by the tool right before
# each packet) + 200: ahead of what the real peer has in flight, inside
# the 1024-TSN window
atk_foreign() { craft --count "$FOREIGN" --peers "$PEERS" --peer "$C_IP" --tsn-ahead 200 foreign; }
atk_proven() { craft --count "$PROVEN" --rate 100 --cookie --wait-ms 300 connect-flood; }
MANY_ADDRS="198.18.2.67 198.18.2.68 198.18.2.69 198.18.2.70 198.18.2.71 198.18.2.72 198.18.2.73 198.18.2.74"
atk_many() {
	local a n=0
	for a in $MANY_ADDRS; do
		craft --src "$a" --count 1 --cookie --wait-ms 300 connect-flood | tail -1
		n=$((n + 2))
		sleep 0.2	# the victim makes the peer in its connect work
		echo "# peers now $(npeers)" >> "$PAIR_LOG/many-npeers"
	done
	echo "craft many: sent $n CONNECTs from $(echo $MANY_ADDRS | wc -w) addresses"
}
atk_forged() { craft --claim "$C_IP" --cookie -v forged-connect; }
atk_far_read() {
	local q; q=$(rc_qp "$S_DEV")
	[ -n "$q" ] || { echo "no RC QP on $S_DEV"; return 1; }
	set -- $q
	craft --peers "$PEERS" --peer "$C_IP" --tsn-ahead 200 \
		--dst-stream "$1" --src-stream "$2" --rdsn "$FAR_RDSN" -v read-far
}

# a heartbeat on every CPU (pinned): a CPU stuck in the kernel (softirq,
# a spinlock) shows as a gap in its beats
beat_start() {	# beat_start PHASE
	local c
	BEATS=()
	for ((c = 0; c < $(nproc); c++)); do
		taskset -c "$c" bash -c 'while :; do read -r u _ < /proc/uptime; echo "$u"; sleep 0.1; done' \
			> "$PAIR_LOG/$1-beat$c" 2>/dev/null &
		BEATS+=($!)
	done
}
beat_stop() { kill "${BEATS[@]}" 2>/dev/null; wait "${BEATS[@]}" 2>/dev/null; }
beat_gap() {	# beat_gap PHASE: the longest gap between two beats of one CPU, s
	awk 'FNR == 1 {p = ""} {if (p != "" && $1 - p > m) m = $1 - p; p = $1} END {printf "%.1f\n", m}' \
		"$PAIR_LOG/$1"-beat*
}
STALL_S=2

sent_of() { sed -n 's/^craft [a-z-]*: sent \([0-9]*\) .*/\1/p' "$1" | tail -1; }
xfer_line() { grep -m1 -E '^xfer: [0-9]+ ops' "$PAIR_LOG/$1-xfer.cli" 2>/dev/null; }
xfer_clean() {	# xfer_clean PHASE: exit status 0 and 0 corrupted bytes
	read -r crc src < "$PAIR_LOG/$1-xfer.rc" 2>/dev/null || return 1
	xfer_line "$1"
	[ "$crc" = 0 ] && [ "$src" = 0 ] && xfer_line "$1" | grep -q ' 0 bytes corrupted, 0 checksum mismatches, 0 errors'
}
kernel_clean() { ! grep -E "$KBAD" "$PAIR_LOG/$1-dmesg"; }

since() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN {printf "%.1f", b - a}'; }

phase() {	# phase NAME
	local ph=$1 fn=atk_${1//-/_} m0 m1 klines xp t0 t1 sent rx ref r0 r1 x stop
	echo "# --- phase $ph"
	# (in this shell: it sets CG and SG)
	if fresh_devices > "$PAIR_LOG/$ph-devices.out" 2>&1; then
		echo "ok - $ph: fresh devices $C_DEV, $S_DEV"; T_PASS=$((T_PASS + 1))
	else
		echo "not ok - $ph: fresh devices $C_DEV, $S_DEV"; T_FAIL=$((T_FAIL + 1))
		sed 's/^/#   /' "$PAIR_LOG/$ph-devices.out"; return
	fi
	klines=$(dmesg | wc -l)
	beat_start "$ph"
	snap "$C_DEV" "$S_DEV"
	# the client goes on past its operations until the stop file exists:
	# the transfer outlasts the attack whatever the machine's speed
	stop=/tmp/hostile-stop.$ph; rm -f "$stop"
	pair "$ph-xfer" 300 ready=tcp:18600 mroce-xfer -d "$S_DEV" -g "$SG" -T 30 -- \
		mroce-xfer -d "$C_DEV" -g "$CG" -n "$XOPS" -m "$XMAX" -T 30 -S "$SEED" -U "$stop" "$S_IP" \
		> "$PAIR_LOG/$ph-pair.out" 2>&1 &
	xp=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	# the transfer is running: connection up, QP connected, a second in
	t_wait 60 bash -c "grep -q '^peer $C_IP .* established ' $PEERS && rdma res show qp link $S_DEV/1 | grep -q 'type RC state RTS'" ||
		echo "# $ph: the transfer did not start within 60 s"
	sleep 1
	r0=$(peer_line)
	t1=$(cut -d' ' -f1 /proc/uptime)
	m0=$(mem_kib)
	{ refused_now "$S_DEV"; kernel_drops; } > "$PAIR_LOG/$ph-ref0"
	"$fn" > "$PAIR_LOG/$ph-craft.out" 2>&1
	# the victim handled the datagrams in the sender's softirq, CONNECTs
	# from new nodes (and one claiming the real peer) in its connect
	# work: let that drain. On the debug kernel (T_SCALE > 1) every phase
	# drains: there far-read's one datagram was counted only after its
	# window (the softirqs run later on that kernel, ksoftirqd likely)
	case $ph in flood|proven|forged) sleep "$T_SCALE";; *) [ "$T_SCALE" -le 1 ] || sleep "$T_SCALE";; esac
	{ refused_now "$S_DEV"; kernel_drops; } > "$PAIR_LOG/$ph-ref1"
	sleep 1
	m1=$(mem_kib)
	echo "# $ph: attack at +$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s into the transfer, took $(since "$t1") s with the 1 s after it:"
	grep -E '^craft|^  (DATA|CONNECT)' "$PAIR_LOG/$ph-craft.out" | sed 's/^/#   /'
	r1=$(peer_line)
	cp "$PEERS" "$PAIR_LOG/$ph-peers" 2>/dev/null
	sleep 2		# more of the transfer after the attack, then stop it
	touch "$stop"
	wait "$xp"
	beat_stop
	echo "# $ph: transfer took $(since "$t0") s"
	dmesg | tail -n +$((klines + 1)) > "$PAIR_LOG/$ph-dmesg"
	sed 's/^/#   /' "$PAIR_LOG/$ph-pair.out" | head -30

	t_ok "$ph: transfer completed, 0 bytes corrupted ($(xfer_line "$ph" | cut -c1-90))" xfer_clean "$ph"
	t_ok "$ph: no kernel warning, BUG, Oops, soft lockup or RCU stall" kernel_clean "$ph"
	grep -hE "$KBAD" "$PAIR_LOG/$ph-dmesg" | head -3 | sed "s/^/# $ph: dmesg: /"
	if [ "$DP" = swnic ]; then
		# mroce's own packets name told objects whatever it receives;
		# without an attack, so does everything received
		t_ok "$ph: every DATA/UD packet $C_DEV and $S_DEV sent names objects the NIC was told of" \
			bash -c "swnic_no_holes $C_DEV tx && swnic_no_holes $S_DEV tx"
		[ "$ph" = baseline ] && t_ok "baseline: and every one they received" \
			bash -c "swnic_no_holes $C_DEV && swnic_no_holes $S_DEV"
		echo "# $ph: $S_DEV's shadow check: $(grep '^shadow_' "/sys/kernel/debug/mroce_swnic/$S_DEV" | paste -sd' ')"
		echo "# $ph: $C_DEV's: $(grep '^shadow_' "/sys/kernel/debug/mroce_swnic/$C_DEV" | paste -sd' ')"
		# the client's posts ring almost no doorbell: the NIC polls its
		# ring as it sends, and must have judged WQEs that way
		[ "$ph" = baseline ] && t_ok "baseline: the NIC fetched and checked $C_DEV's send WQEs as the QP sent ($(sed -n 's/^shadow_wqe_checked //p' "/sys/kernel/debug/mroce_swnic/$C_DEV") checked)" \
			test "$(sed -n 's/^shadow_wqe_checked //p' "/sys/kernel/debug/mroce_swnic/$C_DEV")" -gt 100
		if [ "$ph" = foreign ]; then	# random streams: the check must see them
			x=$(sed -n 's/.* WRITE \([0-9]*\) .*/\1/p' "$PAIR_LOG/$ph-craft.out" | tail -1)
			y=$(sed -n 's/^shadow_rx_unknown_qp //p' "/sys/kernel/debug/mroce_swnic/$S_DEV")
			t_ok "foreign: the NIC's tables name none of the $x WRITEs' random streams (shadow_rx_unknown_qp $y)" \
				test "${x:-0}" -gt 0 -a "${y:-0}" -ge "${x:-1}"
		fi
	fi
	x=$(beat_gap "$ph")
	t_ok "$ph: no CPU stalled: longest heartbeat gap $x s (limit $STALL_S s)" awk -v x="$x" -v l="$STALL_S" 'BEGIN {exit !(x < l)}'
	x=$(delta "$S_DEV"); echo "# $ph: victim's counters that moved in the phase: ${x:-none}"
	# memory: from just before the attack to 1 s after it, the transfer
	# running all along (baseline: the same 2 s without an attack)
	set -- $m0 $m1
	t_ok "$ph: victim memory bounded: MemAvailable down $((($1 - $3) / 1024)) MiB, Slab up $((($4 - $2) / 1024)) MiB (limit $MEM_LIMIT_MIB MiB each; $S_DEV has $(npeers) peer(s))" \
		test $(($1 - $3)) -lt $((MEM_LIMIT_MIB * 1024)) -a $(($4 - $2)) -lt $((MEM_LIMIT_MIB * 1024))
	echo "# $ph: MemAvailable $1 -> $3 KiB, Slab $2 -> $4 KiB"
	ref=$(refused_diff "$PAIR_LOG/$ph-ref0" "$PAIR_LOG/$ph-ref1")
	if [ "$ph" = baseline ]; then
		echo "# baseline: refused by $S_DEV in those 2 s (the transfer's own): ${ref%% *}${ref#"${ref%% *}"}"
		return
	fi
	sent=$(sent_of "$PAIR_LOG/$ph-craft.out"); sent=${sent:-0}
	rx=$(($(ctr "$S_DEV" rx_packets) - ${SNAP[$S_DEV.rx_packets]:-0}))
	t_ok "$ph: the attack reached the victim: sent $sent, victim's rx_packets +$rx" test "$sent" -gt 0 -a "$rx" -ge "$sent"
	# proven: half of them carry the cookie, and are challenged, not refused
	[ "$ph" = proven ] || [ "$ph" = many ] && sent=$((sent / 2))
	t_ok "$ph: every attack packet refused under a reason: ${ref%% *} of $sent counted while the attack ran:${ref#"${ref%% *}"}" test "${ref%% *}" -ge "$sent"
	case $ph in
	many)
		x=$(sed -n 's/^# peers now //p' "$PAIR_LOG/many-npeers" | sort -n | tail -1)
		t_ok "many: never more than max_peers peers: at most $x (limit 4)" test "${x:-9}" -le 4
		x=$(($(ctr "$S_DEV" peers_reclaimed) - ${SNAP[$S_DEV.peers_reclaimed]:-0}))
		t_ok "many: peers no QP used were reclaimed to make room: $x" test "$x" -ge 4
		# (at most the real peer: once the transfer ended, it is idle too
		# and may go as well, sooner on a slow kernel)
		t_wait 6 bash -c "[ \$(grep -c '^peer ' $PEERS) -le 1 ]"
		t_ok "many: idle peers reclaimed: $(npeers) peer(s) left, peers_reclaimed +$(($(ctr "$S_DEV" peers_reclaimed) - ${SNAP[$S_DEV.peers_reclaimed]:-0}))" test "$(npeers)" -le 1
		# (r1: right after the attack, while the transfer's QP still
		# uses the peer; once the transfer ends, it too is idle and
		# may be reclaimed by the time the wait above is over)
		t_ok "many: the real peer's connection kept its remote cid" test "$(echo "$r0" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" = \
			"$(echo "$r1" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" -a -n "$r1"
		;;
	proven)
		t_ok "proven: one peer for the attacker's address, whatever its blobs named: $S_DEV has $(npeers) peer(s) (2: the real one, the attacker's)" test "$(npeers)" -le 2
		t_ok "proven: the real peer's connection kept its remote cid" test "$(echo "$r0" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" = \
			"$(echo "$r1" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" -a -n "$r1"
		;;
	flood)
		t_ok "flood: no peer made for the nodes named: $S_DEV has $(npeers) peer(s) (1: the real one)" test "$(npeers)" -le 1
		;;
	forged)
		echo "# forged: real peer before: $r0"
		echo "# forged: real peer after:  $r1"
		t_ok "forged: the real peer's connection kept its remote cid" test "$(echo "$r0" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" = \
			"$(echo "$r1" | sed -n 's/.* remote \([^ ]*\) .*/\1/p')" -a -n "$r1"
		;;
	far-read)
		x=$(sed -n 's/.*longest send \([0-9.]*\) s.*/\1/p' "$PAIR_LOG/$ph-craft.out")
		echo "# far-read: the longest send of the tool took ${x:-?} s"
		;;
	esac
}

atk_baseline() { echo "no attack"; sleep 2; }

# the kernel's own stall detectors, made to fire within a phase: a soft
# lockup after 2 * 5 s, an RCU stall after 10 s (defaults 20 s and 21 s)
echo 5 > /proc/sys/kernel/watchdog_thresh
echo 10 > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null
echo "# kernel $(uname -r), $(nproc) cpus; seed $SEED; phases: $PHASES; soft lockup after $((2 * $(cat /proc/sys/kernel/watchdog_thresh))) s, RCU stall after $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null || echo '?') s"
t_ok "install mroce" mroce_install
# small limits, so that the many phase reaches them (mroce.rst)
t_ok "load modules (max_peers=4 peer_idle_s=2)" bash -c ". /mnt/host/topo.sh; modprobe mroce max_peers=4 peer_idle_s=2 && driver_load mroce"
[ "$DP" = software ] || t_ok "the software NIC takes every new device" modprobe mroce_swnic netdevs='*'
topo_netns mroce || { echo "not ok - topology"; exit 1; }
# the attacker: a host of its own behind nsA (the rig has no bridge to put
# a third host on the veth link), no peer's address, its own MetaRoCE port
# shellcheck disable=SC2086
t_ok "the attacker's host nsX behind nsA" topo_attacker "$ATK_IP" $MANY_ADDRS
t_ok "attacker $ATK_IP reaches the victim $S_IP" ip netns exec nsX ping -c 1 -W 5 "$S_IP"
for p in $PHASES; do phase "$p"; done

# A malicious connected peer (not a bystander: the SEND goes from the
# peer's own address, in nsA, with its live connection id and TSN): a SEND
# for the second of two posted receives, the first never sent. No receive
# may complete successfully out of order (the kernel fails the QP).
recv_order() {
	local out=$PAIR_LOG/recv-order q
	fresh_devices || return 1
	mroce-wr-check --idle-recv 6 "$C_DEV" "$CG" "$S_DEV" "$SG" > "$out.chk" 2>&1 &
	local ck=$!
	t_wait 10 grep -q '^idle-recv: qpn' "$out.chk" || { cat "$out.chk"; return 1; }
	t_wait 10 established
	q=$(sed -n 's/^idle-recv: qpn A \([0-9]*\) B \([0-9]*\)$/\1 \2/p' "$out.chk")
	set -- $q
	timeout 30 mroce-craft --netns nsA --dst "$S_IP" --src "$C_IP" \
		--peers "$PEERS" --peer "$C_IP" --tsn-ahead 0 \
		--dst-stream "$2" --src-stream "$1" --rsn 1 -v send-rsn > "$out.craft" 2>&1
	wait "$ck"
	local rc=$?
	sed 's/^/#   /' "$out.craft" "$out.chk"
	echo "# recv-order: victim's rq_bad_rsn $(ctr "$S_DEV" rq_bad_rsn), drop_inv_req $(ctr "$S_DEV" drop_inv_req)"
	return $rc
}
t_ok "malicious peer: a SEND for the second receive completes nothing out of order" recv_order

# One forged packet from the peer's own address (nsA), with the live id and
# TSN: a READ_REQ with a far rdsn naming the peer's next message (msn 1,
# after one WRITE). The victim fails its QP (a malformed request) and NAKs
# msn 1; the peer, which never sent msn 1, must complete nothing and stay
# up. Before the fix it completed a WQE nobody posted and its error flush
# spun in a worker for good (soft lockup, RCU stall: issue 29, item 0).
peer_read() {
	local out=$PAIR_LOG/peer-read q k0 rc x
	fresh_devices || return 1
	k0=$(dmesg | wc -l)
	beat_start peer-read
	timeout 60 mroce-wr-check --idle-read 4 "$C_DEV" "$CG" "$S_DEV" "$SG" > "$out.chk" 2>&1 &
	local ck=$!
	t_wait 10 grep -q '^idle-read: qpn' "$out.chk" || { beat_stop; cat "$out.chk"; return 1; }
	t_wait 10 established
	q=$(sed -n 's/^idle-read: qpn A \([0-9]*\) B \([0-9]*\) msn 1$/\1 \2/p' "$out.chk")
	set -- $q
	timeout 30 mroce-craft --netns nsA --dst "$S_IP" --src "$C_IP" \
		--peers "$PEERS" --peer "$C_IP" --tsn-ahead 0 \
		--dst-stream "$2" --src-stream "$1" --msn 1 --rdsn "$FAR_RDSN" -v read-far > "$out.craft" 2>&1
	wait "$ck"; rc=$?
	sleep 2		# a worker that spins shows in the beats and the log
	beat_stop
	dmesg | tail -n +$((k0 + 1)) > "$out.dmesg"
	sed 's/^/#   /' "$out.craft" "$out.chk"
	x=$(beat_gap peer-read)
	echo "# peer-read: victim's drop_inv_req $(ctr "$S_DEV" drop_inv_req) tx_nak $(ctr "$S_DEV" tx_nak); peer's drop_inv_req $(ctr "$C_DEV" drop_inv_req) sq_bad_msn $(ctr "$C_DEV" sq_bad_msn); longest heartbeat gap $x s"
	grep -hE "$KBAD" "$out.dmesg" | head -3 | sed 's/^/# peer-read: dmesg: /'
	[ "$rc" = 0 ] && ! grep -qE "$KBAD" "$out.dmesg" &&
		awk -v x="$x" -v l="$STALL_S" 'BEGIN {exit !(x < l)}'
}
t_ok "malicious peer: a far READ naming the peer's next message fails the victim's QP alone, no lockup" peer_read

# Frames that claim the victim's own address as their source, sent by the
# attacker (IP header its own: mroce-badframe -H). The stack drops them as
# martians before the software datapath; an offload (the software NIC)
# hands frames up before that check, and mroce refuses them there
# (rx_drop_src_ours, issue 29): either way the engine never sees one.
own_src() {
	local out=$PAIR_LOG/own-src r0 s0 v0 v1 ref x
	fresh_devices || return 1
	r0=$(ctr "$S_DEV" rx_packets) s0=$(ctr "$S_DEV" rx_drop_src_ours)
	v0=$(ip -n nsB -s link show "$S_IF" | awk '/RX:/ {getline; print $2; exit}')
	refused_now "$S_DEV" > "$out.ref0"
	ip netns exec nsX mroce-badframe -H -s "$S_IP" -d "$S_IP" -n 20 good || return 1
	sleep 1
	refused_now "$S_DEV" > "$out.ref1"
	v1=$(ip -n nsB -s link show "$S_IF" | awk '/RX:/ {getline; print $2; exit}')
	ref=$(refused_diff "$out.ref0" "$out.ref1")
	x="$S_IF rx +$((v1 - v0)), $S_DEV rx_packets +$(($(ctr "$S_DEV" rx_packets) - r0)), refused:${ref#* }"
	echo "# own-src ($DP): $x"
	[ $((v1 - v0)) -ge 20 ] || { echo "the frames did not reach $S_IF"; return 1; }
	if [ "$DP" = swnic ]; then
		[ "$ref" = "20 rx_drop_src_ours=+20" ]
	else
		[ "$(ctr "$S_DEV" rx_packets)" = "$r0" ] && [ "${ref%% *}" = 0 ]
	fi
}
t_ok "frames from the victim's own address (spoofed by the attacker) never reach the engine" own_src
topo_netns_del
t_done
