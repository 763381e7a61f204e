# Reads the trace of test/iosoak/guest.sh's nwrq kprobes (start, cmpl,
# done, tmo; each with rq=<address>) and prints each request that was
# started and not done since: "<address>: <event>@<time> ...", its events
# from its last start on.  Requests are reused, so a history restarts at
# every start.
{
	ev = ""; rq = ""; ts = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^(start|cmpl|done|tmo):$/)
			ev = substr($i, 1, length($i) - 1)
		else if ($i ~ /^rq=/)
			rq = substr($i, 4)
		else if ($i ~ /^[0-9]+\.[0-9]+:$/)
			ts = substr($i, 1, length($i) - 1)
	}
	if (ev == "" || rq == "")
		next
	if (ev == "start") {
		h[rq] = ""
		open_[rq] = 1
	}
	h[rq] = h[rq] " " ev "@" ts
	if (ev == "done")
		open_[rq] = 0
}
END {
	for (r in open_)
		if (open_[r])
			print r ":" h[r]
}
