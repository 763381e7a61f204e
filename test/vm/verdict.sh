#!/bin/bash
# Decide a VM run from its result lines and its kernel log.
#
#   test/vm/verdict.sh [--sysmap FILE] [--kaslr-delta HEX] RESULTS DMESG TIMED_OUT(0|1|idle:WHY) [UNSTICK_LOG]
#
# Prints extra "not ok vm.*" lines when the guest did not reach its end
# marker or the kernel log shows a WARN, oops, BUG, lockdep report, hung
# task, soft lockup or RCU stall, then "N passed, N failed, N skipped".
# Exit 0 only if none failed.
#
# One exception, said in a "# vm:" line: CPUs that QEMU 7.2 left on a stale
# translation (run.sh, qemu-unstick.py).  Their reports (soft lockup, RCU
# stall, and on a preemptible kernel the hung tasks behind them) do not
# fail the run when the host flushed QEMU's translations, the guest then
# went on to its end marker (a hung task reported again after the flush
# makes the guest crash itself: init.sh), and a CPU was held at a
# function's first byte (where ftrace's int3 goes), where nothing but that
# loop can hold one: in the kernel's own report, or in QEMU's samples of
# the vCPUs (qemu-unstick.py) named through the kernel's System.map
# (--sysmap; --kaslr-delta, the guest's _text less the linked one, in
# hex), with a CPU also sampled on the kernel's int3 entry, trapping on an
# int3 that memory no longer holds.
set -u
# shellcheck source=test/lib.sh
. "$(dirname "$0")/../lib.sh"
nw_no_old_env verdict.sh
sysmap='' kaslr_delta=0
while [ $# -gt 0 ]; do
	case $1 in
	--sysmap) sysmap=${2?--sysmap FILE}; shift 2 ;;
	--kaslr-delta) kaslr_delta=${2?--kaslr-delta HEX}; shift 2 ;;
	*) break ;;
	esac
done
results=$1 dmesg=$2 timed_out=${3:-0} unstick=${4:-}
np=$(grep -c '^ok ' "$results")
nf=$(grep -c '^not ok ' "$results")
ns=$(grep -c '^skip ' "$results")
if ! grep -q '^nwsuite-done' "$results"; then
	if [ "$timed_out" = 1 ]; then
		echo "not ok vm.boot - the VM finishes: in time vs timed out"
	elif [ "${timed_out#idle:}" != "$timed_out" ]; then
		echo "not ok vm.boot - the VM shows signs of life: yes vs stopped, ${timed_out#idle:}"
	else
		echo "not ok vm.boot - the VM reaches the suite's end marker: yes vs no (crash or panic)"
	fi
	nf=$((nf + 1))
fi
stall_re='soft lockup|rcu_.* stall|INFO: task .* blocked for more than'
# a CPU's report at a function's first byte; before 4.10 the line also
# carries the address twice: "RIP: 0010:[<...>]  [<...>] vfs_read+0x0/0x130",
# and 4.9's NMI backtrace (SysRq l) has a raw KERN_CONT marker (\001c) in
# between
held_re='RIP: 0010:(\[<[0-9a-f]+>\][^[]*\[<[0-9a-f]+>\] )?[A-Za-z0-9_.]+\+0x0/'
# The functions whose first byte QEMU's samples found a CPU on, one per
# line (none without a System.map)
sampled_entries() {
	local a
	[ -n "$sysmap" ] && [ -f "$sysmap" ] || return 0
	sed -n 's/^unstick: cpu [0-9,]* at 0x\([0-9a-f]*\):.*/\1/p' "$unstick" |
		while read -r a; do
			printf '%016x\n' $((16#$a - 16#${kaslr_delta:-0}))
		done | sort -u |
		join - <(awk '$2 ~ /^[tT]$/ { print $1, $3 }' "$sysmap" | sort -k1,1) |
		awk '{ print $2 }'
}
# Where a CPU was held: the kernel's report, else QEMU's samples (a
# function entry other than int3's, with int3's entry sampled too)
held_at() {
	local e
	if grep -a -q -E "$held_re" "$dmesg"; then
		grep -a -o -E "$held_re" "$dmesg" | head -n 1 | sed 's/.* //; s/.*://; s,/$,,'
		return
	fi
	e=$(sampled_entries)
	echo "$e" | grep -q -x int3 &&
		echo "$e" | grep -v -x int3 | sed 's/$/+0x0/' | paste -s -d ' ' |
		sed "s/\$/ in QEMU's samples/"
}
stale=0
if [ -n "$unstick" ] && grep -q "^unstick: flushed QEMU's translations" "$unstick" 2>/dev/null &&
	grep -q '^nwsuite-done' "$results"; then
	held=$(held_at)
	if [ -n "$held" ]; then
		stale=1
		echo "# vm: QEMU left CPUs on a stale translation (held at $held); freed $(grep -c "^unstick: flushed QEMU's translations" "$unstick") time(s) by flushing QEMU's translations, and the guest went on (QEMU 7.2 bug, fixed upstream in 8.1: deba78709ae8)"
	fi
fi
bad=$(grep -a -E "WARNING:|BUG:|kernel BUG at|Oops|general protection|INFO: task .* blocked|possible circular locking|possible recursive locking|Kernel panic|KASAN|UBSAN|hung_task|$stall_re" "$dmesg" 2>/dev/null |
	{ if [ $stale = 1 ]; then grep -v -E "$stall_re|hung_task_timeout_secs. disables this message"; else cat; fi; } | head -n 1 | tr -d '\r')
if [ -n "$bad" ]; then
	echo "not ok vm.dmesg - the kernel log is clean: clean vs \"$bad\""
	nf=$((nf + 1))
fi
echo "$np passed, $nf failed, $ns skipped"
[ "$nf" -eq 0 ]
