#!/bin/bash
# Host unit tests of nowait-aio-stat against a fake /sys/kernel/nowait_aio
# made in a temp dir (NOWAIT_AIO_SYSFS), and a fake kernel release
# (NOWAIT_AIO_RELEASE) for the not-loaded and native cases.
# Prints "ok unit.stat.<name>" / "not ok unit.stat.<name>: ..." per test and
# "N passed, N failed".
#
#   test/unit/stat_test.sh [--binary FILE] [--no-promtool]
#
# --binary FILE tests that binary (the package builds do); otherwise the
# tool is built from tools/ into the temp dir.  --no-promtool: without
# promtool, the awk lint of the Prometheus output is all.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_prefix=unit.stat.
. "$top/test/unit/t.sh"
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env stat_test.sh
stat_bin=$tmp/nowait-aio-stat given=0 no_promtool=0
while [ $# -gt 0 ]; do
	case $1 in
	--binary) stat_bin=${2:?--binary FILE}; given=1; shift 2 ;;
	--no-promtool) no_promtool=1; shift ;;
	*) echo "usage: stat_test.sh [--binary FILE] [--no-promtool]" >&2; exit 2 ;;
	esac
done
build() {
	[ $given = 1 ] && { test -x "$stat_bin"; return; }
	${CC:-cc} -O2 -Wall -Wextra -Werror -I"$top/include" -o "$stat_bin" \
		"$top/tools/nowait-aio-stat.c"
}
t builds build
if [ ! -x "$stat_bin" ]; then
	echo "$np passed, $nf failed"
	exit 1
fi

# a fake sysfs directory as the module lays it out (README: Knobs)
fake() { # dir
	local d=$1 f
	rm -rf "$d"
	mkdir -p "$d"
	for f in enabled lock pagecache alloc congestion; do echo 1 >"$d/$f"; done
	echo 0 >"$d/fault_inject"
	echo 10000 >"$d/hook_idle_ms"
	echo 1000 >"$d/accepted"
	echo 11 >"$d/eagain_lock"
	echo 22 >"$d/eagain_pagecache"
	echo 33 >"$d/eagain_alloc"
	echo 44 >"$d/eagain_congestion"
	echo 5 >"$d/eagain_injected"
	echo 8 >"$d/eagain_warmup"
	echo 6 >"$d/refused_eopnotsupp"
	echo 7 >"$d/refused_einval"
	cat >"$d/features" <<'EOF'
hook do_io_submit live
hook aio_write standby
hook blk_mq_get_request off: not needed (primary hook point present)
demand standby installs 3 last_install_us 10234
fs ext4 live
fs xfs waiting for xfs.ko
check lock on
check pagecache on
check alloc on
check congestion on
EOF
}
S=$tmp/sys
run() { NOWAIT_AIO_SYSFS=$S NOWAIT_AIO_RELEASE=${REL:-4.12.0} "$stat_bin" "$@"; }
# field N (1-based) of the last line of a file
field() { tail -n 1 "$1" | awk -v n="$2" '{ print $n }'; }

once() {
	fake "$S"
	run -1 >"$tmp/o" || return 1
	[ "$(wc -l <"$tmp/o")" = 3 ] || return 1
	grep -q 'totals since load' "$tmp/o" &&
	head -n 2 "$tmp/o" | tail -n 1 | grep -qE '^en +hooks +accepted +eagain +lock +pcache +alloc +congest +inject +warmup +notsup +inval$' &&
	# en hooks accepted eagain(=11+22+33+44+5+8) lock pcache alloc congest inject warmup notsup inval
	[ "$(tail -n 1 "$tmp/o" | tr -s ' ')" = " 1 standby 1000 123 11 22 33 44 5 8 6 7" ] || { cat "$tmp/o"; return 1; }
}
t once-totals once

json() {
	fake "$S"
	echo 0 >"$S/enabled"
	echo 7 >"$S/fault_inject"
	run --json >"$tmp/j" || return 1
	[ "$(wc -l <"$tmp/j")" = 1 ] || return 1
	if command -v python3 >/dev/null; then
		python3 - "$tmp/j" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
want = {"kernel": "4.12.0", "enabled": 0, "lock": 1, "pagecache": 1, "alloc": 1,
        "congestion": 1, "fault_inject": 7, "hook_idle_ms": 10000,
        "demand": "standby", "demand_installs": 3, "last_install_us": 10234,
        "accepted": 1000, "eagain_lock": 11, "eagain_pagecache": 22,
        "eagain_alloc": 33, "eagain_congestion": 44, "eagain_injected": 5,
        "eagain_warmup": 8, "refused_eopnotsupp": 6, "refused_einval": 7,
        "eagain": 123}
for k, v in want.items():
    assert d[k] == v, (k, d.get(k), v)
assert d["sysfs"].endswith("/sys"), d["sysfs"]
assert d["features"][0] == "hook do_io_submit live", d["features"]
assert "fs xfs waiting for xfs.ko" in d["features"]
assert len(d["features"]) == 10, d["features"]
EOF
	else
		grep -q '"accepted": 1000' "$tmp/j" && grep -q '"demand": "standby"' "$tmp/j" || return 1
	fi
}
t json-object json

json_escape() {
	fake "$S"
	printf 'hook x off: a "quoted" \\ reason\tTAB\n' >"$S/features"
	run --json >"$tmp/j" || return 1
	grep -qF '"hook x off: a \"quoted\" \\ reason\tTAB"' "$tmp/j" &&
	grep -q '"demand": null' "$tmp/j" || { cat "$tmp/j"; return 1; }
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j"
	fi
}
t json-escapes-and-no-demand json_escape

# rates: the counters grow by known amounts inside the first interval
rates() {
	fake "$S"
	run -i 1 2 >"$tmp/r" &
	local pid=$!
	sleep 0.4
	echo 2000 >"$S/accepted"	# +1000
	echo 311 >"$S/eagain_lock"	# +300
	echo 222 >"$S/eagain_pagecache"	# +200
	echo 133 >"$S/eagain_alloc"	# +100
	echo 94 >"$S/eagain_congestion"	# +50
	echo 15 >"$S/eagain_injected"	# +10
	echo 48 >"$S/eagain_warmup"	# +40
	echo 26 >"$S/refused_eopnotsupp"	# +20
	echo 37 >"$S/refused_einval"	# +30
	sed -i 's/^demand standby installs 3/demand live installs 4/' "$S/features"
	wait $pid || return 1
	[ "$(wc -l <"$tmp/r")" = 4 ] || { cat "$tmp/r"; return 1; }
	grep -q 'per second' "$tmp/r" || return 1
	# the interval takes 1 s and a little: each rate is its delta, or
	# somewhat below it (a late wake-up on a loaded machine)
	sed -n 3p "$tmp/r" | awk '
		function near(v, want) { return v <= want && v >= want * 0.7 }
		!($1 == 1 && $2 == "live" && near($3, 1000) && near($4, 700) &&
		  near($5, 300) && near($6, 200) && near($7, 100) && near($8, 50) &&
		  near($9, 10) && near($10, 40) && near($11, 20) &&
		  near($12, 30)) { exit 1 }' ||
		{ cat "$tmp/r"; return 1; }
	# nothing moved in the second interval
	[ "$(sed -n 4p "$tmp/r" | tr -s ' ')" = " 1 live 0 0 0 0 0 0 0 0 0 0" ] || { cat "$tmp/r"; return 1; }
}
t rates-per-second rates

# a reload resets the counters: what they show then was counted since
reset() {
	fake "$S"
	echo 5000 >"$S/accepted"
	run -i 1 1 >"$tmp/r" &
	local pid=$!
	sleep 0.4
	echo 100 >"$S/accepted"
	wait $pid || return 1
	field "$tmp/r" 3 | awk '{ exit !($1 <= 100 && $1 >= 70) }' || { cat "$tmp/r"; return 1; }
}
t counter-reset-after-reload reset

header() {
	fake "$S"
	run -i 0.01 41 >"$tmp/h" || return 1
	[ "$(grep -c '^-state----' "$tmp/h")" = 3 ] &&
	[ "$(grep -c '^en ' "$tmp/h")" = 3 ] &&
	[ "$(grep -cE '^ +[01] ' "$tmp/h")" = 41 ] &&
	# a header before line 1, 21 and 41
	[ "$(grep -n '^en ' "$tmp/h" | cut -d: -f1 | tr '\n' ' ')" = "2 24 46 " ] || { cat "$tmp/h"; return 1; }
}
t header-every-20-lines header

state() {
	fake "$S"
	echo 0 >"$S/enabled"
	grep -v '^demand ' "$S/features" >"$tmp/f" && cp "$tmp/f" "$S/features"
	run -1 >"$tmp/o" || return 1
	[ "$(field "$tmp/o" 1)" = 0 ] && [ "$(field "$tmp/o" 2)" = - ] || { cat "$tmp/o"; return 1; }
}
t state-disabled-no-demand-line state

notloaded() {
	local rc
	NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=4.12.0 "$stat_bin" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$tmp/o" ] && grep -q 'nowait_aio module is not loaded' "$tmp/e" &&
		grep -q 'modprobe nowait_aio' "$tmp/e" || { echo "rc=$rc"; cat "$tmp/o" "$tmp/e"; return 1; }
	for a in -1 --json; do
		NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=4.9.337 "$stat_bin" $a >/dev/null 2>&1
		[ $? = 2 ] || return 1
	done
	NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=4.4.220-1-generic "$stat_bin" -1 >/dev/null 2>&1
	[ $? = 2 ]
}
t not-loaded-exit-2 notloaded

native() {
	local r rc
	for r in 4.13.0 4.14.67 5.10.0-28-amd64 6.1.0-18-amd64; do
		NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=$r "$stat_bin" >"$tmp/o" 2>"$tmp/e"
		rc=$?
		[ $rc = 3 ] && [ ! -s "$tmp/o" ] && grep -q "native: kernel $r has RWF_NOWAIT" "$tmp/e" ||
			{ echo "$r rc=$rc"; cat "$tmp/e"; return 1; }
	done
	# the running kernel's release when not overridden (this host's)
	r=$(uname -r)
	NOWAIT_AIO_SYSFS=$tmp/none "$stat_bin" --json >/dev/null 2>"$tmp/e"
	rc=$?
	if nw_kver_native "$r"; then
		[ $rc = 3 ] && grep -q "kernel $r" "$tmp/e"
	else
		[ $rc = 2 ]
	fi
}
t native-exit-3 native

# the JSON checks: python3 when there is one (json.load), else a grep of
# the keys the case is about
json_ok() { # file
	[ "$(wc -l <"$1")" = 1 ] || { echo "not one line on stdout: [$(cat "$1")]"; return 1; }
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; json.load(sys.stdin)' <"$1" || { cat "$1"; return 1; }
	else
		grep -q '^{.*}$' "$1" || { cat "$1"; return 1; }
	fi
}
# key and JSON value, as the tool writes them
json_has() { # file key value
	grep -qF "\"$2\": $3" "$1" || { echo "no \"$2\": $3 in:"; cat "$1"; return 1; }
}

# --json on a kernel with RWF_NOWAIT natively: one object that says so
# (with the loaded case's keys, null), besides the message and status 3
json_native() {
	local r rc k
	for r in 4.13.0 4.14.0 6.1.0-18-amd64; do
		NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=$r "$stat_bin" --json >"$tmp/j" 2>"$tmp/e"
		rc=$?
		[ $rc = 3 ] && grep -q "native: kernel $r" "$tmp/e" || { echo "$r rc=$rc"; cat "$tmp/e"; return 1; }
		json_ok "$tmp/j" || return 1
		json_has "$tmp/j" kernel "\"$r\"" && json_has "$tmp/j" module '"not-loaded"' &&
			json_has "$tmp/j" native_nowait true && json_has "$tmp/j" accepted null &&
			json_has "$tmp/j" features null || return 1
		grep -q '"message": "kernel [^"]* has RWF_NOWAIT natively' "$tmp/j" || { cat "$tmp/j"; return 1; }
	done
	if command -v python3 >/dev/null; then
		python3 - "$tmp/j" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("enabled", "hook_idle_ms", "demand", "eagain_warmup", "refused_einval", "eagain"):
    assert k in d and d[k] is None, (k, d.get(k))
EOF
	fi
	# the host's own kernel when not overridden, native or not
	r=$(uname -r)
	NOWAIT_AIO_SYSFS=$tmp/none "$stat_bin" --json >"$tmp/j" 2>/dev/null
	json_ok "$tmp/j" && json_has "$tmp/j" kernel "\"$r\"" || return 1
	if nw_kver_native "$r"; then k=true; else k=false; fi
	json_has "$tmp/j" native_nowait $k
}
t json-native-prints-object json_native

# --json where the module is needed and not loaded: an object, status 2
json_notloaded() {
	local rc
	NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=4.12.0 "$stat_bin" --json >"$tmp/j" 2>"$tmp/e"
	rc=$?
	[ $rc = 2 ] && grep -q 'not loaded' "$tmp/e" || { echo "rc=$rc"; cat "$tmp/e"; return 1; }
	json_ok "$tmp/j" && json_has "$tmp/j" module '"not-loaded"' &&
		json_has "$tmp/j" native_nowait false && json_has "$tmp/j" eagain null &&
		grep -q '"message": "the nowait_aio module is not loaded .*modprobe nowait_aio"' "$tmp/j" ||
		{ cat "$tmp/j"; return 1; }
}
t json-not-loaded-prints-object json_notloaded

# the loaded case's object has the same three keys
json_loaded() {
	fake "$S"
	run --json >"$tmp/j" || return 1
	json_ok "$tmp/j" && json_has "$tmp/j" module '"loaded"' &&
		json_has "$tmp/j" native_nowait false && json_has "$tmp/j" message null
}
t json-loaded-module-keys json_loaded

unloaded() {
	local rc
	fake "$S"
	run -i 0.2 >"$tmp/o" 2>"$tmp/e" &
	local pid=$!
	sleep 0.5
	rm -rf "$S"
	wait $pid
	rc=$?
	[ $rc = 2 ] && grep -q 'was unloaded' "$tmp/e" || { echo "rc=$rc"; cat "$tmp/e"; return 1; }
}
t unloaded-while-running-exit-2 unloaded

badvalue() {
	local rc
	fake "$S"
	echo garbage >"$S/eagain_alloc"
	run -1 >/dev/null 2>"$tmp/e"
	rc=$?
	[ $rc = 1 ] && grep -q 'eagain_alloc: not a number' "$tmp/e" || { echo "rc=$rc"; cat "$tmp/e"; return 1; }
	fake "$S"
	rm "$S/refused_einval"
	run --json >/dev/null 2>"$tmp/e"
	rc=$?
	[ $rc = 1 ] && grep -q 'refused_einval: No such file' "$tmp/e" || { echo "rc=$rc"; cat "$tmp/e"; return 1; }
}
t unreadable-counter-exit-1 badvalue

usage() {
	local a
	fake "$S"
	run --help | grep -q '^usage: nowait-aio-stat' || return 1
	for a in "-i 0" "-i abc" "-i -1" "-i 0.001" "-1 3" "--json 3" "-1 -i 2" "--json -i 2" "0" "3 4" "-x" "-- -3"; do
		# shellcheck disable=SC2086
		run $a >/dev/null 2>&1
		[ $? = 1 ] || { echo "args: $a"; return 1; }
	done
}
t usage-errors-exit-1 usage

# a usage error says what is wrong on stderr (then the synopsis), status 1
# as the manual page says, nothing on stdout
stray() {
	local a want rc
	fake "$S"
	while IFS='|' read -r a want; do
		# shellcheck disable=SC2086
		run $a >"$tmp/o" 2>"$tmp/e"
		rc=$?
		[ $rc = 1 ] && [ ! -s "$tmp/o" ] &&
			head -n 1 "$tmp/e" | grep -qF "nowait-aio-stat: $want" &&
			grep -q '^usage: nowait-aio-stat' "$tmp/e" ||
			{ echo "args '$a': rc=$rc, want '$want':"; cat "$tmp/o" "$tmp/e"; return 1; }
	done <<'EOF'
abc|invalid count 'abc'
0|invalid count '0'
-- -3|invalid count '-3'
1 2|unexpected argument '2'
3 4 5|unexpected argument '4'
-1 3|unexpected argument '3'
--json 3|unexpected argument '3'
--prometheus 3|unexpected argument '3'
-i abc|invalid interval 'abc'
-i 0|invalid interval '0'
-1 -i 2|-i cannot be combined with -1
--json -i 2|-i cannot be combined with --json
--prometheus -i 2|-i cannot be combined with --prometheus
--json --prometheus|--json and --prometheus cannot be combined
EOF
	# the manual page gives status 1 to usage errors
	sed -n '/^\.SH EXIT STATUS/,/^\.SH ENV/p' "$top/man/nowait-aio-stat.8" |
		grep -A2 '^\.B 1$' | grep -q 'usage error' ||
		{ echo "nowait-aio-stat(8): status 1 is not the usage error"; return 1; }
}
t usage-errors-say-what stray

# --- --prometheus ---
# promtool (Debian's package prometheus) lints the exposition; without it
# these tests fail unless --no-promtool (then the awk lint below
# is all)
promtool_check() { # file
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" || { cat "$1"; return 1; }
	elif [ "$no_promtool" != 1 ]; then
		echo "promtool not found: install the Debian package prometheus (/usr/bin/promtool), or run stat_test.sh --no-promtool to test without it"
		return 1
	fi
}
# the text format 0.0.4 as node_exporter reads it: each sample's family
# has its HELP and TYPE lines, well-formed names and labels, counters end
# in _total, one value, no sample twice
prom_lint() { # file
	awk '
	/^# HELP / { help[$3] = 1; next }
	/^# TYPE / { type[$3] = $4; if ($4 != "counter" && $4 != "gauge") { print "type: " $0; bad = 1 }; next }
	/^#/ { print "comment: " $0; bad = 1; next }
	{
		name = $1; sub(/\{.*/, "", name)
		if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) { print "name: " $0; bad = 1 }
		if (!(name in help) || !(name in type)) { print "no HELP or TYPE: " $0; bad = 1 }
		if (type[name] == "counter" && name !~ /_total$/) { print "counter not _total: " $0; bad = 1 }
		if ($1 ~ /\{/ && $1 !~ /^[^{]+\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\}$/) { print "labels: " $0; bad = 1 }
		if (NF != 2 || $2 !~ /^[0-9]+(\.[0-9]+)?$/) { print "value: " $0; bad = 1 }
		if (seen[$1]++) { print "twice: " $0; bad = 1 }
		n++
	}
	END { if (!n) { print "no sample"; bad = 1 }; exit bad }' "$1" || { cat "$1"; return 1; }
}
prom_lines() { # file, lines that must be in it
	local f=$1 l
	shift
	for l; do
		grep -qxF "$l" "$f" || { echo "no line '$l' in:"; cat "$f"; return 1; }
	done
}

prom() {
	fake "$S"
	echo 0 >"$S/congestion"
	echo 250 >"$S/hook_idle_ms"
	echo 9 >"$S/eagain_newreason"	# a reason the tool does not know
	echo 1 >"$S/eagain_Bad-Name"	# not a label value
	run --prometheus >"$tmp/p" 2>"$tmp/e" || { cat "$tmp/e"; return 1; }
	[ ! -s "$tmp/e" ] || { cat "$tmp/e"; return 1; }
	prom_lint "$tmp/p" || return 1
	prom_lines "$tmp/p" \
		'# TYPE nowait_aio_module_loaded gauge' 'nowait_aio_module_loaded 1' \
		'# TYPE nowait_aio_native gauge' 'nowait_aio_native 0' \
		'nowait_aio_kernel_info{release="4.12.0"} 1' \
		'# TYPE nowait_aio_enabled gauge' 'nowait_aio_enabled 1' \
		'# TYPE nowait_aio_check_enabled gauge' \
		'nowait_aio_check_enabled{check="lock"} 1' \
		'nowait_aio_check_enabled{check="pagecache"} 1' \
		'nowait_aio_check_enabled{check="alloc"} 1' \
		'nowait_aio_check_enabled{check="congestion"} 0' \
		'nowait_aio_fault_inject 0' 'nowait_aio_hook_idle_seconds 0.250' \
		'nowait_aio_hooks_live 0' 'nowait_aio_hook_installs_total 3' \
		'nowait_aio_hook_last_install_seconds 0.010234' \
		'# TYPE nowait_aio_requests_total counter' \
		'nowait_aio_requests_total{result="accepted"} 1000' \
		'# TYPE nowait_aio_eagain_total counter' \
		'nowait_aio_eagain_total{reason="lock"} 11' \
		'nowait_aio_eagain_total{reason="pagecache"} 22' \
		'nowait_aio_eagain_total{reason="alloc"} 33' \
		'nowait_aio_eagain_total{reason="congestion"} 44' \
		'nowait_aio_eagain_total{reason="injected"} 5' \
		'nowait_aio_eagain_total{reason="warmup"} 8' \
		'nowait_aio_eagain_total{reason="newreason"} 9' \
		'# TYPE nowait_aio_refused_total counter' \
		'nowait_aio_refused_total{errno="EOPNOTSUPP"} 6' \
		'nowait_aio_refused_total{errno="EINVAL"} 7' || return 1
	[ "$(grep -c '^nowait_aio_eagain_total' "$tmp/p")" = 7 ] || { cat "$tmp/p"; return 1; }
	# without a demand line, no hook metrics
	fake "$S"
	grep -v '^demand ' "$S/features" >"$tmp/f" && cp "$tmp/f" "$S/features"
	run --prometheus >"$tmp/p" && prom_lint "$tmp/p" && ! grep -q 'hook_installs\|hooks_live' "$tmp/p"
}
t prometheus-counters-and-knobs prom

prom_promtool() {
	fake "$S"
	run --prometheus >"$tmp/p" || return 1
	promtool_check "$tmp/p"
}
t prometheus-passes-promtool prom_promtool

# not needed, or needed and missing: status 0 (so that `&& mv` publishes
# it), nothing on stderr, no counters, loaded 0 and native 1 or 0
prom_absent() {
	local r n rc
	for r in 4.14.0:1 6.1.0-18-amd64:1 4.12.0:0 4.9.337:0; do
		n=${r##*:} r=${r%:*}
		NOWAIT_AIO_SYSFS=$tmp/none NOWAIT_AIO_RELEASE=$r "$stat_bin" --prometheus >"$tmp/p" 2>"$tmp/e"
		rc=$?
		[ $rc = 0 ] && [ ! -s "$tmp/e" ] || { echo "$r rc=$rc"; cat "$tmp/e"; return 1; }
		prom_lint "$tmp/p" && promtool_check "$tmp/p" &&
			prom_lines "$tmp/p" 'nowait_aio_module_loaded 0' "nowait_aio_native $n" \
				"nowait_aio_kernel_info{release=\"$r\"} 1" || return 1
		[ "$(grep -vc '^#' "$tmp/p")" = 3 ] || { cat "$tmp/p"; return 1; }
	done
}
t prometheus-native-and-not-loaded prom_absent

# a file it cannot read: status 1, a message, and nothing on stdout (no
# half exposition for the textfile collector)
prom_error() {
	local f rc
	for f in eagain_warmup eagain_newreason; do
		fake "$S"
		echo garbage >"$S/$f"
		run --prometheus >"$tmp/p" 2>"$tmp/e"
		rc=$?
		[ $rc = 1 ] && [ ! -s "$tmp/p" ] && grep -q "$f: not a number" "$tmp/e" ||
			{ echo "$f: rc=$rc"; cat "$tmp/p" "$tmp/e"; return 1; }
	done
}
t prometheus-read-error-writes-nothing prom_error

echo "$np passed, $nf failed"
[ "$nf" -eq 0 ]
