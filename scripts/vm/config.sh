# shellcheck shell=bash
# Common settings of the guest rig. Source it; do not run it.
# Everything lives under $LAB (default scripts/vm); scratch folders are
# git-ignored.
LAB=${LAB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
ROOT=${ROOT:-$(cd "$LAB/../.." && pwd)}       # the project
CACHE=${CACHE:-$LAB/cache}          # downloaded .debs (guest packages, linux-source)
STAGE=${STAGE:-$LAB/stage}          # their contents, unpacked (not installed)
BUILD=${BUILD:-$LAB/build}          # vmlinux, initramfs images
RUNS=${RUNS:-$LAB/runs}             # one folder per guest run
TIMINGS=${TIMINGS:-$LAB/timings.log}

# Guest kernel ABI name (e.g. 6.1.0-57-amd64): see scripts/kver.sh
KVER=${KVER:-$("$ROOT/scripts/kver.sh")}

# Packages unpacked into the guest (besides the kernel image). Libraries
# that are missing here are taken from the host (same Debian release).
GUEST_PKGS=${GUEST_PKGS:-"busybox-static bash libtinfo6 iproute2 kmod iputils-ping
  rdma-core ibverbs-providers ibverbs-utils libibverbs1 librdmacm1 rdmacm-utils perftest qperf
  iperf3 libiperf0 libsctp1
  libnl-3-200 libnl-route-3-200 libibumad3 libpci3
  libbpf1 libelf1 libmnl0 libcap2 libxtables12 libtirpc3 libdb5.3 libbsd0 libmd0
  libkmod2 liblzma5 libzstd1 libssl3 libselinux1 libpcre2-8-0 zlib1g libtirpc-common"}

# Optional image variant with python3 + pyverbs (RIG_PYTHON=1): for rdma-core's
# own test suite later. It makes the image larger and the boot slower.
PY_PKGS=${PY_PKGS:-"python3-pyverbs python3.11 python3.11-minimal libpython3.11 libpython3.11-stdlib
  libpython3.11-minimal libexpat1 libffi8 libsqlite3-0 libncursesw6 libreadline8
  libuuid1 libbz2-1.0 libcrypt1 libgdbm6 libnsl2 media-types"}

# Optional image variant for the storage ULP tests (RIG_STORAGE=1):
# NVMe over Fabrics (tests/vm/nvme.sh: fio, nvme-cli) and NFS over RDMA
# (tests/vm/nfs.sh: nfsd's and the client's tools, rpcbind), and Debian's
# UCX with ucx_perftest (tests/vm/ucx.sh). fio links
# librados/librbd/libgfapi, whose closure (ICU, gnutls, krb5, boost) is
# ~70 MB: too much for the main image. libc6/libgcc-s1/libstdc++6 come from
# the host like the main image's libc.
STORAGE_PKGS=${STORAGE_PKGS:-"fio libaio1 libgfapi0 libgfrpc0 libgfxdr0 libglusterfs0 libnbd0 libnuma1
  libpmem1 libpmemblk1 librados2 librbd1 libboost-thread1.74.0 libacl1 libargon2-1 libblkid1
  libcom-err2 libcryptsetup12 libdaxctl1 libdevmapper1.02.1 libffi8 libfmt9 libgmp10 libgnutls30
  libgssapi-krb5-2 libhogweed6 libicu72 libidn2-0 libjson-c5 libk5crypto3 libkeyutils1 libkrb5-3
  libkrb5support0 libndctl6 libnettle8 libp11-kit0 libtasn1-6 libudev1 libunistring2 libuuid1 libxml2
  nvme-cli libnvme1
  nfs-kernel-server nfs-common rpcbind libevent-core-2.1-7 libwrap0 libnfsidmap1 libmount1
  libsqlite3-0 libsystemd0 libdbus-1-3 libgcrypt20 libgpg-error0 liblz4-1 libnsl2
  libucx0 ucx-utils libgomp1"}
# ... and its modules (added to GUEST_MODULES in that image): NVMe-oF target
# and host over RDMA, null_blk as the target's namespace, nfsd + rpcrdma + the
# NFS client. rdma_cm is a dependency of nvme_rdma/nvmet_rdma/rpcrdma.
STORAGE_MODULES=${STORAGE_MODULES:-"nvmet nvmet_rdma nvme_rdma nvme_fabrics nvme_core null_blk
  nfsd rpcrdma nfs nfsv4 rdma_cm"}

# Kernel modules packed into the guest (dependencies are added by
# modprobe --show-depends). Modules loaded only via request_module (crypto
# algorithms) must be named. udp_tunnel/ip6_udp_tunnel/ib_core are what
# mroce.ko needs, ib_uverbs/rdma_ucm/ib_umad the userspace side; bridge
# gives tests/vm/offload.sh a netdev whose rx_handler is taken.
GUEST_MODULES=${GUEST_MODULES:-"ib_core ib_uverbs rdma_ucm ib_umad rdma_rxe udp_tunnel ip6_udp_tunnel
  veth dummy bridge sch_netem virtio_pci 9pnet_virtio 9p
  crc32_generic crc32_pclmul crc32c_generic crc32c_intel"}

# Host tools needed by the rig
HOST_PKGS=${HOST_PKGS:-"qemu-system-x86 cpio kmod zstd xz-utils binutils"}

APT_GET=${APT_GET:-"apt-get -o DPkg::Lock::Timeout=900 -q"}

tlog() {  # tlog STEP SECONDS [note]: append one timing line and echo it
  mkdir -p "$(dirname "$TIMINGS")"
  printf '%s\t%-24s\t%8.2f s\t%s\n' "$(date -u +%FT%TZ)" "$1" "$2" "${3:-}" | tee -a "$TIMINGS" >&2
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}'; }

# apt_download PKG...: .debs into the current folder; if that fails (stale
# or empty package lists), refresh the lists once and retry
apt_download() {
  local out rc
  out=$($APT_GET download "$@" 2>&1); rc=$?
  if [ $rc -ne 0 ]; then
    echo "apt-get download failed; refreshing package lists and retrying" >&2
    $APT_GET update >/dev/null 2>&1
    out=$($APT_GET download "$@" 2>&1); rc=$?
  fi
  printf '%s\n' "$out" | grep -vE '^(Get:|Fetched|W: Download is performed unsandboxed)' >&2 || true
  return $rc
}

# linux_source_unpack SRCV SRCDIR STEP: Debian's linux-source-SRCV .deb
# into $CACHE (once) and its tree into SRCDIR (once); tlog'd as STEP. The
# KUnit run and the debug kernel share the tree (scripts/vm/src).
linux_source_unpack() {
  local v=$1 dir=$2 step=$3 t deb
  [ -f "$dir/Makefile" ] && return 0
  t=$(now)
  mkdir -p "$CACHE" "$(dirname "$dir")"
  ls "$CACHE/linux-source-$v"_*.deb >/dev/null 2>&1 || (cd "$CACHE" && apt_download "linux-source-$v") || return 1
  deb=$(ls -v "$CACHE/linux-source-$v"_*.deb | tail -1)
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$v.tar.xz" | tar -xJ -C "$dir.tmp" || return 1
  mv "$dir.tmp/linux-source-$v" "$dir" && rmdir "$dir.tmp" || return 1
  tlog "$step" "$(elapsed "$t")" "$(basename "$deb")"
}
