# shellcheck shell=bash
# Guest soak (issue 29): for a stated time, in rounds, a verifying transfer
# (mroce-xfer: every byte checked) between mA (nsA) and mB (nsB) over the
# veth pair of topo_netns, while the script cycles impairments on the link:
#
#   loss       netem loss 1-5 % (both veth ends)
#   reorder    netem delay 100-500 us, reorder 10-40 % 50 %
#   duplicate  netem duplicate 1-5 %
#   mix        loss 1-3 %, duplicate 1-3 %, delay 200 us reorder 25 % 50 %
#   flap       one side (vA or vB, in turn) down 0.3-2.0 s, then up: well
#              under dead_ms, so the connection must ride it out
# and, every few rounds:
#   cold delete  (every cold_every rounds, before the transfer) rdma link
#              delete of one device (mA or mB, in turn) and rdma link add of
#              it again: the round's transfer runs on the new device
#   long flap  (every long_every rounds, mid-transfer) one side down for
#              dead_ms + 2 s: the connection fails (dead), the transfer ends
#   hot delete (every hot_every rounds, mid-transfer) rdma link delete of
#              one device under the running transfer (its user context is
#              disassociated), added again after the transfer ended
# Each step holds 2-4 s, with 0.5 s clean between steps; kinds go round in
# turn, their parameters drawn from seed (the schedule replays with it).
#
# The verdict of a round's transfer (client and server exit status, the
# client's "xfer:" line, MISMATCH lines):
#   - corrupted: any corrupted byte or checksum mismatch, in any round,
#     whatever else happened: a failure;
#   - completed: both exited 0 with 0 corrupted bytes, 0 checksum
#     mismatches, 0 errors;
#   - interrupted: it ended with an error in a round where a long flap or a
#     hot delete struck while it was still running and had reported no
#     error: expected, counted, not a failure (its bytes verified before the
#     error count too);
#   - failed: it ended with an error in any other round (loss, reorder,
#     duplication, short flaps: a live link) or before the long flap / hot
#     delete struck; or it did not end within its time limit (pair's
#     stuck report): a failure.
# Per round, also: the kernel log written during the round has no WARNING,
# BUG, Oops, KASAN/UBSAN report, lockdep splat, list corruption, soft
# lockup, RCU stall or hung task (soft lockup after 10 s, RCU stall after
# 10 s, hung task after 30 s); both ports come back ACTIVE after the round.
# Overall: MemAvailable shrank and Slab grew by less than mem_limit_mib from
# the end of round 1 to the end of the last round (caches dropped before
# each reading); at the end both devices are deleted and rmmod mroce
# succeeds; the whole kernel log of the run is clean.
# Figures ("# soak:" lines): rounds, transfers completed / interrupted /
# failed, operations and bytes verified, each impairment's count, a few
# transport counters summed over the rounds, memory before / after.
#
#   scripts/vm/run-guest.sh -P -t 900 -n soak tests/vm/soak.sh -- secs=240
#   scripts/vm/run-guest.sh -P -t 4200 -n soak-hour tests/vm/soak.sh -- secs=3600
#     secs=3600        run rounds until this much time has passed (a round
#                      started before it ends; the last one may overrun)
#     round_s=20       impairment time per round (the transfer runs as
#                      long, then until it finishes its batch)
#     seed=N           schedule and mroce-xfer seeds (printed)
#     cold_every=3 long_every=7 hot_every=5   (0: never)
#     dead_ms=5000     mroce's dead_ms (module parameter)
#     mem_limit_mib=16
#
# Logs: $RIG_OUT/soak/ (scripts/vm/runs/NAME/share/out/soak/ on the host):
# rN.{srv,cli,rc} per round's transfer, rN-pair.out (pair's report),
# rN-steps (the impairments applied, with times), kmsg (the kernel log).
. /mnt/host/lib.sh
PAIR_LOG=${RIG_OUT:-/tmp}/soak
. /mnt/host/topo.sh

SECS=3600 ROUND_S=20 SEED=$RANDOM COLD_EVERY=3 LONG_EVERY=7 HOT_EVERY=5 DEAD_MS=5000 MEM_LIMIT_MIB=16
for a in "$@"; do
	case $a in
	secs=*) SECS=${a#*=};; round_s=*) ROUND_S=${a#*=};; seed=*) SEED=${a#*=};;
	cold_every=*) COLD_EVERY=${a#*=};; long_every=*) LONG_EVERY=${a#*=};; hot_every=*) HOT_EVERY=${a#*=};;
	dead_ms=*) DEAD_MS=${a#*=};; mem_limit_mib=*) MEM_LIMIT_MIB=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
RANDOM=$SEED	# the schedule below draws from bash's generator
SIZES=(4096 65536 1048576)	# mroce-xfer -m, in turn per round
KINDS=(loss reorder duplicate flap mix)
KBAD='WARNING:|BUG[: ]|Oops|RIP:|soft lockup|detected stall|RCU stall|rcu_.* stall|KASAN|UBSAN|possible circular|possible recursive|inconsistent lock|irq lock inversion|suspicious RCU|list_add corruption|list_del corruption|ODEBUG|hung_task|blocked for more than|general protection'
KMSG=$PAIR_LOG/kmsg
declare -A IMP TOT

ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
mem_kib() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
	awk '/^MemAvailable:/ {a = $2} /^Slab:/ {s = $2} /^SUnreclaim:/ {u = $2} END {print a, s, u}' /proc/meminfo; }
ns_of() { [ "$1" = "$C_DEV" ] && echo nsA || echo nsB; }
if_of() { [ "$1" = "$C_DEV" ] && echo "$C_IF" || echo "$S_IF"; }
nsx() { local n=$1; shift; /usr/sbin/ip netns exec "$n" "$@"; }

dev_add() {	# dev_add DEV: rdma link add it on its veth end, wait until usable
	nsx "$(ns_of "$1")" rdma link add "$1" type mroce netdev "$(if_of "$1")" || return 1
	devs_ready
}
devs_ready() {	# both ports ACTIVE and their IPv4 GIDs there; sets CG, SG
	t_wait 15 port_active "$C_DEV" && t_wait 15 port_active "$S_DEV" &&
		t_wait 15 gid_index "$C_DEV" "$C_IP" >/dev/null &&
		t_wait 15 gid_index "$S_DEV" "$S_IP" >/dev/null || return 1
	CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")
}
links_up() {
	nsx nsA ip link set "$C_IF" up; nsx nsB ip link set "$S_IF" up
}

step_log() { NSTEPS=$((NSTEPS + 1)); note "$@"; }
note() { echo "+$(( ($(ms) - T0) / 1000 ))s $*" >> "$PAIR_LOG/r$R-steps"; }
hold() { sleep "$1"; }

# one impairment step, KIND in turn; the transfer runs all along
step() {
	local kind=${KINDS[KI % ${#KINDS[@]}]} p q d r side t
	KI=$((KI + 1))
	case $kind in
	loss) p=$((1 + RANDOM % 5)); netem_on loss "$p%" && step_log "loss $p%";;
	reorder) d=$((100 + RANDOM % 401)) r=$((10 + RANDOM % 31))
		netem_on delay "${d}us" reorder "$r%" 50% && step_log "delay ${d}us reorder $r% 50%";;
	duplicate) p=$((1 + RANDOM % 5)); netem_on duplicate "$p%" && step_log "duplicate $p%";;
	mix) p=$((1 + RANDOM % 3)) q=$((1 + RANDOM % 3))
		netem_on loss "$p%" duplicate "$q%" delay 200us reorder 25% 50% &&
			step_log "loss $p% duplicate $q% delay 200us reorder 25% 50%";;
	flap) t=$((300 + RANDOM % 1701))
		side=$([ $((FLAPS % 2)) = 0 ] && echo nsA:"$C_IF" || echo nsB:"$S_IF"); FLAPS=$((FLAPS + 1))
		step_log "flap ${side#*:} down ${t} ms"
		nsx "${side%:*}" ip link set "${side#*:}" down
		sleep "$(printf '%d.%03d' $((t / 1000)) $((t % 1000)))"
		nsx "${side%:*}" ip link set "${side#*:}" up
		IMP[flap]=$((${IMP[flap]:-0} + 1)); FLAP_MS=$((FLAP_MS + t))
		t_wait 10 port_active "$C_DEV"; t_wait 10 port_active "$S_DEV"
		hold 1; return;;
	esac
	IMP[$kind]=$((${IMP[$kind]:-0} + 1))
	hold $((2 + RANDOM % 3))
	netem_off
	hold 0.5
}

# the transfer still runs and has reported no error: a disruption now
# interrupts it (else it had already ended, or failed, on its own)
xfer_live() { kill -0 "$XP" 2>/dev/null && ! grep -q '^ERROR' "$PAIR_LOG/r$R.cli" 2>/dev/null; }

long_flap() {
	local t=$((DEAD_MS + 2000)) side
	side=$([ $((LONGS % 2)) = 0 ] && echo nsA:"$C_IF" || echo nsB:"$S_IF"); LONGS=$((LONGS + 1))
	if xfer_live; then DISRUPT="long flap"; else note "(long flap: the transfer had already ended)"; fi
	step_log "long flap ${side#*:} down ${t} ms"
	nsx "${side%:*}" ip link set "${side#*:}" down
	sleep "$(printf '%d.%03d' $((t / 1000)) $((t % 1000)))"
	nsx "${side%:*}" ip link set "${side#*:}" up
	IMP[long_flap]=$((${IMP[long_flap]:-0} + 1))
	t_wait 10 port_active "$C_DEV"; t_wait 10 port_active "$S_DEV"
}

hot_delete() {
	local t0 rc
	HOT_DEV=$([ $((HOTS % 2)) = 0 ] && echo "$C_DEV" || echo "$S_DEV"); HOTS=$((HOTS + 1))
	if xfer_live; then DISRUPT="hot delete of $HOT_DEV"; else note "(hot delete: the transfer had already ended)"; fi
	step_log "hot delete $HOT_DEV"
	t0=$(ms)
	timeout 60 /usr/sbin/ip netns exec "$(ns_of "$HOT_DEV")" rdma link delete "$HOT_DEV"; rc=$?
	t0=$(($(ms) - t0))
	note "hot delete $HOT_DEV: rc $rc, $t0 ms"
	IMP[hot_delete]=$((${IMP[hot_delete]:-0} + 1))
	t_ok "round $R: rdma link delete $HOT_DEV under the transfer returned ($t0 ms, limit 60 s)" test "$rc" = 0
}

cold_delete() {
	local d
	d=$([ $((COLDS % 2)) = 0 ] && echo "$C_DEV" || echo "$S_DEV"); COLDS=$((COLDS + 1))
	step_log "cold delete/add $d"
	IMP[cold_delete]=$((${IMP[cold_delete]:-0} + 1))
	t_ok "round $R: rdma link delete $d between transfers" nsx "$(ns_of "$d")" rdma link delete "$d"
	t_ok "round $R: rdma link add $d again, port ACTIVE, GIDs there" dev_add "$d"
}

# the verdict of round R's transfer in V: completed | interrupted | failed | corrupted
verdict() {
	local crc src line ops bytes cor mis err nm
	read -r crc src < "$PAIR_LOG/r$R.rc" 2>/dev/null || { crc=99 src=99; }
	line=$(grep -m1 -E '^xfer: [0-9]+ ops' "$PAIR_LOG/r$R.cli" 2>/dev/null)
	# xfer: N ops, B bytes verified, C bytes corrupted, M checksum mismatches, E errors (seed S)
	set -- $line
	ops=${2:-0} bytes=${4:-0} cor=${7:-0} mis=${10:-0} err=${13:-0}
	nm=$(cat "$PAIR_LOG/r$R.cli" "$PAIR_LOG/r$R.srv" 2>/dev/null | grep -c '^MISMATCH')
	XLINE=${line:-"(no xfer line)"}
	TOT[ops]=$((${TOT[ops]:-0} + ops)); TOT[bytes]=$((${TOT[bytes]:-0} + bytes))
	TOT[corrupted]=$((${TOT[corrupted]:-0} + cor + mis))
	if [ "$cor" != 0 ] || [ "$mis" != 0 ] || [ "$nm" != 0 ]; then V=corrupted
	elif [ -f "$PAIR_LOG/r$R.stuck" ]; then V=failed
	elif [ "$crc" = 0 ] && [ "$src" = 0 ] && [ -n "$line" ] && [ "$err" = 0 ]; then V=completed
	elif [ -n "$DISRUPT" ]; then V=interrupted
	else V=failed
	fi
}

# the kernel's own detectors, made to fire within a round
echo 5 > /proc/sys/kernel/watchdog_thresh
echo 10 > /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout 2>/dev/null
echo 30 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
mkdir -p "$PAIR_LOG"
cat /dev/kmsg > "$KMSG" 2>/dev/null &
KP=$!
echo "# kernel $(uname -r), $(nproc) cpus; soak for $SECS s, rounds of $ROUND_S s; seed $SEED; dead_ms $DEAD_MS;" \
	"cold delete every $COLD_EVERY, long flap every $LONG_EVERY, hot delete every $HOT_EVERY rounds"
M_START=$(mem_kib)
t_ok "install mroce" mroce_install
t_ok "load modules (dead_ms=$DEAD_MS)" bash -c ". /mnt/host/topo.sh; modprobe mroce dead_ms=$DEAD_MS && driver_load mroce"
topo_netns mroce || { echo "not ok - topology"; exit 1; }
# keep the IPv6 addresses over a flap (the topology stays as it was; the
# transfer uses the IPv4 GIDs)
nsx nsA sysctl -qw "net.ipv6.conf.$C_IF.keep_addr_on_down=1"
nsx nsB sysctl -qw "net.ipv6.conf.$S_IF.keep_addr_on_down=1"
t_ok "devices $C_DEV, $S_DEV up with their GIDs" devs_ready
devs_ready

T0=$(ms) R=0 KI=0 FLAPS=0 LONGS=0 HOTS=0 COLDS=0 FLAP_MS=0
NC=0 NI=0 NF=0
while [ $(($(ms) - T0)) -lt $((SECS * 1000)) ]; do
	R=$((R + 1)) DISRUPT="" HOT_DEV="" NSTEPS=0
	MAX=${SIZES[(R - 1) % ${#SIZES[@]}]}
	koff=$(stat -c %s "$KMSG")
	: > "$PAIR_LOG/r$R-steps"
	[ "$COLD_EVERY" -gt 0 ] && [ $((R % COLD_EVERY)) = 0 ] && cold_delete
	devs_ready || echo "# round $R: devices not ready: $(rdma link 2>&1 | tr '\n' ' ')"
	snap "$C_DEV" "$S_DEV"
	stop=/tmp/soak-stop; rm -f "$stop"
	tr0=$(ms)
	pair "r$R" $((ROUND_S + 150)) ready=tcp:18600 mroce-xfer -d "$S_DEV" -g "$SG" -T 30 -- \
		mroce-xfer -d "$C_DEV" -g "$CG" -n 10 -m "$MAX" -T 30 -S "$((SEED * 1000 + R))" -U "$stop" "$S_IP" \
		> "$PAIR_LOG/r$R-pair.out" 2>&1 &
	XP=$!
	t_wait 30 bash -c "rdma res show qp link $S_DEV/1 | grep -q 'type RC state RTS'" ||
		note "(the transfer's QP was not RTS within 30 s)"
	special=""
	[ "$LONG_EVERY" -gt 0 ] && [ $((R % LONG_EVERY)) = 0 ] && special="$special long_flap"
	[ "$HOT_EVERY" -gt 0 ] && [ $((R % HOT_EVERY)) = 0 ] && special="$special hot_delete"
	end=$(($(ms) + ROUND_S * 1000)) mid=$(($(ms) + ROUND_S * 1000 / 3))
	while [ "$(ms)" -lt "$end" ] && kill -0 "$XP" 2>/dev/null; do
		if [ -n "$special" ] && [ "$(ms)" -ge "$mid" ]; then
			for s in $special; do "$s"; done
			special=""
			continue
		fi
		if [ -n "$HOT_DEV" ]; then sleep 0.2; else step; fi
	done
	netem_off; links_up
	touch "$stop"
	wait "$XP"
	tx=$(( ($(ms) - tr0) / 1000 ))
	d=$(delta "$C_DEV" "$S_DEV")
	for c in tx_retx rto rx_dup_tsn conn_fail conn_open link_downed path_failed; do
		v=$(echo ",$d" | grep -o ",[^,]*\.$c=[0-9-]*" | awk -F= '{s += $2} END {print s + 0}')
		TOT[$c]=$((${TOT[$c]:-0} + v))
	done
	if [ -n "$HOT_DEV" ]; then
		dev_add "$HOT_DEV" > "$PAIR_LOG/r$R-add.out" 2>&1
		t_ok "round $R: $HOT_DEV added again after the hot delete" devs_ready
	fi
	verdict; v=$V
	case $v in
	completed) NC=$((NC + 1));; interrupted) NI=$((NI + 1));; *) NF=$((NF + 1));;
	esac
	echo "# round $R (+$(( (tr0 - T0) / 1000 )) s, ${tx} s, max $MAX): $NSTEPS impairment steps${DISRUPT:+, $DISRUPT}; $XLINE"
	t_ok "round $R: transfer $v${DISRUPT:+ (by the $DISRUPT)}" \
		test "$v" = completed -o "$v" = interrupted
	[ "$v" = completed ] || [ "$v" = interrupted ] || { sed 's/^/#   /' "$PAIR_LOG/r$R-pair.out" | head -40; sed 's/^/#   steps: /' "$PAIR_LOG/r$R-steps"; }
	[ "$v" = interrupted ] && grep -h -m2 '^ERROR' "$PAIR_LOG/r$R.cli" "$PAIR_LOG/r$R.srv" | sed 's/^/#   /'
	t_ok "round $R: both ports ACTIVE with their GIDs after the round" devs_ready
	sleep 0.5
	kb=$(tail -c +$((koff + 1)) "$KMSG" | grep -E "$KBAD" | head -3)
	[ -n "$kb" ] && echo "$kb" | sed "s/^/# round $R: kernel: /"
	t_ok "round $R: kernel log clean" test -z "$kb"
	m=$(mem_kib)
	cp /proc/meminfo "$PAIR_LOG/r$R-meminfo"
	[ "$R" = 1 ] && M_FIRST=$m
	M_LAST=$m
	set -- $m; echo "# round $R: MemAvailable $1 KiB, Slab $2 KiB, SUnreclaim $3 KiB"
done
ELAPSED=$(( ($(ms) - T0) / 1000 ))

# where the memory went: the /proc/meminfo fields that moved by 1 MiB or more
MI=$(awk 'NR == FNR {a[$1] = $2; next} ($1 in a) && ($2 - a[$1] >= 1024 || a[$1] - $2 >= 1024) {
	printf " %s%+d", $1, ($2 - a[$1]) / 1024} END {print ""}' "$PAIR_LOG/r1-meminfo" "$PAIR_LOG/r$R-meminfo")
echo "# meminfo from round 1 to round $R, MiB:${MI:- nothing moved by 1 MiB}"
set -- $M_FIRST $M_LAST
t_ok "memory bounded from round 1 to round $R: MemAvailable $(( ($4 - $1) / 1024 )) MiB, Slab $(( ($5 - $2) / 1024 )) MiB, SUnreclaim $(( ($6 - $3) / 1024 )) MiB (limit $MEM_LIMIT_MIB MiB)" \
	test $(($1 - $4)) -lt $((MEM_LIMIT_MIB * 1024)) -a $(($5 - $2)) -lt $((MEM_LIMIT_MIB * 1024))
t_ok "rdma link delete $C_DEV" nsx nsA rdma link delete "$C_DEV"
t_ok "rdma link delete $S_DEV" nsx nsB rdma link delete "$S_DEV"
t_ok "no mroce device left" bash -c "! rdma link show 2>/dev/null | grep -q .; ! ls /sys/class/infiniband/ 2>/dev/null | grep -q ."
t_ok "rmmod mroce (within 20 s)" t_wait 20 rmmod mroce
topo_netns_del
M_END=$(mem_kib)
sleep 0.5
kill "$KP" 2>/dev/null; wait "$KP" 2>/dev/null
KALL=$(grep -E "$KBAD" "$KMSG" | head -3)
[ -n "$KALL" ] && echo "$KALL" | sed 's/^/# kernel: /'
t_ok "kernel log clean over the whole run" test -z "$KALL"

echo "# soak: $R rounds in $ELAPSED s (seed $SEED); transfers $NC completed, $NI interrupted, $NF failed"
echo "# soak: ${TOT[ops]:-0} operations, ${TOT[bytes]:-0} bytes verified ($(( ${TOT[bytes]:-0} / 1048576 )) MiB), ${TOT[corrupted]:-0} corrupted bytes + checksum mismatches"
echo "# soak: impairments: loss ${IMP[loss]:-0}, reorder ${IMP[reorder]:-0}, duplicate ${IMP[duplicate]:-0}, mix ${IMP[mix]:-0}," \
	"flap ${IMP[flap]:-0} (${FLAP_MS} ms down in all), long flap ${IMP[long_flap]:-0}, cold delete/add ${IMP[cold_delete]:-0}, hot delete ${IMP[hot_delete]:-0}"
echo "# soak: counters over the rounds (both devices): tx_retx ${TOT[tx_retx]}, rto ${TOT[rto]}, rx_dup_tsn ${TOT[rx_dup_tsn]}," \
	"path_failed ${TOT[path_failed]}, conn_open ${TOT[conn_open]}, conn_fail ${TOT[conn_fail]}, link_downed ${TOT[link_downed]}"
set -- $M_START $M_FIRST $M_LAST $M_END
echo "# soak: memory (KiB; MemAvailable/Slab/SUnreclaim): before load $1/$2/$3, after round 1 $4/$5/$6, after round $R $7/$8/$9, after rmmod ${10}/${11}/${12}"
t_done
