# shellcheck shell=bash
# Guest side of scripts/bench-fabric.sh: mroce and rdma_rxe side by side over
# a leaf/spine fabric of network namespaces (scripts/fabric.sh), in one guest
# boot. Not a test: it measures and writes TSVs; the host side plots them.
#
#   scripts/vm/run-guest.sh -P -f DIR bench/guest/fabric-bench.sh [-- ARGS]
#   (DIR holds fabric.sh, mroce-fabric-sample, sch_red.ko: bench-fabric.sh
#   stages it)
#     parts=loss,rate,blackhole,reorder,planes,fair,tcp   what to measure
#     ks="4 8"          spine counts (loss, blackhole and reorder run per K)
#     losses="0 0.1 1 5"  random loss on every spine link, % per direction
#     reps=2            repetitions of the loss and reorder runs (A/B order
#                       alternates)
#     dur=8             seconds per ib_write_bw run (-D)
#     size=65536        message size
#     drivers=rxe,mroce
#     bh_warm=6 bh_after=10   black-hole runs: seconds before the black
#                       hole, and after it
#     control=1         also a timeline run without black hole per driver (at
#                       the first K): how steady goodput is by itself
#     progress=0        1: timeline runs print the client's MB/s every second
#     skew=1ms          reorder runs: spine i delays by (i-1) x skew, both ways
#     rate=20mbit rate_limit=100   rate runs (first K only): every spine link
#                       limited to RATE with a queue of rate_limit packets,
#                       tail drop, then RED/ECN marking (fabric.sh ecn=1); the
#                       black hole is run once more over such spines;
#                       tail drop is run once more for mroce with lq_pct
#     lq_pct=300        the "loss as congestion" runs (rate, planes, fair,
#                       tcp): mroce reloaded with loss_queue_pct=lq_pct (the
#                       module's default, 0, keeps loss from cutting windows)
#     fair_n=4 fair_rate=40mbit fair_limit=100   fair runs: fair_n pairs
#                       (address J of host 1 to address J of host 2: a
#                       connection each) at once through ONE spine at
#                       fair_rate; tail drop (mroce loss_queue_pct 0 and
#                       lq_pct, rxe), then RED/ECN (mroce)
#     tcp_rate=40mbit tcp_limit=100   tcp runs: iperf3 (TCP, the guest's
#                       default congestion control) on pair 2 beside
#                       ib_write_bw on pair 1, through one spine at tcp_rate,
#                       tail drop; each alone first, then together
#     snap=0            1: tcp runs of mroce keep what its connections did
#                       beside TCP: debugfs peers every 0.5 s and the mroce
#                       trace events (logs/tcp-VARIANT.snap, .trace)
#     plane_list="1 2 4"  planes runs (mroce only; rxe runs plane 0 once)
#     plane_k=4 plane_rate=5mbit plane_limit=30  spines per plane, their
#                       rate (both ways) and queue (packets) in the planes
#                       runs, so that a plane's capacity is below what the
#                       guest CPU can do; mroce runs the planes twice, with
#                       loss_queue_pct 0 and lq_pct
#     plane_mode=carrier  how the plane goes down mid-run (fabric.sh plane-down)
#     interval=100      sampler tick, ms
#     mroce_params="npaths=16"   more mroce module parameters, space-separated
#                       (loaded with them, and reloaded with them)
#
# Both drivers use the same netdevs (host 1 = client = data sender on h1p0,
# host 2 = server on h2p0, both in the initial namespace: rdma_rxe in 6.1
# works only there; fabric.sh's policy routing makes their traffic cross the
# routers). Output in $RIG_OUT/fabric/: loss.tsv, reorder.tsv, blackhole.tsv,
# planes.tsv (one line per run), tl-NAME.tsv (sampler) + tl-NAME.events +
# tl-NAME.persec (perftest's per-second iterations) per timeline run, logs/.
. /mnt/host/lib.sh
. /mnt/host/topo.sh
FABDIR=${FABDIR:-/mnt/host/fab}
# shellcheck source=scripts/fabric.sh
. "$FABDIR/fabric.sh"

PARTS=loss,rate,blackhole,reorder,planes,fair,tcp KS="4 8" LOSSES="0 0.1 1 5" REPS=2 DUR=8 SIZE=65536
DRIVERS=rxe,mroce BH_WARM=6 BH_AFTER=10 CONTROL=1 SKEW=1ms PLANE_LIST="1 2 4" PLANE_K=4
PLANE_RATE=5mbit PLANE_LIMIT=30 PLANE_MODE=carrier IVAL=100 RATE=20mbit RATE_LIMIT=100 PROGRESS=0
MROCE_PARAMS="" LQ=300 FAIR_N=4 FAIR_RATE=40mbit FAIR_LIMIT=100 TCP_RATE=40mbit TCP_LIMIT=100
for a in "$@"; do
	case $a in
	parts=*) PARTS=${a#*=};; ks=*) KS=${a#*=};; losses=*) LOSSES=${a#*=};;
	reps=*) REPS=${a#*=};; dur=*) DUR=${a#*=};; size=*) SIZE=${a#*=};;
	drivers=*) DRIVERS=${a#*=};; bh_warm=*) BH_WARM=${a#*=};; bh_after=*) BH_AFTER=${a#*=};;
	skew=*) SKEW=${a#*=};; plane_list=*) PLANE_LIST=${a#*=};; plane_k=*) PLANE_K=${a#*=};;
	plane_rate=*) PLANE_RATE=${a#*=};; plane_limit=*) PLANE_LIMIT=${a#*=};; plane_mode=*) PLANE_MODE=${a#*=};;
	interval=*) IVAL=${a#*=};; control=*) CONTROL=${a#*=};; progress=*) PROGRESS=${a#*=};;
	rate=*) RATE=${a#*=};; rate_limit=*) RATE_LIMIT=${a#*=};; lq_pct=*) LQ=${a#*=};;
	fair_n=*) FAIR_N=${a#*=};; fair_rate=*) FAIR_RATE=${a#*=};; fair_limit=*) FAIR_LIMIT=${a#*=};;
	tcp_rate=*) TCP_RATE=${a#*=};; tcp_limit=*) TCP_LIMIT=${a#*=};; snap=*) TCP_SNAP=${a#*=};;
	mroce_params=*) MROCE_PARAMS=${a#*=};; "") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
O=${RIG_OUT:-/tmp}/fabric
PAIR_LOG=$O/logs
mkdir -p "$O" "$PAIR_LOG"
LB=""; [ -f "$MROCE_SHARE/mroce-linebuf.so" ] && LB=$MROCE_SHARE/mroce-linebuf.so
read -r -a DL <<<"${DRIVERS//,/ }"
T0=${EPOCHREALTIME/./}
el() { echo $(( (${EPOCHREALTIME/./} - T0) / 1000000 )); }
say() { echo "# [$(el) s] $*"; }
t_here() {	# t_here DESC CMD...: t_ok for a shell function (runs here), output as "#" lines
	local desc=$1 rc
	shift
	"$@" > /tmp/t_here.out 2>&1; rc=$?
	sed 's/^/# /' /tmp/t_here.out
	if [ $rc -eq 0 ]; then echo "ok - $desc"; T_PASS=$((T_PASS + 1)); else echo "not ok - $desc"; T_FAIL=$((T_FAIL + 1)); fi
	return $rc
}
# shellcheck disable=SC2034  # used by topo.sh's pair
CX=() SX=()
has() { case ",$1," in *",$2,"*) return 0;; esac; return 1; }

echo "# parts=$PARTS rate=$RATE rate_limit=$RATE_LIMIT ks=\"$KS\" losses=\"$LOSSES\" reps=$REPS dur=$DUR size=$SIZE drivers=$DRIVERS bh_warm=$BH_WARM bh_after=$BH_AFTER skew=$SKEW plane_list=\"$PLANE_LIST\" plane_k=$PLANE_K plane_rate=$PLANE_RATE plane_limit=$PLANE_LIMIT plane_mode=$PLANE_MODE interval=$IVAL lq_pct=$LQ fair_n=$FAIR_N fair_rate=$FAIR_RATE fair_limit=$FAIR_LIMIT tcp_rate=$TCP_RATE tcp_limit=$TCP_LIMIT mroce_params=\"$MROCE_PARAMS\""
echo "# kernel $(uname -r), $(nproc) cpus, mroce npaths=$(cat /sys/module/mroce/parameters/npaths 2>/dev/null || echo '(module not loaded yet)')"
t_ok "install module and provider" mroce_install
t_ok "modules" modprobe -a ib_uverbs rdma_ucm veth sch_netem rdma_rxe
# shellcheck disable=SC2086  # the parameters, one word each
t_ok "mroce${MROCE_PARAMS:+ $MROCE_PARAMS}" modprobe mroce $MROCE_PARAMS
echo "# mroce parameters: $(cd /sys/module/mroce/parameters && for f in *; do printf '%s=%s ' "$f" "$(cat "$f")"; done)"

# ---- devices --------------------------------------------------------------
declare -A CLI=([rxe]=rxe0 [mroce]=mroce0) SRV=([rxe]=rxe1 [mroce]=mroce1) CG SG
devs_add() {	# devs_add DRIVER...: client on h1p0, server on h2p0
	local d
	for d; do
		rdma link add "${CLI[$d]}" type "$d" netdev h1p0 || return 1
		rdma link add "${SRV[$d]}" type "$d" netdev h2p0 || return 1
		t_wait 10 gid_index "${CLI[$d]}" "$(fab_ip 1 0)" >/dev/null
		t_wait 10 gid_index "${SRV[$d]}" "$(fab_ip 2 0)" >/dev/null
		CG[$d]=$(gid_index "${CLI[$d]}" "$(fab_ip 1 0)") SG[$d]=$(gid_index "${SRV[$d]}" "$(fab_ip 2 0)")
		[ -n "${CG[$d]}" ] && [ -n "${SG[$d]}" ] || { echo "no GIDs on $d"; return 1; }
	done
}
devs_del() {	# devs_del [DRIVER...] (default: all)
	local d
	[ $# -gt 0 ] || set -- "${DL[@]}"
	for d; do
		rdma link delete "${CLI[$d]}" 2>/dev/null
		rdma link delete "${SRV[$d]}" 2>/dev/null
	done
	return 0
}
# mroce with another loss_queue_pct: the module again (its parameters are
# read-only), then its devices. Sets LQ_NOW.
LQ_NOW=0
mroce_lq() {	# mroce_lq PCT
	[ "$LQ_NOW" = "$1" ] && return 0
	devs_del mroce
	# shellcheck disable=SC2086
	if ! rmmod mroce || ! modprobe mroce $MROCE_PARAMS loss_queue_pct="$1"; then
		echo "# mroce: reload with loss_queue_pct=$1 failed"
		return 1
	fi
	LQ_NOW=$(cat /sys/module/mroce/parameters/loss_queue_pct)
	# snap=1: the reloaded module's events, enabled while nothing runs
	[ "${TCP_SNAP:-0}" = 1 ] && echo 1 > /sys/kernel/tracing/events/mroce/enable
	devs_add mroce || { echo "# mroce: devices after the reload failed"; return 1; }
	say "mroce reloaded: loss_queue_pct=$LQ_NOW"
}

declare -A SNAP
snap() {	# snap DEV...: remember the hw counters
	local d f v
	for d; do for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
		[ -e "$f" ] || continue; read -r v < "$f"; SNAP[$d.${f##*/}]=$v
	done; done
}
delta() {	# delta DEV...: "dev.counter=N,..." for what changed since snap
	local d f v out=""
	for d; do for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
		[ -e "$f" ] || continue; read -r v < "$f"; v=$((v - ${SNAP[$d.${f##*/}]:-0}))
		[ "$v" = 0 ] || out="$out,$d.${f##*/}=$v"
	done; done
	echo "${out#,}"
}
ctr() {	# ctr DELTA NAME: one counter out of a delta string (0 if absent)
	local v
	v=$(grep -o "[.,]$2=[0-9-]*" <<<",$1" | head -1)
	echo "${v#*=}" | sed 's/^$/0/'
}

# per-spine fwd bytes of plane P (leaf 1's egress): SPB[i]
declare -a SPB
spines_now() {	# spines_now P
	local i
	fab_netdev "${FAB_PID[$1.1]}"
	SPB=()
	for ((i = 1; i <= FAB_K; i++)); do SPB[i]=${NETDEV_TXB[s$i]:-0}; done
}
# "used/K b1:b2:..": spines with >= 5 % of the bytes since the last spines_now
spines_used() {	# spines_used P
	local i tot=0 n=0 out=""
	local -a b0=("${SPB[@]}") dlt=()
	spines_now "$1"
	for ((i = 1; i <= FAB_K; i++)); do dlt[i]=$((SPB[i] - b0[i - 1])); tot=$((tot + dlt[i])); done
	for ((i = 1; i <= FAB_K; i++)); do
		[ $tot -gt 0 ] && [ $((dlt[i] * 20)) -ge $tot ] && n=$((n + 1))
		out="$out:$((dlt[i] / 1000))"
	done
	echo "$n/$FAB_K ${out#:}"
}
WIRE=0
wire_fwd() {	# total fwd bytes of plane 0 (sum over spines) into WIRE
	local i
	spines_now 0
	WIRE=0
	for ((i = 1; i <= FAB_K; i++)); do WIRE=$((WIRE + SPB[i])); done
}

# guest CPU busy fraction between two cpu_now calls
CPU0=()
cpu_now() { read -r -a CPU0 < /proc/stat; }
cpu_busy() {	# percent busy since cpu_now ("cpu user nice system idle iowait irq softirq steal")
	local -a c
	local i tot=0 idle
	read -r -a c < /proc/stat
	for ((i = 1; i <= 8; i++)); do tot=$((tot + c[i] - CPU0[i])); done
	idle=$((c[4] - CPU0[4] + c[5] - CPU0[5]))
	[ $tot -gt 0 ] && echo $(( (tot - idle) * 100 / tot )) || echo -
}

# ---- one ib_write_bw -D run -----------------------------------------------
# bw_of LOG: MiB/s of one ib_write_bw -D client log (from its iterations where
# perftest's TCG clock calibration printed 0.00), or FAIL
bw_of() {
	awk -v sz="$SIZE" -v t="$DUR" '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ && !f {
		f = 1; v = $4 + 0 > 0 ? $4 : sprintf("%.2f", $2 * sz / t / 1048576) }
		END { print f ? v : "FAIL" }' "$1" 2>/dev/null || echo FAIL
}

# bw_run DRIVER NAME: sets BW (MiB/s as perftest prints it), RC, USED, CTR,
# FWDMB (MB that crossed the spines host 1 -> host 2), CPU
bw_run() {
	local d=$1 name=$2 w0 el0
	snap "${CLI[$d]}" "${SRV[$d]}"
	wire_fwd; w0=$WIRE
	spines_now 0
	cpu_now
	el0=$(el)
	pair "$name" $((DUR + 60)) ib_write_bw -d "${SRV[$d]}" -x "${SG[$d]}" -F -s "$SIZE" -D "$DUR" -- \
		ib_write_bw -d "${CLI[$d]}" -x "${CG[$d]}" -F -s "$SIZE" -D "$DUR" "$(fab_ip 2 0)" > "$PAIR_LOG/$name.fail" 2>&1
	RC=$?
	CPU=$(cpu_busy)
	USED=$(spines_used 0)
	wire_fwd
	CTR=$(delta "${CLI[$d]}" "${SRV[$d]}")
	BW=FAIL FWDMB=$(( (WIRE - w0) / 1000000 ))
	[ $RC -eq 0 ] && BW=$(bw_of "$PAIR_LOG/$name.cli")
	say "$name: $BW MiB/s rc=$RC spines $USED fwd ${FWDMB} MB retx $(retx_of "$d" "$CTR") ($(waste_of "$d" "$CTR")%) cpu ${CPU}% ($(( $(el) - el0 )) s)"
	[ "$BW" != FAIL ] || sed 's/^/#   /' "$PAIR_LOG/$name.fail" | head -20
}

# ---- timeline runs: perftest forever, an action in the middle ---------------
# tl_run DRIVER NAME ACTION...: ib_write_bw -D 1 --run_infinitely for
# BH_WARM + BH_AFTER seconds; the sampler runs all along; ACTION (a command;
# the word SPINE in it becomes the spine that carried the most fwd bytes of
# the driver in the second before) runs at BH_WARM. Events go to
# tl-NAME.events ("time<TAB>what"), perftest's per-second iterations to
# tl-NAME.persec. Sets TL_RC, TL_SPINE, TL_SHARE (percent of fwd bytes the
# spine carried), TL_QP1 / TL_QP3 / TL_QPEND (QP states 1 s and 3 s after the
# action, and at the end), TL_EXIT (when the client exited, s after start, or
# "-").
tl_run() {
	local d=$1 name=$2 sp cp smp t0 i n ev tot=0 best=0 bi=1 tend
	shift 2
	local -a act=("$@") b0
	ev=$O/tl-$name.events
	: > "$ev"
	TL_CLI=$PAIR_LOG/$name.cli TL_DRV=$d TL_WHAT="" TL_SHOWN=0
	fab_sample interval="$(awk -v m="$IVAL" 'BEGIN { print m / 1000 }')" plane=all net=h1p0,h2p0 \
		rdma="$(tl_ctrs "$d")" > "$O/tl-$name.tsv" 2>/dev/null &
	smp=$!
	renice -n -20 -p "$smp" > /dev/null 2>&1	# ticks on time while perftest polls
	LD_PRELOAD=$LB timeout -k 3 $((BH_WARM + BH_AFTER + 30)) ib_write_bw -d "${SRV[$d]}" -x "${SG[$d]}" -F -s "$SIZE" \
		-D 1 --run_infinitely > "$PAIR_LOG/$name.srv" 2>&1 &
	sp=$!
	wait_server tcp:18515
	t0=$EPOCHREALTIME
	printf '%s\tstart\n' "$t0" >> "$ev"
	LD_PRELOAD=$LB timeout -k 3 $((BH_WARM + BH_AFTER + 10)) ib_write_bw -d "${CLI[$d]}" -x "${CG[$d]}" -F -s "$SIZE" \
		-D 1 --run_infinitely "$(fab_ip 2 0)" > "$PAIR_LOG/$name.cli" 2>&1 &
	cp=$!
	TL_EXIT=-
	tl_sleep_until "$t0" $((BH_WARM - 1)) "$cp" "$ev"
	spines_now 0; b0=("${SPB[@]}")
	[ "$d" = mroce ] && cat /sys/kernel/debug/mroce/"${CLI[$d]}"/peers > "$PAIR_LOG/$name.peers0" 2>&1
	tl_sleep_until "$t0" "$BH_WARM" "$cp" "$ev"
	spines_now 0
	for ((i = 1; i <= FAB_K; i++)); do
		n=$((SPB[i] - b0[i - 1])); tot=$((tot + n))
		[ $n -gt $best ] && best=$n bi=$i
	done
	TL_SPINE=$bi TL_SHARE=$([ $tot -gt 0 ] && echo $((best * 100 / tot)) || echo 0)
	act=("${act[@]//SPINE/$bi}")
	printf '%s\taction: %s (spine %s carried %s%% of fwd bytes in the second before)\n' "$EPOCHREALTIME" "${act[*]}" "$bi" "$TL_SHARE" >> "$ev"
	"${act[@]}" >> "$PAIR_LOG/$name.action" 2>&1
	[ "${act[0]}" = true ] || TL_WHAT="(spine $bi black-holed at +$BH_WARM s)"
	tl_sleep_until "$t0" $((BH_WARM + 1)) "$cp" "$ev"
	TL_QP1=$(qp_states "$d")
	rdma res show qp > "$PAIR_LOG/$name.qp1" 2>&1
	printf '%s\tQPs: %s\n' "$EPOCHREALTIME" "$TL_QP1" >> "$ev"
	[ "$d" = mroce ] && cat /sys/kernel/debug/mroce/"${CLI[$d]}"/peers > "$PAIR_LOG/$name.peers1" 2>&1
	tl_sleep_until "$t0" $((BH_WARM + 3)) "$cp" "$ev"
	TL_QP3=$(qp_states "$d")
	printf '%s\tQPs: %s\n' "$EPOCHREALTIME" "$TL_QP3" >> "$ev"
	tend=$((BH_WARM + BH_AFTER))
	tl_sleep_until "$t0" "$tend" "$cp" "$ev"
	TL_QPEND=$(qp_states "$d")
	printf '%s\tQPs: %s\n' "$EPOCHREALTIME" "$TL_QPEND" >> "$ev"
	[ "$d" = mroce ] && cat /sys/kernel/debug/mroce/"${CLI[$d]}"/peers > "$PAIR_LOG/$name.peers2" 2>&1
	if kill -0 "$cp" 2>/dev/null; then
		kill "$cp" 2>/dev/null; wait "$cp"; TL_RC=0
	else
		wait "$cp"; TL_RC=$?
	fi
	kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
	printf '%s\tend (client rc %s)\n' "$EPOCHREALTIME" "$TL_RC" >> "$ev"
	sleep 0.3
	kill "$smp" 2>/dev/null; wait "$smp" 2>/dev/null
	awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print ++n, $2}' "$PAIR_LOG/$name.cli" > "$O/tl-$name.persec"
	grep -iE 'error|fail|couldn|status' "$PAIR_LOG/$name.cli" | head -3 | sed 's/^/#   client: /'
}
tl_sleep_until() {	# tl_sleep_until T0 SECS CLIENT-PID EVENTS: note the client's exit
	local now end=$(( ${1/./} + $2 * 1000000 ))
	while now=${EPOCHREALTIME/./}; [ "$now" -lt "$end" ]; do
		if [ "$PROGRESS" = 1 ] && [ $((now - ${TL_SHOWN:-0})) -ge 1000000 ]; then
			TL_SHOWN=$now
			tl_progress "$1" "$now"
		fi
		if [ "$TL_EXIT" = - ] && ! kill -0 "$3" 2>/dev/null; then
			TL_EXIT=$(( (now - ${1/./}) / 100000 )); TL_EXIT="$((TL_EXIT / 10)).$((TL_EXIT % 10))"
			printf '%s\tclient exited\n' "$EPOCHREALTIME" >> "$4"
		fi
		sleep 0.1
	done
}
# per_sec CLI-LOG [N]: "LINES MB/s" of perftest's per-second lines, the
# figure of line N (default: the last); perftest's own, or from its
# iterations where its TCG clock calibration failed and printed 0.00
per_sec() {
	awk -v at="${2:-0}" -v sz="$SIZE" '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ && !done {
		n++
		v = $4 + 0 > 0 ? $4 : sprintf("%.2f", $2 * sz / 1048576)
		if (n == at) done = 1
	} END { print n + 0, v }' "$1" 2>/dev/null
}
# tl_progress T0 NOW: one line, the client's latest second; with TL_PREV
# (the client log of the other driver's same run, just before) also what
# that one did at the same second of its run
tl_progress() {
	local bw n s prev=""
	s=$(( ($2 - ${1/./}) / 1000000 ))
	bw=$(per_sec "$TL_CLI")
	n=${bw%% *} bw=${bw#* }	# (no process substitution: the guest has no /dev/fd)
	if [ -n "${TL_PREV:-}" ] && [ -f "$TL_PREV" ] && [ "${n:-0}" -gt 0 ]; then
		# the same second of its run: perftest's line number n in both
		prev=$(per_sec "$TL_PREV" "$n")
		[ "${prev%% *}" -ge "$n" ] && prev=${prev#* } || prev=""
		prev=$(printf '| %s, same second of its run: %s MB/s' "$TL_PREV_DRV" "${prev:--}")
	fi
	[ -n "$bw" ] && bw="$bw MB/s"
	printf '#   %-6s +%2d s  %13s  %-32s %s\n' "$TL_DRV" "$s" "${bw:-(starting)}" "$TL_WHAT" "$prev"
}
tl_ctrs() {	# the counters the sampler reads for a driver
	case $1 in
	mroce) echo "mroce0:tx_data,tx_retx,spurious_retx,loss_fast,loss_rto,rto,path_failed,path_repath,path_silent/mroce1:rx_data,rx_dup_tsn";;
	rxe) echo "rxe0:sent_pkts,rcvd_seq_err,completer_retry_err,retry_exceeded_err/rxe1:rcvd_pkts,duplicate_request,out_of_seq_request";;
	esac
}
qp_states() {	# qp_states DRIVER: the client's RC QPs and their states ("none" if none)
	local s
	s=$(rdma res show qp link "${CLI[$1]}/1" 2>/dev/null | awk '/type RC/ { for (i = 1; i < NF; i++) if ($i == "state") print $(i + 1) }' | sort | uniq -c | awk '{ sep = (NR > 1) ? "," : ""; printf "%s%s x%s", sep, $2, $1 }')
	echo "${s:-none}"
}

# ---- parts ------------------------------------------------------------------
R_LOSS=$O/loss.tsv R_RE=$O/reorder.tsv R_BH=$O/blackhole.tsv R_PL=$O/planes.tsv R_RATE=$O/rate.tsv
printf 'k\tloss_pct\trep\tslot\tdriver\tbw_MiBps\trc\tspines_used\tspine_kB\tfwd_MB\tcpu_pct\tretx\tretx_pct\tcounters\n' > "$R_LOSS"
printf 'k\tlimit\trep\tslot\tdriver\tbw_MiBps\trc\tspines_used\tspine_kB\tfwd_MB\tcpu_pct\tretx\tretx_pct\tcounters\n' > "$R_RATE"
printf 'k\tskew\trep\tslot\tdriver\tbw_MiBps\trc\tspines_used\tspine_kB\tfwd_MB\tcpu_pct\tretx\tretx_pct\tcounters\n' > "$R_RE"
printf 'k\tdriver\tname\tspine\tspine_share_pct\tclient_rc\tclient_exit_s\tqp_1s\tqp_3s\tqp_end\n' > "$R_BH"
printf 'planes\tdriver\tbw_MiBps\trc\tplane_kB\tcpu_pct\tcounters\tloss_queue_pct\tretx_pct\n' > "$R_PL"
R_FAIR=$O/fair.tsv R_TCP=$O/tcp.tsv
printf 'variant\trep\tdriver\tloss_queue_pct\tpairs\tbw_MiBps\tsum_MiBps\tjain\tretx_pct\tcpu_pct\tcounters\tdropped\n' > "$R_FAIR"
printf 'variant\tdriver\tloss_queue_pct\trdma_alone_MiBps\ttcp_alone_MiBps\trdma_MiBps\ttcp_MiBps\trdma_retx_pct\ttcp_retr\tcounters\tdropped\n' > "$R_TCP"

# Retransmissions as each driver counts them. mroce: packets resent
# (tx_retx); rxe has no such counter: what its responder threw away
# (duplicate_request + out_of_seq_request: go-back-N resends all of them).
retx_of() {	# retx_of DRIVER DELTA
	case $1 in
	mroce) ctr "$2" mroce0.tx_retx;;
	rxe) echo "$(( $(ctr "$2" rxe1.duplicate_request) + $(ctr "$2" rxe1.out_of_seq_request) ))";;
	esac
}
waste_of() {	# waste_of DRIVER DELTA: retx as a percentage of the data packets sent
	local n
	case $1 in mroce) n=$(ctr "$2" mroce0.tx_data);; rxe) n=$(ctr "$2" rxe0.sent_pkts);; esac
	awk -v r="$(retx_of "$1" "$2")" -v n="$n" 'BEGIN { if (n > 0) printf "%.1f", 100 * r / n; else print "-" }'
}

sweep() {	# sweep FILE K LABEL VALUE REP: one A/B pair of runs
	local f=$1 k=$2 val=$4 rep=$5 slot=0 d
	local -a order=("${DL[@]}")
	if [ $((rep % 2)) = 0 ]; then order=(); for ((i = ${#DL[@]} - 1; i >= 0; i--)); do order+=("${DL[i]}"); done; fi
	for d in "${order[@]}"; do
		slot=$((slot + 1))
		bw_run "$d" "$3-k$k-$val-$d-$rep"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$val" "$rep" "$slot" "$d" "$BW" "$RC" \
			"${USED%% *}" "${USED#* }" "$FWDMB" "$CPU" "$(retx_of "$d" "$CTR")" "$(waste_of "$d" "$CTR")" "$CTR" >> "$f"
	done
}

fabric_for() {	# fabric_for K: the fabric and the devices
	fab_down > /dev/null 2>&1
	t_here "fabric up, $1 spines" fab_up k="$1"
	t_here "fabric check ($1 spines: reachable, ECMP spreads source ports)" fab_check
	fab_load
	t_here "devices ${DRIVERS} on h1p0 / h2p0" devs_add "${DL[@]}"
}

for k in $KS; do
	has "$PARTS" loss || has "$PARTS" rate || has "$PARTS" blackhole || has "$PARTS" reorder || break
	say "===== $k spines"
	fabric_for "$k"
	echo "# ping over the fabric: $(ping -c 5 -i 0.2 -I "$(fab_ip 1 0)" "$(fab_ip 2 0)" | tail -1)"
	if has "$PARTS" loss; then
		for loss in $LOSSES; do
			fab_set loss="$loss" || echo "# fab_set loss=$loss failed"
			for ((rep = 1; rep <= REPS; rep++)); do sweep "$R_LOSS" "$k" loss "$loss" "$rep"; done
			fab_qdrops "$(fab_leaf 1 0)" s1 | sed "s/^/# loss $loss: spine 1 fwd netem dropped /"
		done
		fab_set loss=
	fi
	if has "$PARTS" rate && [ "$k" = "${KS%% *}" ]; then
		for ecn in 0 1; do
			v="$RATE$([ $ecn = 1 ] && echo +ecn)"
			fab_set rate="$RATE" limit="$RATE_LIMIT" ecn=$ecn || { echo "# fab_set rate=$RATE ecn=$ecn failed"; continue; }
			for ((rep = 1; rep <= REPS; rep++)); do sweep "$R_RATE" "$k" rate "$v" "$rep"; done
			for ((i = 1; i <= k; i++)); do
				echo "# $v spine $i fwd: $($TC -n "$(fab_spine $i 0)" -s qdisc show dev l2 | grep -oE 'dropped [0-9]+|marked [0-9]+' | tr '\n' ' ')"
			done
		done
		if has "$DRIVERS" mroce; then
			# the same tail drop, mroce taking loss with a queue behind it as congestion
			v="$RATE+lq$LQ"
			fab_set rate="$RATE" limit="$RATE_LIMIT" ecn=0
			if mroce_lq "$LQ"; then
				dl=("${DL[@]}"); DL=(mroce)
				for ((rep = 1; rep <= REPS; rep++)); do sweep "$R_RATE" "$k" rate "$v" "$rep"; done
				DL=("${dl[@]}")
				for ((i = 1; i <= k; i++)); do
					echo "# $v spine $i fwd: $($TC -n "$(fab_spine $i 0)" -s qdisc show dev l2 | grep -oE 'dropped [0-9]+' | tr '\n' ' ')"
				done
			fi
			mroce_lq 0
		fi
		fab_set rate= limit= ecn=
	fi
	if has "$PARTS" reorder; then
		for ((i = 1; i <= k; i++)); do
			fab_set spine=$i delay="$(awk -v i=$i -v s="${SKEW%ms}" 'BEGIN { printf "%gms", (i - 1) * s }')"
		done
		fab_show | grep 'fwd leaf qdisc' | sed 's/^/# /'
		for ((rep = 1; rep <= REPS; rep++)); do sweep "$R_RE" "$k" reorder "$SKEW" "$rep"; done
		fab_set delay=
	fi
	if has "$PARTS" blackhole; then
		if [ "$CONTROL" = 1 ] && [ "$k" = "${KS%% *}" ]; then
			for d in "${DL[@]}"; do
				say "control (no black hole), $k spines, $d"
				tl_run "$d" "ctl-k$k-$d" true
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$d" "ctl-k$k-$d" "$TL_SPINE" "$TL_SHARE" "$TL_RC" \
					"$TL_EXIT" "$TL_QP1" "$TL_QP3" "$TL_QPEND" >> "$R_BH"
				say "ctl-k$k-$d: client rc $TL_RC, exited at ${TL_EXIT} s; QPs +1 s: $TL_QP1, end: $TL_QPEND"
			done
		fi
		TL_PREV="" TL_PREV_DRV=""
		for d in "${DL[@]}"; do
			say "black hole, $k spines, $d"
			tl_run "$d" "bh-k$k-$d" fab_blackhole SPINE
			TL_PREV=$PAIR_LOG/bh-k$k-$d.cli TL_PREV_DRV=$d
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$d" "bh-k$k-$d" "$TL_SPINE" "$TL_SHARE" "$TL_RC" \
				"$TL_EXIT" "$TL_QP1" "$TL_QP3" "$TL_QPEND" >> "$R_BH"
			say "bh-k$k-$d: spine $TL_SPINE (${TL_SHARE}% of fwd bytes), client rc $TL_RC, exited at ${TL_EXIT} s; QPs +1 s: $TL_QP1, +3 s: $TL_QP3, end: $TL_QPEND"
			fab_restore
			sleep 1
		done
		TL_PREV="" TL_PREV_DRV=""
		if has "$PARTS" rate && [ "$k" = "${KS%% *}" ]; then
			fab_set rate="$RATE" limit="$RATE_LIMIT"
			for d in "${DL[@]}"; do
				say "black hole, $k spines at $RATE, $d"
				tl_run "$d" "bhrate-k$k-$d" fab_blackhole SPINE
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$d" "bhrate-k$k-$d" "$TL_SPINE" "$TL_SHARE" "$TL_RC" \
					"$TL_EXIT" "$TL_QP1" "$TL_QP3" "$TL_QPEND" >> "$R_BH"
				say "bhrate-k$k-$d: spine $TL_SPINE (${TL_SHARE}% of fwd bytes), client rc $TL_RC, exited at ${TL_EXIT} s; QPs +1 s: $TL_QP1, +3 s: $TL_QP3, end: $TL_QPEND"
				fab_restore
				sleep 1
			done
			fab_set rate= limit=
		fi
	fi
	[ -n "$(rdma stat show link mroce0/1 2>/dev/null)" ] && rdma stat show link mroce0/1 | sed 's/^/# counters: /'
	devs_del
done

# ---- several pairs at once --------------------------------------------------
gids_wait() {	# gids_wait N DRIVER...: the GIDs of addresses 1..N on both devices
	local n=$1 d j
	shift
	for d; do
		for ((j = 1; j <= n; j++)); do
			t_wait 10 gid_index "${CLI[$d]}" "$(fab_ip 1 0 $j)" > /dev/null || return 1
			t_wait 10 gid_index "${SRV[$d]}" "$(fab_ip 2 0 $j)" > /dev/null || return 1
		done
	done
}
# packets dropped so far where they can be: the spine's queue (fwd, plane 0,
# spine 1) and the guest's backlog (softnet_stat, all CPUs): "spine host"
drops_now() {
	local n=0
	local -a f
	while read -r -a f; do n=$((n + 16#${f[1]})); done < /proc/net/softnet_stat
	echo "$(fab_qdrops "$(fab_spine 1 0)" l2) $n"
}
drops_since() {	# drops_since "SPINE HOST" (from drops_now): "spine S, host H"
	local -a a b
	read -r -a a <<<"$1"; read -r -a b <<<"$(drops_now)"
	echo "spine $((${b[0]:-0} - ${a[0]:-0})), host $((${b[1]:-0} - ${a[1]:-0}))"
}

# multi_run DRIVER NAME N: N ib_write_bw -D pairs at once, pair J from address
# J of host 1 to address J of host 2 (a connection of its own), TCP port
# 18515 + J. Sets MBW (MiB/s per pair, space-separated; FAIL for a failed
# one), SUM, JAIN (Jain's index over the pairs, a failed one counting 0),
# CTR, CPU.
multi_run() {
	local d=$1 name=$2 n=$3 j g d0
	local -a sp=() cp=()
	snap "${CLI[$d]}" "${SRV[$d]}"
	cpu_now
	d0=$(drops_now)
	for ((j = 1; j <= n; j++)); do
		g=$(gid_index "${SRV[$d]}" "$(fab_ip 2 0 $j)")
		LD_PRELOAD=$LB timeout -k 3 $((DUR + 60)) ib_write_bw -d "${SRV[$d]}" -x "$g" -F -s "$SIZE" \
			-D "$DUR" -p $((18515 + j)) > "$PAIR_LOG/$name-$j.srv" 2>&1 &
		sp+=($!)
	done
	for ((j = 1; j <= n; j++)); do wait_server tcp:$((18515 + j)); done
	for ((j = 1; j <= n; j++)); do
		g=$(gid_index "${CLI[$d]}" "$(fab_ip 1 0 $j)")
		LD_PRELOAD=$LB timeout -k 3 $((DUR + 50)) ib_write_bw -d "${CLI[$d]}" -x "$g" -F -s "$SIZE" \
			-D "$DUR" -p $((18515 + j)) "$(fab_ip 2 0 $j)" > "$PAIR_LOG/$name-$j.cli" 2>&1 &
		cp+=($!)
	done
	for j in "${cp[@]}"; do wait "$j"; done
	sleep 1
	kill "${sp[@]}" 2>/dev/null; wait "${sp[@]}" 2>/dev/null
	CPU=$(cpu_busy)
	CTR=$(delta "${CLI[$d]}" "${SRV[$d]}")
	MBW=""
	for ((j = 1; j <= n; j++)); do MBW="$MBW $(bw_of "$PAIR_LOG/$name-$j.cli")"; done
	MBW=${MBW# }
	DROPS=$(drops_since "$d0")
	read -r SUM JAIN <<<"$(awk -v l="$MBW" 'BEGIN { n = split(l, a, " ")
		for (i = 1; i <= n; i++) { x = a[i] + 0; s += x; q += x * x }
		printf "%.2f %.3f\n", s, (q > 0) ? s * s / (n * q) : 0 }')"
	say "$name: $MBW MiB/s, sum $SUM, Jain $JAIN, retx $(waste_of "$d" "$CTR")%, cpu ${CPU}%, dropped: $DROPS"
}

# iperf_run NAME SECS [LOG]: iperf3 (TCP) from address 2 of host 1 to address
# 2 of host 2 for SECS, in the background (IPERF_PID); its server's per-second
# lines go to LOG (default $PAIR_LOG/NAME.tcp)
iperf_run() {
	local log=${3:-$PAIR_LOG/$1.tcp}
	iperf3 -s -1 -B "$(fab_ip 2 0 2)" -p 5201 -i 1 -f m > "$log" 2>&1 &
	IPERF_SRV=$!
	wait_server tcp:5201
	IPERF_T0=${EPOCHREALTIME/./}
	timeout -k 3 $(($2 + 20)) iperf3 -c "$(fab_ip 2 0 2)" -B "$(fab_ip 1 0 2)" -p 5201 -t "$2" -i 1 -f m \
		> "$PAIR_LOG/$1.tcpcli" 2>&1 &
	IPERF_PID=$!
}
iperf_wait() {
	wait "$IPERF_PID"
	for ((i = 0; i < 50; i++)); do kill -0 "$IPERF_SRV" 2>/dev/null || break; sleep 0.1; done
	kill "$IPERF_SRV" 2>/dev/null; wait "$IPERF_SRV" 2>/dev/null
	return 0
}
# tcp_mibps LOG FROM TO: mean MiB/s of the receiver's 1 s intervals that lie
# within [FROM, TO] seconds of its start (all of them with FROM = TO = -)
tcp_mibps() {
	awk -v a="$2" -v b="$3" '/sec .*bits\/sec/ && !/sender|receiver/ {
		split($3, t, "-"); if (t[2] - t[1] > 1.5) next
		if (a != "-" && (t[1] < a || t[2] > b)) next
		for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec$/) { v = $(i - 1); u = $i }
		m = (u ~ /^G/) ? 1000 : (u ~ /^M/) ? 1 : (u ~ /^K/) ? 0.001 : 1e-6
		s += v * m; n++ }
		END { if (n) printf "%.2f\n", s / n * 1e6 / 8 / 1048576; else print "FAIL" }' "$1"
}
tcp_retr() {	# tcp_retr CLIENT-LOG: the sender's retransmissions (iperf3 "Retr")
	awk '/sender/ { for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec$/) { print $(i + 1); exit } }' "$1"
}

# ---- fairness: several connections through one bottleneck ---------------------
if has "$PARTS" fair; then
	say "===== fairness: $FAIR_N pairs at once through one spine at $FAIR_RATE"
	devs_del; fab_down > /dev/null 2>&1
	t_here "fabric up, 1 spine at $FAIR_RATE, $FAIR_N addresses per host" \
		fab_up k=1 addrs="$FAIR_N" rate="$FAIR_RATE" limit="$FAIR_LIMIT"
	fab_load
	t_here "devices ${DRIVERS} on h1p0 / h2p0" devs_add "${DL[@]}"
	t_here "GIDs of $FAIR_N addresses" gids_wait "$FAIR_N" "${DL[@]}"
	fair_row() {	# fair_row VARIANT REP DRIVER
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
			"$([ "$3" = mroce ] && echo "$LQ_NOW" || echo -)" "$FAIR_N" "$MBW" "$SUM" "$JAIN" \
			"$(waste_of "$3" "$CTR")" "$CPU" "$CTR" "$DROPS" >> "$R_FAIR"
	}
	for ((rep = 1; rep <= REPS; rep++)); do
		if has "$DRIVERS" rxe; then
			multi_run rxe "fair-taildrop-rxe-$rep" "$FAIR_N"; fair_row taildrop "$rep" rxe
		fi
		if has "$DRIVERS" mroce; then
			for lq in 0 "$LQ"; do
				if ! mroce_lq "$lq" || ! gids_wait "$FAIR_N" mroce; then continue; fi
				multi_run mroce "fair-taildrop-mroce-lq$lq-$rep" "$FAIR_N"; fair_row taildrop "$rep" mroce
			done
			mroce_lq 0 && gids_wait "$FAIR_N" mroce
		fi
	done
	if has "$DRIVERS" mroce && fab_set rate="$FAIR_RATE" limit="$FAIR_LIMIT" ecn=1; then
		for ((rep = 1; rep <= REPS; rep++)); do
			multi_run mroce "fair-ecn-mroce-$rep" "$FAIR_N"; fair_row ecn "$rep" mroce
		done
	fi
	echo "# fair: spine 1 fwd: $($TC -n "$(fab_spine 1 0)" -s qdisc show dev l2 | grep -oE 'dropped [0-9]+|marked [0-9]+' | tr '\n' ' ')"
	devs_del
fi

# ---- beside TCP -------------------------------------------------------------------
if has "$PARTS" tcp; then
	say "===== beside TCP: iperf3 and ib_write_bw through one spine at $TCP_RATE"
	devs_del; fab_down > /dev/null 2>&1
	if ! command -v iperf3 > /dev/null; then
		echo "SKIP: no iperf3 in the guest image"
		printf 'SKIP\t-\t-\t-\t-\t-\t-\t-\t-\tno iperf3\n' >> "$R_TCP"
	else
		t_here "fabric up, 1 spine at $TCP_RATE, 2 addresses per host" \
			fab_up k=1 addrs=2 rate="$TCP_RATE" limit="$TCP_LIMIT"
		fab_load
		t_here "devices ${DRIVERS} on h1p0 / h2p0" devs_add "${DL[@]}"
		echo "# tcp: congestion control $(sysctl -n net.ipv4.tcp_congestion_control), ecn $(sysctl -n net.ipv4.tcp_ecn)"
		iperf_run tcp-alone "$DUR"; iperf_wait
		TALONE=$(tcp_mibps "$PAIR_LOG/tcp-alone.tcp" - -)
		say "tcp alone: $TALONE MiB/s, retr $(tcp_retr "$PAIR_LOG/tcp-alone.tcpcli")"
		TRC=/sys/kernel/tracing
		# the events are enabled once, while nothing runs: patching the
		# tracepoints in under load hung the TCG guest (text_poke_bp)
		if [ "${TCP_SNAP:-0}" = 1 ]; then
			grep -q " /sys/kernel/debug " /proc/mounts ||
				mount -t debugfs none /sys/kernel/debug
			grep -q " $TRC " /proc/mounts || mount -t tracefs none $TRC
			echo 0 > $TRC/tracing_on
			echo 4096 > $TRC/buffer_size_kb
			echo 1 > $TRC/events/mroce/enable
		fi
		snap_start() {	# snap_start VARIANT: debugfs peers and mroce events
			echo > $TRC/trace; echo 1 > $TRC/tracing_on
			( while :; do echo "@ ${EPOCHREALTIME}"
				cat /sys/kernel/debug/mroce/*/peers 2>/dev/null; sleep 0.5
			done > "$PAIR_LOG/tcp-$1.snap" ) &
			SNAP_PID=$!
		}
		snap_stop() {
			kill "$SNAP_PID" 2>/dev/null; wait "$SNAP_PID" 2>/dev/null
			echo 0 > $TRC/tracing_on
			cat $TRC/trace > "$PAIR_LOG/tcp-$1.trace"
		}
		tcp_case() {	# tcp_case VARIANT DRIVER: alone, then beside iperf3
			local d=$2 alone t0 t1 d0
			bw_run "$d" "tcp-$1-alone"; alone=$BW
			d0=$(drops_now)
			iperf_run "tcp-$1" $((DUR + 10))
			sleep 2
			t0=$(( (${EPOCHREALTIME/./} - IPERF_T0) / 1000000 ))
			[ "$d" = mroce ] && [ "${TCP_SNAP:-0}" = 1 ] && snap_start "$1"
			bw_run "$d" "tcp-$1-beside"
			[ "$d" = mroce ] && [ "${TCP_SNAP:-0}" = 1 ] && snap_stop "$1"
			t1=$(( (${EPOCHREALTIME/./} - IPERF_T0) / 1000000 ))
			iperf_wait
			DROPS=$(drops_since "$d0")
			# perftest measures its last DUR seconds; its setup takes the rest
			TB=$(tcp_mibps "$PAIR_LOG/tcp-$1.tcp" $((t1 - DUR)) "$t1")
			say "tcp-$1: $d $BW MiB/s (alone $alone), tcp $TB MiB/s (alone $TALONE) in [$((t1 - DUR)), $t1] s; perftest ran [$t0, $t1]; dropped: $DROPS"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$d" \
				"$([ "$d" = mroce ] && echo "$LQ_NOW" || echo -)" "$alone" "$TALONE" "$BW" "$TB" \
				"$(waste_of "$d" "$CTR")" "$(tcp_retr "$PAIR_LOG/tcp-$1.tcpcli")" "$CTR" "$DROPS" >> "$R_TCP"
		}
		has "$DRIVERS" rxe && tcp_case rxe rxe
		if has "$DRIVERS" mroce; then
			tcp_case mroce-lq0 mroce
			mroce_lq "$LQ" && tcp_case "mroce-lq$LQ" mroce
			mroce_lq 0
		fi
		echo "# tcp: spine 1 fwd: $($TC -n "$(fab_spine 1 0)" -s qdisc show dev l2 | grep -oE 'dropped [0-9]+' | tr '\n' ' ')"
		devs_del
	fi
fi

# ---- planes ------------------------------------------------------------------
if has "$PARTS" planes; then
	pmax=1
	for p in $PLANE_LIST; do [ "$p" -gt "$pmax" ] && pmax=$p; done
	say "===== planes ($PLANE_LIST; $PLANE_K spines each at $PLANE_RATE)"
	fab_down > /dev/null 2>&1
	t_here "fabric up, $pmax planes of $PLANE_K spines at $PLANE_RATE" fab_up k="$PLANE_K" planes="$pmax" rate="$PLANE_RATE" limit="$PLANE_LIMIT"
	fab_load
	t_here "devices ${DRIVERS} on h1p0 / h2p0" devs_add "${DL[@]}"
	plane_kb() {	# per-plane fwd kB since plane_mark
		local p i s out=""
		for ((p = 0; p < FAB_P; p++)); do
			spines_now $p; s=0
			for ((i = 1; i <= FAB_K; i++)); do s=$((s + SPB[i])); done
			out="$out:$(( (s - ${PMARK[p]:-0}) / 1000 ))"; PMARK[p]=$s
		done
		echo "${out#:}"
	}
	declare -a PMARK
	if has "$DRIVERS" rxe; then
		plane_kb > /dev/null
		bw_run rxe planes-1-rxe
		printf '1\trxe\t%s\t%s\t%s\t%s\t%s\t-\t%s\n' "$BW" "$RC" "$(plane_kb)" "$CPU" "$CTR" "$(waste_of rxe "$CTR")" >> "$R_PL"
	fi
	if [ ! -e /sys/class/infiniband/mroce0/planes ]; then
		echo "SKIP: planes not supported by this mroce (no /sys/class/infiniband/mroce0/planes)"
		printf 'SKIP\tmroce\t-\t-\t-\t-\tplanes not supported by this mroce\n' >> "$R_PL"
	else
		for lq in 0 "$LQ"; do
			# a reload takes the devices and their planes with it
			mroce_lq "$lq" || continue
			have=$(grep -c . /sys/class/infiniband/mroce0/planes)
			for p in $PLANE_LIST; do
				while [ "$have" -lt "$p" ]; do
					t_ok "mroce: add plane $have (h1p$have, h2p$have)" bash -c \
						"echo 'add h1p$have' > /sys/class/infiniband/mroce0/planes && echo 'add h2p$have' > /sys/class/infiniband/mroce1/planes"
					have=$((have + 1))
				done
				sed 's/^/# mroce0 planes: /' /sys/class/infiniband/mroce0/planes
				plane_kb > /dev/null
				bw_run mroce "planes-$p-mroce-lq$LQ_NOW"
				printf '%s\tmroce\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$BW" "$RC" "$(plane_kb)" "$CPU" "$CTR" \
					"$LQ_NOW" "$(waste_of mroce "$CTR")" >> "$R_PL"
			done
			[ "$lq" = "$LQ" ] || continue
			mroce_lq 0 || break
			have=$(grep -c . /sys/class/infiniband/mroce0/planes)
			while [ "$have" -lt "$pmax" ]; do
				echo "add h1p$have" > /sys/class/infiniband/mroce0/planes && echo "add h2p$have" > /sys/class/infiniband/mroce1/planes
				have=$((have + 1))
			done
		done
		if [ "$have" -ge 2 ]; then
			say "plane 1 down mid-run ($have planes, mode $PLANE_MODE)"
			tl_run mroce planes-down fab_plane_down 1 mode="$PLANE_MODE"
			printf '%s\tmroce\tplanes-down\t-\t-\t%s\t%s\t%s\t%s\t%s\n' "P$have" "$TL_RC" "$TL_EXIT" "$TL_QP1" "$TL_QP3" "$TL_QPEND" >> "$R_BH"
			say "planes-down: client rc $TL_RC, exited at $TL_EXIT s; QPs +1 s: $TL_QP1, +3 s: $TL_QP3, end: $TL_QPEND"
			fab_plane_up 1
		fi
	fi
	devs_del
fi
fab_down > /dev/null 2>&1
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
say "done"
t_done
