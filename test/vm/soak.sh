#!/bin/bash
# Run the suite (or another profile) on one kernel again and again, to
# catch what happens once in many runs (a hang, a race).  Each run keeps
# its own output folder.
#
#   test/vm/soak.sh [--profile NAME] [--arg VALUE] KVER MODULE RUNS [CASES]
#
# --profile and --arg go to test/vm/run.sh: --profile iosoak --arg <secs>
# runs the I/O soak (test/iosoak/guest.sh: plain I/O, no NOWAIT, any
# kernel) instead of the suite.  NOWAIT_VM_SMP sets the vCPUs as for
# run.sh.  NOWAIT_HOST_HOGS=<n> keeps n busy loops on the host for the
# whole soak (the hangs came when the host was overloaded).
# Prints one line per run ("soak <i>: <counts from its summary.env> [hang]
# [unstuck]") and at the end "soak: <runs> runs, <hangs> hangs, <failed>
# failed, <n> freed from a stale translation" (QEMU's bug, README
# "Testing": such a run passes when the guest went on; its folder is kept,
# without the images).  A hang is a hung task in dmesg or a stall found by
# the I/O soak's watcher.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
profile=suite popts=()
while [ $# -gt 0 ]; do
	case $1 in
	--profile) profile=${2:?--profile NAME}; popts+=("$1" "$2"); shift 2 ;;
	--arg) popts+=("$1" "${2?--arg VALUE}"); shift 2 ;;
	*) break ;;
	esac
done
KVER=${1:?usage: soak.sh [--profile NAME] [--arg VALUE] KVER MODULE RUNS [CASES]}
MODULE=${2:-1}
RUNS=${3:-20}
CASES=${4:-}
kind=soak
[ "$profile" = suite ] || kind=$profile
smp=${NOWAIT_VM_SMP:-$(nw_profile_get "$profile" smp)}
maxcpus=${NOWAIT_VM_MAXCPUS:-$(nw_profile_get "$profile" maxcpus)}
base=${NOWAIT_OUT:-$top/test/vm/out}/$kind-$KVER-m$MODULE-smp$smp-max$maxcpus
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
	NOWAIT_OUT=$o bash "$top/test/vm/run.sh" "${popts[@]}" "$KVER" "$MODULE" "$CASES" >"$base/$i.log" 2>&1
	rc=$?
	sum=$(NOWAIT_OUT=$o nw_out_dir "$KVER" "$MODULE" "$profile")/summary.env
	d=$(nw_summary_get "$sum" out)
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
	if [ -n "$d" ]; then
		line="$(nw_summary_get "$sum" passed 0) passed, $(nw_summary_get "$sum" failed 1) failed, $(nw_summary_get "$sum" skipped 0) skipped"
	else
		line="no summary.env: $(tail -n 1 "$base/$i.log")"
	fi
	echo "soak $i: $line$tag"
	# keep the folders of failed runs only (images are 1.5 GiB a run)
	if [ $rc = 0 ] && [ -n "$d" ] && [ -s "$d/unstick.txt" ]; then
		rm -rf "$d"/*.img "$d/initramfs" "$d/src" "$d/9p"
	elif [ $rc = 0 ]; then
		rm -rf "$o"
	fi
done
echo "soak: $RUNS runs, $hangs hangs, $failed failed, $unstuck freed from a stale translation"
[ $failed = 0 ]
