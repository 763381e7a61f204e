#!/bin/bash
# Host unit tests of nowait-aio-probe's command line and output on the
# host's own kernel: options, what is not a file or device, a file the
# caller may only read, and the order of results and errors.
# Prints "ok unit.probe.<name>" / "not ok unit.probe.<name>: ..." per test
# and "N passed, N failed".
#
#   test/unit/probe_test.sh [--binary FILE]
#
# --binary FILE tests that binary; otherwise the tool is built from tools/
# into the temp dir.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_prefix=unit.probe.
. "$top/test/unit/t.sh"

# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env probe_test.sh
bin=$tmp/nowait-aio-probe given=0
case ${1:-} in
--binary) bin=${2:?--binary FILE}; given=1 ;;
'') ;;
*) echo "usage: probe_test.sh [--binary FILE]" >&2; exit 2 ;;
esac
build() {
	[ $given = 1 ] && { test -x "$bin"; return; }
	${CC:-cc} -O2 -Wall -Wextra -Werror -I"$top/include" \
		-DNW_VERSION="\"$(cat "$top/VERSION")\"" -o "$bin" "$top/tools/nowait-aio-probe.c"
}
t builds build
if [ ! -x "$bin" ]; then
	echo "$np passed, $nf failed"
	exit 1
fi

# --version and --help answer on stdout with status 0 (no path is probed)
version() { [ "$("$bin" --version)" = "nowait-aio-probe $(cat "$top/VERSION")" ]; }
t version version
help() { "$bin" --help | grep -q '^usage: nowait-aio-probe'; }
t help help
# an unknown option is a usage error (status 2) that names it, not a path
bogus() {
	local e rc
	e=$("$bin" --bogus 2>&1 >/dev/null); rc=$?
	echo "status $rc: $e"
	[ $rc = 2 ] && echo "$e" | grep -q "unknown option '--bogus'"
}
t unknown-option bogus
# a path that starts with '-' goes after --
dashdash() {
	local e rc
	e=$(cd "$tmp" && "$bin" -- -nonexistent 2>&1); rc=$?
	echo "status $rc: $e"
	[ $rc = 2 ] && echo "$e" | grep -q -- '-nonexistent: No such file or directory'
}
t dashdash dashdash

# a character device or a FIFO is not a file with O_DIRECT: say so
mkfifo "$tmp/fifo"
notfile() { # path
	local o rc
	o=$("$bin" "$1" 2>&1); rc=$?
	echo "status $rc: $o"
	[ $rc = 1 ] && [ "$o" = "$1: none: not a regular file or block device, and RWF_NOWAIT covers direct I/O to those only" ]
}
t char-device notfile /dev/null
t fifo notfile "$tmp/fifo"

# a file the caller may only read: probed read-only (the same answer as
# root's read-write probe, saying the write path was not probed), not
# "Permission denied".  The file sits on a disk filesystem (beside the
# checkout, or in /var/tmp when user nobody cannot reach the checkout).
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
d=
for base in "$top" /var/tmp; do
	d=$(mktemp -d "$base/.probe-test.XXXXXX") || continue
	trap 'rm -rf "$tmp" "$d"' EXIT
	chmod 755 "$d"
	head -c 8192 /dev/zero >"$d/ro.dat"
	chmod 644 "$d/ro.dat"
	nobody test -r "$d/ro.dat" 2>/dev/null && break
	rm -rf "$d"
done
readonly_file() {
	local root user rc
	root=$("$bin" "$d/ro.dat" 2>&1)
	user=$(nobody "$bin" "$d/ro.dat" 2>&1); rc=$?
	echo "root: $root; nobody (status $rc): $user"
	case $root in
	*": none: "*) [ "$user" = "$root" ] ;;
	*) [ "$user" = "${root%)}; read-only: writes not probed)" ] ;;
	esac
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	t read-only-file readonly_file
else
	echo "not ok unit.probe.read-only-file: needs root and setpriv to probe as another user"
	nf=$((nf + 1))
fi

# results and errors in the order of the paths when both go to one file
order() {
	"$bin" /dev/null "$tmp/missing" >"$tmp/both" 2>&1
	cat "$tmp/both"
	head -n 1 "$tmp/both" | grep -q '^/dev/null: none: ' &&
		tail -n 1 "$tmp/both" | grep -q 'missing: No such file or directory'
}
t output-order order

echo "$np passed, $nf failed"
[ "$nf" -eq 0 ]
