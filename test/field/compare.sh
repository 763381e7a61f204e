#!/bin/bash
# xfstests or LTP on one kernel, stock and with the module, one filesystem
# at a time; prints a comparison line per filesystem:
#   xfstests <fs>: stock <p>/<f>/<n>, module <p>/<f>/<n>, differ: <tests>
#   ltp <fs>: stock <p>/<f>/<n>, module <p>/<f>/<n>, differ: <tests>
# (passed/failed/not run; "differ" lists every test whose result is not
# the same in both runs, "none" when there is none).
#
#   test/field/compare.sh [--suite xfstests|ltp] [--out DIR] KVER FS[,FS...] TESTS
#
# --out DIR: where the VM runs' folders go (test/vm/out).
# TESTS as xfstests' ./check takes them, comma-separated (generic/198,
# -g,aio), or LTP's tags or patterns of them (io_submit*,ADSP001; all)
# (test/field/guest.sh).  The guest root must be built (test/field/root.sh).  Last line
# "N passed, N failed, 0 skipped", a filesystem counted passed when both
# its runs ran with a clean kernel log (run.sh's vm.* checks) and no test
# passes stock and fails with the module; exit
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
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
np=0 nf=0
for fs in $(echo "$2" | tr ',' ' '); do
	ok=1
	for m in 0 1; do
		bash "$top/test/vm/run.sh" --profile field --arg "$suite:$fs:$tests" \
			--kernel "$kver" "$([ $m = 1 ] && echo --module || echo --stock)" \
			${vmout:+--out "$vmout"} >"$out/run-$fs-$m.log" 2>&1
		tr -d '\r' <"$out/run-$fs-$m.log" | grep -E '^(ok|not ok) ' |
			sed "s/^/# [$([ $m = 1 ] && echo module || echo stock)] /"
		# the run itself: the suite ran, and the kernel log is clean
		tr -d '\r' <"$out/run-$fs-$m.log" | grep -q "^ok field.$suite.$fs " || ok=0
		tr -d '\r' <"$out/run-$fs-$m.log" | grep -q '^not ok ' && ok=0
		# (the guest's serial lines end in CR LF)
		tr -d '\r' <"$out/run-$fs-$m.log" |
			awk -v s="$suite" -v fs="$fs" '$1 == "#" && $2 == s && $3 == fs && NF == 5 { print $4, $5 }' |
			sort >"$out/res-$fs-$m"
	done
	count() { # file: p/f/n
		printf '%s/%s/%s' "$(grep -c ' pass$' "$1")" "$(grep -c ' fail$' "$1")" \
			"$(grep -c ' notrun$' "$1")"
	}
	differ=$(join -a1 -a2 -e none -o 0,1.2,2.2 "$out/res-$fs-0" "$out/res-$fs-1" |
		awk '$2 != $3 { printf "%s%s(%s->%s)", n++ ? " " : "", $1, $2, $3 }')
	echo "$suite $fs: stock $(count "$out/res-$fs-0"), module $(count "$out/res-$fs-1"), differ: ${differ:-none}"
	join "$out/res-$fs-0" "$out/res-$fs-1" | awk '$2 == "pass" && $3 == "fail"' | grep -q . && ok=0
	if [ $ok = 1 ]; then np=$((np + 1)); else nf=$((nf + 1)); fi
done
echo "$np passed, $nf failed, 0 skipped"
[ $nf = 0 ]
