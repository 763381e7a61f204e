#!/bin/bash
# xfstests or LTP on one kernel, stock and with the module, one filesystem
# at a time; prints a comparison line per filesystem:
#   xfstests <fs>: stock <p>/<f>/<n>, module <p>/<f>/<n>, differ: <tests>
#   ltp <fs>: stock <p>/<f>/<n>, module <p>/<f>/<n>, differ: <tests>
# (passed/failed/not run; "differ" lists every test whose result is not
# the same in both runs, "none" when there is none; a test in which the
# kernel ended the boot, "crash", counts as failed, and the run goes on in
# a new boot with the tests after it: field_run below).
#
#   test/field/compare.sh [--suite xfstests|ltp] [--out DIR] KVER FS[,FS...] TESTS
#
# --out DIR: where the VM runs' folders go (test/vm/out).
# TESTS as xfstests' ./check takes them, comma-separated (generic/198,
# -g,aio), or LTP's tags or patterns of them (io_submit*,ADSP001; all)
# (test/field/guest.sh).  The guest root must be built (test/field/root.sh).  Last line
# "N passed, N failed, 0 skipped", a filesystem counted passed when both
# its runs ran to their end, with a clean kernel log (run.sh's vm.* checks)
# but for the boots that ended in a test, and no test passes stock and
# fails with the module or ends a boot with the module only; exit
# status 0 only when none failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env compare.sh
suite=xfstests vmout=
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=${2:-}; shift 2 ;;
	--out) vmout=${2:?--out DIR}; shift 2 ;;
	*) break ;;
	esac
done
case $suite in xfstests|ltp) ;; *) echo "compare.sh: --suite xfstests or ltp, not '$suite'" >&2; exit 2 ;; esac
[ $# -eq 3 ] || { echo "usage: compare.sh [--suite xfstests|ltp] [--out DIR] KVER FS[,FS...] TESTS" >&2; exit 2; }
kver=$1 tests=$3
# shellcheck source=test/field/lib.sh
. "$top/test/field/lib.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
who() { [ "$1" = 1 ] && echo module || echo stock; }

# one boot: run.sh's lines in $out/boot.log, its ok/not ok lines printed
field_boot() { # fs m tests
	bash "$top/test/vm/run.sh" --profile field --arg "$suite:$1:$3" \
		--kernel "$kver" "$([ "$2" = 1 ] && echo --module || echo --stock)" \
		${vmout:+--out "$vmout"} >"$out/boot.log" 2>&1
	tr -d '\r' <"$out/boot.log" | grep -E '^(ok|not ok) ' | sed "s/^/# [$(who "$2")] /"
	# its disk images go (the logs stay): a few GB a boot, and a long
	# selection boots dozens of times
	local d
	d=$(field_outdir "$out/boot.log")
	[ -z "$d" ] || rm -f "$d"/*.img
}

# one filesystem's run, stock (m 0) or with the module (m 1): the results
# in $out/res-FS-M ("<test> pass|fail|notrun|crash"); status 0 when it ran
# to its end with a clean kernel log. A boot that the kernel ended in an
# xfstests test (a WARN under panic_on_warn, an oops, a hung task) counts
# that test "crash" and the run goes on in a fresh boot with the tests
# after it (up to 10 boots), as xfstests' own check would go on past a
# test whose kernel log it finds bad
field_run() { # fs m
	local fs=$1 m=$2 sel=$tests boot list t d
	: >"$out/res-$fs-$m"
	for boot in 1 2 3 4 5 6 7 8 9 10; do
		field_boot "$fs" "$m" "$sel"
		# (the guest's serial lines end in CR LF)
		if tr -d '\r' <"$out/boot.log" | grep -q "^ok field.$suite.$fs "; then
			tr -d '\r' <"$out/boot.log" |
				awk -v s="$suite" -v fs="$fs" '$1 == "#" && $2 == s && $3 == fs && NF == 5 { print $4, $5 }' \
					>>"$out/res-$fs-$m"
			! tr -d '\r' <"$out/boot.log" | grep -q '^not ok '
			return
		fi
		[ "$suite" = xfstests ] || return 1
		list=$(field_list "$out/boot.log" "$fs")
		field_live "$out/boot.log" "$list" >"$out/live"
		t=$(awk '$2 == "crash" { print $1 }' "$out/live")
		[ -n "$t" ] || return 1
		if grep -q "^$t " "$out/res-$fs-$m"; then
			echo "# [$(who "$m")] xfstests $fs $t ended boot $boot again: the run stops"
			return 1
		fi
		cat "$out/live" >>"$out/res-$fs-$m"
		echo "# [$(who "$m")] xfstests $fs $t ended boot $boot: $(field_why "$out/boot.log")"
		# its folder (kernel log, results) kept as DIR-boot<n>: the next
		# boot's run.sh takes the name
		d=$(field_outdir "$out/boot.log")
		[ -z "$d" ] || [ ! -d "$d" ] || { rm -rf "$d-boot$boot"; mv "$d" "$d-boot$boot"; }
		sel=$(field_after "$list" "$t")
		[ -n "$sel" ] || return 0
	done
	echo "# [$(who "$m")] xfstests $fs: more than 10 boots ended in a test, the rest not run"
	return 1
}

np=0 nf=0
for fs in $(echo "$2" | tr ',' ' '); do
	ok=1
	for m in 0 1; do
		field_run "$fs" "$m" || ok=0
		sort -o "$out/res-$fs-$m" "$out/res-$fs-$m"
	done
	join -a1 -a2 -e none -o 0,1.2,2.2 "$out/res-$fs-0" "$out/res-$fs-1" >"$out/joined"
	differ=$(awk '$2 != $3 { printf "%s%s(%s->%s)", n++ ? " " : "", $1, $2, $3 }' "$out/joined")
	echo "$suite $fs: stock $(field_count "$out/res-$fs-0"), module $(field_count "$out/res-$fs-1"), differ: ${differ:-none}"
	worse=$(field_worse "$out/joined" | paste -sd' ' -)
	[ -z "$worse" ] || { echo "# $suite $fs: worse with the module: $worse"; ok=0; }
	if [ $ok = 1 ]; then np=$((np + 1)); else nf=$((nf + 1)); fi
done
echo "$np passed, $nf failed, 0 skipped"
[ $nf = 0 ]
