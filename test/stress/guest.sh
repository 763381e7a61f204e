#!/bin/busybox sh
# Guest side of `make stress` (run by init in the profiles stress, with
# the argument <secs> and the mode, and stress-verify: test/vm/profiles/).
#
# <secs>: nwstress runs for <secs> seconds while this script unloads and
# reloads nowait_aio every second or two and flips its switches; then the
# files are checked against their shadows, the shadows saved to the host
# (/mnt/9p), and init scans kmemleak where the kernel has it and cuts the
# power without unmounting.
# A second argument of 0 leaves nowait_aio out and sends the same requests
# without RWF_NOWAIT (the baseline run).
# verify: after that power cut, the filesystems are mounted again (journal
# replay) and checked against the saved shadows.
arg=$1
withmod=${2:-1}
k=/sys/kernel/nowait_aio
if [ "$arg" = verify ]; then
	/nwstress verify
	rc=$?
	[ $rc = 0 ] && echo "ok stress.power-cut - after the power cut and remount the files match their shadows" ||
		echo "not ok stress.power-cut - after the power cut and remount the files match their shadows: match vs mismatch"
	exit $rc
fi

: >/tmp/cycles
[ "$withmod" = 0 ] || (
	n=0
	while [ ! -f /tmp/stress.stop ]; do
		if rmmod nowait_aio 2>/dev/null; then
			n=$((n + 1))
			echo $n >/tmp/cycles
		fi
		usleep $((200000 + (n % 5) * 100000))
		modprobe nowait_aio 2>/dev/null || insmod /nowait_aio.ko 2>/dev/null
		# flip a switch or two while it is loaded
		for s in enabled lock pagecache alloc congestion; do
			[ -w $k/$s ] || continue
			echo $(( (n + ${#s}) % 3 != 0 )) >$k/$s 2>/dev/null
		done
		# the per-request hooks: kept (0), or out 1 ms / 50 ms after
		# each flagged request, so they come and go under the writers
		case $((n % 3)) in 0) v=1 ;; 1) v=50 ;; *) v=0 ;; esac
		[ -w $k/hook_idle_ms ] && echo $v >$k/hook_idle_ms 2>/dev/null
		usleep $((600000 + (n % 3) * 300000))
		for s in enabled lock pagecache alloc congestion; do
			[ -w $k/$s ] && echo 1 >$k/$s 2>/dev/null
		done
	done
) &
cyc=$!

# Where XFS and btrfs are modules, the run is three rounds; between two
# rounds both are unmounted, removed (rmmod) and loaded and mounted again
# while nowait_aio keeps coming and going: its hooks must leave with each
# filesystem module and come back with the new one.  Each round starts on
# fresh files; the last round's shadows face the power cut.
fsmods=""
for m in xfs:vdb btrfs:vdc; do
	[ -e /sys/module/${m%%:*}/refcnt ] && fsmods="$fsmods $m"
done
fs_reload() {
	for m in $fsmods; do
		umount /mnt/${m%%:*} 2>/tmp/reload.err &&
			rmmod ${m%%:*} 2>>/tmp/reload.err || return 1
	done
	for m in $fsmods; do
		modprobe ${m%%:*} 2>>/tmp/reload.err &&
			mount -t ${m%%:*} /dev/${m#*:} /mnt/${m%%:*} \
				2>>/tmp/reload.err || return 1
	done
}
rounds=1
[ -n "$fsmods" ] && rounds=3
reloads=0
rc=0
r=1
: >/tmp/stress.out
while :; do
	/nwstress run $((arg / rounds)) $([ "$withmod" = 0 ] && echo plain) \
		>>/tmp/stress.out 2>&1 || rc=1
	[ $r -ge $rounds ] && break
	if ! fs_reload; then
		echo "not ok stress.fs-reload - xfs and btrfs unmounted, removed, loaded and mounted again: ok vs $(cat /tmp/reload.err)"
		rc=1
		break
	fi
	reloads=$((reloads + 1))
	r=$((r + 1))
done
touch /tmp/stress.stop
wait $cyc
[ "$withmod" = 0 ] || modprobe nowait_aio 2>/dev/null
cat /tmp/stress.out
cycles=$(cat /tmp/cycles)
echo "# stress: ${cycles:-0} load/unload cycles, $reloads reloads of:${fsmods:- none}"
echo "stress-cycles: ${cycles:-0}"
echo "stress-fs-reloads: $reloads"
if [ $rc = 0 ]; then
	echo "ok stress.run - the files match their shadows, no unexpected error"
else
	echo "not ok stress.run - the files match their shadows, no unexpected error: mismatches vs none"
fi
exit $rc
