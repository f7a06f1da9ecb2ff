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
#     -D          boot the debug kernel (build-debug-kernel.sh: KASAN,
#                 lockdep, UBSAN, kmemleak, DEBUG_OBJECTS, DEBUG_LIST) and
#                 the debug image (RIG_DEBUG=1 build-initramfs.sh; with -s
#                 the storage one, with -y the python one); -P then shares the modules built against
#                 it (make module-debug: $MROCE_KO_DIR, default
#                 build/debug-kmod), and -f *.ko files are taken from there
#                 when it has them; every shared .ko must match its vermagic.
#                 The log check adds KASAN, lockdep, UBSAN, ODEBUG, list
#                 corruption, hung task and kmemleak (see below)
#     -a ACCEL    kvm | tcg | auto (default auto: tcg unless /dev/kvm is a
#                 real KVM that boots the guest in a short probe)
#     -q          do not print the kernel log
#     -M PLUGIN   load a QEMU TCG plugin (the instruction meter,
#                 build/bench/libmroce-meter.so: bench/meter/meter.c) with
#                 out=RUN/share/out/meter/meter.txt (TCG only)
#   env: QEMU_CPU (TCG model, default qemu64), KERNEL=pvh|bzimage (default
#        pvh; bzimage with -D, whose vmlinux does not boot through PVH),
#        HOST_GRACE (seconds added to -t for the host timeout),
#        MROCE_KO_DIR (where -P takes mroce.ko and mroce_swnic.ko; default
#        the project root, build/debug-kmod with -D),
#        RIG_DEBUG_KERNEL=1 (scripts/test.sh --debug-kernel): as -D, and
#        -t stretched to 5 x SECONDS + 150
#
# Exit status: the script's; 124 when the guest watchdog or the host
# timeout stopped the run; 125 when the guest died without an exit marker
# (panic, oops: the kernel runs with oops=panic); 126 when the script
# passed but the kernel log has a warning: any of
#   WARNING: | BUG: | Oops | RIP: | soft lockup | hung_task
# and with -D also
#   UBSAN: | ODEBUG | INFO: lockdep | lockdep: | DEBUG_LOCKS_WARN_ON |
#   turning off the locking correctness validator | possible circular
#   locking | possible recursive locking | inconsistent lock state | irq
#   lock inversion | suspicious RCU usage | list_add corruption |
#   list_del corruption | blocked for more than
# (not a bare "lockdep": "RCU lockdep checking is enabled" is boot noise)
# (KASAN and sleeping-in-atomic reports start with "BUG:"), or when the
# kmemleak scan after the script (guest/init; leaks of the boot cleared
# first) lists an object whose report names mroce or has a frame in a
# module no longer loaded (out/kmemleak.txt; other objects are printed,
# not failed).
# The kernel boots with panic_on_warn=0 so that a WARN leaves a complete
# log and the test's own output behind; the rig fails the run on it instead.
# Run folder: console.log (serial console), share/ (the 9p share, with
# out/guest.log, out/dmesg.txt, out/rc and whatever the script put in
# $RIG_OUT), rc.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
ACCEL=${ACCEL:-auto}; T=600; MEM=2048; CPUS=2; FILES=(); NAME=""; KARGS=""
PROJECT=0; QUIET=0; IMAGE=$BUILD/initramfs.cpio; DEBUGK=0; PLUGIN=""
while getopts "a:t:m:c:f:n:k:M:PysqD" o; do
  case $o in
    a) ACCEL=$OPTARG;; t) T=$OPTARG;; m) MEM=$OPTARG;; c) CPUS=$OPTARG;;
    f) FILES+=("$OPTARG");; n) NAME=$OPTARG;; k) KARGS=$OPTARG;;
    P) PROJECT=1;; y) IMAGE=$BUILD/initramfs-py.cpio;; s) IMAGE=$BUILD/initramfs-storage.cpio;;
    q) QUIET=1;; D) DEBUGK=1;; M) PLUGIN=$(realpath "$OPTARG");;
    *) exit 2;;
  esac
done
shift $((OPTIND-1))
# scripts/test.sh --debug-kernel: every run of the suite as with -D, and
# its time limits stretched (the debug kernel runs about 5x slower and
# takes 150 s more to boot and to scan for leaks)
if [ "${RIG_DEBUG_KERNEL:-0}" = 1 ]; then DEBUGK=1; T=$((T * 5 + 150)); fi
SCRIPT=${1:?usage: run-guest.sh [opts] SCRIPT [-- ARGS] (--help)}; shift
[ "${1:-}" = "--" ] && shift
if [ "$DEBUGK" = 1 ]; then
  DBG=$BUILD/debug
  IMAGE=${IMAGE%.cpio}-debug.cpio
  [ -f "$DBG/bzImage" ] && [ -f "$DBG/kernelrelease" ] ||
    { echo "no debug kernel: run scripts/vm/build-debug-kernel.sh" >&2; exit 2; }
  [ -f "$IMAGE" ] || { echo "no debug image $IMAGE: run RIG_DEBUG=1 scripts/vm/build-initramfs.sh" >&2; exit 2; }
  [ "$DBG/kernelrelease" -nt "$IMAGE" ] &&
    { echo "debug kernel newer than $IMAGE: run RIG_DEBUG=1 scripts/vm/build-initramfs.sh" >&2; exit 2; }
  # bzImage by default: the debug vmlinux through the PVH entry stops
  # before the first console line (KASAN; not investigated)
  KIMG=$DBG/bzImage; [ "${KERNEL:-bzimage}" = pvh ] && [ -f "$DBG/vmlinux" ] && KIMG=$DBG/vmlinux
  MROCE_KO_DIR=${MROCE_KO_DIR:-$ROOT/build/debug-kmod}
else
  [ -f "$BUILD/vmlinuz" ] && [ -f "$IMAGE" ] ||
    { echo "no guest image $IMAGE: run scripts/vm/fetch-debs.sh and build-initramfs.sh" >&2; exit 2; }
  KIMG=$BUILD/vmlinuz; [ "${KERNEL:-pvh}" = pvh ] && [ -f "$BUILD/vmlinux" ] && KIMG=$BUILD/vmlinux
fi
MROCE_KO_DIR=${MROCE_KO_DIR:-$ROOT}
NAME=${NAME:-$(basename "$SCRIPT" .sh)-$(date +%H%M%S)}
RUN=$RUNS/$NAME; rm -rf "$RUN"; mkdir -p "$RUN/share/out"
{ printf 'set --'; [ $# -eq 0 ] || printf ' %q' "$@"; echo; cat "$SCRIPT"; } > "$RUN/share/run.sh"
if [ "$PROJECT" = 1 ]; then
  for f in "$MROCE_KO_DIR/mroce.ko" "$MROCE_KO_DIR/mroce_swnic.ko" "$ROOT/build/provider/libmroce-rdmav34.so" "$ROOT/build/provider/mroce.driver"; do
    [ -f "$f" ] || { echo "missing $f: run make$([ "$DEBUGK" = 1 ] && echo " module-debug")" >&2; exit 2; }
    FILES+=("$f")
  done
  for f in "$ROOT"/build/tests/* "$ROOT"/tests/vm/*.sh; do [ -f "$f" ] && FILES+=("$f"); done
fi
for f in "${FILES[@]}"; do
  if [ "$DEBUGK" = 1 ] && [ "${f%.ko}" != "$f" ] && [ -f "$MROCE_KO_DIR/tests/kmod/$(basename "$f")" ]; then
    f=$MROCE_KO_DIR/tests/kmod/$(basename "$f")   # -f tests/kmod/X.ko: the debug build's
  fi
  cp -a "$f" "$RUN/share/"
done
if [ "$DEBUGK" = 1 ]; then   # a module of another kernel would not load
  krel=$(cat "$DBG/kernelrelease")
  for f in "$RUN"/share/*.ko; do
    [ -f "$f" ] || continue
    v=$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)
    [ "$v" = "$krel" ] || { echo "$(basename "$f") is built for ${v:-?}, not $krel: make module-debug" >&2; exit 2; }
  done
fi

qemu_cmd() {  # qemu_cmd ACCEL TIMEOUT LOG: print the qemu command line
  local acc=$1 to=$2 log=$3 a
  case $acc in
    kvm) a="-accel kvm -cpu host";;
    tcg) a="-accel tcg,thread=multi,tb-size=512 -cpu ${QEMU_CPU:-qemu64}"
      [ -z "$PLUGIN" ] || a="$a -plugin $PLUGIN,out=$RUN/share/out/meter/meter.txt";;
  esac
  echo qemu-system-x86_64 -M pc $a -m "$MEM" -smp "$CPUS" -nodefaults -no-user-config \
    -display none -vga none -monitor none -no-reboot -serial "file:$log" \
    -kernel "$KIMG" -initrd "$IMAGE" \
    -append "\"console=ttyS0 quiet panic=-1 oops=panic panic_on_warn=0 rig.timeout=$to $KARGS\"" \
    -virtfs "local,path=$RUN/share,mount_tag=hostshare,security_model=none,id=hs" \
    -device virtio-rng-pci
}

if [ -n "$PLUGIN" ]; then   # a plugin needs TCG
  [ -f "$PLUGIN" ] || { echo "no plugin $PLUGIN: make meter" >&2; exit 2; }
  [ "$ACCEL" = kvm ] && { echo "-M needs TCG" >&2; exit 2; }
  ACCEL=tcg; mkdir -p "$RUN/share/out/meter"
fi
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
[ "$DEBUGK" = 0 ] || BAD="$BAD|UBSAN:|ODEBUG|INFO: lockdep|lockdep:|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|possible circular locking|possible recursive locking|inconsistent lock state|irq lock inversion|suspicious RCU usage|list_add corruption|list_del corruption|blocked for more than"
if [ "$QUIET" = 0 ] && [ -s "$OUT/dmesg.txt" ]; then
  sed -n '/@@RIG-SCRIPT-START@@/,$p' "$OUT/dmesg.txt" | sed 's/^/dmesg| /'
fi
if grep -qE "$BAD" "$KLOG" 2>/dev/null; then
  echo "kernel log of run $NAME has warnings:" >&2
  grep -nE -B2 -A12 "$BAD" "$KLOG" | head -60 >&2
  if [ "$rc" = 0 ]; then rc=126; why="kernel warning in dmesg ($BAD)"; fi
fi
if [ "$DEBUGK" = 1 ] && [ -z "$why" ]; then
  KML=$OUT/kmemleak.txt
  if [ ! -f "$KML" ]; then
    echo "run $NAME: no kmemleak.txt (kmemleak off in the guest?)" >&2
  elif [ -s "$KML" ]; then
    # one report per object; mroce's: names mroce, or a frame that no
    # longer resolves (code of a module unloaded since: mroce, the test kmods)
    ours=$(awk '/^unreferenced object/{n++} /mroce|\[<[0-9a-f]+>\] 0x/{m[n]=1} END{c=0; for(i in m) c++; print c}' "$KML")
    all=$(grep -c '^unreferenced object' "$KML" || true)
    echo "kmemleak after run $NAME: $all unreferenced objects, $ours of them mroce's or an unloaded module's ($KML):" >&2
    head -80 "$KML" >&2
    if [ "$ours" -gt 0 ] && [ "$rc" = 0 ]; then rc=126; why="kmemleak: $ours leaked objects of mroce or an unloaded module"; fi
  fi
fi
echo "$rc" > "$RUN/rc"
tlog "run:$NAME" "$wall" "accel=$ACCEL rc=$rc userspace-at=${booted:-?}s$([ "$DEBUGK" = 1 ] && echo " debug-kernel") ${why}"
[ -z "$why" ] || echo "run $NAME: FAILED: $why" >&2
exit "$rc"
