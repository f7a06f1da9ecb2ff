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
# gives the same numbers. About seventeen minutes on 2 cores and 9 GiB at the
# peak (the fat-tree and scale figures run up to 8,192 hosts, one child
# process per run, one per CPU at a time; MRE_SIM_JOBS=1 halves the
# memory), a few seconds for the others, about one
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
(loss, blackhole, reorder, incast, streams, fattree, taildrop, planes, collective,
scale); one
fat-tree run with its counters: \`build/sim/mroce-sim fab NAME\` (no NAME:
the list); the engine cost:
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
reorder_pkts 3, init_cwnd 16 per path, conn_init_cwnd 8 per connection,
probe_min 200 us, ...).

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
The second table is \`mroce-cost small\`: a 2-byte WRITE, a 2-byte READ and an
8-byte FETCH_ADD in turn, each posted when the last completed, all of both
ends' work counted.

COST
	cat "$out/cost.md"
	losses=$(build/sim/mroce-sim run --topo incast --nsend 16 --bytes 4194304 |
		awk '{for (i = 1; i < NF; i++) if ($i == "loss_fast" || $i == "loss_rto") printf "%s%s %s", n++ ? ", " : "", $i, $(i + 1)}')
	sed "s/INCAST_LOSSES/$losses/" <<'LIMITS'

## What limits the figures

Black hole (goal <= 3 RTTs, met). A path through the dead spine is found
silent (protocol.md 6.3): its third unheard packet (silence_k on a clean
fabric, ack_freq + 1) is overdue by SRTT + max(4 RTTVAR, SRTT/4) while
packets sent after it on other paths were acknowledged. That is about one
RTT and two packet intervals of the path after the failure, instead of
rto_min (50 us); what it had out is resent elsewhere at once and it is
probed on new source ports (the receiver moves the route of its ACKs when
a probe comes in), and the 10 us goodput window is back a few us later.
What remains is the verdict itself: silence_k 2 would save a packet
interval (about 0.3 RTT here) but takes a single lost packet on a healthy
path for silence (at 0.1 % loss that cost 1 % of goodput), and on a lossy
fabric silence_k grows with the measured loss (16 from about 10 %), so
the detection slows there. Paths that never had an RTT sample (a hole
from the very start) are still judged by their RTO only.

16:1 incast (goal <= 2 RTTs). Hint convergence is met: connections count
as senders from their handshake, so the first ACKs already carry the
share of all 16, and paths without an RTT sample ask for immediate ACKs;
the last senders wait for their first packets to cross the queue that the
first RTT built. The first windows (conn_init_cwnd, 8 packets each, slow
start) fit the buffer together: no drops (`build/sim/mroce-sim run --topo
incast --nsend 16 --bytes 4194304`: INCAST_LOSSES). Delivered fairness
reads the floor of its measurement (Jain over 50 us windows, the first
ending 44 us after the handshake), so the 2-RTT goal cannot be shown by
it. The queue of about 490 KiB built in the first RTT drains at hint_pct
headroom, 5 % of line rate: hence the time above K. (A hint lowered by up
to 10 % more while arrivals are CE-marked was tried: time above K 326 ->
292 us only; not kept.)

Paths of different lengths (goal met, < 1 %). The connection window
slow-starts and takes the hinted rate times the slowest measured path's
SRTT at the first hint, so long paths no longer cap the goodput at +1 per
window. What spurious retransmissions remain (4 us of skew per spine) are
timeouts of paths without an RTT sample of their own: they time out on
the slowest measured sibling's RTO, and when every measured path is
shorter (`run --bytes 33554432 --skew-ns 4000 --seed 3 --paths`: two
paths of 26 us measured, six longer ones time out at about 110 us) each
resends what it has out once.

Start of a transfer: the first RTT carries 8 packets (conn_init_cwnd)
instead of a bandwidth-delay product, about 0.3 % of the lossless
goodput of a 32 MiB transfer (93.8 -> 93.4 Gbit/s); the loss ratios are of
that goodput.

Fat tree, permutation (goal: tail within 1.1x of uet-htsim's 200.5-203.4
us; missed, 1.58x). The median flow finishes near htsim's tail (245
us against an ideal of about 177); the tail is flows whose 8 paths
(npaths, the default; the engine allows 64, and 64 made it worse, 550 us,
as 64 paths x init_cwnd 16 overran the 1-BDP buffers) land on the same
congested core links. htsim's senders steer entropies away from marked
paths (REPS/bitmap over 128 entropies) and trim instead of dropping;
MetaRoCE moves a path only on loss (repath_loss_pct) or failure, and its
per-path windows shift load away from marked paths only slowly. ECN-guided
path choice is the next step. The oversubscribed cases come within
1.12x, where the bottleneck is the leaves' uplinks and spreading
matters less (1.12x both). One link at 25 % (core0 -> agg0) costs the
tail 322 -> 399 us: htsim's senders see the marks on that link and avoid
it; MetaRoCE's paths through it keep their ports (a slow path is neither
lost nor failed).

Fat tree, 1,023:1 incast (goal: tail within 1.1x of ideal, spread <= 2;
missed: 1.25x, spread about 70). Senders' connections were set up
before the flows start, so the handshake no longer counts them; each of
1,023 first windows meets a 43-packet buffer, and the senders whose
packets all drop know nothing until a probe gets in (stall timers, capped
at rto_init and jittered, protocol.md 6.3). The receiver counts senders
as their packets arrive (the activity period stretches with the count,
section 9), so those that got in first are offered more than their share
and finish early: hence the spread. htsim trims a packet to its header at
a full queue, which tells the receiver of every sender at once; the model
has no trimming.

Tail drop without ECN (16 flows: goals on goodput, fairness and planes
met; retransmissions missed, about 13 % against 5 %). A loss with a queue
behind it now halves the windows (protocol.md 9), which took 16 flows
from 80 % resent to 13 %, 4 flows from 52 % to 1.5 %, 1 flow from 19 %
to 0, and 2 and 4 planes to about 0.1 % and 0.02 %. What remains with 16
connections is that their fair windows (about 9 packets each) are sprayed
over 8 paths: a path holds one or two packets, so a drop is found by its
timer, not by later packets on the same path, and timers on a queue that
grows and shrinks also fire early (spurious resends). Loss detection
across paths (TSN SACK) or fewer paths for a small window would address
it; concentrating the window on fewer paths was tried and made fairness
worse (Jain 0.74), not kept.

Planes (goal: >= 0.95 of linear at 8; missed, 0.88; 0.99 at 2, 0.91 at
4). Not analysed yet. The goodput is read 150-300 us after the flows
start, and every connection starts at conn_init_cwnd and slow-starts
towards a window P times the one-plane one, over 32 paths shared by the
planes (4 per plane at 8), so more planes spend a larger share of the
measured time still growing; a longer run would tell that apart from a
steady-state limit. Plane failure: nothing lost or placed twice; the dead
plane's paths are found silent within about an RTT and fail, what they had
out is resent on the others at once, and the 185 us back to 95 % of 3/4
are the surviving paths' windows growing into the capacity freed.

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
