# shellcheck shell=bash
# Guest side of scripts/bench-guest.sh: mroce and rdma_rxe side by side in
# one guest boot, perftest's bandwidth and latency tests interleaved A/B,
# and the UDP ceiling of the same veth pair.
#
#   scripts/vm/run-guest.sh -P -t 3000 bench/guest/bench.sh [-- ARGS]
#     reps=3            repetitions (the A/B order alternates per repetition)
#     cases=all         or a list of case names (see CASES below), e.g.
#                       cases="write_bw_4k read_lat"
#     loss=1%           the impaired cases: netem loss on the data direction
#     mtu=1500          veth MTU (RoCE active MTU 1024 at 1500)
#     drivers=rxe,mroce
#     scale=1           multiplies the message counts
#     ceiling=1         0: no UDP ceiling runs
#
# The _lo cases run both QPs on one device (client and server on rxe0 /
# mroce0, its own address): loopback, as single-host tests and pyverbs run.
# Client (data sender) rxe0 / mroce0 on vethA, server rxe1 / mroce1 on
# vethB, both drivers on the same veth pair in init_net. netem sits on
# vethA's egress, the data direction (READ: the responder's, vethB);
# ACKs come back unimpaired. The RDMA-CM case (-R) cannot share one
# address between two devices (the CM picks the device by address): there
# each driver has its own veth pair across two namespaces, same MTU.
# Output in $RIG_OUT/bench/: raw.tsv (one line per run), summary.tsv
# (medians), table.md.
. /mnt/host/lib.sh
. /mnt/host/topo.sh

REPS=3 CASESEL=all LOSS=1% MTU=1500 DRIVERS=rxe,mroce SCALE=1 CEIL=1
for a in "$@"; do
	case $a in
	reps=*) REPS=${a#*=};; cases=*) CASESEL=${a#*=};; loss=*) LOSS=${a#*=};;
	mtu=*) MTU=${a#*=};; drivers=*) DRIVERS=${a#*=};; scale=*) SCALE=${a#*=};;
	ceiling=*) CEIL=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

# name | program and options (-n at the lab's ~2-5 s per rxe run under
# TCG) | metric: bw (MB/s, higher is better) or lat (t_typical us, lower
# is better) | netem: none or loss | goal mroce/rxe
CASES="
write_bw_4k|ib_write_bw -s 4096 -n 15000|bw|none|>=1
write_bw_64k|ib_write_bw -s 65536 -n 1000|bw|none|>=1
read_bw_4k|ib_read_bw -s 4096 -n 10000|bw|none|>=1
read_bw_64k|ib_read_bw -s 65536 -n 1000|bw|none|>=1
send_bw_4k|ib_send_bw -s 4096 -n 10000|bw|none|>=1
send_bw_64k|ib_send_bw -s 65536 -n 1000|bw|none|>=1
atomic_bw|ib_atomic_bw -n 3000|bw|none|>=1
write_bw_64k_cm|ib_write_bw -R -s 65536 -n 1000|bw|none|>=1
write_lat_2|ib_write_lat -s 2 -n 2000|lat|none|<=1
read_lat_2|ib_read_lat -s 2 -n 2000|lat|none|<=1
send_lat_2|ib_send_lat -s 2 -n 2000|lat|none|<=1
atomic_lat|ib_atomic_lat -n 2000|lat|none|<=1
write_lat_64k|ib_write_lat -s 65536 -n 200|lat|none|<=1
write_bw_64k_loss|ib_write_bw -s 65536 -n 300|bw|loss|>=10
write_bw_4k_loss|ib_write_bw -s 4096 -n 5000|bw|loss|>=2
write_bw_64k_lo|ib_write_bw -s 65536 -n 1000|bw|none|>=1
write_lat_2_lo|ib_write_lat -s 2 -n 2000|lat|none|<=1
"
O=${RIG_OUT:-/tmp}/bench
mkdir -p "$O"
PAIR_LOG=$O/logs; mkdir -p "$PAIR_LOG"
R=$O/raw.tsv
printf 'rep\tslot\tdriver\tcase\tnetem\tfigure\tunit\twall_s\trc\tnetem_dropped\tcounters\tnote\n' > "$R"
echo "# reps=$REPS cases=$CASESEL loss=$LOSS mtu=$MTU drivers=$DRIVERS scale=$SCALE ceiling=$CEIL"
echo "# kernel $(uname -r), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

sel() {	# sel NAME: is the case selected
	[ "$CASESEL" = all ] && return 0
	[[ " $CASESEL " == *" $1 "* ]]
}

t_ok "install module and provider" mroce_install
t_ok "modules" bash -c 'modprobe -a ib_uverbs rdma_ucm veth sch_netem rdma_rxe mroce'
topo_init "$MTU" > "$O/topo.log" 2>&1
t_ok "veth pair in init_net, MTU $MTU, policy routing" ping -c 1 -W 3 -I 198.18.0.1 198.18.0.2
declare -A CLI SRV CG SG
for d in ${DRIVERS//,/ }; do
	t_ok "${d}0 / ${d}1 on vethA / vethB" bash -c "rdma link add ${d}0 type $d netdev vethA && rdma link add ${d}1 type $d netdev vethB"
	CLI[$d]=${d}0 SRV[$d]=${d}1
done
# The CM case: a veth pair of its own per driver, so that an address names
# one device. mroce's is across two namespaces (198.18.1.0/24); rxe's
# stays in init_net (6.1's rxe receives in init_net only), 198.18.2.0/24,
# with the same policy routing as vethA/vethB so that the traffic crosses
# the pair.
declare -A CMNET=([rxe]=2 [mroce]=1) CMNS=([rxe]="" [mroce]=nsmroce)
cm_pair() {	# cm_pair DRIVER
	local d=$1 n=${CMNET[$1]} i
	if [ "$d" = rxe ]; then
		ip link add crxeA mtu "$MTU" type veth peer name crxeB mtu "$MTU" || return 1
		ip addr add 198.18.2.1/24 dev crxeA; ip addr add 198.18.2.2/24 dev crxeB
		ip link set crxeA up; ip link set crxeB up
		for i in crxeA crxeB; do
			echo 0 > /proc/sys/net/ipv4/conf/$i/rp_filter
			echo 1 > /proc/sys/net/ipv4/conf/$i/accept_local
		done
		ip rule add pref 12 iif lo to 198.18.2.2 lookup 102
		ip rule add pref 13 iif lo to 198.18.2.1 lookup 103
		ip route add 198.18.2.2 dev crxeA src 198.18.2.1 table 102
		ip route add 198.18.2.1 dev crxeB src 198.18.2.2 table 103
		rdma link add rxecA type rxe netdev crxeA && rdma link add rxecB type rxe netdev crxeB
		return
	fi
	ip netns add "ns${d}A"; ip netns add "ns${d}B"
	ip link add "c${d}A" mtu "$MTU" netns "ns${d}A" type veth peer name "c${d}B" mtu "$MTU" netns "ns${d}B"
	ip -n "ns${d}A" addr add "198.18.$n.1/24" dev "c${d}A"; ip -n "ns${d}B" addr add "198.18.$n.2/24" dev "c${d}B"
	ip -n "ns${d}A" link set "c${d}A" up; ip -n "ns${d}B" link set "c${d}B" up
	ip -n "ns${d}A" link set lo up; ip -n "ns${d}B" link set lo up
	ip netns exec "ns${d}A" rdma link add "${d}cA" type "$d" netdev "c${d}A" &&
		ip netns exec "ns${d}B" rdma link add "${d}cB" type "$d" netdev "c${d}B"
}
for d in ${DRIVERS//,/ }; do
	sel write_bw_64k_cm || break
	t_ok "$d: CM devices ${d}cA / ${d}cB on their own veth pair" cm_pair "$d"
done
for d in ${DRIVERS//,/ }; do
	t_wait 10 gid_index "${CLI[$d]}" 198.18.0.1 > /dev/null
	t_wait 10 gid_index "${SRV[$d]}" 198.18.0.2 > /dev/null
	CG[$d]=$(gid_index "${CLI[$d]}" 198.18.0.1) SG[$d]=$(gid_index "${SRV[$d]}" 198.18.0.2)
	t_ok "$d: RoCE v2 GIDs (client ${CG[$d]}, server ${SG[$d]})" test -n "${CG[$d]}" -a -n "${SG[$d]}"
	ibv_devinfo -d "${CLI[$d]}" | grep -E 'active_mtu' | sed "s/^/# $d: /"
done

# perftest derives its figures from the TSC and a CPU MHz figure it
# calibrates at start; under TCG the calibration sometimes fails
# ("Correlation coefficient r^2 < 0.9") and the run prints 0.00 MB/s or
# inf: such a run is repeated (at most twice more), counted in "note".
run() {	# run DRIVER CASE REP SLOT
	local d=$1 c=$2 rep=$3 slot=$4 line prog metric ne args=() name try rc note="" drops="" ctr el t0 fig unit
	local sdev cdev sx=() cx=() sip cif ready=tcp:18515
	line=$(grep "^$c|" <<<"$CASES")
	IFS='|' read -r _ prog metric ne _ <<<"$line"
	read -r -a args <<<"$prog"
	for ((i = 2; i < ${#args[@]}; i++)); do
		[ "${args[i-1]}" = -n ] && args[i]=$((args[i] * SCALE))
	done
	sdev=${SRV[$d]} cdev=${CLI[$d]} sip=198.18.0.2 cif=vethA
	local sg=(-x "${SG[$d]}") cg=(-x "${CG[$d]}")
	# loopback: both QPs on the client's device (one device talking to itself)
	if [[ $c == *_lo ]]; then
		sdev=$cdev sip=198.18.0.1 sg=(-x "${CG[$d]}")
	fi
	if [ "$c" = write_bw_64k_cm ]; then
		sdev=${d}cB cdev=${d}cA sip=198.18.${CMNET[$d]}.2 cif=c${d}A
		if [ -n "${CMNS[$d]}" ]; then
			sx=(/usr/sbin/ip netns exec "${CMNS[$d]}B") cx=(/usr/sbin/ip netns exec "${CMNS[$d]}A")
		fi
		sg=() cg=() ready=cm
	fi
	# READ data flows from the server (the responder) to the client
	[ "${args[0]}" = ib_read_bw ] && cif=vethB
	SX=("${sx[@]}") CX=("${cx[@]}")
	for try in 1 2 3; do
		name=$d-$c-$rep-$try
		[ "$ne" = loss ] && tc qdisc replace dev "$cif" root netem loss "$LOSS"
		t0=$(cut -d' ' -f1 /proc/uptime)
		C_DEV=$cdev S_DEV=$sdev
		pair "$name" $((120 * SCALE)) ready=$ready "${args[@]}" -d "$sdev" "${sg[@]}" -F -- \
			"${args[@]}" -d "$cdev" "${cg[@]}" -F "$sip" > "$PAIR_LOG/$name.fail" 2>&1
		rc=$?
		el=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.1f", b-a}')
		if [ "$ne" = loss ]; then
			drops=$(tc -s qdisc show dev "$cif" | sed -n 's/.*(dropped \([0-9]*\).*/\1/p' | head -1)
			tc qdisc del dev "$cif" root
		fi
		ctr=$(delta "$cdev" "$sdev")
		if [ "$metric" = lat ]; then
			fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ {print $5; exit}' "$PAIR_LOG/$name.cli") unit=us
		else
			fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' "$PAIR_LOG/$name.cli") unit=MBps
		fi
		if [ $rc -eq 0 ] && grep -q 'Correlation coefficient' "$PAIR_LOG/$name.cli"; then
			note="${note}calibration failed in try $try; "
			fig=""
			continue
		fi
		break
	done
	case $fig in ""|0.00|inf|-nan) fig="";; esac
	if [ $rc -eq 0 ] && [ -n "$fig" ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$slot" "$d" "$c" "$ne" "$fig" "$unit" \
			"$el" 0 "${drops:--}" "${ctr:--}" "${note:--}" >> "$R"
		echo "# rep $rep $d $c: $fig $unit ${el}s drops=${drops:--}"
	else
		printf '%s\t%s\t%s\t%s\t%s\tFAIL\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$slot" "$d" "$c" "$ne" "$unit" \
			"$el" "$rc" "${drops:--}" "${ctr:--}" "${note:--}" >> "$R"
		echo "# rep $rep $d $c: FAILED after ${el}s (rc $rc)"
		sed 's/^/#   /' "$PAIR_LOG/$name.fail" | head -20
	fi
	SX=() CX=()
}

# the ceiling: plain UDP datagrams of mroce's full data packet (active MTU
# 1024 + the 52-byte DATA header + 20-byte WRITE extension) over the same veth
# pair, vethA to vethB, sendmmsg/recvmmsg, 3 s
CEIL_SZ=1096
ceiling() {	# ceiling REP
	local out
	"$MROCE_SHARE/mroce-udp-ceiling" recv 198.18.0.2 4800 3 > "$O/ceiling-$1.txt" 2>&1 &
	sleep 0.3
	"$MROCE_SHARE/mroce-udp-ceiling" send 198.18.0.1 198.18.0.2 4800 "$CEIL_SZ" 3
	wait
	out=$(sed -n 's/.*MBps \([0-9.]*\).*/\1/p' "$O/ceiling-$1.txt")
	printf '%s\t0\tudp\tudp_ceiling\tnone\t%s\tMBps\t3\t0\t-\t-\tdatagram %s B\n' "$1" "${out:-FAIL}" "$CEIL_SZ" >> "$R"
	echo "# rep $1 UDP ceiling ($CEIL_SZ B datagrams): ${out:-FAIL} MB/s"
}

read -r -a DL <<<"${DRIVERS//,/ }"
CL=$(awk -F'|' 'NF > 1 {print $1}' <<<"$CASES")
for ((rep = 1; rep <= REPS; rep++)); do
	[ "$CEIL" = 1 ] && ceiling "$rep"
	for c in $CL; do
		sel "$c" || continue
		# A/B, B/A, A/B, ...
		if [ $((rep % 2)) = 1 ]; then order=("${DL[@]}"); else order=(); for ((i = ${#DL[@]} - 1; i >= 0; i--)); do order+=("${DL[i]}"); done; fi
		slot=0
		for d in "${order[@]}"; do slot=$((slot + 1)); run "$d" "$c" "$rep" "$slot"; done
	done
done

# ---- medians, ratios, table ----
med() {	# med: median, min, max, count of stdin numbers, or FAIL
	sort -g | awk '{v[NR] = $1} END {
		if (!NR) { print "FAIL"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f\t%.2f\t%.2f\t%d\n", m, v[1], v[NR], NR }'
}
S=$O/summary.tsv
printf 'case\tdriver\tmedian\tmin\tmax\truns_ok\truns\tunit\n' > "$S"
for c in udp_ceiling $CL; do
	for d in udp "${DL[@]}"; do
		runs=$(awk -F'\t' -v d="$d" -v c="$c" '$3 == d && $4 == c' "$R" | wc -l)
		[ "$runs" = 0 ] && continue
		m=$(awk -F'\t' -v d="$d" -v c="$c" '$3 == d && $4 == c && $6 != "FAIL" {print $6}' "$R" | med)
		unit=$(awk -F'\t' -v d="$d" -v c="$c" '$3 == d && $4 == c {print $7; exit}' "$R")
		[ "$m" = FAIL ] && m="FAIL	-	-	0"
		printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$d" "$m" "$runs" "$unit" >> "$S"
	done
done
{
	echo "| case | unit | rxe median [min-max] | mroce median [min-max] | mroce/rxe | goal | met |"
	echo "|---|---|---:|---:|---:|---|---|"
	for c in $CL; do
		sel "$c" || continue
		line=$(grep "^$c|" <<<"$CASES")
		IFS='|' read -r _ prog metric ne goal <<<"$line"
		awk -F'\t' -v c="$c" -v metric="$metric" -v goal="$goal" -v prog="$prog" -v ne="$ne" -v loss="$LOSS" '
		$1 == c { m[$2] = $3; lo[$2] = $4; hi[$2] = $5; ok[$2] = $6; all[$2] = $7; u = $8 }
		END {
			for (i = 1; i <= 2; i++) {
				d = i == 1 ? "rxe" : "mroce"
				cell[d] = (d in m) ? (m[d] == "FAIL" ? "FAIL (0/" all[d] ")" : m[d] " [" lo[d] "-" hi[d] "]" (ok[d] < all[d] ? " (" ok[d] "/" all[d] " ok)" : "")) : "-"
			}
			r = "-"; met = "-"
			if (m["rxe"] + 0 > 0 && ("mroce" in m) && m["mroce"] != "FAIL") {
				x = m["mroce"] / m["rxe"]; r = sprintf("%.2f", x)
				g = substr(goal, 3) + 0
				met = (substr(goal, 1, 2) == ">=") ? (x >= g ? "yes" : "no") : (x <= g ? "yes" : "no")
			}
			name = prog (ne == "loss" ? ", netem loss " loss : "") (c ~ /_lo$/ ? ", loopback (one device)" : "")
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, (metric == "lat" ? "µs" : "MB/s"), cell["rxe"], cell["mroce"], r, (metric == "lat" ? "≤ " : "≥ ") substr(goal, 3), met
		}' "$S"
	done
} > "$O/table.md"
cat "$O/table.md"
awk -F'\t' '$1 == "udp_ceiling" {u = $3 + 0} $1 == "write_bw_64k" && $2 == "mroce" {w = $3 + 0}
	END { if (u > 0 && w > 0) printf "\nUDP ceiling (%s B datagrams, same veth pair): %.2f MB/s median; mroce 64 KiB WRITE: %.2f MB/s = %.2f of it.\n", "'"$CEIL_SZ"'", u, w, w / u }' "$S" | tee "$O/ceiling.md"
for d in "${DL[@]}"; do
	t_ok "$d: every run completed" bash -c "! awk -F'\t' -v d=$d '\$3 == d && \$6 == \"FAIL\"' $R | grep -q ."
done
t_ok "kernel log clean" bash -c '! dmesg | grep -E "WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task"'
t_done
