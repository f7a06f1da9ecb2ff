# SPDX-License-Identifier: GPL-2.0
#
# mroce top-level build.
#
#   make              module + provider + host tests and simulator
#   make module       kernel module (Kbuild, against $(KDIR))
#   make provider     rdma-core provider libmroce-rdmav34.so
#   make unit         engine unit tests (host)      make check: all host tests
#   make sim          fabric simulator               make install
#
# KDIR defaults to the headers of the kernel the guest boots: Debian
# bookworm's linux-image-amd64 (see scripts/kver.sh).

KVER ?= $(shell $(CURDIR)/scripts/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)
O := $(CURDIR)/build

all: module provider host

host: unit sim

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

unit:
	$(MAKE) -C tests/unit O=$(O)

sim:
	$(MAKE) -C tests/sim O=$(O)

check: host
	$(MAKE) -C tests/unit O=$(O) check
	$(MAKE) -C tests/sim O=$(O) check

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	rm -rf $(O)

.PHONY: all host module provider unit sim check clean
