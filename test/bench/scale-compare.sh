#!/bin/bash
# Host side of the scaling benchmark (`make bench`, profile scale):
# the module's scaling against native's, from two runs' results.
#
#   test/bench/scale-compare.sh MODULE_RESULTS [NATIVE_RESULTS]
#
# Each argument is a results.txt of test/vm/out/<kver>-<mode>-scale/, whose
# "scaling fs=F threads=N rate=R smp_scaling=X submit_p50_us=U" lines are
# per filesystem and N the medians over rounds.  Prints a table (per fs
# and N: each run's rate, smp_scaling and io_submit median) and last
#
#   scale: smp_scaling_vs_native=<m/n at the largest N> smp_scaling_vs_native_2=<m/n at 2>
#          nowait_cpu_vs_threadpool=<module run>/<native run>
#
# (after the sleep counts of the --lock scenario, sleeps.awk), where m/n is the geometric mean over filesystems of the module run's
# smp_scaling divided by the native run's, and nowait_cpu_vs_threadpool
# each run's busy-loop CPU per request of NOWAIT over the thread pool's.  With one argument it prints
# that run's own bench-scale: line.
set -u
a=${1:?usage: scale-compare.sh MODULE_RESULTS [NATIVE_RESULTS]}
b=${2:-}
[ -f "$a" ] || { echo "scale-compare: no $a" >&2; exit 1; }
if [ -z "$b" ]; then
	grep -a '^bench-scale:' "$a" | tail -n 1 | tr -d '\r'
	exit 0
fi
[ -f "$b" ] || { echo "scale-compare: no $b" >&2; exit 1; }
{ tr -d '\r' <"$a" | sed 's/^/A /'; tr -d '\r' <"$b" | sed 's/^/B /'; } |
	awk "$(cat "$(dirname "$0")/sleeps.awk")"'
$2 == "scaling" {
	split("", kv)
	for (i = 3; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
	fs = kv["fs"]; n = kv["threads"] + 0
	if (!(fs in seen)) { seen[fs] = 1; fss[++nfs] = fs }
	if (!(n in seenn)) { seenn[n] = 1; ns[++nn] = n; if (n > maxn) maxn = n }
	rate[$1, fs, n] = kv["rate"]; x[$1, fs, n] = kv["smp_scaling"]
	us[$1, fs, n] = kv["submit_p50_us"]
}
$2 == "bench-scale:" {
	for (i = 3; i <= NF; i++)
		if ($i ~ /^nowait_cpu_vs_threadpool=/) { v = $i; sub(/.*=/, "", v); cvt[$1] = v }
}
END {
	print "# scale: aggregate NOWAIT submits/s, smp_scaling (rate at N / at 1) and io_submit median (us); module | native"
	printf "# %-6s %3s %9s %7s %7s | %9s %7s %7s | %s\n", "fs", "N", "rate", "scaling", "p50us", "rate", "scaling", "p50us", "module/native scaling"
	for (f = 1; f <= nfs; f++)
		for (i = 1; i <= nn; i++) {
			fs = fss[f]; n = ns[i]
			if (!(("A", fs, n) in x) || !(("B", fs, n) in x)) continue
			r = x["B", fs, n] > 0 ? x["A", fs, n] / x["B", fs, n] : 0
			printf "# %-6s %3d %9.0f %7.3f %7.2f | %9.0f %7.3f %7.2f | %.3f\n", fs, n,
				rate["A", fs, n], x["A", fs, n], us["A", fs, n],
				rate["B", fs, n], x["B", fs, n], us["B", fs, n], r
			if (r > 0) { ls[n] += log(r); lc[n]++ }
		}
	sleeps_table()
	g = lc[maxn] ? sprintf("%.3f", exp(ls[maxn] / lc[maxn])) : "nan"
	g2 = lc[2] ? sprintf("%.3f", exp(ls[2] / lc[2])) : "nan"
	printf "scale: smp_scaling_vs_native=%s smp_scaling_vs_native_2=%s nowait_cpu_vs_threadpool=%s/%s\n", g, g2,
		("A" in cvt) ? cvt["A"] : "nan", ("B" in cvt) ? cvt["B"] : "nan"
}'
