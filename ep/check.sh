#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libmroce-ep on the host: a server and a client over 127.0.0.1 with
# mroce-ep's verified transfer (WRITE random data, READ it back, compare
# every byte), lossless and with 5 % of each side's datagrams dropped
# (MEP_DROP_PPM). A case passes only when both ends exit 0: every
# operation completed successfully and no byte differed.
# First mroce-ep-selftest (SEND/receive, atomics, refusals), whose
# verdicts count here too. Last, node mode (--node, as the kernel module's
# peer): two network namespaces joined by a veth pair, 198.18.0.1 and
# 198.18.0.2 on the MetaRoCE port 4796 (the engine refuses 127/8 sources,
# so loopback cannot carry it); skipped, and said so, without root or
# ip netns.
# usage: ep/check.sh path/to/mroce-ep path/to/mroce-ep-selftest
set -u
tool=${1:?usage: check.sh path/to/mroce-ep path/to/mroce-ep-selftest}
selftest=${2:?usage: check.sh path/to/mroce-ep path/to/mroce-ep-selftest}
pass=0
fail=0
# ports from the pid, so that parallel runs (CI, a developer) do not meet,
# below Linux's ephemeral range (32768-60999)
base=$((20000 + $$ % 12000))
n=0

# the namespaces of node mode's cases (empty: loopback, default mode)
ns_srv=
ns_cli=

# a command in namespace $1 ("": here)
in_ns() {
	ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

run() { # name drop_ppm ops size
	name=$1 ppm=$2 ops=$3 size=$4
	n=$((n + 1))
	port=$((base + n))
	log=$(mktemp)
	if [ -n "$ns_srv" ]; then
		sopt="--node 198.18.0.1" copt="--node 198.18.0.2" host=198.18.0.1
	else
		sopt= copt= host=127.0.0.1
	fi
	MEP_SEED=$((1000 + n)) MEP_DROP_PPM=$ppm in_ns "$ns_srv" timeout 120 \
		"$tool" server $port -1 $sopt >"$log" 2>&1 &
	spid=$!
	out=$(MEP_SEED=$((2000 + n)) MEP_DROP_PPM=$ppm in_ns "$ns_cli" \
		timeout 120 "$tool" client $host $port -n $ops -s $size $copt 2>&1)
	crc=$?
	wait $spid
	src=$?
	echo "$out" | sed "s/^/  $name: /"
	if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
	   echo "$out" | grep -q "^$ops ops, .* 0 corrupted, 0 failed$"; then
		echo "ok   $name"
		pass=$((pass + 1))
	else
		sed "s/^/  $name server: /" "$log"
		echo "FAIL $name (client $crc, server $src)"
		fail=$((fail + 1))
	fi
	rm -f "$log"
}

st=$(timeout 120 "$selftest" 2>&1)
echo "$st" | grep -v "passed, .* failed$"
pass=$(echo "$st" | grep -c "^ok ")
fail=$(echo "$st" | grep -c "^FAIL ")
if ! echo "$st" | grep -q "^$pass passed, 0 failed$"; then
	echo "FAIL selftest did not finish cleanly"
	fail=$((fail + 1))
fi

run lossless-64k 0 300 65536
run lossless-4097 0 300 4097
run lossless-1 0 300 1
run loss5-64k 50000 200 65536
run loss5-4097 50000 300 4097

# node mode between two namespaces
netns_up() {
	ns_srv=mep-srv-$$
	ns_cli=mep-cli-$$
	ip netns add $ns_srv 2>/dev/null || return 1
	ip netns add $ns_cli 2>/dev/null || return 1
	ip link add mep$$a netns $ns_srv type veth peer name mep$$b \
		netns $ns_cli 2>/dev/null || return 1
	ip -n $ns_srv addr add 198.18.0.1/24 dev mep$$a &&
	ip -n $ns_cli addr add 198.18.0.2/24 dev mep$$b &&
	ip -n $ns_srv link set mep$$a up && ip -n $ns_cli link set mep$$b up &&
	ip -n $ns_srv link set lo up && ip -n $ns_cli link set lo up
}
netns_down() {
	ip netns del mep-srv-$$ 2>/dev/null
	ip netns del mep-cli-$$ 2>/dev/null
}
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && netns_up; then
	trap netns_down EXIT
	run node-lossless-64k 0 300 65536
	run node-loss5-4097 50000 300 4097
else
	echo "skip node mode (needs root and ip netns)"
	ns_srv= ns_cli=
	netns_down
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
