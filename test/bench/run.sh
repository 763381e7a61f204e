#!/bin/bash
# make bench: event-loop stall, refusal cost, submit path and fio in one
# boot (test/vm/run.sh --profile bench), then the SMP scaling in a second
# (--profile scale; --no-scale skips it).  With REF (a native
# kernel) the same boots run there too, and compare.sh, scale-compare.sh
# print the *_vs_native figures.
#
#   test/bench/run.sh [--no-scale] [--set KEY=VALUE]... [--out DIR] KVER MODULE [REF]
#
# --set goes to every boot (the bench and scale profiles' parameters,
# README "Benchmark"); --out DIR: where the boots' folders go.
# The boots' folders come from their summary.env files (test/lib.sh);
# plot.sh draws the stall plots into the first one's plots/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
# shellcheck source=test/bench/final.sh
. "$top/test/bench/final.sh"
nw_no_old_env bench/run.sh
scale=1 sets=()
while [ $# -gt 0 ]; do
	case $1 in
	--no-scale) scale=0; shift ;;
	--set) sets+=(--set "${2:?--set KEY=VALUE}"); shift 2 ;;
	--out) nw_out=${2:?--out DIR}; shift 2 ;;
	-*) echo "bench/run.sh: no option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
KVER=${1:?usage: run.sh [--no-scale] [--set KEY=VALUE]... [--out DIR] KVER MODULE [REF]}
MODULE=${2:-0}
REF=${3:-}
rc=0

# one boot; dir is its folder, or empty when it left no summary
boot() { # PROFILE KVER MODULE
	bash "$top/test/vm/run.sh" --out "$nw_out" --profile "$1" ${sets[@]+"${sets[@]}"} \
		--kernel "$2" "$([ "$3" = 1 ] && echo --module || echo --stock)" || rc=1
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
if [ "$scale" != 0 ]; then
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
