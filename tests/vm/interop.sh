# shellcheck shell=bash
# Guest test of interoperability (issue 33, items 2 and 4): libmroce-ep in
# node mode (mroce-ep client --node, userspace, the engine over a UDP
# socket) against the kernel module (an mroce device driven through verbs
# by mroce-epside), across a veth pair:
#
#   nsE: vE 198.18.1.1/24 (mtu 9000)  <->  nsM: vM 198.18.1.2/24 (mtu 9000)
#        mroce-ep client, node mode            device mM (mroce on vM),
#        on 198.18.1.1:4796                    mroce-epside on TCP 18700
#
# The module opens its UDP socket only in a namespace with a device, so
# the ep has nsE's port 4796 to itself. mroce-epside registers a buffer
# and an RC QP toward the ep's QP (the ep's node is 198.18.1.1: GID
# ::ffff:198.18.1.1) and answers on mroce-ep's TCP side channel; the ep
# WRITEs random data into the module's buffer, READs it back and compares
# every byte, OPS times, then a fetch-and-add and a compare-and-swap,
# checked. Once lossless, once with netem on both veth ends. Each case
# passes when both sides exit 0, the ep reports 0 corrupted bytes and 0
# failed operations, and mroce-epside's QP is not in error. The module's
# counters (hw_counters) and the ep's engine counters (MEP_COUNTERS=1) are
# printed after each case.
#
# Run it (it needs the ep tool, which -P does not share; `make module
# provider tools ep` first):
#
#   scripts/vm/run-guest.sh -P -f build/ep/mroce-ep -t 300 -n interop tests/vm/interop.sh [-- ARGS]
#     ops=300          operations (WRITE + READ back) lossless
#     netem_ops=200    operations under netem
#     size=65536       bytes per operation
#     netem="loss 1%"  the impairment, on both veth ends
#
# -P puts build/tests/* (mroce-epside) and tests/vm/*.sh in /mnt/host, -f
# adds mroce-ep there; lib.sh puts /mnt/host on PATH. Logs of each pair in
# $RIG_OUT/interop/ (scripts/vm/runs/interop/share/out/interop/ on the host).
PAIR_LOG=${RIG_OUT:-/tmp}/interop
. /mnt/host/lib.sh
. /mnt/host/topo.sh

OPS=300 NOPS=200 SIZE=65536 NETEM="loss 1%"
for a in "$@"; do
	case $a in
	ops=*) OPS=${a#*=};; netem_ops=*) NOPS=${a#*=};; size=*) SIZE=${a#*=};;
	netem=*) NETEM=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

EP_IP=198.18.1.1 M_IP=198.18.1.2 DEV=mM TCP=18700
CX=(/usr/sbin/ip netns exec nsE)	# the ep's side (the requester)
SX=(/usr/sbin/ip netns exec nsM)	# the module's
C_DEV="" S_DEV=""			# (pair: no device on the client side)

topo_up() {
	ip netns add nsE && ip netns add nsM || return 1
	ip link add vE mtu 9000 netns nsE type veth peer name vM mtu 9000 \
		netns nsM || return 1
	ip -n nsE addr add $EP_IP/24 dev vE &&
	ip -n nsM addr add $M_IP/24 dev vM &&
	ip -n nsE link set lo up && ip -n nsM link set lo up &&
	ip -n nsE link set vE up && ip -n nsM link set vM up || return 1
	"${SX[@]}" rdma link add $DEV type mroce netdev vM
}

topo_down() {
	"${SX[@]}" rdma link del $DEV 2>/dev/null
	ip netns del nsE 2>/dev/null
	ip netns del nsM 2>/dev/null
	return 0
}

# xfer NAME OPS: one verified transfer, ep (nsE) -> module (nsM)
xfer() {
	local name=$1 ops=$2 cli
	pair "$name" 120 ready=tcp:$TCP \
		mroce-epside -d $DEV -p $TCP -1 -T $((120 * T_SCALE)) -- \
		env MEP_COUNTERS=1 mroce-ep client $M_IP $TCP -n "$ops" -s "$SIZE" \
		--node $EP_IP || return 1
	cli=$PAIR_LOG/$name.cli
	grep -q "^$ops ops, .* 0 corrupted, 0 failed$" "$cli" &&
		grep -q "^atomics: .* verified$" "$cli" &&
		grep -q "verdict ok, qp state RTS" "$PAIR_LOG/$name.srv"
}

# what each side says after case NAME
report() {
	local name=$1
	grep -hE "ops, |ops/s|atomics|retransmitted" "$PAIR_LOG/$name.cli" | sed "s/^/#   ep: /"
	grep -h "^epside: served" "$PAIR_LOG/$name.srv" | sed "s/^/#   module: /"
	echo "#   ep engine counters: $(grep -E '^[a-z_0-9]+ [0-9]+$' "$PAIR_LOG/$name.cli" | tr '\n' ' ')"
	counters $DEV | sed 's/^/#   /'
}

mkdir -p "$PAIR_LOG"
t_ok "mroce installed" mroce_install
t_ok "modules load" driver_load mroce
t_ok "mroce-ep shared (run-guest.sh -f build/ep/mroce-ep)" command -v mroce-ep
t_ok "mroce-epside shared (make tools)" command -v mroce-epside
topo_down
t_ok "topology: nsE (ep) <-> nsM ($DEV on vM)" topo_up
t_ok "$DEV port active" t_wait 10 port_active $DEV

t_ok "lossless: $OPS x $SIZE bytes, WRITE + READ verified, atomics" \
	xfer lossless "$OPS"
report lossless

t_ok "netem $NETEM on vE and vM" bash -c \
	"ip netns exec nsE tc qdisc add dev vE root netem $NETEM &&
	 ip netns exec nsM tc qdisc add dev vM root netem $NETEM"
t_ok "netem ($NETEM): $NOPS x $SIZE bytes, WRITE + READ verified, atomics" \
	xfer netem "$NOPS"
report netem
echo "# $DEV: $("${SX[@]}" rdma statistic show link $DEV/1 2>&1 | tr '\n' ' ')"

t_ok "$DEV deleted" "${SX[@]}" rdma link del $DEV
topo_down
t_ok "mroce unloads" t_wait 10 modprobe -r mroce
t_done
