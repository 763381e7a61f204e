#!/bin/busybox sh
# Guest-side module.hostile.* checks that load and unload the module (run by
# suite.sh after module-checks.sh, with the module): a load that fails at
# each of its steps, a hooked function found wanting, and a kprobe that
# claims a hooked entry point first.
# Upstream has no such thing; the rule checked is the kernel's own for a
# module: a load that fails leaves nothing registered (the next load, and
# everything after it, runs with a clean kernel log, judged by the host),
# and a function another ftrace user holds is refused with a dmesg line
# that names it, never a crash.
k=/sys/kernel/nowait_aio
ok() { echo "ok module.hostile.$1 - $2"; }
nok() { echo "not ok module.hostile.$1 - $2: $3"; }
skip() { echo "skip module.hostile.$1 - $2"; }
kp=/sys/kernel/debug/tracing/kprobe_events

if grep -q '^unload refused' $k/features 2>/dev/null; then
	for id in load-fault distrust-entry distrust-fs kprobe-entry kprobe-fs; do
		skip $id "rmmod is refused on this kernel (README: How it works)"
	done
	exit 0
fi

# NOWAIT traffic from one loop per CPU while the module comes and goes
traffic_start() {
	rm -f /tmp/stop-hostile
	tpids=""
	for c in $(seq $(nproc)); do
		(
			mkdir -p /tmp/h$c && cd /tmp/h$c &&
			while [ ! -f /tmp/stop-hostile ]; do
				NW_SUBDIR=h$c /nwconf interface.aio.nowait-accepted \
					interface.pwritev2.nowait fs.ext4.overwrite \
					>/dev/null 2>&1
			done
		) &
		tpids="$tpids $!"
	done
}
traffic_stop() {
	touch /tmp/stop-hostile
	wait $tpids
}
works() { # the module loaded and a NOWAIT overwrite accepted
	grep -q '^nowait_aio ' /proc/modules &&
		[ "$(/nwconf fs.ext4.overwrite interface.aio.nowait-accepted | grep -c '^ok')" = 2 ]
}

# 1. fault_step=N for N = 1, 2, ... until a load succeeds (then the Nth
# step is one of the running module's, met or not); each failed load must
# say which step failed and leave no module, no sysfs folder behind.
rmmod nowait_aio 2>/tmp/h.err
traffic_start
n=1 bad="" failed=0
while [ $n -le 80 ]; do
	dmesg -c >/dev/null
	if modprobe nowait_aio fault_step=$n 2>/tmp/h.err; then
		sleep 1
		rmmod nowait_aio 2>>/tmp/h.err || bad="$bad rmmod@$n"
		break
	fi
	failed=$n
	dmesg | grep -q "fault_step=$n: .* fails on purpose" || bad="$bad nomsg@$n"
	grep -q '^nowait_aio ' /proc/modules && bad="$bad left@$n"
	[ -e $k ] && bad="$bad sysfs@$n"
	n=$((n + 1))
done
traffic_stop
modprobe nowait_aio 2>>/tmp/h.err && echo 0 > $k/hook_idle_ms
if [ -z "$bad" ] && [ $failed -ge 5 ] && works; then
	ok load-fault "a load failing at each of its $failed steps (NOWAIT traffic running) leaves nothing behind; the next load works"
else
	nok load-fault "a load failing at each of its steps leaves nothing behind; the next load works" \
		">=5 clean failures, then loaded and working vs $failed failures,$bad $(cat /tmp/h.err)"
fi

# 2. a hooked function whose arguments do not fit what the module was
# written for (a vendor kernel that changed its prototype; distrust_test=
# makes the check fail as it would there, README: What the module
# assumes): no crash; a required one turns RWF_NOWAIT off for good, so a
# flagged request gets the kernel's own answer (the module unloaded is the
# reference), a filesystem's one turns off that filesystem alone; dmesg
# and features name the function
distrust_load() { # function
	rmmod nowait_aio 2>>/tmp/h.err
	dmesg -c >/dev/null
	modprobe nowait_aio hook_idle_ms=0 distrust_test=$1 2>>/tmp/h.err
}
distrust_said() { # function what-is-off
	dmesg | grep -q "nowait_aio: $1 (.*): its arguments do not fit (distrust_test); $2" &&
		grep -q "^hook $1 off: its arguments do not fit (distrust_test)" $k/features
}
# after a case: a plain load that works, then the case's line from $bad
distrust_verdict() { # id what want
	rmmod nowait_aio 2>>/tmp/h.err
	modprobe nowait_aio 2>>/tmp/h.err && echo 0 > $k/hook_idle_ms
	works || bad="$bad notworking"
	if [ -z "$bad" ]; then
		ok "$1" "$2"
	else
		nok "$1" "$2" "$3 vs$bad $(cat /tmp/h.err)"
	fi
}
rmmod nowait_aio 2>/tmp/h.err
ref=$(/nwconf --nowait-write /mnt/ext4/hostile.dat)	# the kernel's own
bad=""
# the entry point, and the per-request function below it (whose first
# call, the one found wanting, runs as the kernel's: a plain write)
pr=aio_write
grep -q " $pr\$" /proc/kallsyms || pr=aio_run_iocb
for f in do_io_submit $pr; do
	distrust_load $f || { bad="$bad notloaded($f)"; continue; }
	first=$(/nwconf --nowait-write /mnt/ext4/hostile.dat)
	sleep 1
	distrust_said $f "RWF_NOWAIT is off until the module is loaded again" ||
		bad="$bad nomsg($f)"
	echo 1 > $k/enabled
	r=$(/nwconf --nowait-write /mnt/ext4/hostile.dat)
	[ "$r" = "$ref" ] || bad="$bad $f:[$first $r]"
done
[ $ref != ok ] || bad="$bad reference-ok"
distrust_verdict distrust-entry \
	"do_io_submit or $pr found wanting: no crash; RWF_NOWAIT off for good ($ref, the kernel's own answer), named in dmesg and features; a new load works" \
	"$ref for both, named"

ew=ext4_file_write_iter
grep -qE " $ew([[:space:]]|\$)" /proc/kallsyms || ew=ext4_file_write
bad=""
if distrust_load $ew; then
	/nwconf --nowait-write /mnt/ext4/hostile.dat >/dev/null	# found wanting
	sleep 1
	distrust_said $ew "RWF_NOWAIT on ext4 is off" || bad="$bad nomsg"
	grep -q "^fs ext4 off: $ew: distrusted" $k/features || bad="$bad features"
	e=$(/nwconf --nowait-write /mnt/ext4/hostile.dat)
	x=$(/nwconf --nowait-write /mnt/xfs/hostile.dat)
	[ "$e" = EOPNOTSUPP ] && [ "$x" != EOPNOTSUPP ] || bad="$bad [$e $x]"
else
	bad="$bad notloaded"
fi
distrust_verdict distrust-fs \
	"$ew found wanting: NOWAIT off on ext4 alone (EOPNOTSUPP), named in dmesg and features; XFS keeps it" \
	"EOPNOTSUPP on, named"

# 3. a kprobe on an entry point before the load (perf probe, bcc): the load
# is refused twice, naming the function; without the kprobe it loads
kprobe_on() { # name function
	echo "p:$1 $2" >> $kp && echo 1 > /sys/kernel/debug/tracing/events/kprobes/$1/enable
}
kprobe_off() {
	echo 0 > /sys/kernel/debug/tracing/events/kprobes/$1/enable 2>/dev/null
	echo "-:$1" >> $kp 2>/dev/null
}
# RHEL 7.9's 3.10 arms a kprobe without a post handler (kprobe_events'
# p:) through an ftrace_ops without IPMODIFY, and its handler puts back
# the instruction pointer it found (__skip_singlestep(), orig_ip): there
# the kprobe and the module's hook share the function, both working
coexist=0
case $(uname -r) in 3.10.0-*el7*) coexist=1 ;; esac
kprobe_hits() { # name: the kprobe's hits so far
	awk -v n="$1" '$1 == n { print $2 }' /sys/kernel/debug/tracing/kprobe_profile
}
if [ ! -w $kp ]; then
	skip kprobe-entry "no kprobe_events (CONFIG_KPROBE_EVENTS)"
	skip kprobe-fs "no kprobe_events (CONFIG_KPROBE_EVENTS)"
	exit 0
fi
bad=""
for f in do_io_submit aio_write; do
	grep -q " $f\$" /proc/kallsyms || continue
	rmmod nowait_aio 2>/tmp/h.err
	dmesg -c >/dev/null
	kprobe_on nwk $f || { bad="$bad kprobe($f)"; continue; }
	if [ $coexist = 1 ]; then
		h=$(kprobe_hits nwk)
		modprobe nowait_aio 2>>/tmp/h.err && echo 0 > $k/hook_idle_ms ||
			bad="$bad notloaded($f)"
		works || bad="$bad notworking-with-kprobe($f)"
		[ "$(kprobe_hits nwk)" -gt "$h" ] || bad="$bad kprobe-silent($f)"
		kprobe_off nwk
		continue
	fi
	for i in 1 2; do
		modprobe nowait_aio 2>/dev/null && bad="$bad loaded($f,$i)"
	done
	dmesg | grep -q "nowait_aio: .*$f.*-16" || bad="$bad nomsg($f)"
	kprobe_off nwk
	modprobe nowait_aio 2>>/tmp/h.err && echo 0 > $k/hook_idle_ms
	works || bad="$bad notworking($f)"
done
[ -z "$bad" ] && [ $coexist = 1 ] &&
	ok kprobe-entry "a kprobe on do_io_submit before the load: the module loads and works, the kprobe still fires (RHEL 7.9)"
[ -z "$bad" ] && [ $coexist = 0 ] &&
	ok kprobe-entry "a kprobe on do_io_submit or aio_write before the load: the load refused twice, naming it; loads without it"
[ -z "$bad" ] ||
	nok kprobe-entry "a kprobe on do_io_submit or aio_write before the load: the load refused twice, naming it; loads without it" \
		"refused/named/works vs$bad $(cat /tmp/h.err)"

# 4. a kprobe on a filesystem's hook (bcc's ext4slower puts one on
# ext4_file_write_iter), before the load and while the per-request hooks
# are out: the load, and their next install, leave that function out and
# turn NOWAIT off on ext4 alone (EOPNOTSUPP, features and dmesg say why);
# XFS keeps it
want="1 EOPNOTSUPP on"
[ $coexist = 1 ] && want="0 on on"	# the hook shares it: NOWAIT stays on
ext4_off() { # what the module says of ext4, a NOWAIT write on ext4, XFS
	# (a new file: EAGAIN for the allocation, or written; not EOPNOTSUPP)
	x=$(/nwconf --nowait-write /mnt/xfs/hostile.dat)
	[ "$x" = EOPNOTSUPP ] || x=on
	e=$(/nwconf --nowait-write /mnt/ext4/hostile.dat)
	[ $coexist = 1 ] && [ "$e" != EOPNOTSUPP ] && e=on
	echo "$(grep -c "^fs ext4 off: $ew: held by another ftrace user" $k/features)" \
		"$e" "$x"
}
bad=""
rmmod nowait_aio 2>/tmp/h.err
dmesg -c >/dev/null
if kprobe_on nwk $ew; then
	modprobe nowait_aio hook_idle_ms=0 2>>/tmp/h.err || bad="$bad notloaded"
	h=$(kprobe_hits nwk)
	r=$(ext4_off)
	[ "$r" = "$want" ] || bad="$bad before:[$r]"
	[ $coexist = 1 ] && [ "$(kprobe_hits nwk)" -le "$h" ] &&
		bad="$bad kprobe-silent"
	[ $coexist = 1 ] ||
		dmesg | grep -q "nowait_aio: symbol $ew .*held by another ftrace user" ||
		bad="$bad nomsg"
	kprobe_off nwk
else
	bad="$bad kprobe($ew)"
fi
rmmod nowait_aio 2>>/tmp/h.err
modprobe nowait_aio 2>>/tmp/h.err && echo 100 > $k/hook_idle_ms
n=0
while ! grep -q '^demand standby' $k/features && [ $n -lt 30 ]; do
	sleep 1; n=$((n + 1))
done
if kprobe_on nwk $ew; then
	/nwconf --nowait-write /mnt/ext4/hostile.dat >/dev/null	# the warm-up
	sleep 2
	r=$(ext4_off)
	[ "$r" = "$want" ] || bad="$bad idle:[$r]"
	kprobe_off nwk
else
	bad="$bad kprobe-idle($ew)"
fi
rmmod nowait_aio 2>>/tmp/h.err
modprobe nowait_aio 2>>/tmp/h.err && echo 0 > $k/hook_idle_ms
works || bad="$bad notworking"
[ -z "$bad" ] && [ $coexist = 1 ] &&
	ok kprobe-fs "a kprobe on $ew before the load or while the hooks are out: the hook shares it, NOWAIT stays on (RHEL 7.9), the kprobe fires"
[ -z "$bad" ] && [ $coexist = 0 ] &&
	ok kprobe-fs "a kprobe on $ew before the load or while the hooks are out: NOWAIT off on ext4 alone, said in features and dmesg; XFS keeps it"
[ -z "$bad" ] ||
	nok kprobe-fs "a kprobe on $ew before the load or while the hooks are out: NOWAIT off on ext4 alone, said in features and dmesg; XFS keeps it" \
		"1 EOPNOTSUPP on, named, working vs$bad $(cat /tmp/h.err)"

# A kprobe put on a hooked function after the load is refused by the
# kernel, which WARNs ("Failed to arm kprobe-ftrace ... (-16)",
# kernel/kprobes.c) where panic_on_warn would stop the VM: README, How it
# works, says so; it is not run here.
