# shellcheck shell=bash
# Guest A/B of two mroce builds in one boot: each round loads one module
# (insmod), makes the devices, runs the cases, removes it, then the other
# (the order alternates per round); perftest medians per variant. For
# before/after figures of a change that is too small to see across boots
# (Documentation/offload.rst, "The software datapath and its cost").
#
#   scripts/vm/run-guest.sh -P -f DIR -t 1500 bench/guest/ab-module.sh [-- ARGS]
#     DIR/mroce.ko is the "before" module (e.g. built from another
#     commit: git worktree add, make module); this tree's is "after"
#     rounds=3          rounds of every variant
#     swnic=1           a third variant: this tree's module with
#                       mroce_swnic running both devices (the hook in use)
#     scale=1           multiplies the message counts
#     cases=NAME,...    only these cases (default: all of CASES below)
#     loss=1%           netem loss of the *_loss* cases (vethA's egress,
#                       the data direction, as bench/guest/bench.sh)
#     before_params=P   "before" is this tree's module loaded with the
#                       module parameters P (e.g. "loop_direct=N"; no -f
#                       DIR needed): A/B of a parameter in one boot
#
# *_lo cases run both QPs on mA (its own address: loopback).
# Devices mA / mB on vethA / vethB in init_net (topo_init). Output: one
# "# round R VARIANT CASE: FIGURE" line per run, then a table of medians
# with min-max and after/before; raw lines in $RIG_OUT/ab/raw.tsv.
. /mnt/host/lib.sh
. /mnt/host/topo.sh

ROUNDS=3 SWNIC=1 SCALE=1 ONLY='' LOSS=1% BEFORE=${BEFORE:-} BPARAMS=
for a in "$@"; do
	case $a in
	rounds=*) ROUNDS=${a#*=};; swnic=*) SWNIC=${a#*=};; scale=*) SCALE=${a#*=};;
	cases=*) ONLY=${a#*=};; loss=*) LOSS=${a#*=};;
	before_params=*) BPARAMS=${a#*=};;
	"") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
[ -n "$BEFORE" ] || [ -n "$BPARAMS" ] || BEFORE=$(find /mnt/host -mindepth 2 -name mroce.ko | head -1)
# name | perftest program and options | metric (bw MB/s or lat t_typical us;
# mroce-xfer -L, a ping-pong of WRITEs with immediate, the steps of a
# collective, which perftest cannot post: xp99 its 99th percentile, xavg
# its mean, us)
CASES="
write_bw_4k|ib_write_bw -s 4096 -n 5000|bw
send_bw_4k|ib_send_bw -s 4096 -n 5000|bw
write_lat_2|ib_write_lat -s 2 -n 2000|lat
send_lat_2|ib_send_lat -s 2 -n 2000|lat
read_lat_2|ib_read_lat -s 2 -n 2000|lat
atomic_lat|ib_atomic_lat -n 2000|lat
read_bw_4k|ib_read_bw -s 4096 -n 5000|bw
write_lat_2_lo|ib_write_lat -s 2 -n 2000|lat
write_bw_64k_lo|ib_write_bw -s 65536 -n 1000|bw
write_bw_64k_loss|ib_write_bw -s 65536 -n 300|bw
write_bw_4k_loss|ib_write_bw -s 4096 -n 5000|bw
wimm_64k_loss|mroce-xfer -L 65536 -n 300|xp99
wimm_64k_loss_avg|mroce-xfer -L 65536 -n 300|xavg
wimm_4k_loss|mroce-xfer -L 4096 -n 1000|xp99
"
if [ -n "$ONLY" ]; then
	CASES=$(grep -E "^(${ONLY//,/|})\|" <<<"$CASES")
	[ -n "$CASES" ] || { echo "cases=$ONLY: no such case" >&2; exit 2; }
fi
O=${RIG_OUT:-/tmp}/ab
PAIR_LOG=$O/logs; mkdir -p "$PAIR_LOG"
R=$O/raw.tsv
printf 'round\tvariant\tcase\tfigure\n' > "$R"

if [ -n "$BPARAMS" ]; then
	echo "# before: this tree's module with $BPARAMS"
else
	t_ok "before module present ($BEFORE)" test -f "$BEFORE"
fi
t_ok "install module and provider" mroce_install
# insmod loads no dependencies: modprobe this tree's mroce once for them
t_ok "modules (and mroce's dependencies)" bash -c 'modprobe -a ib_uverbs rdma_ucm veth sch_netem mroce && rmmod mroce'
topo_init && t_ok "veth pair in init_net" test -n "$S_IP"

load() {	# load VARIANT: the module(s) and devices mA, mB
	case $1 in
	before) if [ -n "$BPARAMS" ]; then
			# shellcheck disable=SC2086
			modprobe mroce $BPARAMS || return 1
		else
			insmod "$BEFORE" || return 1
		fi;;
	after) modprobe mroce || return 1;;
	swnic) modprobe mroce && modprobe mroce_swnic netdevs='*' || return 1;;
	esac
	rdma link add mA type mroce netdev vethA && rdma link add mB type mroce netdev vethB &&
		t_wait 10 gid_index mA "$C_IP" > /dev/null && t_wait 10 gid_index mB "$S_IP" > /dev/null
}
unload() {
	rdma link delete mA; rdma link delete mB
	rmmod mroce_swnic 2>/dev/null
	rmmod mroce
}

# perftest calibrates the TSC at start; under TCG that sometimes fails
# ("Correlation coefficient r^2 < 0.9", 0.00 MB/s): such a run is repeated,
# twice at most
run() {	# run ROUND VARIANT CASE
	local line prog metric args=() i fig name cg sg try sdev=mB sip=$S_IP
	line=$(grep "^$3|" <<<"$CASES")
	IFS='|' read -r _ prog metric <<<"$line"
	read -r -a args <<<"$prog"
	for ((i = 2; i < ${#args[@]}; i++)); do
		[ "${args[i-1]}" = -n ] && args[i]=$((args[i] * SCALE))
	done
	cg=$(gid_index mA "$C_IP") sg=$(gid_index mB "$S_IP")
	[[ $3 == *_lo ]] && sdev=mA sip=$C_IP sg=$cg
	for try in 1 2 3; do
		name=$2-$3-$1-$try
		[[ $3 == *_loss* ]] && tc qdisc replace dev vethA root netem loss "$LOSS"
		if [ "${args[0]}" = mroce-xfer ]; then
			C_DEV=mA S_DEV=$sdev pair "$name" $((120 * SCALE)) ready=tcp:18600 \
				"${args[@]}" -d "$sdev" -g "$sg" -- \
				"${args[@]}" -d mA -g "$cg" "$sip" > "$PAIR_LOG/$name.fail" 2>&1
		else
			C_DEV=mA S_DEV=$sdev pair "$name" $((120 * SCALE)) "${args[@]}" -d "$sdev" -x "$sg" -F -- \
				"${args[@]}" -d mA -x "$cg" -F "$sip" > "$PAIR_LOG/$name.fail" 2>&1
		fi
		[[ $3 == *_loss* ]] && tc qdisc del dev vethA root
		if [[ $metric == x* ]]; then
			fig=$(sed -n "s/^pingpong .* mean \([0-9.]*\) p99 \([0-9.]*\) .*/\1 \2/p" "$PAIR_LOG/$name.cli")
			[ "$metric" = xavg ] && fig=${fig% *} || fig=${fig#* }
		elif [ "$metric" = lat ]; then
			fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ {print $5; exit}' "$PAIR_LOG/$name.cli")
		else
			fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $4; exit}' "$PAIR_LOG/$name.cli")
		fi
		case $fig in ""|0.00|inf|-nan) fig=FAIL;; esac
		if [ "$fig" != FAIL ] || ! grep -q 'Correlation coefficient' "$PAIR_LOG/$name.cli"; then
			break
		fi
	done
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$fig" >> "$R"
	echo "# round $1 $2 $3: $fig"
}

VARIANTS="before after"
[ "$SWNIC" = 1 ] && VARIANTS="$VARIANTS swnic"
for ((r = 1; r <= ROUNDS; r++)); do
	order=$VARIANTS
	[ $((r % 2)) = 0 ] && order=$(echo "$VARIANTS" | tr ' ' '\n' | tac | paste -sd' ')
	for v in $order; do
		if ! load "$v"; then
			echo "not ok - round $r: load $v"; T_FAIL=$((T_FAIL + 1)); unload; continue
		fi
		[ "$v" = before ] || grep -qx "$([ "$v" = swnic ] && echo mroce_swnic || echo software)" \
			/sys/class/infiniband/mA/datapath || echo "# round $r $v: unexpected datapath $(cat /sys/class/infiniband/mA/datapath)"
		while IFS='|' read -r c _; do
			[ -n "$c" ] && run "$r" "$v" "$c"
		done <<<"$CASES"
		unload
	done
done

# medians: "median [min-max]" per variant and case, and after/before
med() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "FAIL"; exit}
	m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%g [%g-%g]\n", m, a[1], a[NR]}'; }
echo "# case | ${VARIANTS// / | } | after/before$([ "$SWNIC" = 1 ] && echo " | swnic/after")"
while IFS='|' read -r c _ metric; do
	[ -n "$c" ] || continue
	row="$c ($metric)"
	declare -A M=()
	for v in $VARIANTS; do
		s=$(awk -F'\t' -v v="$v" -v c="$c" '$2==v && $3==c && $4!="FAIL" {print $4}' "$R" | med)
		M[$v]=${s%% *}
		row="$row | $s"
	done
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-"}'; }
	row="$row | $(ratio "${M[after]}" "${M[before]}")"
	[ "$SWNIC" = 1 ] && row="$row | $(ratio "${M[swnic]}" "${M[after]}")"
	echo "# $row"
done <<<"$CASES"
echo "# $(grep -c 'FAIL$' "$R") of $(($(grep -c . "$R") - 1)) runs gave no figure (perftest's calibration failed three times)"
topo_init_del
t_done
