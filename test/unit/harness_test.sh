# shellcheck shell=bash disable=SC2154
# Sourced by test/unit/run.sh (t, tmp, top from there): the harness's own
# pieces, test/lib.sh (kernel versions, SERIES, output folders, summary
# lines), the VM profiles, dkms.conf and the README against SERIES.
# shellcheck source=test/lib.sh
. "${top:?}/test/lib.sh"

kver_code() {
	[ "$(nw_kver_code 4.9.337-debian)" = 4009337 ] &&
	[ "$(nw_kver_code 4.12)" = 4012000 ] &&
	[ "$(nw_kver_code 3.10.0-1160.el7.x86_64)" -lt "$(nw_kver_code 4.4.220)" ] &&
	[ "$(nw_kver_code 4.9.337)" -lt "$(nw_kver_code 4.12.0-rc1)" ] &&
	[ "$(nw_kver_code 4.12.0)" -lt "$(nw_kver_code 4.13)" ]
}
t lib.kver-code kver_code
kver_native() {
	local r
	for r in 4.13 4.13.0 4.14.67 5.10.0-28-amd64 6.1.0-18-amd64 10.0; do
		nw_kver_native "$r" || { echo "$r not native"; return 1; }
	done
	for r in 3.10.0-1160.el7.x86_64 4.4.220-ubuntu 4.9.337 4.12.0 4.12; do
		! nw_kver_native "$r" || { echo "$r native"; return 1; }
	done
}
t lib.kver-native kver_native
kver_series() {
	[ "$(nw_kver_series 4.9.337-debian)" = 4.9 ] && [ "$(nw_kver_series 4.12)" = 4.12 ] &&
	[ "$(nw_kver_series 3.10.0-1160.el7.x86_64)" = 3.10 ]
}
t lib.kver-series kver_series
counts_env() {
	[ "$(echo '140 passed, 0 failed, 4 skipped' | nw_counts_env | tr '\n' ' ')" = "passed=140 failed=0 skipped=4 " ] &&
	[ "$(printf 'x\n3 passed, 1 failed\n' | nw_counts_env | tr '\n' ' ')" = "passed=3 failed=1 skipped=0 " ] &&
	[ -z "$(echo 'fuzz: 3 ops, 1 divergences, 1 explained' | nw_counts_env)" ]
}
t lib.counts-env counts_env
# the folder names that test/vm/run.sh and its callers share
out_dir() {
	local nw_kernels=$tmp/kernels
	mkdir -p "$nw_kernels/4.12.0/include/config" "$nw_kernels/4.14.67/include/config"
	echo 4.12.0 >"$nw_kernels/4.12.0/include/config/kernel.release"
	echo 4.14.67 >"$nw_kernels/4.14.67/include/config/kernel.release"
	local nw_out=/o
	[ "$(nw_out_dir 4.12.0 1 suite)" = /o/4.12.0-module ] &&
	[ "$(nw_out_dir 4.12.0 0 fuzz)" = /o/4.12.0-stock-fuzz ] &&
	[ "$(nw_out_dir 4.14.67 1 stress-verify)" = /o/4.14.67-native-stress-verify ] &&
	[ "$(nw_out_dir 4.12.0 1 suite module-first)" = /o/4.12.0-module-modfirst ] &&
	[ "$(nw_out_dir debian 0 bench)" = /o/debian-native-bench ]
}
t lib.out-dir out_dir
# an old variable stops every harness script, naming its option
old_env() {
	local f
	NOWAIT_VM_SMP=4 bash "$top/test/vm/run.sh" --kernel 4.12.0 --module >"$tmp/oe" 2>&1
	[ $? = 2 ] && grep -qx 'run.sh: NOWAIT_VM_SMP is gone: use --smp N' "$tmp/oe" || return 1
	NW_STALL_MS=500 bash "$top/test/vm/run.sh" --kernel 4.12.0 >"$tmp/oe" 2>&1
	[ $? = 2 ] && grep -q 'NW_STALL_MS is gone: use --set stall_ms=500' "$tmp/oe" || return 1
	NW_BENCH_ROUNDS=1 bash "$top/test/vm/run.sh" --kernel 4.12.0 >"$tmp/oe" 2>&1
	[ $? = 2 ] && grep -q 'NW_BENCH_ROUNDS is gone: use --set rounds=1' "$tmp/oe" || return 1
	for f in test/vm/soak.sh test/bench/run.sh test/fuzz/run.sh test/stress/run.sh \
		test/field/compare.sh test/check.sh test/deb/deb-check.sh test/vm/verdict.sh; do
		NOWAIT_OUT=/x bash "$top/$f" >"$tmp/oe" 2>&1
		[ $? = 2 ] && grep -q 'NOWAIT_OUT is gone: use --out DIR' "$tmp/oe" ||
			{ echo "$f: $(cat "$tmp/oe")"; return 1; }
	done
}
t harness.old-env-refused old_env
# run.sh's options: what it refuses before it touches a kernel
run_opts() {
	local r=$top/test/vm/run.sh
	! bash "$r" --kernel 4.12.0 --smp 0 2>"$tmp/ro" && grep -q -- '--smp takes a positive number' "$tmp/ro" &&
	! bash "$r" --kernel 4.12.0 --order late 2>"$tmp/ro" && grep -q -- '--order is fs-first or module-first' "$tmp/ro" &&
	! bash "$r" --kernel 4.12.0 --stock --module-ko /x.ko 2>"$tmp/ro" && grep -q -- '--module-ko needs --module' "$tmp/ro" &&
	! bash "$r" --kernel 4.12.0 --bogus 1 2>"$tmp/ro" && grep -q 'no option --bogus' "$tmp/ro" &&
	! bash "$r" --module 2>"$tmp/ro" && grep -q 'which kernel' "$tmp/ro" &&
	! bash "$r" --kernel 4.12.0 --profile nosuch 2>"$tmp/ro" && grep -q 'no profile nosuch' "$tmp/ro" &&
	bash "$r" --help 2>&1 | grep -q -- '--module-ko FILE'
}
t harness.run-options run_opts
# every profile sets what run.sh reads, the guest knows its mode, and no
# two profiles share a folder
profiles() {
	local f p v
	for f in "$top"/test/vm/profiles/*.env; do
		p=$(basename "$f" .env)
		for v in guest smp maxcpus timeout bench icount; do
			[ -n "$(nw_profile_get "$p" $v)" ] || { echo "$p: no $v"; return 1; }
		done
		v=$(nw_profile_get "$p" guest)
		[ "$v" = suite ] || grep -q "^$v)" "$top/test/vm/init.sh" ||
			{ echo "$p: init.sh has no case $v"; return 1; }
		nw_profile_get "$p" suffix
	done | sort | uniq -d | grep . && return 1
	return 0
}
t vm.profiles profiles

# SERIES: dkms.conf is generated from it, and the README's table agrees
dkms_current() { nw_dkms_conf "$top/dkms.conf" | diff "$top/dkms.conf" -; }
t series.dkms-conf-current dkms_current
dkms_regex() {
	local re s r
	re=$(nw_dkms_regex)
	for s in $(nw_series module); do
		case $s in
		*/*) r=${s%/*}.0-1160.${s#*/}.x86_64 ;;	# 3.10/el7
		*) r=$s.0-1-amd64 ;;
		esac
		[[ "$r" =~ $re ]] || { echo "$re misses $s ($r)"; return 1; }
	done
	for s in 3.10.0 3.10.0-1-amd64 4.1.0 4.5.0 4.13.0 4.14.67 4.120.1 6.1.0-18-amd64; do
		! [[ $s =~ $re ]] || { echo "$re takes $s"; return 1; }
	done
}
t series.dkms-regex dkms_regex
# the series of the table's "<kernel> + module" rows
readme_module_series() {
	sed -n '/^## Supported kernels/,/^## /p' "$top/README.md" |
		sed -n 's/^| \([^|]*\) + module[ |].*/\1/p' |
		grep -o -E '[0-9]+\.[0-9]+' | sort -u -V
}
readme_series() {
	diff <(nw_series module | sed 's,/.*,,' | sort -u -V) <(readme_module_series) || return 1
	local s
	for s in $(nw_series none); do
		sed -n '/^## Supported kernels/,/^## /p' "$top/README.md" | grep -q "^| ${s}[ .]" ||
			{ echo "no README row for $s"; return 1; }
	done
}
t series.readme-table readme_series
# nowait_aio(4): every series that gets the module has a SUPPORTED KERNELS
# entry, and the other texts that list the kernels name the first and the
# last of them and RHEL/CentOS 7's 3.10
man_series() {
	local heads s f
	heads=$(sed -n '/^\.SH SUPPORTED KERNELS/,/^\.S[SH] [^S]/p' "$top/man/nowait_aio.4" |
		awk 'prev == ".TP" { print } { prev = $0 }')
	for s in $(nw_series module | sed 's,/.*,,'); do
		echo "$heads" | grep -q -E "(^|[^0-9.])${s//./\\.}([^0-9]|$)" ||
			{ echo "nowait_aio(4) SUPPORTED KERNELS has no entry for $s"; return 1; }
	done
	for f in debian/control examples/modules-load.d/nowait-aio.conf; do
		for s in 4.4 4.12 3.10; do
			grep -q -F "$s" "$top/$f" || { echo "$f does not name $s"; return 1; }
		done
	done
}
t man.supported-kernels man_series
# nowait_aio(4)'s DMESG section and the module's pr_*() formats, both ways
t man.dmesg-messages python3 "$top/test/unit/dmesg_doc.py" "$top/module" "$top/man/nowait_aio.4"
# the module's layers: no file includes a header of a layer above its own
t module.layers python3 "$top/test/unit/layers.py" "$top/module"
# no kernel-version test outside module/compat/
no_version_test() { ! grep -n 'LINUX_VERSION_CODE\|RHEL_' "$top"/module/*.c; }
t module.version-tests-in-compat no_version_test
# the guest programs' cache key follows their sources
guest_key() {
	local k1 k2 d=$tmp/gk
	mkdir -p "$d/test/vm" "$d/test/unit" "$d/test/bench" "$d/test/fuzz" "$d/test/stress" "$d/test/iosoak"
	cp -r "$top/include" "$top/lib" "$top/tools" "$top/Makefile" "$d/"
	cp -r "$top/test/conformance" "$d/test/"
	cp "$top/test/vm/guest-build.sh" "$d/test/vm/"
	for f in unit/libnowait_test.c bench/stall.c bench/sleeps.c fuzz/fuzz.c stress/stress.c iosoak/ioload.c; do
		cp "$top/test/$f" "$d/test/$f"
	done
	k1=$(bash "$top/test/vm/guest-build.sh" --key "$d") &&
	[ "$k1" = "$(bash "$top/test/vm/guest-build.sh" --key "$top")" ] &&
	echo '/* */' >>"$d/test/fuzz/fuzz.c" &&
	k2=$(bash "$top/test/vm/guest-build.sh" --key "$d") &&
	[ -n "$k1" ] && [ "$k1" != "$k2" ]
}
t vm.guest-key guest_key
