# shellcheck shell=bash
# Guest-side helpers for mroce's VM tests; source it from a test run by
# scripts/vm/run-guest.sh -P (the share, /mnt/host, holds our build outputs).
#
#   mroce_install        mroce.ko (and mroce_swnic.ko) into /lib/modules/$(uname -r)/extra + depmod
#                        (so `modprobe mroce` and autoload by `rdma link add`
#                        work), the provider into libibverbs' provider folder
#                        and mroce.driver into /etc/libibverbs.d/
#   t_ok DESC CMD...     run CMD; "ok - DESC" or "not ok - DESC" + its output
#   t_fail DESC CMD...   the same, expecting CMD to fail
#   t_wait SECS CMD...   retry CMD every 0.1 s for up to SECS x T_SCALE; its status
#   t_done               print "N passed, N failed"; status 1 if any failed
#   T_SCALE              how much longer the tests' own waits and limits
#                        are on this kernel: 5 on the debug kernel (it has
#                        kmemleak; run-guest.sh -D), else 1
MROCE_SHARE=${MROCE_SHARE:-/mnt/host}
T_SCALE=1
[ -e /sys/kernel/debug/kmemleak ] && T_SCALE=5
export T_SCALE
T_PASS=0
T_FAIL=0
export PATH=$MROCE_SHARE:$PATH

mroce_install() {
	local kdir=/lib/modules/$(uname -r)/extra
	local pdir=/usr/lib/x86_64-linux-gnu/libibverbs

	mkdir -p "$kdir" "$pdir" /etc/libibverbs.d || return 1
	cp "$MROCE_SHARE/mroce.ko" "$kdir/" || return 1
	if [ -f "$MROCE_SHARE/mroce_swnic.ko" ]; then
		cp "$MROCE_SHARE/mroce_swnic.ko" "$kdir/" || return 1
	fi
	depmod -a || return 1
	cp "$MROCE_SHARE/libmroce-rdmav34.so" "$pdir/" || return 1
	cp "$MROCE_SHARE/mroce.driver" /etc/libibverbs.d/ || return 1
}

t_ok() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok - $desc"
		T_PASS=$((T_PASS + 1))
	else
		echo "not ok - $desc"
		printf '%s\n' "$out" | tail -25 | sed 's/^/#   /'
		T_FAIL=$((T_FAIL + 1))
	fi
}

t_fail() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "not ok - $desc (succeeded)"
		printf '%s\n' "$out" | tail -10 | sed 's/^/#   /'
		T_FAIL=$((T_FAIL + 1))
	else
		echo "ok - $desc"
		T_PASS=$((T_PASS + 1))
	fi
}

t_wait() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * T_SCALE * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	"$@"
}

# swnic_no_holes DEV [tx]: the software NIC's shadow check
# (Documentation/offload.rst, "Object commands") found no packet or doorbell
# that names an object it was not told of, no send WQE it fetched that its
# tables refuse (an opcode, SGE count, lkey or AH), and refused no command:
# of what mroce sent (tx), or also of what DEV received and no SQ index too
# far ahead (traffic between mroce devices, well-behaved programs).
# Prints the NIC's counters for DEV.
swnic_no_holes() {
	local f=/sys/kernel/debug/mroce_swnic/$1 re='cmd_refused|tx_unknown_qp|tx_no_dest|tx_bad_dest|db_unknown|db_ring_differs|wqe_bad_op|wqe_bad_sge|wqe_bad_lkey|wqe_unknown_ah'
	[ "${2:-}" = tx ] || re="$re|rx_unknown_qp|rx_unknown_key|rx_bad_key|db_bad_index|read_differs"
	[ -r "$f" ] || { echo "no $f"; return 1; }
	grep '^shadow_' "$f" | paste -sd' '
	grep -q '^shadow_cmds [1-9]' "$f" && ! grep -qE "^shadow_($re) [1-9]" "$f"
}
export -f swnic_no_holes

t_done() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
