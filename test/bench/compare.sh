#!/bin/bash
# Host side of `make bench REF=<native kernel>`: the figures that need two
# boots, from the results of a module run and of a native run.
#
#   test/bench/compare.sh MODULE_RESULTS NATIVE_RESULTS
#
# Each argument is a results.txt of test/vm/out/<kver>-<mode>-bench/.  Per
# filesystem in both, the median over rounds of each run's "stall" p99
# (submit duration) and "refusal" ratio (of means; the ratio of medians is
# shown beside it); across filesystems, the geometric mean of the
# per-filesystem ratios.  Prints a table and last
#
#   bench: stall_p99_vs_plain=<plain p99 / nowait p99, module run>
#          stall_p99_vs_native=<nowait p99 module / nowait p99 native>
#          overhead_slat_ratio=<fio, module loaded / unloaded>
#          refusal_cost_vs_native=<refusal ratio module / refusal ratio native>
#          nowait_sleeps_per_1000=<module run>/<native run>
#          nowait_cpu_vs_threadpool_nap=<module run, napping loop>
#          overhead_min_ratio=<submit minimum, module loaded / unloaded>
#          nowait_cost_vs_native=<NOWAIT/plain submit minimum, module / native>
#
# (one line; the last two from the submit part's "# submit" lines).  With one argument it prints that run's own bench: line.
set -u
a=${1:?usage: compare.sh MODULE_RESULTS [NATIVE_RESULTS]}
b=${2:-}
[ -f "$a" ] || { echo "compare: no $a" >&2; exit 1; }
if [ -z "$b" ]; then
	grep -a '^bench: stall_p99_vs_plain=' "$a" | tail -n 1 | tr -d '\r'
	exit 0
fi
[ -f "$b" ] || { echo "compare: no $b" >&2; exit 1; }
tr -d '\r' <"$a" | sed 's/^/A /' >"${TMPDIR:-/tmp}/compare.$$"
tr -d '\r' <"$b" | sed 's/^/B /' >>"${TMPDIR:-/tmp}/compare.$$"
trap 'rm -f "${TMPDIR:-/tmp}/compare.$$"' EXIT
awk -v la="$a" -v lb="$b" "$(cat "$(dirname "$0")/sleeps.awk")"'
function med(key,   n, i, j, t, v) {
	n = cnt[key]
	if (!n) return ""
	for (i = 1; i <= n; i++) v[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function put(key, x) { cnt[key]++; val[key, cnt[key]] = x }
function ratio(x, y) { return (x != "" && y != "" && y > 0) ? x / y : "" }
function fmt(x, p) { return x == "" ? "-" : sprintf("%." p "f", x) }
function gm(name, x) { if (x != "" && x > 0) { gs[name] += log(x); gn[name]++ } }
function per1000(s, c) { return c > 0 ? sprintf("%.2f", 1000 * s / c) : "-" }
function gout(name) { return gn[name] ? sprintf("%.2f", exp(gs[name] / gn[name])) : "nan" }
$2 == "sleeps" {
	split("", kv)
	for (i = 3; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	sc[$1, kv["fs"], kv["mode"]] += kv["calls"]
	ss[$1, kv["fs"], kv["mode"]] += kv["slept"]
	if (kv["mode"] == "nowait") { nwc[$1] += kv["calls"]; nws[$1] += kv["slept"] }
}
$2 == "stall" || $2 == "refusal" {
	r = $1
	split("", kv)
	for (i = 3; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	fs = kv["fs"]
	if (r == "A" && !(fs in seen)) { seen[fs] = 1; fss[++nfs] = fs }
	if ($2 == "stall")
		put(r SUBSEP fs SUBSEP kv["mode"], kv["p99"])
	else {
		put(r SUBSEP fs SUBSEP "refusal", kv["ratio"])
		put(r SUBSEP fs SUBSEP "refmed", kv["median_ratio"])
	}
}
$1 == "A" && $2 == "bench:" {
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^overhead_slat_ratio=/) { over = $i; sub(/.*=/, "", over) }
		if ($i ~ /^nowait_cpu_vs_threadpool_nap=/) { cvt = $i; sub(/.*=/, "", cvt) }
	}
}
$2 == "#" && $3 == "submit" && $4 ~ /:$/ && $5 == "nowait/plain" {
	fs = $4; sub(/:$/, "", fs)
	if ($1 == "A" && !(fs in sseen)) { sseen[fs] = 1; sfs[++nsfs] = fs }
	nwmin[$1, fs] = $8
}
$1 == "A" && $2 == "#" && $3 == "submit:" {
	for (i = 4; i <= NF; i++)
		if ($i ~ /^overhead_min_ratio=/) { omin = $i; sub(/.*=/, "", omin) }
}
$1 == "A" && $2 == "#" && $3 == "fio:" && over == "" {
	for (i = 4; i <= NF; i++)
		if ($i ~ /^overhead_slat_ratio=/) { over = $i; sub(/.*=/, "", over) }
}
END {
	print "# compare: A = " la
	print "#          B = " lb
	print "# stall p99 and refusal ratio: median of rounds per run"
	printf "# %-6s %11s %11s %11s %10s %15s %10s %10s %12s %12s\n", "fs", "plain/nw A", "plain/nw B",
		"nowait A/B", "plain A/B", "threadpool A/B", "refusal A", "refusal B", "refusal A/B",
		"(medians)"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		pa = ratio(med("A" SUBSEP fs SUBSEP "plain"), med("A" SUBSEP fs SUBSEP "nowait"))
		pb = ratio(med("B" SUBSEP fs SUBSEP "plain"), med("B" SUBSEP fs SUBSEP "nowait"))
		nv = ratio(med("A" SUBSEP fs SUBSEP "nowait"), med("B" SUBSEP fs SUBSEP "nowait"))
		pv = ratio(med("A" SUBSEP fs SUBSEP "plain"), med("B" SUBSEP fs SUBSEP "plain"))
		tv = ratio(med("A" SUBSEP fs SUBSEP "threadpool"), med("B" SUBSEP fs SUBSEP "threadpool"))
		ra = med("A" SUBSEP fs SUBSEP "refusal")
		rb = med("B" SUBSEP fs SUBSEP "refusal")
		rv = ratio(ra, rb)
		rm = ratio(med("A" SUBSEP fs SUBSEP "refmed"), med("B" SUBSEP fs SUBSEP "refmed"))
		printf "# %-6s %11s %11s %11s %10s %15s %10s %10s %12s %12s\n", fs, fmt(pa, 2), fmt(pb, 2),
			fmt(nv, 3), fmt(pv, 3), fmt(tv, 3), fmt(ra, 4), fmt(rb, 4), fmt(rv, 3), fmt(rm, 3)
		gm("plain", pa)
		gm("native", nv)
		gm("refusal", rv)
		gm("refmed", rm)
	}
	print "# refusal_cost_vs_native from the ratio of medians instead of means: " gout("refmed")
	print "# sleeps: submits during which the loop thread slept, per 1000 submits (all rounds)"
	printf "# %-6s %10s %10s %10s %10s\n", "fs", "nowait A", "nowait B", "plain A", "plain B"
	for (f = 1; f <= nfs; f++) {
		fs = fss[f]
		printf "# %-6s %10s %10s %10s %10s\n", fs,
			per1000(ss["A", fs, "nowait"], sc["A", fs, "nowait"]),
			per1000(ss["B", fs, "nowait"], sc["B", fs, "nowait"]),
			per1000(ss["A", fs, "plain"], sc["A", fs, "plain"]),
			per1000(ss["B", fs, "plain"], sc["B", fs, "plain"])
	}
	sleeps_table()
	if (nsfs) {
		print "# submit: NOWAIT/plain io_submit minimum per run, and module / native"
		printf "# %-6s %10s %10s %14s\n", "fs", "module A", "native B", "A/B"
	}
	for (f = 1; f <= nsfs; f++) {
		fs = sfs[f]
		cv = ratio(nwmin["A", fs], nwmin["B", fs])
		printf "# %-6s %10s %10s %14s\n", fs, fmt(nwmin["A", fs], 4), fmt(nwmin["B", fs], 4), fmt(cv, 3)
		gm("cost", cv)
	}
	if (omin == "") omin = "nan"
	if (over == "") over = "nan"
	if (cvt == "") cvt = "nan"
	printf "bench: stall_p99_vs_plain=%s stall_p99_vs_native=%s overhead_slat_ratio=%s refusal_cost_vs_native=%s nowait_sleeps_per_1000=%s/%s nowait_cpu_vs_threadpool_nap=%s overhead_min_ratio=%s nowait_cost_vs_native=%s\n",
		gout("plain"), gout("native"), over, gout("refusal"),
		per1000(nws["A"], nwc["A"]), per1000(nws["B"], nwc["B"]), cvt, omin, gn["cost"] ? sprintf("%.3f", exp(gs["cost"] / gn["cost"])) : "nan"
}' "${TMPDIR:-/tmp}/compare.$$"
