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
		test/field/compare.sh test/check.sh test/deb/deb-check.sh test/vm/verdict.sh \
		test/unit/stat_test.sh test/unit/probe_test.sh; do
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
# every profile passes run.sh's own checks (--dry-run: no VM), and no two
# profiles share a folder
profiles() {
	local f p
	for f in "$top"/test/vm/profiles/*.env; do
		p=$(basename "$f" .env)
		bash "$top/test/vm/run.sh" --dry-run --out "$tmp/vmout" --kernel 4.12.0 --profile "$p" \
			>"$tmp/prof" 2>&1 || { echo "$p: $(cat "$tmp/prof")"; return 1; }
		grep -q "^run=." "$tmp/prof" || { echo "$p: no run= in /params"; return 1; }
		nw_profile_get "$p" suffix
	done | sort | uniq -d | grep . && return 1
	return 0
}
t vm.profiles profiles
# a made-up profile: one file (here outside the tree) is all it takes; its
# fields reach the guest's /params, --set only takes its parameters, and
# a wrong field is refused by name
made_up() {
	local r=$top/test/vm/run.sh
	cat >"$tmp/toy.env" <<'PROFILE'
arg=${arg:-7}
smp=3
maxcpus=4
timeout=$((arg * 100))
suffix=-toy
icount=0
hangcheck=0
files="test/vm/suite.sh:toy.sh"
programs=
disks="scratch=1G"
run='sh /toy.sh "$arg" "$module"'
end=powercut
params="speed=1 color=red"
figures="sum:toy-run: last:toy: value:laps:toy-laps: count:lines:9p/toy.log:^x"
PROFILE
	bash "$r" --dry-run --out "$tmp/vmout" --profile "$tmp/toy.env" --arg 5 --set color=blue \
		--kernel 4.12.0 --module --cases 'fs.*' >"$tmp/toy.out" 2>&1 || { cat "$tmp/toy.out"; return 1; }
	grep -qx '# smp 3, maxcpus 4, mem 1024 MiB, timeout 500 s, idle 0 s, icount 0, disks scratch=1G' "$tmp/toy.out" &&
	grep -qx "# output in $tmp/vmout/4.12.0-module-toy" "$tmp/toy.out" &&
	grep -qx 'module=1' "$tmp/toy.out" && grep -qx 'arg=5' "$tmp/toy.out" &&
	grep -qx 'cases=fs.\*' "$tmp/toy.out" && grep -qx 'hangcheck=0' "$tmp/toy.out" &&
	grep -qx 'end=powercut' "$tmp/toy.out" && grep -qx 'run=sh /toy.sh "$arg" "$module"' "$tmp/toy.out" &&
	grep -qx 'set.speed=1' "$tmp/toy.out" && grep -qx 'set.color=blue' "$tmp/toy.out" || { cat "$tmp/toy.out"; return 1; }
	! bash "$r" --dry-run --profile "$tmp/toy.env" --set size=2 --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q 'profile toy has no parameter size (its parameters: speed=1 color=red)' "$tmp/toy.err" || return 1
	# memory: the profile's mem, else 1024 MiB; --mem over both; MiB or refused
	echo 'mem=2048' >>"$tmp/toy.env"
	bash "$r" --dry-run --profile "$tmp/toy.env" --kernel 4.12.0 2>&1 | grep -q '^# smp 3, maxcpus 4, mem 2048 MiB,' &&
		bash "$r" --dry-run --profile "$tmp/toy.env" --mem 512 --kernel 4.12.0 2>&1 | grep -q '^# smp 3, maxcpus 4, mem 512 MiB,' &&
		! bash "$r" --dry-run --profile "$tmp/toy.env" --mem 1G --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q "memory is MiB (--mem, the profile's mem), not '1G'" "$tmp/toy.err" || return 1
	sed 's/^mem=.*/mem=2g/' "$tmp/toy.env" >"$tmp/bad.env"
	! bash "$r" --dry-run --profile "$tmp/bad.env" --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q "not '2g'" "$tmp/toy.err" || return 1
	sed 's/^end=.*/end=reboot/' "$tmp/toy.env" >"$tmp/bad.env"
	! bash "$r" --dry-run --profile "$tmp/bad.env" --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q "end is poweroff or powercut, not 'reboot'" "$tmp/toy.err" || return 1
	sed 's/^figures=.*/figures="median:x"/' "$tmp/toy.env" >"$tmp/bad.env"
	! bash "$r" --dry-run --profile "$tmp/bad.env" --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q "no figure kind 'median:x'" "$tmp/toy.err" || return 1
	grep -v '^run=' "$tmp/toy.env" >"$tmp/bad.env"
	! bash "$r" --dry-run --profile "$tmp/bad.env" --kernel 4.12.0 2>"$tmp/toy.err" &&
		grep -q 'profile bad sets no run' "$tmp/toy.err"
}
t vm.profile-made-up made_up
# the flags and the old positional form reach the guest's /params alike;
# a native kernel's --module becomes "refuse"
run_params() {
	local r=$top/test/vm/run.sh nw_kernels=$tmp/kernels
	export NOWAIT_KERNELS=$tmp/kernels
	mkdir -p "$nw_kernels/4.14.67/include/config"
	echo 4.14.67 >"$nw_kernels/4.14.67/include/config/kernel.release"
	bash "$r" --dry-run --out "$tmp/vmout" 4.12.0 1 'interface.*' | grep -v '^#' >"$tmp/p1" &&
	bash "$r" --dry-run --out "$tmp/vmout" --kernel 4.12.0 --module --cases 'interface.*' | grep -v '^#' >"$tmp/p2" &&
	diff "$tmp/p1" "$tmp/p2" &&
	bash "$r" --dry-run --out "$tmp/vmout" --kernel 4.12.0 --order module-first --smp 4 --switches a=1,b=2 \
		--unload-cycles 7 --no-unstick --module >"$tmp/p3" &&
	grep -qx 'order=module-first' "$tmp/p3" && grep -qx 'switches=a=1,b=2' "$tmp/p3" &&
	grep -qx 'unload_cycles=7' "$tmp/p3" && grep -qx 'unstick=0' "$tmp/p3" &&
	grep -q '^# smp 4, maxcpus 4,' "$tmp/p3" && grep -qx "# output in $tmp/vmout/4.12.0-module-modfirst" "$tmp/p3" &&
	bash "$r" --dry-run --out "$tmp/vmout" --kernel 4.14.67 --module | grep -qx 'module=refuse' &&
	bash "$r" --dry-run --out "$tmp/vmout" --kernel 4.12.0 --profile bench --set rounds=1 --set fs=ext4 >"$tmp/p4" &&
	grep -qx 'set.rounds=1' "$tmp/p4" && grep -qx 'set.fs=ext4' "$tmp/p4" && grep -qx 'set.stall_ms=2000' "$tmp/p4"
}
t harness.run-params run_params

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
# make check's VM stages: the table's loop (test/check.sh's vm_stages) on
# made-up kernels, stages and SKIP lines printed instead of run
check_table() {
	local kd=$tmp/ck
	mkdir -p "$kd"
	mk() { # name release fs-config
		mkdir -p "$kd/$1/arch/x86/boot" "$kd/$1/include/config"
		: >"$kd/$1/arch/x86/boot/bzImage"
		echo "$2" >"$kd/$1/include/config/kernel.release"
		echo "$3" >"$kd/$1/.config"
	}
	mk 4.12.0 4.12.0 CONFIG_EXT4_FS=m
	mk 4.14.67 4.14.67 CONFIG_EXT4_FS=y
	mk 4.9.337-debug 4.9.337-debug CONFIG_EXT4_FS=y
	mk 5.4.0 5.4.0 CONFIG_EXT4_FS=y
	mk 3.18.0 3.18.0 CONFIG_EXT4_FS=y
	(
		# shellcheck source=test/check.sh
		. "$top/test/check.sh"
		kernels=$kd known="3.10.0-1160.el7 4.12.0 4.14.67" fuzz_seed=9
		# a tree without build output: the DKMS rows' .ko files are not
		# there, whatever this checkout's deb and rpm stages left
		top=$tmp/top
		stage() { echo "stage $1: ${*:2}"; }
		skip_stage() { echo "SKIP: stage $1: $2"; }
		field_stage() { echo "field $1"; }
		vm_stages
	) | sed "s|$tmp/top|T|g; s|$kd|K|g" >"$tmp/ck.out"
	cat >"$tmp/ck.want" <<'PLAN'
stage debian-6.1: T/test/vm/run.sh --kernel debian --stock
SKIP: stage 3.10.0-1160.el7: no built kernel in K/3.10.0-1160.el7 (see README: Test kernels)
stage 4.12.0-module: T/test/vm/run.sh --kernel 4.12.0 --module
field 4.12.0
stage 4.12.0-module-first-smp4: T/test/vm/run.sh --kernel 4.12.0 --module --order module-first --smp 4
stage 4.14.67-native: T/test/vm/run.sh --kernel 4.14.67 --module
SKIP: stage 3.18.0-module: the module is not ported to 3.18 yet (SERIES; README: Supported kernels)
stage 4.9.337-debug-module: T/test/vm/run.sh --kernel 4.9.337-debug --module --cases interface.aio.*,fs.ext4.*,read.ext4.*,block.nullblk.queue-full-mq,module.hostile.* --timeout 3600
stage 5.4.0-native: T/test/vm/run.sh --kernel 5.4.0 --module
SKIP: stage 3.10.0-1160.el7-rpm-dkms-module: needs the rpm stage's DKMS build (root, dkms) and 3.10.0-1160.el7 in K
SKIP: stage 4.12.0-dkms-module: needs the deb stage's DKMS build and 4.12.0 in K
# fuzz seed 9 (replay: make fuzz SEED=9 OPS=200)
stage fuzz-4.12.0-vs-4.14.67: T/test/fuzz/run.sh 4.12.0 4.14.67 9 200
stage stress-4.12.0: T/test/stress/run.sh 4.12.0 20
stage iosoak-4.12.0-smp1: T/test/vm/run.sh --kernel 4.12.0 --module --smp 1 --profile iosoak --arg 60
PLAN
	diff "$tmp/ck.want" "$tmp/ck.out"
}
t check.stage-table check_table
# the field's crash-resume (test/field/lib.sh): a boot that the kernel ended
# in an xfstests test counts that test "crash", the earlier ones from
# xfstests' own lines, and goes on with the tests after it
field_crash() {
	(
		. "$top/test/field/lib.sh"
		printf '%s\r\n' '# field: xfstests ext4: 6 tests of -g rw only=auto part=1/40' \
			'# field: xfstests ext4 list: ext4/001 ext4/005 ext4/020 ext4/034 ext4/035 generic/001' \
			'ext4/001        6s' 'ext4/005       [not run] this test requires a valid $SCRATCH_DEV' \
			'ext4/020       [expunged]' 'ext4/021 42s' 'ext4/001  2s ...  3s' \
			'generic/112       [failed, exit status 1]- output mismatch (see x)' 'ext4/034       ' \
			'not ok vm.boot - the VM reaches the suite'"'"'s end marker: yes vs no (crash or panic)' \
			'not ok vm.dmesg - the kernel log is clean: clean vs "[   47.197747] WARNING: CPU: 0 PID: 79 at fs/ext4/ext4_jbd2.c:277 x+0xf9/0x170"' \
			>"$tmp/fc.log"
		list=$(field_list "$tmp/fc.log" ext4)
		[ "$list" = "ext4/001 ext4/005 ext4/020 ext4/034 ext4/035 generic/001" ] || { echo "list: $list"; exit 1; }
		field_live "$tmp/fc.log" "$list" | paste -sd' ' - >"$tmp/fc.live"
		[ "$(cat "$tmp/fc.live")" = "ext4/001 pass ext4/005 notrun ext4/020 notrun ext4/034 crash" ] ||
			{ echo "live: $(cat "$tmp/fc.live")"; exit 1; }
		[ "$(field_after "$list" ext4/034)" = ext4/035,generic/001 ] &&
			[ -z "$(field_after "$list" generic/001)" ] || { echo after; exit 1; }
		[ "$(field_why "$tmp/fc.log")" = "WARNING: CPU: 0 PID: 79 at fs/ext4/ext4_jbd2.c:277 x+0xf9/0x170" ] ||
			{ echo "why: $(field_why "$tmp/fc.log")"; exit 1; }
		printf 'a pass\nb crash\nc fail\nd notrun\n' >"$tmp/fc.res"
		[ "$(field_count "$tmp/fc.res")" = 1/2/1 ] || { echo "count: $(field_count "$tmp/fc.res")"; exit 1; }
		printf 'a pass pass\nb crash crash\nc pass fail\nd fail crash\ne crash pass\nf pass crash\ng notrun pass\n' >"$tmp/fc.j"
		[ "$(field_worse "$tmp/fc.j" | paste -sd' ' -)" = "c d f" ] || { echo "worse: $(field_worse "$tmp/fc.j")"; exit 1; }
	)
}
t field.crash-resume field_crash
# compare.sh with a run.sh that plays boots: the stock kernel ends its
# first boot in a/2 and the run goes on with a/3 a/4; the module's boot
# ends in a/3 (FIELD_FAKE=worse), where stock passed: the filesystem fails
field_compare() {
	local f=$tmp/fct
	mkdir -p "$f/test/field" "$f/test/vm"
	cp "$top/test/lib.sh" "$f/test/"
	cp "$top/test/field/compare.sh" "$top/test/field/lib.sh" "$f/test/field/"
	cat >"$f/test/vm/run.sh" <<'RUN'
arg=$4 mode=$7
crash() { printf '%s\r\n' "a/$1" 'not ok vm.boot - no end' "not ok vm.dmesg - the kernel log is clean: clean vs \"[ 1.0] WARNING: at $2\""; }
o=${0%/test/vm/run.sh}/out/$mode
[ -d "$o" ] && echo "not ok fake - $o left from an earlier boot"
mkdir -p "$o" && echo "# vm-check: kernel 4.12.0 (4.12.0), mode x, 2 vCPUs, output in $o" && : >"$o/scratch.img"
list=${arg#xfstests:ext4:}
[ "$list" = -g,aio ] && list=a/1,a/2,a/3,a/4
[ "$FIELD_FAKE" = again ] && list=a/1,a/2
echo "# field: xfstests ext4 list: ${list//,/ }"
case $mode/$arg/$FIELD_FAKE in
--stock/xfstests:ext4:-g,aio/*) echo 'a/1  5s'; crash 2 x.c ;;
--stock/xfstests:ext4:a/3,a/4/*) printf '# xfstests ext4 %s\n' 'a/3 pass' 'a/4 fail'; echo 'ok field.xfstests.ext4 - ran' ;;
--module/xfstests:ext4:-g,aio/worse) echo 'a/1  5s'; echo 'a/2  5s'; crash 3 y.c ;;
--module/xfstests:ext4:a/4/worse) printf '# xfstests ext4 %s\n' 'a/4 fail'; echo 'ok field.xfstests.ext4 - ran' ;;
--module/*/again) crash 1 z.c ;;
--module/xfstests:ext4:-g,aio/*) printf '# xfstests ext4 %s\n' 'a/1 pass' 'a/2 pass' 'a/3 pass' 'a/4 fail'; echo 'ok field.xfstests.ext4 - ran' ;;
*) echo "not ok fake - $mode $arg" ;;
esac
RUN
	bash "$f/test/field/compare.sh" 4.12.0 ext4 -g,aio >"$tmp/fc.out" 2>&1
	grep -qx '# \[stock\] xfstests ext4 a/2 ended boot 1: WARNING: at x.c' "$tmp/fc.out" &&
	[ -d "$f/out/--stock-boot1" ] && [ -d "$f/out/--stock" ] &&
	[ -z "$(find "$f/out" -name '*.img')" ] && rm -rf "$f/out" &&
	grep -qx 'xfstests ext4: stock 2/2/0, module 3/1/0, differ: a/2(crash->pass)' "$tmp/fc.out" &&
	tail -n 1 "$tmp/fc.out" | grep -qx '1 passed, 0 failed, 0 skipped' || { cat "$tmp/fc.out"; return 1; }
	rm -rf "$f/out"
	! FIELD_FAKE=worse bash "$f/test/field/compare.sh" 4.12.0 ext4 -g,aio >"$tmp/fc.out" 2>&1 &&
	grep -qx 'xfstests ext4: stock 2/2/0, module 2/2/0, differ: a/2(crash->pass) a/3(pass->crash)' "$tmp/fc.out" &&
	grep -qx '# xfstests ext4: worse with the module: a/3' "$tmp/fc.out" &&
	tail -n 1 "$tmp/fc.out" | grep -qx '0 passed, 1 failed, 0 skipped' || { cat "$tmp/fc.out"; return 1; }
	# a run.sh that ends every boot in the same test: no endless boots
	rm -rf "$f/out"
	! FIELD_FAKE=again bash "$f/test/field/compare.sh" 4.12.0 ext4 a/1,a/2 >"$tmp/fc.out" 2>&1 &&
	[ "$(grep -c 'ended boot' "$tmp/fc.out")" = 2 ] &&
	grep -qx '# \[module\] xfstests ext4 a/1 ended boot 2 again: the run stops' "$tmp/fc.out" ||
		{ cat "$tmp/fc.out"; return 1; }
}
t field.compare-resume field_compare
# run.sh's watchdog (test/vm/idle-watch.sh): it stops waiting for a process
# that writes nothing and works at nothing, and not for one that keeps a
# CPU busy or whose files grow; it ends with the process
idle_watch() {
	local w=$top/test/vm/idle-watch.sh p rc
	sleep 30 & p=$!
	"$w" --every 1 2 "$p" "$tmp/iw.log" >"$tmp/iw.out" || { kill $p; return 1; }
	grep -qE '^no serial output for [0-9]+ s, QEMU on 0% of a CPU$' "$tmp/iw.out" || { kill $p; cat "$tmp/iw.out"; return 1; }
	(while sleep 0.3; do echo x >>"$tmp/iw.log"; done) &
	timeout 5 "$w" --every 1 2 "$p" "$tmp/iw.log"; rc=$?
	kill %2 $p; wait 2>/dev/null
	[ $rc = 124 ] || { echo "a growing file: $rc"; return 1; }
	bash -c 'while :; do :; done' & p=$!
	timeout 5 "$w" --every 1 2 "$p" "$tmp/iw.log"; rc=$?
	kill $p
	[ $rc = 124 ] || { echo "a busy process: $rc"; return 1; }
	sleep 2 & p=$!
	timeout 10 "$w" --every 1 20 "$p" "$tmp/iw.log"; rc=$?
	[ $rc = 1 ] || { echo "an ended process: $rc"; return 1; }
	# the verdict names it
	printf '%s\n' 'ok a' >"$tmp/iw.r"
	! "$top/test/vm/verdict.sh" "$tmp/iw.r" /dev/null "idle:no serial output for 600 s, QEMU on 4% of a CPU" >"$tmp/iw.v" &&
		grep -qx 'not ok vm.boot - the VM shows signs of life: yes vs stopped, no serial output for 600 s, QEMU on 4% of a CPU' "$tmp/iw.v" ||
		{ cat "$tmp/iw.v"; return 1; }
}
t vm.idle-watch idle_watch
