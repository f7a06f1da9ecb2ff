# shellcheck shell=bash
# Guest test of mroce's tracepoints (system "mroce", kernel/mroce_trace.h):
# they are all there, and with every one of them on,
#   - a lossy transfer (ib_write_bw under netem loss, both ways) shows the
#     connection opening on both devices, each loss with what found it, the
#     repaths and path changes, the window cuts and rate hints, with sane
#     fields, and the loss and repath events agree with the counters;
#   - a peer that goes silent under a running transfer (netem loss 100 %)
#     shows the connection failing (why dead) and the error completion.
#
#   scripts/vm/run-guest.sh -P -t 450 tests/vm/trace.sh [-- loss=2% n=300]
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/trace	# logs: scripts/vm/runs/NAME/share/out/trace/
mkdir -p "$PAIR_LOG"
. /mnt/host/topo.sh
LOSS=2% N=300
for a; do case $a in loss=*) LOSS=${a#*=};; n=*) N=${a#*=};; esac; done

TR=/sys/kernel/tracing
EVENTS="mroce_conn_open mroce_conn_restart mroce_conn_reset mroce_conn_fail
	mroce_path_state mroce_repath mroce_loss mroce_cwnd_cut mroce_rate_hint
	mroce_wc_error"

t_ok "install mroce" mroce_install
# dead_ms=1500: the peer-gone phase fails its connection in 1.5 s;
# link_mbps: receivers send rate hints
t_ok "load modules (mroce dead_ms=1500 link_mbps=10000)" bash -c \
	'modprobe -a ib_uverbs rdma_ucm veth sch_netem && modprobe mroce dead_ms=1500 link_mbps=10000'
[ -d $TR/events ] || mount -t tracefs nodev $TR
topo_netns mroce || { echo "not ok - topology"; exit 1; }
t_ok "both ports ACTIVE" t_wait 10 bash -c "grep -q ACTIVE /sys/class/infiniband/$C_DEV/ports/1/state && grep -q ACTIVE /sys/class/infiniband/$S_DEV/ports/1/state"
t_ok "IPv4 RoCE v2 GIDs" t_wait 10 bash -c ". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP"
CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")

missing=""
for e in $EVENTS; do [ -f "$TR/events/mroce/$e/format" ] || missing="$missing $e"; done
t_ok "tracefs lists the 10 mroce events${missing:+ (missing:$missing)}" test -z "$missing"

ctr() {	# ctr NAME: the counter summed over both devices
	local d v s=0
	for d in "$C_DEV" "$S_DEV"; do
		read -r v < "/sys/class/infiniband/$d/ports/1/hw_counters/$1" || v=0
		s=$((s + v))
	done
	echo "$s"
}
CTRS="loss_fast loss_time loss_tlp loss_rto loss_silent path_repath conn_open"
declare -A C0
for c in $CTRS; do C0[$c]=$(ctr "$c"); done

echo 8192 > $TR/buffer_size_kb
echo > $TR/trace
echo 1 > $TR/events/mroce/enable
echo 1 > $TR/tracing_on
t_ok "netem loss $LOSS on both veth ends" netem_on loss "$LOSS"
PS=(-d "$S_DEV" -x "$SG" -F) PC=(-d "$C_DEV" -x "$CG" -F)
t_ok "ib_write_bw 64 KiB x $N under $LOSS loss, tracing on" pair write_bw 120 \
	ib_write_bw "${PS[@]}" -s 65536 -n "$N" -- ib_write_bw "${PC[@]}" -s 65536 -n "$N" "$S_IP"
netem_off
echo 0 > $TR/tracing_on
cp $TR/trace "$PAIR_LOG/lossy.trace"
overrun=$(awk '/^overrun:/ {s += $2} END {print s + 0}' $TR/per_cpu/cpu*/stats)
T=$PAIR_LOG/lossy.trace
declare -A D
for c in $CTRS; do D[$c]=$(($(ctr "$c") - C0[$c])); done
echo "# counters moved: $(for c in $CTRS; do printf '%s=%s ' "$c" "${D[$c]}"; done)"
ev() { grep -c " $1: " "$T"; }	# ev EVENT: how many lines
how() { grep " mroce_loss: " "$T" | grep -c " how $1\$"; }
echo "# events: $(for e in $EVENTS; do printf '%s=%s ' "${e#mroce_}" "$(ev "$e")"; done)"
echo "# losses by what found them: fast=$(how fast) time=$(how time) tlp=$(how tlp) rto=$(how rto) stall=$(how stall) silent=$(how silent) probe=$(how probe)"
grep " mroce_" "$T" | head -5 | cut -c1-200 | sed 's/^/#   /'

t_ok "trace buffer kept every event (overrun 0, got $overrun)" test "$overrun" = 0
t_ok "conn_open on both devices, peer and cid sane, why active/passive" bash -c "
	grep -Eq ' mroce_conn_open: $C_DEV peer $S_IP cid 0x[0-9a-f]+ remote_cid 0x[0-9a-f]+ why (active|passive)\$' '$T' &&
	grep -Eq ' mroce_conn_open: $S_DEV peer $C_IP cid 0x[0-9a-f]+ remote_cid 0x[0-9a-f]+ why (active|passive)\$' '$T'"
t_ok "conn_open events = conn_open counter (${D[conn_open]})" test "$(ev mroce_conn_open)" = "${D[conn_open]}"
t_ok "losses traced ($(ev mroce_loss)) with path, psn, tsn and a known cause" bash -c "
	test \$(grep -c ' mroce_loss: ' '$T') -ge 1 &&
	! grep ' mroce_loss: ' '$T' | grep -Evq ' mroce_loss: m[AB] peer 198\.18\.1\.[12] cid 0x[0-9a-f]+ path ([0-9]|[1-5][0-9]|6[0-3]) psn [0-9]+ tsn [0-9]+( \\(probe\\))? how (fast|time|tlp|rto|stall|silent|probe|plane|accept)\$'"
t_ok "fast losses = loss_fast (${D[loss_fast]})" test "$(how fast)" = "${D[loss_fast]}"
t_ok "send-time losses = loss_time (${D[loss_time]})" test "$(how time)" = "${D[loss_time]}"
t_ok "tail-probe losses = loss_tlp (${D[loss_tlp]})" test "$(how tlp)" = "${D[loss_tlp]}"
t_ok "silent-path losses = loss_silent (${D[loss_silent]})" test "$(how silent)" = "${D[loss_silent]}"
t_ok "timer losses = loss_rto (${D[loss_rto]})" test $(($(how rto) + $(how stall) + $(how probe) + $(how plane) + $(how accept))) = "${D[loss_rto]}"
t_ok "repath events = path_repath (${D[path_repath]}), each to a new port" bash -c "
	test \$(grep -c ' mroce_repath: ' '$T') = '${D[path_repath]}' &&
	! grep ' mroce_repath: ' '$T' | awk '{ for (i = 1; i < NF; i++) if (\$i == \"port\") { if (\$(i+1) == \$(i+3) || \$(i+1) < 49152 || \$(i+3) < 49152) bad = 1 } } END { exit !bad }'"
t_ok "path_state: each a change between known states ($(ev mroce_path_state))" bash -c "
	! grep ' mroce_path_state: ' '$T' | grep -Evq ' (good|suspect|failed) -> (good|suspect|failed) why [a-z-]+\$' &&
	! grep ' mroce_path_state: ' '$T' | awk '{ for (i = 2; i < NF; i++) if (\$i == \"->\" && \$(i-1) == \$(i+1)) bad = 1 } END { exit !bad }'"
t_ok "cwnd_cut: never a growth ($(ev mroce_cwnd_cut) cuts)" bash -c "
	! grep ' mroce_cwnd_cut: ' '$T' | sed 's/.*cwnd \([0-9]*\)\.\([0-9]*\) -> \([0-9]*\)\.\([0-9]*\) pkts.*/\1\2 \3\4/' | awk '\$2 > \$1 { bad = 1 } END { exit !bad }'"
t_ok "rate hints traced on change ($(ev mroce_rate_hint)), Mbit/s within link_mbps" bash -c "
	test \$(grep -c ' mroce_rate_hint: ' '$T') -ge 1 &&
	! grep ' mroce_rate_hint: ' '$T' | awk '{ for (i = 1; i < NF; i++) if (\$i == \"hint\") { if (\$(i+1) == \$(i+3) || \$(i+3) > 10000) bad = 1 } } END { exit !bad }'"

# the peer goes silent under a running transfer (netem drops everything,
# both ways): nothing answers the client, so its connection dies
# (dead_ms) and the WQEs in flight complete in error
echo > $TR/trace
echo 1 > $TR/tracing_on
LB=$MROCE_SHARE/mroce-linebuf.so	# perftest's output line by line, as it comes
LD_PRELOAD=$LB "${SX[@]}" ib_write_bw "${PS[@]}" -s 65536 -D 20 > "$PAIR_LOG/gone.srv" 2>&1 &
SP=$!
wait_server tcp:18515
LD_PRELOAD=$LB "${CX[@]}" ib_write_bw "${PC[@]}" -s 65536 -D 20 "$S_IP" > "$PAIR_LOG/gone.cli" 2>&1 &
CP=$!
# (the connection of the lossy phase carries it: no new open to wait for)
t_wait 20 grep -q 'remote address' "$PAIR_LOG/gone.cli"
sleep 2
t_ok "the transfer is running" kill -0 "$CP"
echo "mroce-test: black hole" > $TR/trace_marker
t_ok "black-hole both veth ends under traffic" netem_on loss 100%
t_wait 15 bash -c "! kill -0 $CP"
kill "$CP" 2>/dev/null; wait "$CP"; CRC=$?
kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null
t_ok "the client failed (exit status $CRC)" test "$CRC" -ne 0
netem_off
echo 0 > $TR/tracing_on
cp $TR/trace "$PAIR_LOG/gone.trace"
T=$PAIR_LOG/gone.trace
grep -E ' mroce_(conn_fail|wc_error): ' "$T" | head -4 | cut -c1-200 | sed 's/^/#   /'
t_ok "conn_fail: $C_DEV towards $S_IP, why dead" \
	grep -Eq " mroce_conn_fail: $C_DEV peer $S_IP cid 0x[0-9a-f]+ remote_cid 0x[0-9a-f]+ why dead\$" "$T"
t_ok "wc_error: the client's WQE, status 12 (transport retry counter exceeded)" \
	grep -Eq " mroce_wc_error: $C_DEV qp [0-9]+ cq [0-9]+ wr_id 0x[0-9a-f]+ opcode [0-9]+ status 12 \(transport retry counter exceeded\) vendor_err [0-9]+\$" "$T"
# the whole connection went quiet, not one path: once no ACK comes after a
# path's timer was armed the engine resends the oldest packet as a probe
# ("stall") and judges no path (path.c); a path may turn suspect at its
# first timeout, racing the last ACKs, but none fails. Only what came
# after the black hole counts (before it, a slow kernel's timeouts on a
# link that loses nothing may fail a path, and ACKs bring it back)
sed -n '/mroce-test: black hole/,$p' "$T" > "$T.hole"
t_ok "the black hole is marked in the trace ($(grep -c ' mroce_' "$T.hole") events after it)" \
	grep -q ' mroce_' "$T.hole"
t_ok "the silence is the connection's: losses found as stall, no path failed" bash -c "
	grep -Eq ' mroce_loss: $C_DEV peer $S_IP .* how stall\$' '$T.hole' &&
	! grep -q ' mroce_path_state: $C_DEV .* -> failed ' '$T.hole'"
echo 0 > $TR/events/mroce/enable
t_done
