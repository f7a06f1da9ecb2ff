#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Simulator benchmarks: MetaRoCE beside the RoCEv2 baseline.
#
#   scripts/bench-sim.sh [OUTDIR]        (default bench/results/sim)
#
# Builds the simulator (tests/sim), runs every figure (mroce-sim bench),
# plots the TSV with gnuplot (Debian's gnuplot-nox), measures the engine's
# cost per packet (scripts/bench-cost.sh, callgrind) and writes
# OUTDIR/README.md: each figure next to its goal and the baseline, with the
# commands that reproduce it. Simulated time only and fixed seeds: a rerun
# gives the same numbers. A few seconds of CPU for the figures, about one
# for callgrind, a few more for the rto_min sensitivity table.
set -eu
cd "$(dirname "$0")/.."
out=${1:-bench/results/sim}
mkdir -p "$out"
make -s -C tests/sim >/dev/null
build/sim/mroce-sim bench "$out"

plot() {
	command -v gnuplot >/dev/null || { echo "gnuplot missing: no plots" >&2; return 0; }
	gnuplot -e "dir='$out'" - <<'GP'
set terminal pngcairo size 800,480 font ",10"
set grid
set key outside top center horizontal
set datafile separator "\t"

set output dir.'/loss.png'
set title 'Goodput vs random loss on every spine link (8 spines)'
set xlabel 'loss per spine link (%)'
set ylabel 'goodput / lossless goodput'
set yrange [0:1.05]
set style data linespoints
plot dir.'/loss.tsv' using 0:4:xtic(1) title 'MetaRoCE (8 paths)' lw 2, \
     '' using 0:7 title 'RoCEv2 baseline (1 QP, go-back-N)' lw 2, \
     0.9 with lines dt 2 lc rgb 'gray' title 'goal at 1 %'

set output dir.'/blackhole.png'
set title 'One of 8 spines black-holed at t = 1000 us (10 us windows)'
set xlabel 'time (us)'
set ylabel 'goodput (Gbit/s)'
set yrange [0:110]
set xrange [900:1500]
set style data lines
plot dir.'/blackhole_mroce.tsv' using 1:2 title 'MetaRoCE' lw 2, \
     dir.'/blackhole_rocev2_1qp.tsv' using 1:2 title 'RoCEv2, 1 QP' lw 1, \
     dir.'/blackhole_rocev2_8qp.tsv' using 1:2 title 'RoCEv2, 8 QPs' lw 1

set output dir.'/reorder.png'
set title 'Paths of different lengths, nothing lost: spurious retransmissions'
set xlabel 'slowest path RTT (us); fastest 9.4 us'
set ylabel 'retransmitted / data packets (%)'
set autoscale
set yrange [0:1.5]
set style data linespoints
plot dir.'/reorder.tsv' using 2:3 title 'MetaRoCE' lw 2, \
     1 with lines dt 2 lc rgb 'gray' title 'goal'

set output dir.'/incast_queue.png'
set title '16:1 incast: receiver port queue'
set xlabel 'time (us)'
set ylabel 'queue (KiB)'
set xrange [0:*]
set style data lines
plot dir.'/incast_mroce.tsv' using 1:2 title 'MetaRoCE, hints' lw 2, \
     dir.'/incast_mroce_nohint.tsv' using 1:2 title 'MetaRoCE, no hints', \
     dir.'/incast_rocev2.tsv' using 1:2 title 'RoCEv2 baseline'

set output dir.'/incast_flows.png'
set title '16:1 incast, MetaRoCE with hints: each sender (50 us windows)'
set ylabel 'goodput (Gbit/s)'
set xrange [0:1500]
unset key
plot for [i=4:19] dir.'/incast_mroce.tsv' using 1:i lw 1
GP
}
plot
scripts/bench-cost.sh --md >"$out/cost.md"

# the engine's rto_min against the figures it governs (a sensitivity study)
sens="loss blackhole reorder incast"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in 30 20 15; do
	mkdir -p "$tmp/$r"
	build/sim/mroce-sim bench "$tmp/$r" --rto-min-us "$r" $sens 2>/dev/null
done
sensitivity() {
	printf '| figure | rto_min 50 us (default) | 30 us | 20 us | 15 us |\n|---|---|---|---|---|\n'
	for k in loss_ratio_5pct loss_ratio_10pct blackhole_recovery_7of8_rtt \
		 blackhole_gate_stall_rtt reorder_spurious_pct_skew2000 \
		 reorder_spurious_pct_skew4000 incast_hint_rtt incast_fair_rtt incast_drops; do
		printf '| %s |' "$k"
		for f in "$out/figures.tsv" "$tmp/30/figures.tsv" "$tmp/20/figures.tsv" "$tmp/15/figures.tsv"; do
			printf ' %s |' "$(awk -v k="$k" '$1 == k {print $2}' "$f")"
		done
		printf '\n'
	done
}

{
	cat <<HDR
# Simulator benchmarks

Every figure below comes from the deterministic fabric simulator
(tests/sim) running the unmodified engine (kernel/engine) in each host
through the model embedder (tests/unit/model.c), beside a RoCEv2 baseline
(tests/sim/baseline.c: one path per QP, go-back-N, DCTCP-style ECN window
with the engine's constants, pulled by the NIC at line rate). Simulated
time, fixed seeds: rerunning gives the same numbers.

Reproduce everything: \`scripts/bench-sim.sh\` (this file and the plots), or
one figure: \`make -C tests/sim && build/sim/mroce-sim bench DIR loss\`
(loss, blackhole, reorder, incast, streams); the engine cost:
\`scripts/bench-cost.sh\`. A single scenario with its counters:
\`build/sim/mroce-sim run --help\`.

Parameters (tests/sim/scenario.h): 100 Gbit/s links, 1 us propagation per
hop, switch ports with 512 KiB of buffer (tail drop) and ECN marking above
64 KiB, 4 KiB payload per packet, 66 bytes of Ethernet/IP/UDP framing,
preamble and gap per packet. Host - leaf - spine - leaf - host: unloaded RTT
9.4 us, bandwidth-delay product about 120 KB. ECMP hashes the 5-tuple with
the UDP source port, keyed per switch. Engine: mre_config_default() with
link_mbps = the host's line rate (rate hints on, hint_pct 95), nplanes =
the planes, tx_burst 1 (the simulated NIC pulls one packet at a time when
its queue has room, so packets are built and timestamped when the wire can
take them). Everything else is the engine's default (rto_min 50 us,
reorder_pkts 3, init_cwnd 16 per path, probe_min 200 us, ...).

HDR
	cat "$out/summary.md"
	cat <<COST
## Engine cost per data packet

\`scripts/bench-cost.sh\`: one 16 MiB WRITE through two engines (default
configuration, no loss) under valgrind --tool=callgrind, counting only the
transfer; the driver (tests/sim/cost.c) calls mre_conn_run() once per
received packet and at deadlines, as the engine's contract asks. Divided by
the data packets, each sent once and received once, so a figure is the cost
of one packet sent plus one received, with its share of ACKs (about one per
two packets), timers and completions. The count repeats exactly run to run.

COST
	cat "$out/cost.md"
	losses=$(build/sim/mroce-sim run --topo incast --nsend 16 --bytes 4194304 |
		awk '{for (i = 1; i < NF; i++) if ($i == "loss_fast" || $i == "loss_rto") printf "%s%s %s", n++ ? ", " : "", $i, $(i + 1)}')
	sed "s/INCAST_LOSSES/$losses/" <<'LIMITS'

## What limits the goals that are missed

Black hole (goal <= 3 RTTs). Packets on a path through the dead spine are
found lost only when that path's RTO fires: no later PSN of the path is
ever SACKed, so FACK cannot see the loss, and rto_min (50 us, 5.3 unloaded
RTTs) bounds the RTO from below. Until then the TSNs stuck there hold the
completion gate; the workload keeps 16 WRITEs of 64 KiB posted, and when
all of them are sent and none can complete, the sender has nothing left to
send (the dip to 0 in the table). After its RTO a path is SUSPECT on a new
source port and keeps carrying data (protocol.md 6.6); when the new port
again hashes onto the dead spine (1 in 8 here), its next packet waits for a
doubled RTO (seed 4, path 5: `build/sim/mroce-sim run --bytes 0 --end-us
1300 --blackhole-us 1000 --seed 4 --sample-ns 2000 --paths`). From the
code, not measured here: the receiver sends a path's ACKs on its own path
of the same id, whose source port only changes when the receiver itself
times out on that path, so a black hole on the reverse route alone would
keep the path failed (its probes' ACKs take the same route) while the
other paths carry the load.

16:1 incast (goal <= 2 RTTs). Until the hints hold (the hint convergence
in the table above) every sender sends at line rate up to its
initial connection window, init_cwnd x npaths = 128 packets (about 4
bandwidth-delay products): 16 of them overflow the 512 KiB buffer. The
drops are found mostly by path RTOs, not by FACK: a sender's fair share is
spread over 8 paths, so each path carries a packet every ~45 us and three
later PSNs on the same path come too late (`build/sim/mroce-sim run --topo
incast --nsend 16 --bytes 4194304`: INCAST_LOSSES). Once the
hints hold, the senders together pace at hint_pct = 95 % of the line, so
the queue built in the first RTTs drains at about 5 % of line rate (512 KiB
in ~800 us): hence the time above K.

Paths of different lengths (goal met, < 1 %, but not for free). From 2 us
of skew per spine (slowest path RTT 65 us), the few spurious
retransmissions are RTOs of paths that have no RTT sample of their own and
use the largest RTO measured on a sibling (50 us, from the short paths),
shorter than their own round trip. The goodput loss is the connection
window: 128 packets at the start and +1 per window of ACKs (no slow start
at the connection level), against round trips up to 121 us (`run --bytes
33554432 --skew-ns 4000 --paths` shows the connection's packets in flight
equal to its window).

rto_min against the figures it governs (`build/sim/mroce-sim bench DIR
--rto-min-us N loss blackhole reorder incast`; the baseline's timer
follows it too). Loss ratios are of the lossless goodput; black hole and incast in unloaded RTTs
(incast from the handshake; -1: never); reorder in % of data packets:

LIMITS
	sensitivity
	echo
} >"$out/README.md"
rm -f "$out/summary.md" "$out/cost.md"
echo "wrote $out/README.md"
