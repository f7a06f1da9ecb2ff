#!/bin/bash
# The project's test command (README; CI's .ci/run calls it). On a fresh
# Debian bookworm machine, as root, without stdin: installs what is needed
# (scripts/setup.sh), builds everything, runs the host tests, the guest
# test(s) under qemu and the KUnit suites on UML. Each step prints
# PASS/FAIL with its time; the last line is "N passed, N failed" (steps),
# and the exit status is non-zero if any step failed.
#
#   scripts/test.sh [--help] [--debug-kernel]
#   --debug-kernel  every guest step on the debug kernel (KASAN, lockdep,
#        UBSAN, kmemleak, DEBUG_OBJECTS, DEBUG_LIST; vm-rig.rst): builds it
#        once (scripts/vm/build-debug-kernel.sh, about an hour on 2 cores),
#        its images and make module-debug; guest time limits x5 + 150 s; a
#        step fails on any report in the guest's log. Leaves out the host
#        tests, KUnit and the packages test (Debian's kernel); pyverbs runs
#        on mroce alone there. Not CI's: hours, not minutes.
#   env: TEST_SKIP="kunit guest ..."  steps to leave out (names as printed)
#        (rdma-core's Python tests on mroce and rxe run in steps rig-python and
#        pyverbs: TEST_SKIP="rig-python pyverbs" leaves them out)
#        TEST_ONLY="guest-race ..."   only these steps; the others count
#                                     as passed, their outputs as built
#        JOBS                         make -j (default: nproc)
set -uo pipefail
DEBUGK=0
case "${1:-}" in
-h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;;
--debug-kernel) DEBUGK=1;;
"") ;;
*) echo "test.sh: unknown argument $1 (--help)" >&2; exit 2;;
esac
if [ "$DEBUGK" = 1 ]; then
  export RIG_DEBUG_KERNEL=1
  TEST_SKIP="${TEST_SKIP:-} host-tests kunit packages"
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
exec </dev/null
export DEBIAN_FRONTEND=noninteractive
JOBS=${JOBS:-$(nproc)}
pass=0 fail=0
declare -A ok=()
T0=$(date +%s.%N)
el() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }


step() {  # step NAME [needs=A,B] CMD...
  local name=$1 needs="" t rc n
  shift
  case "${1:-}" in needs=*) needs=${1#needs=}; shift;; esac
  case " ${TEST_SKIP:-} " in *" $name "*) echo "SKIP $name (TEST_SKIP)"; return 0;; esac
  if [ -n "${TEST_ONLY:-}" ]; then
    case " $TEST_ONLY " in *" $name "*) ;; *) ok[$name]=1; return 0;; esac
  fi
  for n in ${needs//,/ }; do
    if [ "${ok[$n]:-0}" != 1 ]; then
      echo "FAIL $name (not run: step $n did not pass)"; fail=$((fail + 1)); return 1
    fi
  done
  echo "##### $name: $*"
  t=$(date +%s.%N)
  "$@"; rc=$?
  if [ $rc -eq 0 ]; then
    ok[$name]=1; pass=$((pass + 1)); echo "PASS $name ($(el "$t") s)"
  else
    fail=$((fail + 1)); echo "FAIL $name rc=$rc ($(el "$t") s)"
  fi
  return $rc
}

step setup scripts/setup.sh
step module needs=setup make module
step layers needs=module python3 scripts/layers.py --check
step provider needs=setup make provider tools
step host-tests needs=setup make check
step rig-fetch needs=setup scripts/vm/fetch-debs.sh
if [ "$DEBUGK" = 1 ]; then
  step rig-image needs=rig-fetch,module bash -c 'scripts/vm/build-initramfs.sh &&
    scripts/vm/build-debug-kernel.sh && RIG_DEBUG=1 scripts/vm/build-initramfs.sh && make module-debug'
else
  step rig-image needs=rig-fetch scripts/vm/build-initramfs.sh
fi
step guest needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 900 -n ci-foundation tests/vm/foundation.sh
# the datapath suite on mroce's software datapath, then with the software
# NIC (mroce_swnic, Documentation/offload.rst) running both devices
step guest-datapath needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 1800 -n ci-datapath tests/vm/datapath.sh -- drivers=mroce,swnic
step guest-wr needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -f tests/kmod/mroce_dmabuf_exp.ko -t 900 -n ci-wr tests/vm/wr-check.sh
step guest-cq needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 900 -n ci-cq tests/vm/cq-check.sh
step guest-hostile needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 600 -n ci-hostile tests/vm/hostile.sh
# the same attacks with both devices on the software NIC
step guest-hostile-swnic needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 600 -n ci-hostile-swnic tests/vm/hostile.sh -- datapath=swnic
# in-guest fuzzing (issue 29): the host fuzzers' corpora (make fuzz-corpus:
# seeds, what host-tests' fuzz-check grew, tests/fuzz/regress) replayed
# into the module over the wire, then 60 s of garbage, from an attacker's
# address and from the peer's own (tests/vm/fuzz.sh)
step guest-fuzz needs=module,provider,rig-image \
  bash -c 'make fuzz-corpus && scripts/vm/run-guest.sh -P -f build/fuzz-corpus -t 600 -n ci-fuzz tests/vm/fuzz.sh'
# race stress (issue 29): doorbells against modify_qp cycling a QP between
# peers with max_peers=4; placement against dereg, rereg and invalidate;
# QP destroy against timers; link delete and rmmod under traffic
# (tests/vm/race.sh)
step guest-race needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 400 -n ci-race tests/vm/race.sh
# limits on new peers (issue 29): per user, the CONNECTs' eighth, max_peer_mb
step guest-peers needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 600 -n ci-peers tests/vm/peers.sh
step guest-trace needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -t 450 -n ci-trace tests/vm/trace.sh
step guest-frwr needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -f tests/kmod/mroce_frwr_test.ko -t 300 -n ci-frwr tests/vm/frwr.sh
# the offload boundary: registration contract, claim/attach/unload, a
# device on the software NIC against one on software, then both
step guest-offload needs=module,provider,rig-image \
  scripts/vm/run-guest.sh -P -f tests/kmod/mroce_ofl_test.ko -t 600 -n ci-offload tests/vm/offload.sh
step packages needs=module,provider,rig-image scripts/packages.sh --guest
# the fabric test (tests/vm/fabric.sh): 4 spines, 2 planes, a spine
# black-holed and a plane taken down under a verifying transfer
step guest-fabric needs=module,provider,rig-image \
  env GUEST_T=600 RUN_NAME=ci-fabric tests/vm/fabric.sh --boot
# the same through the software NIC (the black hole and the plane down
# with mroce_swnic running both devices)
step guest-fabric-swnic needs=module,provider,rig-image \
  env GUEST_T=600 RUN_NAME=ci-fabric-swnic tests/vm/fabric.sh --boot datapath=swnic
# kernel ULPs on mroce (issue 11): NVMe-oF and NFS over RDMA, in the
# storage image (fio, nvme-cli, NFS tools: RIG_STORAGE=1)
step rig-storage needs=rig-fetch \
  env RIG_STORAGE=1 bash -c 'scripts/vm/fetch-debs.sh && scripts/vm/build-initramfs.sh &&
    { [ "${RIG_DEBUG_KERNEL:-0}" = 0 ] || RIG_DEBUG=1 scripts/vm/build-initramfs.sh; }'
step guest-nvme needs=module,provider,rig-storage \
  env GUEST_T=1200 RUN_NAME=ci-nvme tests/vm/nvme.sh --boot driver=mroce
step guest-nfs needs=module,provider,rig-storage \
  env GUEST_T=900 RUN_NAME=ci-nfs tests/vm/nfs.sh --boot driver=mroce
step guest-ucx needs=module,provider,rig-storage \
  scripts/vm/run-guest.sh -s -P -t 600 -n ci-ucx tests/vm/ucx.sh
step rig-python needs=rig-fetch \
  env RIG_PYTHON=1 bash -c 'scripts/vm/fetch-debs.sh && scripts/vm/build-initramfs.sh &&
    { [ "${RIG_DEBUG_KERNEL:-0}" = 0 ] || RIG_DEBUG=1 scripts/vm/build-initramfs.sh; }'
step pyverbs needs=module,provider,rig-python \
  scripts/vm/run-guest.sh -y -P -t 2400 -n ci-pyverbs \
    -f scripts/vm/stage/usr/share/doc/rdma-core/tests tests/vm/pyverbs.sh
# interoperability (issue 33): libmroce-ep in node mode against the kernel
# module across a veth pair, WRITE/READ/atomics verified, lossless and at
# 1 % loss (tests/vm/interop.sh, mroce-epside)
step guest-interop needs=module,provider,rig-image \
  bash -c 'make -s ep && scripts/vm/run-guest.sh -P -f build/ep/mroce-ep -t 300 -n ci-interop tests/vm/interop.sh'
# the conformance suite's tier 1 against the kernel module (issue 33):
# the suite in a netns of its own, a node per address (tests/vm/conformance.sh)
step guest-conformance needs=module,rig-python \
  scripts/vm/run-guest.sh -y -P -f tests/conformance -t 300 -n ci-conformance tests/vm/conformance.sh
# tier 3 of the suite (tests/conformance/mitm.py) with the kernel module as
# the server: a relay between mroce-ep and an mroce device drops,
# duplicates, reorders, CE-marks, kills a path (tests/vm/mitm.sh)
step guest-mitm needs=module,provider,rig-python \
  bash -c 'make -s ep && scripts/vm/run-guest.sh -y -P -f build/ep/mroce-ep -f tests/conformance -t 600 -n ci-mitm tests/vm/mitm.sh'
step kunit needs=setup tests/kunit/run.sh

echo "##### total $(el "$T0") s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
