#!/bin/bash
# The last line of `make bench REF=...`: compare.sh's "bench:" figures and
# scale-compare.sh's "scale:" figures in one line (sourced by run.sh).
#
#   nw_bench_final BENCH_LINE SCALE_LINE
#
# prints "bench: <bench figures> <scale figures>"; without a scale line
# (run.sh --no-scale, or its boot failed) "smp_scaling_vs_native=skipped".
nw_bench_final() {
	local b=${1#bench: } s=${2#scale: }
	[ -n "$2" ] || s="smp_scaling_vs_native=skipped"
	echo "bench: $b $s"
}
