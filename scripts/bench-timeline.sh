#!/bin/bash
# Timelines of single operations: perftest on rdma_rxe and on mroce in ONE
# guest boot, the kernel's trace (scheduling, interrupts, hrtimers and
# timers, packets, the drivers' steps as kprobes) of K of the client's work
# requests in the middle of each run, turned on and marked per request from
# inside perftest by bench/meter/shim.c. Writes, per case and driver, the
# events per operation and the timeline of one operation
# (bench/meter/timeline.py). Tracing slows the guest: read the order and
# the counts of events, not the times. Not a timed test.
#
#   scripts/bench-timeline.sh [--help] [ARGS for bench/meter/guest.sh]
#     trace=8 (operations per run)  reps=1  drivers=rxe,mroce  params="K=V ..."
#     cases="write_lat read_lat send_lat atomic_lat write_bw_4k"
#   env: OUT=bench/results/guest   TIMELINE.md goes there
#
# Needs `make module provider tools meter` and the rig image (scripts/vm/).
# The traces stay in scripts/vm/runs/NAME/share/out/meter/trace-*.txt.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
# the rig, the meter's build and the shim are bench-insn.sh's
exec "$(dirname "$0")/bench-insn.sh" --timeline "$@"
