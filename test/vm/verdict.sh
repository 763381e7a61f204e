#!/bin/bash
# Decide a VM run from its result lines and its kernel log.
#
#   test/vm/verdict.sh RESULTS DMESG TIMED_OUT(0|1)
#
# Prints extra "not ok vm.*" lines when the guest did not reach its end
# marker or the kernel log shows a WARN, oops, BUG, lockdep report or hung
# task, then "N passed, N failed, N skipped".  Exit 0 only if none failed.
set -u
results=$1 dmesg=$2 timed_out=${3:-0}
np=$(grep -c '^ok ' "$results")
nf=$(grep -c '^not ok ' "$results")
ns=$(grep -c '^skip ' "$results")
if ! grep -q '^nwsuite-done' "$results"; then
	if [ "$timed_out" = 1 ]; then
		echo "not ok vm.boot - the VM finishes: in time vs timed out"
	else
		echo "not ok vm.boot - the VM reaches the suite's end marker: yes vs no (crash or panic)"
	fi
	nf=$((nf + 1))
fi
bad=$(grep -a -E 'WARNING:|BUG:|Oops|general protection|INFO: task .* blocked|possible circular locking|possible recursive locking|Kernel panic|KASAN|UBSAN|soft lockup|hung_task' "$dmesg" 2>/dev/null | head -n 1 | tr -d '\r')
if [ -n "$bad" ]; then
	echo "not ok vm.dmesg - the kernel log is clean: clean vs \"$bad\""
	nf=$((nf + 1))
fi
echo "$np passed, $nf failed, $ns skipped"
[ "$nf" -eq 0 ]
