# SPDX-License-Identifier: GPL-2.0
#
# mroce top-level build.
#
#   make              module + provider + guest tools + host tests/simulator
#   make module       kernel modules mroce.ko and mroce_swnic.ko (Kbuild, against $(KDIR))
#   make module-debug the modules and tests/kmod against the debug guest kernel
#                     (scripts/vm/build-debug-kernel.sh) in build/debug-kmod/,
#                     for scripts/vm/run-guest.sh -D
#   make provider     rdma-core provider build/provider/libmroce-rdmav34.so
#   make tools        guest-side helpers (build/tests/: mroce-verbs-check, mroce-xfer, mroce-wr-check, mroce-cq-check, mroce-craft, mroce-badframe, mroce-epside, mroce-asyncev, mroce-linebuf.so)
#   make meter        the guest instruction meter: QEMU TCG plugin build/bench/libmroce-meter.so
#                     and its verbs shim build/bench/mroce-meter-shim.so (scripts/bench-insn.sh)
#   make unit         engine unit tests (host)      make check: all host tests
#   make ring         hostile-provider harness of the kernel's ring rules (tests/ring)
#   make sim          fabric simulator build/sim/mroce-sim (tests/sim)
#   make ep           userspace endpoint build/ep/libmroce-ep.a, build/ep/mroce-ep (ep/)
#   make ep-check     two userspace endpoints over 127.0.0.1, lossless and at 5 % loss; node mode between two netns (root)
#   make sim-check    simulator scenarios that assert (sanitised build)
#   make bench-sim    simulator figures -> bench/results/sim (scripts/bench-sim.sh)
#   make bench-ep     libmroce-ep beside plain UDP between two netns (root) -> build/bench-ep
#                     (scripts/bench-ep.sh; bench/results/ep); not part of make check
#   make fuzz-check   libFuzzer targets (clang), FUZZ_TIME seconds each (default 20)
#   make fuzz-corpus  the fuzzers' corpora for the guest (build/fuzz-corpus: seeds,
#                     what fuzz-check grew, tests/fuzz/regress), for tests/vm/fuzz.sh
#   make wireshark-check  the Wireshark dissector (tools/wireshark) decoded by tshark
#   make man          man page build/man/mroce.7 from Documentation/mroce.rst (scripts/man.py)
#   make man-check    the man page renders without a warning and lists every module
#                     parameter, counter, debugfs and sysfs file the code has
#   make reqs-check   the requirement ids of Documentation/protocol.md and its
#                     Appendix A agree (scripts/reqs.py --check)
#   make kunit        engine tests as KUnit on a UML kernel (tests/kunit/run.sh)
#   make vm-test      boot the guest and run tests/vm/foundation.sh
#   make install      module, provider, driver file (honours DESTDIR)
#   make dkms-source  the module's source + dkms.conf into $(DESTDIR)/usr/src/mroce-VERSION
#   make checkpatch   scripts/checkpatch.pl from Debian's linux-source-6.1
#   make sparse       module build with C=2 under Debian's sparse
#   make layers       sizes and the call graphs of the glue and of the engine
#                     (scripts/layers.py --check)
#
# KDIR defaults to the headers of the kernel the guest boots: Debian
# bookworm's linux-image-amd64 (see scripts/kver.sh).

KVER ?= $(shell $(CURDIR)/scripts/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)
O := $(CURDIR)/build

# the debug guest kernel's build tree (scripts/vm/build-debug-kernel.sh) and
# the folder module-debug builds a copy of the module's sources in (Kbuild of
# 6.1 builds an external module in its source folder; the copy keeps the
# normal build's mroce.ko apart)
DEBUG_KDIR ?= $(CURDIR)/scripts/vm/build/debug/obj
DEBUG_KMOD ?= $(O)/debug-kmod

# install locations
DESTDIR ?=
MODDIR ?= /lib/modules/$(KVER)/updates
IBV_LIBDIR := $(shell pkg-config --variable=libdir libibverbs 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
PROVIDER_DIR ?= $(IBV_LIBDIR)/libibverbs
DRIVER_CONF_DIR ?= /etc/libibverbs.d
# the DKMS source tree (dkms.conf; debian/rules installs it for mroce-dkms)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(CURDIR)/dkms.conf)
DKMS_SRCDIR ?= /usr/src/mroce-$(DKMS_VERSION)
DKMS_FILES = Kbuild dkms.conf $(wildcard kernel/*.[ch] kernel/engine/*.[ch] swnic/*.[ch] include/mroce/*.h \
	include/uapi/rdma/*.h)

# checkpatch comes from the kernel source the KUnit step unpacks
LINUX_SRC ?= $(CURDIR)/scripts/vm/src/linux-source-6.1
CHECKPATCH := $(LINUX_SRC)/scripts/checkpatch.pl
MY_SOURCES = $(filter-out %.mod.c,$(wildcard kernel/*.[ch] swnic/*.[ch] include/mroce/*.h provider/*.[ch] include/uapi/rdma/*.h \
	tests/vm/*.c tests/kmod/*.[ch] bench/guest/*.c))
# provider/, tests/vm/ and bench/guest/ are userspace: the kernel's __printf()/__alias()
# wrappers do not exist there
CHECKPATCH_IGNORE := FILE_PATH_CHANGES,PREFER_DEFINED_ATTRIBUTE_MACRO

all: module provider tools meter host

host: unit ring sim ep

module:
	@test -d $(KDIR) || { echo "no kernel headers at $(KDIR): run scripts/setup.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	@$(call kmod_stale,$(CURDIR))
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kmod KBUILD_EXTRA_SYMBOLS=$(CURDIR)/Module.symvers modules

# the test modules of tests/kmod in $(1) built before the module's last
# Module.symvers: Kbuild does not relink them when only the CRCs of the
# symbols they import changed (insmod: "disagrees about version of
# symbol"), nor runs modpost again for them (the CRCs come in by
# KBUILD_EXTRA_SYMBOLS, which modpost's rule does not depend on), so their
# modpost output goes too and they are built again from their objects
kmod_stale = if [ $(1)/Module.symvers -nt $(1)/tests/kmod/Module.symvers ]; then \
	rm -f $(1)/tests/kmod/Module.symvers $(1)/tests/kmod/*.ko \
	      $(1)/tests/kmod/*.mod.c $(1)/tests/kmod/*.mod.o; fi

# copies only changed files (so Kbuild rebuilds only what changed) and
# removes files gone from the project
module-debug:
	@test -f $(DEBUG_KDIR)/Module.symvers || { echo "no debug kernel build at $(DEBUG_KDIR): run scripts/vm/build-debug-kernel.sh" >&2; exit 1; }
	@mkdir -p $(DEBUG_KMOD)
	@for f in $(filter-out dkms.conf,$(DKMS_FILES)) $(filter-out %.mod.c,$(wildcard tests/kmod/Kbuild tests/kmod/*.[ch])); do \
		cmp -s $$f $(DEBUG_KMOD)/$$f || install -D -m 0644 $$f $(DEBUG_KMOD)/$$f || exit 1; \
	done; \
	cd $(DEBUG_KMOD) && for f in $$(find kernel swnic include tests -name '*.[ch]' ! -name '*.mod.c'); do \
		test -e $(CURDIR)/$$f || rm -f $$f; \
	done
	$(MAKE) -C $(DEBUG_KDIR) M=$(DEBUG_KMOD) modules
	@$(call kmod_stale,$(DEBUG_KMOD))
	$(MAKE) -C $(DEBUG_KDIR) M=$(DEBUG_KMOD)/tests/kmod KBUILD_EXTRA_SYMBOLS=$(DEBUG_KMOD)/Module.symvers modules

provider:
	$(MAKE) -C provider O=$(O)

tools: $(O)/tests/mroce-verbs-check $(O)/tests/mroce-xfer $(O)/tests/mroce-wr-check \
	$(O)/tests/mroce-cq-check $(O)/tests/mroce-craft $(O)/tests/mroce-linebuf.so \
	$(O)/tests/mroce-udp-ceiling $(O)/tests/mroce-badframe $(O)/tests/mroce-asuser \
	$(O)/tests/mroce-race $(O)/tests/mroce-peers $(O)/tests/mroce-epside \
	$(O)/tests/mroce-asyncev

$(O)/tests/mroce-verbs-check: tests/vm/verbs-check.c tests/vm/tap.h provider/pabi34.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -Iinclude/uapi -o $@ $< -libverbs

$(O)/tests/mroce-xfer: tests/vm/xfer.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -libverbs

$(O)/tests/mroce-wr-check: tests/vm/wr-check.c tests/vm/tap.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -libverbs

$(O)/tests/mroce-race: tests/vm/race.c tests/vm/tap.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -pthread -o $@ $< -libverbs

$(O)/tests/mroce-peers: tests/vm/peers.c tests/vm/tap.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -libverbs

# the kernel module's side of tests/vm/interop.sh (a libmroce-ep peer)
$(O)/tests/mroce-epside: tests/vm/epside.c ep/sidechan.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -libverbs

$(O)/tests/mroce-asyncev: tests/vm/asyncev.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $< -libverbs

$(O)/tests/mroce-asuser: tests/vm/asuser.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $<

$(O)/tests/mroce-cq-check: tests/vm/cq-check.c tests/vm/tap.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -pthread -o $@ $< -libverbs

# the packet crafter builds its packets with the engine's own wire code
$(O)/tests/mroce-craft: tests/vm/craft.c kernel/engine/wire.c kernel/engine/wire.h kernel/engine/mre_types.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -Ikernel/engine -o $@ tests/vm/craft.c kernel/engine/wire.c

# a benchmark's program (bench/guest/bench.sh), built and shared with the tests' ones
$(O)/tests/mroce-udp-ceiling: bench/guest/udp-ceiling.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $<

$(O)/tests/mroce-badframe: tests/vm/badframe.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -o $@ $<

meter: $(O)/bench/libmroce-meter.so $(O)/bench/mroce-meter-shim.so

$(O)/bench/libmroce-meter.so: bench/meter/meter.c bench/meter/mark.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -shared -fPIC -fvisibility=hidden -o $@ $< -pthread

$(O)/bench/mroce-meter-shim.so: bench/meter/shim.c bench/meter/mark.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -shared -fPIC -o $@ $< -ldl

$(O)/tests/mroce-linebuf.so: tests/vm/linebuf.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

unit:
	$(MAKE) -C tests/unit O=$(O)

ring:
	$(MAKE) -C tests/ring O=$(O)

sim:
	$(MAKE) -C tests/sim O=$(O)

sim-check:
	$(MAKE) -C tests/sim O=$(O) check

ep:
	$(MAKE) -C ep O=$(O)

ep-check:
	$(MAKE) -C ep O=$(O) check

# the open conformance suite, tiers 1 and 2 (tests/conformance/README.md): drives
# a mroce-ep server it starts on 127.0.0.1 over UDP, requirement by
# requirement; results in $(O)/conformance/results.{tsv,json}
conformance-check: ep
	python3 tests/conformance/conformance.py --ep $(O)/ep/mroce-ep --out $(O)/conformance

# tier 3 (tests/conformance/mitm.py): two mroce-ep in node mode, each in a
# netns, through a relay in a third that drops, duplicates, reorders,
# CE-marks or kills a path; root (skipped, exit 0, without); results in
# $(O)/conformance-mitm/results.{tsv,json}; MITM_FLAGS: e.g. '--only kill-path'
MITM_FLAGS ?=
conformance-mitm: ep
	python3 tests/conformance/mitm.py --ep $(O)/ep/mroce-ep --out $(O)/conformance-mitm $(MITM_FLAGS)

bench-sim:
	scripts/bench-sim.sh

# native figures of libmroce-ep (bench/ep, scripts/bench-ep.sh): root, two netns
bench-ep:
	scripts/bench-ep.sh

fuzz-check:
	$(MAKE) -C tests/fuzz O=$(O) check

fuzz-corpus:
	$(MAKE) -C tests/fuzz O=$(O) guest-corpus

# the Wireshark dissector (tools/wireshark/mroce.lua) against the engine's
# packets and the wire header; needs tshark (scripts/setup.sh installs it)
$(O)/wireshark/gen: tests/wireshark/gen.c kernel/engine/wire.c kernel/engine/wire.h kernel/engine/mre_types.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Wall -Wextra -Werror -std=gnu11 -Ikernel/engine -o $@ tests/wireshark/gen.c kernel/engine/wire.c

wireshark-check: $(O)/wireshark/gen
	python3 tests/wireshark/check.py $(O)/wireshark/gen $(O)/wireshark

# mroce(7): generated from Documentation/mroce.rst; MAN_RELEASE sets the
# version in its footer (default: git describe), SOURCE_DATE_EPOCH its date
MAN_RELEASE ?=
man: $(O)/man/mroce.7

$(O)/man/mroce.7: Documentation/mroce.rst scripts/man.py
	python3 scripts/man.py build -o $@ $(if $(MAN_RELEASE),--release '$(MAN_RELEASE)')

# needs groff (groff-base) and man-db: scripts/setup.sh installs them
man-check: man
	python3 scripts/man.py check $(O)/man/mroce.7

# the requirements of the spec: ids, sections, levels and Appendix A
reqs-check:
	python3 scripts/reqs.py --check

check: host
	$(MAKE) -C tests/unit O=$(O) check
	$(MAKE) -C tests/ring O=$(O) check
	$(MAKE) sim-check
	$(MAKE) ep-check
	$(MAKE) conformance-check
	$(MAKE) conformance-mitm
	$(MAKE) wireshark-check
	$(MAKE) man-check
	$(MAKE) reqs-check
	$(MAKE) fuzz-check
	$(MAKE) meter		# builds: nothing runs it but scripts/bench-insn.sh

kunit:
	tests/kunit/run.sh

vm-test: module provider tools
	scripts/vm/run-guest.sh -t 600 tests/vm/foundation.sh

install: module provider
	install -D -m 0644 mroce.ko $(DESTDIR)$(MODDIR)/mroce.ko
	install -D -m 0644 mroce_swnic.ko $(DESTDIR)$(MODDIR)/mroce_swnic.ko
	install -D -m 0755 $(O)/provider/libmroce-rdmav34.so $(DESTDIR)$(PROVIDER_DIR)/libmroce-rdmav34.so
	install -D -m 0644 $(O)/provider/mroce.driver $(DESTDIR)$(DRIVER_CONF_DIR)/mroce.driver
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
	else echo "DESTDIR set: run depmod -a $(KVER) on the target"; fi

# everything Kbuild needs, at the same relative paths, and nothing built
dkms-source:
	@test -n "$(DKMS_VERSION)" || { echo "no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
	@for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; \
	done
	@echo "installed $(words $(DKMS_FILES)) files into $(DESTDIR)$(DKMS_SRCDIR)"

checkpatch:
	@if [ -x $(CHECKPATCH) ]; then \
		$(CHECKPATCH) --no-tree --terse --show-types \
			--ignore $(CHECKPATCH_IGNORE) \
			-f $(MY_SOURCES); \
	else echo "checkpatch: $(CHECKPATCH) missing; run tests/kunit/run.sh (it unpacks linux-source-6.1) or set LINUX_SRC=" >&2; fi

layers: module
	python3 scripts/layers.py --check

sparse:
	@command -v sparse >/dev/null || { echo "sparse not installed: run scripts/setup.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kmod clean >/dev/null 2>&1
	rm -rf $(O)

.PHONY: all host module module-debug provider tools meter unit ring sim sim-check ep ep-check conformance-check conformance-mitm bench-sim bench-ep fuzz-check fuzz-corpus wireshark-check layers \
	man man-check reqs-check \
	check kunit vm-test install dkms-source checkpatch sparse clean
