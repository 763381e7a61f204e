#!/bin/busybox sh
# Guest side of the field profile (test/vm/profiles/field.env): runs
# xfstests' own ./check, or LTP's tests, in the Debian root of
# test/field/root.sh (/dev/vdd), on one filesystem: its test device is the
# run's image of that filesystem (vda ext4, vdb xfs, vdc btrfs), its
# scratch device /dev/vde.
# Its argument (run.sh --arg):
#   xfstests:FS:TESTS         TESTS comma-separated test names
#                             (generic/198) or group names (-g,aio)
#   ltp:FS:TAGS               TAGS comma-separated tags of
#                             /opt/ltp/runtest/nowait or shell patterns of
#                             them (io_submit*, ADSP00?), "all" for every
#                             line; the temporary files on the test
#                             device, LTP_DEV (tests that make their own
#                             filesystem) the scratch device, of type FS
# Prints a line per test, "# SUITE FS TEST pass|fail|notrun", then
# ok/not ok field.SUITE.FS.
res=/dev/ttyS1
say() { echo "$*" > $res; }
suite=${1%%:*}
rest=${1#*:}
fs=${rest%%:*}
tests=$(echo "${rest#*:}" | tr ',' ' ')
case $fs in
ext4) dev=/dev/vda ;;
xfs) dev=/dev/vdb ;;
btrfs) dev=/dev/vdc ;;
*) say "not ok field.args - xfstests|ltp:ext4|xfs|btrfs:TESTS vs $1"; exit 1 ;;
esac
case $suite in
xfstests|ltp) ;;
*) say "not ok field.args - xfstests or ltp vs $suite"; exit 1 ;;
esac

# what this kernel mounts: the same feature choices as run.sh's images
v=$(uname -r); maj=${v%%.*}; min=${v#*.}; min=${min%%.*}
ge() { [ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }; }
ext4_opts="-O ^orphan_file,^metadata_csum_seed"
xfs_opts="-m bigtime=0,inobtcount=0,reflink=1"
btrfs_opts=""
if ! ge 4 9; then
	xfs_opts="-m bigtime=0,inobtcount=0,reflink=0"
	btrfs_opts="-R ^free-space-tree"
fi
if ! ge 4 4; then
	ext4_opts="$ext4_opts,^metadata_csum,^64bit"
	xfs_opts="$xfs_opts,finobt=0 -i sparse=0"
	btrfs_opts="$btrfs_opts -O ^no-holes"
fi
# xfstests: XFS reflink while this kernel calls it EXPERIMENTAL (4.12):
# generic/112's fsx runs (clone, dedupe, collapse and insert range) fail
# there at random, stock as with the module (data miscompares), and one
# left the test device's metadata corrupt, which fails every later test of
# the run; so xfstests' XFS goes without reflink there, test device included
xfs_fresh=0
if [ "$suite" = xfstests ] && [ "$fs" = xfs ] && dmesg | grep -q 'EXPERIMENTAL reflink'; then
	xfs_opts=$(echo "$xfs_opts" | sed 's/reflink=1/reflink=0/')
	xfs_fresh=1
fi
case $fs in
ext4) mkfs_opts=$ext4_opts ;;
xfs) mkfs_opts=$xfs_opts ;;
*) mkfs_opts=$btrfs_opts ;;
esac

for m in /mnt/ext4 /mnt/xfs /mnt/btrfs; do umount $m 2>/dev/null; done
r=/field
mkdir -p $r
mount -t ext4 /dev/vdd $r || { say "not ok field.root - mount /dev/vdd"; exit 1; }
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -o bind /dev $r/dev
mount -t tmpfs tmp $r/tmp
mount -t debugfs none $r/sys/kernel/debug 2>/dev/null
mkdir -p $r/mnt/test $r/mnt/scratch

# LTP lines on which the stock kernel itself WARNs, which panic_on_warn
# turns into the end of the run: RHEL 7's dio_complete() has a
# WARN_ON_ONCE() for a page cache it cannot invalidate after a direct
# write, and dio_truncate's buffered readers make that happen on btrfs, in
# some runs stock as with the module (later kernels print a rate-limited
# message there instead, dio_warn_stale_pagecache())
ltp_stock_warns() {
	case "$(uname -r)/$fs/$1" in
	3.10.0-*/btrfs/DIT*) return 0 ;;
	esac
	return 1
}

# LTP: each runtest line as LTP's runner would start it; exit status 0
# passed, 32 (TCONF) not run, anything else failed
ltp_run() {
	local tag cmd rc sel p pass o=
	set -f	# the patterns are for the tags, not for files
	# mkfs with the options this kernel mounts, whoever calls it
	mkdir -p $r/opt/nw-wrap
	for f in ext4 xfs btrfs; do
		eval "o=\$${f}_opts"
		printf '#!/bin/sh\nexec /sbin/mkfs.%s %s "$@"\n' $f "$o" > $r/opt/nw-wrap/mkfs.$f
		chmod +x $r/opt/nw-wrap/mkfs.$f
	done
	chroot $r /bin/mount -t "$fs" "$dev" /mnt/test || { say "not ok field.ltp.$fs - mount $dev"; return 1; }
	# the kernel's config, which some tests read (run.sh puts it in /kconfig)
	[ -f /kconfig ] && cp /kconfig $r/tmp/kconfig
	sel=$(echo "$tests" | tr ',' ' ')
	[ "$sel" = all ] && sel='*'
	while read -r tag cmd; do
		case $tag in ''|'#'*) continue ;; esac
		pass=0
		for p in $sel; do
			# shellcheck disable=SC2254
			case $tag in $p) pass=1 ;; esac
		done
		[ $pass = 1 ] || continue
		if ltp_stock_warns "$tag"; then
			say "# field: ltp $fs $tag not run: the stock $(uname -r) WARNs in it (dio_complete)"
			say "# ltp $fs $tag notrun"
			continue
		fi
		# aio-stress's files are 1 GiB each by default, more than the
		# 512 MiB test device holds: 32 MiB
		case $cmd in aio-stress*) cmd="$cmd -s 32M" ;; esac
		echo "# ltp $fs $tag start: $cmd" > $res
		chroot $r /usr/bin/env TMPDIR=/mnt/test LTPROOT=/opt/ltp LTP_DEV=/dev/vde \
			KCONFIG_PATH=/tmp/kconfig \
			LTP_DEV_FS_TYPE="$fs" LTP_SINGLE_FS_TYPE="$fs" LTP_TIMEOUT_MUL=10 \
			PATH=/opt/nw-wrap:/opt/ltp/testcases/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/sh -c "$cmd" < /dev/null > /tmp/ltp.out 2>&1
		rc=$?
		case $rc in
		0) say "# ltp $fs $tag pass" ;;
		32) say "# ltp $fs $tag notrun" ;;
		*) grep -E 'TFAIL|TBROK|TWARN' /tmp/ltp.out | head -n 10 > $res
			say "# ltp $fs $tag fail" ;;
		esac
	done < $r/opt/ltp/runtest/nowait
	chroot $r /bin/umount /mnt/test
	say "ok field.ltp.$fs - the tests ran"
}
if [ "$suite" = ltp ]; then
	ltp_run
	umount $r/sys/kernel/debug $r/tmp $r/dev $r/sys $r/proc 2>/dev/null
	umount $r
	exit 0
fi

if [ $xfs_fresh = 1 ]; then
	# shellcheck disable=SC2086
	chroot $r /sbin/mkfs.xfs -q -f $xfs_opts $dev || { say "not ok field.mkfs - mkfs.xfs $xfs_opts $dev"; exit 1; }
	say "# field: XFS without reflink (EXPERIMENTAL on $(uname -r)): $xfs_opts"
fi
# xfstests tests on which the stock kernel itself WARNs, which panic_on_warn
# turns into the end of the run:
# - RHEL 7 (3.10): the tests whose kernel-log check filters what xfstests
#   calls intentional warnings (_filter_aiodio_dmesg): buffered or mmap
#   I/O mixed with direct I/O of one file, on which RHEL 7's
#   dio_complete() WARNs when it cannot invalidate the page cache
#   (generic/036 ended the stock run on ext4), and generic/551 (a
#   buffered write, then overlapping direct AIO writes of the file),
#   which made it WARN there too, from the AIO completion
# - 4.12's (and 3.10's) btrfs: generic/019 (fsstress and fio while the scratch disk
#   fails, fail_make_request) leaves delalloc bytes at unmount, and
#   free_fs_root() WARNs
stock_warns=
case "$(uname -r)/$fs" in
3.10.0-*)
	stock_warns=$(cd $r/var/lib/xfstests && grep -l _filter_aiodio_dmesg tests/*/[0-9]* |
		sed 's,^tests/,,' | tr '\n' ',')
	stock_warns=${stock_warns}generic/551
	# and on btrfs: dio_complete() in generic/209 too (sync direct
	# writes while buffered reads fill the page cache by readahead),
	# cleanup_transaction() in generic/019 (below)
	[ "$fs" != btrfs ] || stock_warns=$stock_warns,generic/209,generic/019 ;;
4.12.*/btrfs) stock_warns=generic/019 ;;
esac
xarg=
if [ -n "$stock_warns" ]; then
	xarg="-e $stock_warns"
	say "# field: xfstests $fs: not run, the stock $(uname -r) WARNs in them: $stock_warns"
fi
cat > $r/var/lib/xfstests/local.config <<CFG
export FSTYP=$fs
export TEST_DEV=$dev
export TEST_DIR=/mnt/test
export SCRATCH_DEV=/dev/vde
export SCRATCH_MNT=/mnt/scratch
export MKFS_OPTIONS="$mkfs_opts"
CFG
# three words of TESTS are the guest's, not ./check's (whose -g is a union):
# only=GROUP keeps the selected tests that are in GROUP too
# (-g,rw,-g,prealloc,-x,aio,only=auto: the auto tests of rw or prealloc
# but not of aio), part=K/N runs the Kth of N equal parts of that list in
# ./check's order, so that a selection too long for one run spreads over
# several; the list comes from ./check -n (names only, nothing run), and
# its line "# field: xfstests FS list: ..." tells the host which tests are
# left when the kernel ends the run in one of them (compare.sh); full=TEST
# prints the tail of TEST's log (results/TEST.full) as for a failed test,
# whatever its result
show=
xfstests_select() {
	local w only='' part='' sel='' list all t k n size
	for w in $tests; do
		case $w in
		only=?*) only=${w#only=} ;;
		part=*) part=${w#part=}; [ -n "$part" ] || part=none ;;
		full=?*) show="$show ${w#full=}" ;;
		*) sel="$sel $w" ;;
		esac
	done
	list=$(chroot $r /bin/bash -c "cd /var/lib/xfstests && ./check -n $xarg $sel" 2>&1 |
		tr -d '\r' | sed -n 's,^\([a-z0-9]*/[0-9][0-9]*\)\( .*\)*$,\1,p')
	if [ -n "$only" ]; then
		all=$list list=
		for t in $all; do
			sed -n 's/^_begin_fstest //p' $r/var/lib/xfstests/tests/"$t" | grep -qw -- "$only" &&
				list="$list $t"
		done
	fi
	if [ -n "$part" ]; then
		k=${part%/*} n=${part#*/}
		case $k/$n in
		[1-9]*/[1-9]*) case $k$n in *[!0-9]*) k=0 ;; esac ;;
		*) k=0 ;;
		esac
		[ "$k" -ge 1 ] && [ "$k" -le "$n" ] ||
			{ say "not ok field.args - part=K/N, 1 <= K <= N, vs part=$part"; return 1; }
		size=$(( ($(echo $list | wc -w) + n - 1) / n ))
		list=$(echo $list | tr ' ' '\n' | sed -n "$(( (k - 1) * size + 1 )),$(( k * size ))p")
	fi
	[ -n "$list" ] || { say "not ok field.args - no test in $tests"; return 1; }
	tests=$(echo $list)
	say "# field: xfstests $fs: $(echo $list | wc -w) tests of $sel${only:+ only=$only}${part:+ part=$part}"
	say "# field: xfstests $fs list: $tests"
}
xfstests_select || exit 1
# its lines as they come (a test's name, then its time or its failure);
# stdin is not the console: a test whose command reads its stdin by
# mistake waits on the console for ever (ext4/307 when fsstress made no
# file: `xargs md5sum` writes a sum for "-", and `md5sum -c` reads it)
chroot $r /bin/bash -c "cd /var/lib/xfstests && ./check $xarg $tests; echo \"check-rc \$?\"" </dev/null 2>&1 |
	tee /tmp/check.out > $res
rc=$(sed -n 's/^check-rc //p' /tmp/check.out)
ran=$(sed -n 's/^Ran: //p' /tmp/check.out)
notrun=$(sed -n 's/^Not run: //p' /tmp/check.out)
failed=$(sed -n 's/^Failures: //p' /tmp/check.out)
# "Ran:" names the tests that were not run too
for t in $ran; do
	case " $notrun " in *" $t "*) continue ;; esac
	case " $failed " in *" $t "*) say "# xfstests $fs $t fail" ;; *) say "# xfstests $fs $t pass" ;; esac
done
# and those left out above ("[expunged]")
expunged=$(sed -n 's/^\([a-z0-9]*\/[0-9]*\) *\[expunged\].*/\1/p' /tmp/check.out)
for t in $notrun $expunged; do say "# xfstests $fs $t notrun"; done
# a failing test's diff, for the host's log (and full='s tests' logs)
for t in $(echo $failed $show | tr ' ' '\n' | sort -u); do
	bad=$r/var/lib/xfstests/results/$t.out.bad
	[ -f "$bad" ] &&
		diff -u "$r/var/lib/xfstests/tests/$t.out" "$bad" 2>/dev/null |
		head -n 120 > $res
	# its log, and each fsx run's (generic/112: 112.0.full ...)
	for full in $r/var/lib/xfstests/results/$t.full $r/var/lib/xfstests/results/$t.[0-9]*.full; do
		[ -f "$full" ] && { echo "--- tail of ${full##*/}"; tail -n 40 "$full" | sed "s/^/    /"; } > $res
	done
done
umount $r/sys/kernel/debug $r/tmp $r/dev $r/sys $r/proc 2>/dev/null
umount $r
if [ -n "$ran$notrun" ]; then
	say "ok field.xfstests.$fs - ./check ran (rc $rc)"
else
	say "not ok field.xfstests.$fs - ./check ran: a summary vs none (rc $rc)"
fi
