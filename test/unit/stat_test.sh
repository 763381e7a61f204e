#!/bin/bash
# Host unit tests of nowait-aio-stat against a fake /sys/kernel/nowait_aio
# made in a temp dir (NOWAIT_AIO_SYSFS), and a fake kernel release
# (NOWAIT_AIO_RELEASE) for the not-loaded and native cases.
# Prints "ok unit.stat.<name>" / "not ok unit.stat.<name>: ..." per test and
# "N passed, N failed".  NOWAIT_AIO_STAT=<binary> tests that binary (the
# package build does); otherwise the tool is built from tools/ into the
# temp dir.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_prefix=unit.stat.
. "$top/test/unit/t.sh"
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"

stat_bin=${NOWAIT_AIO_STAT:-$tmp/nowait-aio-stat}
build() {
	[ -n "${NOWAIT_AIO_STAT:-}" ] && { test -x "$stat_bin"; return; }
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

echo "$np passed, $nf failed"
[ "$nf" -eq 0 ]
