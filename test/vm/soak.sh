#!/bin/bash
# Run the suite on one kernel again and again, to catch what happens once
# in many runs (a hang, a race).  Each run keeps its own output folder.
#
#   test/vm/soak.sh KVER MODULE RUNS [CASES]
#
# NOWAIT_VM_SMP sets the vCPUs as for run.sh.  NOWAIT_IOSOAK=<secs> runs the
# I/O soak (test/iosoak/guest.sh: plain I/O, no NOWAIT, any kernel) instead
# of the suite.  NOWAIT_HOST_HOGS=<n> keeps n busy loops on the host for the
# whole soak (the hangs came when the host was overloaded).
# Prints one line per run ("soak <i>: <summary> [hang] [unstuck]") and at
# the end "soak: <runs> runs, <hangs> hangs, <failed> failed, <n> freed
# from a stale translation" (QEMU's bug, README "Testing": such a run
# passes when the guest went on; its folder is kept, without the images).  A hang is a hung
# task in dmesg or a stall found by the I/O soak's watcher.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${1:?usage: soak.sh KVER MODULE RUNS [CASES]}
MODULE=${2:-1}
RUNS=${3:-20}
CASES=${4:-}
kind=soak
[ -n "${NOWAIT_IOSOAK:-}" ] && kind=iosoak
base=${NOWAIT_OUT:-$top/test/vm/out}/$kind-$KVER-m$MODULE-smp${NOWAIT_VM_SMP:-2}-max${NOWAIT_VM_MAXCPUS:-2}
mkdir -p "$base"
hogs=""
for _ in $(seq 1 "${NOWAIT_HOST_HOGS:-0}"); do
	(while :; do :; done) &
	hogs="$hogs $!"
done
# shellcheck disable=SC2064,SC2086
[ -n "$hogs" ] && trap "kill $hogs 2>/dev/null" EXIT
hangs=0 failed=0 unstuck=0
for i in $(seq 1 "$RUNS"); do
	o=$base/$i
	rm -rf "$o"
	NOWAIT_OUT=$o bash "$top/test/vm/run.sh" "$KVER" "$MODULE" "$CASES" >"$base/$i.log" 2>&1
	rc=$?
	d=$(ls -d "$o"/*/ 2>/dev/null | head -n 1)
	tag=""
	if [ -n "$d" ] && { grep -q -a 'blocked for more than' "$d/dmesg.log" ||
		grep -q -a '^# hang: stall' "$d/results.txt"; }; then
		tag=" hang"
		hangs=$((hangs + 1))
	fi
	# QEMU's stale translation, freed by the host (run.sh): counted
	# apart, and the folder kept without its images
	if [ -n "$d" ] && [ -s "$d/unstick.txt" ]; then
		tag="$tag unstuck"
		unstuck=$((unstuck + 1))
	fi
	[ $rc = 0 ] || failed=$((failed + 1))
	echo "soak $i: $(tail -n 1 "$base/$i.log")$tag"
	# keep the folders of failed runs only (images are 1.5 GiB a run)
	if [ $rc = 0 ] && [ -n "$d" ] && [ -s "$d/unstick.txt" ]; then
		rm -rf "$d"/*.img "$d/initramfs" "$d/src" "$d/9p"
	elif [ $rc = 0 ]; then
		rm -rf "$o"
	fi
done
echo "soak: $RUNS runs, $hangs hangs, $failed failed, $unstuck freed from a stale translation"
[ $failed = 0 ]
