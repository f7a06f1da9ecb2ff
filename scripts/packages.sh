#!/bin/bash
# Build mroce's Debian packages from a clean copy of the tree, check them
# with lintian, build the module from the mroce-dkms package with DKMS for
# the guest's kernel, and optionally boot the guest with the provider from
# the .deb and the DKMS-built module (tests/vm/packages.sh).
#
#   scripts/packages.sh [--guest] [--help]
#     --guest   also run the guest check (needs the rig image and
#               build/tests/mroce-verbs-check: make tools)
#
# Everything lands in build/pkg/: the source copy (mroce-VERSION/), the
# .debs, .changes and .buildinfo, lintian.txt, the private DKMS tree
# (dkms/: dkms add/build use --sourcetree and --dkmstree there, so the
# host's /usr/src and /var/lib/dkms are left alone; the module is signed
# with a throwaway key made there) and the guest's files (guest/).
# One line per check, PASS/FAIL; the last line is "N passed, N failed";
# the exit status is non-zero if any check failed.
#   env: KVER   the kernel to build for (default: scripts/kver.sh)
#        LINTIAN_ARGS  more lintian options
set -euo pipefail
GUEST=0
for a in "$@"; do
  case $a in
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;;
    --guest) GUEST=1;;
    *) echo "packages.sh: unknown argument $a (--help)" >&2; exit 2;;
  esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
KVER=${KVER:-$(scripts/kver.sh)}
KDIR=/usr/src/linux-headers-$KVER
PKG=$ROOT/build/pkg
pass=0 fail=0

check() {  # check DESC CMD...: PASS/FAIL line; on failure the output's tail
  local desc=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "PASS $desc"; pass=$((pass + 1))
  else
    echo "FAIL $desc"; printf '%s\n' "$out" | tail -30 | sed 's/^/    /'; fail=$((fail + 1))
  fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ] && exit 0
  exit 1
}
need() {  # need CMD PACKAGE
  command -v "$1" >/dev/null || { echo "packages.sh: $1 missing: install $2 (scripts/setup.sh)" >&2; exit 1; }
}
need dpkg-buildpackage dpkg-dev
need dh debhelper
need dh_dkms dh-dkms
need dkms dkms
need lintian lintian
[ -n "$KVER" ] && [ -d "$KDIR" ] || { echo "packages.sh: no kernel headers at $KDIR (scripts/setup.sh)" >&2; exit 1; }

VER=$(dpkg-parsechangelog -l debian/changelog -S Version)
UVER=${VER%%-*}
ARCH=$(dpkg --print-architecture)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
SRC=$PKG/mroce-$UVER
echo "# mroce $VER, kernel $KVER, results in ${PKG#"$ROOT"/}"

# --- a clean copy: the tracked and untracked-but-not-ignored files (in a git
# checkout, with their working-tree edits), else the tree minus build outputs
rm -rf "$PKG"; mkdir -p "$SRC"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z -co --exclude-standard |
    grep -zvE '^scripts/vm/(cache|stage|build|src|runs)(/|$)' |
    while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -C "$SRC" -xf -
else
  tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
    --exclude=./scripts/vm/cache --exclude=./scripts/vm/stage --exclude=./scripts/vm/build \
    --exclude=./scripts/vm/src --exclude=./scripts/vm/runs --exclude=./bench/tmp -cf - . |
    tar -C "$SRC" -xf -
fi
check "source copy in ${SRC#"$ROOT"/} ($(find "$SRC" -type f | wc -l) files)" test -f "$SRC/debian/rules"
check "dkms.conf PACKAGE_VERSION = changelog's $UVER" grep -qx "PACKAGE_VERSION=\"$UVER\"" dkms.conf

# --- the packages ------------------------------------------------------------
build_pkgs() { (cd "$SRC" && dpkg-buildpackage -b -us -uc) > "$PKG/build.log" 2>&1 || { tail -40 "$PKG/build.log"; return 1; }; }
check "dpkg-buildpackage -b -us -uc (log: build/pkg/build.log)" build_pkgs
CHANGES=$PKG/mroce_${VER}_$ARCH.changes
DKMS_DEB=$PKG/mroce-dkms_${VER}_all.deb
PROV_DEB=$PKG/mroce-ibverbs-provider_${VER}_$ARCH.deb
[ -f "$CHANGES" ] && [ -f "$DKMS_DEB" ] && [ -f "$PROV_DEB" ] ||
  { echo "FAIL packages not built ($(ls "$PKG"))"; fail=$((fail + 1)); finish; }
for d in "$PKG"/*.deb; do echo "# $(basename "$d"): $(stat -c %s "$d") bytes"; done

has() {  # has DEB PATH...: the package holds every PATH
  local deb=$1 list p; shift
  list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
  for p; do grep -qxF "$p" <<<"$list" || { echo "$p not in $(basename "$deb")"; return 1; }; done
}
field_has() {  # field_has DEB FIELD TEXT
  local v; v=$(dpkg-deb -f "$1" "$2"); echo "$2: $v"; grep -qF "$3" <<<"$v"
}
S=/usr/src/mroce-$UVER
check "mroce-dkms: Architecture all, depends on dkms" bash -c "$(declare -f field_has); field_has '$DKMS_DEB' Architecture all && field_has '$DKMS_DEB' Depends dkms"
check "mroce-dkms: $S with dkms.conf, Kbuild, kernel/, engine, UAPI headers" \
  has "$DKMS_DEB" "$S/dkms.conf" "$S/Kbuild" "$S/kernel/main.c" "$S/kernel/mroce.h" \
    "$S/kernel/engine/conn.c" "$S/include/uapi/rdma/mroce-abi.h"
check "mroce-dkms: nothing built in the source (no .o/.ko/.cmd)" bash -c \
  "! dpkg-deb -c '$DKMS_DEB' | grep -E '\\.(o|ko|cmd|mod)\$'"
check "mroce-dkms: postinst runs dkms (dh_dkms)" bash -c \
  "dpkg-deb -I '$DKMS_DEB' postinst | grep -q 'dkms'"
check "provider: rdma-core's paths (/usr/lib/$MA/libibverbs, /etc/libibverbs.d)" \
  has "$PROV_DEB" "/usr/lib/$MA/libibverbs/libmroce-rdmav34.so" /etc/libibverbs.d/mroce.driver
check "provider: Depends from shlibs names libibverbs1" bash -c "$(declare -f field_has); field_has '$PROV_DEB' Depends libibverbs1"
check "provider: no DKMS parts (/usr/src, dkms dependency, dkms in maintainer scripts)" bash -c \
  "! dpkg-deb -c '$PROV_DEB' | grep -q ' ./usr/src/' && ! dpkg-deb -f '$PROV_DEB' Depends | grep -qw dkms &&
   ! { dpkg-deb -I '$PROV_DEB' postinst 2>/dev/null; dpkg-deb -I '$PROV_DEB' prerm 2>/dev/null; } | grep -q dkms"
check "provider: driver file says 'driver mroce'" bash -c \
  "dpkg-deb --fsys-tarfile '$PROV_DEB' | tar -xOf - ./etc/libibverbs.d/mroce.driver | grep -qx 'driver mroce'"
check "mroce-dkms: mroce(7), the page man-check holds to the code" bash -c \
  "dpkg-deb -c '$DKMS_DEB' | grep -q ' ./usr/share/man/man7/mroce.7.gz\$' &&
   dpkg-deb --fsys-tarfile '$DKMS_DEB' | tar -xOf - ./usr/share/man/man7/mroce.7.gz | zcat | grep -q '^\.TH mroce 7 '"

# --- lintian: errors fail, warnings are listed ----------------------------------
run_lintian() {
  # shellcheck disable=SC2086
  lintian --fail-on error --info --display-level '>=warning' ${LINTIAN_ARGS:-} "$CHANGES" > "$PKG/lintian.txt" 2>&1
  local rc=$?
  grep -E '^[EW]: ' "$PKG/lintian.txt" || true
  return "$rc"
}
check "lintian: no errors (build/pkg/lintian.txt)" run_lintian
echo "# lintian: $(grep -c '^E: ' "$PKG/lintian.txt" || true) errors, $(grep -c '^W: ' "$PKG/lintian.txt" || true) warnings"
grep -E '^W: ' "$PKG/lintian.txt" | sed 's/^/#   /' || true

# --- dkms from the package's own source tree, in a private tree -------------
DK=$PKG/dkms
mkdir -p "$DK/tree"
dpkg-deb -x "$DKMS_DEB" "$DK/root"
# (env: dkms signs with this throwaway key instead of making one in /var/lib/dkms)
DKMS=(env "mok_signing_key=$DK/mok.key" "mok_certificate=$DK/mok.pub"
      dkms --sourcetree "$DK/root/usr/src" --dkmstree "$DK/tree")
check "dkms add -m mroce -v $UVER (private tree)" "${DKMS[@]}" add -m mroce -v "$UVER"
check "dkms build -k $KVER --kernelsourcedir $KDIR" \
  "${DKMS[@]}" build -m mroce -v "$UVER" -k "$KVER" --kernelsourcedir "$KDIR"
KO=$DK/tree/mroce/$UVER/$KVER/$(uname -m)/module/mroce.ko
check "dkms status: built for $KVER" bash -c \
  "o=\$(dkms --dkmstree '$DK/tree' --sourcetree '$DK/root/usr/src' status -m mroce); echo \"\$o\"; grep -q '$KVER.*built' <<<\"\$o\""
check "mroce.ko from dkms: vermagic $KVER, name mroce, needs ib_core" bash -c \
  "modinfo '$KO'; [ \"\$(modinfo -F vermagic '$KO' | cut -d' ' -f1)\" = '$KVER' ] &&
   [ \"\$(modinfo -F name '$KO')\" = mroce ] && modinfo -F depends '$KO' | grep -qw ib_core"
check "mroce.ko from dkms: the rdma link type alias" bash -c \
  "modinfo -F alias '$KO' | grep -qx 'rdma-link-mroce'"
[ -f "$KO" ] && echo "# dkms-built mroce.ko: $(stat -c %s "$KO") bytes"
check "mroce_swnic.ko from dkms: vermagic $KVER, needs mroce" bash -c \
  "k='${KO%/*}/mroce_swnic.ko'; modinfo \"\$k\" &&
   [ \"\$(modinfo -F vermagic \"\$k\" | cut -d' ' -f1)\" = '$KVER' ] && modinfo -F depends \"\$k\" | grep -qw mroce"

# --- the guest: provider from the .deb, module from dkms ---------------------
if [ "$GUEST" = 1 ]; then
  G=$PKG/guest
  mkdir -p "$G"
  dpkg-deb -x "$PROV_DEB" "$G/provider-root"
  ok=1
  for f in "$KO" build/tests/mroce-verbs-check tests/vm/lib.sh tests/vm/topo.sh; do
    [ -f "$f" ] || { echo "FAIL guest: $f missing (make module provider tools; dkms build above)"; fail=$((fail + 1)); ok=0; }
  done
  if [ "$ok" = 1 ]; then
    cp "$KO" "$G/mroce.ko"
    share=(-f "$G/provider-root" -f "$G/mroce.ko" -f build/tests/mroce-verbs-check
           -f tests/vm/lib.sh -f tests/vm/topo.sh)
    [ -f build/tests/mroce-linebuf.so ] && share+=(-f build/tests/mroce-linebuf.so)
    # one qemu guest at a time on this machine (the lock the other runs take)
    if scripts/vm/run-guest.sh -t 600 -n pkg-guest "${share[@]}" \
        tests/vm/packages.sh -- "$MA" > "$PKG/guest.log" 2>&1; then
      grc=0
    else
      grc=$?
    fi
    grep -E '^(ok|not ok) ' "$PKG/guest.log" | sed 's/^/#   guest: /' || true
    gsum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$PKG/guest.log" | tail -1 || true)
    check "guest: provider from the .deb, module from dkms (${gsum:-no summary}; build/pkg/guest.log)" \
      bash -c "[ $grc -eq 0 ] || { grep -vE '^ok ' '$PKG/guest.log' | tail -40; exit 1; }"
  fi
fi

finish
