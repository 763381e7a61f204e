#!/bin/busybox sh
# Guest side of the I/O soak (test/vm/run.sh --profile iosoak --arg <secs>;
# init runs it with that argument).  Plain I/O on the three test filesystems (ioload)
# while each disk's nr_requests goes from 4 to its default and back, as the
# block.busy cases do.  A watcher reads /sys/block/vd?/stat every 2 s: a disk
# with requests in flight and no completion for 30 s has stalled; it writes
# /tmp/stall, and init's hang watcher dumps the state and crashes the VM.
# The argument <secs>[:fixed][:trace][:ftrace]: "fixed" leaves nr_requests
# alone; "trace" traces every request with kprobes (which hides the stall:
# no stall in 8 traced runs against 2 in 2 untraced ones); "ftrace" turns
# the function tracer on and off, for the first half of the soak, on the
# functions of the I/O path that the module hooks: ftrace rewrites their
# first instruction while the other vCPUs run them, as a module load or
# unload does (QEMU 7.2's stale translation, README "Testing").
secs=${1%%:*}
nrmode=cycle
case ":$1:" in *:fixed:*) nrmode=fixed ;; esac
trace=0
case ":$1:" in *:trace:*) trace=1 ;; esac
ftrace=0
case ":$1:" in *:ftrace:*) ftrace=1 ;; esac
for d in /sys/block/vd?; do
	cat $d/queue/nr_requests > /tmp/nr.${d##*/}
done
echo "# iosoak: CPUs online $(cat /sys/devices/system/cpu/online), possible $(cat /sys/devices/system/cpu/possible)"

# Each request's life, for the dump of a stall (init.sh's hang_dump): when
# blk-mq starts it, when the driver hands its completion to blk-mq, when
# blk-mq passes that on to virtio-blk, and when blk-mq times it out.
tr=/sys/kernel/debug/tracing
if [ $trace = 1 ] && [ -w $tr/kprobe_events ]; then
	echo 16384 > $tr/buffer_size_kb
	for p in 'start blk_mq_start_request' 'cmpl blk_mq_complete_request' \
		'done virtblk_request_done' 'tmo blk_mq_rq_timed_out'; do
		echo "p:nwrq/${p% *} ${p#* } rq=%di" >> $tr/kprobe_events 2>/dev/null
	done
	echo 1 > $tr/events/nwrq/enable 2>/dev/null
fi

# the stall watcher: in flight > 0 and no completion for 30 s
(
	while [ ! -f /tmp/iosoak.stop ]; do
		for d in /sys/block/vd?; do
			n=${d##*/}
			set -- $(cat $d/stat)
			done_now=$(($1 + $5))
			if [ "$9" -gt 0 ] && [ "$done_now" = "$(cat /tmp/done.$n 2>/dev/null)" ]; then
				idle=$(($(cat /tmp/idle.$n 2>/dev/null || echo 0) + 2))
			else
				idle=0
			fi
			echo $done_now > /tmp/done.$n
			echo $idle > /tmp/idle.$n
			if [ $idle -ge 30 ]; then
				echo "$n: $9 requests in flight, no completion for $idle s" > /tmp/stall
				exit 0
			fi
		done
		sleep 2
	done
) &
watch=$!

# nr_requests 4 <-> default under the load, one disk after the other
(
	[ $nrmode = fixed ] && exit 0
	i=0
	while [ ! -f /tmp/iosoak.stop ]; do
		for d in /sys/block/vd?; do
			n=${d##*/}
			if [ $((i % 2)) = 0 ]; then
				echo 4 > $d/queue/nr_requests
			else
				cat /tmp/nr.$n > $d/queue/nr_requests
			fi
			sleep 1
		done
		i=$((i + 1))
	done
	for d in /sys/block/vd?; do
		cat /tmp/nr.${d##*/} > $d/queue/nr_requests
	done
) &
nr=$!

# the function tracer in and out on the I/O path, as fast as it goes
(
	[ $ftrace = 1 ] && [ -w $tr/set_ftrace_filter ] || exit 0
	for f in blk_mq_sched_get_request get_request generic_file_read_iter \
		ext4_file_write_iter xfs_file_write_iter btrfs_file_write_iter \
		blkdev_write_iter vfs_write vfs_read; do
		echo $f >> $tr/set_ftrace_filter 2>/dev/null
	done
	# for the first half of the soak only: a translation left stale by
	# the last updates must then be freed by the host, or the run hangs
	n=0 end=$(($(date +%s) + secs / 2))
	while [ ! -f /tmp/iosoak.stop ] && [ "$(date +%s)" -lt $end ]; do
		echo function > $tr/current_tracer
		echo nop > $tr/current_tracer
		n=$((n + 2))
	done
	echo "# iosoak: $n ftrace updates on $(wc -l < $tr/set_ftrace_filter) functions" > /tmp/ftrace.out
) &
ft=$!

/ioload "$secs" /mnt/ext4 /mnt/xfs /mnt/btrfs > /tmp/ioload.out 2>&1
rc=$?
touch /tmp/iosoak.stop
wait $nr $ft
kill $watch 2>/dev/null
cat /tmp/ioload.out
cat /tmp/ftrace.out 2>/dev/null
if [ -f /tmp/stall ]; then
	echo "not ok iosoak.stall - no disk stalls with requests in flight: none vs $(cat /tmp/stall)"
	exit 1
fi
echo "ok iosoak.stall - no disk stalls with requests in flight ($secs s of plain I/O, nr_requests: $nrmode)"
[ $rc = 0 ] && echo "ok iosoak.io - ioload saw no I/O error" ||
	echo "not ok iosoak.io - ioload saw no I/O error: 0 vs errors"
exit $rc
