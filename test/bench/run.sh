#!/bin/bash
# make bench: event-loop stall, refusal cost, submit path and fio in one
# boot (test/vm/run.sh --profile bench), then the SMP scaling in a second
# (--profile scale; NW_BENCH_SCALE=0 skips it).  With REF (a native
# kernel) the same boots run there too, and compare.sh, scale-compare.sh
# print the *_vs_native figures.
#
#   test/bench/run.sh KVER MODULE [REF]
#
# The boots' folders come from their summary.env files (test/lib.sh);
# plot.sh draws the stall plots into the first one's plots/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
# shellcheck source=test/bench/final.sh
. "$top/test/bench/final.sh"
KVER=${1:?usage: run.sh KVER MODULE [REF]}
MODULE=${2:-0}
REF=${3:-}
rc=0

# one boot; dir is its folder, or empty when it left no summary
boot() { # PROFILE KVER MODULE
	bash "$top/test/vm/run.sh" --profile "$1" "$2" "$3" || rc=1
	dir=$(nw_summary_get "$(nw_out_dir "$2" "$3" "$1")/summary.env" out)
}

boot bench "$KVER" "$MODULE"
a=$dir b=
[ -z "$REF" ] || { boot bench "$REF" 0; b=$dir; }
[ -z "$a" ] || bash "$top/test/bench/plot.sh" "$a" ${b:+"$b"} || true
bline='' sline=''
if [ -n "$a" ] && [ -n "$b" ]; then
	bash "$top/test/bench/compare.sh" "$a/results.txt" "$b/results.txt" >"$a/compare.txt" || rc=1
	cat "$a/compare.txt"
	bline=$(grep '^bench:' "$a/compare.txt" | tail -n 1)
fi
if [ "${NW_BENCH_SCALE:-1}" != 0 ]; then
	boot scale "$KVER" "$MODULE"
	a=$dir b=
	[ -z "$REF" ] || { boot scale "$REF" 0; b=$dir; }
	if [ -n "$a" ]; then
		bash "$top/test/bench/scale-compare.sh" "$a/results.txt" ${b:+"$b/results.txt"} \
			>"$a/compare.txt" || rc=1
		cat "$a/compare.txt"
		[ -z "$b" ] || sline=$(grep '^scale:' "$a/compare.txt" | tail -n 1)
	fi
fi
# with REF: every figure of the run in one last line
[ -z "$bline" ] || nw_bench_final "$bline" "$sline"
exit $rc
