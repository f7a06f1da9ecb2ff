# shellcheck shell=bash
# The conformance suite's tier 1 (tests/conformance: the handshake and the
# demultiplexer, per requirement id) against the kernel module: the suite
# runs in netns nsC (198.18.5.1, and 198.18.5.3 as its "another source"),
# the IUT is an mroce device on the veth end in init_net (198.18.5.2,
# MetaRoCE port 4796). Tier 2 needs mroce-ep's side channel, which the
# module has not: it is left out (--tier 1).
#
# Asserted: the suite ends with every MUST passed (its exit status), and
# no kernel report in the log. Figures: the suite's table and summary.
#
#   scripts/vm/run-guest.sh -y -P -f tests/conformance -t 300 -n conformance \
#       tests/vm/conformance.sh
#
# (-y: the python image; the suite is Python 3, standard library only.)
. /mnt/host/lib.sh

SUITE=/mnt/host/conformance/conformance.py
OUT=${RIG_OUT:-/tmp}/conformance
KBAD='WARNING:|BUG:|Oops|UBSAN|KASAN|possible circular|soft lockup|rcu_sched|hung_task|list_add corruption|list_del corruption'

t_ok "suite present ($SUITE; run-guest.sh -f tests/conformance)" test -f "$SUITE"
t_ok "install mroce" mroce_install
t_ok "load modules" modprobe -a ib_uverbs veth mroce
k0=$(dmesg | wc -l)
t_ok "topology: nsC 198.18.5.1 + .3 -- 198.18.5.2 mroce0" bash -c '
	ip netns add nsC &&
	ip link add vC type veth peer name vM &&
	ip link set vC netns nsC &&
	ip addr add 198.18.5.2/24 dev vM && ip link set vM up &&
	ip -n nsC addr add 198.18.5.1/24 dev vC &&
	ip -n nsC addr add 198.18.5.3/24 dev vC &&
	ip -n nsC link set vC up && ip -n nsC link set lo up &&
	rdma link add mroce0 type mroce netdev vM'
t_wait 10 ip netns exec nsC ping -c1 -W1 198.18.5.2 > /dev/null
mkdir -p "$OUT"
ip netns exec nsC python3 "$SUITE" --tier 1 --iut 198.18.5.2:4796 \
	--alt-src 198.18.5.3 --out "$OUT" > "$OUT/suite.out" 2>&1
rc=$?
grep -E '^\| MR-' "$OUT/suite.out" | grep -v '| n/a |' | sed 's/^/# /'
grep -E '^checks:|passed, .* failed' "$OUT/suite.out" | sed 's/^/# suite: /'
t_ok "the suite: every MUST passed against the module (exit $rc)" test "$rc" -eq 0
echo "# mroce0 counters that moved: $(rdma statistic show link mroce0/1 | tr ' ' '\n' |
	paste - - | awk '$2 != 0 && $1 ~ /^(drop|rx_drop|connect|challenge|reset|conn)/' | tr '\t' '=' | tr '\n' ' ')"
dmesg | tail -n +$((k0 + 1)) > "$OUT/dmesg"
t_ok "no kernel report in the log" bash -c "! grep -E '$KBAD' '$OUT/dmesg'"
t_ok "rdma link delete mroce0" rdma link delete mroce0
t_done
