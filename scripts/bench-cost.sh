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
# count MODE TOGGLE UNIT: run mroce-cost MODE under callgrind, collecting
# inside function TOGGLE; instructions by part, divided by the UNIT count
# that mroce-cost prints. Lines of the annotation:
# "1,234 (12.3%)  /path/file.c:function [/binary]"
count() {
	valgrind --tool=callgrind --toggle-collect="$2" \
		--callgrind-out-file="$tmp/$1.cg" build/sim/mroce-cost ${1:+"$1"} >"$tmp/$1.out" 2>"$tmp/vg.err"
	n=$(awk -v u="$3" '$1 == u {print $2}' "$tmp/$1.out")
	callgrind_annotate --auto=no --threshold=100 "$tmp/$1.cg" |
	awk -v n="$n" -v unit="$3" -v md="$md" '
	/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
	/^ *[0-9,]+ +\(/ && /:/ {
		k = $1; gsub(",", "", k)
		if ($0 ~ /kernel\/engine\//) engine += k
		else if ($0 ~ /tests\/unit\/model\.c/) model += k
	}
	END {
		big = unit == "data_sent"
		if (md == "--md") {
			if (big)
				printf "| per data packet (sent + received) | instructions |\n|---|---|\n"
			else
				printf "\n| per small operation (WRITE, READ, FETCH_ADD in turn) | instructions |\n|---|---|\n"
			printf "| engine (kernel/engine/) | %.0f |\n", engine / n
			printf "| embedder callbacks (model.c) | %.0f |\n", model / n
			if (big)
				printf "| other (libc payload copies, driver) | %.0f |\n", (total - engine - model) / n
			printf "| total | %.0f |\n\n", total / n
			if (big)
				printf "%d data packets of 4 KiB, %d instructions in all.\n", n, total
			else
				printf "%d small operations, one at a time.\n", n
		} else if (big) {
			printf "data packets        %d\n", n
			printf "engine instr/pkt    %.0f\n", engine / n
			printf "embedder instr/pkt  %.0f\n", model / n
			printf "other instr/pkt     %.0f\n", (total - engine - model) / n
			printf "total instr/pkt     %.0f\n", total / n
		} else {
			printf "small operations    %d\n", n
			printf "engine instr/op     %.0f\n", engine / n
			printf "embedder instr/op   %.0f\n", model / n
			printf "total instr/op      %.0f\n", total / n
		}
	}'
}
md=${1:-}
count "" cost_transfer data_sent
count small cost_small small_ops
