#!/bin/busybox sh
# PID 1 of the test VM (busybox).  Mounts the test filesystems, loads the
# module when asked, runs the conformance suite and writes its lines to the
# second serial port (/dev/ttyS1), which the host streams.  The last line is
# the marker "nwsuite-done rc=N": without it the host counts the run failed.
# What to do comes from /params (test/vm/run.sh writes it: key=value
# lines): module (1, 0 or refuse), order (fs-first or module-first),
# switches, cases, arg, unstick, hangcheck, and from the profile
# (test/vm/profiles/) run, the command whose output is the run's results
# (evaluated here, with $module, $cases and $arg set), and end (poweroff,
# or powercut: no sync, no unmount).  The profile's own parameters are the
# set.<name> lines, for its scripts.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t debugfs none /sys/kernel/debug 2>/dev/null
res=/dev/ttyS1
say() { echo "$*" > $res; }
param() { sed -n "s/^$1=//p" /params | tail -n 1; }
module=$(param module) order=$(param order) switches=$(param switches)
unstick=$(param unstick) hangcheck=$(param hangcheck) run=$(param run) end=$(param end)
# for the profile's run line, below
# shellcheck disable=SC2034
cases=$(param cases) arg=$(param arg)
# where the kernel text sits (the host compares it with System.map: KASLR)
say "# kernel _text $(grep -m 1 ' _text$' /proc/kallsyms | cut -d' ' -f1)"
# kmemleak (debug kernels): what boot left is reported and set aside, the
# periodic scan is stopped, and every run ends with a scan of its own
kml=/sys/kernel/debug/kmemleak
kmemleak_check() {
	[ -w $kml ] || return 0
	# twice: kmemleak reports an object only once its contents held
	# still across two scans
	echo scan > $kml
	echo scan > $kml
	# Set aside: the trampoline of an ftrace_ops whose registration
	# the kernel refused (-EBUSY: a kprobe holds the function, as
	# module.hostile.kprobe-* arrange): 4.12's and 4.14's
	# ftrace_startup() rolls the registration back without freeing the
	# trampoline __register_ftrace_function() made (later kernels call
	# ftrace_trampoline_free() there).  A trampoline of an ops still
	# registered is referenced by it, and one left registered past
	# unload would crash the next call.
	cat $kml > /tmp/kml
	n=$(grep -c '^unreferenced object' /tmp/kml)
	t=$(awk '/^unreferenced object/ { if (b) n++; b = 0 }
		/arch_ftrace_update_trampoline/ { b = 1 }
		END { if (b) n++; print n + 0 }' /tmp/kml)
	[ "$t" = 0 ] ||
		say "# kmemleak: $t trampoline(s) of refused ftrace registrations set aside (the kernel's rollback keeps them)"
	if [ "$((n - t))" = 0 ]; then
		say "ok vm.kmemleak - no leak reported"
	else
		say "not ok vm.kmemleak - no leak reported: 0 vs $((n - t))"
		head -n 40 /tmp/kml > $res
	fi
	echo clear > $kml
}
finish() {
	kmemleak_check
	say "nwsuite-done rc=$1"
	sync
	for m in /mnt/*; do umount "$m" 2>/dev/null; done
	poweroff -f
}

if [ -w $kml ]; then
	echo scan > $kml
	echo scan > $kml
	echo clear > $kml
	echo scan=off > $kml
fi

echo 60 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
# A hung task does not panic at once: the watcher below first dumps what
# finds a stranded I/O (every blocked task's stack, the blk-mq state of each
# disk, the module's counters), then crashes the VM.  The run fails on the
# kernel's "blocked for more than" line either way (verdict.sh).
echo 0 > /proc/sys/kernel/hung_task_panic 2>/dev/null
hang_dump() {
	say "# hang: $(dmesg | grep -m 1 'blocked for more than')"
	[ -f /tmp/stall ] && say "# hang: stall: $(cat /tmp/stall)"
	echo w > /proc/sysrq-trigger
	echo l > /proc/sysrq-trigger	# every CPU's backtrace
	for f in /sys/block/vd*/inflight /sys/block/vd*/stat; do
		say "# hang: $f: $(tr '\n' ' ' < "$f")"
	done
	# did blk-mq time requests out?  The kprobe is set up at boot, below.
	tr=/sys/kernel/debug/tracing
	[ -f $tr/trace ] &&
		say "# hang: blk_mq_rq_timed_out calls: $(grep -c nwtimeout $tr/trace)"
	# the I/O soak traced every request (test/iosoak/guest.sh): those
	# started and not done, each with its last events
	if [ -d $tr/events/nwrq ]; then
		echo 0 > $tr/tracing_on
		awk -f /rqlife.awk $tr/trace | head -n 40 | while read -r l; do
			say "# hang: rq $l"
		done
	fi
	# the host reads QEMU's view of the virtqueues now (run.sh, QMP),
	# before anything else is asked of the disks
	say "# hang: ask-host"
	sleep 5
	# blk-mq's debugfs state and the queue attributes, in the background:
	# some of them take the queue's sysfs_lock, which a task changing
	# nr_requests holds while it waits for the stuck requests
	(
		for f in $(find /sys/kernel/debug/block -type f 2>/dev/null) \
			/sys/block/vd*/queue/nr_requests /sys/block/vd*/queue/scheduler \
			/sys/kernel/nowait_aio/*; do
			case $f in *poll_stat|*_bitmap) continue ;; esac
			v=$(head -c 2000 "$f" 2>/dev/null | tr '\n' '|')
			[ -n "$v" ] && say "# hang: ${f#/sys/kernel/debug/block/}: $v"
		done
	) &
	sleep 10
	# a fresh request to each disk: if the stuck ones complete with it,
	# their completions were there and only the notification was lost
	for d in /dev/vd?; do
		dd if=$d of=/dev/null bs=4096 count=1 skip=$((RANDOM % 1000)) iflag=direct 2>/dev/null &
	done
	sleep 5
	for f in /sys/block/vd*/inflight /sys/block/vd*/stat; do
		say "# hang: after a fresh read: $f: $(tr '\n' ' ' < "$f")"
	done
	sleep 1
	echo c > /proc/sysrq-trigger
}
# hangcheck=0 (the benchmark's -icount sleep=off warps guest time over
# every idle wait for host I/O, so "blocked for 60 s" means nothing
# there): no hung-task check
[ "$hangcheck" = 0 ] && echo 0 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
if [ -f /proc/sys/kernel/hung_task_timeout_secs ] && [ "$hangcheck" != 0 ]; then
	# count blk-mq request timeouts for the dump (where kprobes exist)
	tr=/sys/kernel/debug/tracing
	if echo 'p:nwtimeout blk_mq_rq_timed_out' >> $tr/kprobe_events 2>/dev/null; then
		echo 1 > $tr/events/kprobes/nwtimeout/enable 2>/dev/null
	fi
	# A hung task on a preemptible kernel may be QEMU 7.2's stale
	# translation (README "Testing"): its CPUs stay preemptible, so no
	# soft lockup or RCU stall names them.  Each time the detector names
	# tasks it has not named before: every CPU's backtrace first (the
	# verdict looks for one held at a function's first byte), then a
	# minute and more for the host to flush QEMU's translations.  A task
	# that the detector names again after that is a real hang.
	(
		hung() { dmesg | sed -n 's/.*INFO: task \(.*\) blocked for more than.*/\1/p'; }
		# named again: a task of the new lines of hung.now in hung.seen
		# (busybox's grep -f of an empty file matches every line)
		again() {
			[ -s /tmp/hung.seen ] &&
				tail -n +"$(($(wc -l < /tmp/hung.seen) + 1))" /tmp/hung.now |
				grep -q -x -F -f /tmp/hung.seen
		}
		: > /tmp/hung.seen
		while sleep 5; do
			[ -f /tmp/stall ] && { hang_dump; break; }
			hung > /tmp/hung.now
			[ "$(wc -l < /tmp/hung.now)" -gt "$(wc -l < /tmp/hung.seen)" ] || continue
			if [ "${unstick:-1}" = 0 ] || again; then
				hang_dump
				break
			fi
			echo l > /proc/sysrq-trigger
			say "# hang: waiting for the host to free CPUs held on a stale translation ($(tail -n 1 /tmp/hung.now))"
			sleep 75
			cp /tmp/hung.now /tmp/hung.seen
			hung > /tmp/hung.now
			again && { hang_dump; break; }
			say "# hang: tasks moved again after the host's flush"
		done
	) &
fi

load_modules() { # the kernel's own modules the suite needs (filesystems...)
	[ -f /modules.list ] || return 0
	for m in $(cat /modules.list); do
		modprobe "$m" 2>/tmp/modprobe.err ||
			say "# modprobe $m failed: $(cat /tmp/modprobe.err)"
	done
}
load_nowait() {
	# installed by `make install` (README): modprobe finds it
	if ! modprobe nowait_aio 2>/tmp/insmod.err; then
		say "not ok setup.module.load - modprobe nowait_aio after make install: $(cat /tmp/insmod.err)"
		finish 1
	fi
	say "# nowait_aio loaded: $(cat /sys/kernel/nowait_aio/features 2>/dev/null | tr '\n' ' ')"
	# The cases compare answers with native's, so the per-request hooks
	# stay in: a flagged request that finds them out is refused with
	# EAGAIN while they go in (README "How it works").  module.demand.*,
	# interface.*.warmup and the stress test them coming and going.
	echo 0 > /sys/kernel/nowait_aio/hook_idle_ms &&
		say "# switch hook_idle_ms=0 (the suite's default)"
	# switches=name=value[,name=value...]: knobs set after the load
	for kv in $(echo "$switches" | tr ',' ' '); do
		echo "${kv#*=}" > "/sys/kernel/nowait_aio/${kv%%=*}" &&
			say "# switch ${kv%%=*}=${kv#*=}"
	done
}
# order=module-first: nowait_aio before the filesystem modules, as when
# it loads at boot (modules-load.d) and a filesystem's module comes later
if [ "$module" = 1 ] && [ "$order" = module-first ]; then
	load_nowait
	load_modules
	# a filesystem is attached a moment after its module settles
	n=0
	while grep -q '^fs .* waiting for' /sys/kernel/nowait_aio/features &&
		[ $n -lt 5 ]; do
		sleep 1; n=$((n + 1))
	done
	say "# after the filesystem modules: $(grep '^fs ' /sys/kernel/nowait_aio/features | tr '\n' ' ')"
else
	load_modules
	[ "$module" = 1 ] && load_nowait
fi

# a native kernel: the module must refuse to load, and say why
if [ "$module" = refuse ]; then
	if insmod /nowait_aio.ko 2>/dev/null; then
		say "not ok setup.module.refuses-native - nowait_aio refuses to load on a native kernel: refused vs loaded"
		rmmod nowait_aio
	elif dmesg | grep -q 'nowait_aio: kernel .* has native RWF_NOWAIT'; then
		say "ok setup.module.refuses-native - nowait_aio refuses to load on a native kernel, and says why"
	else
		say "not ok setup.module.refuses-native - nowait_aio refuses to load on a native kernel: its message vs none"
	fi
fi

mkdir -p /mnt/ext4 /mnt/xfs /mnt/btrfs /mnt/tmpfs /mnt/9p
# the three test filesystems are part of every run: no mount, no pass
for fs in ext4:vda xfs:vdb btrfs:vdc; do
	if ! mount -t ${fs%%:*} /dev/${fs#*:} /mnt/${fs%%:*} 2>/tmp/mount.err; then
		say "not ok setup.mount.${fs%%:*} - mount: $(cat /tmp/mount.err)"
	fi
done
mount -t tmpfs none /mnt/tmpfs
mount -t 9p -o trans=virtio,version=9p2000.L host9p /mnt/9p 2>/dev/null ||
	say "# mount 9p failed"

# the profile's program: its output is the run's results
eval "$run" > $res 2>&1
rc=$?
if [ "$end" = powercut ]; then
	# the power cut: no sync, no unmount
	kmemleak_check
	say "nwsuite-done rc=$rc"
	echo b > /proc/sysrq-trigger
	poweroff -f -n
fi
finish $rc
