#!/bin/bash
# Host side of `make bench`: CDF plots of the event-loop stall benchmark's
# per-submit durations, which the guest writes per mode and round to /mnt/9p,
# i.e. <run dir>/9p/stall-<fs>-<mode>-r<round>.txt; the last round's are
# plotted.
#
#   test/bench/plot.sh RUN_DIR [REF_RUN_DIR]
#
# RUN_DIR is test/vm/out/<kver>-<mode>-bench; REF_RUN_DIR (a native run)
# adds its curves, dashed.  Per filesystem it writes
#   RUN_DIR/plots/stall-<fs>.png       CDF, log x (submit duration, us)
#   RUN_DIR/plots/stall-<fs>-tail.png  1 - CDF, log-log (the tail)
# Needs gnuplot (Debian: gnuplot-nox).
set -u
run=${1:?usage: plot.sh RUN_DIR [REF_RUN_DIR]}
ref=${2:-}
command -v gnuplot >/dev/null || { echo "plot: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -d "$run/9p" ] || { echo "plot: no $run/9p" >&2; exit 1; }
plots=$run/plots
mkdir -p "$plots"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sorted durations -> "us cdf ccdf"
cdf() {
	grep -v '^#' "$1" | cut -d' ' -f1 | sort -g |
		awk '{ x[NR] = $1 } END { for (i = 1; i <= NR; i++) print x[i], i / NR, (NR - i + 1) / NR }'
}

label_of() { basename "$1" | sed 's/-bench$//'; }
made=0
# the last round's file of a fs and mode
last() {
	ls "$1"/stall-"$2"-"$3"-r*.txt 2>/dev/null |
		sed 's/.*-r\([0-9]*\)\.txt$/\1 &/' | sort -n | tail -n 1 | cut -d' ' -f2-
}
for fs in $(ls "$run/9p" 2>/dev/null | sed -n 's/^stall-\([a-z0-9]*\)-[a-z]*-r[0-9]*\.txt$/\1/p' | sort -u); do
	curves=""
	for src in "$run" ${ref:+"$ref"}; do
		[ "$src" = "$run" ] && dash=1 || dash=2
		for m in plain nowait threadpool; do
			f=$(last "$src/9p" "$fs" "$m")
			[ -n "$f" ] && [ -s "$f" ] || continue
			d=$tmp/$(label_of "$src")-$fs-$m.dat
			cdf "$f" >"$d"
			case $m in plain) c=1 ;; nowait) c=2 ;; *) c=3 ;; esac
			curves="$curves${curves:+, }'$d' using 1:COL with lines dashtype $dash linecolor $c linewidth 2 title '$(label_of "$src") $m'"
		done
	done
	[ -n "$curves" ] || continue
	{
		echo "set terminal pngcairo size 900,600"
		echo "set grid"
		echo "set logscale x"
		echo "set format x '%g'"
		echo "set format y '%g'"
		echo "set xlabel 'submit duration (us, guest time)'"
		echo "set key bottom right"
		echo "set output '$plots/stall-$fs.png'"
		echo "set ylabel 'fraction of submits'"
		echo "set yrange [0:1]"
		echo "set title 'event-loop stall, $fs: CDF of submit durations (last round)'"
		echo "plot ${curves//COL/2}"
		echo "set output '$plots/stall-$fs-tail.png'"
		echo "set logscale y"
		echo "set yrange [*:1]"
		echo "set key bottom left"
		echo "set ylabel 'fraction of submits longer (1 - CDF)'"
		echo "set title 'event-loop stall, $fs: tail of submit durations (last round)'"
		echo "plot ${curves//COL/3}"
	} >"$tmp/plot.gp"
	if gnuplot "$tmp/plot.gp"; then
		echo "# plot: $plots/stall-$fs.png $plots/stall-$fs-tail.png"
		made=1
	fi
done
[ $made = 1 ] || { echo "plot: no stall durations in $run/9p" >&2; exit 1; }
