# shellcheck shell=bash
# Guest side of scripts/bench-profile.sh: where the time of one small
# operation goes, for mroce and rdma_rxe in one boot. For each driver and
# case, one run without a profiler (the figure) and one under
# `perf record -a -e cpu-clock` (the profile: the share of samples per
# kernel symbol, all CPUs, idle excluded).
#
#   scripts/vm/run-guest.sh -P -f PERFKIT bench/guest/profile.sh [-- ARGS]
#     cases="write_lat read_lat send_lat atomic_lat write_bw4k"
#     drivers=rxe,mroce   n=2000 (latency iterations)   freq=4000 (Hz)
#     graph=0|1           also a call-graph report (perf -g)
#     pmul=5              the profiled runs do pmul times the iterations
#     prof=1              0: figures only, no profiled runs
#     reps=1              unprofiled runs per driver and case, interleaved
# PERFKIT: a folder named perfkit with perf and its libraries (the host's
# linux-perf, which matches the guest kernel's major version).
# Output in $RIG_OUT/profile/: DRIVER-CASE.{cli,srv} (perftest's output),
# DRIVER-CASE.prof.perf.txt (the top 60 kernel and user symbols, idle
# excluded), DRIVER-CASE.prof.syms.txt (every sample by command, object
# and symbol: scripts/profile-budget.py sorts them into the budget),
# summary.tsv (the figures).
. /mnt/host/lib.sh
. /mnt/host/topo.sh

CASES="write_lat read_lat send_lat atomic_lat write_bw4k" DRIVERS=rxe,mroce N=2000 FREQ=4000 GRAPH=0 PMUL=5 PROF=1 REPS=1
for a in "$@"; do
	case $a in
	cases=*) CASES=${a#*=};; drivers=*) DRIVERS=${a#*=};; n=*) N=${a#*=};;
	freq=*) FREQ=${a#*=};; graph=*) GRAPH=${a#*=};; pmul=*) PMUL=${a#*=};;
	prof=*) PROF=${a#*=};; reps=*) REPS=${a#*=};;
	"") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
O=${RIG_OUT:-/tmp}/profile
mkdir -p "$O"
PAIR_LOG=$O; SX=() CX=()
PK=/mnt/host/perfkit
perf() { LD_LIBRARY_PATH=$PK/lib "$PK/perf" "$@"; }
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid

t_ok "install module and provider" mroce_install
t_ok "modules" bash -c 'modprobe -a ib_uverbs rdma_ucm veth rdma_rxe mroce'
topo_init 1500 > "$O/topo.log" 2>&1
t_ok "perf runs" perf --version
t_ok "rxe0 / rxe1" bash -c 'rdma link add rxe0 type rxe netdev vethA && rdma link add rxe1 type rxe netdev vethB'
t_ok "mroce0 / mroce1" bash -c 'rdma link add mroce0 type mroce netdev vethA && rdma link add mroce1 type mroce netdev vethB'
declare -A CLI=([rxe]=rxe0 [mroce]=mroce0) SRV=([rxe]=rxe1 [mroce]=mroce1) CG SG
for d in ${DRIVERS//,/ }; do
	t_wait 10 gid_index "${CLI[$d]}" 198.18.0.1 > /dev/null
	t_wait 10 gid_index "${SRV[$d]}" 198.18.0.2 > /dev/null
	CG[$d]=$(gid_index "${CLI[$d]}" 198.18.0.1) SG[$d]=$(gid_index "${SRV[$d]}" 198.18.0.2)
done
echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

args() {	# args CASE: "PROGRAM OPTIONS"
	case $1 in
	write_lat) echo "ib_write_lat -s 2 -n $((N * M))";;
	read_lat) echo "ib_read_lat -s 2 -n $((N * M))";;
	send_lat) echo "ib_send_lat -s 2 -n $((N * M))";;
	atomic_lat) echo "ib_atomic_lat -n $((N * M))";;
	write_bw4k) echo "ib_write_bw -s 4096 -n 10000";;
	*) return 1;;
	esac
}
S=$O/summary.tsv
printf 'driver\tcase\tprofiled\tfigure\n' > "$S"
one() {	# one DRIVER CASE 0|1
	local d=$1 c=$2 p=$3 a pp name fig try
	M=1; [ "$p" = 1 ] && M=$PMUL
	read -r -a a <<<"$(args "$c")"
	name=$d-$c$([ "$p" = 1 ] && echo .prof)
	C_DEV=${CLI[$d]} S_DEV=${SRV[$d]}
	if [ "$p" = 1 ]; then
		LD_LIBRARY_PATH="$PK/lib" "$PK/perf" record -q -a -e cpu-clock -F "$FREQ" $([ "$GRAPH" = 1 ] && echo -g) -o "/tmp/$name.data" > "$O/$name.perf.log" 2>&1 &
		pp=$!
		sleep 1
	fi
	# perftest calibrates its clock at start; under TCG that sometimes
	# fails (r^2 < 0.9, figures "inf" or 0.00): run again, twice at most
	for try in 1 2 3; do
		pair "$name" 120 "${a[@]}" -d "$S_DEV" -x "${SG[$d]}" -F -- "${a[@]}" -d "$C_DEV" -x "${CG[$d]}" -F 198.18.0.2 > "$O/$name.fail" 2>&1
		grep -q 'Correlation coefficient' "$O/$name.cli" || break
		echo "# $name: perftest's clock calibration failed, again"
	done
	if [ "$p" = 1 ]; then
		kill -TERM "$pp"; wait "$pp"
		timeout 300 env LD_LIBRARY_PATH="$PK/lib" "$PK/perf" report -i "/tmp/$name.data" --no-children --sort sym --stdio 2>>"$O/$name.perf.log" |
			grep -v -E 'default_idle|native_safe_halt|cpuidle|do_idle|pv_native_safe_halt|acpi_idle' |
			grep -E '^ +[0-9]' | head -60 > "$O/$name.perf.txt"
		timeout 300 env LD_LIBRARY_PATH="$PK/lib" "$PK/perf" report -i "/tmp/$name.data" --no-children --sort comm,dso,sym --stdio 2>>"$O/$name.perf.log" |
			grep -E "^ +[0-9]" > "$O/$name.syms.txt"
		if [ "$GRAPH" = 1 ]; then
			timeout 300 env LD_LIBRARY_PATH="$PK/lib" "$PK/perf" report -i "/tmp/$name.data" --no-children --sort sym --stdio -g callee,0.5 --percent-limit 1 2>/dev/null | head -400 > "$O/$name.graph.txt"
		fi
		rm -f "/tmp/$name.data"
	fi
	# latency: t_typical (the 5th column); bandwidth: BW average (4th)
	case $c in
	*_lat) fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ {print $5; exit}' "$O/$name.cli");;
	*) fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' "$O/$name.cli");;
	esac
	printf '%s\t%s\t%s\t%s\n' "$d" "$c" "$p" "${fig:-FAIL}" >> "$S"
	echo "# $d $c profiled=$p: ${fig:-FAIL}"
}
for c in $CASES; do
	for ((r = 1; r <= REPS; r++)); do
		for d in ${DRIVERS//,/ }; do one "$d" "$c" 0; done
	done
	[ "$PROF" = 1 ] || continue
	for d in ${DRIVERS//,/ }; do one "$d" "$c" 1; done
done
for f in "$O"/*.perf.txt; do echo "## ${f##*/}"; head -25 "$f"; done
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
t_done
