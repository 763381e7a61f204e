# nowait-aio: no-wait AIO (RWF_NOWAIT) for kernels before 4.13.
#
#   make module [KDIR=<built kernel tree>]   build module/nowait_aio.ko
#   make tools                               build tools/nowait-aio-probe
#   make lib                                 build lib/libnowait.{a,so}
#   sudo make install                        install module (runs depmod),
#                                            header and probe tool
#   make check                               all tests (see README)
#   make vm-check KVER=<version> [MODULE=1] [CASES=<globs>]
#   make unit                                host-side unit tests
KDIR ?= /lib/modules/$(shell uname -r)/build
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || uname -r)
PREFIX ?= /usr/local
DESTDIR ?=
KVER ?= debian
MODULE ?= 0
CASES ?=
REF ?= 4.14.67
SEED ?= 1
OPS ?= 1000
SECS ?= 60

# 4.13 and later have RWF_NOWAIT natively: nothing to build there
NATIVE := $(shell echo $(KREL) | awk -F. '{ print ($$1 > 4 || ($$1 == 4 && $$2 + 0 >= 13)) ? 1 : 0 }')

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: tools/nowait-aio-probe

lib:
	$(MAKE) -C lib

tools/nowait-aio-probe: tools/nowait-aio-probe.c include/nowait_aio.h
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude $(TOOLS_LDFLAGS) -o $@ $<

install: tools lib
	install -D -m 0644 include/nowait_aio.h $(DESTDIR)$(PREFIX)/include/nowait_aio.h
	install -D -m 0644 include/libnowait.h $(DESTDIR)$(PREFIX)/include/libnowait.h
	install -D -m 0644 lib/libnowait.a $(DESTDIR)$(PREFIX)/lib/libnowait.a
	install -D -m 0755 lib/libnowait.so $(DESTDIR)$(PREFIX)/lib/libnowait.so.0
	ln -sf libnowait.so.0 $(DESTDIR)$(PREFIX)/lib/libnowait.so
	install -D -m 0755 tools/nowait-aio-probe $(DESTDIR)$(PREFIX)/sbin/nowait-aio-probe
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

# differential fuzzer: KVER with the module against REF native (test/fuzz)
fuzz:
	@bash test/fuzz/run.sh $(KVER) $(REF) $(SEED) $(OPS)

# stress with load/unload and a shadow model (test/stress)
stress:
	@bash test/stress/run.sh $(KVER) $(SECS)

vm-check:
	@bash test/vm/run.sh $(KVER) $(MODULE) '$(CASES)'

unit:
	@bash test/unit/run.sh

# event-loop stall, refusal cost, fio in one boot (test/bench); REF=<native kver> on the command line adds its run, compare.sh and *_vs_native
bench:
	@ref='$(if $(filter command line environment environment override,$(origin REF)),$(REF))'; \
	rc=0; out=$${NOWAIT_OUT:-test/vm/out}; \
	NOWAIT_BENCH=1 NOWAIT_VM_TIMEOUT=$${NOWAIT_VM_TIMEOUT:-3600} bash test/vm/run.sh $(KVER) $(MODULE) || rc=1; \
	a=$$(ls -td "$$out/$(KVER)"-*-bench 2>/dev/null | head -n 1); b=; \
	if [ -n "$$ref" ]; then \
		NOWAIT_BENCH=1 NOWAIT_VM_TIMEOUT=$${NOWAIT_VM_TIMEOUT:-3600} bash test/vm/run.sh "$$ref" 0 || rc=1; \
		b=$$(ls -td "$$out/$$ref"-*-bench 2>/dev/null | head -n 1); \
	fi; \
	[ -z "$$a" ] || bash test/bench/plot.sh "$$a" $$b || true; \
	[ -z "$$a" ] || [ -z "$$b" ] || bash test/bench/compare.sh "$$a/results.txt" "$$b/results.txt" || rc=1; \
	exit $$rc

conformance:
	$(MAKE) -C test/conformance

clean:
	$(MAKE) -C test/conformance clean
	$(MAKE) -C lib clean
	rm -rf test/vm/out tools/nowait-aio-probe
	rm -f module/*.o module/*.ko module/*.mod* module/.*.cmd module/modules.order
	rm -f Module.symvers modules.order .*.cmd

.PHONY: module tools lib install check vm-check unit bench conformance clean fuzz stress
