#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Native figures of libmroce-ep beside plain UDP (issue 33, item 5).
#
#   scripts/bench-ep.sh [-r REPS] [-t SECONDS] [-w WINDOW] [-n COUNT]
#                       [-c "CFG ..."] [OUTDIR]
#
# Two network namespaces joined by a veth pair (MTU 9000, 198.18.20.1 and
# .2), the endpoint in node mode in each (build/bench/ep/mroce-ep-bench,
# bench/ep/ep-bench.c); in the same run, between the same addresses, plain
# UDP (build/bench/ep/mroce-udp-ceiling, sendmmsg/recvmmsg; mroce-ep-bench
# udp-echo/udp-ping). The endpoint runs with each engine configuration CFG
# given (MEP_CFG, ep/README: software, the default, or default, the
# engine's own; -c "default software" compares them). Each case, every
# CFG and UDP interleaved (the order reversed every repetition), REPS
# times (default 3):
#
#   bw4k    WRITE 4 KiB, WINDOW outstanding (default 32), SECONDS (default
#           2): MB/s and ops/s; UDP: 4096-byte datagrams for SECONDS
#   bw64k   WRITE 64 KiB likewise (4 KiB per packet, the ep's MTU); UDP:
#           4096-byte datagrams, the same bytes in MTU-sized datagrams
#   rate2   WRITE 2 B likewise: ops/s; UDP: 2-byte datagrams per second
#   lat2    COUNT (default 2000) 2 B READs one at a time, each round trip
#           timed (median, p99); UDP: a 2-byte echo, COUNT round trips
#
# The server side runs on CPU 0, the client side on CPU 1 (taskset), for
# both. Prints a table (medians, min-max, ep as a fraction of UDP) and
# writes OUTDIR/raw.tsv (every sample; side ep-CFG or udp) and
# OUTDIR/table.md (default OUTDIR: build/bench-ep). Needs root (ip netns).
# About 1 min for 3 reps of one CFG.
set -eu
cd "$(dirname "$0")/.."

usage() {
	sed -n '4,33s/^# \{0,1\}//p' "$0"
}

reps=3 secs=2 win=32 count=2000 cfgs=software
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	-r) reps=$2; shift 2 ;;
	-t) secs=$2; shift 2 ;;
	-w) win=$2; shift 2 ;;
	-n) count=$2; shift 2 ;;
	-c) cfgs=$2; shift 2 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
out=${1:-build/bench-ep}
[ "$(id -u)" = 0 ] || { echo "bench-ep.sh: needs root (ip netns)" >&2; exit 2; }
command -v ip >/dev/null || { echo "bench-ep.sh: needs ip (iproute2)" >&2; exit 2; }

make -s -C bench/ep O="$PWD/build" >/dev/null
bin=$PWD/build/bench/ep
mkdir -p "$out"
raw=$out/raw.tsv
log=$out/log.txt
: >"$log"

# unique names: ep/check.sh's are mep-srv-PID / mep-cli-PID
ns_s=mepb-srv-$$
ns_c=mepb-cli-$$
a_s=198.18.20.1
a_c=198.18.20.2
cleanup() {
	ip netns del $ns_s 2>/dev/null || true
	ip netns del $ns_c 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add $ns_s
ip netns add $ns_c
ip link add mepb$$a netns $ns_s mtu 9000 type veth peer name mepb$$b \
	netns $ns_c mtu 9000
ip -n $ns_s addr add $a_s/24 dev mepb$$a
ip -n $ns_c addr add $a_c/24 dev mepb$$b
for ns in $ns_s $ns_c; do
	ip -n "$ns" link set lo up
done
ip -n $ns_s link set mepb$$a up
ip -n $ns_c link set mepb$$b up

cpus=$(nproc)
srv() { if [ "$cpus" -ge 2 ]; then ip netns exec $ns_s taskset -c 0 "$@"; else ip netns exec $ns_s "$@"; fi; }
cli() { if [ "$cpus" -ge 2 ]; then ip netns exec $ns_c taskset -c 1 "$@"; else ip netns exec $ns_c "$@"; fi; }

# "key value key value ..." of a result line -> the value of $2
field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

sample() { # rep case side metric value
	printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$raw"
}

tport=4811
ep_run() { # rep case cfg: one run of the endpoint
	rep=$1 c=$2 side=ep-$3
	case $c in
	bw4k) args="bw 4096 $win $secs" ;;
	bw64k) args="bw 65536 $win $secs" ;;
	rate2) args="bw 2 $win $secs" ;;
	lat2) args="lat 2 $count" ;;
	esac
	srv env MEP_CFG="$3" timeout 120 "$bin/mroce-ep-bench" server $a_s $tport >>"$log" 2>&1 &
	spid=$!
	# shellcheck disable=SC2086 # args is a word list
	res=$(cli env MEP_CFG="$3" timeout 120 "$bin/mroce-ep-bench" client $a_s $a_c $tport $args 2>>"$log") || res=
	wait $spid || res=
	echo "$side $rep $c: ${res:-FAILED}" >>"$log"
	[ -n "$res" ] || { echo "# rep $rep $c $side: FAILED (see $log)" >&2; return 0; }
	case $c in
	lat2)
		sample "$rep" "$c" "$side" rtt_median_us "$(field "$res" median_us)"
		sample "$rep" "$c" "$side" rtt_p99_us "$(field "$res" p99_us)" ;;
	rate2)
		sample "$rep" "$c" "$side" ops_per_s "$(field "$res" ops_per_s)" ;;
	*)
		sample "$rep" "$c" "$side" MBps "$(field "$res" MBps)"
		sample "$rep" "$c" "$side" ops_per_s "$(field "$res" ops_per_s)" ;;
	esac
	sample "$rep" "$c" "$side" retx "$(field "$res" retx)"
}

udp_run() { # rep case: the same case over plain UDP
	rep=$1 c=$2
	if [ "$c" = lat2 ]; then
		srv timeout 120 "$bin/mroce-ep-bench" udp-echo $a_s 4801 10 >>"$log" 2>&1 &
		spid=$!
		res=$(cli timeout 120 "$bin/mroce-ep-bench" udp-ping $a_c $a_s 4801 2 "$count" 2>>"$log") || res=
		wait $spid || true
		echo "udp $rep $c: ${res:-FAILED}" >>"$log"
		[ -n "$res" ] || { echo "# rep $rep $c udp: FAILED" >&2; return 0; }
		sample "$rep" "$c" udp rtt_median_us "$(field "$res" median_us)"
		sample "$rep" "$c" udp rtt_p99_us "$(field "$res" p99_us)"
		return 0
	fi
	sz=4096
	[ "$c" = rate2 ] && sz=2
	f=$(mktemp)
	srv timeout 120 "$bin/mroce-udp-ceiling" recv $a_s 4800 "$secs" >"$f" 2>&1 &
	spid=$!
	sleep 0.3
	cli timeout 120 "$bin/mroce-udp-ceiling" send $a_c $a_s 4800 $sz "$secs" 2>>"$log" || true
	wait $spid || true
	res=$(cat "$f")
	rm -f "$f"
	echo "udp $rep $c ($sz B datagrams): $res" >>"$log"
	s=$(field "$res" seconds)
	case $s in ''|0) echo "# rep $rep $c udp: FAILED" >&2; return 0 ;; esac
	ops=$(awk -v n="$(field "$res" datagrams)" -v s="$s" 'BEGIN { printf "%.0f", n / s }')
	[ "$c" = rate2 ] || sample "$rep" "$c" udp MBps "$(field "$res" MBps)"
	sample "$rep" "$c" udp ops_per_s "$ops"
}

printf 'rep\tcase\tside\tmetric\tvalue\n' >"$raw"
echo "# $(uname -r), $(nproc) CPUs, load:$(uptime | sed 's/.*load average://')"
echo "# reps $reps, ${secs} s per throughput run, window $win, $count round trips, MEP_CFG: $cfgs"
rcfgs=$(echo "$cfgs" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
rep=1
while [ $rep -le "$reps" ]; do
	for c in bw4k bw64k rate2 lat2; do
		if [ $((rep % 2)) = 1 ]; then
			for g in $cfgs; do ep_run "$rep" "$c" "$g"; done
			udp_run "$rep" "$c"
		else
			udp_run "$rep" "$c"
			for g in $rcfgs; do ep_run "$rep" "$c" "$g"; done
		fi
	done
	echo "# rep $rep of $reps done, load:$(uptime | sed 's/.*load average://')"
	rep=$((rep + 1))
done

# medians (min-max) per case, side and metric, then each ep side as a
# fraction of UDP (for round trips: UDP's time / the ep's, so that 1 is as
# fast as UDP); one column per CFG, in the order given
awk -F'\t' -v cfgs="$cfgs" '
NR > 1 { k = $2 SUBSEP $3 SUBSEP $4; v[k, ++n[k]] = $5 }
function med(k,   i, j, t, m) {
	m = n[k]
	for (i = 1; i <= m; i++) a[i] = v[k, i] + 0
	for (i = 2; i <= m; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	lo = a[1]; hi = a[m]
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function cell(k,   m) {
	if (!n[k]) return "-"
	m = med(k)
	return sprintf("%s (%s-%s)", fmt(m), fmt(lo), fmt(hi))
}
function fmt(x) { return x >= 1000 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
function row(c, m, what, inv,   i, ke, ku, e, u, f, line, fr) {
	ku = c SUBSEP "udp" SUBSEP m
	line = "| " what
	fr = ""
	for (i = 1; i <= ng; i++) {
		ke = c SUBSEP "ep-" g[i] SUBSEP m
		line = line " | " cell(ke)
		f = "-"
		if (n[ke] && n[ku]) {
			e = med(ke); u = med(ku)
			if (e > 0 && u > 0) f = sprintf("%.2f", inv ? u / e : e / u)
		}
		fr = fr " | " f
	}
	print line " | " cell(ku) fr " |"
}
END {
	ng = split(cfgs, g, " ")
	h = "| figure"; h2 = "|---"; hf = ""
	for (i = 1; i <= ng; i++) {
		h = h " | ep " g[i] ": median (min-max)"; h2 = h2 "|---"
		hf = hf " | ep " g[i] " / UDP"
	}
	print h " | UDP: median (min-max)" hf " |"
	for (i = 1; i <= ng; i++) h2 = h2 "|---"
	print h2 "|---|"
	row("bw4k", "MBps", "WRITE 4 KiB goodput, MB/s", 0)
	row("bw4k", "ops_per_s", "WRITE 4 KiB message rate, ops/s", 0)
	row("bw64k", "MBps", "WRITE 64 KiB goodput, MB/s", 0)
	row("rate2", "ops_per_s", "WRITE 2 B message rate, ops/s", 0)
	row("lat2", "rtt_median_us", "2 B round trip, median us", 1)
	row("lat2", "rtt_p99_us", "2 B round trip, p99 us", 1)
	row("bw4k", "retx", "ep retransmissions (bw4k)", 0)
	row("bw64k", "retx", "ep retransmissions (bw64k)", 0)
	row("rate2", "retx", "ep retransmissions (rate2)", 0)
}' "$raw" | tee "$out/table.md"
echo "# raw samples: $raw, log: $log"
