# nowait-aio: no-wait AIO (RWF_NOWAIT) for pre-4.13 kernels.
#
#   make module [KDIR=<built kernel tree>]   build module/nowait_aio.ko
#   make check                               all tests (see README)
#   make vm-check KVER=<version> [MODULE=1] [CASES=<globs>]
#   make unit                                host-side unit tests
KDIR ?= /lib/modules/$(shell uname -r)/build
KVER ?= debian
MODULE ?= 0
CASES ?=

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

check:
	@bash test/check.sh

vm-check:
	@bash test/vm/run.sh $(KVER) $(MODULE) '$(CASES)'

unit:
	@bash test/unit/run.sh

conformance:
	$(MAKE) -C test/conformance

clean:
	$(MAKE) -C test/conformance clean
	rm -rf test/vm/out
	rm -f module/*.o module/*.ko module/*.mod* module/.*.cmd module/modules.order
	rm -f Module.symvers modules.order .*.cmd

.PHONY: module check vm-check unit conformance clean
