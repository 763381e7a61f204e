#!/bin/bash
# make fuzz: the differential fuzzer.  The same seeded operations run in
# two VMs on fresh images of identical layout (test/vm/run.sh --profile
# fuzz), KVER with the module and REF natively, and test/fuzz/compare.sh
# compares them.
#
#   test/fuzz/run.sh [--out DIR] KVER REF SEED OPS
#
# Writes DIR/fuzz-<kver>-vs-<ref>.env (key=value: passed, failed,
# skipped, kver, ref, seed, ops, divergences, explained, module_out,
# native_out) and prints "# summary: <that file>", then "N passed, N
# failed, N skipped", and last "fuzz: <ops> ops, <d> divergences, <e>
# explained"; exit 0 only if both VMs ran every operation with a clean
# kernel log and every divergence is explained.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env fuzz/run.sh
if [ "${1:-}" = --out ]; then
	nw_out=${2:?--out DIR}
	shift 2
fi
KVER=${1:?usage: run.sh [--out DIR] KVER REF SEED OPS}
REF=${2:?usage: run.sh KVER REF SEED OPS}
SEED=${3:-1}
OPS=${4:-1000}
base=$nw_out
sum=$base/fuzz-$KVER-vs-$REF.env
rc=0

# the folder of one run, from its summary.env ("" if it left none)
run_dir() { # KVER MODULE
	nw_summary_get "$(nw_out_dir "$1" "$2" fuzz)/summary.env" out
}
# the compare.sh figures as key=value lines
figures() { # the compare.sh output
	sed -n 's/^fuzz: \([0-9]*\) ops, \([0-9]*\) divergences, \([0-9]*\) explained$/ops=\1 divergences=\2 explained=\3/p' "$1" |
		tail -n 1 | tr ' ' '\n'
}

echo "# fuzz: seed $SEED, $OPS operations, $KVER with the module vs $REF native"
# before 4.9 XFS has no reflink: both runs then make XFS's file b of
# plain written blocks, as on ext4
arg=$SEED:$OPS
nw_kver_ge "$(nw_release "$KVER")" 4 9 || arg=$arg:noclone
bash "$top/test/vm/run.sh" --out "$nw_out" --profile fuzz --arg "$arg" --kernel "$KVER" --module || rc=1
bash "$top/test/vm/run.sh" --out "$nw_out" --profile fuzz --arg "$arg" --kernel "$REF" --stock || rc=1
a=$(run_dir "$KVER" 1)
b=$(run_dir "$REF" 0)
mkdir -p "$base"
printf '%s\n' "kver=$KVER" "ref=$REF" "seed=$SEED" "module_out=$a" "native_out=$b" >"$sum"
if [ ! -f "$a/9p/fuzz.log" ] || [ ! -f "$b/9p/fuzz.log" ]; then
	echo "not ok fuzz.compare - both runs leave a log: yes vs no"
	printf '%s\n' passed=0 failed=1 skipped=0 ops=0 divergences=1 explained=0 >>"$sum"
	echo "# summary: $sum"
	echo "0 passed, 1 failed, 0 skipped"
	echo "fuzz: 0 ops, 1 divergences, 0 explained"
	exit 1
fi
# every unexplained line names what replays it
bash "$top/test/fuzz/compare.sh" "$a/9p/fuzz.log" "$b/9p/fuzz.log" "$(nw_release "$KVER")" |
	sed "s/^UNEXPLAINED \(op\|epoch\) \([0-9]*\)/UNEXPLAINED (replay: make fuzz KVER=$KVER REF=$REF SEED=$SEED OPS=$OPS) \1 \2/" |
	tee "$base/fuzz-$KVER-vs-$REF.txt" | grep -v '^explained '
figures "$base/fuzz-$KVER-vs-$REF.txt" >>"$sum"
d=$(nw_summary_get "$sum" divergences 1)
e=$(nw_summary_get "$sum" explained 0)
[ "$d" = "$e" ] || rc=1
if [ $rc = 0 ]; then
	echo "ok fuzz.differential - every divergence explained, both VMs clean"
	printf '%s\n' passed=1 failed=0 skipped=0 >>"$sum"
else
	echo "not ok fuzz.differential - every divergence explained, both VMs clean"
	printf '%s\n' passed=0 failed=1 skipped=0 >>"$sum"
fi
echo "# summary: $sum"
echo "$(nw_summary_get "$sum" passed) passed, $(nw_summary_get "$sum" failed) failed, 0 skipped"
tail -n 1 "$base/fuzz-$KVER-vs-$REF.txt"
exit $rc
