#!/bin/busybox sh
# Guest-side checks of the module itself (run by suite.sh with the module):
# its sysfs files, the enabled switch, and unloading while I/O runs.
# Prints "ok"/"not ok" lines like the suite; ids read module.<area>.<name>.
k=/sys/kernel/nowait_aio
ok() { echo "ok module.$1 - $2"; }
nok() { echo "not ok module.$1 - $2: $3"; }

# every file: mode 0644 for switches, 0444 for the rest
bad=""
for f in enabled lock pagecache alloc congestion fault_inject hook_idle_ms; do
	[ "$(stat -c %a $k/$f)" = 644 ] || bad="$bad $f=$(stat -c %a $k/$f)"
done
for f in accepted eagain_lock eagain_pagecache eagain_alloc eagain_congestion \
	eagain_injected eagain_warmup refused_eopnotsupp refused_einval features; do
	[ "$(stat -c %a $k/$f)" = 444 ] || bad="$bad $f=$(stat -c %a $k/$f)"
done
[ -z "$bad" ] && ok sysfs.modes "switches are 0644, counters and features 0444" ||
	nok sysfs.modes "switches are 0644, counters and features 0444" "modes vs$bad"

# an unprivileged user cannot write a switch or enable fault injection
bad=""
for f in enabled lock pagecache alloc congestion fault_inject hook_idle_ms accepted eagain_lock; do
	r=$(/nwconf --write-as-nobody $k/$f 1)
	[ "$r" = "Permission denied" ] || bad="$bad $f:$r"
done
[ -z "$bad" ] && ok sysfs.unprivileged "an unprivileged write gets EACCES" ||
	nok sysfs.unprivileged "an unprivileged write gets EACCES" "EACCES vs$bad"

# garbage, negative, too long: EINVAL and the value unchanged
bad=""
for f in enabled lock pagecache alloc congestion fault_inject hook_idle_ms; do
	before=$(cat $k/$f)
	long=$(head -c 5000 /dev/zero | tr '\0' 1)
	for v in garbage -1 2 99999999999999999999 "1 1" "$long" 0x1 " " "1x" 3600001; do
		if echo "$v" > $k/$f 2>/dev/null; then
			# numbers: 2 is a value there (3600001 is not, nor for the booleans)
			case "$f:$v" in fault_inject:2|fault_inject:3600001|hook_idle_ms:2)
				echo "$before" > $k/$f; continue ;;
			esac
			bad="$bad $f<-'$v'"
		fi
	done
	[ "$(cat $k/$f)" = "$before" ] || bad="$bad $f:changed"
done
[ -z "$bad" ] && ok sysfs.bad-values "bad values get EINVAL and change nothing" ||
	nok sysfs.bad-values "bad values get EINVAL and change nothing" "EINVAL vs accepted$bad"

# a counter cannot be written, even by root, and does not change
bad=""
for f in accepted eagain_lock refused_einval features; do
	before=$(cat $k/$f)
	echo 0 > $k/$f 2>/dev/null && bad="$bad $f<-0"
	[ "$(cat $k/$f)" = "$before" ] || bad="$bad $f:changed"
done
[ -z "$bad" ] && ok sysfs.readonly "counters and features refuse writes, even root's" ||
	nok sysfs.readonly "counters and features refuse writes, even root's" "refused vs$bad"

# features names every hook; no file leaks a kernel address
if grep -q '^hook do_io_submit live' $k/features &&
   ! cat $k/* 2>/dev/null | grep -qiE 'ffff[0-9a-f]{8}|0x[0-9a-f]{8,}'; then
	ok sysfs.features "features lists the hooks, no kernel addresses"
else
	nok sysfs.features "features lists the hooks, no kernel addresses" "$(head -c 200 $k/features)"
fi

# enabled=0: the flag is refused as on a stock kernel, and back again
echo 0 > $k/enabled
r=$(/nwconf interface.aio.nowait-accepted | grep -c '^not ok')
echo 1 > $k/enabled
r2=$(/nwconf interface.aio.nowait-accepted | grep -c '^ok')
[ "$r" = 1 ] && [ "$r2" = 1 ] && ok enabled.switch "enabled=0 refuses RWF_NOWAIT as stock does; enabled=1 accepts it" ||
	nok enabled.switch "enabled=0 refuses RWF_NOWAIT as stock does; enabled=1 accepts it" "refused then accepted vs $r/$r2"

# counters move: one accepted request, one refusal
a=$(cat $k/accepted); e=$(cat $k/eagain_alloc)
/nwconf fs.ext4.hole-write >/dev/null
[ "$(cat $k/accepted)" -gt "$a" ] && [ "$(cat $k/eagain_alloc)" -gt "$e" ] &&
	ok counters.move "accepted and eagain_alloc count a refused hole write" ||
	nok counters.move "accepted and eagain_alloc count a refused hole write" "more vs same"

# nowait-aio-stat (installed by make install) shows the counters a case
# just moved: once (-1), as JSON, and as rates over one interval
/nwconf fs.ext4.hole-write >/dev/null
a=$(cat $k/accepted); e=$(cat $k/eagain_alloc)
once=$(/usr/sbin/nowait-aio-stat -1 2>&1 | tail -n 1)
json=$(/usr/sbin/nowait-aio-stat --json 2>&1)
prom=$(/usr/sbin/nowait-aio-stat --prometheus 2>&1)
rm -f /tmp/stat-stop
( while [ ! -f /tmp/stat-stop ]; do /nwconf fs.ext4.hole-write >/dev/null; done ) &
rates=$(/usr/sbin/nowait-aio-stat -i 1 2 2>&1 | tail -n 1)
touch /tmp/stat-stop
wait
set -- $once
o_acc=$3 o_alloc=$7
set -- $rates
r_acc=$3 r_alloc=$7
if [ "$o_acc" = "$a" ] && [ "$o_alloc" = "$e" ] &&
   echo "$json" | grep -q "\"accepted\": $a," &&
   echo "$json" | grep -q "\"eagain_alloc\": $e," &&
   [ "${r_acc:-0}" -gt 0 ] && [ "${r_alloc:-0}" -gt 0 ]; then
	ok stat.tool "nowait-aio-stat shows the counters a case moved (-1, --json, rates)"
else
	nok stat.tool "nowait-aio-stat shows the counters a case moved (-1, --json, rates)" \
		"accepted $a eagain_alloc $e vs [$once] [$(echo "$json" | head -c 300)] [$rates]"
fi
# the same counters for node_exporter (the text format; promtool checks it
# on the host, test/unit/stat_test.sh)
if echo "$prom" | grep -qx "nowait_aio_requests_total{result=\"accepted\"} $a" &&
   echo "$prom" | grep -qx "nowait_aio_eagain_total{reason=\"alloc\"} $e" &&
   echo "$prom" | grep -qx 'nowait_aio_module_loaded 1' &&
   echo "$prom" | grep -qx 'nowait_aio_native 0'; then
	ok stat.prometheus "nowait-aio-stat --prometheus: the module loaded, not native, the counters a case moved"
else
	nok stat.prometheus "nowait-aio-stat --prometheus: the module loaded, not native, the counters a case moved" \
		"accepted $a eagain_alloc $e vs [$(echo "$prom" | grep -v '^#' | head -c 400)]"
fi

# refused_einval counts a flagged iocb refused as invalid (aio_reserved2)
v=$(cat $k/refused_einval)
/nwconf interface.aio.reserved2 >/dev/null
[ "$(cat $k/refused_einval)" -gt "$v" ] &&
	ok counters.einval "refused_einval counts a flagged iocb with aio_reserved2 set" ||
	nok counters.einval "refused_einval counts a flagged iocb with aio_reserved2 set" "more vs $v"

# each switch turns its check off: a hole write then blocks-and-writes
echo 0 > $k/alloc
r=$(/nwconf fs.ext4.hole-write | grep -c '^not ok')
echo 1 > $k/alloc
[ "$r" = 1 ] && ok switch.alloc "alloc=0 lets a NOWAIT hole write through (stock behaviour)" ||
	nok switch.alloc "alloc=0 lets a NOWAIT hole write through (stock behaviour)" "not ok vs ok"

# the other switches: with the check off, its case shows stock behaviour
# (the write waits for the lock / flushes the page cache / waits for a tag)
for sw in lock:fs.ext4.inode-lock pagecache:fs.ext4.pagecache-read \
	congestion:block.nullblk.queue-full-mq; do
	name=${sw%%:*} case=${sw#*:}
	echo 0 > $k/$name
	r=$(NW_CASE_TIMEOUT=8 /nwconf $case | grep -c '^not ok')
	echo 1 > $k/$name
	r2=$(/nwconf $case | grep -c '^ok')
	[ "$r" = 1 ] && [ "$r2" = 1 ] &&
		ok switch.$name "$name=0 turns the check off ($case fails), $name=1 on again" ||
		nok switch.$name "$name=0 turns the check off ($case fails), $name=1 on again" "fail/pass vs $r/$r2"
done

# fault injection: every NOWAIT request refused with N=1
echo 1 > $k/fault_inject
r=$(/nwconf fs.ext4.overwrite | grep -c '^not ok')
i=$(cat $k/eagain_injected)
echo 0 > $k/fault_inject
[ "$r" = 1 ] && [ "$i" -gt 0 ] && ok fault.inject "fault_inject=1 refuses a NOWAIT overwrite with EAGAIN" ||
	nok fault.inject "fault_inject=1 refuses a NOWAIT overwrite with EAGAIN" "refused vs $r/$i"

# the hooks below the entry points (and aio_read/aio_write, which stay
# in) go in on demand and out when idle
# (upstream has no such thing: the rules checked are that a request that
# finds them out is refused at once with EAGAIN and queues their install,
# README "How it works", and that a request finding them in sees the same
# result as before; interface.*.warmup times the refusal)
st() { sed -n "s/^hook $1 \([a-z]*\).*/\1/p" $k/features; }
ah=aio_write	# before 4.9 the request hook is aio_run_iocb
[ "$(st aio_write)" = off ] && ah=aio_run_iocb
ew=ext4_file_write_iter	# RHEL/CentOS 7's 3.10: ext4_file_write
[ -z "$(st $ew)" ] && ew=ext4_file_write
idle0=$(cat $k/hook_idle_ms)
echo 100 > $k/hook_idle_ms
sleep 1
s1=$(st do_io_submit)/$(st $ah)/$(st $ew)
echo 10000 > $k/hook_idle_ms
w0=$(cat $k/eagain_warmup)
# the first flagged request: refused, its install queued
r0=$(/nwconf fs.ext4.overwrite | grep -c '^not ok.*EAGAIN')
w1=$(($(cat $k/eagain_warmup) - w0))
sleep 1
s2=$(st $ah)/$(st $ew)
r1=$(/nwconf fs.ext4.overwrite fs.ext4.hole-write | grep -c '^ok')
echo 100 > $k/hook_idle_ms
sleep 1
s3=$(st $ah)/$(st $ew)/$(st do_io_submit)
echo 0 > $k/hook_idle_ms
s4=$(st $ew)
r2=$(/nwconf fs.ext4.hole-write fs.ext4.overwrite fs.xfs.hole-write read.ext4.dio-dirty-page | grep -c '^ok')
echo $idle0 > $k/hook_idle_ms
sleep 1
[ "$s1" = live/live/standby ] && [ "$r0" = 1 ] && [ "$w1" = 1 ] &&
[ "$s2" = live/live ] && [ "$r1" = 2 ] &&
[ "$s3" = live/standby/live ] && [ "$s4" = live ] && [ "$r2" = 4 ] &&
	ok demand.hooks "per-request hooks standby when idle; the first flagged request refused (eagain_warmup) and they go in; live with 0" ||
	nok demand.hooks "per-request hooks standby when idle; the first flagged request refused (eagain_warmup) and they go in; live with 0" \
		"live/live/standby 1 1 live/live 2 live/standby/live live 4 vs $s1 $r0 $w1 $s2 $r1 $s3 $s4 $r2"

# nowait-aio-probe (installed by make install) tells module / none
echo x > /mnt/ext4/probe.dat; echo x > /mnt/tmpfs/probe.dat
p1=$(/usr/sbin/nowait-aio-probe /mnt/ext4/probe.dat); r1=$?
p2=$(/usr/sbin/nowait-aio-probe /mnt/tmpfs/probe.dat); r2=$?
echo 0 > $k/enabled
p3=$(/usr/sbin/nowait-aio-probe /mnt/ext4/probe.dat 2>&1); r3=$?
echo 1 > $k/enabled
case "$r1:$p1" in 0:*": module "*) a=1 ;; *) a=0 ;; esac
case "$r2:$p2" in 1:*"none: "*) b=1 ;; *) b=0 ;; esac
case "$r3:$p3" in 1:*"disabled"*) d=1 ;; *) d=0 ;; esac
[ $a$b$d = 111 ] && ok probe.tool "nowait-aio-probe says module on ext4, none on tmpfs, disabled with enabled=0" ||
	nok probe.tool "nowait-aio-probe says module on ext4, none on tmpfs, disabled with enabled=0" "[$r1 $p1] [$r2 $p2] [$r3 $p3]"

# Filesystems built as modules (distribution kernels): one that goes and
# comes back while nowait_aio stays loaded is hooked again, and the others
# keep their checks while it is away.  Upstream has no such state: the rule
# checked is that NOWAIT on a filesystem does not depend on when its module
# was loaded, and that a missing filesystem does not switch off the others.
fsmod_check() { # fs device
	fs=$1 dev=$2 id=fsmod.$1-reload
	what="$fs.ko unloaded: fs $fs waits and ext4 keeps its lock check; loaded again: NOWAIT on $fs is never EOPNOTSUPP, then works"
	if ! grep -q "^$fs " /proc/modules; then
		echo "skip module.$id - $fs is not a module on this kernel"
		return
	fi
	# a filesystem the module does not offer here (btrfs before 4.9
	# without can_nocow_extent) is off again after the reload
	s0=$(sed -n "s/^fs $fs //p" $k/features)
	want1="waiting for $fs.ko" want2=live want3=3
	case "$s0" in off:*)
		want2=$s0 want3=0
		what="$fs.ko unloaded and loaded again: fs $fs stays off (not offered on this kernel) and ext4 keeps its lock check" ;;
	esac
	umount /mnt/$fs
	rmmod $fs 2>/tmp/rmmod.err
	s1=$(sed -n "s/^fs $fs //p" $k/features)
	r1=$(NW_CASE_TIMEOUT=8 /nwconf fs.ext4.inode-lock | grep -c '^ok')
	modprobe $fs 2>>/tmp/rmmod.err && mount -t $fs /dev/$dev /mnt/$fs 2>>/tmp/rmmod.err
	# at once, while its hooks may still be attaching: EAGAIN (or the
	# write), never EOPNOTSUPP, which a caller takes as final
	r0=""
	for i in 1 2 3 4 5; do
		r0="$r0 $(/nwconf --nowait-write /mnt/$fs/fresh.dat)"
	done
	case "$r0" in *EOPNOTSUPP*) r0="EOPNOTSUPP:$r0" ;; *) r0=ok ;; esac
	# attached once the module has settled (README: How it works), by a
	# work item that looks every 2 ms: a moment after modprobe returns
	n=0
	while s2=$(sed -n "s/^fs $fs //p" $k/features) &&
		[ "$s2" = "waiting for $fs.ko" ] && [ $n -lt 50 ]; do
		sleep 1; n=$((n + 1))
	done
	r2=$(/nwconf fs.$fs.past-eof fs.$fs.hole-write fs.$fs.inode-lock | grep -c '^ok')
	[ "$want3" = 0 ] && r0=ok	# not offered here: EOPNOTSUPP is right
	if [ "$s1" = "$want1" ] && [ "$r1" = 1 ] && [ "$s2" = "$want2" ] &&
	   [ "$r2" = "$want3" ] && [ "$r0" = ok ]; then
		ok $id "$what"
	else
		nok $id "$what" "$want1/1/$want2/$want3/ok vs $s1/$r1/$s2/$r2/$r0 $(cat /tmp/rmmod.err)"
	fi
}
fsmod_check xfs vdb
fsmod_check btrfs vdc

# A preemptible kernel without TASKS_RCU: unload is refused by design
# (README: How it works), and the module stays whole after the refusal.
if grep -q '^unload refused' $k/features; then
	rmmod nowait_aio 2>/tmp/rmmod.err && modprobe nowait_aio
	r=$(/nwconf fs.ext4.hole-write fs.ext4.overwrite | grep -c '^ok')
	grep -q nowait_aio /proc/modules && [ "$r" = 2 ] &&
		ok unload.refused "rmmod is refused where unload cannot be made safe; NOWAIT still works" ||
		nok unload.refused "rmmod is refused where unload cannot be made safe; NOWAIT still works" \
			"refused/2 vs $(cat /tmp/rmmod.err)/$r"
	exit 0
fi

# unload and load again N times while direct I/O with and without
# NOWAIT runs; the kernel log must stay clean (judged by the host), and no
# flagged request may reach the kernel after its per-request hook went
# (unload takes io_submit's gate out and waits before aio_read()/
# aio_write(): the module says so if one ever does)
n=$(sed -n 's/^unload_cycles=//p' /params | tail -n 1)
n=${n:-50}
dmesg -c >/dev/null
# one I/O loop per CPU, each in a directory of its own
iopids=""
for c in $(seq $(nproc)); do
	(
		mkdir -p /tmp/io$c && cd /tmp/io$c &&
		while [ ! -f /tmp/stop-io ]; do
			NW_SUBDIR=io$c /nwconf interface.aio fs.ext4.overwrite fs.xfs.overwrite fs.ext4.hole-dsync fs.xfs.hole-dsync read.ext4.buffered-cached >/dev/null 2>&1
		done
	) &
	iopids="$iopids $!"
done
cycles=0
for i in $(seq $n); do
	rmmod nowait_aio 2>/tmp/rmmod.err || break
	modprobe nowait_aio 2>/tmp/insmod.err || break
	cycles=$i
done
touch /tmp/stop-io
wait $iopids
unseen=$(dmesg | grep -c "without the module's hook")
[ "$cycles" = "$n" ] && [ "$unseen" = 0 ] && ok unload.under-io "$n unload/load cycles while direct I/O runs, no flagged request without its hook" ||
	nok unload.under-io "$n unload/load cycles while direct I/O runs, no flagged request without its hook" "$n, 0 vs $cycles, $unseen ($(cat /tmp/rmmod.err /tmp/insmod.err))"
