# shellcheck shell=bash
# Guest benchmark (not a test): qperf's RC tests on rdma_rxe and on mroce
# in one boot, interleaved (rxe, mroce, rxe, ...), reps each, medians. rxe
# runs on vethA/vethB in init_net (198.18.0.x), mroce on vA/vB in nsA/nsB
# (198.18.1.x): both drivers on the same addresses would let rdma_cm pick
# the same device for both (qperf -cm1 has no device option).
#
#   scripts/vm/run-guest.sh -P -t 900 -n qperf bench/guest/qperf-bench.sh [-- reps=3 secs=3 tests="..."]
#
# Prints "# DRIVER TEST: FIGURE UNIT" per run and a table of medians with
# mroce/rxe ratios (bandwidth and message rate: higher is better; latency:
# lower is better); rc is non-zero only when a run printed no figure.
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/qperf
mkdir -p "$PAIR_LOG"
. /mnt/host/topo.sh
REPS=3 SECS=3
TESTS="rc_bw rc_rdma_write_bw rc_rdma_read_bw rc_lat rc_rdma_write_lat rc_rdma_read_lat rc_compare_swap_mr rc_fetch_add_mr"
for a; do
	case $a in reps=*) REPS=${a#*=};; secs=*) SECS=${a#*=};; tests=*) TESTS=${a#*=};; esac
done

t_ok "install mroce" mroce_install
t_ok "modules" modprobe -a ib_uverbs rdma_ucm veth rdma_rxe mroce
topo_init 1500 > /dev/null 2>&1
t_ok "rxe0 / rxe1 on vethA / vethB" bash -c 'rdma link add rxe0 type rxe netdev vethA && rdma link add rxe1 type rxe netdev vethB'
ip netns add nsA; ip netns add nsB
ip link add vA netns nsA type veth peer name vB netns nsB
ip -n nsA addr add 198.18.1.1/24 dev vA; ip -n nsB addr add 198.18.1.2/24 dev vB
ip -n nsA link set vA up; ip -n nsB link set vB up
ip -n nsA link set lo up; ip -n nsB link set lo up
t_ok "m0 / m1 on vA (nsA) / vB (nsB)" bash -c \
	'ip netns exec nsA rdma link add m0 type mroce netdev vA && ip netns exec nsB rdma link add m1 type mroce netdev vB'
t_ok "GIDs" t_wait 10 bash -c '. /mnt/host/topo.sh; gid_index rxe0 198.18.0.1 && gid_index m0 198.18.1.1'
NA=(/usr/sbin/ip netns exec nsA) NB=(/usr/sbin/ip netns exec nsB)
R=$PAIR_LOG/runs.tsv
printf 'test\tdriver\trep\tvalue\tunit\n' > "$R"
runs=0 none=0
for ((rep = 1; rep <= REPS; rep++)); do
	for t in $TESTS; do
		for d in rxe mroce; do
			srv=() cli=() ip=198.18.0.2
			[ $d = mroce ] && srv=("${NB[@]}") cli=("${NA[@]}") ip=198.18.1.2
			"${srv[@]}" qperf > "$PAIR_LOG/server.log" 2>&1 &
			sp=$!
			sleep 0.5
			out=$(timeout $((SECS + 30)) "${cli[@]}" qperf -cm1 -t "$SECS" "$ip" "$t" 2>&1 | tr '\n' ' ' | tr -s ' ')
			kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
			runs=$((runs + 1))
			# "rc_bw: bw = 87.1 MB/sec", "latency = 123 us", "msg_rate = 13.7 K/sec"
			read -r v u <<<"$(echo "$out" | sed -n 's/.*\(bw\|latency\|msg_rate\) = \([0-9.]*\) \([A-Za-z/]*\).*/\2 \3/p')"
			if [ -z "$v" ]; then
				echo "# rep $rep $d $t: no figure ($out)"
				none=$((none + 1))
				continue
			fi
			echo "# rep $rep $d $t: $v $u"
			printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$d" "$rep" "$v" "$u" >> "$R"
		done
	done
done
echo "# medians of $REPS (mroce/rxe: bandwidth and rate higher is better, latency lower)"
awk -F'\t' 'NR > 1 { k = $1 SUBSEP $2; v[k, ++n[k]] = $4; u[$1] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
	function med(k,   i, j, t, a, c) {
		c = n[k]; for (i = 1; i <= c; i++) a[i] = v[k, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return c ? (c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2) : 0 }
	END { printf "%-20s %10s %10s %-8s %s\n", "test", "rxe", "mroce", "unit", "mroce/rxe"
		for (i = 1; i <= m; i++) { t = order[i]; a = med(t SUBSEP "rxe"); b = med(t SUBSEP "mroce")
			printf "%-20s %10s %10s %-8s %s\n", t, a, b, u[t], (a > 0 ? sprintf("%.2f", b / a) : "-") } }' "$R"
t_ok "every run printed a figure ($runs runs, $none without)" test "$none" = 0
t_done
