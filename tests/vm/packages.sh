# shellcheck shell=bash
# Guest check of the Debian packages (scripts/packages.sh --guest): the
# provider as mroce-ibverbs-provider installs it and the module as DKMS
# built it from mroce-dkms, with none of the build tree's copies around.
#
#   scripts/packages.sh --guest    (it runs:)
#   scripts/vm/run-guest.sh -f build/pkg/guest/provider-root -f build/pkg/guest/mroce.ko \
#       -f build/tests/mroce-verbs-check -f tests/vm/lib.sh -f tests/vm/topo.sh \
#       tests/vm/packages.sh -- MULTIARCH
#
# No -P: the share holds no build-tree libmroce-rdmav34.so or mroce.driver.
# provider-root/ is the provider .deb unpacked on the host (dpkg-deb -x; the
# image has no dpkg); its files are copied into / at the package's own
# paths, so libibverbs finds the provider through the package's
# /etc/libibverbs.d/mroce.driver in the package's libdir. mroce.ko goes
# where DKMS installs it (updates/dkms, dkms.conf's DEST_MODULE_LOCATION).
# Then two devices in two namespaces (topo_netns), mroce-verbs-check and
# ibv_rc_pingpong between them, and LD_DEBUG shows which file was loaded.
. /mnt/host/lib.sh
# shellcheck disable=SC2034 # (topo.sh's pair logs)
PAIR_LOG=${RIG_OUT:-/tmp}/packages
. /mnt/host/topo.sh

MA=${1:-x86_64-linux-gnu}
PR=/mnt/host/provider-root
LIBDIR=/usr/lib/$MA/libibverbs
SO=$LIBDIR/libmroce-rdmav34.so
DRV=/etc/libibverbs.d/mroce.driver
KO_DIR=/lib/modules/$(uname -r)/updates/dkms

KO_REAL=/usr$KO_DIR	# (/lib is a link to usr/lib in the image; find does not follow it)

# every libmroce, mroce.driver and mroce.ko, but for the two the host put
# into the share on purpose (the unpacked .deb, the dkms-built module)
stray() {
	find / \( -path /proc -o -path /sys -o -path "$PR" -o -path /mnt/host/mroce.ko \) -prune -o \
		\( -name 'libmroce-rdmav34.so*' -o -name mroce.driver -o -name 'mroce.ko*' \) -print 2>/dev/null | sort
}
no_stray() {
	local s
	s=$(stray)
	echo "found: $s"
	[ -z "$s" ]
}
only_pkg_copies() {
	local s want
	s=$(stray)
	want=$(printf '%s\n' "$DRV" "$KO_REAL/mroce.ko" "$SO" | sort)
	echo "found: $s"
	echo "want:  $want"
	[ "$s" = "$want" ]
}
# ibv_rc_pingpong between the namespaces with LD_DEBUG=files: every object
# each process maps, dlopen()ed providers too, into /tmp/ld-rc.PID
rc_pingpong_ld() {
	local n
	rm -f /tmp/ld-rc.*
	LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/ld-rc pair rc 60 \
		ibv_rc_pingpong -d "$S_DEV" -g "$SG" -n 200 -c -- \
		ibv_rc_pingpong -d "$C_DEV" -g "$CG" -n 200 -c "$S_IP" || return 1
	grep -h 'libmroce' /tmp/ld-rc.* | sort -u | head -4
	# both pingpongs, and no libmroce from anywhere else
	n=$(grep -l "file=$SO .*dynamically loaded" /tmp/ld-rc.* | wc -l)
	echo "processes that loaded $SO: $n"
	[ "$n" -ge 2 ] && ! grep -h 'file=[^ ]*libmroce' /tmp/ld-rc.* | grep -vq "file=$SO "
}
install_pkg() {	# copy the unpacked .deb into / (what dpkg -i would unpack)
	(cd "$PR" && find . -type d) | while read -r d; do mkdir -p "/$d" || exit 1; done || return 1
	(cd "$PR" && find . ! -type d) | while read -r f; do cp -a "$PR/$f" "/$f" || exit 1; done
}

echo "# kernel $(uname -r); package tree: $(cd "$PR" && find . ! -type d | tr '\n' ' ')"
t_ok "image and share have no mroce provider, driver file or module but the package's" no_stray
t_ok "the .deb's tree holds the provider and driver file" test -f "$PR$SO" -a -f "$PR$DRV"
t_ok "install the package's files at its paths" install_pkg
t_ok "driver file from the package: 'driver mroce'" grep -qx 'driver mroce' "$DRV"
t_ok "provider in / is the package's file" cmp "$PR$SO" "$SO"
t_ok "dkms-built mroce.ko into updates/dkms + depmod" bash -c \
	"mkdir -p $KO_DIR && cp /mnt/host/mroce.ko $KO_DIR/ && depmod -a"
t_ok "only the package's copies anywhere (no build-tree provider, driver file or module)" only_pkg_copies
t_ok "modinfo resolves mroce to updates/dkms" bash -c "modinfo -n mroce; [ \"\$(modinfo -n mroce)\" = $KO_DIR/mroce.ko ]"
t_ok "module signed by dkms (its throwaway key: modinfo signer)" bash -c \
	"modinfo -F signer $KO_DIR/mroce.ko; [ \"\$(modinfo -F signer $KO_DIR/mroce.ko)\" = 'DKMS module signing key' ]"
t_ok "modprobe -v mroce inserts updates/dkms/mroce.ko" bash -c \
	"modprobe -a ib_uverbs rdma_ucm veth sch_netem && modprobe -v mroce | tee /dev/stderr | grep -q 'insmod $KO_DIR/mroce.ko'"
t_ok "load modules" driver_load mroce
topo_netns mroce || { echo "not ok - topology"; T_FAIL=$((T_FAIL + 1)); t_done; exit 1; }
t_ok "both ports ACTIVE" t_wait 10 bash -c "grep -q ACTIVE /sys/class/infiniband/$C_DEV/ports/1/state && grep -q ACTIVE /sys/class/infiniband/$S_DEV/ports/1/state"
t_ok "IPv4 RoCE v2 GIDs" t_wait 10 bash -c ". /mnt/host/topo.sh; gid_index $C_DEV $C_IP && gid_index $S_DEV $S_IP"
CG=$(gid_index "$C_DEV" "$C_IP") SG=$(gid_index "$S_DEV" "$S_IP")

# LD_DEBUG=files names every object the loader maps, dlopen()ed ones too
t_ok "ibv_devinfo on $C_DEV: PORT_ACTIVE" bash -c "ibv_devinfo -d $C_DEV | tee /dev/stderr | grep -q 'state:.*PORT_ACTIVE'"
t_ok "mroce-verbs-check on $C_DEV (opened by the mroce provider)" "${CX[@]}" /mnt/host/mroce-verbs-check "$C_DEV" ACTIVE
t_ok "mroce-verbs-check on $S_DEV" "${SX[@]}" /mnt/host/mroce-verbs-check "$S_DEV" ACTIVE
t_ok "ibv_rc_pingpong $C_DEV -> $S_DEV (-c), both processes loaded $SO" rc_pingpong_ld
echo "# $(pair_summary rc)"
topo_netns_del
t_ok "rmmod mroce" t_wait 10 rmmod mroce
t_done
