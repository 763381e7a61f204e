# nowait-aio: no-wait AIO (RWF_NOWAIT) for kernels before 4.13.
#
#   make module [KDIR=<built kernel tree>]   build module/nowait_aio.ko
#   make tools                               build tools/nowait-aio-{probe,stat}
#   make lib                                 build lib/libnowait.{a,so}
#   sudo make install                        install module (runs depmod),
#                                            library, headers, tools, man pages
#   make install-userspace                   all of that but the module (no
#                                            kernel tree needed)
#   make install-dkms-src                    the module's source as DKMS
#                                            takes it, in /usr/src/nowait-aio-<version>
#   make deb                                 Debian packages into build/deb/
#   make deb-check                           build, install and purge them in
#                                            a Debian 12 chroot (root)
#   make man-check                           render the man pages, warnings fail
#   make check                               all tests (see README)
#   make vm-check KVER=<version> [MODULE=1] [CASES=<globs>]
#   make fuzz|stress|bench|iosoak KVER=<version> ...   (see README: Testing)
#   make dkms-conf                           dkms.conf's kernel list from SERIES
#   make unit                                host-side unit tests
KDIR ?= /lib/modules/$(shell uname -r)/build
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || uname -r)
NW_VERSION := $(shell cat $(CURDIR)/VERSION)
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DKMS_SRCDIR ?= /usr/src/nowait-aio-$(NW_VERSION)
DESTDIR ?=
DEB_OUT ?= build/deb
CFLAGS ?= -O2
TOOLS := tools/nowait-aio-probe tools/nowait-aio-stat
MANPAGES := man/nowait-aio-probe.8 man/nowait-aio-stat.8 man/nowait_aio.4 man/libnowait.3
# what DKMS builds from: Kbuild at the top, the module, the uapi header
DKMS_FILES := dkms.conf Kbuild VERSION include/nowait_aio.h module/Kbuild \
	$(filter-out %.mod.c,$(wildcard module/*.c)) $(wildcard module/*.h) \
	$(wildcard module/compat/*.h)
KVER ?= debian
MODULE ?= 0
CASES ?=
REF ?= 4.14.67
SEED ?= 1
OPS ?= 1000
SECS ?= 60

# 4.13 and later have RWF_NOWAIT natively: nothing to build there.  The
# one kernel-version test outside test/lib.sh (nw_kver_native): make
# cannot source a shell file, and `install` must work without test/.
NATIVE := $(shell echo $(KREL) | awk -F. '{ print ($$1 > 4 || ($$1 == 4 && $$2 + 0 >= 13)) ? 1 : 0 }')

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# none of lib, tools, install-userspace and install-dkms-src needs a kernel tree
tools: $(TOOLS)

lib:
	$(MAKE) -C lib

# CPPFLAGS, CFLAGS and LDFLAGS as the caller gives them (dpkg-buildflags);
# TOOLS_LDFLAGS=-static for the VM's initramfs
tools/%: tools/%.c include/nowait_aio.h VERSION
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wall -Wextra -Werror -Iinclude -DNW_VERSION='"$(NW_VERSION)"' \
		$(LDFLAGS) $(TOOLS_LDFLAGS) -o $@ $<

lib/nowait.pc: lib/nowait.pc.in VERSION
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(NW_VERSION)|' $< >$@

install-headers:
	install -D -m 0644 include/nowait_aio.h $(DESTDIR)$(INCLUDEDIR)/nowait_aio.h
	install -D -m 0644 include/libnowait.h $(DESTDIR)$(INCLUDEDIR)/libnowait.h

install-lib: lib
	rm -f lib/nowait.pc
	$(MAKE) lib/nowait.pc
	install -D -m 0644 lib/libnowait.a $(DESTDIR)$(LIBDIR)/libnowait.a
	install -D -m 0755 lib/libnowait.so $(DESTDIR)$(LIBDIR)/libnowait.so.0
	ln -sf libnowait.so.0 $(DESTDIR)$(LIBDIR)/libnowait.so
	install -D -m 0644 lib/nowait.pc $(DESTDIR)$(PKGCONFIGDIR)/nowait.pc

install-tools: tools
	install -D -m 0755 tools/nowait-aio-probe $(DESTDIR)$(SBINDIR)/nowait-aio-probe
	install -D -m 0755 tools/nowait-aio-stat $(DESTDIR)$(SBINDIR)/nowait-aio-stat

install-man:
	for m in $(MANPAGES); do \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m#man/} || exit 1; \
	done

install-userspace: install-headers install-lib install-tools install-man

# the module's source where DKMS looks for it: then
# `dkms install -m nowait-aio -v $(NW_VERSION)` (DKMS 2.2 and later)
install-dkms-src:
	for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; \
	done

install: install-userspace
ifeq ($(NATIVE),1)
	@echo "nowait-aio: kernel $(KREL) has native RWF_NOWAIT (4.13+); the module is not needed and was not installed."
else
	$(MAKE) module
	install -D -m 0644 module/nowait_aio.ko $(DESTDIR)/lib/modules/$(KREL)/extra/nowait_aio.ko
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KREL)
	@echo "nowait-aio: installed for $(KREL); load it with: modprobe nowait_aio"
endif

check:
	@bash test/check.sh

# dkms.conf's BUILD_EXCLUSIVE_KERNEL from SERIES (make unit checks that
# the file in the tree is up to date)
dkms-conf:
	bash -c '. test/lib.sh && nw_dkms_conf dkms.conf' >dkms.conf.new
	mv dkms.conf.new dkms.conf

# differential fuzzer: KVER with the module against REF native (test/fuzz)
fuzz:
	@bash test/fuzz/run.sh $(KVER) $(REF) $(SEED) $(OPS)

# stress with load/unload and a shadow model (test/stress)
stress:
	@bash test/stress/run.sh $(KVER) $(SECS)

vm-check:
	@bash test/vm/run.sh $(KVER) $(MODULE) '$(CASES)'

# plain I/O with a stall watcher, RUNS times (test/iosoak, test/vm/soak.sh)
iosoak:
	@bash test/vm/soak.sh --profile iosoak --arg $(SECS) $(KVER) $(MODULE) $(or $(RUNS),10)

# xfstests stock and with the module on KVER, per filesystem (test/field):
# the guest root is built first when it is not in the cache, from the
# xfstests git directory XFSTESTS_GIT (README "The field's suites")
xfstests:
	@bash test/field/root.sh --cached >/dev/null || \
		bash test/field/root.sh --xfstests "$(XFSTESTS_GIT)" >/dev/null
	@bash test/field/compare.sh $(KVER) $(or $(FS),ext4,xfs,btrfs) '$(or $(TESTS),-g,quick)'

unit:
	@bash test/unit/run.sh

man-check:
	@rc=0; for m in $(MANPAGES); do \
		w=$$(LC_ALL=C.UTF-8 groff -man -ww -z $$m 2>&1; LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $$m 2>&1 >/dev/null); \
		if [ -n "$$w" ]; then echo "not ok man $$m: $$w"; rc=1; else echo "ok man $$m"; fi; \
	done; exit $$rc

# Debian packages (debian/), built in a copy of the tree (the tracked and
# the new files, not the build output), results in $(DEB_OUT)/
deb: deb-deps
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_OUT)/nowait-aio-$(NW_VERSION)
	if git -C $(CURDIR) rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git -C $(CURDIR) ls-files -c -o --exclude-standard | \
			while IFS= read -r f; do [ -f "$$f" ] && printf '%s\n' "$$f"; done | \
			tar -C $(CURDIR) -T - -cf - ; \
	else \
		tar -C $(CURDIR) --exclude=./build --exclude=./test/vm/out -cf - . ; \
	fi | tar -C $(DEB_OUT)/nowait-aio-$(NW_VERSION) -xf -
	cd $(DEB_OUT)/nowait-aio-$(NW_VERSION) && dpkg-buildpackage -us -uc -b
	@ls -1 $(DEB_OUT)/*.deb $(DEB_OUT)/*.changes

# debian/control's Build-Depends, named as the packages that give them
deb-deps:
	@command -v dpkg-checkbuilddeps >/dev/null || \
		{ echo "make deb: dpkg-checkbuilddeps not found: apt-get install dpkg-dev debhelper dh-dkms libaio-dev"; exit 1; }
	@m=$$(dpkg-checkbuilddeps debian/control 2>&1 | sed -n 's/.*Unmet build dependencies: //p' | \
		sed -e 's/debhelper-compat ([^)]*)/debhelper/' -e 's/dh-sequence-dkms/dh-dkms/' -e 's/ ([^)]*)//g'); \
	if [ -n "$$m" ]; then \
		echo "make deb: missing build dependencies; install them with: apt-get install $$m"; exit 1; \
	fi

# install the packages in a fresh Debian 12 chroot (root; test/deb)
deb-check:
	@bash test/deb/deb-check.sh

clean-pkg:
	$(MAKE) -C lib clean
	rm -f $(TOOLS) lib/nowait.pc

# event-loop stall, refusal cost, fio in one boot (test/bench), then the SMP scaling in a second (NW_BENCH_SCALE=0 skips it); REF=<native kver> on the command line adds its runs, compare.sh, scale-compare.sh and *_vs_native
bench:
	@bash test/bench/run.sh $(KVER) $(MODULE) '$(if $(filter command line environment environment override,$(origin REF)),$(REF))'

conformance:
	$(MAKE) -C test/conformance

clean:
	$(MAKE) -C test/conformance clean
	$(MAKE) -C lib clean
	rm -rf test/vm/out test/deb/out build $(TOOLS) lib/nowait.pc
	rm -f module/*.o module/*.ko module/*.mod* module/.*.cmd module/modules.order
	rm -f Module.symvers modules.order .*.cmd

.PHONY: module tools lib install check vm-check unit bench conformance clean fuzz stress iosoak xfstests \
	install-headers install-lib install-tools install-man install-userspace \
	install-dkms-src man-check deb deb-deps deb-check clean-pkg dkms-conf
