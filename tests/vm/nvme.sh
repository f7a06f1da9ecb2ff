#!/bin/bash
# Guest test of NVMe over Fabrics, RDMA transport, between two RDMA devices
# of one guest: the target (nvmet, configfs) exports a memory-backed null_blk
# on the server device's address, port 4420; the host (nvme-rdma) connects
# from the client device's address (host_traddr), and fio writes and
# verifies (randwrite 4k-128k, iodepth 16, libaio, O_DIRECT, crc32c,
# verify_fatal) in three phases:
#   lossless                          size=256M
#   netem loss 1% on both veth ends   lsize=64M
#   netem delay 100us reorder 25% 50% rsize=64M
# The first connect has one I/O queue per CPU (one completion vector each).
# Each phase: fio exits 0, 0 verify errors, no I/O timeout / error recovery /
# reconnect / keep-alive expiry in dmesg while it ran; MB/s and seconds are
# printed. Each phase has a wall-clock cap: a stalled transport fails the
# phase (fio is killed, the controller deleted) instead of hanging.
# Teardown: disconnect, nvmet config removed, `rdma res` counts of both
# devices back to what they were before. Then (removal=1) the devices go
# under running I/O: the host's with `rdma link delete`, the target's with
# its netdev; fio ends, the controller goes, no task hangs, no RDMA
# resource stays. Ends with "N passed, N failed".
# Kernel ULPs always use init_net, so this uses topo_init (both veth ends in
# init_net, policy routing through the veth) and not namespaces.
#
#   tests/vm/nvme.sh --boot [ARGS]    on the host: boot the storage image
#                                     (run-guest.sh -s) with this test
#   scripts/vm/run-guest.sh -s -P -t 1200 -n nvme-rxe tests/vm/nvme.sh -- driver=rxe
#                                     the same by hand (-P needs mroce.ko
#                                     built; for rxe alone
#                                     -f tests/vm/lib.sh -f tests/vm/topo.sh
#                                     does instead)
#   ARGS:
#     driver=mroce|rxe   (default mroce)
#     size=256M lsize=64M rsize=64M   fio sizes of the three phases (K/M/G)
#                        (on the debug kernel 64M, 16M, 16M)
#     loss=1%            netem loss of the lossy phase
#     cap=300            seconds a phase may take (fio's wall clock; x5 on
#                        the debug kernel)
#     phases=lossless,loss,reorder    which phases to run, in order; also
#                        iops: 4 KiB random reads over the first SIZE bytes,
#                        iodepth 32, one fio job per CPU, its IOPS printed
#                        (a figure, not asserted; bench/guest/nvme-iops.sh)
#     iops_secs=10       how long the iops phase reads
#     removal=1          then remove the devices under running I/O (0: not):
#                        the host's with `rdma link delete`, the target's by
#                        deleting its netdev; fio must end, the controller
#                        go, no task hang and no RDMA resource stay
#   env (--boot): GUEST_T=1200 guest time limit, RUN_NAME=nvme-DRIVER
# Logs: $RIG_OUT/nvme/ (scripts/vm/runs/NAME/share/out/nvme/): fio output
# of each phase, the dmesg of each phase.
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
	sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0
fi
if [ "${1:-}" = --boot ]; then
	shift
	exec "$(dirname "$0")/boot-storage.sh" "$0" 1200 "$@"
fi

. /mnt/host/lib.sh
LOG=${RIG_OUT:-/tmp}/nvme
PAIR_LOG=$LOG
mkdir -p "$LOG"
. /mnt/host/topo.sh

DRIVER=mroce SIZE=256M LSIZE=64M RSIZE=64M LOSS=1% CAP=300 PHASES=lossless,loss,reorder REMOVAL=1
# the debug kernel (T_SCALE 5): about 0.25 MB/s end to end, so a quarter
# of the data in 5 x the time (its run is for kernel reports, not figures)
if [ "${T_SCALE:-1}" -gt 1 ]; then SIZE=64M LSIZE=16M RSIZE=16M CAP=$((CAP * T_SCALE)); fi
IOPS_SECS=10
for a in "$@"; do
	case $a in
	driver=*) DRIVER=${a#*=};; size=*) SIZE=${a#*=};; lsize=*) LSIZE=${a#*=};;
	rsize=*) RSIZE=${a#*=};; loss=*) LOSS=${a#*=};; cap=*) CAP=${a#*=};;
	phases=*) PHASES=${a#*=};; removal=*) REMOVAL=${a#*=};; iops_secs=*) IOPS_SECS=${a#*=};; "") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
case $DRIVER in mroce) P=m;; rxe) P=r;; *) echo "driver=mroce|rxe" >&2; exit 2;; esac
NQN=nqn.2026-12.org.mroce:nvme-test
CFS=/sys/kernel/config
NB=$CFS/nullb/nvt0 SUB=$CFS/nvmet/subsystems/$NQN PORT=$CFS/nvmet/ports/1
BAD='I/O timeout|I/O [0-9]+ QID [0-9]+ timeout|[Rr]econnect|error recovery|keep-alive timer .* expired'

bytes() {	# bytes 64M: 67108864
	local n=${1%[KkMmGg]}
	case $1 in *[Kk]) echo $((n << 10));; *[Mm]) echo $((n << 20));; *[Gg]) echo $((n << 30));; *) echo "$n";; esac
}

if ! command -v fio >/dev/null; then
	echo "not ok - fio in the guest image (boot the storage image: run-guest.sh -s)"
	echo "0 passed, 1 failed"; exit 1
fi
[ "$DRIVER" = mroce ] && t_ok "install mroce" mroce_install
t_ok "load $DRIVER and the NVMe-oF modules" bash -c \
	". /mnt/host/topo.sh; driver_load $DRIVER && modprobe -a nvmet nvmet_rdma nvme_rdma && modprobe null_blk nr_devices=0"
grep -q " $CFS configfs" /proc/mounts || mount -t configfs none $CFS
topo_init || { echo "not ok - topology"; t_done; exit 1; }
C_DEV=${P}A S_DEV=${P}B
t_ok "devices $C_DEV on $C_IF (host), $S_DEV on $S_IF (target)" bash -c \
	"rdma link add $C_DEV type $DRIVER netdev $C_IF && rdma link add $S_DEV type $DRIVER netdev $S_IF"
t_ok "both ports ACTIVE" t_wait 10 bash -c "grep -q ACTIVE /sys/class/infiniband/$C_DEV/ports/1/state && grep -q ACTIVE /sys/class/infiniband/$S_DEV/ports/1/state"
t_ok "IPv4 RoCE v2 GIDs" t_wait 10 bash -c ". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP"
RES0_C=$(res_counts_nopool "$C_DEV") RES0_S=$(res_counts_nopool "$S_DEV")
echo "# rdma res before: $C_DEV: $RES0_C; $S_DEV: $RES0_S"

# --- target: null_blk (memory backed) -> nvmet subsystem -> rdma port ---
max=0
for s in "$SIZE" "$LSIZE" "$RSIZE"; do b=$(bytes "$s"); [ "$b" -gt "$max" ] && max=$b; done
NB_MB=$(((max >> 20) + 16))
target_up() {
	mkdir $NB && echo 1 > $NB/memory_backed && echo $NB_MB > $NB/size &&
		echo 4096 > $NB/blocksize && echo 1 > $NB/power || return 1
	# 6.1 names the disk after the configfs item (nvt0), older kernels nullbN
	t_wait 5 bash -c "test -b /dev/${NB##*/} || test -b /dev/nullb$(cat $NB/index)" || return 1
	NBDEV=/dev/${NB##*/}; [ -b "$NBDEV" ] || NBDEV=/dev/nullb$(cat $NB/index)
	mkdir $SUB && echo 1 > $SUB/attr_allow_any_host &&
		mkdir $SUB/namespaces/1 && echo -n "$NBDEV" > $SUB/namespaces/1/device_path &&
		echo 1 > $SUB/namespaces/1/enable || return 1
	mkdir $PORT && echo rdma > $PORT/addr_trtype && echo ipv4 > $PORT/addr_adrfam &&
		echo "$S_IP" > $PORT/addr_traddr && echo 4420 > $PORT/addr_trsvcid &&
		ln -s $SUB $PORT/subsystems/$NQN
}
target_down() {
	rm -f $PORT/subsystems/$NQN; rmdir $PORT
	[ -d $SUB/namespaces/1 ] && echo 0 > $SUB/namespaces/1/enable
	rmdir $SUB/namespaces/1; rmdir $SUB
	[ -d $NB ] && echo 0 > $NB/power
	rmdir $NB
	! [ -d $SUB ] && ! [ -d $PORT ] && ! [ -d $NB ]
}
t_ok "target: null_blk ${NB_MB} MiB memory backed, nvmet subsystem, rdma port $S_IP:4420" target_up

# --- host: connect through /dev/nvme-fabrics ---
CTRL="" NSDEV=""
connect() {	# sets CTRL (nvmeN) and NSDEV (/dev/nvmeXnY)
	local line inst b
	exec 3<>/dev/nvme-fabrics || return 1
	echo "transport=rdma,traddr=$S_IP,trsvcid=4420,nqn=$NQN,host_traddr=$C_IP" >&3 || { exec 3>&-; return 1; }
	read -r line <&3; exec 3>&-
	echo "# connected: $line"
	inst=${line#instance=}; inst=${inst%%,*}
	CTRL=nvme$inst
	for ((b = 0; b < 100; b++)); do
		# (one controller at a time; with multipath the disk is nvmeXnY,
		# not the controller's hidden nvmeXcZnY)
		NSDEV=$(ls /sys/block 2>/dev/null | grep -E '^nvme[0-9]+n1$' | head -1)
		[ -n "$NSDEV" ] && NSDEV=/dev/$NSDEV && [ -b "$NSDEV" ] && break
		NSDEV=""; sleep 0.1
	done
	if [ -z "$NSDEV" ]; then
		echo "no namespace block device for $CTRL (state $(cat /sys/class/nvme/$CTRL/state))"
		echo "/sys/block: $(ls /sys/block | tr '\n' ' ')"
		echo "/sys/class/nvme/$CTRL: $(ls /sys/class/nvme/$CTRL | tr '\n' ' ')"
		ls -l /dev/nvme* 2>&1
		return 1
	fi
	echo "# $CTRL: $(cat /sys/class/nvme/$CTRL/state) $NSDEV $(($(cat /sys/block/${NSDEV#/dev/}/size) / 2048)) MiB"
	# (the multipath head has no blk-mq queues of its own: nvme-rdma says)
	IOQ=$(dmesg | sed -n "s/.*nvme $CTRL: creating \([0-9]*\) I\/O queues.*/\1/p" | tail -1)
	IOQ=${IOQ:-0}
	echo "# $CTRL: $IOQ I/O queues (nvme-rdma's count), $(nproc) CPUs"
}
disconnect() {
	[ -n "$CTRL" ] || return 0
	[ -e /sys/class/nvme/$CTRL/delete_controller ] && echo 1 > /sys/class/nvme/$CTRL/delete_controller
	t_wait 30 bash -c "! [ -e /sys/class/nvme/$CTRL ]" || return 1
	CTRL="" NSDEV=""
}

uptime_s() { local u; read -r u _ < /proc/uptime; echo "$u"; }	# (busybox date has no %N)
children() {	# children PID: its child processes
	local f pp
	for f in /proc/[0-9]*/stat; do
		read -r pp < "$f" 2>/dev/null || continue
		pp=${pp#*) }; pp=${pp#* }; pp=${pp%% *}
		[ "$pp" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
	done
}

# --- one fio phase ---
SUMMARY=()
phase() {	# phase NAME SIZE [NETEM-SPEC...]
	local name=$1 size=$2 t0 t1 secs rc pid end out dm
	local err verr bad wbw rbw mbs killed=0 why="" st0 st1 seen PATHDEV
	shift 2
	out=$LOG/$name.fio dm=$LOG/$name.dmesg
	echo "# phase $name: $size${*:+, netem $*}"
	if ! connect > "$LOG/$name.connect" 2>&1; then
		sed 's/^/#   /' "$LOG/$name.connect"
		t_ok "$name: connect" false; SUMMARY+=("$name: connect failed")
		disconnect
		return 1
	fi
	cat "$LOG/$name.connect"
	# one completion vector per CPU: one I/O queue per CPU, as rxe has
	[ -n "${IOQ_SEEN:-}" ] || t_ok "$name: $IOQ I/O queues, one per CPU ($(nproc))" test "$IOQ" -ge "$(nproc)"
	IOQ_SEEN=1
	if [ $# -gt 0 ]; then t_ok "$name: netem $* on both veth ends" netem_on "$@"; fi
	echo "nvme-test: phase $name start" > /dev/kmsg
	snap "$C_DEV" "$S_DEV"
	# (the multipath head nvmeXnY keeps no I/O stats; its path nvmeXcZnY does)
	PATHDEV=$(ls /sys/block | grep -E '^nvme[0-9]+c[0-9]+n1$' | head -1)
	PATHDEV=${PATHDEV:-${NSDEV#/dev/}}
	st0=$(cat /sys/block/$PATHDEV/stat)
	t0=$(uptime_s)
	( cd /tmp && exec fio --name="$name" --filename="$NSDEV" --rw=randwrite --bsrange=4k-128k \
		--iodepth=16 --ioengine=libaio --direct=1 --verify=crc32c --verify_fatal=1 \
		--size="$size" --verify_state_save=0 ) > "$out" 2>&1 &
	pid=$!
	end=$(($(date +%s) + CAP))
	while kill -0 $pid 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
	# how far it got: sectors read (field 3) and written (7) of the disk
	st1=$(cat /sys/block/$PATHDEV/stat 2>/dev/null)
	seen=$(awk -v a="$st0" -v b="$st1" 'BEGIN {split(a, x); split(b, y)
		printf "%.1f MiB written, %.1f MiB read", (y[7] - x[7]) / 2048, (y[3] - x[3]) / 2048}')
	if kill -0 $pid 2>/dev/null; then
		killed=1
		{ echo "# $name: fio still running after ${CAP} s (controller $(cat /sys/class/nvme/$CTRL/state 2>/dev/null))"
		  stuck_report $pid $(children $pid); } > "$LOG/$name.stuck"
		kill -9 $(children $pid) $pid 2>/dev/null	# fio and its job process
		# I/O stuck in a reconnecting controller keeps fio in D state:
		# deleting the controller fails it
		sleep 1; kill -0 $pid 2>/dev/null && disconnect
	fi
	{ wait $pid; } 2>/dev/null; rc=$?	# (no "Killed" job notice in the log)
	t1=$(uptime_s)
	echo "nvme-test: phase $name end" > /dev/kmsg
	[ $# -gt 0 ] && { echo "# $name: $(netem_drops)"; netem_off; }
	# what the transport did (conn_fail, why: loss_rto, rto_stall, path_*)
	echo "# $name: counters moved: $(delta "$C_DEV" "$S_DEV" | tr ',' ' ')"
	dmesg | sed -n "/nvme-test: phase $name start/,/nvme-test: phase $name end/p" > "$dm"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
	err=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' "$out" | head -1)
	verr=$(grep -cE 'verify failed|bad magic|bad header|verify: bad|verify_fatal|Invalid or incomplete multibyte' "$out")
	wbw=$(sed -n 's/^ *WRITE: bw=[^ ]* (\([^)]*\)).*/\1/p' "$out" | head -1)
	rbw=$(sed -n 's/^ *READ: bw=[^ ]* (\([^)]*\)).*/\1/p' "$out" | head -1)
	mbs=$(awk -v b="$(bytes "$size")" -v s="$secs" 'BEGIN {printf "%.3g MB/s", (s > 0 ? b / 1e6 / s : 0)}')
	[ $rc -eq 0 ] && [ $killed = 0 ] || mbs="n/a"
	bad=$(grep -cE "$BAD" "$dm")
	[ $killed = 1 ] && why=" (killed after the ${CAP} s cap)"
	echo "# $name: $size in $secs s: write ${wbw:-?}, verify-read ${rbw:-?}, $mbs end to end (size / seconds; the disk saw $seen); fio rc $rc$why, err=${err:-?}, verify errors $verr, bad dmesg lines $bad"
	SUMMARY+=("$name: $size in $secs s, write ${wbw:-?}, verify-read ${rbw:-?}, $mbs end to end ($seen), fio rc $rc$why, verify errors $verr, bad dmesg lines $bad")
	if [ $rc -ne 0 ] || [ $killed = 1 ]; then
		grep -E 'err=|verify|error|fio:' "$out" | head -8 | sed 's/^/#   fio| /'
		[ -f "$LOG/$name.stuck" ] && head -30 "$LOG/$name.stuck"
	fi
	t_ok "$name: fio exit 0 within ${CAP} s (rc $rc$why, $secs s)" test $rc -eq 0 -a $killed = 0
	t_ok "$name: 0 verify errors (err=${err:-?}, $verr verify error lines)" test "${err:-x}" = 0 -a "$verr" = 0
	if [ "$bad" -gt 0 ]; then
		grep -E "$BAD" "$dm" | head -10 | sed 's/^/#   dmesg| /'
	fi
	t_ok "$name: no I/O timeout / error recovery / reconnect in dmesg ($bad lines)" test "$bad" = 0
	t_ok "$name: disconnect" disconnect
	[ $killed = 0 ] && [ $rc -eq 0 ]
}

# --- IOPS (phase iops): 4 KiB random reads, one job per CPU, reported ---
iops() {
	local out=$LOG/iops.fio rc n
	if ! connect > "$LOG/iops.connect" 2>&1; then
		sed 's/^/#   /' "$LOG/iops.connect"
		t_ok "iops: connect" false
		disconnect
		return 1
	fi
	cat "$LOG/iops.connect"
	[ -n "${IOQ_SEEN:-}" ] || t_ok "iops: $IOQ I/O queues, one per CPU ($(nproc))" test "$IOQ" -ge "$(nproc)"
	IOQ_SEEN=1
	( cd /tmp && exec timeout $((IOPS_SECS + 60)) fio --name=iops --filename="$NSDEV" \
		--rw=randread --bs=4k --iodepth=32 --numjobs="$(nproc)" --group_reporting \
		--ioengine=libaio --direct=1 --time_based --runtime="$IOPS_SECS" --size="$SIZE" ) > "$out" 2>&1
	rc=$?
	n=$(sed -n 's/^ *read: IOPS=\([^,]*\),.*/\1/p' "$out" | head -1)
	echo "# iops ($DRIVER): 4 KiB random reads, iodepth 32, $(nproc) jobs, $IOPS_SECS s: IOPS=${n:-?}, $IOQ I/O queues"
	if [ "$DRIVER" = mroce ]; then
		# the CQs' rings before the queues go: a completion that raced
		# its handler (drv_notify_shared), one left waiting unarmed
		rdma res show cq -dd > "$LOG/iops.cq" 2>&1
		echo "# iops: CQ notifications shared with one on its way: $(grep -o 'drv_notify_shared [0-9]*' "$LOG/iops.cq" | awk '{s += $2} END {print s + 0}') (over $(grep -c drv_entries "$LOG/iops.cq") CQs)"
		grep -E 'drv_waiting [1-9]' "$LOG/iops.cq" | cut -c1-200 | sed 's/^/# iops: waiting: /'
	fi
	SUMMARY+=("iops: IOPS=${n:-?} (4 KiB randread, iodepth 32, $(nproc) jobs, $IOPS_SECS s), $IOQ I/O queues")
	t_ok "iops: fio exit 0 (rc $rc)" test "$rc" -eq 0
	t_ok "iops: disconnect" disconnect
}

IFS=, read -r -a PH <<<"$PHASES"
for ph in "${PH[@]}"; do
	case $ph in
	lossless) phase lossless "$SIZE";;
	loss) phase loss "$LSIZE" loss "$LOSS";;
	reorder) phase reorder "$RSIZE" delay 100us reorder 25% 50%;;
	iops) iops;;
	*) echo "not ok - unknown phase $ph"; T_FAIL=$((T_FAIL + 1));;
	esac
done

# --- teardown ---
netem_off
disconnect
t_ok "no nvme controller left" bash -c "! ls /sys/class/nvme/ 2>/dev/null | grep -q ."
t_ok "nvmet config and null_blk removed" target_down
# (ib_core's CQ pool keeps the CQs nvme-rdma/nvmet-rdma got from it until
# the device goes: idle pool CQs are not counted, see res_counts_nopool)
res_back() { [ "$(res_counts_nopool "$C_DEV")" = "$RES0_C" ] && [ "$(res_counts_nopool "$S_DEV")" = "$RES0_S" ]; }
t_wait 20 res_back >/dev/null 2>&1
echo "# rdma res after: $C_DEV: $(res_counts "$C_DEV") ($(res_cq_pool "$C_DEV") idle pool CQs); $S_DEV: $(res_counts "$S_DEV") ($(res_cq_pool "$S_DEV") idle pool CQs)"
t_ok "rdma res counts of $C_DEV and $S_DEV back to before (idle CQ pool aside)" res_back
res_back || rdma res show cq 2>&1 | sed 's/^/# res cq| /'

# --- device removal under the ULPs: the host's device with `rdma link
# delete`, the target's by removing its netdev, while fio runs ---
if [ "$REMOVAL" = 1 ]; then
	echo "# phase removal: host device deleted, then the target's netdev, under I/O"
	t_ok "removal: target up again" target_up
	if connect > "$LOG/removal.connect" 2>&1; then
		cat "$LOG/removal.connect"
		echo "nvme-test: phase removal start" > /dev/kmsg
		( cd /tmp && exec fio --name=removal --filename="$NSDEV" --rw=randwrite --bs=64k \
			--iodepth=16 --ioengine=libaio --direct=1 --time_based --runtime=120 ) \
			> "$LOG/removal.fio" 2>&1 &
		pid=$!
		sleep 3
		t_ok "removal: fio is writing" kill -0 $pid
		t0=$(uptime_s)
		t_ok "removal: rdma link delete $C_DEV under I/O returns within 60 s" \
			timeout 60 rdma link delete "$C_DEV"
		echo "# removal: rdma link delete took $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN {printf "%.1f", b - a}') s"
		t_ok "removal: fio ends within 60 s (its I/O fails: the path is gone)" \
			t_wait 60 bash -c "! kill -0 $pid"
		kill -9 $pid 2>/dev/null; { wait $pid; } 2>/dev/null
		t_ok "removal: the host's controller is gone" \
			t_wait 30 bash -c "! ls /sys/class/nvme/ 2>/dev/null | grep -q ."
		CTRL="" NSDEV=""
		t_ok "removal: $S_DEV goes with its netdev ($S_IF, removed under the nvmet port)" \
			bash -c "ip link del $S_IF && . /mnt/host/lib.sh && t_wait 30 bash -c '! [ -e /sys/class/infiniband/$S_DEV ]'"
		echo "nvme-test: phase removal end" > /dev/kmsg
		t_ok "removal: nvmet config and null_blk removed" target_down
		t_ok "removal: no RDMA resources of $C_DEV or $S_DEV left" \
			bash -c "! rdma res show 2>/dev/null | grep -qE '^[0-9]+: ($C_DEV|$S_DEV):'"
		t_ok "removal: no hung task in the kernel log" bash -c "! dmesg | grep -qE 'blocked for more than|hung_task'"
	else
		sed 's/^/#   /' "$LOG/removal.connect"
		t_ok "removal: connect" false
	fi
fi
[ -e /sys/class/infiniband/$C_DEV ] && rdma link del "$C_DEV"
[ -e /sys/class/infiniband/$S_DEV ] && rdma link del "$S_DEV"
topo_init_del
echo "# summary ($DRIVER):"
for s in "${SUMMARY[@]}"; do echo "#   $s"; done
t_done
