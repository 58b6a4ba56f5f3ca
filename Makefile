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

# Module BTF, which the eBPF port rules of tools/smc_bpf need (the hook is
# named by BTF).  kbuild makes it with pahole, split against the vmlinux
# (BTF only) that Debian's headers ship.  Without pahole, kbuild would fail:
# the BTF step is skipped instead.  Headers without that vmlinux: kbuild
# skips BTF and smc-btf adds it, split against a vmlinux extracted from
# /boot (cached in build/).
PAHOLE ?= pahole
OBJCOPY ?= objcopy
RESOLVE_BTFIDS ?= $(KDIR)/tools/bpf/resolve_btfids/resolve_btfids
EXTRACT_VMLINUX ?= $(firstword $(wildcard $(KDIR)/scripts/extract-vmlinux \
	/usr/src/linux-source-6.12/scripts/extract-vmlinux \
	/var/tmp/smc-src/linux-source-6.12/scripts/extract-vmlinux))
BTF_VMLINUX := build/vmlinux-$(KVER)
SMC_KO := net/smc/smc.ko
HAVE_PAHOLE := $(shell command -v $(PAHOLE) >/dev/null 2>&1 && echo y)
ifneq ($(HAVE_PAHOLE),y)
KBUILD_BTF := CONFIG_DEBUG_INFO_BTF_MODULES=
endif

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run tests/setup.sh or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_BTF) modules
	@$(MAKE) --no-print-directory smc-btf

ifneq ($(HAVE_PAHOLE),y)
smc-btf:
	@echo "warning: no $(PAHOLE) (package dwarves): $(SMC_KO) has no BTF, smc_bpf port rules unavailable" >&2
else
smc-btf:
	@if [ -f $(KDIR)/vmlinux ] || readelf -SW $(SMC_KO) | grep -q ' \.BTF '; then \
		exit 0; \
	fi; \
	if [ ! -s $(BTF_VMLINUX) ]; then \
		if [ -z "$(EXTRACT_VMLINUX)" ] || [ ! -f /boot/vmlinuz-$(KVER) ]; then \
			echo "warning: no vmlinux for BTF: $(SMC_KO) has no BTF, smc_bpf port rules unavailable" >&2; \
			exit 0; \
		fi; \
		mkdir -p build && \
		bash $(EXTRACT_VMLINUX) /boot/vmlinuz-$(KVER) >$(BTF_VMLINUX).tmp && \
		mv -f $(BTF_VMLINUX).tmp $(BTF_VMLINUX) || exit 1; \
	fi; \
	echo "  BTF [M] $(SMC_KO) (base $(BTF_VMLINUX))"; \
	LLVM_OBJCOPY=$(OBJCOPY) $(PAHOLE) -J --btf_gen_floats -j \
		--btf_base $(BTF_VMLINUX) $(SMC_KO) && \
	$(RESOLVE_BTFIDS) -b $(BTF_VMLINUX) $(SMC_KO)
endif

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

.PHONY: all modules smc-btf clean check demo kunit bench
