#!/bin/bash
# make fuzz: the differential fuzzer.  The same seeded operations run in
# two VMs on fresh images of identical layout, KVER with the module and REF
# natively, and test/fuzz/compare.sh compares them.
#
#   test/fuzz/run.sh KVER REF SEED OPS
#
# Ends with "fuzz: <ops> ops, <d> divergences, <e> explained"; exit 0 only
# if both VMs ran every operation with a clean kernel log and every
# divergence is explained.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${1:?usage: run.sh KVER REF SEED OPS}
REF=${2:?usage: run.sh KVER REF SEED OPS}
SEED=${3:-1}
OPS=${4:-1000}
out=${NOWAIT_OUT:-$top/test/vm/out}
rc=0

echo "# fuzz: seed $SEED, $OPS operations, $KVER with the module vs $REF native"
NOWAIT_FUZZ="$SEED:$OPS" bash "$top/test/vm/run.sh" "$KVER" 1 || rc=1
NOWAIT_FUZZ="$SEED:$OPS" bash "$top/test/vm/run.sh" "$REF" 0 || rc=1
a=$(ls -d "$out/$KVER"-module-fuzz 2>/dev/null)/9p/fuzz.log
b=$(ls -d "$out/$REF"-native-fuzz 2>/dev/null)/9p/fuzz.log
if [ ! -f "$a" ] || [ ! -f "$b" ]; then
	echo "not ok fuzz.compare - both runs leave a log: yes vs no"
	echo "fuzz: 0 ops, 1 divergences, 0 explained"
	exit 1
fi
# every unexplained line names what replays it
bash "$top/test/fuzz/compare.sh" "$a" "$b" |
	sed "s/^UNEXPLAINED \(op\|epoch\) \([0-9]*\)/UNEXPLAINED (replay: make fuzz KVER=$KVER REF=$REF SEED=$SEED OPS=$OPS) \1 \2/" |
	tee "$out/fuzz-$KVER-vs-$REF.txt" | grep -v '^explained '
last=$(tail -n 1 "$out/fuzz-$KVER-vs-$REF.txt")
set -- $(echo "$last" | tr -dc '0-9 ')
[ "${2:-1}" = "${3:-0}" ] || rc=1
if [ $rc = 0 ]; then
	echo "ok fuzz.differential - every divergence explained, both VMs clean"
	echo "1 passed, 0 failed, 0 skipped"
else
	echo "not ok fuzz.differential - every divergence explained, both VMs clean"
	echo "0 passed, 1 failed, 0 skipped"
fi
echo "$last"
exit $rc
