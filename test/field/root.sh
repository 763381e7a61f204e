#!/bin/bash
# The guest root for the field's own test suites (issue #29): Debian 12
# (debootstrap, from Debian's archive) with xfsprogs, e2fsprogs,
# btrfs-progs, fio and the build tools, and xfstests and LTP's AIO and
# direct-I/O tests built inside it, as an ext4 image that every supported
# kernel mounts.  Nothing of it is committed: it is built into the cache,
# from git trees of xfstests and LTP that the caller brings (README "The
# field's suites").
#
#   test/field/root.sh --xfstests GITDIR --ltp GITDIR
#                                            print the image's path,
#                                            building it when it is not
#                                            in the cache
#   test/field/root.sh --cached              print the newest built
#                                            image's path, of this
#                                            recipe (exit 3: none)
#
# xfstests v2023.01.15: the release of Debian 12's freeze, so that its
# golden outputs match that userland's tools (xfs_io, mkfs.*); it probes
# each feature it uses and reports a test "not run" on a kernel without
# it, so it runs on 3.10 to 4.14 as on 6.1.
# One later upstream fix is applied to it (xfstests_fixes, commits of the
# caller's xfstests tree): 46b783fe "fsstress: check io_uring_queue_init
# errno properly" (2024).  liburing returns -errno and leaves errno alone,
# so the release's fsstress exits at its start ("io_uring_queue_init
# failed") on every kernel without io_uring (before 5.1: every kernel this
# project tests), and each test built on fsstress ran on an empty
# directory (ext4/307's md5sum then checked the sum of its stdin).
# LTP 20230127: the release of the same freeze; its tests check the kernel
# version and features they need and report TCONF (not run) without them.
# Only the tests the field's runs use are built (ltp_dirs), and their
# runtest lines are gathered in /opt/ltp/nowait.runtest.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
# the steps below: a new number whenever they change (--cached takes only
# an image of this number)
root_version=3
xfstests_tag=v2023.01.15
xfstests_fixes=46b783fe67fc2afd2bc30df458934d4916b91cce
ltp_tag=20230127
ltp_dirs="testcases/kernel/syscalls/io_submit testcases/kernel/syscalls/io_getevents
testcases/kernel/syscalls/io_setup testcases/kernel/syscalls/preadv2
testcases/kernel/syscalls/pwritev2 testcases/kernel/syscalls/fsync
testcases/kernel/syscalls/fdatasync testcases/kernel/io/ltp-aiodio"
# the runtest lines: these syscalls' tests, and ltp-aiodio's sparse,
# append, truncate and aio-stress tests
ltp_syscalls='^(io_submit|io_getevents|io_setup|preadv2|pwritev2|fsync|fdatasync)[0-9]+ '
ltp_aiodio='^[A-Z0-9]+ (aiodio_sparse|dio_sparse|aiodio_append|dio_truncate|aio-stress)( |$)'
packages=bash,xfsprogs,e2fsprogs,btrfs-progs,attr,acl,fio,psmisc,bc,gawk,perl,util-linux,libaio1,libgdbm6,quota,xz-utils,kmod,procps,sed,grep,coreutils,findutils,dmsetup,lvm2,gcc,make,autoconf,automake,libtool,pkg-config,uuid-dev,xfslibs-dev,libaio-dev,libacl1-dev,libattr1-dev,libgdbm-dev,libgdbm-compat-dev,libcap-dev,liburing-dev,libssl-dev,file,m4,python3

xgit="" lgit=""
while [ $# -gt 0 ]; do
	case $1 in
	--xfstests) xgit=$2; shift 2 ;;
	--ltp) lgit=$2; shift 2 ;;
	--cached)
		# the newest image of this recipe (its .done names root_version):
		# an older one may lack what the runs need (the fsstress fix)
		img=$(ls -t "$nw_cache"/field/*/.done 2>/dev/null |
			while read -r f; do ! grep -qx "root_version=$root_version" "$f" || echo "$f"; done | head -n 1)
		[ -n "$img" ] || exit 3
		echo "$(dirname "$img")/root.img"
		exit 0 ;;
	*) echo "usage: root.sh --xfstests GITDIR --ltp GITDIR | --cached" >&2; exit 2 ;;
	esac
done
[ -n "$xgit" ] && git --git-dir="$xgit" rev-parse -q --verify "$xfstests_tag^{commit}" >/dev/null ||
	{ echo "field: no xfstests $xfstests_tag in '${xgit:-}' (give --xfstests GITDIR)" >&2; exit 3; }
for c in $xfstests_fixes; do
	git --git-dir="$xgit" rev-parse -q --verify "$c^{commit}" >/dev/null ||
		{ echo "field: no xfstests commit $c in '$xgit' (a tree of 2024 or later)" >&2; exit 3; }
done
[ -n "$lgit" ] && git --git-dir="$lgit" rev-parse -q --verify "$ltp_tag^{commit}" >/dev/null ||
	{ echo "field: no LTP $ltp_tag in '${lgit:-}' (give --ltp GITDIR)" >&2; exit 3; }

# what makes the image: a new one whenever it changes
key=$(printf '%s\n' "$root_version" "$packages" "$ltp_dirs" "$ltp_syscalls" "$ltp_aiodio" "$xfstests_fixes" \
	"$(git --git-dir="$xgit" rev-parse "$xfstests_tag^{commit}")" \
	"$(git --git-dir="$lgit" rev-parse "$ltp_tag^{commit}")" | sha256sum | cut -c1-16)
dir=$nw_cache/field/$key
if [ -f "$dir/.done" ]; then
	echo "$dir/root.img"
	exit 0
fi
mkdir -p "$dir"
log=$dir/build.log
chroot_dir=$dir/root
echo "field: building the guest root in $dir (log: $log)" >&2
# the Debian system is kept when a later step failed: it takes minutes
if [ ! -f "$dir/.debootstrap-done" ]; then
	rm -rf "$chroot_dir"
	debootstrap --variant=minbase --include="$packages" bookworm "$chroot_dir" \
		http://deb.debian.org/debian >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; echo "field: debootstrap failed" >&2; exit 1; }
	touch "$dir/.debootstrap-done"
fi
rm -rf "$chroot_dir/opt/xfstests-src"
mkdir -p "$chroot_dir/opt/xfstests-src"
git --git-dir="$xgit" archive "$xfstests_tag" | tar -C "$chroot_dir/opt/xfstests-src" -xf -
for c in $xfstests_fixes; do
	git --git-dir="$xgit" diff "$c^" "$c" | patch -d "$chroot_dir/opt/xfstests-src" -p1 >>"$log" 2>&1 ||
		{ tail -n 10 "$log" >&2; echo "field: xfstests commit $c does not apply to $xfstests_tag" >&2; exit 1; }
done
# xfstests wants its users and groups (fsgqa, and one whose name starts
# with a digit), and builds with the chroot's own compiler
chroot "$chroot_dir" /bin/bash -c '
	set -e
	useradd -m fsgqa; useradd -m fsgqa2; useradd -m 123456-fsgqa
	cd /opt/xfstests-src
	make -j"$(nproc)" && make install
' >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; echo "field: xfstests does not build" >&2; exit 1; }
rm -rf "$chroot_dir/opt/xfstests-src"
# LTP: its library and the chosen test folders, installed in /opt/ltp
rm -rf "$chroot_dir/opt/ltp-src"
mkdir -p "$chroot_dir/opt/ltp-src"
git --git-dir="$lgit" archive "$ltp_tag" | tar -C "$chroot_dir/opt/ltp-src" -xf -
{
	grep -h -E "$ltp_syscalls" "$chroot_dir/opt/ltp-src/runtest/syscalls"
	cat "$chroot_dir"/opt/ltp-src/runtest/ltp-aiodio.part* \
		"$chroot_dir/opt/ltp-src/runtest/ltp-aio-stress" | grep -E "$ltp_aiodio"
} >"$dir/nowait.runtest"
chroot "$chroot_dir" /bin/bash -c '
	set -e
	cd /opt/ltp-src
	make autotools && ./configure --prefix=/opt/ltp
	make -j"$(nproc)" -C lib
	for d in '"$(printf '%s ' $ltp_dirs)"'; do
		make -j"$(nproc)" -C $d && make -C $d install
	done
' >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; echo "field: LTP does not build" >&2; exit 1; }
mkdir -p "$chroot_dir/opt/ltp/runtest"
cp "$dir/nowait.runtest" "$chroot_dir/opt/ltp/runtest/nowait"
rm -rf "$chroot_dir/opt/ltp-src" "$chroot_dir/var/cache/apt/archives/"*.deb
# an ext4 that 3.10 mounts too (no metadata checksums, no 64-bit)
truncate -s 4G "$dir/root.img"
mkfs.ext4 -q -F -O ^orphan_file,^metadata_csum_seed,^metadata_csum,^64bit \
	-d "$chroot_dir" "$dir/root.img" >>"$log" 2>&1 ||
	{ echo "field: mkfs.ext4 -d failed" >&2; exit 1; }
rm -rf "$chroot_dir"
echo "root_version=$root_version" >"$dir/.done"
echo "$dir/root.img"
