#!/bin/bash
# NVMe over RDMA IOPS, mroce beside rdma_rxe in one boot of the storage
# image: tests/vm/nvme.sh's iops phase (4 KiB random reads, iodepth 32,
# one fio job per CPU, over nvme-rdma to nvmet-rdma on a null_blk, the two
# devices on a veth pair in init_net), the drivers interleaved with their
# order alternating, REPS times each; then each driver's median IOPS and
# I/O queue count and the ratio mroce/rxe. A figure, not a timed test.
#
#   scripts/vm/run-guest.sh -s -P -f tests/vm/nvme.sh -t 1200 -n nvme-iops \
#       bench/guest/nvme-iops.sh [-- reps=3 secs=10]
. /mnt/host/lib.sh

REPS=3 SECS=10
for a in "$@"; do
	case $a in
	reps=*) REPS=${a#reps=};;
	secs=*) SECS=${a#secs=};;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
OUT=/tmp/nvme-iops.tsv
: > "$OUT"

# iops K: "123k" or "4567" as a number
num() { awk -v v="$1" 'BEGIN {m = 1; if (v ~ /k$/) m = 1000; if (v ~ /M$/) m = 1e6;
	sub(/[kM]$/, "", v); printf "%d\n", v * m}'; }

for ((r = 1; r <= REPS; r++)); do
	order="mroce rxe"
	[ $((r % 2)) = 0 ] && order="rxe mroce"
	for d in $order; do
		log=/tmp/nvme-iops-$d-$r.log
		bash /mnt/host/nvme.sh driver=$d phases=iops removal=0 iops_secs="$SECS" > "$log" 2>&1
		line=$(grep -m1 '^# iops (' "$log")
		v=$(sed -n 's/.*IOPS=\([^,]*\),.*/\1/p' <<<"$line")
		q=$(sed -n 's/.*, \([0-9]*\) I\/O queues.*/\1/p' <<<"$line")
		echo "# rep $r $d: ${line:-no iops line} ($(tail -1 "$log"))"
		grep -E '^not ok' "$log" | sed 's/^/#   /'
		[ -n "$v" ] && printf '%s\t%s\t%s\t%s\n' "$d" "$r" "$(num "$v")" "$q" >> "$OUT"
	done
done

med() { awk -F'\t' -v d="$1" '$1 == d {print $3}' "$OUT" | sort -n |
	awk '{a[NR] = $1} END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else print 0}'; }
queues() { awk -F'\t' -v d="$1" '$1 == d {print $4; exit}' "$OUT"; }
m=$(med mroce) x=$(med rxe)
echo "| driver | I/O queues | IOPS (median of $REPS) |"
echo "|---|---:|---:|"
echo "| rdma_rxe | $(queues rxe) | $x |"
echo "| mroce | $(queues mroce) | $m |"
echo "mroce/rxe: $(awk -v a="$m" -v b="$x" 'BEGIN {printf "%.2f", b ? a / b : 0}')"
t_ok "every run gave a figure ($(wc -l < "$OUT") of $((2 * REPS)))" test "$(wc -l < "$OUT")" = $((2 * REPS))
t_done
