#!/bin/busybox sh
# Guest side of `make bench`: three benchmarks side by side in one boot,
# under QEMU's -icount (guest time counts instructions, so submit latency
# repeats).  Per filesystem in the parameter fs (default all):
#
# 1. fio: a 32 MiB file of written blocks (btrfs: NODATACOW), 4 KiB random
#    direct overwrites through libaio at queue depth 1 (no allocation, no
#    EOF zeroing: the layout every NOWAIT write can take).  Rounds alternate
#    module unloaded / loaded (plain I/O, the cost to everyone), and loaded
#    with fio's nowait=1 (RWF_NOWAIT on every iocb).  On a native kernel
#    the module rounds are skipped and plain is compared with nowait=1.
#    After each load only the entry hooks are in, so "loaded" measures
#    what a machine without NOWAIT users pays; before the nowait=1 run
#    hook_idle_ms=0 puts the per-request hooks in (the steady state of an
#    application that uses NOWAIT), and their install time is printed.
#    fio comes from the host's root, mounted read-only over 9p.
# 2. /stall --stall: the event-loop stall (test/bench/stall.c): submit
#    durations of a loop writing to a file whose inode lock two other
#    threads hold with long buffered writes, in modes plain, nowait
#    (libnowait) and threadpool; every round's raw durations go to the
#    host through /mnt/9p (for test/bench/plot.sh).  Its cost lines: CPU
#    and context switches per completed request, submit-to-completion
#    time (the busy loop's are measured in the scale boot).
# 3. /stall --refusal: the time io_submit takes to refuse a NOWAIT write
#    (into a hole) against a NOWAIT overwrite that goes ahead.
# 4. /stall --submit: the submit path again, as medians of single
#    io_submit calls (plain, module unloaded and loaded; NOWAIT), which
#    leave out the interrupts and background work that move fio's means.
#    submit=0 skips it; stall=0 skips 2 and 3.
# 5. /sleeps: per filesystem, NOWAIT direct overwrites while a thread
#    punches holes elsewhere in the file; NOWAIT reads of a compressed
#    btrfs file; NOWAIT writes to a loop device over dirty cached pages:
#    how many calls slept (test/bench/sleeps.c).  sleeps=0 skips.
#
# Last line: bench: stall_p99_vs_plain=.. stall_p99_vs_native=..
# overhead_slat_ratio=.. refusal_cost_vs_native=.. nowait_sleeps_per_1000=..
# nowait_cpu_vs_threadpool_nap=..; the *_vs_native figures need a native run
# and come from the host (test/bench/compare.sh).
# The bench and scale profiles' parameters (test/vm/profiles/bench.env,
# run.sh --set KEY=VALUE) are the set.<key> lines of /params; stall and
# sleeps read theirs (rounds, stall_*, refusal_reps, spin, scale_*,
# sleeps_calls) from their environment.
param() { sed -n "s/^$1=//p" /params | tail -n 1; }
knobs=$(sed -n 's/^set\.//p' /params)
# shellcheck disable=SC2086
stall() { env $knobs /stall "$@"; }
# shellcheck disable=SC2086
sleeps() { env $knobs /sleeps "$@"; }
bench_fs=$(param set.fs | tr ',' ' ')
[ "${bench_fs:-all}" = all ] && bench_fs="ext4 xfs btrfs"
do_fio=$(param set.fio) do_submit=$(param set.submit) do_stall=$(param set.stall)
do_sleeps=$(param set.sleeps) do_busy=$(param set.busy)

# awk helpers of the tables below: med(key) of the values put(key, x);
# root(x, n), the n-th root (busybox awk has no math)
stats_awk='
function med(key,   n, i, j, t, v) {
	n = cnt[key]
	if (!n) return ""
	for (i = 1; i <= n; i++) v[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function put(key, x) { cnt[key]++; val[key, cnt[key]] = x }
# busybox awk has no math: n-th root by Newton, from above
function ipow(x, n,   r, i) { r = 1; for (i = 0; i < n; i++) r *= x; return r }
function root(x, n,   y, i) {
	if (x <= 0 || n < 1) return 0
	y = x > 1 ? x : 1
	for (i = 0; i < 500; i++) y -= (ipow(y, n) - x) / (n * ipow(y, n - 1))
	return y
}
'

# `sh /bench.sh scale` (the scale profile: plain TCG, 4 vCPUs): N event
# loops, one per vCPU, each writing RWF_NOWAIT overwrites to its own file
# (stall.c --scale).  The module, when there is one, stays loaded with its
# per-request hooks in (init.sh sets hook_idle_ms=0).  Per fs and N, the
# median over rounds of the aggregate submits per second of guest time,
# and smp_scaling = rate at N / rate at 1; then per fs the cost of each
# stall mode with a busy loop (busy=0 skips it); last line
#   bench-scale: smp_scaling_2=<x> smp_scaling_4=<y> nowait_cpu_vs_threadpool=<z>
# (geometric means over filesystems).  The host compares two runs.
# one scenario of test/bench/sleeps.c, then the module's counters so far
# (which test refused); appends to $out
sleeps_run() {
	sleeps "$@" 2>&1 | tee -a $out
	[ -d /sys/kernel/nowait_aio ] || return 0
	echo "# counters after sleeps $*: $(cd /sys/kernel/nowait_aio &&
		grep . accepted eagain_* refused_* | tr '\n' ' ')" | tee -a $out
}

if [ "${1:-}" = scale ]; then
	out=/tmp/scale.out
	: >$out
	echo "# scale: $(grep -c ^processor /proc/cpuinfo) vCPUs; module: $(grep '^demand ' /sys/kernel/nowait_aio/features 2>/dev/null || echo none)"
	for fs in $bench_fs; do
		stall --scale /mnt/$fs $fs 2>&1 | tee -a $out
	done
	# the busy loop's cost per request (stall.c: cost lines), here rather
	# than under -icount: there its 16 requests in flight and eight
	# workers stranded writeback I/O in the guest's queues (QEMU 7.2's
	# single-threaded TCG, README "Testing"); only the cost lines count
	for fs in $bench_fs; do
		[ "${do_busy:-1}" = 0 ] && break
		# shellcheck disable=SC2086
		env $knobs stall_think_us=0 spin=0 /stall --stall /mnt/$fs $fs 2>&1 |
			grep '^cost ' | tee -a $out
	done
	# the lock test's window (test/bench/sleeps.c --lock): it needs a
	# second vCPU for a writer to slip in; sleeps=0 skips it
	for fs in $bench_fs; do
		[ "${do_sleeps:-1}" = 0 ] && break
		sleeps_run --lock /mnt/$fs $fs
	done
	awk "$stats_awk"'
/^scale / {
	split("", kv)
	for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
	fs = kv["fs"]; n = kv["threads"]
	if (!(fs in seen)) { seen[fs] = 1; fss[++nfs] = fs }
	if (!(n in seenn)) { seenn[n] = 1; nsv[++nn] = n }
	k = fs SUBSEP n; cnt[k]++; val[k, cnt[k]] = kv["rate"]
	k = fs SUBSEP n SUBSEP "us"; cnt[k]++; val[k, cnt[k]] = kv["submit_p50_us"]
	eag[fs] += kv["eagain"]
}
/^cost / {
	split("", kv)
	for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
	k = kv["fs"] SUBSEP kv["mode"]
	if (!(kv["fs"] in cfs)) { cfs[kv["fs"]] = 1; cfl[++ncf] = kv["fs"] }
	put(k SUBSEP "cpu", kv["cpu_us_per_req"]); put(k SUBSEP "csw", kv["csw_per_req"])
	put(k SUBSEP "d50", kv["done_p50_us"]); put(k SUBSEP "d99", kv["done_p99_us"])
	put(k SUBSEP "tput", kv["tput"])
}
END {
	print "# scale: aggregate NOWAIT submits/s and io_submit median (us), medians of rounds; xR = rate at N / rate at 1"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]; r1 = med(fs SUBSEP 1)
		line = sprintf("# %-6s", fs)
		for (i = 1; i <= nn; i++) {
			r = med(fs SUBSEP nsv[i])
			x = (r1 > 0) ? r / r1 : 0
			us = med(fs SUBSEP nsv[i] SUBSEP "us")
			line = line sprintf("  N=%s %7.0f/s x%.2f %6.1fus", nsv[i], r, x, us)
			if (x > 0) { prod[nsv[i]] = np[nsv[i]] ? prod[nsv[i]] * x : x; np[nsv[i]]++ }
			printf "scaling fs=%s threads=%s rate=%.0f smp_scaling=%.4f submit_p50_us=%.2f\n", fs, nsv[i], r, x, us
		}
		print line "  eagain=" eag[fs]
	}
	print "# cost, busy loop: per completed request, CPU time and context switches of the loop and its workers, submit-to-completion (medians of rounds)"
	printf "# %-6s %-10s %9s %9s %11s %11s %7s\n", "fs", "mode", "cpu_us", "csw", "done_p50us", "done_p99us", "tput"
	for (f = 1; f <= ncf; f++) {
		fs = cfl[f]
		split("plain nowait threadpool", ms, " ")
		for (m = 1; m <= 3; m++) {
			k = fs SUBSEP ms[m]
			if (med(k SUBSEP "cpu") == "") continue
			printf "# %-6s %-10s %9.2f %9.3f %11.1f %11.1f %7.0f\n", fs, ms[m], med(k SUBSEP "cpu"),
				med(k SUBSEP "csw"), med(k SUBSEP "d50"), med(k SUBSEP "d99"), med(k SUBSEP "tput")
		}
		a = med(fs SUBSEP "nowait" SUBSEP "cpu"); b = med(fs SUBSEP "threadpool" SUBSEP "cpu")
		if (a != "" && b > 0) {
			printf "# %-6s nowait/threadpool cpu per request: %.3f\n", fs, a / b
			cp = ncp ? cp * (a / b) : a / b; ncp++
		}
	}
	out = "bench-scale:"
	for (i = 1; i <= nn; i++)
		if (nsv[i] != 1)
			out = out sprintf(" smp_scaling_%s=%.4f", nsv[i], np[nsv[i]] ? root(prod[nsv[i]], np[nsv[i]]) : 0)
	out = out sprintf(" nowait_cpu_vs_threadpool=%s", ncp ? sprintf("%.3f", root(cp, ncp)) : "nan")
	print out
}' $out
	exit 0
fi
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host || { echo "bench: no host root"; exit 1; }
L=/host/lib/x86_64-linux-gnu:/host/usr/lib/x86_64-linux-gnu:/host/usr/lib/x86_64-linux-gnu/ceph
FIO="/host/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $L /host/usr/bin/fio"
$FIO --version >/dev/null 2>&1 || { echo "bench: cannot run the host's fio: $($FIO --version 2>&1 | head -n 2)"; exit 1; }
rounds=$(param set.rounds)
rounds=${rounds:-3}
# the module was loaded (module=1: the host found no native RWF_NOWAIT;
# on a native kernel it is "refuse", and the module is there only to be
# refused)
native=1
[ "$(param module)" = 1 ] && native=0

# fio terse v3: field 49 write IOPS, 53 write slat mean (usec)
run() { # file, extra options
	$FIO --name=w --filename=$1 --ioengine=libaio --direct=1 --rw=randwrite \
		--bs=4k --size=32M --io_size=4M --iodepth=1 --randrepeat=1 \
		--norandommap --continue_on_error=write --output-format=terse \
		--terse-version=3 $2 2>/dev/null |
		awk -F';' '{ print $53, $49 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "nan" }'; }
mean() { echo "$@" | tr ' ' '\n' | awk 'NF { s += $1; n++ } END { if (n) printf "%.3f", s / n }'; }
spread() { echo "$@" | tr ' ' '\n' | awk 'NF { if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 } END { printf "%.0f-%.0f", min, max }'; }

all_over="" all_nw=""
if [ "${do_fio:-1}" = 0 ]; then
	echo "# fio: skipped (fio=0)"
else
	echo "# fs     round  slat_off(us) slat_on(us) slat_nowait(us)  iops_off iops_on iops_nowait"
	for fs in $bench_fs; do
		f=/mnt/$fs/bench.dat
		rm -f $f
		# fio's own layout would recreate the file (losing NODATACOW)
		/nwconf --mkfile $f 32 $([ $fs = btrfs ] && echo nocow) || echo "# $fs: making $f failed"
		so="" sn="" sw="" io="" in="" iw=""
		for r in $(seq $rounds); do
			if [ $native = 0 ]; then
				rmmod nowait_aio 2>/dev/null
				set -- $(run $f "")
				so="$so $1" io="$io $2"; o=$1 oi=$2
				insmod /nowait_aio.ko
			fi
			set -- $(run $f "")
			sn="$sn $1" in="$in $2"; n=$1 ni=$2
			k=/sys/kernel/nowait_aio
			[ -d $k ] && c0=$(cat $k/eagain_lock $k/eagain_pagecache $k/eagain_alloc $k/eagain_congestion | tr '\n' ' ')
			# steady state: the per-request hooks go in now, not
			# inside the first NOWAIT submit (whose wait would
			# swamp a 1024-request mean); features says how long
			[ -w $k/hook_idle_ms ] && echo 0 > $k/hook_idle_ms
			set -- $(run $f "--nowait=1")
			sw="$sw $1" iw="$iw $2"; w=$1 wi=$2
			[ -d $k ] && echo "# $fs: $(grep '^demand ' $k/features) (guest time; after hook_idle_ms=0)"
			[ -d $k ] && echo "# $fs: EAGAIN (lock pagecache alloc congestion) before: $c0 after: $(cat $k/eagain_lock $k/eagain_pagecache $k/eagain_alloc $k/eagain_congestion | tr '\n' ' ')"
			[ $native = 1 ] && o=- oi=-
			echo "# $fs    $r      $o  $n  $w  $oi $ni $wi"
		done
		if [ $native = 0 ]; then
			over=$(ratio $(mean $sn) $(mean $so))
			all_over="$all_over $over"
			echo "# $fs: module loaded/unloaded slat ratio $over, IOPS $(mean $in)/$(mean $io) (spread on $(spread $in), off $(spread $io))"
		fi
		nw=$(ratio $(mean $sw) $(mean $sn))
		all_nw="$all_nw $nw"
		echo "# $fs: nowait=1/plain slat ratio $nw, IOPS $(mean $iw)/$(mean $in) (spread nowait $(spread $iw))"
		rm -f $f
	done
fi
overhead=native
[ $native = 0 ] && overhead=$(mean $all_over)
[ -z "$overhead" ] && overhead=skipped
echo "# fio: overhead_slat_ratio=$overhead nowait_slat_ratio=$(mean $all_nw)"

# --- the submit path by quantiles (the same question as fio's slat) ---
# per round: plain submits with the module unloaded and loaded (only the
# entry hooks in), then NOWAIT ones with the per-request hooks in; each
# figure is a quantile of refusal_reps io_submit calls: the minimum
# (the path itself: under -icount the fastest calls take the same number
# of instructions every time) and the median (the durations are bimodal,
# a step of 2-3 us with or without the module, and the two groups change
# size from round to round, so a median can land on either side)
sub_q() { # fs, [nowait] -> "min median"
	stall --submit /mnt/$1 $1 $2 |
		sed -n 's/.*median_us=\([0-9.]*\) min_us=\([0-9.]*\).*/\2 \1/p'
}
all_min_on="" all_min_nw="" all_med_on="" all_med_nw=""
k=/sys/kernel/nowait_aio
if [ "${do_submit:-1}" != 0 ]; then
	echo "# submit  fs     round  min/median_off(us) min/median_on(us) min/median_nowait(us)"
	for fs in $bench_fs; do
		po="" pn="" pw="" mo="" mn="" mw=""
		for r in $(seq $rounds); do
			o="- -"
			if [ $native = 0 ]; then
				rmmod nowait_aio 2>/dev/null
				o=$(sub_q $fs); set -- $o; po="$po $1" mo="$mo $2"
				insmod /nowait_aio.ko
				# a reload restores the switches: switches again
				for kv in $(param switches | tr ',' ' '); do
					echo "${kv#*=}" > "$k/${kv%%=*}"
				done
			fi
			n=$(sub_q $fs); set -- $n; pn="$pn $1" mn="$mn $2"
			[ -w $k/hook_idle_ms ] && echo 0 > $k/hook_idle_ms &&
				echo "# submit $fs: $(grep '^demand ' $k/features) (guest time)"
			w=$(sub_q $fs nowait); set -- $w; pw="$pw $1" mw="$mw $2"
			echo "# submit  $fs    $r      ${o% *}/${o#* }  ${n% *}/${n#* }  ${w% *}/${w#* }"
		done
		if [ $native = 0 ]; then
			a=$(ratio $(mean $pn) $(mean $po)) b=$(ratio $(mean $mn) $(mean $mo))
			all_min_on="$all_min_on $a" all_med_on="$all_med_on $b"
			echo "# submit $fs: loaded/unloaded ratio min $a median $b"
		fi
		a=$(ratio $(mean $pw) $(mean $pn)) b=$(ratio $(mean $mw) $(mean $mn))
		all_min_nw="$all_min_nw $a" all_med_nw="$all_med_nw $b"
		echo "# submit $fs: nowait/plain ratio min $a median $b"
	done
	a=native b=native
	[ $native = 0 ] && a=$(mean $all_min_on) b=$(mean $all_med_on)
	echo "# submit: overhead_min_ratio=$a overhead_median_ratio=$b nowait_min_ratio=$(mean $all_min_nw) nowait_median_ratio=$(mean $all_med_nw)"
fi

# --- the event-loop stall and the refusal cost ---
# the module stays loaded for these (the fio rounds end with it loaded)
[ $native = 0 ] && [ ! -d /sys/kernel/nowait_aio ] && insmod /nowait_aio.ko
out=/tmp/bench.out
dumps=/tmp/stall-dump
: >$out
mkdir -p $dumps
for fs in $bench_fs; do
	[ "${do_stall:-1}" = 0 ] && break
	stall --stall /mnt/$fs $fs --dump $dumps 2>&1 | tee -a $out
	stall --refusal /mnt/$fs $fs 2>&1 | tee -a $out
done
# the sleep counts (test/bench/sleeps.c): NOWAIT calls that slept where
# 4.14 refuses at once; sleeps=0 skips them
if [ "${do_sleeps:-1}" != 0 ]; then
	for fs in $bench_fs; do
		sleeps_run --punch /mnt/$fs $fs
	done
	case " $bench_fs " in *" btrfs "*)
		sleeps_run --compressed /mnt/btrfs ;;
	esac
	modprobe loop 2>/dev/null
	if dd if=/dev/zero of=/tmp/sleeps.img bs=1M count=16 2>/dev/null &&
	   losetup /dev/loop6 /tmp/sleeps.img 2>/dev/null; then
		sleeps_run --raw /dev/loop6
		losetup -d /dev/loop6
	else
		echo "# sleeps: no loop device: raw scenario not run" | tee -a $out
	fi
	rm -f /tmp/sleeps.img
fi
# raw per-submit durations for test/bench/plot.sh on the host
if grep -q ' /mnt/9p ' /proc/mounts; then
	cp $dumps/stall-*.txt /mnt/9p/ 2>/dev/null && sync
else
	echo "# no /mnt/9p: raw stall durations not kept"
fi

# the table: per fs, the median over rounds; across filesystems, the
# geometric mean of the per-fs ratios
awk -v native=$native -v overhead="$overhead" "$stats_awk"'
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? a / b : "" }
function per1000(s, c) { return c > 0 ? sprintf("%.2f", 1000 * s / c) : "-" }
/^sleeps / {
	split("", kv)
	for (i = 2; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	sc[kv["fs"], kv["mode"]] += kv["calls"]
	ss[kv["fs"], kv["mode"]] += kv["slept"]
	if (kv["mode"] == "nowait") { nwc += kv["calls"]; nws += kv["slept"] }
}
/^cost / {
	split("", kv)
	for (i = 2; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	k = kv["fs"] SUBSEP kv["mode"] SUBSEP kv["loop"]
	if (!(k in cseen)) { cseen[k] = 1 }
	put(k SUBSEP "cpu", kv["cpu_us_per_req"])
	put(k SUBSEP "csw", kv["csw_per_req"])
	put(k SUBSEP "d50", kv["done_p50_us"])
	put(k SUBSEP "d99", kv["done_p99_us"])
	put(k SUBSEP "tput", kv["tput"])
	next
}
/^stall / || /^refusal / {
	split("", kv)
	for (i = 2; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	fs = kv["fs"]
	if (!(fs in seen)) { seen[fs] = 1; fss[++nfs] = fs }
	if ($1 == "stall") {
		m = kv["mode"]
		put(fs SUBSEP m SUBSEP "p99", kv["p99"])
		put(fs SUBSEP m SUBSEP "p999", kv["p999"])
		put(fs SUBSEP m SUBSEP "p50", kv["p50"])
		put(fs SUBSEP m SUBSEP "tput", kv["tput"])
	} else {
		put(fs SUBSEP "ref", kv["ratio"])
		put(fs SUBSEP "refe", kv["eagain_submit_us"])
		put(fs SUBSEP "refo", kv["overwrite_submit_us"])
		put(fs SUBSEP "refm", kv["median_ratio"])
	}
}
END {
	print "# stall: submit duration (us, guest time; median of rounds), completed requests/s"
	printf "# %-6s %-10s %9s %9s %9s %9s %9s\n", "fs", "mode", "p50", "p99", "p99.9", "tput", "p99/nowait"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		nw = med(fs SUBSEP "nowait" SUBSEP "p99")
		split("plain nowait threadpool", ms, " ")
		for (k = 1; k <= 3; k++) {
			m = ms[k]
			if (med(fs SUBSEP m SUBSEP "p99") == "") continue
			r = ratio(med(fs SUBSEP m SUBSEP "p99"), nw)
			printf "# %-6s %-10s %9.1f %9.1f %9.1f %9.0f %9s\n", fs, m,
				med(fs SUBSEP m SUBSEP "p50"), med(fs SUBSEP m SUBSEP "p99"),
				med(fs SUBSEP m SUBSEP "p999"), med(fs SUBSEP m SUBSEP "tput"),
				r == "" ? "-" : sprintf("%.2f", r)
		}
		r = ratio(med(fs SUBSEP "plain" SUBSEP "p99"), nw)
		if (r != "") { prod = ns ? prod * r : r; ns++ }
	}
	print "# refusal: io_submit of a refused NOWAIT write vs a NOWAIT overwrite (means; ratio of medians)"
	printf "# %-6s %12s %14s %9s %13s\n", "fs", "eagain(us)", "overwrite(us)", "ratio", "median_ratio"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		if (med(fs SUBSEP "ref") == "") continue
		printf "# %-6s %12.2f %14.2f %9.4f %13.4f\n", fs, med(fs SUBSEP "refe"),
			med(fs SUBSEP "refo"), med(fs SUBSEP "ref"), med(fs SUBSEP "refm")
	}
	print "# sleeps: submits during which the loop thread slept, per 1000 submits (all rounds)"
	printf "# %-6s %9s %9s %11s\n", "fs", "plain", "nowait", "threadpool"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		if (!((fs, "nowait") in sc)) continue
		printf "# %-6s %9s %9s %11s\n", fs,
			per1000(ss[fs, "plain"], sc[fs, "plain"]),
			per1000(ss[fs, "nowait"], sc[fs, "nowait"]),
			per1000(ss[fs, "threadpool"], sc[fs, "threadpool"])
	}
	print "# cost: per completed request, the CPU time and context switches of the loop and its workers, and submit-to-completion time (medians of rounds)"
	printf "# %-6s %-10s %-4s %9s %9s %11s %11s %7s\n", "fs", "mode", "loop", "cpu_us", "csw", "done_p50us", "done_p99us", "tput"
	cn = 0; cb = 0
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		split("nap busy", ls, " ")
		for (li = 1; li <= 2; li++) {
			split("plain nowait threadpool", ms, " ")
			for (k = 1; k <= 3; k++) {
				key = fs SUBSEP ms[k] SUBSEP ls[li]
				if (!(key in cseen)) continue
				printf "# %-6s %-10s %-4s %9.2f %9.3f %11.1f %11.1f %7.0f\n", fs, ms[k], ls[li],
					med(key SUBSEP "cpu"), med(key SUBSEP "csw"), med(key SUBSEP "d50"),
					med(key SUBSEP "d99"), med(key SUBSEP "tput")
			}
			r = ratio(med(fs SUBSEP "nowait" SUBSEP ls[li] SUBSEP "cpu"),
				  med(fs SUBSEP "threadpool" SUBSEP ls[li] SUBSEP "cpu"))
			if (r == "") continue
			printf "# %-6s nowait/threadpool cpu per request, %s loop: %.3f\n", fs, ls[li], r
			if (ls[li] == "busy") { cprod = cb ? cprod * r : r; cb++ }
			else { nprod = cn ? nprod * r : r; cn++ }
		}
	}
	cvb = cn ? sprintf("%.3f", root(nprod, cn)) : "nan"
	vp = ns ? sprintf("%.2f", root(prod, ns)) : "nan"
	vs = native ? "native" : "see-host"
	printf "bench: stall_p99_vs_plain=%s stall_p99_vs_native=%s overhead_slat_ratio=%s refusal_cost_vs_native=%s nowait_sleeps_per_1000=%s nowait_cpu_vs_threadpool_nap=%s\n", vp, vs, overhead, vs, per1000(nws, nwc), cvb
}' $out
