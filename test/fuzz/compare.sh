#!/bin/bash
# Compare two nwfuzz logs of the same seed, line by line.
#
#   test/fuzz/compare.sh MODULE_LOG NATIVE_LOG [MODULE_RELEASE]
#
# MODULE_RELEASE, the module run's kernel release (e.g. 4.9.337), lets a
# rule name a difference of that kernel's own plain paths.
#
# Operations are matched by number and compared on their result (what
# follows "=>"): io_submit's return and each event's res, or the
# preadv2/pwritev2 return.  A difference is "explained" when it matches one
# of the deliberate differences below (a later upstream fix the module
# ships, or 4.14 behaviour the module does not copy, each named); anything
# else is UNEXPLAINED.  File sizes and hashes at the end of each epoch are
# compared too: a difference there is explained when an explained operation
# of that epoch wrote on one side only.  Ends with
#   fuzz: <ops> ops, <d> divergences, <e> explained
set -u
mod=${1:?usage: compare.sh MODULE_LOG NATIVE_LOG}
nat=${2:?usage: compare.sh MODULE_LOG NATIVE_LOG [MODULE_RELEASE]}
mkv=${3:-}

awk -v nat="$nat" -v mkv="$mkv" '
function field(line, key,    m) {
	if (match(line, " " key "=[^ }]*")) {
		m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
		return m
	}
	return ""
}
function result(line) { sub(/.*=> /, "", line); return line }
function n_of(line,    a) { split(line, a, " "); return a[2] + 0 }
# the requests of an op line, one per {...}
function reqs(line, arr,    s, n) {
	s = line; sub(/ => .*/, "", s); n = 0
	while (match(s, /\{[^}]*\}/)) {
		arr[++n] = substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}
# results of an op line: for aio "submit=S res=a,b", else one value
function results(line, arr,    r, n, i, parts) {
	r = result(line)
	if (r ~ /^submit=/) {
		split(r, parts, " ")
		arr[0] = substr(parts[1], 8)
		n = split(substr(parts[2], 5), arr, ",")
		arr[0] = substr(parts[1], 8)
		return n
	}
	arr[0] = "-"
	arr[1] = r
	return 1
}
function is_write(q) { return q ~ /op=(1|8|-2) / }
function is_read(q) { return q ~ /op=(0|7|-1) / }
# the RWF_NOWAIT bit (8) of the hex flags of a request, in portable awk
function nowait(q,    f, d) {
	f = tolower(field(q, "fl")); sub(/^0x/, "", f)
	d = index("0123456789abcdef", substr(f, length(f), 1)) - 1
	return d >= 8
}
# the RWF_DSYNC (2) or RWF_SYNC (4) bit
function syncs(q,    f, d) {
	f = tolower(field(q, "fl")); sub(/^0x/, "", f)
	d = index("0123456789abcdef", substr(f, length(f), 1)) - 1
	return int(d / 2) % 4 != 0
}
function fd_of(q) { return q ~ /\/direct / ? "direct" : q ~ /\/buffered / ? "buffered" : q ~ /\/ro / ? "ro" : "special" }
function file_of(q,    m) { if (match(q, /\{op=[-0-9]+ [abc]\//)) return substr(q, RSTART + RLENGTH - 2, 1); return "" }
function lay(q) { return field(q, "L") }
function lay_all(line,    s, out) {
	s = line; out = ""
	while (match(s, / L=[a-z]*/)) { out = out substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) }
	return out
}
function off(q) { return field(q, "off") + 0 }
function len(q) { return field(q, "len") + 0 }
function segs(q) { return field(q, "seg") + 0 }
function unaligned(q) { return off(q) % 4096 != 0 || q ~ /buf=\+/ || (len(q) % 4096 != 0) || int(len(q) / segs(q)) % 4096 != 0 }

# Why might the module (m) and native 4.14 (n) differ for request q on fs?
# Returns "" when no rule applies.  "wrote" is set when one side wrote.
function explain(fs, q, m, n) {
	wrote = 0
	if (is_read(q) && nowait(q) && fd_of(q) == "buffered" && m == 0 && n == -11 && (lay(q) ~ /g|e/ || off(q) >= 4194304))
		return "NOWAIT buffered read at EOF: 4.14 says EAGAIN, later upstream 0 (6.1 verified)"
	if (is_read(q) && nowait(q) && fs == "btrfs" && fd_of(q) ~ /direct|ro/ && unaligned(q) && m == 0 && n == -11 && lay(q) ~ /g/)
		return "btrfs NOWAIT direct read it cannot align, starting past EOF: 4.14 finds a page a plain read left past EOF and says EAGAIN before btrfs declines; 6.1 declines first and its buffered read stops at EOF (0), as the module does"
	if (mkv ~ /^(3\.|4\.[0-6]\.)/ && is_write(q) && syncs(q) && fd_of(q) == "special" && m == -95)
		return "RWF_DSYNC/RWF_SYNC before 4.7 on a file the module does not hook: EOPNOTSUPP (no per-request sync in these kernels; README: Supported kernels)"
	if (mkv ~ /^(3\.|4\.[0-5]\.)/ && q ~ /op=-[12] / && m == -38) {
		wrote = is_write(q) && n > 0
		return "preadv2/pwritev2 before 4.6: ENOSYS (no such system calls; README: Supported kernels)"
	}
	if (mkv ~ /^4\.9\./ && is_read(q) && fd_of(q) == "direct" && lay(q) ~ /g/ && unaligned(q) && ((fs == "ext4" && m == 0 && n == -22) || (fs == "xfs" && m == -22 && n == 0)))
		return "direct read starting past EOF with segments or a buffer the device cannot take: 4.9 answers by its own plain path (ext4 0: the EOF test of its ext4_direct_IO_read(); XFS EINVAL: fs/direct-io.c tests alignment first), 4.14 the other way (ext4 EINVAL: fs/direct-io.c; XFS 0: iomap_dio_rw() tests EOF first); not a NOWAIT rule"
	if (mkv ~ /^3\./ && is_read(q) && fs == "xfs" && fd_of(q) ~ /direct|ro/ && lay(q) ~ /g/ && unaligned(q) && m == -22 && n == 0)
		return "XFS direct read starting past EOF with an offset, segments or a buffer the device cannot take: xfs_file_dio_aio_read() of 3.10 tests alignment first (EINVAL), iomap_dio_rw() of 4.14 EOF first (0); with or without NOWAIT, not a NOWAIT rule"
	if (is_write(q) && nowait(q) && fs == "xfs" && m == -11 && n > 0 && n < len(q))
		{ wrote = 1; return "XFS partial NOWAIT write: 4.14 writes part, then EAGAIN (fixed 5.10, 883a790a8440)" }
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -11 && n == len(q) && lay(q) ~ /h/)
		{ wrote = 1; return "btrfs NOWAIT write over a hole: 4.14 allocates (fixed 5.8, 260a63395f90)" }
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -11 && n == len(q) && lay(q) ~ /u/ && lay(q) ~ /w/ && file_of(q) ~ /[ab]/)
		{ wrote = 1; return "btrfs NOWAIT write over preallocated then written blocks of a file that COWs: 4.14 tests the first extent only and COWs the rest (fixed 5.8, 260a63395f90)" }
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -11 && n == -14 && lay(q) ~ /h/)
		return "btrfs NOWAIT write over a hole from a bad buffer: 4.14 goes ahead and faults; 5.8 (260a63395f90) and the module refuse first"
	# (a range that starts past EOF shows no extent in the btrfs FIEMAP of
	# 4.12 and 4.14, so the preallocation past EOF that every epoch makes
	# in files a and c, [256K, 320K), is named by its place)
	if (is_write(q) && nowait(q) && fs == "btrfs" && m > 0 && n == -11 && lay(q) ~ /e/ && (lay(q) ~ /[uw]/ || (file_of(q) ~ /[ac]/ && off(q) >= 262144 && off(q) + len(q) <= 327680)))
		{ wrote = 1; return "btrfs NOWAIT direct write past EOF over allocated blocks: 4.14 btrfs_direct_IO() says EAGAIN for any write that moves i_size (fixed 5.8, 4b1946284dd6)" }
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -14 && n == -11 && lay(q) ~ /e/ && (lay(q) ~ /[uw]/ || (file_of(q) ~ /[ac]/ && off(q) >= 262144 && off(q) + len(q) <= 327680)))
		return "btrfs NOWAIT direct write past EOF over allocated blocks from a bad buffer: 4.14 says EAGAIN for any write that moves i_size (fixed 5.8, 4b1946284dd6); 5.8 and the module go on and fault, nothing written"
	if (is_write(q) && nowait(q) && fs == "xfs" && m == -11 && (n > 0 || n == -22) && lay(q) ~ /g/)
		{ wrote = 1; return "XFS NOWAIT write past EOF needing zeroing: 4.14 zeroes first, then writes or says EINVAL (refused first since 5.12, 354be7e3b2ba)" }
	if (is_write(q) && nowait(q) && fs == "xfs" && m == -22 && n == -11 && file_of(q) ~ /a|b/)
		return "XFS NOWAIT write to a reflinked file from a buffer the device cannot take: 4.14 refuses the whole inode before it looks at the buffer (its FIXME); 6.1 maps the first, unshared block, then says EINVAL, as the module does"
	if (is_write(q) && nowait(q) && fs == "xfs" && m != -11 && n == -11 && file_of(q) ~ /a|b/ && lay(q) !~ /s/)
		{ wrote = 1; return "XFS NOWAIT write to unshared blocks of a reflinked file: 4.14 refuses the whole inode (its FIXME), later upstream only shared extents (6.1 verified)" }
	if (is_write(q) && nowait(q) && fs == "ext4" && m == -11 && n > 0 && unaligned(q) && lay(q) !~ /^w?c?n?$/)
		{ wrote = 1; return "ext4 unaligned async NOWAIT DIO: 4.14 skips its overwrite check and allocates (fixed 5.5, 378f32bab371)" }
	if (is_write(q) && nowait(q) && fs == "ext4" && m == -11 && n == -14 && unaligned(q) && lay(q) !~ /^w?c?n?$/)
		return "ext4 unaligned async NOWAIT DIO from a bad buffer: 4.14 skips its overwrite check and faults; 5.5 (378f32bab371) and the module refuse first, nothing written"
	if (is_write(q) && nowait(q) && (fs == "ext4" || fs == "btrfs") && m == len(q) && n == -11 && lay(q) ~ /n/)
		{ wrote = 1; return "NOWAIT direct write ending on a page edge, the next page cached: 4.14 tests one byte past the range (fixed 2019, \"mm/filemap: pass inclusive end_byte parameter to filemap_range_has_page\", Fixes: 6be96d3ad34a)" }
	if (is_write(q) && nowait(q) && (fs == "ext4" || fs == "btrfs") && m == -22 && n == -11 && lay(q) ~ /n/ && lay(q) !~ /c/)
		return "NOWAIT direct write ending on a page edge, the next page cached, from segments the device cannot take: 4.14 tests one byte past the range before the direct I/O alignment test (fixed 2019, \"mm/filemap: pass inclusive end_byte parameter to filemap_range_has_page\"); the module and later upstream say EINVAL, nothing written"
	if (is_read(q) && nowait(q) && fs == "btrfs" && fd_of(q) ~ /direct|ro/ && unaligned(q) && m == -14 && n == -11 && lay(q) ~ /c/)
		return "btrfs unaligned NOWAIT direct read of cached pages into a bad buffer: 4.14 says EAGAIN on finding them; later upstream copies them (6.1 verified with a good buffer: read.btrfs.dio-unaligned-cached), so the copy faults"
	if (is_read(q) && nowait(q) && fs == "btrfs" && fd_of(q) ~ /direct|ro/ && unaligned(q) && m > 0 && n == -11)
		return "btrfs unaligned NOWAIT direct read of cached pages: 4.14 finds them before btrfs falls back to buffered and says EAGAIN; later upstream returns them (6.1 verified: read.btrfs.dio-unaligned-cached)"
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -11 && n > 0 && unaligned(q))
		{ wrote = 1; return "btrfs unaligned NOWAIT DIO: 4.14 falls back to a buffered write that ignores NOWAIT; the module refuses (6.1 btrfs buffered writes honour NOWAIT)" }
	if (is_write(q) && nowait(q) && fs == "btrfs" && m == -11 && n == -14 && unaligned(q))
		return "btrfs unaligned NOWAIT DIO from a bad buffer: 4.14 falls back to a buffered write that faults; the module refuses first, nothing written"
	return ""
}

# The page cache of the range differs between the sides (the layouts differ
# only in c/n) after a plain misaligned btrfs direct write to the file in
# this epoch: btrfs writes it through the page cache, and
# invalidate_mapping_pages() then drops those pages or keeps them by timing
# (a page still in a per-CPU LRU batch has an extra reference).  Each side
# NOWAIT page-cache test follows its own cache: a direct request refused
# where pages are, a buffered read refused where they are not.  Any other
# cache difference stays UNEXPLAINED: it may be a module bug that left
# pages behind.
function cache_differs(qm, qn, m, n,    lm, ln, cm, cn) {
	lm = lay(qm); ln = lay(qn)
	if (!nowait(qm) || lm == ln)
		return ""
	cm = lm; cn = ln; gsub(/[cn]/, "", cm); gsub(/[cn]/, "", cn)
	if (cm != cn || (m != -11 && n != -11) || m == n)
		return ""
	if (fd_of(qm) == "buffered" ? (m == -11) == (lm !~ /c/) : (m == -11) == (lm ~ /[cn]/)) {
		# a write the other side refused wrote on one side only
		wrote = is_write(qm) && (m > 0) != (n > 0)
		return "the page cache differs after a plain misaligned btrfs direct write (kept or dropped by timing); each side refuses by its own cache"
	}
	return ""
}

# An explained write that wrote on one side only (wrote) leaves its range
# different there, data and page cache, for the rest of its epoch: a later
# request of that file whose range meets it may answer differently.
function mark_written(k, fs, q) {
	if (file_of(q) == "" || off(q) < 0)
		return
	W[int(k / 50) " " fs " " file_of(q)] = W[int(k / 50) " " fs " " file_of(q)] off(q) ":" off(q) + len(q) ":" k " "
}
function meets_written(k, fs, q,    r, n, i, a) {
	if (file_of(q) == "" || off(q) < 0)
		return ""
	n = split(W[int(k / 50) " " fs " " file_of(q)], r, " ")
	for (i = 1; i <= n; i++) {
		split(r[i], a, ":")
		if (off(q) < a[2] + 0 && off(q) + len(q) > a[1] + 0)
			return "its range meets one that an explained write (op " a[3] ") wrote on one side only, earlier in the epoch"
	}
	return ""
}

# io_submit does not order the iocbs of one batch: a read of a file that an
# earlier iocb of the batch writes may run before or after that write.
function raced(Q, i,    j) {
	if (!is_read(Q[i]) || file_of(Q[i]) == "")
		return ""
	for (j = 1; j < i; j++)
		if (is_write(Q[j]) && file_of(Q[j]) == file_of(Q[i]))
			return "a read raced an earlier write to its file in the same io_submit batch (no order between iocbs)"
	return ""
}

# Same answer on both sides, but 4.14 changed the file before it answered
# EAGAIN: the later fixes make the module refuse first.
function silent(fs, q, m, n) {
	if (!(is_write(q) && nowait(q) && fs == "xfs" && m == -11 && n == -11))
		return ""
	if (lay(q) ~ /w/ && lay(q) ~ /h/)
		return "4.14 wrote the written part before its EAGAIN (fixed 5.10, 883a790a8440)"
	if (lay(q) ~ /g/)
		return "4.14 zeroed past EOF (and moved i_size) before its EAGAIN (fixed 5.12, 354be7e3b2ba)"
	return ""
}

BEGIN {
	while ((getline l < nat) > 0) {
		if (l ~ /^op /) N[n_of(l)] = l
		else if (l ~ /^epoch /) { split(l, a, " "); E[a[2] " " a[3] " " a[4]] = l }
	}
	ops = 0; div = 0; expl = 0
}
/^op / {
	ops++
	k = n_of($0)
	split($0, w, " ")
	nq = reqs($0, Q)
	for (i = 1; i <= nq; i++)
		if (w[3] == "btrfs" && is_write(Q[i]) && !nowait(Q[i]) && fd_of(Q[i]) ~ /direct|ro/ && unaligned(Q[i]))
			noise[int(k / 50) " " file_of(Q[i])] = k
	if (!(k in N)) { div++; printf "UNEXPLAINED op %d: missing in the native log\n", k; next }
	if (result($0) == result(N[k])) {
		split($0, w, " ")
		nq = reqs($0, Q)
		nm = results($0, MR)
		for (i = 1; i <= nq && i <= nm; i++) {
			e = silent(w[3], Q[i], MR[i] + 0, MR[i] + 0)
			if (e != "")
				touched[int(k / 50) " " w[3]] = "op " k ": " e
		}
		next
	}
	div++
	split($0, w, " "); fs = w[3]
	nq = reqs($0, Q)
	split("", MR); split("", NV)
	nm = results($0, MR); nn = results(N[k], NV)
	why = ""
	if (lay_all($0) != lay_all(N[k]) && ((int(k / 50) " " fs) in touched)) {
		expl++
		printf "explained op %d (%s): its file differs since an explained write earlier in the epoch\n", k, fs
		reason["file state differs since an explained write earlier in the epoch"]++
		next
	}
	# the module refused the first iocb of the batch, the kernel took it
	if (MR[0] + 0 < 0 && NV[0] + 0 > 0) {
		why = explain(fs, Q[1], MR[0] + 0, NV[1] + 0)
		if (why != "") touched[int(k / 50) " " fs] = "op " k ": " why
		if (why != "" && wrote) mark_written(k, fs, Q[1])
	}
	if (MR[0] == NV[0]) {
		reqs(N[k], NQ)
		for (i = 1; i <= nq && i <= nm; i++) {
			if (MR[i] == NV[i]) {
				# an agreeing iocb of a divergent batch may still
				# have changed the file on one side before it
				e = silent(fs, Q[i], MR[i] + 0, NV[i] + 0)
				if (e != "")
					touched[int(k / 50) " " fs] = "op " k ": " e
				continue
			}
			wrote = 0
			e = raced(Q, i)
			if (e == "" && fs == "btrfs" && ((int(k / 50) " " file_of(Q[i])) in noise))
				e = cache_differs(Q[i], NQ[i], MR[i] + 0, NV[i] + 0)
			if (e == "")
				e = explain(fs, Q[i], MR[i] + 0, NV[i] + 0)
			if (e == "")
				e = meets_written(k, fs, Q[i])
			if (e == "") { why = ""; break }
			why = why (why == "" ? "" : "; ") e
			if (wrote) {
				touched[int(k / 50) " " fs] = "op " k ": " e
				mark_written(k, fs, Q[i])
			}
		}
	}
	if (why != "") {
		expl++
		reason[why]++
		printf "explained op %d (%s): %s\n", k, fs, why
	} else {
		printf "UNEXPLAINED op %d\n  module: %s\n  native: %s\n", k, $0, N[k]
	}
}
/^epoch / {
	split($0, a, " ")
	key = a[2] " " a[3] " " a[4]
	if (!(key in E) || E[key] == $0) next
	div++
	if ((a[2] " " a[3]) in touched) {
		expl++
		printf "explained epoch %s %s file %s: follows %s\n", a[2], a[3], a[4], touched[a[2] " " a[3]]
		reason["a file differs after an explained operation of its epoch"]++
	} else {
		printf "UNEXPLAINED epoch %s %s file %s\n  module: %s\n  native: %s\n", a[2], a[3], a[4], $0, E[key]
	}
}
END {
	for (r in reason) printf "# %4d x %s\n", reason[r], r
	printf "fuzz: %d ops, %d divergences, %d explained\n", ops, div, expl
}
' "$mod"
