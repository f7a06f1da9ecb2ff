#!/bin/bash
# The main demo: MetaRoCE at work beside rdma_rxe. Boots the guest (qemu,
# the rig), builds a leaf/spine fabric of network namespaces
# (scripts/fabric.sh), and runs ib_write_bw (perftest, RC, 64 KiB) over it
# on rdma_rxe and on mroce in turn: lossless, with random loss on every
# spine link, and with one spine black-holed mid-run without telling
# anyone. While the black-hole runs go it prints each driver's MB/s every
# second (perftest's figure for the second before; during the second
# driver's run, beside it, the first driver's figure for the same second
# of its own run); at the end a table (lossless / lossy / spine down, mroce beside
# rxe), the mroce connection's paths after the black hole (which died, its
# resends, repaths) and the path of a PNG timeline of both drivers' goodput
# through the failure. About 2 minutes here.
#
#   scripts/demo.sh [--help] [--list] [spines=4] [loss=1] [secs=6]
#     spines=K   spines of the fabric (ECMP over them; 2..8)
#     loss=PCT   netem loss on every leaf-spine link, each way
#     secs=S     ib_write_bw seconds per lossless/lossy run; the black hole
#                comes 3 s into its run and lasts S s
#     --list     the old demo instead: two mroce devices on a veth pair and
#                what rdma-core shows of them (rdma link, ibv_devinfo -v)
#   env: OUT=bench/tmp/demo   where the tables, timelines and PNGs go
#
# Needs root; runs scripts/setup.sh, make and the rig build first if needed.
# TCG figures are far below native: compare the two drivers, not numbers.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
scripts/setup.sh
make module provider tools >/dev/null
[ -f scripts/vm/build/initramfs.cpio ] || { scripts/vm/fetch-debs.sh && scripts/vm/build-initramfs.sh; }
if [ "${1:-}" = --list ]; then
	exec scripts/vm/run-guest.sh -P -q -t 300 -n demo tests/vm/demo.sh
fi

K=4 LOSS=1 SECS=6
for a in "$@"; do
	case $a in
	spines=*) K=${a#*=};; loss=*) LOSS=${a#*=};; secs=*) SECS=${a#*=};;
	*) echo "demo: unknown argument $a (see --help)" >&2; exit 2;;
	esac
done
export OUT=${OUT:-bench/tmp/demo}
echo "== mroce beside rdma_rxe: $K spines, $LOSS % loss on every spine link for the lossy runs"
echo "== (ib_write_bw 64 KiB, one RC QP; a guest under TCG: compare the drivers, not the numbers)"
scripts/bench-fabric.sh parts=loss,blackhole ks="$K" losses="0 $LOSS" reps=1 dur="$SECS" \
	bh_warm=3 bh_after="$SECS" control=0 progress=1 drivers=rxe,mroce 2>&1 |
	grep --line-buffered -E '^# \[|^#   (rxe|mroce) |^(not )?ok -|bench-fabric:' |
	sed -u -e 's/^# \[\([0-9]*\) s\] /[\1 s] /' -e 's/^#   /    /'

# ---- the summary ---------------------------------------------------------------
run=$(ls -td scripts/vm/runs/bench-fabric-* | head -1)
cell() {	# cell DRIVER LOSS: median MiB/s of the loss run
	awk -F'\t' -v d="$1" -v l="$2" '$2 == l && $3 == d { print $4 }' "$OUT/loss-summary.tsv"
}
after() {	# after DRIVER: mean goodput MB/s from 2 s after the black hole to the end
	awk -F'\t' -v e="$SECS" 'NR > 1 && $1 >= 2 && $1 < e { s += $3; n++ } END { printf "%.1f", n ? s / n : 0 }' \
		"$OUT/tl-bh-k$K-$1.rate.tsv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0) printf "%.1fx", b / a; else if (b + 0 > 0) print "rxe stalled"; else print "-" }'; }
echo
echo "== ib_write_bw, MB/s (one run each)"
printf '%-34s %10s %10s %10s\n' "" rxe mroce "mroce/rxe"
for l in 0 "$LOSS"; do
	r=$(cell rxe "$l") m=$(cell mroce "$l")
	printf '%-34s %10s %10s %10s\n' "$([ "$l" = 0 ] && echo lossless || echo "$l % loss on the spine links")" "$r" "$m" "$(ratio "$r" "$m")"
done
r=$(after rxe) m=$(after mroce)
printf '%-34s %10s %10s %10s\n' "one of $K spines black-holed" "$r" "$m" "$(ratio "$r" "$m")"
echo
logs=$run/share/out/fabric/logs
p=$logs/bh-k$K-mroce
if [ -f "$p.peers0" ] && [ -f "$p.peers1" ] && [ -f "$p.peers2" ]; then
	echo "== the mroce connection's paths through the black hole (debugfs peers, 1 s before it, 1 s after, at the end):"
	echo "   health before -> after -> end, and what the black hole cost each path: timeouts, resends, repaths (new ports)"
	awk '/^  path / { for (i = 1; i < NF; i++) v[$i] = $(i + 1); k = v["path"]
		if (FILENAME ~ /peers0$/) { h0[k] = $7; r0[k] = v["retx"]; p0[k] = v["repath"]; t0[k] = v["rto#"]; next }
		if (FILENAME ~ /peers1$/) { h1[k] = $7; next }
		printf "  path %-2s %-7s -> %-7s -> %-7s resent %-5d repaths %-3d port now %s\n",
			k, h0[k], h1[k], $7, v["retx"] - r0[k], v["repath"] - p0[k], v["sport"] }' \
		"$p.peers0" "$p.peers1" "$p.peers2"
	echo "  (a path whose port hashes onto the dead spine times out, takes a new port, comes back on a live spine)"
	echo
fi
echo "== timeline of both drivers' goodput through the black hole: $ROOT/$OUT/blackhole-k$K.png"
echo "== every figure, and how it was measured: $ROOT/$OUT/README.md"
