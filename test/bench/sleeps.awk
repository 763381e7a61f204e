# The sleep counts (test/bench/sleeps.c) of two runs, for compare.sh and
# scale-compare.sh: their input lines start with the run, A (module) or B
# (native).  Per scenario and filesystem, each run's
#   slept/calls (E EAGAIN, D done after a sleep)
# where D = slept - slept_eagain: calls that found nothing to refuse and
# still slept.
$2 == "nwsleeps" {
	split("", kv)
	for (i = 3; i <= NF; i++) {
		split($i, p, "=")
		kv[p[1]] = p[2]
	}
	k = kv["scenario"] " " kv["fs"]
	if (!(k in zseen)) { zseen[k] = 1; zk[++nz] = k }
	zs[$1, k] = kv["slept"] "/" kv["calls"] " (" kv["eagain"] " EAGAIN, " \
		(kv["slept"] - kv["slept_eagain"]) " done after a sleep)"
	next
}
function sleeps_table(z) {
	if (!nz)
		return
	print "# NOWAIT calls that slept, of all (test/bench/sleeps.c)"
	printf "# %-14s %44s %44s\n", "scenario fs", "module A", "native B"
	for (z = 1; z <= nz; z++)
		printf "# %-14s %44s %44s\n", zk[z], ("A", zk[z]) in zs ? zs["A", zk[z]] : "-",
			("B", zk[z]) in zs ? zs["B", zk[z]] : "-"
}
