#!/bin/bash
# make check: host unit tests, the man pages, the packages, the conformance
# suite on Debian's stock 6.1 kernel, and the VM stages of the table below
# on every kernel in $NOWAIT_KERNELS (with the module below 4.13, natively
# from 4.13 on).  A stage that cannot run prints a SKIP line saying why and
# counts as skipped, never as passed.  Ends with "N passed, N failed, N
# skipped".
#
#   test/check.sh [--fuzz-seed N]      (make check [SEED=N])
#
# --fuzz-seed N: the fuzz stage's seed instead of the commit's.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
kernels=$nw_kernels
# the kernels the project tests on (SERIES); each one missing is reported
known=$(nw_test_kernels)
np=0 nf=0 ns=0
fuzz_seed=commit

# The VM stages, in order; vm_stages runs them.  Columns:
#   name     the stage's name ({k}: the kernel's)
#   kernel   a test kernel (debian: Debian's 6.1, always there), K1+K2
#            for two, or * for each kernel of SERIES and $NOWAIT_KERNELS:
#            a block of * rows runs kernel by kernel, each row whose
#            "when" fits the kernel; a kernel without a built tree, or of a
#            series the module is not ported to, gets one SKIP line instead
#   when     (* rows) native (4.13+), module (a module series, not a
#            -debug tree), fsmod (module, with ext4, XFS or btrfs built as
#            modules), debug (a -debug tree of a module series); - else
#   mode     module (--module; on a native kernel the refusal check) or
#            stock
#   order    fs-first or module-first (--order)
#   smp      vCPUs (--smp), - for the profile's
#   run      a profile of test/vm/run.sh, PROFILE:ARG with its --arg;
#            fuzz:OPS (test/fuzz/run.sh, K1 with the module against K2);
#            stress:SECS (test/stress/run.sh); field (the field's short
#            groups: test/field/compare.sh, xfstests and LTP)
#   cases    --cases, - for all
#   timeout  --timeout, - for the profile's
#   ko       --module-ko, a file of the tree (- for the tree's build); the
#            stage is skipped while it is missing
#   skip-as  the stage's name in its SKIP line, - for its name
#   needs    the rest of the line: what else its SKIP line says it needs
vm_stages_table='
# name                         kernel          when   mode   order        smp run        cases timeout ko                          skip-as needs
debian-6.1                     debian          -      stock  fs-first     -   suite      -     -       -                           -       -
{k}-native                     *               native module fs-first     -   suite      -     -       -                           -       -
{k}-module                     *               debug  module fs-first     -   suite      interface.aio.*,fs.ext4.*,read.ext4.*,block.nullblk.queue-full-mq,module.hostile.* 3600 - - -
{k}-module                     *               module module fs-first     -   suite      -     -       -                           -       -
{k}-field-short                *               module module fs-first     -   field      -     -       -                           -       -
{k}-module-first-smp4          *               fsmod  module module-first 4   suite      -     -       -                           -       -
3.10.0-1160.el7-rpm-dkms-module 3.10.0-1160.el7 -     module fs-first     -   suite      -     -       build/rpm-check/nowait_aio.ko -     the rpm stage'"'"'s DKMS build (root, dkms)
4.12.0-dkms-module             4.12.0          -      module fs-first     -   suite      -     -       test/deb/out/nowait_aio.ko  -       the deb stage'"'"'s DKMS build
fuzz-4.12.0-vs-4.14.67         4.12.0+4.14.67  -      module fs-first     -   fuzz:200   -     -       -                           fuzz    -
stress-4.12.0                  4.12.0          -      module fs-first     -   stress:20  -     -       -                           stress  -
iosoak-4.12.0-smp1             4.12.0          -      module fs-first     1   iosoak:60  -     -       -                           iosoak  -
'
# Why the rows are there:
# - {k}-module on a debug kernel (lockdep, KASAN, kmemleak: tens of times
#   slower under TCG): a short form that ends in a kmemleak scan (`make
#   stress KVER=<k>` runs the stress there, by hand), with the blk-mq
#   full-queue case, where the debug kernel found a preemption leak, and
#   the hostile checks (failed loads, functions found wanting, kprobes).
#   The whole suite runs there by hand (README: Fuzzing, stress and debug
#   kernels).
# - {k}-module-first-smp4: filesystems built as modules (a
#   distribution-shaped config): the other load order too, nowait_aio
#   first as at boot, on 4 vCPUs (more than the host's cores: races show).
# - the DKMS rows: the module DKMS built from the RPM's source (rpm stage)
#   on 3.10.0-1160.el7, and from the Debian package (deb stage) on 4.12.0.
# - fuzz and stress: the short forms of `make fuzz` and `make stress`
#   (README: Testing); the fuzz seed is new with each commit (a rerun of
#   the same commit replays it) unless --fuzz-seed picks one.
# - iosoak: one vCPU under plain I/O for 60 s with the module loaded: on
#   the one-CPU machine QEMU 7.2 strands a disk's requests in about half
#   of such runs (issue #18; README: Testing); maxcpus=2 must keep them
#   flowing.

add() { # a stage's counts: the summary.env its log names last (VM runs,
	# make fuzz, make stress), else its "N passed, N failed[, N skipped]"
	local f kv
	f=$(sed -n 's/^# summary: //p' "$1" | tail -n 1)
	if [ -n "$f" ] && [ -f "$f" ]; then
		kv=$(cat "$f")
	else
		kv=$(nw_counts_env <"$1")
	fi
	if [ -z "$(nw_summary_get /dev/stdin failed <<<"$kv")" ]; then
		nf=$((nf + 1))
		return
	fi
	np=$((np + $(nw_summary_get /dev/stdin passed 0 <<<"$kv")))
	nf=$((nf + $(nw_summary_get /dev/stdin failed 0 <<<"$kv")))
	ns=$((ns + $(nw_summary_get /dev/stdin skipped 0 <<<"$kv")))
}
stage() { # name, command...
	local name=$1 log
	shift
	log=$(mktemp)
	echo "== stage $name"
	"$@" 2>&1 | tee "$log" | grep -E '^(not ok|skip|#|SKIP|[0-9]+ passed|fuzz:|stress:|xfstests |ltp |UNEXPLAINED)'
	add "$log"
	rm -f "$log"
}
skip_stage() {
	echo "SKIP: stage $1: $2"
	ns=$((ns + 1))
}

# the man pages render without a groff or man warning
man_stage() {
	local out rc
	out=$(make -s -C "$top" man-check 2>&1)
	rc=$?
	echo "$out"
	echo "$(echo "$out" | grep -c '^ok ') passed, $(echo "$out" | grep -c '^not ok ') failed, 0 skipped"
	return $rc
}
# the field's short groups on ext4, stock and with the module (`make
# xfstests` and `make ltp` run the long ones by hand: README "The field's
# suites"): xfstests' AIO and direct I/O into holes, past EOF, against
# buffered I/O; LTP's io_submit tests, its RWF_NOWAIT test (preadv203:
# ENOSYS on kernels without preadv2, not run) and aiodio_sparse with a
# small size
field_tests=generic/198,generic/207,generic/210,generic/211,generic/212,generic/240
field_ltp='io_submit0?,preadv203,ADSP001'
field_stage() { # kernel
	if bash "$top/test/field/root.sh" --cached >/dev/null; then
		stage "$1-xfstests-short" "$top/test/field/compare.sh" "$1" ext4 "$field_tests"
		stage "$1-ltp-short" "$top/test/field/compare.sh" --suite ltp "$1" ext4 "$field_ltp"
	else
		skip_stage "$1-field-short" "no field root image (xfstests, LTP) of root.sh's recipe: build it with test/field/root.sh --xfstests GITDIR --ltp GITDIR (README: The field's suites)"
	fi
}

# kernel_class K: missing (no built tree), native, unported (a series the
# module is not ported to), debug (a -debug tree), module; fsmod is module
# with a filesystem built as a module
kernel_class() {
	local rel
	if [ ! -f "$kernels/$1/arch/x86/boot/bzImage" ]; then
		echo missing
		return
	fi
	rel=$(nw_release "$1")
	if nw_kver_native "$rel"; then
		echo native
	elif [ "$(nw_series_status "$(nw_kver_series "$rel")")" != module ]; then
		echo unported
	elif [ "${1%-debug}" != "$1" ]; then
		echo debug
	elif grep -q -E '^CONFIG_(EXT4|XFS|BTRFS)_FS=m' "$kernels/$1/.config" 2>/dev/null; then
		echo fsmod
	else
		echo module
	fi
}
# one row of the table on kernel K (K1+K2 for two)
vm_row() { # K name kernel when mode order smp run cases timeout ko
	local k=$1 name=${2//\{k\}/$1} mode=$5 order=$6 smp=$7 run=$8 cases=$9 timeout=${10} ko=${11}
	local a=()
	case $run in
	field) field_stage "$k"; return ;;
	fuzz:*)
		local seed=$fuzz_seed
		if [ "$seed" = commit ]; then
			seed=$(git -C "$top" rev-parse HEAD 2>/dev/null | cut -c1-7)
			seed=$((16#${seed:-1}))
		fi
		echo "# fuzz seed $seed (replay: make fuzz SEED=$seed OPS=${run#fuzz:})"
		stage "$name" "$top/test/fuzz/run.sh" "${k%%+*}" "${k#*+}" "$seed" "${run#fuzz:}"
		return ;;
	stress:*)
		stage "$name" "$top/test/stress/run.sh" "$k" "${run#stress:}"
		return ;;
	esac
	a=(--kernel "$k" "--$mode")
	[ "$order" = fs-first ] || a+=(--order "$order")
	[ "$smp" = - ] || a+=(--smp "$smp")
	[ "${run%%:*}" = suite ] || a+=(--profile "${run%%:*}")
	case $run in *:*) a+=(--arg "${run#*:}") ;; esac
	[ "$cases" = - ] || a+=(--cases "$cases")
	[ "$timeout" = - ] || a+=(--timeout "$timeout")
	[ "$ko" = - ] || a+=(--module-ko "$top/$ko")
	stage "$name" "$top/test/vm/run.sh" "${a[@]}"
}
# vm_stages: the table's rows, in order
vm_stages() {
	local rows=() i j n k kk c r f found=" " have why
	mapfile -t rows < <(sed 's/^#.*//' <<<"$vm_stages_table" | awk 'NF')
	n=${#rows[@]}
	i=0
	while [ $i -lt $n ]; do
		read -r -a f <<<"${rows[i]}"
		if [ "${f[1]}" != "*" ]; then
			# a row of its own: its kernels, and its module file
			have=1
			for kk in ${f[1]//+/ }; do
				[ "$kk" = debian ] || [ -f "$kernels/$kk/arch/x86/boot/bzImage" ] || have=0
			done
			[ "${f[9]}" = - ] || [ -f "$top/${f[9]}" ] || have=0
			if [ $have = 1 ]; then
				vm_row "${f[1]}" "${f[@]:0:10}"
			else
				why="${f[1]//+/ and } in $kernels"
				[ "${f[*]:11}" = - ] || why="${f[*]:11} and $why"
				skip_stage "$([ "${f[10]}" = - ] && echo "${f[0]}" || echo "${f[10]}")" "needs $why"
			fi
			i=$((i + 1))
			continue
		fi
		# a block of * rows, kernel by kernel
		j=$i
		while [ $j -lt $n ] && [ "$(awk '{ print $2 }' <<<"${rows[j]}")" = "*" ]; do
			j=$((j + 1))
		done
		for k in $known $(ls "$kernels" 2>/dev/null); do
			case $found in *" $k "*) continue ;; esac
			found="$found$k "
			c=$(kernel_class "$k")
			case $c in
			missing) skip_stage "$k" "no built kernel in $kernels/$k (see README: Test kernels)"; continue ;;
			unported) skip_stage "$k-module" "the module is not ported to $(nw_kver_series "$(nw_release "$k")") yet (SERIES; README: Supported kernels)"; continue ;;
			esac
			for ((r = i; r < j; r++)); do
				read -r -a f <<<"${rows[r]}"
				case ${f[2]}:$c in
				native:native|debug:debug|module:module|module:fsmod|fsmod:fsmod) vm_row "$k" "${f[@]:0:10}" ;;
				esac
			done
		done
		i=$j
	done
}

# sourced (test/unit: the table's loop), nothing runs
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	return 0
fi

nw_no_old_env check.sh
while [ $# -gt 0 ]; do
	case $1 in
	--fuzz-seed) fuzz_seed=${2:?--fuzz-seed N}; shift 2 ;;
	*) echo "usage: check.sh [--fuzz-seed N]" >&2; exit 2 ;;
	esac
done
"$top/test/install-deps.sh" || { echo "check: cannot install the test dependencies"; echo "0 passed, 1 failed"; exit 1; }
echo "# $(qemu-system-x86_64 --version | head -n 1)"

stage unit "$top/test/unit/run.sh"
stage man man_stage
# the Debian packages: built, lintian, installed and purged in a chroot
if [ "$(id -u)" = 0 ]; then
	stage deb "$top/test/deb/deb-check.sh"
else
	skip_stage deb "make deb-check needs root (debootstrap, chroot)"
fi
# the RPM packages: built, rpmlint, installed and erased in a scratch root
# (the kmod and a DKMS build of the packaged source when the 3.10 tree is
# there)
stage rpm "$top/test/rpm/rpm-check.sh"
vm_stages

echo "$np passed, $nf failed, $ns skipped"
[ "$nf" -eq 0 ]
