#!/bin/bash
# Wait until a VM shows no sign of life: its serial logs have not grown and
# its QEMU process has used less than 10% of one host CPU, both for IDLE
# seconds on end.  Then print one line saying so and exit 0.  Exit 1 when
# the process ends first.
#
#   test/vm/idle-watch.sh [--every S] IDLE PID FILE...
#
# A guest waiting for something that never comes (xfstests' ext4/307 once
# waited on the console for input) writes nothing and works at nothing:
# with no task blocked the guest's hung-task check stays quiet, and the
# run would wait for its whole time-out.  QEMU runs such a guest's timer
# ticks on about 4% of a host CPU (4.12.0, 2 vCPUs: 1.25 to 1.65 s in
# each 30 s); a guest that runs a test without output keeps it far busier.
# --every: seconds between samples (10).
set -u
every=10
[ "${1:-}" = --every ] && { every=$2; shift 2; }
[ $# -ge 3 ] || { echo "usage: idle-watch.sh [--every S] IDLE PID FILE..." >&2; exit 2; }
idle=$1 pid=$2
shift 2
hz=$(getconf CLK_TCK)
# the process's CPU time in clock ticks (user and system), empty when gone
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null; }
# the files' sizes together
size() { stat -c %s "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
t0=$SECONDS c0=$(cpu) s0=$(size "$@")
while [ -n "$c0" ]; do
	sleep "$every"
	c=$(cpu)
	[ -n "$c" ] || exit 1
	s=$(size "$@")
	if [ "$s" != "$s0" ] || [ $(((c - c0) * 10)) -ge $(((SECONDS - t0) * hz)) ]; then
		t0=$SECONDS c0=$c s0=$s
	elif [ $((SECONDS - t0)) -ge "$idle" ]; then
		echo "no serial output for $((SECONDS - t0)) s, QEMU on $(((c - c0) * 100 / hz / (SECONDS - t0)))% of a CPU"
		exit 0
	fi
done
exit 1
