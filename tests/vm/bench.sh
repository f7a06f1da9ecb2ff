# shellcheck shell=bash
# Guest side of scripts/bench-guest.sh: mroce and rdma_rxe side by side in
# one guest boot, ib_write_bw (iteration mode, -n) interleaved A/B.
#
#   scripts/vm/run-guest.sh -P -t 3000 tests/vm/bench.sh [-- ARGS]
#     reps=3            repetitions (the A/B order alternates per repetition)
#     sizes="4096 65536"
#     loss=1%           the impaired cases: netem loss on the data direction
#     mtu=1500          veth MTU (RoCE active MTU 1024 at 1500)
#     mroce_topo=init   init: mroce devices on the same veth pair as rxe (one
#                       qdisc, one path: the most comparable); netns: mroce on
#                       its own veth pair across two namespaces (same MTU, same
#                       netem), its real two-host setup
#     drivers=rxe,mroce
#     scale=1           multiplies the message counts
#
# Client (data sender) rxe0 / mroce0 on vethA, server rxe1 / mroce1 on
# vethB. netem sits on vethA's egress, the data direction; ACKs come back
# unimpaired (as in the lab's rxe baseline, RESULTS.md section 3).
# Output in $RIG_OUT/bench/: raw.tsv (one line per run), summary.tsv
# (medians), README.md (the table).
. /mnt/host/lib.sh
. /mnt/host/topo.sh

REPS=3 SIZES="4096 65536" LOSS=1% MTU=1500 MTOPO=init DRIVERS=rxe,mroce SCALE=1
for a in "$@"; do
	case $a in
	reps=*) REPS=${a#*=};; sizes=*) SIZES=${a#*=};; loss=*) LOSS=${a#*=};;
	mtu=*) MTU=${a#*=};; mroce_topo=*) MTOPO=${a#*=};; drivers=*) DRIVERS=${a#*=};;
	scale=*) SCALE=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
O=${RIG_OUT:-/tmp}/bench
mkdir -p "$O"
PAIR_LOG=$O/logs; mkdir -p "$PAIR_LOG"
R=$O/raw.tsv
printf 'rep\tslot\tdriver\tsize\tnetem\titers\tbw_avg_MBps\tbw_peak_MBps\twall_s\trc\tnetem_dropped\tcounters\tnote\n' > "$R"
echo "# reps=$REPS sizes=$SIZES loss=$LOSS mtu=$MTU mroce_topo=$MTOPO drivers=$DRIVERS scale=$SCALE"
echo "# kernel $(uname -r), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# message counts (the lab's: ~2-5 s per rxe run under TCG)
iters() {	# iters SIZE lossless|loss
	local n
	case $2:$1 in
	lossless:4096) n=15000;; lossless:65536) n=1000;;
	loss:4096) n=5000;; loss:65536) n=300;;
	lossless:*) n=$((64 * 1024 * 1024 / $1));; loss:*) n=$((20 * 1024 * 1024 / $1));;
	esac
	[ "$n" -ge 5 ] || n=5
	echo $((n * SCALE))
}

t_ok "install module and provider" mroce_install
t_ok "modules" bash -c 'modprobe -a ib_uverbs rdma_ucm veth sch_netem rdma_rxe mroce'
topo_init "$MTU" > "$O/topo.log" 2>&1
t_ok "veth pair in init_net, MTU $MTU, policy routing" ping -c 1 -W 3 -I 198.18.0.1 198.18.0.2
declare -A CLI SRV CG SG CXP SXP CIF
for d in ${DRIVERS//,/ }; do
	case $d in
	rxe)
		t_ok "rxe0 / rxe1 on vethA / vethB" bash -c 'rdma link add rxe0 type rxe netdev vethA && rdma link add rxe1 type rxe netdev vethB'
		CLI[rxe]=rxe0 SRV[rxe]=rxe1 CXP[rxe]="" SXP[rxe]="" CIF[rxe]=vethA;;
	mroce)
		if [ "$MTOPO" = netns ]; then
			ip netns add nsA; ip netns add nsB
			ip link add vA mtu "$MTU" netns nsA type veth peer name vB mtu "$MTU" netns nsB
			ip -n nsA addr add 198.18.1.1/24 dev vA; ip -n nsB addr add 198.18.1.2/24 dev vB
			ip -n nsA link set vA up; ip -n nsB link set vB up
			ip -n nsA link set lo up; ip -n nsB link set lo up
			t_ok "mroce0 / mroce1 on vA (nsA) / vB (nsB)" bash -c \
				'ip netns exec nsA rdma link add mroce0 type mroce netdev vA && ip netns exec nsB rdma link add mroce1 type mroce netdev vB'
			CXP[mroce]="/usr/sbin/ip netns exec nsA" SXP[mroce]="/usr/sbin/ip netns exec nsB" CIF[mroce]=vA
		else
			t_ok "mroce0 / mroce1 on vethA / vethB" bash -c \
				'rdma link add mroce0 type mroce netdev vethA && rdma link add mroce1 type mroce netdev vethB'
			CXP[mroce]="" SXP[mroce]="" CIF[mroce]=vethA
		fi
		CLI[mroce]=mroce0 SRV[mroce]=mroce1;;
	esac
done
CIP=198.18.0.1 SIP=198.18.0.2
for d in ${DRIVERS//,/ }; do
	c=$CIP s=$SIP
	[ "$d" = mroce ] && [ "$MTOPO" = netns ] && c=198.18.1.1 s=198.18.1.2
	t_wait 10 gid_index "${CLI[$d]}" "$c" > /dev/null
	t_wait 10 gid_index "${SRV[$d]}" "$s" > /dev/null
	CG[$d]=$(gid_index "${CLI[$d]}" "$c") SG[$d]=$(gid_index "${SRV[$d]}" "$s")
	t_ok "$d: RoCE v2 GIDs (client ${CG[$d]}, server ${SG[$d]})" test -n "${CG[$d]}" -a -n "${SG[$d]}"
	ibv_devinfo -d "${CLI[$d]}" | grep -E 'active_mtu' | sed "s/^/# $d: /"
done
sip() { if [ "$1" = mroce ] && [ "$MTOPO" = netns ]; then echo 198.18.1.2; else echo $SIP; fi; }

# one run: bw DRIVER SIZE NETEM REP SLOT. perftest derives MB/s from the
# TSC and a CPU MHz figure it calibrates at start; under TCG the calibration
# sometimes fails ("Correlation coefficient r^2 < 0.9") and the run then
# prints 0.00 MB/s: such a run is repeated (at most twice more) and counted
# in the "note" column.
bw() {
	local d=$1 size=$2 ne=$3 rep=$4 slot=$5 n t0 el row drops="" ctr name try rc note=""
	n=$(iters "$size" "$([ "$ne" = none ] && echo lossless || echo loss)")
	read -r -a CX <<<"${CXP[$d]}"; read -r -a SX <<<"${SXP[$d]}"
	C_DEV=${CLI[$d]} S_DEV=${SRV[$d]}
	for try in 1 2 3; do
		name=$d-$size-${ne// /}-$rep-$try
		if [ "$ne" != none ]; then
			# shellcheck disable=SC2086
			"${CX[@]}" tc qdisc replace dev "${CIF[$d]}" root netem $ne
		fi
		snap "$C_DEV" "$S_DEV"
		t0=$(cut -d' ' -f1 /proc/uptime)
		pair "$name" $((120 * SCALE)) ib_write_bw -d "$S_DEV" -x "${SG[$d]}" -F -s "$size" -n "$n" -- \
			ib_write_bw -d "$C_DEV" -x "${CG[$d]}" -F -s "$size" -n "$n" "$(sip "$d")" > "$PAIR_LOG/$name.fail" 2>&1
		rc=$?
		el=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.1f", b-a}')
		if [ "$ne" != none ]; then
			drops=$("${CX[@]}" tc -s qdisc show dev "${CIF[$d]}" | sed -n 's/.*(dropped \([0-9]*\).*/\1/p' | head -1)
			"${CX[@]}" tc qdisc del dev "${CIF[$d]}" root
		fi
		ctr=$(delta "$C_DEV" "$S_DEV")
		row=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print; exit}' "$PAIR_LOG/$name.cli")
		set -- $row
		if [ $rc -eq 0 ] && [ "${4:-}" = 0.00 ] && grep -q 'Correlation coefficient' "$PAIR_LOG/$name.cli"; then
			note="${note}calibration failed (0.00 MB/s) in try $try; "
			echo "# rep $rep $d $size netem=${ne}: perftest's clock calibration failed (0.00 MB/s), again"
			continue
		fi
		break
	done
	if [ $rc -eq 0 ] && [ -n "$row" ] && [ "${4:-}" != 0.00 ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$slot" "$d" "$size" "$ne" "$n" \
			"$4" "$3" "$el" 0 "${drops:--}" "$ctr" "${note:--}" >> "$R"
		echo "# rep $rep $d $size netem=${ne}: $4 MB/s (peak $3) n=$n ${el}s drops=${drops:--}"
	else
		printf '%s\t%s\t%s\t%s\t%s\t%s\tFAIL\tFAIL\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$slot" "$d" "$size" "$ne" "$n" \
			"$el" "$rc" "${drops:--}" "$ctr" "${note:--}" >> "$R"
		echo "# rep $rep $d $size netem=${ne}: FAILED after ${el}s (rc $rc)"
		sed 's/^/#   /' "$PAIR_LOG/$name.fail" | head -40
	fi
}

read -r -a DL <<<"${DRIVERS//,/ }"
for ((rep = 1; rep <= REPS; rep++)); do
	for ne in none "loss $LOSS"; do
		for size in $SIZES; do
			# A/B, B/A, A/B, ...
			if [ $((rep % 2)) = 1 ]; then order=("${DL[@]}"); else order=(); for ((i = ${#DL[@]} - 1; i >= 0; i--)); do order+=("${DL[i]}"); done; fi
			slot=0
			for d in "${order[@]}"; do slot=$((slot + 1)); bw "$d" "$size" "$ne" "$rep" "$slot"; done
		done
	done
done

# ---- medians, ratios, table ----
med() {	# med: median [min-max] of stdin numbers, or FAIL
	sort -g | awk '{v[NR] = $1} END {
		if (!NR) { print "FAIL"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f\t%.2f\t%.2f\t%d\n", m, v[1], v[NR], NR }'
}
S=$O/summary.tsv
printf 'size\tnetem\tdriver\tmedian_MBps\tmin\tmax\truns_ok\truns\n' > "$S"
for ne in none "loss $LOSS"; do
	for size in $SIZES; do
		for d in "${DL[@]}"; do
			m=$(awk -F'\t' -v d="$d" -v s="$size" -v n="$ne" '$3 == d && $4 == s && $5 == n && $7 != "FAIL" {print $7}' "$R" | med)
			runs=$(awk -F'\t' -v d="$d" -v s="$size" -v n="$ne" '$3 == d && $4 == s && $5 == n' "$R" | wc -l)
			if [ "$m" = FAIL ]; then m="FAIL	-	-	0"; fi
			printf '%s\t%s\t%s\t%s\t%s\n' "$size" "$ne" "$d" "$m" "$runs" >> "$S"
		done
	done
done
{
	echo "| case | rxe MB/s median [min-max] | mroce MB/s median [min-max] | mroce/rxe | goal |"
	echo "|---|---:|---:|---:|---|"
	for ne in none "loss $LOSS"; do
		for size in $SIZES; do
			awk -F'\t' -v s="$size" -v n="$ne" '
			$1 == s && $2 == n { m[$3] = $4; lo[$3] = $5; hi[$3] = $6; ok[$3] = $7; all[$3] = $8 }
			END {
				c = (s >= 1024 ? s / 1024 " KiB" : s " B") ", " (n == "none" ? "lossless" : "netem " n)
				for (i = 1; i <= 2; i++) {
					d = i == 1 ? "rxe" : "mroce"
					cell[d] = (d in m) ? (m[d] == "FAIL" ? "FAIL (0/" all[d] ")" : m[d] " [" lo[d] "-" hi[d] "]" (ok[d] < all[d] ? " (" ok[d] "/" all[d] " ok)" : "")) : "-"
				}
				r = (m["rxe"] > 0 && m["mroce"] != "FAIL" && ("mroce" in m)) ? sprintf("%.2f", m["mroce"] / m["rxe"]) : "-"
				g = (n == "none") ? "≥ 1" : "≥ 10"
				printf "| %s | %s | %s | %s | %s |\n", c, cell["rxe"], cell["mroce"], r, g
			}' "$S"
		done
	done
} > "$O/table.md"
cat "$O/table.md"
for d in "${DL[@]}"; do
	t_ok "$d: every run completed" bash -c "! awk -F'\t' -v d=$d '\$3 == d && \$7 == \"FAIL\"' $R | grep -q ."
done
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
t_done
