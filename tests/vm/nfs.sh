#!/bin/bash
# Guest test of NFS over RDMA between two RDMA devices of one guest: nfsd
# (NFSv4.2, rdma listener on port 20049) exports a tmpfs; the client mounts
# it with proto=rdma,port=20049 and writes files of several sizes (random
# data), which are then checked on the server (the write path) and read back
# after a remount, so that the read comes over the wire (the read path),
# sha256 compared. Phases:
#   lossless
#   netem loss 1% on both veth ends
# Each phase: every checksum matches, within a wall-clock cap (a stalled
# transport fails the phase: the copy is killed, the mount forced off), no
# "not responding" / rpcrdma device removal in dmesg; MB/s and seconds of the
# writes and reads are printed. Teardown: umount, nfsd stopped, `rdma res`
# counts back to what they were before (idle ib_core CQ pool aside). Ends
# with "N passed, N failed". Kernel ULPs use init_net: topo_init, no
# namespaces.
#
#   tests/vm/nfs.sh --boot [ARGS]    on the host: boot the storage image
#                                    (run-guest.sh -s) with this test
#   scripts/vm/run-guest.sh -s -P -t 900 -n nfs-rxe tests/vm/nfs.sh -- driver=rxe
#                                    the same by hand (-P needs mroce.ko
#                                    built; for rxe alone
#                                    -f tests/vm/lib.sh -f tests/vm/topo.sh)
#   ARGS:
#     driver=mroce|rxe   (default mroce)
#     files=1K,1M,16M    file sizes (K/M), one file each
#     lfiles=1K,1M,16M   the same for the lossy phase
#     loss=1%            netem loss of the lossy phase
#     cap=300            seconds a phase may take
#     phases=lossless,loss
#   env (--boot): GUEST_T=900 guest time limit, RUN_NAME=nfs-DRIVER
# Logs: $RIG_OUT/nfs/ (scripts/vm/runs/NAME/share/out/nfs/).
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
	sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0
fi
if [ "${1:-}" = --boot ]; then
	shift
	exec "$(dirname "$0")/boot-storage.sh" "$0" 900 "$@"
fi

. /mnt/host/lib.sh
LOG=${RIG_OUT:-/tmp}/nfs
PAIR_LOG=$LOG
mkdir -p "$LOG"
. /mnt/host/topo.sh

DRIVER=mroce FILES=1K,1M,16M LFILES=1K,1M,16M LOSS=1% CAP=300 PHASES=lossless,loss
for a in "$@"; do
	case $a in
	driver=*) DRIVER=${a#*=};; files=*) FILES=${a#*=};; lfiles=*) LFILES=${a#*=};;
	loss=*) LOSS=${a#*=};; cap=*) CAP=${a#*=};; phases=*) PHASES=${a#*=};; "") ;;
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done
case $DRIVER in mroce) P=m;; rxe) P=r;; *) echo "driver=mroce|rxe" >&2; exit 2;; esac
EXP=/srv/nfs MNT=/mnt/nfs SRC=/tmp/nfs-src
BAD='not responding|rpcrdma: removing device|RPC/RDMA backchannel overflow|Listener dead|NFS: .*(error|failed)'
uptime_s() { local u; read -r u _ < /proc/uptime; echo "$u"; }
bytes() { local n=${1%[KkMmGg]}; case $1 in *[Kk]) echo $((n << 10));; *[Mm]) echo $((n << 20));; *[Gg]) echo $((n << 30));; *) echo "$n";; esac; }

if ! command -v rpc.nfsd >/dev/null || ! command -v mount.nfs >/dev/null; then
	echo "not ok - rpc.nfsd and mount.nfs in the guest image (boot the storage image: run-guest.sh -s)"
	echo "0 passed, 1 failed"; exit 1
fi
[ "$DRIVER" = mroce ] && t_ok "install mroce" mroce_install
t_ok "load $DRIVER and the NFS/RDMA modules" bash -c \
	". /mnt/host/topo.sh; driver_load $DRIVER && modprobe -a nfsd rpcrdma nfs nfsv4"
topo_init || { echo "not ok - topology"; t_done; exit 1; }
C_DEV=${P}A S_DEV=${P}B
t_ok "devices $C_DEV on $C_IF (client), $S_DEV on $S_IF (server)" bash -c \
	"rdma link add $C_DEV type $DRIVER netdev $C_IF && rdma link add $S_DEV type $DRIVER netdev $S_IF"
t_ok "both ports ACTIVE" t_wait 10 bash -c "grep -q ACTIVE /sys/class/infiniband/$C_DEV/ports/1/state && grep -q ACTIVE /sys/class/infiniband/$S_DEV/ports/1/state"
t_ok "IPv4 RoCE v2 GIDs" t_wait 10 bash -c ". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP"
RES0_C=$(res_counts_nopool "$C_DEV") RES0_S=$(res_counts_nopool "$S_DEV")
echo "# rdma res before: $C_DEV: $RES0_C; $S_DEV: $RES0_S"

# --- server: tmpfs export, rpcbind, mountd, nfsd v4 with an rdma listener ---
RPCBIND_PID="" MOUNTD_PID=""
server_up() {
	mkdir -p $EXP /var/lib/nfs/v4recovery /run/rpcbind &&
		mount -t tmpfs -o size=512m tmpfs $EXP || return 1
	grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	: > /var/lib/nfs/etab; : > /var/lib/nfs/rmtab
	echo "$EXP $C_IP(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" > /etc/exports
	rpcbind -f > "$LOG/rpcbind.log" 2>&1 & RPCBIND_PID=$!
	t_wait 5 rpcinfo -p 127.0.0.1 || { echo "rpcbind did not come up"; cat "$LOG/rpcbind.log"; return 1; }
	exportfs -ra || return 1
	rpc.mountd -F -N 2 -N 3 > "$LOG/mountd.log" 2>&1 & MOUNTD_PID=$!
	# short lease and grace: the client may open files 10 s after the start
	echo 10 > /proc/fs/nfsd/nfsv4leasetime; echo 10 > /proc/fs/nfsd/nfsv4gracetime
	rpc.nfsd -N 3 8 || return 1
	echo "rdma 20049" > /proc/fs/nfsd/portlist || return 1
	echo Y > /proc/fs/nfsd/v4_end_grace	# (nothing to recover)
	echo "# nfsd: threads $(cat /proc/fs/nfsd/threads), versions $(cat /proc/fs/nfsd/versions), ports $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
	exportfs -v
}
server_down() {
	rpc.nfsd 0
	[ -n "$MOUNTD_PID" ] && kill "$MOUNTD_PID" 2>/dev/null
	[ -n "$RPCBIND_PID" ] && kill "$RPCBIND_PID" 2>/dev/null
	exportfs -ua 2>/dev/null
	umount $EXP
	[ "$(cat /proc/fs/nfsd/threads)" = 0 ] && ! grep -q " $EXP " /proc/mounts
}
out=$(server_up 2>&1); rc=$?
printf '%s\n' "$out" | grep '^#'
[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -v '^#' | sed 's/^/#   /'
t_ok "server: nfsd with an rdma listener on $S_IP:20049, $EXP exported to $C_IP" test $rc -eq 0

mkdir -p $MNT $SRC
MOPT="vers=4.2,proto=rdma,port=20049"
do_mount() { mount.nfs "$S_IP:/" $MNT -o "$MOPT"; }
do_umount() {
	grep -q " $MNT " /proc/mounts || return 0
	umount $MNT 2>/dev/null || umount -f $MNT 2>/dev/null || umount -l $MNT
}

# the body of a phase, run in the background under the cap: write, check on
# the server, remount, read back; one "# io" line per file
phase_io() {	# phase_io NAME SIZE...
	local name=$1 s f t0 t1 sum
	shift
	for s in "$@"; do
		f=f-$name-$s
		dd if=/dev/urandom of=$SRC/$f bs=1024 count=$(($(bytes "$s") / 1024)) 2>/dev/null || return 1
		sha256sum < $SRC/$f | cut -d' ' -f1 > $SRC/$f.sum
	done
	do_mount || { echo "mount failed"; return 1; }
	echo "# mount: $(grep " $MNT " /proc/mounts)"
	grep " $MNT " /proc/mounts | grep -q 'proto=rdma' && echo "# proto rdma ok" || echo "# proto not rdma"
	for s in "$@"; do
		f=f-$name-$s
		t0=$(uptime_s); cp $SRC/$f $MNT/$f && sync || { echo "write $f failed"; return 1; }
		t1=$(uptime_s); echo "# io write $s $t0 $t1"
	done
	# the server's copy: what was written over RDMA
	for s in "$@"; do
		f=f-$name-$s
		sum=$(sha256sum < $EXP/$f | cut -d' ' -f1)
		[ "$sum" = "$(cat $SRC/$f.sum)" ] && echo "# sum server $s ok" || echo "# sum server $s BAD"
	done
	# remount: nothing cached on the client, the read comes over RDMA
	umount $MNT || { echo "umount failed"; return 1; }
	do_mount || { echo "remount failed"; return 1; }
	for s in "$@"; do
		f=f-$name-$s
		t0=$(uptime_s); sum=$(sha256sum < $MNT/$f | cut -d' ' -f1) || { echo "read $f failed"; return 1; }
		t1=$(uptime_s); echo "# io read $s $t0 $t1"
		[ "$sum" = "$(cat $SRC/$f.sum)" ] && echo "# sum client $s ok" || echo "# sum client $s BAD"
	done
	umount $MNT
}

SUMMARY=()
phase() {	# phase NAME SIZES [NETEM-SPEC...]
	local name=$1 sizes pid end killed=0 rc t0 t1 secs log dm bad s ok n why="" line w r
	IFS=, read -r -a sizes <<<"$2"
	shift 2
	log=$LOG/$name.log dm=$LOG/$name.dmesg
	echo "# phase $name: files ${sizes[*]}${*:+, netem $*}"
	if [ $# -gt 0 ]; then t_ok "$name: netem $* on both veth ends" netem_on "$@"; fi
	echo "nfs-test: phase $name start" > /dev/kmsg
	snap "$C_DEV" "$S_DEV"
	t0=$(uptime_s)
	phase_io "$name" "${sizes[@]}" > "$log" 2>&1 &
	pid=$!
	end=$(($(date +%s) + CAP))
	while kill -0 $pid 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
	if kill -0 $pid 2>/dev/null; then
		killed=1
		echo "# $name: still running after ${CAP} s" >> "$log"
		stuck_report $pid >> "$log"
		kill -9 $pid 2>/dev/null
		umount -f $MNT 2>/dev/null; umount -l $MNT 2>/dev/null
	fi
	{ wait $pid; } 2>/dev/null; rc=$?	# (no "Killed" job notice in the log)
	t1=$(uptime_s)
	echo "nfs-test: phase $name end" > /dev/kmsg
	[ $# -gt 0 ] && { echo "# $name: $(netem_drops)"; netem_off; }
	do_umount
	dmesg | sed -n "/nfs-test: phase $name start/,/nfs-test: phase $name end/p" > "$dm"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
	bad=$(grep -cE "$BAD" "$dm")
	# per-file throughput
	w="" r=""
	while read -r _ _ dir s a b; do	# (here-string: no /dev/fd for <(...) in the guest)
		[ -n "$dir" ] || continue
		line=$(awk -v n="$(bytes "$s")" -v a="$a" -v b="$b" 'BEGIN {d = b - a; m = (n >= 1e6 ? sprintf("%.1f MB/s in ", (d > 0 ? n / 1e6 / d : 0)) : ""); printf("%s%.2f s", m, d)}')
		[ "$dir" = write ] && w="$w $s: $line," || r="$r $s: $line,"
	done <<<"$(grep '^# io ' "$log")"
	n=${#sizes[@]}
	echo "# $name: counters that moved: $(delta "$C_DEV" "$S_DEV")"
	grep -m1 '^# mount: ' "$log"
	ok=$(grep -c '^# sum .* ok$' "$log")
	[ $killed = 1 ] && why=" (killed after the ${CAP} s cap)"
	echo "# $name: $secs s$why; write${w:- -} read${r:- -} checksums ok $ok/$((2 * n)), bad dmesg lines $bad"
	SUMMARY+=("$name: $secs s$why; write${w:- -} read${r:- -} checksums ok $ok/$((2 * n)), bad dmesg lines $bad")
	if [ $rc -ne 0 ] || [ $killed = 1 ]; then grep -v '^# io ' "$log" | head -30 | sed 's/^/#   /'; fi
	t_ok "$name: write, check, remount, read back within ${CAP} s (rc $rc$why, $secs s)" test $rc -eq 0 -a $killed = 0
	t_ok "$name: mounted with proto=rdma" grep -q '^# proto rdma ok' "$log"
	t_ok "$name: sha256 of all ${n} files match on the server and read back ($ok/$((2 * n)))" test "$ok" = $((2 * n))
	[ "$bad" -gt 0 ] && grep -E "$BAD" "$dm" | head -10 | sed 's/^/#   dmesg| /'
	t_ok "$name: no 'not responding' / transport trouble in dmesg ($bad lines)" test "$bad" = 0
}

IFS=, read -r -a PH <<<"$PHASES"
for ph in "${PH[@]}"; do
	case $ph in
	lossless) phase lossless "$FILES";;
	loss) phase loss "$LFILES" loss "$LOSS";;
	*) echo "not ok - unknown phase $ph"; T_FAIL=$((T_FAIL + 1));;
	esac
done

# --- teardown ---
netem_off
do_umount
t_ok "client unmounted" bash -c "! grep -q ' $MNT ' /proc/mounts"
t_ok "nfsd stopped, export gone" server_down
res_back() { [ "$(res_counts_nopool "$C_DEV")" = "$RES0_C" ] && [ "$(res_counts_nopool "$S_DEV")" = "$RES0_S" ]; }
t_wait 30 res_back >/dev/null 2>&1
echo "# rdma res after: $C_DEV: $(res_counts "$C_DEV") ($(res_cq_pool "$C_DEV") idle pool CQs); $S_DEV: $(res_counts "$S_DEV") ($(res_cq_pool "$S_DEV") idle pool CQs)"
t_ok "rdma res counts of $C_DEV and $S_DEV back to before (idle CQ pool aside)" res_back
res_back || rdma res show 2>&1 | sed 's/^/# res| /'
rdma link del "$C_DEV"; rdma link del "$S_DEV"
topo_init_del
echo "# summary ($DRIVER):"
for s in "${SUMMARY[@]}"; do echo "#   $s"; done
t_done
