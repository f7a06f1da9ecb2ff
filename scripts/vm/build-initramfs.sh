#!/bin/bash
# Build the guest's whole root filesystem as one uncompressed initramfs from
# the unpacked .debs in scripts/vm/stage, and extract the guest kernel as an
# uncompressed vmlinux (PVH entry: no emulated decompression at boot).
#
#   scripts/vm/build-initramfs.sh [--help]
#   env: RIG_PYTHON=1   build the pyverbs variant, build/initramfs-py.cpio
#                       (needs fetch-debs.sh with RIG_PYTHON=1)
#        RIG_STORAGE=1  build the storage variant, build/initramfs-storage.cpio:
#                       fio, nvme-cli, nfsd/mount.nfs/rpcbind, UCX (ucx_perftest) and the
#                       NVMe-oF/NFS modules (STORAGE_MODULES; needs
#                       fetch-debs.sh with RIG_STORAGE=1)
#        RIG_DEBUG=1    take the kernel modules from the debug kernel
#                       (build-debug-kernel.sh, build/debug/) instead of
#                       Debian's package: build/initramfs-debug.cpio (with
#                       RIG_STORAGE=1: initramfs-storage-debug.cpio; with
#                       RIG_PYTHON=1: initramfs-py-debug.cpio), booted
#                       by run-guest.sh -D; build/vmlinux is not touched
#        GUEST_MODULES  kernel modules to pack (see config.sh)
#
# Contents: busybox-static (every applet), bash (tests run under bash:
# Debian's busybox ash prefers its own applets over PATH), iproute2, kmod,
# iputils-ping, rdma-core, ibverbs-providers/-utils, rdmacm-utils, perftest, qperf,
# iperf3 (TCP beside RDMA in the fabric benchmark),
# the shared libraries they need, the modules with their dependencies, and
# guest/init as /init. Our own build outputs are not in the image: they come
# through the 9p share at run time (run-guest.sh -P).
# Outputs: build/vmlinux, build/vmlinuz, build/config, build/initramfs.cpio
# (or initramfs-py.cpio, initramfs-storage.cpio, initramfs-debug.cpio)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0;; esac
. "$(dirname "$0")/config.sh"
[ -d "$STAGE/lib/modules/$KVER" ] || { echo "run scripts/vm/fetch-debs.sh first" >&2; exit 1; }
PY=${RIG_PYTHON:-0}
IMG=$BUILD/initramfs.cpio RFS=$BUILD/rootfs
if [ "$PY" = 1 ]; then IMG=$BUILD/initramfs-py.cpio RFS=$BUILD/rootfs-py; fi
ST=${RIG_STORAGE:-0}
if [ "$ST" = 1 ]; then
  [ "$PY" = 1 ] && { echo "RIG_PYTHON=1 and RIG_STORAGE=1 are separate images" >&2; exit 1; }
  IMG=$BUILD/initramfs-storage.cpio RFS=$BUILD/rootfs-storage
  GUEST_MODULES="$GUEST_MODULES $STORAGE_MODULES"
fi
DBGK=${RIG_DEBUG:-0}
MODROOT=$STAGE MODVER=$KVER   # where the modules come from, and their kernel
if [ "$DBGK" = 1 ]; then
  [ -f "$BUILD/debug/kernelrelease" ] || { echo "no debug kernel: run scripts/vm/build-debug-kernel.sh" >&2; exit 1; }
  MODVER=$(cat "$BUILD/debug/kernelrelease") MODROOT=$BUILD/debug/modules
  IMG=${IMG%.cpio}-debug.cpio RFS=$RFS-debug
fi
LIBDIR=usr/lib/x86_64-linux-gnu
t0=$(now)
rm -rf "$RFS"; mkdir -p "$RFS"/{usr/bin,usr/sbin,usr/lib64,$LIBDIR,etc,proc,sys,dev,tmp,run,mnt/host,root,var}
ln -s usr/bin "$RFS/bin"; ln -s usr/sbin "$RFS/sbin"; ln -s usr/lib "$RFS/lib"; ln -s usr/lib64 "$RFS/lib64"
ln -s ../run "$RFS/var/run"

declare -A LIBS=()
SLIBPATH="$STAGE/$LIBDIR:$STAGE/lib/x86_64-linux-gnu:$STAGE/$LIBDIR/libibverbs:$STAGE/$LIBDIR/ceph:$STAGE/$LIBDIR/ucx"  # ceph, ucx: RUNPATHs
add_libs() {   # add_libs ELF...: remember the shared libraries they need
  local f l
  for f in "$@"; do
    while read -r l; do
      case "$l" in
        *"not found"*) echo "ERROR: $f needs $l (add its package to GUEST_PKGS)" >&2; exit 1;;
        *"=> /"*) l=${l#*=> }; l=${l%% (*}; LIBS[$l]=1;;
        /*) l=${l%% (*}; LIBS[$l]=1;;
      esac
    done < <(LD_LIBRARY_PATH=$SLIBPATH ldd "$f" 2>/dev/null | grep -v 'not a dynamic' || true)
  done
}
add_bin() {   # add_bin DIR FILE...: copy binaries from the stage into DIR
  local d=$1 f; shift
  for f in "$@"; do
    [ -e "$STAGE/$f" ] || { echo "ERROR: missing $f in stage" >&2; exit 1; }
    cp -L "$STAGE/$f" "$RFS/$d/"; add_libs "$STAGE/$f"
  done
}
pkg_bins() {  # pkg_bins PKG...: every /usr/bin, /usr/sbin, /bin, /sbin file of PKG
  local p f
  for p in "$@"; do
    for f in $(dpkg-deb -c "$(ls -v "$CACHE/${p}"_*.deb | tail -1)" | awk '$1 ~ /^-/ {print $6}' |
               grep -E '^\./(usr/)?s?bin/'); do
      f=${f#./}; d=$(dirname "$f"); d=${d#usr/}; d=usr/$d
      rm -f "$RFS/$d/$(basename "$f")"; add_bin "$d" "$f"
    done
  done
}

# busybox: every applet as a symlink; real binaries copied later replace them
cp "$STAGE/bin/busybox" "$RFS/usr/bin/busybox"
for a in $("$RFS/usr/bin/busybox" --list); do
  [ "$a" = busybox ] || ln -sf busybox "$RFS/usr/bin/$a"   # (busybox->busybox would loop)
done
rm -f "$RFS/usr/bin/init" "$RFS/usr/bin/linuxrc"

add_bin usr/bin bin/bash
add_bin usr/sbin sbin/ip sbin/tc usr/bin/rdma sbin/bridge bin/ss
mkdir -p "$RFS/usr/lib/tc"; cp -a "$STAGE"/usr/lib/tc/* "$RFS/usr/lib/tc/" 2>/dev/null || true
add_bin usr/sbin bin/kmod
for k in modprobe insmod rmmod lsmod modinfo depmod; do
  rm -f "$RFS/usr/bin/$k" "$RFS/usr/sbin/$k"; ln -s kmod "$RFS/usr/sbin/$k"
done
rm -f "$RFS/usr/bin/ping"; add_bin usr/bin bin/ping
pkg_bins ibverbs-utils rdmacm-utils perftest qperf rdma-core iperf3

# verbs providers are dlopen()ed: ldd of the tools does not see them
mkdir -p "$RFS/$LIBDIR/libibverbs" "$RFS/etc/libibverbs.d"
cp "$STAGE/$LIBDIR/libibverbs/librxe-rdmav"*.so "$RFS/$LIBDIR/libibverbs/"
add_libs "$STAGE/$LIBDIR/libibverbs/librxe-rdmav"*.so
cp "$STAGE/etc/libibverbs.d/rxe.driver" "$RFS/etc/libibverbs.d/"
cp -a "$STAGE/etc/rdma" "$RFS/etc/" 2>/dev/null || true

if [ "$PY" = 1 ]; then
  [ -d "$STAGE/usr/lib/python3.11" ] || { echo "run RIG_PYTHON=1 fetch-debs.sh first" >&2; exit 1; }
  add_bin usr/bin usr/bin/python3.11; ln -sf python3.11 "$RFS/usr/bin/python3"
  cp -a "$STAGE/usr/lib/python3.11" "$RFS/usr/lib/"
  mkdir -p "$RFS/usr/lib/python3/dist-packages"
  cp -a "$STAGE"/usr/lib/python3/dist-packages/pyverbs "$RFS/usr/lib/python3/dist-packages/"
  for so in "$RFS"/usr/lib/python3.11/lib-dynload/*.so $(find "$RFS/usr/lib/python3/dist-packages/pyverbs" -name '*.so'); do
    add_libs "$so"
  done
  rm -rf "$RFS/usr/lib/python3.11/test" "$RFS/usr/lib/python3.11/idlelib"
fi

if [ "$ST" = 1 ]; then
  [ -e "$STAGE/usr/bin/fio" ] || { echo "run RIG_STORAGE=1 fetch-debs.sh first" >&2; exit 1; }
  add_bin usr/bin usr/bin/fio
  # UCX: its transports are modules it dlopen()s
  add_bin usr/bin usr/bin/ucx_perftest usr/bin/ucx_info
  cp -a "$STAGE/$LIBDIR/ucx" "$RFS/$LIBDIR/"
  add_libs "$STAGE/$LIBDIR"/ucx/*.so.0
  add_bin usr/sbin usr/sbin/nvme
  # NFS: server (rpc.nfsd, rpc.mountd, exportfs), client (mount.nfs), rpcbind
  add_bin usr/sbin usr/sbin/rpc.nfsd usr/sbin/rpc.mountd usr/sbin/exportfs usr/sbin/nfsstat \
    sbin/mount.nfs sbin/showmount sbin/rpcbind usr/bin/rpcinfo
  for k in mount.nfs4 umount.nfs umount.nfs4; do ln -sf mount.nfs "$RFS/usr/sbin/$k"; done
  mkdir -p "$RFS/var/lib/nfs/rpc_pipefs" "$RFS/var/lib/nfs/v4recovery" "$RFS/etc/nvme"
  cp "$STAGE/etc/netconfig" "$RFS/etc/" 2>/dev/null || true   # libtirpc (rpcbind, mount.nfs)
  : > "$RFS/etc/exports"
fi

# the libraries, and the loader
for l in "${!LIBS[@]}"; do
  case "$l" in
    */ld-linux-x86-64.so.2) cp -L "$l" "$RFS/usr/lib64/ld-linux-x86-64.so.2";;
    *) cp -L "$l" "$RFS/$LIBDIR/$(basename "$l")";;
  esac
done
[ -e "$RFS/usr/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$RFS/usr/lib64/"
# glibc dlopen()s libgcc_s for pthread_exit/cancel (rping needs it)
cp -L "$(ldconfig -p | awk '/libgcc_s.so.1 .*x86-64/ {print $NF; exit}')" "$RFS/$LIBDIR/"

# minimal /etc
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$RFS/etc/passwd"
printf 'root:x:0:\n' > "$RFS/etc/group"
if [ "$ST" = 1 ]; then  # rpcbind drops to _rpc; nfsd maps root squash to nobody
  printf '_rpc:x:101:65534::/run/rpcbind:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >> "$RFS/etc/passwd"
  printf 'nogroup:x:65534:\n' >> "$RFS/etc/group"
fi
printf '127.0.0.1 localhost rig\n::1 localhost\n' > "$RFS/etc/hosts"
printf 'hosts: files\nnetworks: files\nprotocols: files\nservices: files\n' > "$RFS/etc/nsswitch.conf"
cp /etc/protocols /etc/services "$RFS/etc/" 2>/dev/null || true
echo "/$LIBDIR" > "$RFS/etc/ld.so.conf"
mkdir -p "$RFS/var/run/netns" "$RFS/etc/netns"

# kernel modules: the listed ones and what they depend on
MD=lib/modules/$MODVER
[ -f "$MODROOT/$MD/modules.dep" ] || depmod -b "$MODROOT" "$MODVER"
mods=$(for m in $GUEST_MODULES; do
         modprobe -d "$MODROOT" -S "$MODVER" --show-depends "$m" || { echo "ERROR: module $m" >&2; exit 1; }
       done | awk '$1=="insmod" {print $2}' | sort -u)
for k in $mods; do
  rel=${k#"$MODROOT"/}; mkdir -p "$RFS/usr/$(dirname "$rel")"; cp "$k" "$RFS/usr/$rel"
done
mkdir -p "$RFS/usr/$MD"
cp "$MODROOT/$MD"/modules.{order,builtin,builtin.modinfo} "$RFS/usr/$MD/"
depmod -b "$RFS" "$MODVER"
nmods=$(echo "$mods" | wc -l)

# kernel: vmlinuz, and the uncompressed vmlinux inside it (PVH boot); the
# debug image boots build/debug/vmlinux (build-debug-kernel.sh)
mkdir -p "$BUILD"
if [ "$DBGK" != 1 ]; then
  cp "$STAGE/boot/vmlinuz-$KVER" "$BUILD/vmlinuz"
  cp "$STAGE/boot/config-$KVER" "$BUILD/config"
  if [ ! -f "$BUILD/vmlinux" ] || [ "$BUILD/vmlinuz" -nt "$BUILD/vmlinux" ]; then
    off=$(set +o pipefail; LC_ALL=C grep -abo $'\xfd7zXZ' "$BUILD/vmlinuz" | head -1 | cut -d: -f1)
    { tail -c +$((off + 1)) "$BUILD/vmlinuz" || true; } | xz -dc --single-stream > "$BUILD/vmlinux"
    readelf -n "$BUILD/vmlinux" | grep -qE 'Unknown note type: \(0x00000012\)|PHYS32_ENTRY' ||
      { echo "vmlinux has no PVH entry note; use KERNEL=bzimage" >&2; rm -f "$BUILD/vmlinux"; }
  fi
fi

cp "$LAB/guest/init" "$RFS/init"; chmod +x "$RFS/init"
(cd "$RFS" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) > "$IMG.tmp"
mv "$IMG.tmp" "$IMG"
tlog build-initramfs "$(elapsed "$t0")" "$(basename "$IMG"): $nmods modules, $(du -sh "$RFS" | cut -f1) tree, $(du -h "$IMG" | cut -f1) image"
