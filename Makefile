# SPDX-License-Identifier: GPL-2.0
#
# Build the SMC-R module out of tree against Debian's Linux 6.12 headers.
#   make                 build net/smc/smc.ko (KDIR= or KVER= override)
#   make W=1 C=1         extra warnings, sparse
#   make check           the whole test suite (tests/run check)
#   make demo            two VMs talking AF_SMC (tests/run demo)
#   make kunit           KUnit suites in UML (tests/kunit/run)
#   make bench           TCP vs distribution vs ours vs raw verbs (tests/bench/run)

KVER ?= $(lastword $(shell printf '%s\n' $(notdir $(wildcard /lib/modules/6.12.*-amd64)) | \
	  grep -Ev -- '-(rt|cloud)-amd64$$' | sort -V))
KDIR ?= /lib/modules/$(KVER)/build

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run tests/setup.sh or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

check:
	tests/run check

demo:
	tests/run demo

kunit:
	tests/kunit/run

bench:
	tests/bench/run full

.PHONY: all modules clean check demo kunit bench
