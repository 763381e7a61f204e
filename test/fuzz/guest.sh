#!/bin/busybox sh
# Guest side of the fuzz profile (test/vm/profiles/fuzz.env): the
# differential fuzzer (test/fuzz/fuzz.c) with its argument SEED:OPS[:noclone],
# its operations' results in /mnt/9p/fuzz.log for the host
# (test/fuzz/compare.sh).  Prints "ok fuzz.run" when it ran to the end
# (the host counts the operations from the log: the profile's figure ops).
# No periodic writeback: the fuzzer's page-cache and delalloc states must
# follow its operations, not the clock.
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
echo 360000 > /proc/sys/vm/dirty_expire_centisecs
# shellcheck disable=SC2046
/nwfuzz $(echo "${1:-1:1000}" | tr ':' ' ') > /mnt/9p/fuzz.log 2>&1
n=$(grep -c '^op ' /mnt/9p/fuzz.log)
if grep -q '^nwfuzz-done' /mnt/9p/fuzz.log; then
	echo "ok fuzz.run - $n operations ran to the end"
else
	echo "not ok fuzz.run - the fuzzer runs to the end: done vs stopped after $n ops ($(tail -n 1 /mnt/9p/fuzz.log))"
fi
