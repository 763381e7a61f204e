# shellcheck shell=bash
# Sourced by test/field/compare.sh (and the unit tests): reading a field
# run's log when the kernel stopped the run in an xfstests test (a WARN,
# which panic_on_warn makes a panic, an oops, a hung task), so that the
# run goes on in a fresh boot with the tests after that one.

# the tests the guest was to run, in ./check's order (its line
# "# field: xfstests <fs> list: <tests>")
field_list() { # log fs
	tr -d '\r' <"$1" | sed -n "s/^# field: xfstests $2 list: //p" | tail -n 1
}

# what each test of the list that started got, from xfstests' own lines as
# they came (a test's name, then its time, "[not run]", "[expunged]" or
# its failure): "<test> pass|fail|notrun", and the last test that started
# "crash" (the boot ended in it: it had no summary)
field_live() { # log list
	tr -d '\r' <"$1" | awk -v list="$2" '
		BEGIN { n = split(list, l, " "); for (i = 1; i <= n; i++) want[l[i]] = 1 }
		($1 in want) && !($1 in res) {
			t = $1; $1 = ""; r = "fail"
			if ($0 ~ /\[(not run|expunged)\]/) r = "notrun"
			else if ($0 ~ / [0-9]+s$/) r = "pass"
			res[t] = r; order[++k] = t
		}
		END {
			for (i = 1; i < k; i++) print order[i], res[order[i]]
			if (k) print order[k], "crash"
		}'
}

# the tests of the list after one of them, comma-separated (empty at the end)
field_after() { # list test
	echo "$1" | tr ' ' '\n' | awk -v t="$2" 'seen { print } $0 == t { seen = 1 }' | paste -sd, -
}

# why the boot ended: the first bad line of its kernel log (run.sh's
# vm.dmesg line, without its time), else run.sh's vm.boot line (a timeout)
field_why() { # log
	local w
	w=$(tr -d '\r' <"$1" | sed -n 's/^not ok vm.dmesg - the kernel log is clean: clean vs "\[ *[0-9.]*\] \(.*\)"$/\1/p')
	[ -n "$w" ] || w=$(tr -d '\r' <"$1" | sed -n 's/^not ok vm.boot - //p')
	echo "${w:-no reason in the log}" | head -n 1
}

# the VM run's output folder (run.sh's "# vm-check: ... output in DIR")
field_outdir() { # log
	tr -d '\r' <"$1" | sed -n 's/^# vm-check: .*, output in //p' | head -n 1
}

# pass/fail/not run counts of a results file ("<test> <result>" lines; a
# crash counts as failed)
field_count() { # file
	printf '%s/%s/%s' "$(grep -c ' pass$' "$1")" "$(grep -cE ' (fail|crash)$' "$1")" \
		"$(grep -c ' notrun$' "$1")"
}

# the tests that make a filesystem fail: passed stock and failed or crashed
# with the module, or crashed with the module and not stock (the joined
# "<test> <stock> <module>" lines)
field_worse() { # joined file
	awk '($2 == "pass" && ($3 == "fail" || $3 == "crash")) || ($3 == "crash" && $2 != "crash") { print $1 }' "$1"
}
