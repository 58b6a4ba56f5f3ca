# SPDX-License-Identifier: GPL-2.0
#
# Build the SMC-R module out of tree against Debian's Linux 6.12 headers.
#   make                 build net/smc/smc.ko against the 6.12 headers that
#                        tests/setup.sh unpacked (KDIR= or KVER= override)
#   make W=1 C=1         extra warnings, sparse
#   make check           the whole test suite (tests/run check)
#   make check-all       that and everything too long for CI (about 5.5 h);
#                        make check-all-resume goes on after an interruption
#   make demo            two VMs talking AF_SMC (tests/run demo)
#   make kunit           KUnit suites in UML (tests/kunit/run)
#   make bench           TCP, distribution, ours, mixed pairs, raw verbs over
#                        Soft-RoCE, then TCP, ours, raw verbs over Soft-iWARP
#                        (tests/bench/run; tests/bench/run iwarp: iWARP alone)
#   make hooks           the test-hooks flavour (hostile peer, fault
#                        injection) in build/hooks/net/smc/smc.ko, for VM tests
#   make check-debug     VM scenarios on a KASAN/lockdep/kmemleak kernel built
#                        from linux-source-6.12 (tests/debug/check; cached)
#   make debug-module    build/debug/net/smc/smc.ko for that kernel
#   make k6.1, make k7.3 build/k6.1/net/smc/smc.ko, build/k7.3/... against
#                        Debian's 6.1 (bookworm) and 7.3 (trixie-backports)
#                        headers, fetched into /var/tmp/smc-kernels (7.3 in
#                        a trixie chroot); make k6.1-hooks, make k7.3-hooks:
#                        their test-hooks flavours (tests/kernels/build-module);
#                        make k7.3-upstream: against the 7.3 kernel with
#                        upstream's SMC (tests/kernels/build-upstream, built
#                        first when needed: about 20 min)
#   make dkms-install    install through DKMS for every kernel, replacing the
#                        in-tree smc.ko (make dkms-uninstall takes it out)
#   make install         the tools, manual pages and bash completion
#                        (DESTDIR=, prefix=, by default /usr/local; libdir=,
#                        smc_run's library, by default PREFIX/lib; make
#                        uninstall removes them)
#   make tools           build the tools only (make tools-clean)
#   make deb             the Debian packages smc-r-dkms and smc-r-tools in
#                        build/deb/ (debian/make-deb; installs its build
#                        dependencies with apt-get when missing)
#   make dkms-version    print dkms.conf's PACKAGE_VERSION (make dkms-name:
#                        its PACKAGE_NAME), for scripts

# Debian's 6.12 as tests/setup.sh leaves it: image, headers and kbuild
# unpacked into the kernel cache (tests/kernels/fetch 6.12), no kernel
# installed; the VMs boot that image.  Without it, the newest 6.12 headers
# installed in /lib/modules.  KVER= picks another installed kernel.
SMC_KERNELS_CACHE ?= /var/tmp/smc-kernels
K612_ENV := $(SMC_KERNELS_CACHE)/6.12/env
K612_KREL := $(shell sed -n 's/^KREL=//p' $(K612_ENV) 2>/dev/null)
K612_KDIR := $(shell sed -n 's/^KDIR=//p' $(K612_ENV) 2>/dev/null)
KVER ?= $(or $(K612_KREL),$(lastword $(shell printf '%s\n' $(notdir $(wildcard /lib/modules/6.12.*-amd64)) | \
	  grep -Ev -- '-(rt|cloud)-amd64$$' | sort -V)))
KDIR ?= $(if $(and $(K612_KREL),$(filter $(K612_KREL),$(KVER))),$(K612_KDIR),/lib/modules/$(KVER)/build)

# Module BTF, which the eBPF port rules of tools/smc_bpf need (the hook is
# named by BTF).  kbuild makes it with pahole, split against the vmlinux
# (BTF only) that Debian's headers ship.  Without pahole, kbuild would fail:
# the BTF step is skipped instead.  Headers without that vmlinux: kbuild
# skips BTF and smc-btf adds it, split against a vmlinux extracted from
# the image, the cache's or /boot/vmlinuz-KVER (cached in build/).
PAHOLE ?= pahole
OBJCOPY ?= objcopy
RESOLVE_BTFIDS ?= $(KDIR)/tools/bpf/resolve_btfids/resolve_btfids
EXTRACT_VMLINUX ?= $(firstword $(wildcard $(KDIR)/scripts/extract-vmlinux \
	/usr/src/linux-source-6.12/scripts/extract-vmlinux \
	/var/tmp/smc-src/linux-source-6.12/scripts/extract-vmlinux))
VMLINUZ ?= $(firstword $(wildcard $(if $(filter $(K612_KREL),$(KVER)),$(SMC_KERNELS_CACHE)/6.12/vm/vmlinuz) \
	/boot/vmlinuz-$(KVER)))
BTF_VMLINUX := build/vmlinux-$(KVER)
SMC_KO := net/smc/smc.ko
# What a copy of the module's sources holds (make hooks, debug-module,
# dkms-src): not what a build made, compat_probes.h included, since each
# kernel needs its own.
SMC_SOURCES := Kbuild include net/smc/Makefile net/smc/Kconfig net/smc/compat \
	$(filter-out %.mod.c net/smc/compat_probes.h,$(wildcard net/smc/*.[ch]))
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
		if [ -z "$(EXTRACT_VMLINUX)" ] || [ -z "$(VMLINUZ)" ]; then \
			echo "warning: no vmlinux for BTF: $(SMC_KO) has no BTF, smc_bpf port rules unavailable" >&2; \
			exit 0; \
		fi; \
		mkdir -p build && \
		bash $(EXTRACT_VMLINUX) $(VMLINUZ) >$(BTF_VMLINUX).tmp && \
		mv -f $(BTF_VMLINUX).tmp $(BTF_VMLINUX) || exit 1; \
	fi; \
	echo "  BTF [M] $(SMC_KO) (base $(BTF_VMLINUX))"; \
	LLVM_OBJCOPY=$(OBJCOPY) $(PAHOLE) -J --btf_gen_floats -j \
		--btf_base $(BTF_VMLINUX) $(SMC_KO) && \
	$(RESOLVE_BTFIDS) -b $(BTF_VMLINUX) $(SMC_KO)
endif

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf build/hooks build/debug $(addprefix build/,$(KLINE_TARGETS) $(addsuffix -hooks,$(KLINE_TARGETS)))

# The test-hooks flavour is built from a copy of the sources, so that its
# objects never mix with the production module's.
HOOKS_DIR := build/hooks
hooks:
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run tests/setup.sh or set KDIR=" >&2; exit 1; }
	mkdir -p $(HOOKS_DIR)
	cp -r --parents $(SMC_SOURCES) $(HOOKS_DIR)/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(HOOKS_DIR) CONFIG_SMC_TESTHOOKS=y \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules

# The debug kernel's module (make check-debug), production and test-hooks
# flavours, each from a copy of the sources; the kernel comes from
# tests/debug/build-kernel (cached).  DEBUG_FLAVOUR=kcsan: the KCSAN kernel.
DEBUG_FLAVOUR ?= kasan
DEBUG_SUFFIX := $(if $(filter kcsan,$(DEBUG_FLAVOUR)),-kcsan)
DEBUG_DIR := build/debug$(DEBUG_SUFFIX)
DEBUG_KDIR ?= $(or $(SMC_DEBUG_CACHE),/var/tmp/smc-debugk$(DEBUG_SUFFIX))/build
debug-module:
	@test -f "$(DEBUG_KDIR)/include/config/kernel.release" || \
		{ echo "no debug kernel at '$(DEBUG_KDIR)': run tests/debug/build-kernel" >&2; exit 1; }
	mkdir -p $(DEBUG_DIR) $(DEBUG_DIR)-hooks
	cp -r --parents $(SMC_SOURCES) $(DEBUG_DIR)/
	cp -r --parents $(SMC_SOURCES) $(DEBUG_DIR)-hooks/
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR)/$(DEBUG_DIR) modules
	$(MAKE) -C $(DEBUG_KDIR) M=$(CURDIR)/$(DEBUG_DIR)-hooks \
		CONFIG_SMC_TESTHOOKS=y modules

check-debug:
	tests/debug/check

# The other kernel lines Debian users run: the module against that line's
# own headers and compiler (tests/kernels/build-module), in build/kLINE/
# and build/kLINE-hooks/.  W=, C=, V= reach kbuild.
KLINES := 6.1 7.3 7.3-upstream
KLINE_ARGS = $(if $(W),W=$(W)) $(if $(C),C=$(C)) $(if $(V),V=$(V))
KLINE_TARGETS := $(addprefix k,$(KLINES))
$(KLINE_TARGETS):
	tests/kernels/build-module $(patsubst k%,%,$@) $(KLINE_ARGS)
$(addsuffix -hooks,$(KLINE_TARGETS)):
	tests/kernels/build-module $(patsubst k%-hooks,%,$@) hooks $(KLINE_ARGS)

# DKMS: the sources dkms builds from, named and versioned by dkms.conf.
DKMS_NAME := $(shell sed -n 's/^PACKAGE_NAME="\(.*\)"$$/\1/p' dkms.conf)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SRC := /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
DKMS_FILES := dkms.conf Makefile $(SMC_SOURCES)

# DESTDIR=: into a staging tree (debian/rules: the smc-r-dkms package),
# where dkms itself is not needed.
dkms-src:
	@[ -n "$(DESTDIR)" ] || command -v dkms >/dev/null || { echo "dkms is not installed (apt-get install dkms)" >&2; exit 1; }
	rm -rf $(DESTDIR)$(DKMS_SRC)
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	cp -r --parents $(filter-out %.mod.c,$(DKMS_FILES)) $(DESTDIR)$(DKMS_SRC)/

dkms-name:
	@echo '$(DKMS_NAME)'

dkms-version:
	@echo '$(DKMS_VERSION)'

# Every kernel with headers installed: dkms skips one outside dkms.conf's
# BUILD_EXCLUSIVE_KERNEL with exit 77; kernels installed later get it from
# DKMS's own kernel hooks (AUTOINSTALL).
dkms-install: dkms-src
	dkms remove -m $(DKMS_NAME) -v $(DKMS_VERSION) --all >/dev/null 2>&1 || true
	dkms add -m $(DKMS_NAME) -v $(DKMS_VERSION)
	@n=0; for d in /lib/modules/*/build; do \
		[ -e "$$d" ] || continue; \
		k=$$(basename "$$(dirname "$$d")"); rc=0; \
		dkms install -m $(DKMS_NAME) -v $(DKMS_VERSION) -k "$$k" || rc=$$?; \
		case $$rc in \
		0) n=$$((n + 1)); \
		   echo "installed for $$k: modprobe smc loads $$(modinfo -k "$$k" -n smc)" ;; \
		77) echo "skipped $$k: not a kernel line this tree supports" ;; \
		*) exit $$rc ;; \
		esac; \
	done; \
	[ "$$n" -gt 0 ] || { echo "no supported kernel with headers in /lib/modules" >&2; exit 1; }

dkms-uninstall:
	dkms remove -m $(DKMS_NAME) -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

# The tools and their manual pages; the module goes through DKMS.
prefix ?= /usr/local
libdir ?= $(prefix)/lib
TOOLS := smcctl smc_run smc_bpf smc_tcpopt
MANPAGES := smc.7 smcctl.8 smc_run.8 smc_bpf.8 smc_tcpopt.8
MANDIR = $(DESTDIR)$(prefix)/share/man
BASHCOMP = $(DESTDIR)$(prefix)/share/bash-completion/completions

tools:
	for t in $(TOOLS); do \
		$(MAKE) -C tools/$$t || exit; \
	done

tools-clean:
	for t in $(TOOLS); do \
		$(MAKE) -C tools/$$t clean || exit; \
	done

install:
	for t in $(TOOLS); do \
		$(MAKE) -C tools/$$t install DESTDIR="$(DESTDIR)" PREFIX="$(prefix)" \
			LIBDIR="$(libdir)" || exit; \
	done
	for m in $(MANPAGES); do \
		install -D -m 0644 Documentation/man/$$m "$(MANDIR)/man$${m##*.}/$$m" || exit; \
	done
	for t in $(TOOLS); do \
		install -D -m 0644 tools/completion/smc-r.bash "$(BASHCOMP)/$$t" || exit; \
	done

uninstall:
	for t in $(TOOLS); do \
		$(MAKE) -C tools/$$t uninstall DESTDIR="$(DESTDIR)" PREFIX="$(prefix)" \
			LIBDIR="$(libdir)" || exit; \
	done
	rm -f $(foreach m,$(MANPAGES),"$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(m)") \
		$(addprefix "$(BASHCOMP)/",$(TOOLS))

# Debian packages (debian/): smc-r-dkms and smc-r-tools, built in a copy
# of this tree, left in build/deb/
deb:
	debian/make-deb

check:
	tests/run check

check-all:
	tests/run check-all

check-all-resume:
	tests/run check-all --resume

demo:
	tests/run demo

kunit:
	tests/kunit/run

bench:
	tests/bench/run full

.PHONY: all modules smc-btf clean check check-all check-all-resume demo kunit bench hooks dkms-src dkms-install dkms-uninstall \
	dkms-name dkms-version install uninstall tools tools-clean deb \
	debug-module check-debug $(KLINE_TARGETS) $(addsuffix -hooks,$(KLINE_TARGETS))
