#!/bin/bash
# Host-side unit tests: the case table, the VM verdict logic and the
# harness's helpers (harness_test.sh).
# Prints "ok"/"not ok" per test and "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_prefix=unit.
. "$top/test/unit/t.sh"

make -s -C "$top/test/conformance" nwconf >"$tmp/build" 2>&1
t conformance-builds test -x "$top/test/conformance/nwconf"
"$top/test/conformance/nwconf" --list | cut -f1 >"$tmp/ids"

# every id reads <group>.<area>.<name> with a known group
ids_wellformed() { ! grep -v -E '^(interface|fs|read|block|module)\.[a-z0-9]+\.[a-z0-9-]+$' "$tmp/ids"; }
t case-ids-wellformed ids_wellformed
ids_unique() { [ -z "$(sort "$tmp/ids" | uniq -d)" ]; }
t case-ids-unique ids_unique
fs_ids_per_fs() { [ "$(grep -c '^fs\.ext4\.' "$tmp/ids")" -ge 8 ] && grep -q '^fs\.xfs\.' "$tmp/ids" && grep -q '^fs\.btrfs\.' "$tmp/ids"; }
t case-ids-cover-filesystems fs_ids_per_fs
# every case states its rule (the "what" column is not empty)
what_present() { ! "$top/test/conformance/nwconf" --list | awk -F'\t' 'length($2) < 10'  | grep .; }
t case-rules-stated what_present
sel() { [ "$("$top/test/conformance/nwconf" --list fs.xfs | wc -l)" = "$(grep -c '^fs\.xfs\.' "$tmp/ids")" ]; }
t selection-by-prefix sel

# the verdict: end marker, kernel-log scan, counting
v=$top/test/vm/verdict.sh
printf 'ok a.b.c - x\nskip a.b.d - y\nnwsuite-done rc=0\n' >"$tmp/r.good"
printf '[ 1.0] all fine\n' >"$tmp/d.good"
printf '[ 2.0] WARNING: CPU: 0 PID: 1 at fs/aio.c:1 x\n' >"$tmp/d.warn"
printf '[ 9.0] INFO: task nwconf:77 blocked for more than 60 seconds.\n' >"$tmp/d.hung"
printf 'ok a.b.c - x\n' >"$tmp/r.nomarker"
printf 'ok a.b.c - x\nnot ok a.b.e - z: 1 vs 2\nnwsuite-done rc=1\n' >"$tmp/r.fail"
verdict_pass() { "$v" "$tmp/r.good" "$tmp/d.good" 0 | tail -n 1 | grep -qx '1 passed, 0 failed, 1 skipped'; }
t verdict-pass verdict_pass
verdict_warn() { ! "$v" "$tmp/r.good" "$tmp/d.warn" 0 >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-warn-fails verdict_warn
# a BUG_ON() names itself first ("kernel BUG at", before the panic line)
printf '[ 3.0] ------------[ cut here ]------------\n[ 3.0] kernel BUG at fs/ext4/mballoc.c:3210!\n[ 3.0] invalid opcode: 0000 [#1] SMP\n[ 3.1] Kernel panic - not syncing: Fatal exception\n' >"$tmp/d.bugon"
verdict_bugon() { ! "$v" "$tmp/r.good" "$tmp/d.bugon" 0 >"$tmp/o" && grep -q '^not ok vm.dmesg .*clean vs "\[ 3.0\] kernel BUG at fs/ext4/mballoc.c:3210!"' "$tmp/o"; }
t verdict-bug-on-named verdict_bugon
verdict_hung() { ! "$v" "$tmp/r.good" "$tmp/d.hung" 0 >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-hung-task-fails verdict_hung
verdict_marker() { ! "$v" "$tmp/r.nomarker" "$tmp/d.good" 0 >"$tmp/o" && grep -q '^not ok vm.boot' "$tmp/o"; }
t verdict-no-marker-fails verdict_marker
verdict_timeout() { ! "$v" "$tmp/r.nomarker" "$tmp/d.good" 1 >"$tmp/o" && grep -q 'timed out' "$tmp/o"; }
t verdict-timeout-fails verdict_timeout
verdict_case() { ! "$v" "$tmp/r.fail" "$tmp/d.good" 0 >"$tmp/o" && tail -n 1 "$tmp/o" | grep -qx '1 passed, 1 failed, 0 skipped'; }
t verdict-failed-case-fails verdict_case
# a CPU held by QEMU's stale translation of an ftrace int3 (run.sh,
# qemu-unstick.py): forgiven only when the host flushed, the guest went on
# and the kernel saw a CPU at a function's first byte, in either format
printf '[ 30.0] INFO: rcu_sched detected stalls on CPUs/tasks:\n[ 30.0] RIP: 0010:do_io_submit+0x0/0x4f0\n' >"$tmp/d.stall"
printf '[ 30.0] NMI watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [x:1]\n[ 30.0] RIP: 0010:[<ffffffff8119f4c0>]  [<ffffffff8119f4c0>] vfs_read+0x0/0x130\n' >"$tmp/d.stall-old"
printf '[ 30.0] NMI watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [x:1]\n[ 30.0] RIP: 0010:nw_loop+0x1a/0x40\n' >"$tmp/d.spin"
printf '# 10:00:00 after: x\nunstick: cpu 0 at 0xffffffff81000000: byte 66 (int3 in memory: no)\nunstick: flushed QEMU'"'"'s translations\n' >"$tmp/u.flushed"
verdict_stall() { ! "$v" "$tmp/r.good" "$tmp/d.stall" 0 >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-rcu-stall-fails verdict_stall
verdict_freed() { "$v" "$tmp/r.good" "$tmp/d.stall" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '^# vm: QEMU left CPUs on a stale translation (held at do_io_submit+0x0)' "$tmp/o"; }
t verdict-stale-translation-freed-passes verdict_freed
# 4.9's NMI backtrace (the host's SysRq l, qemu-unstick.py) after an RCU
# stall, whose own report shows no registers
printf '[ 27.1] INFO: rcu_sched detected stalls on CPUs/tasks:\n[ 30.6] RIP: 0010:[<ffffffffbd4d5c50>] \001c [<ffffffffbd4d5c50>] int3+0x0/0x20\n' >"$tmp/d.stall-49"
verdict_freed_49() { "$v" "$tmp/r.good" "$tmp/d.stall-49" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '(held at int3+0x0)' "$tmp/o"; }
t verdict-stale-translation-4.9-nmi-backtrace verdict_freed_49
verdict_freed_old() { "$v" "$tmp/r.good" "$tmp/d.stall-old" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '(held at vfs_read+0x0)' "$tmp/o"; }
t verdict-stale-translation-old-format verdict_freed_old
verdict_spin() { ! "$v" "$tmp/r.good" "$tmp/d.spin" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-soft-lockup-elsewhere-fails verdict_spin
verdict_stuck() { ! "$v" "$tmp/r.nomarker" "$tmp/d.stall" 1 "$tmp/u.flushed" >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-stale-translation-not-freed-fails verdict_stuck
# a preemptible kernel: only hung tasks show, with the CPU backtraces the
# guest asks for (SysRq l) holding one at int3's first byte
printf '[ 246.7] INFO: task rmmod:7496 blocked for more than 60 seconds.\n[ 246.7] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.\n[ 250.6] RIP: 0010:int3+0x0/0x60\n' >"$tmp/d.hung-held"
verdict_hung_freed() { "$v" "$tmp/r.good" "$tmp/d.hung-held" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '(held at int3+0x0)' "$tmp/o"; }
t verdict-preemptible-stale-translation-freed-passes verdict_hung_freed
verdict_hung_noflush() { ! "$v" "$tmp/r.good" "$tmp/d.hung-held" 0 >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-hung-task-without-flush-fails verdict_hung_noflush
verdict_hung_notheld() { ! "$v" "$tmp/r.good" "$tmp/d.hung" 0 "$tmp/u.flushed" >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-hung-task-no-held-cpu-fails verdict_hung_notheld
# 4.9 at -smp 4: the stall report shows no registers and the NMI
# backtraces catch the CPUs elsewhere; QEMU's samples (named through the
# System.map, moved by KASLR) hold one at a function's first byte and one
# on int3's entry.  Without the int3 sample, a CPU merely passing a
# function entry proves nothing.
printf '[ 117.1] INFO: rcu_sched self-detected stall on CPU\n' >"$tmp/d.stall-noregs"
printf 'ffffffff81195f30 t do_iter_readv_writev\nffffffff816d5c50 T int3\nffffffff816d5c70 T int3_end\n' >"$tmp/sysmap"
printf 'unstick: cpu 0 at 0xffffffffa3395f30: byte 66 (int3 in memory: no)\nunstick: cpu 0 at 0xffffffffa38d5c50: byte 66 (int3 in memory: no)\nunstick: cpu 1 at 0xffffffffa38d5c58: byte 65 (int3 in memory: no)\nunstick: flushed QEMU'"'"'s translations\n' >"$tmp/u.samples"
grep -v a38d5c50 "$tmp/u.samples" >"$tmp/u.samples-noint3"
verdict_samples() { "$v" --sysmap "$tmp/sysmap" --kaslr-delta 22200000 "$tmp/r.good" "$tmp/d.stall-noregs" 0 "$tmp/u.samples" >"$tmp/o" && grep -q '(held at do_iter_readv_writev+0x0 in QEMU' "$tmp/o"; }
t verdict-stale-translation-qemu-samples-passes verdict_samples
verdict_samples_noint3() { ! "$v" --sysmap "$tmp/sysmap" --kaslr-delta 22200000 "$tmp/r.good" "$tmp/d.stall-noregs" 0 "$tmp/u.samples-noint3" >"$tmp/o" && grep -q '^not ok vm.dmesg' "$tmp/o"; }
t verdict-qemu-samples-without-int3-fail verdict_samples_noint3

# the harness: test/lib.sh, the VM profiles, SERIES, dkms.conf, README
# shellcheck source=test/unit/harness_test.sh
. "$top/test/unit/harness_test.sh"

# the bench's host side: compare.sh's submit figures, and run.sh's one line
printf '# submit ext4: nowait/plain ratio min 1.2000 median 1.3\n# submit xfs: nowait/plain ratio min 1.5000 median 1.6\n# submit: overhead_min_ratio=1.010 overhead_median_ratio=1.0 nowait_min_ratio=1.3\nsleeps fs=ext4 mode=nowait calls=1000 slept=1\n' >"$tmp/ba"
printf '# submit ext4: nowait/plain ratio min 1.0000 median 1.0\n# submit xfs: nowait/plain ratio min 1.2000 median 1.2\nsleeps fs=ext4 mode=nowait calls=2000 slept=4\n' >"$tmp/bb"
bench_cost() {
	bash "$top/test/bench/compare.sh" "$tmp/ba" "$tmp/bb" >"$tmp/bc" &&
		tail -n 1 "$tmp/bc" | grep -q ' overhead_min_ratio=1.010 nowait_cost_vs_native=1.225$' &&
		tail -n 1 "$tmp/bc" | grep -q ' nowait_sleeps_per_1000=1.00/2.00 '
}
t bench-compare-submit-cost bench_cost
bench_line() {
	# shellcheck source=test/bench/final.sh
	. "$top/test/bench/final.sh"
	[ "$(nw_bench_final 'bench: a=1 b=2' 'scale: c=3 d=4/5')" = "bench: a=1 b=2 c=3 d=4/5" ] &&
		[ "$(nw_bench_final 'bench: a=1' '')" = "bench: a=1 smp_scaling_vs_native=skipped" ]
}
t bench-final-line bench_line

# the userspace header carries upstream's ABI values
hdr() {
	printf '#include <stdio.h>\n#include "nowait_aio.h"\nint main(void){return !(RWF_HIPRI==1&&RWF_DSYNC==2&&RWF_SYNC==4&&RWF_NOWAIT==8);}\n' >"$tmp/h.c" &&
	cc -I"$top/include" -o "$tmp/h" "$tmp/h.c" && "$tmp/h"
}
t uapi-header-values hdr

# the address limit (README, How it works): set_fs() only in compat/uaccess.h,
# and between nw_kernel_ds_enter() and nw_addr_limit_restore() no call but a
# filesystem's fiemap or unlocked_ioctl on the module's own buffer
kds() {
	grep -rn 'set_fs\|KERNEL_DS' "$top/module" --include='*.[ch]' |
		grep -v '/compat/uaccess.h:' && return 1
	awk '/nw_kernel_ds_enter\(\)/ { inside = 1; next }
	     /nw_addr_limit_restore\(/ { inside = 0; next }
	     inside && /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/ &&
	     !/->(fiemap|unlocked_ioctl)\(/ {
		print FILENAME ":" FNR ": " $0; bad = 1 }
	     END { exit bad }' "$top"/module/*.c
}
t kernel-ds-regions kds

# libnowait on the host's own kernel (it has RWF_NOWAIT if 4.13+)
lnw() {
	make -s -C "$top/lib" libnowait.a >"$tmp/lnw.build" 2>&1 &&
	cc -O2 -Wall -Wextra -Werror -I"$top/include" -o "$tmp/lnw" \
		"$top/test/unit/libnowait_test.c" "$top/lib/libnowait.a" -laio -lpthread &&
	mkdir -p "$tmp/lnwdir" && "$tmp/lnw" "$tmp/lnwdir" >"$tmp/lnw.out" 2>&1
	r=$?
	cat "$tmp/lnw.out" | grep -v ' passed, '
	return $r
}
if lnw; then
	np=$((np + $(grep -c '^ok ' "$tmp/lnw.out")))
else
	np=$((np + $(grep -c '^ok ' "$tmp/lnw.out" 2>/dev/null || echo 0)))
	nf=$((nf + $(grep -c '^not ok ' "$tmp/lnw.out" 2>/dev/null || echo 0)))
	[ -s "$tmp/lnw.out" ] || { echo "not ok unit.libnowait-builds: $(head -c 300 "$tmp/lnw.build")"; nf=$((nf + 1)); }
fi

# nowait-aio-stat against a fake sysfs directory, nowait-aio-probe on the
# host's kernel (their own scripts)
for s in stat probe; do
	bash "$top/test/unit/${s}_test.sh" >"$tmp/$s.out" 2>&1
	grep -E '^(ok|not ok) ' "$tmp/$s.out"
	np=$((np + $(grep -c '^ok ' "$tmp/$s.out")))
	nf=$((nf + $(grep -c '^not ok ' "$tmp/$s.out")))
	grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$tmp/$s.out" ||
		{ echo "not ok unit.$s-runs: $(tail -c 300 "$tmp/$s.out" | tr '\n' ' ')"; nf=$((nf + 1)); }
done

echo "$np passed, $nf failed"
[ "$nf" -eq 0 ]
