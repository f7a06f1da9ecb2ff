#!/bin/bash
# Fabric benchmark: mroce beside rdma_rxe over a leaf/spine fabric of network
# namespaces (scripts/fabric.sh) in ONE guest boot (qemu TCG, the rig):
# ib_write_bw under random loss on the spine links, over rate-limited spines
# (tail drop, with and without mroce's loss_queue_pct, and RED/ECN), one
# spine black-holed mid-run (goodput over time), spines of different delays
# (reordering only), several connections through one bottleneck (fairness),
# beside iperf3's TCP on one bottleneck, and mroce over P = 1, 2, 4 planes
# with one plane taken down mid-run (needs /sys/class/infiniband/NAME/planes;
# skipped without it). Not a timed test:
# TCG figures are ~100x below native and the shared host adds noise, so only
# the ratio mroce/rxe inside one run means something.
#
#   scripts/bench-fabric.sh [--help] [ARGS for bench/guest/fabric-bench.sh]
#     parts=loss,rate,blackhole,reorder,planes,fair,tcp  ks="4 8"
#     losses="0 0.1 1 5"  rate=20mbit  rate_limit=100  lq_pct=300
#     fair_n=4  fair_rate=40mbit  fair_limit=100  tcp_rate=40mbit  tcp_limit=100
#     snap=1   tcp runs: debugfs peers (0.5 s) and mroce trace events, logs/
#     mroce_params="npaths=16"   more mroce module parameters
#     reps=2  dur=8  size=65536  bh_warm=5  bh_after=10  skew=1ms
#     plane_list="1 2 4"  plane_k=4  plane_rate=5mbit  plane_limit=30
#     plane_mode=carrier  interval=100  drivers=rxe,mroce
#   scripts/bench-fabric.sh --process RUNDIR   redo tables and plots from
#                                  a finished run (scripts/vm/runs/NAME)
#   env: OUT=bench/results/fabric   where the results go
#        GUEST_T=3600               guest time limit (s)
#
# Needs `make module provider tools`, the rig image (scripts/vm/) and
# gnuplot (scripts/setup.sh installs gnuplot-nox). Stages fabric.sh, the
# sampler (bench/guest/fabric-sample.c, built here) and sch_red.ko (not in the
# rig image; for ECN marking) under bench/tmp/fab-share/fab, which the guest
# sees as /mnt/host/fab. Writes OUT/README.md (tables mroce vs rxe, ratios,
# goals, conditions, commands), the raw TSVs (loss, rate, reorder, blackhole,
# planes, fair, tcp), per timeline run tl-NAME.tsv (100 ms samples) + .events +
# .rate.tsv (derived rates), and PNGs. The guest's whole output stays in
# scripts/vm/runs/NAME/.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
. scripts/vm/config.sh
OUT=${OUT:-bench/results/fabric}

# ---- staging and the guest run ---------------------------------------------
stage_share() {	# stage_share DIR: what the guest needs besides -P
	local d=$1 m
	rm -rf "$d"; mkdir -p "$d"
	cp scripts/fabric.sh "$d/"
	${CC:-cc} -O2 -Wall -Wextra -Werror -std=gnu11 -o "$d/mroce-fabric-sample" bench/guest/fabric-sample.c
	m=$STAGE/lib/modules/$KVER/kernel/net/sched
	for f in sch_red sch_tbf; do
		if [ -f "$m/$f.ko" ]; then cp "$m/$f.ko" "$d/"
		elif [ -f "$m/$f.ko.xz" ]; then xz -dc "$m/$f.ko.xz" > "$d/$f.ko"
		else echo "bench-fabric: no $f.ko under $m: no ECN marking in the guest" >&2
		fi
	done
}

if [ "${1:-}" = --process ]; then
	RUN=${2:?--process RUNDIR}
	NAME=$(basename "$RUN") ARGS="(see the run's guest.log)" wall="-" rc=$(cat "$RUN/rc" 2>/dev/null || echo "?")
else
	ARGS="$*"
	NAME=bench-fabric-$(date +%Y%m%d-%H%M%S)
	FSTAGE=$ROOT/bench/tmp/fab-share/fab
	stage_share "$FSTAGE"
	t0=$(now)
	rc=0
	read -r l1 l5 _ < /proc/loadavg
	echo "host load before: $l1 $l5 (1, 5 min), $(nproc) cpus" > "$FSTAGE/../load.txt"
	scripts/vm/run-guest.sh -P -f "$FSTAGE" -t "${GUEST_T:-3600}" -n "$NAME" bench/guest/fabric-bench.sh -- "$@" || rc=$?
	wall=$(elapsed "$t0")
	RUN=$RUNS/$NAME
	read -r l1 l5 l15 _ < /proc/loadavg
	echo "host load after: $l1 $l5 $l15 (1, 5, 15 min)" >> "$FSTAGE/../load.txt"
	cp "$FSTAGE/../load.txt" "$RUN/host-load.txt"
fi
SRC=$RUN/share/out/fabric
[ -f "$SRC/loss.tsv" ] || { echo "bench-fabric: no results in $SRC (rc $rc)" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/tl-*.tsv "$OUT"/tl-*.events "$OUT"/*.png
cp "$SRC"/loss.tsv "$SRC"/reorder.tsv "$SRC"/blackhole.tsv "$SRC"/planes.tsv "$OUT/"
for f in rate fair tcp; do [ -f "$SRC/$f.tsv" ] && cp "$SRC/$f.tsv" "$OUT/"; done
for f in "$SRC"/tl-*.tsv "$SRC"/tl-*.events; do [ -f "$f" ] && cp "$f" "$OUT/"; done
GLOG=$RUN/share/out/guest.log

# ---- summaries ----------------------------------------------------------------
# median [min-max] (n ok / n) of column 6 per (k, value, driver); retx_pct median
summary() {	# summary FILE: k value driver median min max ok n retx_pct (columns 1-9)
	awk -F'\t' 'NR > 1 {
		key = $1 "\t" $2 "\t" $5; n[key]++
		if ($6 != "FAIL") { ok[key]++; v[key, ok[key]] = $6; r[key, ok[key]] = $13 }
		if (!(key in seen)) { seen[key] = 1; order[++no] = key }
	}
	function med(a, key, m,   i, j, t, x) {
		for (i = 1; i <= m; i++) x[i] = a[key, i] + 0
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		lo = x[1]; hi = x[m]
		return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
	}
	END {
		for (o = 1; o <= no; o++) {
			key = order[o]; m = ok[key] + 0
			if (m == 0) { printf "%s\tFAIL\t-\t-\t0\t%d\t-\n", key, n[key]; continue }
			b = med(v, key, m); blo = lo; bhi = hi
			rr = med(r, key, m)
			printf "%s\t%.2f\t%.2f\t%.2f\t%d\t%d\t%.1f\n", key, b, blo, bhi, m, n[key], rr
		}
	}' "$1"
}
summary "$OUT/loss.tsv" > "$OUT/loss-summary.tsv"
summary "$OUT/reorder.tsv" > "$OUT/reorder-summary.tsv"
[ -f "$OUT/rate.tsv" ] && summary "$OUT/rate.tsv" > "$OUT/rate-summary.tsv"

# the spines a driver used (most frequent value of column 8)
used() {	# used FILE K VALUE DRIVER
	awk -F'\t' -v k="$2" -v x="$3" -v d="$4" '$1 == k && $2 == x && $5 == d && $8 != "" { c[$8]++ }
		END { for (u in c) if (c[u] > best) { best = c[u]; b = u }; print (b == "" ? "-" : b) }' "$1"
}
cell() {	# cell SUMMARY K VALUE DRIVER: "median [min-max]" or FAIL
	awk -F'\t' -v k="$2" -v x="$3" -v d="$4" '$1 == k && $2 == x && $3 == d {
		if ($4 == "FAIL") printf "FAIL (0/%s)", $8
		else printf "%s [%s-%s]%s", $4, $5, $6, ($7 < $8 ? " (" $7 "/" $8 " ok)" : "")
		f = 1 } END { if (!f) printf "-" }' "$1"
}
field() {	# field SUMMARY K VALUE DRIVER COL
	awk -F'\t' -v k="$2" -v x="$3" -v d="$4" -v c="$5" '$1 == k && $2 == x && $3 == d { print $c; f = 1 } END { if (!f) print "-" }' "$1"
}
# capacity in MiB/s of K links at RATE (as tc writes it: 20mbit, 1gbit)
cap_of() { awk -v r="$1" -v k="${2:-1}" 'BEGIN { v = r + 0; u = tolower(r); m = (u ~ /gbit/) ? 1e9 : (u ~ /mbit/) ? 1e6 : (u ~ /kbit/) ? 1e3 : 1; printf "%.2f", k * v * m / 8 / 1048576 }'; }
pct_of() { awk -v b="$1" -v c="$2" 'BEGIN { if (c > 0 && b + 0 > 0) printf "%.0f %%", 100 * b / c; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-") print "-"; else if (a + 0 > 0 && b != "FAIL" && b != "-") printf "%.2f", b / a; else if (b + 0 > 0 && (a == "FAIL" || a + 0 == 0)) print "∞ (rxe failed)"; else print "-" }'; }

# ---- timelines: rates per tick relative to the action ---------------------------
# tl-NAME.rate.tsv: t (s from the action), rx MB/s (receiver netdev), goodput
# MB/s (rx x the share of data packets the receiver accepted), then fwd MB/s
# per spine (plane 0) or per plane (planes runs)
rates() {	# rates NAME
	local f=$OUT/tl-$1.tsv ev=$OUT/tl-$1.events ta
	ta=$(awk -F'\t' '$2 ~ /^action/ { print $1; exit }' "$ev")
	awk -F'\t' -v ta="$ta" -v name="$1" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
		k = 0; P = 0
		for (i = 1; i <= NF; i++) if ($i ~ /^p[0-9]+s[0-9]+f$/) { split(substr($i, 2), a, "s"); if (a[1] + 1 > P) P = a[1] + 1; if (a[1] == 0) k++ }
		planes = (name ~ /^planes/)
		printf "t\trx_MBps\tgoodput_MBps"
		if (planes) for (p = 0; p < P; p++) printf "\tplane%d_fwd_MBps", p
		else for (i = 1; i <= k; i++) printf "\ts%d_fwd_MBps", i
		printf "\n"; next }
	{
		if (NR > 2 && $1 > pt) {
			dt = $1 - pt
			rx = ($(c["h2p0.rx"]) - prx) / dt / 1e6
			if ("mroce1.rx_data" in c) { acc = $(c["mroce1.rx_data"]) - pa; bad = $(c["mroce1.rx_dup_tsn"]) - pb }
			else { acc = $(c["rxe1.rcvd_pkts"]) - pa; bad = ($(c["rxe1.duplicate_request"]) + $(c["rxe1.out_of_seq_request"])) - pb }
			g = acc > 0 ? rx * (acc - bad) / acc : 0
			if (g < 0) g = 0
			printf "%.3f\t%.3f\t%.3f", $1 - ta, rx, g
			if (planes) for (p = 0; p < P; p++) { s = 0; for (i = 1; i <= k; i++) s += $(c["p" p "s" i "f"]) - pf[p, i]; printf "\t%.3f", s / dt / 1e6 }
			else for (i = 1; i <= k; i++) printf "\t%.3f", ($(c["p0s" i "f"]) - pf[0, i]) / dt / 1e6
			printf "\n"
		}
		pt = $1; prx = $(c["h2p0.rx"])
		if ("mroce1.rx_data" in c) { pa = $(c["mroce1.rx_data"]); pb = $(c["mroce1.rx_dup_tsn"]) }
		else { pa = $(c["rxe1.rcvd_pkts"]); pb = $(c["rxe1.duplicate_request"]) + $(c["rxe1.out_of_seq_request"]) }
		for (p = 0; p < P; p++) for (i = 1; i <= k; i++) pf[p, i] = $(c["p" p "s" i "f"])
	}' "$f" > "$OUT/tl-$1.rate.tsv"
}
# metrics of a black-hole timeline: before, after, after/before, the dead
# spine's share of the bytes sent in [0, 1 s) and [1 s, end), recovered
tl_metrics() {	# tl_metrics NAME K SPINE: "before after ratio share01 share1 recovered"
	awk -F'\t' -v k="$2" -v s="$3" 'NR > 1 {
		t = $1; g = $3; dt = (NR > 2) ? t - pt : 0; pt = t
		if (t < 0 && t >= -3) { bs += g * dt; bt += dt }
		if (t >= 2) { as += g * dt; at += dt }
		if (t >= 0) {
			tot = 0; for (i = 4; i <= NF; i++) tot += $i
			if (t < 1) { d0 += $(3 + s) * dt; t0 += tot * dt } else { d1 += $(3 + s) * dt; t1 += tot * dt }
			n++; T[n] = t; G[n] = g
		}
	} END {
		before = bt > 0 ? bs / bt : 0; after = at > 0 ? as / at : 0
		# recovered: the end of the first 1 s window after the action whose mean
		# goodput reaches (k-1)/k of before
		rec = "never"
		for (i = 1; i <= n && rec == "never"; i++) {
			sum = 0; w = 0
			for (j = i; j <= n && T[j] - T[i] <= 1; j++) { if (j > i) { sum += G[j] * (T[j] - T[j - 1]); w += T[j] - T[j - 1] } }
			if (w >= 0.8 && sum / w >= before * (k - 1) / k) rec = sprintf("%.1f s", T[j - 1])
		}
		r = (before > 0) ? sprintf("%.2f", after / before) : "-"
		s0 = (t0 > 0) ? sprintf("%d %%", 100 * d0 / t0 + 0.5) : "-"
		s1 = (t1 > 0) ? sprintf("%d %%", 100 * d1 / t1 + 0.5) : "-"
		printf "%.2f\t%.2f\t%s\t%s\t%s\t%s\n", before, after, r, s0, s1, rec
	}' "$OUT/tl-$1.rate.tsv"
}
# a 0.5 s moving average of goodput (column 3) as the last column
smooth() {	# smooth FILE
	awk -F'\t' 'NR == 1 { print $0 "\tgoodput_avg05"; next }
		{ n++; T[n] = $1; G[n] = $3; L[n] = $0 }
		END { for (i = 1; i <= n; i++) { s = 0; c = 0
			for (j = i; j >= 1 && T[i] - T[j] <= 0.25; j--) { s += G[j]; c++ }
			for (j = i + 1; j <= n && T[j] - T[i] <= 0.25; j++) { s += G[j]; c++ }
			printf "%s\t%.3f\n", L[i], s / c } }' "$1" > "$1.tmp" && mv "$1.tmp" "$1"
}
for f in "$OUT"/tl-*.events; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .events); n=${n#tl-}
	rates "$n"; smooth "$OUT/tl-$n.rate.tsv"
done

# ---- plots ----------------------------------------------------------------------
KS=$(awk -F'\t' 'FNR > 1 && $1 ~ /^[0-9]+$/ { if (!($1 in s)) { s[$1]; printf "%s ", $1 } }' "$OUT/loss.tsv" "$OUT/reorder.tsv" "$OUT/blackhole.tsv")
LOSSES=$(awk -F'\t' 'NR > 1 { if (!($2 in s)) { s[$2]; printf "%s ", $2 } }' "$OUT/loss.tsv")
LKS=$(awk -F'\t' 'NR > 1 { if (!($1 in s)) { s[$1]; printf "%s ", $1 } }' "$OUT/loss.tsv")
{	# wide: loss, then per K: rxe, mroce medians
	printf 'loss'; for k in $LKS; do printf '\tk%s_rxe\tk%s_mroce' "$k" "$k"; done; echo
	for x in $LOSSES; do
		printf '%s' "$x"
		for k in $LKS; do
			for d in rxe mroce; do
				v=$(field "$OUT/loss-summary.tsv" "$k" "$x" "$d" 4); [ "$v" = FAIL ] && v=0.001
				printf '\t%s' "$v"
			done
		done
		echo
	done
} > "$OUT/loss-plot.tsv"
plot() {
	command -v gnuplot >/dev/null || { echo "bench-fabric: gnuplot missing: no plots (scripts/setup.sh)" >&2; return 0; }
	local k kk bh pre what n gp="" i
	gp+="set terminal pngcairo size 800,480 font ',10' noenhanced; set grid; set key outside top center horizontal; set datafile separator '\t';"
	if [ -s "$OUT/loss-summary.tsv" ]; then
		gp+="set output '$OUT/loss.png'; set title 'ib_write_bw 64 KiB over the K-spine fabric, random loss on every spine link (each way)';"
		gp+="set xlabel 'loss per spine link (%)'; set ylabel 'MiB/s (median)'; set logscale y; set style data linespoints;"
		gp+="plot"; i=2
		for k in $(head -1 "$OUT/loss-plot.tsv" | tr '\t' '\n' | sed -n 's/^k\([0-9]*\)_rxe$/\1/p'); do
			gp+=" '$OUT/loss-plot.tsv' using 0:$i:xtic(1) title 'rxe, K=$k' lw 2 dt 2, '' using 0:$((i + 1)) title 'mroce, K=$k' lw 2,"
			i=$((i + 2))
		done
		gp=${gp%,}"; unset logscale y;"
	fi
	for kk in $KS rate$KS; do
		k=${kk#rate} bh=bh pre=blackhole what=""
		[ "$kk" != "$k" ] && bh=bhrate pre=blackhole-rate what=" (spines at $(setting rate))"
		[ -f "$OUT/tl-$bh-k$k-mroce.rate.tsv" ] || [ -f "$OUT/tl-$bh-k$k-rxe.rate.tsv" ] || continue
		gp+="set output '$OUT/$pre-k$k.png'; set title 'One of $k spines$what black-holed at t = 0: goodput at the receiver';"
		gp+="set xlabel 'time from the black hole (s)'; set ylabel 'MB/s (0.5 s moving average)'; set style data lines; set yrange [0:*];"
		gp+="set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb 'gray'; plot"
		for n in mroce rxe; do
			[ -f "$OUT/tl-$bh-k$k-$n.rate.tsv" ] && gp+=" '$OUT/tl-$bh-k$k-$n.rate.tsv' using 1:'goodput_avg05' title '$n' lw 2,"
			[ $bh = bh ] && [ -f "$OUT/tl-ctl-k$k-$n.rate.tsv" ] && gp+=" '$OUT/tl-ctl-k$k-$n.rate.tsv' using 1:'goodput_avg05' title '$n, no black hole (control)' lw 1 dt 3,"
		done
		gp=${gp%,}"; unset arrow 1;"
		if [ -f "$OUT/tl-$bh-k$k-mroce.rate.tsv" ]; then
			gp+="set output '$OUT/$pre-k$k-spines.png'; set title 'mroce, one of $k spines$what black-holed at t = 0: bytes sent to each spine';"
			gp+="set ylabel 'MB/s (100 ms ticks)'; set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb 'gray'; plot for [i=4:$((3 + k))] '$OUT/tl-$bh-k$k-mroce.rate.tsv' using 1:i title 'spine '.(i-3) lw 1; unset arrow 1;"
		fi
	done
	if [ -f "$OUT/tl-planes-down.rate.tsv" ]; then
		gp+="set output '$OUT/planes-down.png'; set title 'mroce over several planes, plane 1 taken down at t = 0';"
		gp+="set arrow 1 from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb 'gray'; set style data lines;"
		gp+="set key autotitle columnheader; plot '$OUT/tl-planes-down.rate.tsv' using 1:'goodput_avg05' title 'goodput (0.5 s average)' lw 2, for [i=4:11] '' using 1:i lw 1; unset arrow 1; set key noautotitle;"
	fi
	if awk -F'\t' 'NR > 1 && $1 != "SKIP" && $2 == "mroce" { f = 1 } END { exit !f }' "$OUT/planes.tsv"; then
		gp+="set output '$OUT/planes.png'; set title 'ib_write_bw over P planes (each $(planes_desc))'; set xlabel 'planes'; set ylabel 'MiB/s';"
		gp+="set style data linespoints; plot '< awk -F\"\\t\" \"NR > 1 && \\\$2 == \\\"mroce\\\" && \\\$8 + 0 == 0\" $OUT/planes.tsv' using 1:3 title 'mroce' lw 2,"
		gp+=" '< awk -F\"\\t\" \"NR > 1 && \\\$2 == \\\"mroce\\\" && \\\$8 + 0 > 0\" $OUT/planes.tsv' using 1:3 title 'mroce, loss_queue_pct $(setting lq_pct)' lw 2;"
	fi
	gnuplot -e "$gp" || echo "bench-fabric: gnuplot failed" >&2
}
planes_desc() { sed -n 's/.*plane_k=\([0-9]*\) plane_rate=\([^ ]*\).*/\1 spines at \2/p' "$GLOG" | head -1; }
setting() { sed -n "s/^# parts=.* $1=\\([^ ]*\\).*/\\1/p" "$GLOG" | head -1; }
plot

# ---- README ---------------------------------------------------------------------
{
	echo "# Fabric benchmark: mroce beside rdma_rxe over a leaf/spine fabric"
	echo
	echo "Generated by \`scripts/bench-fabric.sh $ARGS\` ($(date -u +%F), run $NAME, ${wall} s wall, guest rc $rc)."
	echo "Re-plot from the run: \`scripts/bench-fabric.sh --process scripts/vm/runs/$NAME\`."
	echo
	echo "One guest boot (qemu TCG, -cpu qemu64, 2 vCPUs, $(grep -o '^# kernel [^,]*' "$GLOG" | head -1 | cut -c10-)) on the"
	echo "shared 2-core development machine. The fabric (scripts/fabric.sh) is built from network"
	echo "namespaces: host 1 (client, data sender) -> leaf 1 -> K spines -> leaf 2 -> host 2 (server);"
	echo "the leaves route over all spines with ECMP hashing the UDP ports"
	echo "(fib_multipath_hash_policy=1), so each UDP source port takes one spine. Both hosts' netdevs"
	echo "are in the initial namespace (rdma_rxe in 6.1 works only there) with policy routing that"
	echo "sends their traffic through the routers; rxe0/rxe1 and mroce0/mroce1 sit on the same"
	echo "netdevs (h1p0, h2p0, MTU 1500) and take turns (A/B order alternating per repetition)."
	echo "Every figure is ib_write_bw (perftest 4.5, RC, one QP, $(setting size)-byte messages) in"
	echo "duration mode (-D $(setting dur)); MiB/s as perftest prints it. mroce spreads one QP over"
	echo "$(sed -n 's/.*npaths=\([0-9]*\).*/\1/p' "$GLOG" | tail -1) paths (UDP source ports); rxe hashes one source port per QP."
	echo
	grep -m1 '^# parts=' "$GLOG" | sed 's/^# /Settings: /'
	echo
	grep -m1 '^# mroce parameters' "$GLOG" | sed 's/^# /Module /'
	echo
	grep '^# ping over the fabric' "$GLOG" | sed 's/^# /- /'
	echo
	[ -f "$RUN/host-load.txt" ] && sed 's/^/- /' "$RUN/host-load.txt" && echo
	echo "TCG figures are far below native and the host is shared: only ratios inside this run"
	echo "mean something. The [min-max] spread over the repetitions shows the noise."
	echo
	if [ -s "$OUT/loss-summary.tsv" ]; then
		echo "## Random loss on the spine links"
		echo
		echo "netem loss on every leaf-to-spine link, each way (a packet meets it once per direction),"
		echo "so data and ACKs are both lost at that rate. Goal (issue 5): mroce ≥ 10× rxe at 1 %."
		echo
		echo "| K | loss | rxe MiB/s median [min-max] | mroce MiB/s median [min-max] | mroce/rxe | goal | retx % rxe / mroce | spines used rxe / mroce |"
		echo "|---|---|---:|---:|---:|---|---|---|"
		for k in $LKS; do
			for x in $LOSSES; do
				a=$(field "$OUT/loss-summary.tsv" "$k" "$x" rxe 4) b=$(field "$OUT/loss-summary.tsv" "$k" "$x" mroce 4)
				g="-"; [ "$x" = 1 ] && g="≥ 10"
				echo "| $k | $x % | $(cell "$OUT/loss-summary.tsv" "$k" "$x" rxe) | $(cell "$OUT/loss-summary.tsv" "$k" "$x" mroce) | $(ratio "$a" "$b") | $g | $(field "$OUT/loss-summary.tsv" "$k" "$x" rxe 9) / $(field "$OUT/loss-summary.tsv" "$k" "$x" mroce 9) | $(used "$OUT/loss.tsv" "$k" "$x" rxe) / $(used "$OUT/loss.tsv" "$k" "$x" mroce) |"
			done
		done
		echo
		echo "retx %: mroce: packets resent / data packets sent (tx_retx / tx_data); rxe has no"
		echo "resend counter: what its responder discarded (duplicate_request + out_of_seq_request) /"
		echo "packets the requester sent (sent_pkts). Spines used: spines that carried ≥ 5 % of the"
		echo "bytes host 1 -> host 2 (leaf 1's counters). Per run: loss.tsv (with every counter delta)."
		echo
		[ -f "$OUT/loss.png" ] && echo "![loss](loss.png)" && echo
	fi
	if [ -s "$OUT/rate-summary.tsv" ]; then
		R=$(setting rate)
		echo "## Rate-limited spines (a real bottleneck)"
		echo
		echo "Every spine link limited to $R each way with a queue of $(setting rate_limit) packets: tail"
		echo "drop (netem rate), then RED marking ECN (tbf + red ecn; mroce sends ECT(0)), then tail drop"
		echo "again with mroce reloaded with loss_queue_pct=$(setting lq_pct) (+lq rows: a loss while the path's"
		echo "RTT is that % above its least is congestion and halves the windows; the module's default,"
		echo "0, never cuts on loss). The fabric's capacity is K × $R; one rxe QP hashes onto one"
		echo "spine, so $R is its ceiling; mroce can use all K. Goal (issue 14) without ECN: retx ≤ 5 %"
		echo "of data packets with goodput ≥ 90 % of the bottleneck."
		echo
		echo "| K | spines | rxe MiB/s | mroce MiB/s | mroce/rxe | capacity K × rate, MiB/s | mroce / capacity | retx % rxe / mroce | spines used rxe / mroce |"
		echo "|---|---|---:|---:|---:|---:|---:|---|---|"
		while IFS=$'\t' read -r k x _; do
			a=$(field "$OUT/rate-summary.tsv" "$k" "$x" rxe 4) b=$(field "$OUT/rate-summary.tsv" "$k" "$x" mroce 4)
			cap=$(cap_of "$R" "$k")
			echo "| $k | $x | $(cell "$OUT/rate-summary.tsv" "$k" "$x" rxe) | $(cell "$OUT/rate-summary.tsv" "$k" "$x" mroce) | $(ratio "$a" "$b") | $cap | $(pct_of "$b" "$cap") | $(field "$OUT/rate-summary.tsv" "$k" "$x" rxe 9) / $(field "$OUT/rate-summary.tsv" "$k" "$x" mroce 9) | $(used "$OUT/rate.tsv" "$k" "$x" rxe) / $(used "$OUT/rate.tsv" "$k" "$x" mroce) |"
		done < <(awk -F'\t' '!s[$1 "\t" $2]++ { print $1 "\t" $2 }' "$OUT/rate-summary.tsv")
		echo
		grep -E '^# [0-9]+mbit(\+ecn)? spine' "$GLOG" | sed 's/^# /    /'
		echo
	fi
	if [ "$(wc -l < "$OUT/reorder-summary.tsv")" -gt 0 ]; then
		echo "## Spines of different delays (reordering only, nothing lost)"
		echo
		echo "Spine i delays by (i-1) × skew, each way (netem delay at the leaves' uplinks). rxe's single"
		echo "flow stays on one spine, so it sees a longer path but no reordering; mroce sprays over"
		echo "all spines and must not take the reordering for loss. Lossless figures of the same K"
		echo "(table above) for comparison."
		echo
		echo "| K | skew | rxe MiB/s | mroce MiB/s | mroce/rxe | mroce lossless, no skew | retx % rxe / mroce |"
		echo "|---|---|---:|---:|---:|---:|---|"
		while IFS=$'\t' read -r k x _; do
			[ "$k" = k ] && continue
			a=$(field "$OUT/reorder-summary.tsv" "$k" "$x" rxe 4) b=$(field "$OUT/reorder-summary.tsv" "$k" "$x" mroce 4)
			echo "| $k | $x | $(cell "$OUT/reorder-summary.tsv" "$k" "$x" rxe) | $(cell "$OUT/reorder-summary.tsv" "$k" "$x" mroce) | $(ratio "$a" "$b") | $(field "$OUT/loss-summary.tsv" "$k" 0 mroce 4) | $(field "$OUT/reorder-summary.tsv" "$k" "$x" rxe 9) / $(field "$OUT/reorder-summary.tsv" "$k" "$x" mroce 9) |"
		done < <(awk -F'\t' '!s[$1 "\t" $2]++ { print $1 "\t" $2 }' "$OUT/reorder-summary.tsv")
		echo
	fi
	if [ "$(grep -c '^[0-9]' "$OUT/blackhole.tsv")" -gt 0 ]; then
		echo "## One spine black-holed mid-run"
		echo
		echo "ib_write_bw runs without end (-D 1 --run_infinitely); $(setting bh_warm) s in, the spine that"
		echo "carried the most of that driver's bytes in the second before is black-holed (blackhole"
		echo "routes in the spine: packets vanish both ways, links stay up, nothing is signalled) for the"
		echo "remaining $(setting bh_after) s. Goodput = bytes arriving at host 2's netdev × the share of data"
		echo "packets the receiver accepted (not duplicates / out of sequence), per 100 ms tick."
		echo "Before: mean over the 3 s before; after: mean from 2 s after to the end. Goal (issue 5): a"
		echo "black-holed spine costs no more than its share, after/before ≥ (K-1)/K, within 3 RTTs."
		echo "Control runs: the same without the black hole (how steady goodput is by itself)."
		echo "Rows \"K (at RATE)\": the same over rate-limited spines (previous section), where the"
		echo "fabric, not the guest CPU, is the bottleneck and a spine's share of capacity is 1/K."
		echo
		echo "| K | driver | black-holed spine (its share before) | before MB/s | after MB/s | after/before | goal | its share 0-1 s / 1 s-end | back to (K-1)/K after | client | QPs +1 s / +3 s / end |"
		echo "|---|---|---|---:|---:|---:|---|---|---|---|---|"
		while IFS=$'\t' read -r k d name sp share crc cexit q1 q3 qe; do
			[ "$k" = k ] && continue
			case $k in P*) continue;; esac
			[ -f "$OUT/tl-$name.rate.tsv" ] || continue
			IFS=$'\t' read -r bef aft rat sh0 sh1 rec <<<"$(tl_metrics "$name" "$k" "$sp")"
			cl="ran to the end"; [ "$cexit" != - ] && cl="exited at ${cexit} s (rc $crc)"
			kl=$k; case $name in bhrate-*) kl="$k (at $(setting rate))";; esac
			case $name in
			ctl-*) echo "| $kl | $d | none (control run) | $bef | $aft | $rat | - | - | - | $cl | $q1 / $q3 / $qe |";;
			*) echo "| $kl | $d | $sp ($share %) | $bef | $aft | $rat | ≥ $(awk -v k="$k" 'BEGIN { printf "%.2f", (k - 1) / k }') | $sh0 / $sh1 | $rec | $cl | $q1 / $q3 / $qe |";;
			esac
		done < "$OUT/blackhole.tsv"
		echo
		echo "Its share: of the bytes host 1 sent into the spines, the part that went to the dead spine"
		echo "in the first second after the black hole, and from then on (rxe never leaves it: its one"
		echo "source port hashes there). Back to (K-1)/K: the end of the first 1 s window whose mean"
		echo "goodput reaches (K-1)/K of before. Ticks are 100 ms"
		echo "(the guest's ping RTT over the fabric is ~1 ms idle, mroce's srtt under load tens of ms,"
		echo "see logs in the run), so \"3 RTTs\" is below what this rig resolves. Events: tl-*.events;"
		echo "samples: tl-*.tsv; rates: tl-*.rate.tsv."
		echo
		for k in $KS; do
			for pre in blackhole blackhole-rate; do
				[ -f "$OUT/$pre-k$k.png" ] && echo "![$pre, $k spines]($pre-k$k.png)" && echo
				[ -f "$OUT/$pre-k$k-spines.png" ] && echo "![mroce per spine, $pre, $k spines]($pre-k$k-spines.png)" && echo
			done
		done
	fi
	if [ -f "$OUT/fair.tsv" ] && [ "$(wc -l < "$OUT/fair.tsv")" -gt 1 ]; then
		C=$(cap_of "$(setting fair_rate)")
		echo "## Several connections through one bottleneck (fairness)"
		echo
		echo "$(setting fair_n) pairs at once: address J of host 1 to address J of host 2 (fabric.sh addrs=N),"
		echo "each its own ib_write_bw -D $(setting dur) and its own connection (mroce keys a"
		echo "connection by the peer's address), all through ONE spine at $(setting fair_rate) with a queue of"
		echo "$(setting fair_limit) packets (capacity $C MiB/s): tail drop, then RED/ECN. Jain's index of the pairs'"
		echo "MiB/s: 1 is equal shares, 1/N one pair takes all. Goal (issue 14): Jain ≥ 0.95."
		echo
		echo "| queue | driver | loss_queue_pct | rep | MiB/s per pair | sum | sum / capacity | Jain | retx % | dropped |"
		echo "|---|---|---|---|---|---:|---:|---:|---:|---|"
		awk -F'\t' -v c="$C" 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $2, $6, $7,
			(c > 0 && $7 + 0 > 0) ? sprintf("%.0f %%", 100 * $7 / c) : "-", $8, $9, $12 }' "$OUT/fair.tsv"
		echo
		echo "dropped: packets the spine's queue dropped (fwd) and the guest's backlog dropped"
		echo "(/proc/net/softnet_stat: a receiver CPU that cannot keep up) during the run."
		echo
		echo "    $(grep -m1 '^# fair: spine' "$GLOG" | sed 's/^# //')"
		echo
	fi
	if [ -f "$OUT/tcp.tsv" ] && [ "$(wc -l < "$OUT/tcp.tsv")" -gt 1 ]; then
		C=$(cap_of "$(setting tcp_rate)")
		echo "## Beside TCP"
		echo
		echo "One spine at $(setting tcp_rate) with a queue of $(setting tcp_limit) packets, tail drop (capacity $C MiB/s)."
		echo "iperf3 (TCP, $(sed -n 's/^# tcp: congestion control \([^,]*\).*/\1/p' "$GLOG" | head -1), one stream) from address 2 of host 1 to address 2 of host 2,"
		echo "ib_write_bw -D $(setting dur) on address 1; each alone first, then together: iperf3 starts 2 s"
		echo "before ib_write_bw and its receiver's 1 s intervals over ib_write_bw's last $(setting dur) s are"
		echo "averaged. Goal (issue 14): each keeps ≥ 40 % of the capacity."
		echo
		echo "| driver | loss_queue_pct | RDMA alone | TCP alone | RDMA beside TCP | TCP beside RDMA | RDMA / capacity | TCP / capacity | RDMA retx % | TCP resent segments | dropped |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
		awk -F'\t' 'NR > 1 { print }' "$OUT/tcp.tsv" | while IFS=$'\t' read -r v d lq ra ta rb tb rr tr _ dr; do
			[ "$v" = SKIP ] && { echo "| skipped: no iperf3 in the guest | | | | | | | | | | |"; continue; }
			echo "| $d | $lq | $ra | $ta | $rb | $tb | $(pct_of "$rb" "$C") | $(pct_of "$tb" "$C") | $rr | $tr | ${dr:--} |"
		done
		echo
		echo "    $(grep -m1 '^# tcp: spine' "$GLOG" | sed 's/^# //')"
		echo
	fi
	echo "## Planes"
	echo
	if [ "$(wc -l < "$OUT/planes.tsv")" -le 1 ]; then
		echo "Not measured in this run (parts= without planes)."
	elif grep -q '^SKIP' "$OUT/planes.tsv"; then
		echo "SKIPPED: planes not supported by this mroce (no /sys/class/infiniband/mroce0/planes in the"
		echo "module this run loaded). rxe baseline over one plane ($(planes_desc)): $(awk -F'\t' '$2 == "rxe" { print $3 " MiB/s" }' "$OUT/planes.tsv")."
	else
		echo "Each plane is its own fabric ($(planes_desc) per direction, so that a plane's capacity is"
		echo "below what the guest CPU does); mroce gets planes through"
		echo "\`echo \"add DEV\" > /sys/class/infiniband/NAME/planes\`. CPU: guest CPU busy during the run."
		echo
		echo "Each mroce sweep runs with loss_queue_pct 0 (the default) and $(setting lq_pct). × P = 1: MiB/s"
		echo "over the same sweep's one plane; goal (issue 14) over tail-drop spines: ≥ 0.9 × P."
		echo
		echo "| planes | driver | loss_queue_pct | MiB/s | × P = 1 | retx % | per-plane kB host 1 -> host 2 | guest CPU busy % |"
		echo "|---|---|---|---:|---:|---:|---|---:|"
		awk -F'\t' 'NR > 1 { lq = ($8 == "") ? "-" : $8; if ($1 == 1) one[$2, lq] = $3
			x = (one[$2, lq] + 0 > 0 && $3 + 0 > 0) ? sprintf("%.2f", $3 / one[$2, lq]) : "-"
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, lq, $3, x, ($9 == "" ? "-" : $9), $5, $6 }' "$OUT/planes.tsv"
		echo
		[ -f "$OUT/planes.png" ] && echo "![planes](planes.png)" && echo
		if grep -q 'planes-down' "$OUT/blackhole.tsv"; then
			echo "Plane 1 taken down mid-run: $(awk -F'\t' '$3 == "planes-down" { print "client rc " $6 ", exited " $7 ", QPs +1 s " $8 ", +3 s " $9 ", end " $10 }' "$OUT/blackhole.tsv")."
			echo
			[ -f "$OUT/planes-down.png" ] && echo "![plane down](planes-down.png)" && echo
		fi
	fi
	echo
	[ -f "$OUT/NOTES.md" ] && echo "What limits the figures, and the goals missed: NOTES.md (written by hand, not by this script)." && echo
	echo "## Reproduce"
	echo
	echo "    make module provider tools"
	echo "    scripts/bench-fabric.sh $ARGS"
	echo
	echo "Guest side: bench/guest/fabric-bench.sh (its header lists the arguments); the fabric:"
	echo "scripts/fabric.sh --help. Guest time per part, from the guest log:"
	echo
	grep -E '^# \[[0-9]+ s\] (=====|black hole|done|plane 1 down)' "$GLOG" | sed 's/^# /    /'
} > "$OUT/README.md"
cat "$OUT/README.md"
[ "${wall:--}" = - ] || tlog bench-fabric "$wall" "rc=$rc run=$NAME"
exit "$rc"
