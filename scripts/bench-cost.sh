#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Engine cost per data packet, in instructions, under callgrind.
#
#   scripts/bench-cost.sh [--md]
#
# Runs build/sim/mroce-cost (tests/sim/cost.c: one 16 MiB WRITE through two
# engines, no loss, default configuration) under
# valgrind --tool=callgrind, collecting only inside the transfer, and
# divides instructions by data packets (each sent once and received once,
# so a figure is the cost of sending one data packet plus receiving one,
# with their share of ACKs, timers and completions). Columns:
#   engine    functions whose code is in kernel/engine/ (the engine proper,
#             inlined helpers included)
#   embedder  tests/unit/model.c (the model host's callbacks)
#   other     the rest: libc memcpy/memset (payload copies), the driver
# Then the same for small operations (`mroce-cost small`: 1,000 each of a
# 2-byte WRITE, a 2-byte READ and an 8-byte FETCH_ADD, one at a time, each
# posted when the last completed): instructions per operation, both ends'
# packets, ACKs and timers included.
# Deterministic: the same build counts the same instructions every run.
# --md prints a markdown section instead of plain lines.
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
make -s -C tests/sim cost >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=callgrind --toggle-collect=cost_transfer \
	--callgrind-out-file="$tmp/cg.out" build/sim/mroce-cost >"$tmp/run.out" 2>"$tmp/vg.err"
pkts=$(awk '/^data_sent/ {print $2}' "$tmp/run.out")
callgrind_annotate --auto=no --threshold=100 "$tmp/cg.out" >"$tmp/ann.txt"
# lines: "1,234 (12.3%)  /path/file.c:function [/binary]"
awk -v pkts="$pkts" -v md="${1:-}" '
	/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
	/^ *[0-9,]+ +\(/ && /:/ {
		n = $1; gsub(",", "", n)
		if ($0 ~ /kernel\/engine\//) engine += n
		else if ($0 ~ /tests\/unit\/model\.c/) model += n
		else other += n
	}
	END {
		if (md == "--md") {
			printf "| per data packet (sent + received) | instructions |\n|---|---|\n"
			printf "| engine (kernel/engine/) | %.0f |\n", engine / pkts
			printf "| embedder callbacks (model.c) | %.0f |\n", model / pkts
			printf "| other (libc payload copies, driver) | %.0f |\n", (total - engine - model) / pkts
			printf "| total | %.0f |\n\n", total / pkts
			printf "%d data packets of 4 KiB, %d instructions in all.\n", pkts, total
		} else {
			printf "data packets        %d\n", pkts
			printf "engine instr/pkt    %.0f\n", engine / pkts
			printf "embedder instr/pkt  %.0f\n", model / pkts
			printf "other instr/pkt     %.0f\n", (total - engine - model) / pkts
			printf "total instr/pkt     %.0f\n", total / pkts
		}
	}' "$tmp/ann.txt"
valgrind --tool=callgrind --toggle-collect=cost_small \
	--callgrind-out-file="$tmp/cgs.out" build/sim/mroce-cost small >"$tmp/small.out" 2>"$tmp/vg.err"
ops=$(awk '/^small_ops/ {print $2}' "$tmp/small.out")
callgrind_annotate --auto=no --threshold=100 "$tmp/cgs.out" >"$tmp/anns.txt"
awk -v ops="$ops" -v md="${1:-}" '
	/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
	/^ *[0-9,]+ +\(/ && /:/ {
		n = $1; gsub(",", "", n)
		if ($0 ~ /kernel\/engine\//) engine += n
		else if ($0 ~ /tests\/unit\/model\.c/) model += n
	}
	END {
		if (md == "--md") {
			printf "\n| per small operation (WRITE, READ, FETCH_ADD in turn) | instructions |\n|---|---|\n"
			printf "| engine (kernel/engine/) | %.0f |\n", engine / ops
			printf "| embedder callbacks (model.c) | %.0f |\n", model / ops
			printf "| total | %.0f |\n\n", total / ops
			printf "%d small operations, one at a time.\n", ops
		} else {
			printf "small operations    %d\n", ops
			printf "engine instr/op     %.0f\n", engine / ops
			printf "embedder instr/op   %.0f\n", model / ops
			printf "total instr/op      %.0f\n", total / ops
		}
	}' "$tmp/anns.txt"
