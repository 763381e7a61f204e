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
#   make rpm [KMOD_KDIR=<3.10 tree>]          RPM packages into build/rpm/
#   make rpm-check                           build, rpmlint, install and
#                                            erase them in a scratch root
#   make man-check                           render the man pages, warnings fail
#   make check                               all tests (see README)
#   make vm-check KVER=<version> [MODULE=1] [CASES=<globs>]
#   make fuzz|stress|bench|iosoak KVER=<version> ...   (see README: Testing)
#   make xfstests|ltp KVER=<version> [FS=ext4,xfs,btrfs] [TESTS=...]
#                                            the field's suites, stock and
#                                            with the module (README)
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
	@bash test/check.sh $(if $(SEED),--fuzz-seed $(SEED))

# dkms.conf's BUILD_EXCLUSIVE_KERNEL from SERIES (make unit checks that
# the file in the tree is up to date)
dkms-conf:
	bash -c '. test/lib.sh && nw_dkms_conf dkms.conf' >dkms.conf.new
	mv dkms.conf.new dkms.conf

# differential fuzzer: KVER with the module against REF native (test/fuzz)
fuzz:
	@bash test/fuzz/run.sh $(if $(OUT),--out '$(OUT)') $(KVER) $(REF) $(SEED) $(OPS)

# stress with load/unload and a shadow model (test/stress); MODULE=0: the
# baseline without the module
stress:
	@bash test/stress/run.sh $(if $(filter 0,$(MODULE)),--stock) $(if $(SMP),--smp $(SMP)) \
		$(if $(OUT),--out '$(OUT)') $(KVER) $(SECS)

# one VM run (test/vm/run.sh): KVER= MODULE=0|1 ORDER= SMP= CASES= PROFILE=
# ARG= TIMEOUT= MODULE_KO= OUT=, each passed as its option; VMFLAGS= any
# other options of run.sh (run.sh --help)
VM_FLAGS = --kernel '$(KVER)' $(if $(filter 1,$(MODULE)),--module,--stock) \
	$(if $(ORDER),--order $(ORDER)) $(if $(SMP),--smp $(SMP)) \
	$(if $(CASES),--cases '$(CASES)') $(if $(PROFILE),--profile $(PROFILE)) \
	$(if $(ARG),--arg '$(ARG)') $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
	$(if $(MODULE_KO),--module-ko '$(MODULE_KO)') $(if $(OUT),--out '$(OUT)') $(VMFLAGS)
vm-check:
	@bash test/vm/run.sh $(VM_FLAGS)

# plain I/O with a stall watcher, RUNS times (test/iosoak, test/vm/soak.sh)
iosoak:
	@bash test/vm/soak.sh --profile iosoak --arg $(SECS) $(if $(SMP),--smp $(SMP)) \
		$(if $(OUT),--out '$(OUT)') $(KVER) $(MODULE) $(or $(RUNS),10)

# xfstests or LTP stock and with the module on KVER, per filesystem
# (test/field): the guest root is built first when it is not in the cache,
# from the git directories XFSTESTS_GIT and LTP_GIT (README "The field's
# suites")
field-root:
	@bash test/field/root.sh --cached >/dev/null || \
		bash test/field/root.sh --xfstests "$(XFSTESTS_GIT)" --ltp "$(LTP_GIT)" >/dev/null

xfstests: field-root
	@bash test/field/compare.sh $(KVER) $(or $(FS),ext4,xfs,btrfs) '$(or $(TESTS),-g,quick)'

# LTP's release set: every chosen system-call test, and of ltp-aiodio's
# lines those whose files fit the 512 MiB test device in a few minutes
# (README "The field's suites"); TESTS=all runs every line
LTP_RELEASE := io_*,preadv2*,pwritev2*,fsync*,fdatasync*,ADSP00[1-9],ADSP01[0-6],ADSP02[0-5],ADSP03[0-2],ADSP04?,AD000,DIT000,ADS100?
ltp: field-root
	@bash test/field/compare.sh --suite ltp $(KVER) $(or $(FS),ext4,xfs,btrfs) '$(or $(TESTS),$(LTP_RELEASE))'

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
	@bash test/deb/deb-check.sh $(if $(MIRROR),--mirror '$(MIRROR)') $(if $(filter 1,$(KEEP)),--keep)

clean-pkg:
	$(MAKE) -C lib clean
	rm -f $(TOOLS) lib/nowait.pc

# event-loop stall, refusal cost, fio in one boot (test/bench), then the SMP
# scaling in a second (SCALE=0 skips it); REF=<native kver> on the command
# line adds its runs, compare.sh, scale-compare.sh and *_vs_native;
# SET='KEY=VALUE ...' sets the bench profiles' parameters (README "Benchmark")
bench:
	@bash test/bench/run.sh $(if $(filter 0,$(SCALE)),--no-scale) $(foreach s,$(SET),--set '$(s)') \
		$(if $(OUT),--out '$(OUT)') $(KVER) $(MODULE) \
		'$(if $(filter command line environment environment override,$(origin REF)),$(REF))'

conformance:
	$(MAKE) -C test/conformance

clean:
	$(MAKE) -C test/conformance clean
	$(MAKE) -C lib clean
	rm -rf test/vm/out test/deb/out build $(TOOLS) lib/nowait.pc
	rm -f module/*.o module/*.ko module/*.mod* module/.*.cmd module/modules.order
	rm -f Module.symvers modules.order .*.cmd

.PHONY: module tools lib install check vm-check unit bench conformance clean fuzz stress iosoak xfstests ltp field-root \
	install-headers install-lib install-tools install-man install-userspace \
	install-dkms-src man-check deb deb-deps deb-check clean-pkg dkms-conf

# RPM packages for RHEL/CentOS 7 and later (rpm/): the SRPM and binary
# RPMs of rpm/nowait-aio.spec into $(RPM_TOP)/SRPMS and RPMS, from a
# tarball of the tracked and new files (as `make deb` copies the tree);
# KMOD_KDIR=<built kernel tree> also builds rpm/kmod-nowait-aio.spec
# against that tree.  rpmbuild gets --nodeps where rpm's database does not
# know rpm itself (Debian: it is empty), since the BuildRequires gcc, make,
# libaio-devel (and kernel-devel for the kmod) are Fedora/EL package names.
# Payloads xz (binary) and gzip (source) and SHA-256 file digests, which
# EL7's rpm 4.11 reads.  Where rpm lacks Fedora/EL's redhat-rpm-config
# (Debian), rpm/debian-host.macros gives the build what EL7's has: the
# debuginfo package and gzipped manual pages.
RPM_TOP ?= $(CURDIR)/build/rpm
KMOD_KDIR ?=
RPMBUILD = rpmbuild --define "_topdir $(RPM_TOP)" \
	--define "_binary_payload w2.xzdio" --define "_source_payload w9.gzdio" \
	--define "_binary_filedigest_algorithm 8" --define "_source_filedigest_algorithm 8" \
	$(if $(shell rpm --eval '%{?_enable_debug_packages}'),,--load $(CURDIR)/rpm/debian-host.macros) \
	$(if $(shell rpm -q rpm >/dev/null 2>&1 && echo y),,--nodeps)
rpm:
	@command -v rpmbuild >/dev/null || { \
		echo "nowait-aio: make rpm needs rpmbuild (Debian: apt-get install rpm; EL: yum install rpm-build)"; exit 1; }
ifneq ($(KMOD_KDIR),)
	@test -f $(KMOD_KDIR)/include/config/kernel.release || { \
		echo "nowait-aio: KMOD_KDIR=$(KMOD_KDIR) is not a built kernel tree (no include/config/kernel.release)"; exit 1; }
endif
	rm -rf $(RPM_TOP)
	mkdir -p $(RPM_TOP)/SOURCES $(RPM_TOP)/SPECS
	if git -C $(CURDIR) rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git -C $(CURDIR) ls-files -c -o --exclude-standard | \
			while IFS= read -r f; do [ -f "$$f" ] && printf '%s\n' "$$f"; done; \
	else \
		cd $(CURDIR) && find . -path ./build -prune -o -path ./test/vm/out -prune -o \
			-type f -print | sed 's|^\./||'; \
	fi | LC_ALL=C sort | \
	tar -C $(CURDIR) -T - -cf - --transform 's|^|nowait-aio-$(NW_VERSION)/|' \
		--owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git -C $(CURDIR) log -1 --format=%ct 2>/dev/null || date +%s) | \
		gzip -9n >$(RPM_TOP)/SOURCES/nowait-aio-$(NW_VERSION).tar.gz
	sed 's/@VERSION@/$(NW_VERSION)/g' rpm/nowait-aio.spec >$(RPM_TOP)/SPECS/nowait-aio.spec
	$(RPMBUILD) -ba $(RPM_TOP)/SPECS/nowait-aio.spec
ifneq ($(KMOD_KDIR),)
	sed 's/@VERSION@/$(NW_VERSION)/g' rpm/kmod-nowait-aio.spec >$(RPM_TOP)/SPECS/kmod-nowait-aio.spec
	$(RPMBUILD) --define "kmod_kdir $(abspath $(KMOD_KDIR))" \
		--define "kmod_kernel_release $$(cat $(KMOD_KDIR)/include/config/kernel.release)" \
		-ba $(RPM_TOP)/SPECS/kmod-nowait-aio.spec
else
	@echo "nowait-aio: kmod-nowait-aio skipped: it is built against one kernel tree, and KMOD_KDIR=<built kernel tree> was not given"
endif
	@ls -1 $(RPM_TOP)/SRPMS/*.rpm $(RPM_TOP)/RPMS/*/*.rpm

# build the RPMs, rpmlint them, install and erase them in a scratch root
# (test/rpm; the install part as root)
rpm-check:
	@KMOD_KDIR='$(KMOD_KDIR)' bash test/rpm/rpm-check.sh

.PHONY: rpm rpm-check
