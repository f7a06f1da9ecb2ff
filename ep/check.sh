#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# libmroce-ep on the host: a server and a client over 127.0.0.1 with
# mroce-ep's verified transfer (WRITE random data, READ it back, compare
# every byte), lossless and with 5 % of each side's datagrams dropped
# (MEP_DROP_PPM). A case passes only when both ends exit 0: every
# operation completed successfully and no byte differed.
# First mroce-ep-selftest (SEND/receive, atomics, refusals), whose
# verdicts count here too.
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

run() { # name drop_ppm ops size
	name=$1 ppm=$2 ops=$3 size=$4
	n=$((n + 1))
	port=$((base + n))
	log=$(mktemp)
	MEP_SEED=$((1000 + n)) MEP_DROP_PPM=$ppm timeout 120 \
		"$tool" server $port -1 >"$log" 2>&1 &
	spid=$!
	out=$(MEP_SEED=$((2000 + n)) MEP_DROP_PPM=$ppm timeout 120 \
		"$tool" client 127.0.0.1 $port -n $ops -s $size 2>&1)
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
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
