# shellcheck shell=bash
# Guest check of the optional python image (run-guest.sh -y -P): python3
# starts, pyverbs imports and sees an mroce device through our provider.
. /mnt/host/lib.sh
t_ok "install module and provider" mroce_install
modprobe -a ib_uverbs veth
ip link add vethA type veth peer name vethB
ip link set vethA up
ip link set vethB up
t_ok "rdma link add mroce0" rdma link add mroce0 type mroce netdev vethA
t_ok "python3 runs" python3 -c 'import sys; print(sys.version)'
t_ok "pyverbs lists and opens mroce0" python3 -c '
import pyverbs.device as d
names = [x.name.decode() for x in d.get_device_list()]
print(names)
assert "mroce0" in names
with d.Context(name="mroce0") as ctx:
    a = ctx.query_device()
    print(hex(a.vendor_id), ctx.query_port(1).state)
    assert a.vendor_id == 0x026d72'
t_done
