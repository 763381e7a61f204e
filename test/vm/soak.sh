#!/bin/bash
# Run the suite (or another profile) on one kernel again and again, to
# catch what happens once in many runs (a hang, a race).  Each run keeps
# its own output folder.
#
#   test/vm/soak.sh [--host-hogs N] [--out DIR] [RUN.SH OPTIONS] KVER MODULE RUNS [CASES]
#
# test/vm/run.sh's options (--profile, --arg, --smp, --maxcpus, --timeout,
# --order, --switches, --unload-cycles, --append, --set, --no-unstick) go
# to every run: --profile iosoak --arg <secs> runs the I/O soak
# (test/iosoak/guest.sh: plain I/O, no NOWAIT, any kernel) instead of the
# suite.  --host-hogs N keeps n busy loops on the host for the whole soak
# (the hangs came when the host was overloaded).  --out DIR: where the
# soak's folder goes (test/vm/out).
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
nw_no_old_env soak.sh
usage="usage: soak.sh [--host-hogs N] [--out DIR] [RUN.SH OPTIONS] KVER MODULE RUNS [CASES]"
profile=suite popts=() hogs_n=0 smp='' maxcpus='' order=''
while [ $# -gt 0 ]; do
	case $1 in
	--no-unstick) popts+=("$1"); shift; continue ;;
	--*) [ $# -ge 2 ] || { echo "soak.sh: $1 needs a value" >&2; exit 2; } ;;
	*) break ;;
	esac
	case $1 in
	--host-hogs) hogs_n=$2 ;;
	--out) nw_out=$2 ;;
	--profile|--arg|--smp|--maxcpus|--timeout|--order|--switches|--unload-cycles|--append|--set)
		popts+=("$1" "$2")
		case $1 in
		--profile) profile=$2 ;;
		--smp) smp=$2 ;;
		--maxcpus) maxcpus=$2 ;;
		--order) order=$2 ;;
		esac ;;
	*) echo "soak.sh: no option $1; $usage" >&2; exit 2 ;;
	esac
	shift 2
done
KVER=${1:?$usage}
MODULE=${2:-1}
RUNS=${3:-20}
CASES=${4:-}
kind=soak
[ "$profile" = suite ] || kind=$profile
smp=${smp:-$(nw_profile_get "$profile" smp)}
maxcpus=${maxcpus:-$(nw_profile_get "$profile" maxcpus)}
base=$nw_out/$kind-$KVER-m$MODULE-smp$smp-max$maxcpus
mkdir -p "$base"
hogs=""
for _ in $(seq 1 "$hogs_n"); do
	(while :; do :; done) &
	hogs="$hogs $!"
done
# shellcheck disable=SC2064,SC2086
[ -n "$hogs" ] && trap "kill $hogs 2>/dev/null" EXIT
hangs=0 failed=0 unstuck=0
for i in $(seq 1 "$RUNS"); do
	o=$base/$i
	rm -rf "$o"
	bash "$top/test/vm/run.sh" --out "$o" ${popts[@]+"${popts[@]}"} --kernel "$KVER" \
		"$([ "$MODULE" = 1 ] && echo --module || echo --stock)" ${CASES:+--cases "$CASES"} >"$base/$i.log" 2>&1
	rc=$?
	sum=$(nw_out=$o nw_out_dir "$KVER" "$MODULE" "$profile" "$order")/summary.env
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
