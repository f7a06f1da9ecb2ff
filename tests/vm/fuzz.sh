# shellcheck shell=bash
# In-guest fuzzing (issue 29, deliverable 4): the host fuzzers' corpora
# (tests/fuzz: fuzz_wire, fuzz_demux, fuzz_conn; make fuzz-corpus puts
# gen-corpus's seeds, what fuzz-check grew and tests/fuzz/regress into
# build/fuzz-corpus) replayed into the module over the wire by
# mroce-craft replay (tests/vm/craft.c: the fuzzers' record formats, the
# live connection id from the victim's debugfs where a record asks for
# it), then mroce-craft garbage (random and mutated datagrams, seeded) for
# secs seconds. The victim is mB (nsB); its peer mA (nsA) has a live RC
# connection with it. Two phases, each on fresh devices:
#
#   attacker  from an attacker's addresses (nsX, routed through nsA, as in
#             hostile.sh): the replay from 198.18.2.66 (fuzz_demux's
#             sender 1; senders 2-6 from 198.18.2.67-71, port 4796 so that
#             the victim's RETRYs come back and cookie records carry a real
#             cookie), then garbage from 198.18.2.80 (an address that never
#             proved itself), while mroce-xfer runs a verifying transfer
#             between mA and mB
#   peer      from the peer's own address (nsA, --src 198.18.1.1, as
#             hostile.sh's recv_order), every record and garbage from it,
#             fuzz_demux's broadcast records to 198.18.1.255, while
#             mroce-xfer runs (it may fail: a malformed request from the
#             peer's address legitimately fails the QP)
#
# What is asserted:
#   - no kernel report in the log: WARNING, BUG (KASAN and sleeping in
#     atomic start so), Oops, UBSAN, lockdep's, soft lockup, RCU stall,
#     hung task, list corruption (both stall detectors made to fire
#     within 10 s);
#   - per tool run: the victim's rx_packets moved by at least the
#     datagrams the tool sent (its count excludes send errors; the
#     transfer's own packets only add);
#   - per tool run, every datagram accounted: ACCOUNTED is the sum of the
#     victim's drop counters (REFUSED below: every rx_drop_*, ud_drop_*,
#     drop_* but drop_plane_addr, which counts addresses in a blob, not
#     datagrams) and connect_cookie and challenge_tx (a CONNECT answered
#     with a RETRY or a challenge, nothing kept), moved from just before
#     the tool ran to 1 s after it (the connect work), plus what the
#     victim's kernel dropped before mroce saw it (kernel_drops: UDP and
#     IP drop counters, the veth's rx_dropped, the backlog's drops):
#       attacker replay:  ACCOUNTED >= sent - the CONNECTs sent from an
#                         address after it proved itself with a cookie
#                         (those may be accepted; the tool counts them)
#       attacker garbage: ACCOUNTED >= sent (nothing from that address can
#                         be accepted: random connection ids)
#       peer replay, peer garbage: ACCOUNTED >= the datagrams the engine's
#                         own parser (mre_wire_parse, linked into the tool)
#                         refuses: valid packets from the peer's address
#                         with its live id are legitimately accepted, so
#                         exact accounting is impossible there;
#   - attacker: the transfer completed with 0 corrupted bytes, no error;
#   - peer: the transfer (pass or fail) ended by itself: no process left
#     after its limit, no "ERROR timeout" (a failed QP flushes its work
#     requests, it does not leave them to time out), and no RC QP left on
#     either device after it;
#   - at the end: rdma link delete of both devices and rmmod mroce succeed
#     (no reference leaked).
# Figures: "#" lines (each tool's summary line, the counters that moved).
#
#   scripts/vm/run-guest.sh -P -f build/fuzz-corpus -t 600 -n fuzz tests/vm/fuzz.sh [-- ARGS]
#     secs=60        garbage seconds, per phase
#     rate=20000     garbage datagrams a second (0: as fast as possible)
#     seed=N         garbage seed (default random; printed)
#     phases="attacker peer"
#     corpus=/mnt/host/fuzz-corpus
#
# Logs: $RIG_OUT/fuzz/ (scripts/vm/runs/NAME/share/out/fuzz/ on the host).
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/fuzz
. /mnt/host/topo.sh

SECS=60 RATE=20000 SEED=$RANDOM PHASES="attacker peer" CORPUS=/mnt/host/fuzz-corpus
XOPS=100 XMAX=262144
for a in "$@"; do
	case $a in
	secs=*) SECS=${a#*=};; rate=*) RATE=${a#*=};; seed=*) SEED=${a#*=};;
	phases=*) PHASES=${a#*=};; corpus=*) CORPUS=${a#*=};;
	"") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

ATK_IP=198.18.2.66 GARB_IP=198.18.2.80
ALT_ADDRS="198.18.2.67 198.18.2.68 198.18.2.69 198.18.2.70 198.18.2.71"
REFUSED='^(rx_drop_|ud_drop_|drop_)'
NOT_REFUSED="drop_plane_addr"
REFUSED_EXTRA="connect_cookie challenge_tx"
KBAD='WARNING|BUG:|Oops|KASAN|UBSAN|lockdep|possible circular locking|possible recursive locking|inconsistent lock state|soft lockup|detected stall|RCU stall|hung_task|blocked for more than|list_add corruption|list_del corruption'
PEERS=/sys/kernel/debug/mroce/mB/peers

ctr() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0; }
refused_now() {	# refused_now DEV: "NAME VALUE" of each counter that accounts a datagram
	local f n v
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		n=${f##*/}
		[[ " $NOT_REFUSED " == *" $n "* ]] && continue
		[[ $n =~ $REFUSED ]] || [[ " $REFUSED_EXTRA " == *" $n "* ]] || continue
		read -r v < "$f"; echo "$n $v"
	done
}
refused_diff() {	# refused_diff BEFORE AFTER: "SUM name=+N ..."
	awk 'NR == FNR {b[$1] = $2; next} $2 != b[$1] {d = $2 - b[$1]; s += d; l = l " " $1 "=+" d}
		END {print s + 0 l}' "$1" "$2"
}
peer_line() { grep -m1 "^peer $C_IP " "$PEERS" 2>/dev/null; }
established() { peer_line | grep -q ' established '; }
rc_qps() { rdma res show qp link "$1/1" 2>/dev/null | grep -c 'type RC'; }
since() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN {printf "%.1f", b - a}'; }

fresh_devices() {
	"${CX[@]}" rdma link delete "$C_DEV" 2>/dev/null
	"${SX[@]}" rdma link delete "$S_DEV" 2>/dev/null
	"${CX[@]}" rdma link add "$C_DEV" type mroce netdev "$C_IF" &&
	"${SX[@]}" rdma link add "$S_DEV" type mroce netdev "$S_IF" || return 1
	t_wait 10 port_active "$C_DEV" && t_wait 10 port_active "$S_DEV" &&
	t_wait 10 gid_index "$C_DEV" "$C_IP" >/dev/null && t_wait 10 gid_index "$S_DEV" "$S_IP" >/dev/null || return 1
	CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")
}

xfer_line() { grep -m1 -E '^xfer: [0-9]+ ops' "$PAIR_LOG/$1-xfer.cli" 2>/dev/null; }
xfer_clean() {
	read -r crc src < "$PAIR_LOG/$1-xfer.rc" 2>/dev/null || return 1
	xfer_line "$1"
	[ "$crc" = 0 ] && [ "$src" = 0 ] && xfer_line "$1" | grep -q ' 0 bytes corrupted, 0 checksum mismatches, 0 errors'
}

# tool RUN LOWER-BOUND-KIND CMD...: run one mroce-craft, then assert that
# the victim saw what it sent and accounted it (see the head)
TOTAL_SENT=0 TOTAL_REFUSE=0 TOTAL_ACC=0
tool() {
	local run=$1 kind=$2 rx0 rx1 sent perr ap lower ref t0 line
	shift 2
	rx0=$(ctr "$S_DEV" rx_packets)
	{ refused_now "$S_DEV"; kernel_drops; } > "$PAIR_LOG/$run.ref0"
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > "$PAIR_LOG/$run.out" 2>&1
	echo "# $run: exit $? after $(since "$t0") s"
	sleep 1		# the connect work
	{ refused_now "$S_DEV"; kernel_drops; } > "$PAIR_LOG/$run.ref1"
	rx1=$(ctr "$S_DEV" rx_packets)
	line=$(grep -E '^craft (replay|garbage): sent ' "$PAIR_LOG/$run.out" | tail -1)
	echo "# $run: ${line:-no summary line: $(tail -3 "$PAIR_LOG/$run.out")}"
	sent=$(echo "$line" | sed -n 's/^craft [a-z]*: sent \([0-9]*\) .*/\1/p'); sent=${sent:-0}
	perr=$(echo "$line" | sed -n "s/.*the engine's parser refuses \([0-9]*\).*/\1/p"); perr=${perr:-0}
	ap=$(echo "$line" | sed -n 's/.*CONNECTs after a proven one \([0-9]*\).*/\1/p'); ap=${ap:-0}
	ref=$(refused_diff "$PAIR_LOG/$run.ref0" "$PAIR_LOG/$run.ref1")
	echo "# $run: victim's rx_packets +$((rx1 - rx0)); accounted +${ref%% *}:${ref#"${ref%% *}"}"
	TOTAL_SENT=$((TOTAL_SENT + sent)) TOTAL_REFUSE=$((TOTAL_REFUSE + perr)) TOTAL_ACC=$((TOTAL_ACC + ${ref%% *}))
	t_ok "$run: the datagrams reached the victim: sent $sent, rx_packets +$((rx1 - rx0))" \
		test "$sent" -gt 0 -a $((rx1 - rx0)) -ge "$sent"
	case $kind in
	all) lower=$sent; kind="all $sent sent";;
	proof) lower=$((sent - ap)); kind="$sent sent - $ap CONNECTs after a cookie proof";;
	parser) lower=$perr; kind="the $perr the engine's parser refuses (of $sent)";;
	esac
	t_ok "$run: every datagram accounted: drop counters +${ref%% *} >= $kind" test "${ref%% *}" -ge "$lower"
}

phase() {	# phase attacker|peer
	local ph=$1 xp stop k0 t0 crc src
	echo "# --- phase $ph"
	if ! fresh_devices > "$PAIR_LOG/$ph-devices.out" 2>&1; then
		echo "not ok - $ph: fresh devices"; T_FAIL=$((T_FAIL + 1))
		sed 's/^/#   /' "$PAIR_LOG/$ph-devices.out"; return
	fi
	k0=$(dmesg | wc -l)
	stop=/tmp/fuzz-stop.$ph; rm -f "$stop"
	# attacker: a batch may wait for its completions 30 s under the load;
	# peer: 20 s, then a QP that neither completes nor flushes shows as
	# "ERROR timeout"
	local xt=20; [ "$ph" = attacker ] && xt=60
	xt=$((xt * ${T_SCALE:-1}))
	pair "$ph-xfer" $((SECS + 240)) ready=tcp:18600 mroce-xfer -d "$S_DEV" -g "$SG" -T "$xt" -- \
		mroce-xfer -d "$C_DEV" -g "$CG" -n "$XOPS" -m "$XMAX" -T "$xt" \
		-S "$SEED" -U "$stop" "$S_IP" > "$PAIR_LOG/$ph-pair.out" 2>&1 &
	xp=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	t_wait 60 bash -c "grep -q '^peer $C_IP .* established ' $PEERS && rdma res show qp link $S_DEV/1 | grep -q 'type RC state RTS'" ||
		echo "# $ph: the transfer did not start within 60 s"
	sleep 1
	echo "# $ph: victim's peer before: $(peer_line)"
	if [ "$ph" = attacker ]; then
		local alts=() a
		for a in $ALT_ADDRS; do alts+=(--alt-src "$a"); done
		tool attacker-replay proof timeout 300 mroce-craft --netns nsX --dst "$S_IP" --src "$ATK_IP" --sport 4796 \
			"${alts[@]}" --peers "$PEERS" --peer "$C_IP" --wait-ms 50 --seed "$SEED" replay "$CORPUS"
		tool attacker-garbage all timeout $((SECS + 60)) mroce-craft --netns nsX --dst "$S_IP" --src "$GARB_IP" \
			--secs "$SECS" --rate "$RATE" --seed "$SEED" garbage
	else
		tool peer-replay parser timeout 300 mroce-craft --netns nsA --dst "$S_IP" --src "$C_IP" \
			--bcast 198.18.1.255 --peers "$PEERS" --peer "$C_IP" --wait-ms 50 --seed "$SEED" replay "$CORPUS"
		tool peer-garbage parser timeout $((SECS + 60)) mroce-craft --netns nsA --dst "$S_IP" --src "$C_IP" \
			--secs "$SECS" --rate "$RATE" --seed "$SEED" garbage
	fi
	echo "# $ph: victim's peer after: $(peer_line)"
	cp "$PEERS" "$PAIR_LOG/$ph-peers" 2>/dev/null
	sleep 1
	touch "$stop"
	wait "$xp"
	echo "# $ph: transfer took $(since "$t0") s: $(xfer_line "$ph" | cut -c1-120)"
	sed 's/^/#   /' "$PAIR_LOG/$ph-pair.out" | head -20
	dmesg | tail -n +$((k0 + 1)) > "$PAIR_LOG/$ph-dmesg"
	t_ok "$ph: no kernel report (WARNING, BUG, Oops, KASAN, UBSAN, lockdep, soft lockup, RCU stall)" \
		bash -c "! grep -E '$KBAD' '$PAIR_LOG/$ph-dmesg'"
	grep -hE "$KBAD" "$PAIR_LOG/$ph-dmesg" | head -5 | sed "s/^/# $ph: dmesg: /"
	if [ "$ph" = attacker ]; then
		t_ok "attacker: the transfer completed, 0 bytes corrupted ($(xfer_line "$ph" | cut -c1-90))" xfer_clean "$ph"
	else
		read -r crc src < "$PAIR_LOG/$ph-xfer.rc" 2>/dev/null
		echo "# peer: transfer exit client ${crc:-?} server ${src:-?} (allowed to fail)"
		grep -h '^ERROR' "$PAIR_LOG/$ph-xfer.cli" "$PAIR_LOG/$ph-xfer.srv" 2>/dev/null | head -4 | sed 's/^/#   /'
		t_ok "peer: the transfer ended by itself (no process left at its limit)" test ! -e "$PAIR_LOG/$ph-xfer.stuck"
		t_ok "peer: its work requests completed or flushed (no ERROR timeout)" \
			bash -c "! grep -h 'ERROR timeout' '$PAIR_LOG/$ph-xfer.cli' '$PAIR_LOG/$ph-xfer.srv'"
	fi
	t_wait 10 bash -c "[ \$(rdma res show qp link $C_DEV/1 | grep -c 'type RC') -eq 0 ] && [ \$(rdma res show qp link $S_DEV/1 | grep -c 'type RC') -eq 0 ]"
	t_ok "$ph: no RC QP left on $C_DEV ($(rc_qps "$C_DEV")) or $S_DEV ($(rc_qps "$S_DEV"))" \
		test "$(rc_qps "$C_DEV")" -eq 0 -a "$(rc_qps "$S_DEV")" -eq 0
	echo "# $ph: victim's counters at the end: $(counters "$S_DEV" | cut -c1-1500)"
}

echo 5 > /proc/sys/kernel/watchdog_thresh
echo 10 > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null
echo "# kernel $(uname -r), $(nproc) cpus; seed $SEED; garbage $SECS s at ${RATE}/s per phase; phases: $PHASES"
echo "# corpus $CORPUS: $(for d in wire demux conn; do printf '%s %s files, ' $d "$(ls "$CORPUS/$d" 2>/dev/null | wc -l)"; done)"
t_ok "corpus present ($CORPUS; make fuzz-corpus, run-guest.sh -f build/fuzz-corpus)" test -d "$CORPUS/demux"
t_ok "install mroce" mroce_install
t_ok "load modules" bash -c ". /mnt/host/topo.sh; driver_load mroce"
KL0=$(dmesg | wc -l)
topo_netns mroce || { echo "not ok - topology"; exit 1; }
# shellcheck disable=SC2086
t_ok "the attacker's host nsX behind nsA" topo_attacker "$ATK_IP" $ALT_ADDRS $GARB_IP
t_ok "attacker $ATK_IP reaches the victim $S_IP" ip netns exec nsX ping -c 1 -W 5 "$S_IP"
T_ALL=$(cut -d' ' -f1 /proc/uptime)
for p in $PHASES; do phase "$p"; done
echo "# total: $TOTAL_SENT datagrams sent in $(since "$T_ALL") s, $TOTAL_REFUSE of them refused by the engine's parser, victim's drop counters +$TOTAL_ACC"

t_ok "rdma link delete $C_DEV" "${CX[@]}" rdma link delete "$C_DEV"
t_ok "rdma link delete $S_DEV" "${SX[@]}" rdma link delete "$S_DEV"
topo_netns_del
t_ok "rmmod mroce (no reference left)" rmmod mroce
dmesg | tail -n +$((KL0 + 1)) > "$PAIR_LOG/all-dmesg"
t_ok "no kernel report in the whole run" bash -c "! grep -E '$KBAD' '$PAIR_LOG/all-dmesg'"
grep -hE "$KBAD" "$PAIR_LOG/all-dmesg" | head -5 | sed 's/^/# dmesg: /'
t_done
