# shellcheck shell=bash
# The conformance suite's tier 1 (tests/conformance: the handshake and the
# demultiplexer, per requirement id) against the kernel module: the suite
# runs in netns nsC, the IUT is an mroce device on the veth end in init_net
# (198.18.5.2, MetaRoCE port 4796). The module knows a node by its address
# alone and answers RETRY and RESET to the node's MetaRoCE port, so the
# suite runs node per address: each tester node takes the next address of
# POOL (198.18.5.10-250 on vC, each used once) and binds port 4796 there
# (free in nsC: no mroce device holds it in that namespace); "another
# source" is the next address. Tier 2 (data) needs mroce-ep's TCP side
# channel at the IUT's port number: mroce-epside (make tools; the module's
# side of tests/vm/interop.sh) serves it on TCP 4796 in init_net, a QP and
# a buffer of mroce0's per session, toward the session's node address.
#
# Asserted: the suite ends with every MUST passed (its exit status), and
# no kernel report in the log. Figures: the suite's table and summary.
#
#   scripts/vm/run-guest.sh -y -P -f tests/conformance -t 300 -n conformance \
#       tests/vm/conformance.sh [-- tier=1]
#
# (-y: the python image; the suite is Python 3, standard library only; -P
# shares build/tests/, where mroce-epside is.)
. /mnt/host/lib.sh

TIER=""
for a in "$@"; do
	case $a in
	tier=*) TIER=${a#*=};;
	"") ;;	# (run-guest.sh passes one empty argument when given none)
	*) echo "unknown argument $a" >&2; exit 2;;
	esac
done

SUITE=/mnt/host/conformance/conformance.py
OUT=${RIG_OUT:-/tmp}/conformance
POOL=198.18.5.10-250
KBAD='WARNING:|BUG:|Oops|UBSAN|KASAN|possible circular|soft lockup|rcu_sched|hung_task|list_add corruption|list_del corruption'

t_ok "suite present ($SUITE; run-guest.sh -f tests/conformance)" test -f "$SUITE"
t_ok "install mroce" mroce_install
t_ok "load modules" modprobe -a ib_uverbs veth mroce
k0=$(dmesg | wc -l)
t_ok "topology: nsC 198.18.5.1 + $POOL -- 198.18.5.2 mroce0" bash -c '
	ip netns add nsC &&
	ip link add vC type veth peer name vM &&
	ip link set vC netns nsC &&
	ip addr add 198.18.5.2/24 dev vM && ip link set vM up &&
	ip -n nsC addr add 198.18.5.1/24 dev vC &&
	for i in $(seq 10 250); do echo "addr add 198.18.5.$i/32 dev vC"; done |
		ip -n nsC -batch - &&
	ip -n nsC link set vC up && ip -n nsC link set lo up &&
	rdma link add mroce0 type mroce netdev vM'
t_ok "the pool is on vC (241 addresses)" bash -c \
	'test "$(ip -n nsC -4 -o addr show dev vC | grep -c "inet 198\.18\.5\.")" -eq 242'
t_wait 10 ip netns exec nsC ping -c1 -W1 198.18.5.2 > /dev/null
mkdir -p "$OUT"
args=()
if [ "$TIER" = 1 ]; then
	args=(--tier 1)
else
	t_ok "mroce-epside shared (make tools)" command -v mroce-epside
	mroce-epside -d mroce0 -p 4796 -T 60 > "$OUT/epside.out" 2>&1 &
	side=$!
	t_ok "the side channel listens (mroce-epside, TCP 4796)" t_wait 10 \
		bash -c "ss -ltn | grep -q ':4796 '"
fi
ip netns exec nsC python3 "$SUITE" "${args[@]}" --iut 198.18.5.2:4796 \
	--port 4796 --src-pool "$POOL" --out "$OUT" > "$OUT/suite.out" 2>&1
rc=$?
if [ -n "${side:-}" ]; then
	kill "$side" 2>/dev/null; wait "$side" 2>/dev/null
	echo "# mroce-epside: $(grep -c '^epside: served' "$OUT/epside.out") sessions, $(grep -c 'verdict ok' "$OUT/epside.out") verdict ok"
fi
grep -E '^conformance:' "$OUT/suite.out" | sed 's/^/# /'	# pool use, a stop
grep -E '^\| MR-' "$OUT/suite.out" | grep -v '| n/a |' | sed 's/^/# /'
grep -E '^checks:|passed, .* failed' "$OUT/suite.out" | sed 's/^/# suite: /'
t_ok "the suite: every MUST passed against the module (exit $rc)" test "$rc" -eq 0
echo "# mroce0 counters that moved: $(rdma statistic show link mroce0/1 | tr ' ' '\n' |
	paste - - | awk '$2 != 0 && $1 ~ /^(drop|rx_drop|connect|challenge|reset|conn)/' | tr '\t' '=' | tr '\n' ' ')"
dmesg | tail -n +$((k0 + 1)) > "$OUT/dmesg"
t_ok "no kernel report in the log" bash -c "! grep -E '$KBAD' '$OUT/dmesg'"
t_ok "rdma link delete mroce0" rdma link delete mroce0
t_done
