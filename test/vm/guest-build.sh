#!/bin/bash
# The guest's programs, static and independent of the kernel under test:
# nwconf, nwconf32, libnowait_test, stall, nwfuzz, nwstress, ioload, the
# tools (nowait-aio-probe, nowait-aio-stat) and lib/'s build (libnowait.o,
# .a, .so: what `make install` puts into the guest's root).
#
#   test/vm/guest-build.sh --key TREE   print the hash of their sources
#   test/vm/guest-build.sh TREE DEST    build them in TREE (a copy of the
#                                       tree), copy them into DEST
#
# test/vm/run.sh keeps them in $NOWAIT_CACHE/guest/<key>/ and builds again
# only when the key changes: the sources, this script, the compiler.
set -uo pipefail

key() { # TREE
	(
		cd "$1" || exit 1
		find include lib tools test/conformance test/unit/libnowait_test.c \
			test/bench/stall.c test/bench/sleeps.c test/fuzz/fuzz.c test/stress/stress.c \
			test/iosoak/ioload.c Makefile test/vm/guest-build.sh -type f \
			\( -name '*.[ch]' -o -name Makefile -o -name '*.sh' -o -name '*.in' \) |
			LC_ALL=C sort | xargs sha256sum
		cc --version | head -n 1
	) | sha256sum | cut -c1-16
}

fail() {
	echo "guest-build: $* does not build" >&2
	exit 1
}

build() { # TREE
	local t=$1 g
	make -s -C "$t/test/conformance" nwconf nwconf32 || fail "the conformance suite"
	make -s -C "$t/lib" || fail "libnowait"
	# libnowait's tests, for the guest (integration on the VM kernel)
	cc -O2 -static -I"$t/include" -o "$t/test/unit/libnowait_test" \
		"$t/test/unit/libnowait_test.c" "$t/lib/libnowait.a" \
		-laio -lpthread || fail "test/unit/libnowait_test.c"
	# the event-loop stall and refusal-cost benchmark, with libnowait
	cc -O2 -Wall -Wextra -Werror -static -I"$t/include" -o "$t/test/bench/stall" \
		"$t/test/bench/stall.c" "$t/lib/libnowait.a" \
		-laio -lpthread -lm || fail "test/bench/stall.c"
	# the sleep counts (NOWAIT calls that slept)
	cc -O2 -Wall -Wextra -Werror -static -I"$t/include" -o "$t/test/bench/sleeps" \
		"$t/test/bench/sleeps.c" -laio -lpthread || fail "test/bench/sleeps.c"
	# the differential fuzzer, the stress run and the I/O soak's load
	for g in fuzz/fuzz:nwfuzz stress/stress:nwstress iosoak/ioload:ioload; do
		cc -O2 -Wall -Wextra -Werror -static -I"$t/include" \
			-o "$t/test/${g%/*}/${g#*:}" "$t/test/${g%%:*}.c" -lpthread ||
			fail "test/${g%%:*}.c"
	done
	# the tools as `make install TOOLS_LDFLAGS=-static` builds them
	rm -f "$t/tools/nowait-aio-probe" "$t/tools/nowait-aio-stat"
	make -s -C "$t" tools TOOLS_LDFLAGS=-static || fail "the tools"
}

copy() { # TREE DEST
	local t=$1 d=$2
	cp "$t/test/conformance/nwconf" "$t/test/conformance/nwconf32" \
		"$t/test/unit/libnowait_test" "$t/test/bench/stall" "$t/test/bench/sleeps" \
		"$t/test/fuzz/nwfuzz" "$t/test/stress/nwstress" "$t/test/iosoak/ioload" \
		"$t/tools/nowait-aio-probe" "$t/tools/nowait-aio-stat" \
		"$t/lib/libnowait.o" "$t/lib/libnowait.a" "$t/lib/libnowait.so" "$d/"
}

case ${1:-} in
--key) key "${2:?usage: guest-build.sh --key TREE}" ;;
'') echo "usage: guest-build.sh --key TREE | TREE DEST" >&2; exit 2 ;;
*) build "$1" && copy "$1" "${2:?usage: guest-build.sh TREE DEST}" ;;
esac
