#!/bin/bash
# Build the rig's debug guest kernel: Debian's linux-source-6.1 (the same
# source tree tests/kunit/run.sh unpacks into scripts/vm/src/) with Debian's
# own config (stage/boot/config-$KVER), trimmed by localmodconfig to the
# modules the rig's images load (GUEST_MODULES, STORAGE_MODULES and their
# dependencies; what Debian builds in stays built in), plus the fragment
# scripts/vm/debug.config: KASAN (generic, inline), lockdep (PROVE_LOCKING),
# DEBUG_LIST, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS (+timers, work), kmemleak
# (no scanning thread: the guest scans at the end of a run), UBSAN (bounds,
# shift); no debug info, no BTF, modules not signed.
#
#   scripts/vm/build-debug-kernel.sh [--help]
#   env: JOBS (make -j, default 2)  FORCE=1 (run make even when up to date)
#        DEBUG_CONFIG (fragment, default scripts/vm/debug.config)
#
# The build runs under nice -n 19 (guest runs keep priority). It is skipped
# when build/debug/stamp matches the inputs (source .deb, Debian's config,
# the fragment, the module list); an interrupted build resumes where make
# left off when the script is run again.
# Outputs in build/debug/: bzImage (run-guest.sh -D boots it; the vmlinux
# does not boot through PVH), vmlinux, config,
# kernelrelease (e.g. 6.1.192-mroce-debug), modules/lib/modules/<release>
# (modules_install), obj/ (the O= build tree, usable as KDIR:
# make module-debug), build.log, lsmod (the localmodconfig input).
# Then: RIG_DEBUG=1 build-initramfs.sh, make module-debug, run-guest.sh -D.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
SRCV=6.1
SRCDIR=$LAB/src/linux-source-$SRCV      # shared with tests/kunit/run.sh
DBG=$BUILD/debug
OBJ=$DBG/obj
FRAG=${DEBUG_CONFIG:-$LAB/debug.config}
JOBS=${JOBS:-2}
FORMAT=1                                # bump when the recipe changes
DCONF=$STAGE/boot/config-$KVER
[ -f "$DCONF" ] && [ -f "$STAGE/lib/modules/$KVER/modules.dep" ] ||
  { echo "no Debian kernel in $STAGE: run scripts/vm/fetch-debs.sh first" >&2; exit 1; }
for p in flex bison bc libelf-dev libssl-dev; do
  dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
    { echo "build-debug-kernel: package $p missing: run scripts/setup.sh" >&2; exit 1; }
done
mkdir -p "$DBG"

# 1. the kernel source, once (shared with tests/kunit/run.sh)
linux_source_unpack "$SRCV" "$SRCDIR" unpack-linux-source ||
  { echo "build-debug-kernel: cannot unpack linux-source-$SRCV" >&2; exit 1; }
deb=$(ls -v "$CACHE/linux-source-$SRCV"_*.deb 2>/dev/null | tail -1 || true)

# 2. the modules the images load, in lsmod format (localmodconfig's input)
mods=$(for m in $GUEST_MODULES $STORAGE_MODULES; do
         modprobe -d "$STAGE" -S "$KVER" --show-depends "$m" || { echo "ERROR: module $m" >&2; exit 1; }
       done | awk '$1=="insmod" {n=$2; sub(/.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n); print n}' | sort -u)
{ echo "Module                  Size  Used by"; for m in $mods; do echo "$m 0 0"; done; } > "$DBG/lsmod.new"
mv "$DBG/lsmod.new" "$DBG/lsmod"

# 3. up to date?
key=$( { echo "format $FORMAT"; echo "source ${deb##*/} $(sed -n 's/^SUBLEVEL = //p' "$SRCDIR/Makefile")";
         cat "$DCONF" "$FRAG" "$DBG/lsmod"; } | sha256sum | cut -d' ' -f1)
if [ "${FORCE:-0}" != 1 ] && [ -f "$DBG/stamp" ] && [ "$(cat "$DBG/stamp")" = "$key" ] &&
   [ -f "$DBG/vmlinux" ] && [ -f "$DBG/kernelrelease" ]; then
  tlog debug-kernel 0 "up to date: $(cat "$DBG/kernelrelease")"
  exit 0
fi
rm -f "$DBG/stamp"

# 4. configure: Debian's config, trimmed, plus the fragment
t=$(now)
mkdir -p "$OBJ"
cp "$DCONF" "$OBJ/.config"
mk() { nice -n 19 make -C "$SRCDIR" O="$OBJ" "$@"; }
mk -s LSMOD="$DBG/lsmod" localmodconfig > "$DBG/config.log" 2>&1 ||
  { tail -20 "$DBG/config.log" >&2; exit 1; }
(cd "$OBJ" && "$SRCDIR/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$FRAG") >> "$DBG/config.log" 2>&1
mk -s olddefconfig >> "$DBG/config.log" 2>&1
bad=0
while IFS= read -r l; do   # every setting of the fragment must have stuck
  case "$l" in
    CONFIG_*=*) s=${l%%=*};;
    "# CONFIG_"*" is not set") s=${l#\# }; s=${s%% *};;
    *) continue;;
  esac
  got=$(grep -E "^($s=|# $s is not set)" "$OBJ/.config" || true)
  if [ "$got" != "$l" ]; then
    # "is not set" and ="" may also show as an absent (invisible) symbol
    case "$l" in "# "*|*'=""') [ -z "$got" ] && continue;; esac
    echo "build-debug-kernel: $l did not stick (got: ${got:-nothing})" >&2; bad=1
  fi
done < "$FRAG"
[ "$bad" = 0 ] || exit 1
nm=$(grep -c '=m$' "$OBJ/.config" || true)
tlog debug-kernel-config "$(elapsed "$t")" "localmodconfig ($(echo "$mods" | wc -w) modules listed, $nm =m) + $(basename "$FRAG")"

# 5. build (resumes an interrupted build: make is incremental)
t=$(now)
echo "building the debug kernel in $OBJ (log: $DBG/build.log)" >&2
if ! mk -j"$JOBS" bzImage modules > "$DBG/build.log" 2>&1; then
  grep -E 'error|Error' "$DBG/build.log" | head -20 >&2; tail -20 "$DBG/build.log" >&2
  tlog debug-kernel-build "$(elapsed "$t")" "FAILED (log: $DBG/build.log)"
  exit 1
fi
krel=$(mk -s kernelrelease)
rm -rf "$DBG/modules"
mk -s INSTALL_MOD_PATH="$DBG/modules" INSTALL_MOD_STRIP=1 modules_install >> "$DBG/build.log" 2>&1
rm -f "$DBG/modules/lib/modules/$krel"/{build,source}
cp "$OBJ/vmlinux" "$DBG/vmlinux.tmp"; mv "$DBG/vmlinux.tmp" "$DBG/vmlinux"
cp "$OBJ/arch/x86/boot/bzImage" "$DBG/bzImage"
cp "$OBJ/.config" "$DBG/config"
echo "$krel" > "$DBG/kernelrelease"
echo "$key" > "$DBG/stamp"
nko=$(find "$DBG/modules/lib/modules/$krel" -name '*.ko' | wc -l)
tlog debug-kernel-build "$(elapsed "$t")" "$krel: -j$JOBS, $nko modules, vmlinux $(du -h "$DBG/vmlinux" | cut -f1), bzImage $(du -h "$DBG/bzImage" | cut -f1)"
