#!/bin/bash
# Run the engine's unit tests as KUnit suites on a UML kernel.
#
# Debian's 6.1 kernel has no KUnit (CONFIG_KUNIT is not set), so this builds
# a User Mode Linux kernel with tools/testing/kunit/kunit.py from Debian's
# linux-source-6.1 package (apt-get download, unpacked once into the
# git-ignored scripts/vm/src/). kernel/engine/*.[ch] and tests/unit/*.[ch]
# (except the host runner, runner.c) are copied into drivers/mroce_kunit of
# that tree behind CONFIG_MROCE_KUNIT_TEST; under __KERNEL__ mre_test.h turns
# each MRE_SUITE into a KUnit suite. Only changed files are copied, so a
# rerun rebuilds just what changed (~5 s; the first build takes minutes).
#
#   tests/kunit/run.sh [--help]
#   env: KUNIT_JOBS (default nproc), KUNIT_TIMEOUT (s, default 300)
#
# Prints kunit.py's summary and ends with "N passed, N failed" (crashed
# tests count as failed); exit 1 on failure. With no tests/unit/test_*.c it
# builds nothing and reports "0 passed, 0 failed".
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/config.sh"
SRCV=6.1
SRCDIR=$LAB/src/linux-source-$SRCV
KBUILD=$BUILD/kunit-uml
DRV=$SRCDIR/drivers/mroce_kunit

if ! compgen -G "$ROOT/tests/unit/test_*.c" >/dev/null; then
  echo "kunit: no tests/unit/test_*.c yet, nothing to run"
  echo "0 passed, 0 failed"
  exit 0
fi

# 1. the kernel source, once
linux_source_unpack "$SRCV" "$SRCDIR" kunit-unpack-source ||
  { echo "kunit: cannot unpack linux-source-$SRCV" >&2; exit 1; }

# 2. our driver folder in that tree (idempotent; copies only changes)
mkdir -p "$DRV"
want=""
for f in "$ROOT"/kernel/engine/*.[ch] "$ROOT"/tests/unit/*.[ch]; do
  b=$(basename "$f")
  [ "$b" = runner.c ] && continue
  want="$want $b"
  cmp -s "$f" "$DRV/$b" || cp "$f" "$DRV/$b"
done
for f in "$DRV"/*.[ch]; do   # files gone from the project
  [ -e "$f" ] || continue
  case " $want " in *" $(basename "$f") "*) ;; *) rm -f "$f";; esac
done
cat > "$DRV/Kconfig.new" <<'KC'
config MROCE_KUNIT_TEST
	bool "mroce protocol engine KUnit tests" if !KUNIT_ALL_TESTS
	depends on KUNIT=y
	default KUNIT_ALL_TESTS
KC
cat > "$DRV/Makefile.new" <<'MK'
# (kunit.py builds with O=: the sources are under $(srctree)/$(src))
ccflags-y += -Werror -I$(srctree)/$(src)
obj-$(CONFIG_MROCE_KUNIT_TEST) += $(patsubst $(srctree)/$(src)/%.c,%.o,$(wildcard $(srctree)/$(src)/*.c))
MK
for f in Kconfig Makefile; do
  cmp -s "$DRV/$f.new" "$DRV/$f" && rm "$DRV/$f.new" || mv "$DRV/$f.new" "$DRV/$f"
done
grep -q mroce_kunit "$SRCDIR/drivers/Kconfig" ||
  sed -i 's|^endmenu|source "drivers/mroce_kunit/Kconfig"\nendmenu|' "$SRCDIR/drivers/Kconfig"
grep -q mroce_kunit "$SRCDIR/drivers/Makefile" || echo 'obj-y += mroce_kunit/' >> "$SRCDIR/drivers/Makefile"
mkdir -p "$KBUILD"
printf 'CONFIG_KUNIT=y\nCONFIG_MROCE_KUNIT_TEST=y\n' > "$KBUILD/mroce.kunitconfig"

# 3. build, boot, parse
t=$(now)
log=$KBUILD/kunit.log
set +e
(cd "$SRCDIR" && python3 tools/testing/kunit/kunit.py run --build_dir="$KBUILD" \
   --kunitconfig="$KBUILD/mroce.kunitconfig" --jobs="${KUNIT_JOBS:-$(nproc)}" \
   --timeout="${KUNIT_TIMEOUT:-300}") > "$log" 2>&1
rc=$?
set -e
sum=$(grep -E 'Testing complete' "$log" | tail -1 || true)
tlog kunit-run "$(elapsed "$t")" "rc=$rc ${sum#*] }"
grep -E '^\[..:..:..\] +(\[(PASSED|FAILED|CRASHED|SKIPPED)\]|=+ |Testing complete|# )' "$log" | tail -60 || true
num() { grep -oE "$1: [0-9]+" <<<"$sum" | grep -oE '[0-9]+' || echo 0; }
pass=$(num passed)
fail=$(( $(num failed) + $(num crashed) ))
[ "$fail" -gt 0 ] || fail=$(num errors)   # parse errors only
if [ -z "$sum" ]; then
  echo "kunit: no result (build or boot failed, rc=$rc); last lines of $log:" >&2
  tail -40 "$log" >&2
  fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
