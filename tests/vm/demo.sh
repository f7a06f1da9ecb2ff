# shellcheck shell=bash
# Guest side of scripts/demo.sh --list: two mroce devices on a veth pair
# across two network namespaces, and what rdma-core shows of them (the demo
# itself, with traffic, is scripts/demo.sh without --list).
#
#   nsA: vA 198.18.1.1/24, 2001:db8:1::1/64  <--veth-->  nsB: vB 198.18.1.2/24, 2001:db8:1::2/64
#        mroce device mA                                    mroce device mB
. /mnt/host/lib.sh
set -e
show() { echo; echo "\$ $*"; "$@"; }
mroce_install
modprobe -a ib_uverbs veth
ip netns add nsA
ip netns add nsB
ip link add vA netns nsA type veth peer name vB netns nsB
ip -n nsA addr add 198.18.1.1/24 dev vA
ip -n nsA addr add 2001:db8:1::1/64 dev vA nodad
ip -n nsB addr add 198.18.1.2/24 dev vB
ip -n nsB addr add 2001:db8:1::2/64 dev vB nodad
ip -n nsA link set vA up
ip -n nsB link set vB up
show ip netns exec nsA rdma link add mA type mroce netdev vA
show ip netns exec nsB rdma link add mB type mroce netdev vB
sleep 1
show rdma link show
show ip netns exec nsA ss -Hnlu
show ibv_devices
show ip netns exec nsA ibv_devinfo -v -d mA
show ip netns exec nsB ibv_devinfo -d mB
ip netns exec nsB bash -c 'echo hello > /dev/udp/198.18.1.1/4796'
sleep 0.5
show rdma statistic show link mA/1
echo
echo "(traffic over a lossy leaf/spine fabric, beside rdma_rxe: scripts/demo.sh without --list)"
