#!/bin/bash
# Run the suite on one kernel again and again, to catch what happens once
# in many runs (a hang, a race).  Each run keeps its own output folder.
#
#   test/vm/soak.sh KVER MODULE RUNS [CASES]
#
# NOWAIT_VM_SMP sets the vCPUs as for run.sh.  Prints one line per run
# ("soak <i>: <summary> [hang]") and at the end
# "soak: <runs> runs, <hangs> hangs, <failed> failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${1:?usage: soak.sh KVER MODULE RUNS [CASES]}
MODULE=${2:-1}
RUNS=${3:-20}
CASES=${4:-}
base=${NOWAIT_OUT:-$top/test/vm/out}/soak-$KVER-smp${NOWAIT_VM_SMP:-2}
mkdir -p "$base"
hangs=0 failed=0
for i in $(seq 1 "$RUNS"); do
	o=$base/$i
	rm -rf "$o"
	NOWAIT_OUT=$o bash "$top/test/vm/run.sh" "$KVER" "$MODULE" "$CASES" >"$base/$i.log" 2>&1
	rc=$?
	d=$(ls -d "$o"/*/ 2>/dev/null | head -n 1)
	tag=""
	if [ -n "$d" ] && grep -q -a 'blocked for more than' "$d/dmesg.log"; then
		tag=" hang"
		hangs=$((hangs + 1))
	fi
	[ $rc = 0 ] || failed=$((failed + 1))
	echo "soak $i: $(tail -n 1 "$base/$i.log")$tag"
	# keep the folders of failed runs only (images are 1.5 GiB a run)
	[ $rc = 0 ] && rm -rf "$o"
done
echo "soak: $RUNS runs, $hangs hangs, $failed failed"
[ $failed = 0 ]
