#!/bin/bash
# make check: host unit tests, the conformance suite on Debian's stock 6.1
# kernel, and the suite on every kernel in $NOWAIT_KERNELS (with the module
# below 4.13, natively from 4.13 on).  A stage that cannot run prints a SKIP
# line saying why and counts as skipped, never as passed.  Ends with
# "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env check.sh
# --fuzz-seed N (make check SEED=N): the fuzz stage's seed instead of the
# commit's
fuzz_seed=commit
while [ $# -gt 0 ]; do
	case $1 in
	--fuzz-seed) fuzz_seed=${2:?--fuzz-seed N}; shift 2 ;;
	*) echo "usage: check.sh [--fuzz-seed N]" >&2; exit 2 ;;
	esac
done
kernels=$nw_kernels
# the kernels the project tests on (SERIES); each one missing is reported
known=$(nw_test_kernels)
np=0 nf=0 ns=0

"$top/test/install-deps.sh" || { echo "check: cannot install the test dependencies"; echo "0 passed, 1 failed"; exit 1; }

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

stage unit "$top/test/unit/run.sh"
# the man pages render without a groff or man warning
man_stage() {
	local out rc
	out=$(make -s -C "$top" man-check 2>&1)
	rc=$?
	echo "$out"
	echo "$(echo "$out" | grep -c '^ok ') passed, $(echo "$out" | grep -c '^not ok ') failed, 0 skipped"
	return $rc
}
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
stage debian-6.1 "$top/test/vm/run.sh" --kernel debian --stock

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
		skip_stage "$1-field-short" "no field root image (xfstests, LTP): build it with test/field/root.sh --xfstests GITDIR --ltp GITDIR (README: The field's suites)"
	fi
}

found=""
for k in $known $(ls "$kernels" 2>/dev/null); do
	case " $found " in *" $k "*) continue ;; esac
	found="$found $k"
	if [ ! -f "$kernels/$k/arch/x86/boot/bzImage" ]; then
		skip_stage "$k" "no built kernel in $kernels/$k (see README: Test kernels)"
		continue
	fi
	rel=$(nw_release "$k")
	if nw_kver_native "$rel"; then
		# MODULE=1 on a native kernel: the suite runs natively and
		# the module must refuse to load
		stage "$k-native" "$top/test/vm/run.sh" --kernel "$k" --module
	elif [ "$(nw_series_status "$(nw_kver_series "$rel")")" != module ]; then
		skip_stage "$k-module" "the module is not ported to $(nw_kver_series "$rel") yet (SERIES; README: Supported kernels)"
	elif [ "${k%-debug}" != "$k" ]; then
		# a debug kernel (lockdep, KASAN, kmemleak: tens of times
		# slower under TCG): a short form that ends in a kmemleak scan
		# (`make stress KVER=<k>` runs the stress there, by hand), with
		# the blk-mq full-queue case, where the debug kernel found a
		# preemption leak, and the hostile checks (failed loads,
		# functions found wanting, kprobes).  The whole suite runs
		# there by hand (README: Fuzzing, stress and debug kernels).
		stage "$k-module" "$top/test/vm/run.sh" --timeout 3600 --kernel "$k" --module \
			--cases 'interface.aio.*,fs.ext4.*,read.ext4.*,block.nullblk.queue-full-mq,module.hostile.*'
	else
		stage "$k-module" "$top/test/vm/run.sh" --kernel "$k" --module
		field_stage "$k"
		# filesystems built as modules (a distribution-shaped
		# config): the other load order too, nowait_aio first as at
		# boot, on 4 vCPUs (more than the host's cores: races show)
		if grep -q -E '^CONFIG_(EXT4|XFS|BTRFS)_FS=m' "$kernels/$k/.config" 2>/dev/null; then
			stage "$k-module-first-smp4" "$top/test/vm/run.sh" --order module-first --smp 4 \
				--kernel "$k" --module
		fi
	fi
done

# the module DKMS built from the RPM's source (rpm stage) on 3.10.0-1160.el7
if [ -f "$top/build/rpm-check/nowait_aio.ko" ] && [ -f "$kernels/3.10.0-1160.el7/arch/x86/boot/bzImage" ]; then
	stage 3.10.0-1160.el7-rpm-dkms-module "$top/test/vm/run.sh" \
		--module-ko "$top/build/rpm-check/nowait_aio.ko" --kernel 3.10.0-1160.el7 --module
else
	skip_stage 3.10.0-1160.el7-rpm-dkms-module "needs the rpm stage's DKMS build (root, dkms) and 3.10.0-1160.el7 in $kernels"
fi
# the module DKMS built from the Debian package (deb stage) on 4.12.0
if [ -f "$top/test/deb/out/nowait_aio.ko" ] && [ -f "$kernels/4.12.0/arch/x86/boot/bzImage" ]; then
	stage 4.12.0-dkms-module "$top/test/vm/run.sh" \
		--module-ko "$top/test/deb/out/nowait_aio.ko" --kernel 4.12.0 --module
else
	skip_stage 4.12.0-dkms-module "needs the deb stage's DKMS build and 4.12.0 in $kernels"
fi

# the short forms of `make fuzz` and `make stress` (README: Testing)
if [ -f "$kernels/4.12.0/arch/x86/boot/bzImage" ] &&
   [ -f "$kernels/4.14.67/arch/x86/boot/bzImage" ]; then
	# a new seed from the commit under test (a rerun of the same commit
	# replays it); make check SEED=<n> (--fuzz-seed) picks one
	seed=$fuzz_seed
	if [ "$seed" = commit ]; then
		seed=$(git -C "$top" rev-parse HEAD 2>/dev/null | cut -c1-7)
		seed=$((16#${seed:-1}))
	fi
	echo "# fuzz seed $seed (replay: make fuzz SEED=$seed OPS=200)"
	stage fuzz-4.12.0-vs-4.14.67 "$top/test/fuzz/run.sh" 4.12.0 4.14.67 "$seed" 200
else
	skip_stage fuzz "needs 4.12.0 and 4.14.67 in $kernels"
fi
if [ -f "$kernels/4.12.0/arch/x86/boot/bzImage" ]; then
	stage stress-4.12.0 "$top/test/stress/run.sh" 4.12.0 20
	# one vCPU under plain I/O for 60 s with the module loaded: on the
	# one-CPU machine QEMU 7.2 strands a disk's requests in about half
	# of such runs (issue #18; README: Testing); maxcpus=2 must keep
	# them flowing
	stage iosoak-4.12.0-smp1 "$top/test/vm/run.sh" --smp 1 --profile iosoak --arg 60 \
		--kernel 4.12.0 --module
else
	skip_stage stress "needs 4.12.0 in $kernels"
	skip_stage iosoak "needs 4.12.0 in $kernels"
fi

echo "$np passed, $nf failed, $ns skipped"
[ "$nf" -eq 0 ]
