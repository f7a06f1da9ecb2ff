# shellcheck shell=bash
# Guest side of scripts/bench-insn.sh: perftest cases on rdma_rxe and mroce
# in one boot under the instruction meter (bench/meter/meter.c). Each run
# is one window: the client's work requests FROM to TO (the middle half of
# its -n iterations), marked by bench/meter/shim.c, so that only the
# measured loop is counted. Nothing is pinned: with the client on vCPU 0
# and the server on vCPU 1 (taskset), ib_write_lat and ib_send_lat took a
# tick (4 ms) an iteration on both drivers.
#
#   scripts/vm/run-guest.sh -P -M PLUGIN -f build/bench/mroce-meter-shim.so \
#       bench/meter/guest.sh [-- ARGS]
#     reps=2  drivers=rxe,mroce  scale=1
#     params="K=V ..."  mroce's module parameters for this boot (an A/B of
#                       a knob is two boots: instruction counts do not move
#                       between boots as wall time does)
#     cases="write_lat read_lat send_lat atomic_lat write_bw_4k send_bw_4k write_bw_64k"
#                       (also read_bw_4k, atomic_bw, write_lat_64k; write_lat_lo,
#                       write_bw_64k_lo: one device)
#     trace=K   a timeline instead (scripts/bench-timeline.sh, no plugin):
#               the kernel's trace of work requests n/2 to n/2 + K, with
#               the shim turning it on and off and marking each request
#
# Writes $RIG_OUT/meter/: runs.tsv (window id, driver, case, rep,
# operations, perftest's figure, rc), kallsyms and modules (to resolve the
# plugin's block addresses), and the pairs' logs.
. /mnt/host/lib.sh
. /mnt/host/topo.sh

REPS=2 DRIVERS=rxe,mroce SCALE=1 PARAMS="" TRACE=0
CASESEL="write_lat read_lat send_lat atomic_lat write_bw_4k send_bw_4k write_bw_64k"
for a in "$@"; do
	case $a in
	reps=*) REPS=${a#*=};; drivers=*) DRIVERS=${a#*=};; scale=*) SCALE=${a#*=};;
	cases=*) CASESEL=${a#*=};; params=*) PARAMS=${a#*=};;
	trace=*) TRACE=${a#*=};;
	"") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

# name | perftest program and options | iterations | metric
# (*_lo: both QPs on the client's device, ${d}0, its own address: loopback)
CASES="
write_lat|ib_write_lat -s 2|2000|lat
read_lat|ib_read_lat -s 2|2000|lat
send_lat|ib_send_lat -s 2|2000|lat
atomic_lat|ib_atomic_lat|2000|lat
write_bw_4k|ib_write_bw -s 4096|4000|bw
read_bw_4k|ib_read_bw -s 4096|4000|bw
atomic_bw|ib_atomic_bw|2000|bw
send_bw_4k|ib_send_bw -s 4096|4000|bw
write_bw_64k|ib_write_bw -s 65536|2000|bw
write_lat_64k|ib_write_lat -s 65536|400|lat
write_lat_lo|ib_write_lat -s 2|2000|lat
write_bw_64k_lo|ib_write_bw -s 65536|2000|bw
"
O=${RIG_OUT:-/tmp}/meter
mkdir -p "$O"
PAIR_LOG=$O/logs; mkdir -p "$PAIR_LOG"
SHIM=$MROCE_SHARE/mroce-meter-shim.so
printf 'id\tdriver\tcase\trep\tops\tfigure\trc\n' > "$O/runs.tsv"
echo "# reps=$REPS drivers=$DRIVERS scale=$SCALE cases=$CASESEL params=$PARAMS trace=$TRACE"

t_ok "meter shim shared" test -f "$SHIM"
t_ok "install module and provider" mroce_install
t_ok "modules" bash -c 'modprobe -a ib_uverbs rdma_ucm veth rdma_rxe'
# shellcheck disable=SC2086	# PARAMS: one word per parameter
t_ok "mroce ${PARAMS:-(defaults)}" modprobe mroce $PARAMS
topo_init 1500 > "$O/topo.log" 2>&1
t_ok "veth pair in init_net" ping -c 1 -W 3 -I 198.18.0.1 198.18.0.2
declare -A CG SG
for d in ${DRIVERS//,/ }; do
	t_ok "${d}0 / ${d}1 on vethA / vethB" bash -c "rdma link add ${d}0 type $d netdev vethA && rdma link add ${d}1 type $d netdev vethB"
	t_wait 10 gid_index "${d}0" 198.18.0.1 > /dev/null
	t_wait 10 gid_index "${d}1" 198.18.0.2 > /dev/null
	CG[$d]=$(gid_index "${d}0" 198.18.0.1) SG[$d]=$(gid_index "${d}1" 198.18.0.2)
	t_ok "$d: RoCE v2 GIDs" test -n "${CG[$d]}" -a -n "${SG[$d]}"
done
# every module is loaded now: the addresses the plugin's blocks resolve to
cat /proc/kallsyms > "$O/kallsyms"
cat /proc/modules > "$O/modules"
t_ok "kallsyms has addresses" bash -c "grep -q '^ffff[0-9a-f]*[1-9a-f][0-9a-f]* [tT] ' '$O/kallsyms'"

# the timeline's trace: scheduling, interrupts, timers, packets, and the
# drivers' own steps as kprobes (a name the module lacks is left out)
TR=/sys/kernel/tracing
EVENTS="sched/sched_switch sched/sched_wakeup irq/softirq_raise irq/softirq_entry irq/softirq_exit
irq_vectors/local_timer_entry timer/hrtimer_start timer/hrtimer_expire_entry
timer/hrtimer_cancel timer/timer_start timer/timer_expire_entry net/net_dev_xmit
net/netif_receive_skb workqueue/workqueue_execute_start power/cpu_idle
mroce/mroce_loss mroce/mroce_repath"
PROBES="mroce:mroce_post_send mroce:mroce_req_kick mroce:mroce_rx mroce:mre_msg_rx
mroce:peer_timer mroce:set_timer mroce:tlp_arm mroce:mre_send_ack mroce:mre_send_probe
mroce:mre_stream_complete mroce:mroce_resp_read mroce:mroce_resp_atomic
mroce:loop_xmit mroce:loop_poll mroce:mroce_batch_flush
rdma_rxe:rxe_post_send rdma_rxe:rxe_rcv rdma_rxe:rxe_requester rdma_rxe:rxe_responder
rdma_rxe:rxe_completer"
trace_init() {
	local e p
	[ -e $TR/trace ] || mount -t tracefs nodev $TR
	echo 0 > $TR/tracing_on
	echo nop > $TR/current_tracer
	echo global > $TR/trace_clock
	echo 16384 > $TR/buffer_size_kb
	for e in $EVENTS; do
		echo 1 > "$TR/events/$e/enable" || echo "# no event $e"
	done
	for p in $PROBES; do
		echo "p:tl/${p#*:} $p" >> $TR/kprobe_events 2> /dev/null || echo "# no kprobe $p"
	done
	[ -d $TR/events/tl ] && echo 1 > $TR/events/tl/enable
	t_ok "trace events on" test "$(cat $TR/events/sched/sched_switch/enable)" = 1
}
[ "$TRACE" = 0 ] || trace_init

run() {	# run ID DRIVER CASE REP
	local id=$1 d=$2 c=$3 rep=$4 line prog n metric args a b rc fig win
	line=$(grep "^$c|" <<<"$CASES")
	IFS='|' read -r _ prog n metric <<<"$line"
	n=$((n * SCALE)) a=$((n / 4)) b=$((3 * n / 4))
	win=("METER_ID=$id" "METER_FROM=$a" "METER_TO=$b")
	if [ "$TRACE" != 0 ]; then
		a=$((n / 2)) b=$((n / 2 + TRACE))
		win=("METER_TRACE=$TR" "METER_FROM=$a" "METER_TO=$b")
		echo 0 > $TR/tracing_on
		echo > $TR/trace
	fi
	read -r -a args <<<"$prog"
	# not pair(): its watch loop forks every 0.2 s, work the windows would
	# count; the client runs in the foreground, and nothing else runs
	local log=$PAIR_LOG/$d-$c-$rep sp src sdev=${d}1 sg=${SG[$d]} sip=198.18.0.2
	[[ $c == *_lo ]] && sdev=${d}0 sg=${CG[$d]} sip=198.18.0.1
	timeout 150 "${args[@]}" -n "$n" --use_old_post_send -d "$sdev" -x "$sg" -F \
		> "$log.srv" 2>&1 &
	sp=$!
	wait_server tcp:18515
	timeout 120 env "LD_PRELOAD=$SHIM" "${win[@]}" \
		"${args[@]}" -n "$n" --use_old_post_send -d "${d}0" -x "${CG[$d]}" -F "$sip" > "$log.cli" 2>&1
	rc=$?
	wait "$sp"; src=$?
	if [ "$TRACE" != 0 ]; then
		echo 0 > $TR/tracing_on
		cat $TR/trace > "$O/trace-$id.txt"
	fi
	[ $rc -ne 0 ] || rc=$src
	if [ "$metric" = lat ]; then
		fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ {print $5; exit}' "$log.cli")
	else
		fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' "$log.cli")
	fi
	case $fig in ""|0.00|inf|-nan) fig="";; esac	# perftest's TSC calibration
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$d" "$c" "$rep" $((b - a)) "${fig:--}" "$rc" >> "$O/runs.tsv"
	echo "# window $id: $d $c rep $rep, $((b - a)) operations, figure ${fig:--}, rc $rc"
	[ $rc -eq 0 ] || tail -5 "$log.srv" "$log.cli" | sed 's/^/#   /'
	return $rc
}

id=0
for ((rep = 1; rep <= REPS; rep++)); do
	for c in $CASESEL; do
		grep -q "^$c|" <<<"$CASES" || { t_fail "unknown case $c"; continue; }
		order=${DRIVERS//,/ }
		# the order alternates per repetition
		[ $((rep % 2)) = 0 ] && order=$(tr ' ' '\n' <<<"$order" | tac | tr '\n' ' ')
		for d in $order; do
			t_ok "rep $rep $d $c" run "$id" "$d" "$c" "$rep"
			id=$((id + 1))
		done
	done
done
sed 's/^/# /' "$O/runs.tsv"
t_done
