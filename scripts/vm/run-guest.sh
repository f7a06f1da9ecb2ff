#!/bin/bash
# Boot the test guest (Debian's 6.1 kernel, rig initramfs) under qemu, run
# one script in it as root under bash, and report: the script's output on
# stdout, then the kernel log written while it ran ("dmesg| " lines), then
# the exit status.
#
#   scripts/vm/run-guest.sh [options] SCRIPT [-- ARGS...]
#     -P          share the project's build outputs: mroce.ko, mroce_swnic.ko,
#                 libmroce-rdmav34.so, mroce.driver, build/tests/*,
#                 tests/vm/*.sh (the guest sees /mnt/host/<name>)
#     -f PATH     more files/folders for the share (repeatable)
#     -t SECONDS  guest time limit (default 600): the guest's watchdog
#                 powers off at SECONDS, the host kills qemu at SECONDS+180
#                 (+60 under KVM) even if the guest hangs
#     -m MIB      guest memory (default 2048)     -c N   vCPUs (default 2)
#     -n NAME     run name (default: script name + time): scripts/vm/runs/NAME
#     -k ARGS     extra kernel command line
#     -y          boot the python3/pyverbs image (build-initramfs.sh RIG_PYTHON=1)
#     -s          boot the storage image: fio, nvme-cli, NFS tools, NVMe-oF
#                 and NFS modules (build-initramfs.sh RIG_STORAGE=1)
#     -a ACCEL    kvm | tcg | auto (default auto: tcg unless /dev/kvm is a
#                 real KVM that boots the guest in a short probe)
#     -q          do not print the kernel log
#   env: QEMU_CPU (TCG model, default qemu64), KERNEL=pvh|bzimage,
#        HOST_GRACE (seconds added to -t for the host timeout)
#
# Exit status: the script's; 124 when the guest watchdog or the host
# timeout stopped the run; 125 when the guest died without an exit marker
# (panic, oops: the kernel runs with oops=panic); 126 when the script
# passed but the kernel log has a warning: any of
#   WARNING: | BUG: | Oops | RIP: | soft lockup | hung_task
# The kernel boots with panic_on_warn=0 so that a WARN leaves a complete
# log and the test's own output behind; the rig fails the run on it instead.
# Run folder: console.log (serial console), share/ (the 9p share, with
# out/guest.log, out/dmesg.txt, out/rc and whatever the script put in
# $RIG_OUT), rc.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
ACCEL=${ACCEL:-auto}; T=600; MEM=2048; CPUS=2; FILES=(); NAME=""; KARGS=""
PROJECT=0; QUIET=0; IMAGE=$BUILD/initramfs.cpio
while getopts "a:t:m:c:f:n:k:Pysq" o; do
  case $o in
    a) ACCEL=$OPTARG;; t) T=$OPTARG;; m) MEM=$OPTARG;; c) CPUS=$OPTARG;;
    f) FILES+=("$OPTARG");; n) NAME=$OPTARG;; k) KARGS=$OPTARG;;
    P) PROJECT=1;; y) IMAGE=$BUILD/initramfs-py.cpio;; s) IMAGE=$BUILD/initramfs-storage.cpio;;
    q) QUIET=1;;
    *) exit 2;;
  esac
done
shift $((OPTIND-1))
SCRIPT=${1:?usage: run-guest.sh [opts] SCRIPT [-- ARGS] (--help)}; shift
[ "${1:-}" = "--" ] && shift
[ -f "$BUILD/vmlinuz" ] && [ -f "$IMAGE" ] ||
  { echo "no guest image $IMAGE: run scripts/vm/fetch-debs.sh and build-initramfs.sh" >&2; exit 2; }
KIMG=$BUILD/vmlinuz; [ "${KERNEL:-pvh}" = pvh ] && [ -f "$BUILD/vmlinux" ] && KIMG=$BUILD/vmlinux
NAME=${NAME:-$(basename "$SCRIPT" .sh)-$(date +%H%M%S)}
RUN=$RUNS/$NAME; rm -rf "$RUN"; mkdir -p "$RUN/share/out"
{ printf 'set --'; [ $# -eq 0 ] || printf ' %q' "$@"; echo; cat "$SCRIPT"; } > "$RUN/share/run.sh"
if [ "$PROJECT" = 1 ]; then
  for f in "$ROOT/mroce.ko" "$ROOT/mroce_swnic.ko" "$ROOT/build/provider/libmroce-rdmav34.so" "$ROOT/build/provider/mroce.driver"; do
    [ -f "$f" ] || { echo "missing $f: run make" >&2; exit 2; }
    FILES+=("$f")
  done
  for f in "$ROOT"/build/tests/* "$ROOT"/tests/vm/*.sh; do [ -f "$f" ] && FILES+=("$f"); done
fi
for f in "${FILES[@]}"; do cp -a "$f" "$RUN/share/"; done

qemu_cmd() {  # qemu_cmd ACCEL TIMEOUT LOG: print the qemu command line
  local acc=$1 to=$2 log=$3 a
  case $acc in
    kvm) a="-accel kvm -cpu host";;
    tcg) a="-accel tcg,thread=multi,tb-size=512 -cpu ${QEMU_CPU:-qemu64}";;
  esac
  echo qemu-system-x86_64 -M pc $a -m "$MEM" -smp "$CPUS" -nodefaults -no-user-config \
    -display none -vga none -monitor none -no-reboot -serial "file:$log" \
    -kernel "$KIMG" -initrd "$IMAGE" \
    -append "\"console=ttyS0 quiet panic=-1 oops=panic panic_on_warn=0 rig.timeout=$to $KARGS\"" \
    -virtfs "local,path=$RUN/share,mount_tag=hostshare,security_model=none,id=hs" \
    -device virtio-rng-pci
}

if [ "$ACCEL" = auto ]; then
  ACCEL=tcg
  if [ -d /sys/module/kvm_pvm ] && ! [ -d /sys/module/kvm_intel ] && ! [ -d /sys/module/kvm_amd ]; then
    : # KVM-PVM runs an unmodified kernel far slower than TCG: no probe
  elif [ -c /dev/kvm ] && [ -w /dev/kvm ]; then
    mkdir -p "$RUN/probe"; t=$(now)
    eval timeout -k 2 "${KVM_PROBE_S:-25}" "$(qemu_cmd kvm 10 "$RUN/probe/console.log")" >/dev/null 2>&1 || true
    grep -q '@@RIG-BOOTED' "$RUN/probe/console.log" 2>/dev/null && ACCEL=kvm
    tlog kvm-probe "$(elapsed "$t")" "result: $ACCEL"
  fi
fi
HOST_T=$((T + ${HOST_GRACE:-$([ "$ACCEL" = kvm ] && echo 60 || echo 180)}))
echo "run $NAME: accel=$ACCEL mem=${MEM}M cpus=$CPUS guest-timeout=${T}s host-timeout=${HOST_T}s -> $RUN" >&2
qemu_cmd "$ACCEL" "$T" "$RUN/console.log" > "$RUN/qemu.cmd"
t=$(now)
set +e
eval timeout -k 5 "$HOST_T" "$(cat "$RUN/qemu.cmd")" > "$RUN/qemu.out" 2>&1
qrc=$?
set -e
wall=$(elapsed "$t")

OUT=$RUN/share/out
[ -f "$OUT/guest.log" ] && cat "$OUT/guest.log"
rc=$(sed -n 's/.*@@RIG-EXIT rc=\([0-9]*\).*/\1/p' "$RUN/console.log" 2>/dev/null | tail -1)
booted=$(sed -n 's/.*@@RIG-BOOTED uptime=\([0-9.]*\)@@.*/\1/p' "$RUN/console.log" 2>/dev/null | head -1)
why=""
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
  rc=124; why="host timeout after ${HOST_T}s (guest hung)"
elif grep -q '@@RIG-WATCHDOG' "$RUN/console.log"; then
  rc=124; why="guest watchdog fired after ${T}s"
elif [ -z "$rc" ]; then
  rc=125; why="guest stopped without exit marker (qemu rc $qrc): panic or crash"
  tail -30 "$RUN/console.log" >&2
fi

# the kernel log: dmesg.txt from the guest, else (crash) the console
KLOG=$OUT/dmesg.txt; [ -s "$KLOG" ] || KLOG=$RUN/console.log
BAD='WARNING:|BUG:|Oops|RIP:|soft lockup|hung_task'
if [ "$QUIET" = 0 ] && [ -s "$OUT/dmesg.txt" ]; then
  sed -n '/@@RIG-SCRIPT-START@@/,$p' "$OUT/dmesg.txt" | sed 's/^/dmesg| /'
fi
if grep -qE "$BAD" "$KLOG" 2>/dev/null; then
  echo "kernel log of run $NAME has warnings:" >&2
  grep -nE -B2 -A12 "$BAD" "$KLOG" | head -60 >&2
  if [ "$rc" = 0 ]; then rc=126; why="kernel warning in dmesg ($BAD)"; fi
fi
echo "$rc" > "$RUN/rc"
tlog "run:$NAME" "$wall" "accel=$ACCEL rc=$rc userspace-at=${booted:-?}s ${why}"
[ -z "$why" ] || echo "run $NAME: FAILED: $why" >&2
exit "$rc"
