#!/bin/bash
# make deb-check: build the Debian packages (make deb), check them with
# lintian, and install them in a fresh Debian 12 (bookworm) minbase chroot
# with their dependencies from the archive: DKMS registers the module, a
# program links libnowait through pkg-config, the tools answer, and a purge
# leaves nothing behind.  With a built 4.12.0 tree in $NOWAIT_KERNELS
# (default ~/.cache/nowait-aio/kernels/) DKMS also builds the module for it
# inside the chroot (the tree bind-mounted read-only) and the module is
# copied to test/deb/out/nowait_aio.ko; a copy is signed with a throwaway
# openssl key by the tree's scripts/sign-file (nowait_aio.signed.ko); DKMS
# builds it again with that sign-file configured, signing it with the MOK
# key it makes (nowait_aio.dkms-signed.ko), and installs it for 4.12.0.
#
# One line per check: "ok deb.<name> - ...", "not ok deb.<name> - ...",
# "skip deb.<name> - <why>"; last line "N passed, N failed, N skipped";
# exit 0 only if none failed.  Runs as root (debootstrap, chroot, mount),
# non-interactively.  The debootstrapped root is kept as a tarball in
# ~/.cache/nowait-aio/deb/ (made again after 30 days, or when missing), the
# downloaded packages in ~/.cache/nowait-aio/deb/archives/, so a rerun
# takes a few minutes.
#
#   test/deb/deb-check.sh [--mirror URL] [--keep]
#
# --mirror URL: the Debian mirror (default: the one apt uses for bookworm
# here); --keep: keep the chroot after the run.  The cache and the kernels
# from NOWAIT_CACHE and NOWAIT_KERNELS (README: Testing).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
nw_no_old_env deb-check.sh
deb_mirror= keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--mirror) deb_mirror=${2:?--mirror URL}; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "usage: deb-check.sh [--mirror URL] [--keep]" >&2; exit 2 ;;
	esac
done
cache=$nw_cache
debcache=$cache/deb
kernels=$nw_kernels
out=$top/test/deb/out
debs=$top/build/deb
suite=bookworm
version=$(cat "$top/VERSION")
root=$debcache/chroot
base=$debcache/base-$suite-minbase.tar.gz
np=0 nf=0 ns=0
mounts=()

ok() { echo "ok deb.$1 - $2"; np=$((np + 1)); }
nok() { echo "not ok deb.$1 - $2${3:+: $3}"; nf=$((nf + 1)); }
skip() { echo "skip deb.$1 - $2"; ns=$((ns + 1)); }
note() { echo "# $*"; }
tailof() { tail -n "${2:-15}" "$1" 2>/dev/null | sed 's/^/#   /'; }

cleanup() {
	local i m
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		m=${mounts[i]}
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			echo "# cannot unmount $m" >&2
	done
	mounts=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

finish() {
	cleanup
	echo "$np passed, $nf failed, $ns skipped"
	[ "$nf" -eq 0 ]
	exit
}

# anything of ours still mounted below the chroot?
mounted_below() { awk -v r="$root/" 'index($2 "/", r) == 1 { f = 1 } END { exit !f }' /proc/mounts; }

mnt() { # mount args... target (the last argument)
	local target=${*: -1}
	mount "$@" && mounts+=("$target")
}

mnt_ro() { # host directory, path in the chroot: bind-mount it read-only
	mkdir -p "$root$2" && mnt --bind "$1" "$root$2" &&
		mount -o remount,bind,ro "$root$2"
}

# A tree built with O= keeps its sources elsewhere: its Makefile and the
# `source` link name that directory by its absolute path, so the chroot
# needs it at the same path.
mnt_source() { # built kernel tree
	local src
	[ -L "$1/source" ] || return 0
	src=$(readlink -f "$1/source")
	[ "$src" = "$(readlink -f "$1")" ] && return 0
	[ -f "$src/Makefile" ] || { note "$1/source: $src has no Makefile"; return 1; }
	mnt_ro "$src" "$src"
}

in_chroot() { # command line for bash -c, run in the chroot
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive TERM=dumb \
		/bin/bash -c "$1"
}

# The Debian mirror apt uses here for $suite (deb822 .sources or one-line
# .list), else deb.debian.org.
mirror() {
	local m=""
	if [ -n "$deb_mirror" ]; then
		echo "$deb_mirror"
		return
	fi
	shopt -s nullglob
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		m=$(awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; suites = ""; enabled = 1
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
					if ($i ~ /^Suites:/) { suites = " " $i " "; sub(/^ Suites:/, " ", suites) }
					if ($i ~ /^Enabled:[ \t]*no/) enabled = 0
				}
				if (enabled && uris != "" && suites ~ ("[ \t]" s "[ \t]")) {
					split(uris, u, /[ \t]+/); print u[1]; exit
				}
			}' "$f")
		[ -n "$m" ] && break
	done
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			sed -e 's/#.*//' -e 's/\[[^]]*\]//' |
			awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }')
	fi
	shopt -u nullglob
	echo "${m:-http://deb.debian.org/debian}"
}

mkdir -p "$out" "$debcache/archives/partial"
rm -f "$out"/*.log "$out"/*.ko "$out"/lintian.txt "$out"/throwaway-*

if [ "$(id -u)" != 0 ]; then
	nok root "deb-check runs as root (debootstrap, chroot, mount)"
	finish
fi

# --- host packages: the build dependencies and the tools of this check ---
need=""
for p in debhelper dh-dkms libaio-dev dpkg-dev fakeroot gcc make lintian debootstrap \
	debian-archive-keyring groff-base man-db pkg-config; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need="$need $p"
done
if [ -n "$need" ]; then
	note "installing:$need"
	if DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$out/host-deps.log" 2>&1 &&
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need \
		>>"$out/host-deps.log" 2>&1; then
		ok host-deps "installed:$need"
	else
		nok host-deps "apt-get install$need" "see $out/host-deps.log"
		finish
	fi
fi

# --- build ---
t0=$SECONDS
if nice -n 10 make -s -C "$top" deb DEB_OUT="$debs" DEB_BUILD_OPTIONS=parallel=1 \
	>"$out/build.log" 2>&1; then
	pkgs=$(cd "$debs" && ls nowait-aio-dkms_*_all.deb libnowait0_*.deb libnowait-dev_*.deb \
		nowait-aio-tools_*.deb 2>/dev/null | grep -v dbgsym | tr '\n' ' ' | sed 's/ $//')
	if [ "$(echo $pkgs | wc -w)" = 4 ]; then
		ok build "make deb (dpkg-buildpackage -us -uc -b) in $((SECONDS - t0)) s: $pkgs"
	else
		nok build "make deb" "expected 4 packages in $debs, got: $pkgs"
		finish
	fi
else
	nok build "make deb" "see $out/build.log"
	tailof "$out/build.log"
	finish
fi

# --- man pages: groff and man without warnings ---
if make -s -C "$top" man-check >"$out/man.log" 2>&1; then
	ok man "man pages render with groff -man -ww and man --warnings -l, no warnings"
else
	nok man "man pages render without warnings" "$(grep '^not ok' "$out/man.log" | head -n 3 | tr '\n' ' ')"
fi

# --- lintian on the .changes: no errors ---
changes=$(ls "$debs"/nowait-aio_*.changes 2>/dev/null | head -n 1)
lintian -I --pedantic "$changes" >"$out/lintian.txt" 2>&1
if grep -q '^E: ' "$out/lintian.txt"; then
	nok lintian "no lintian errors" "$(grep '^E: ' "$out/lintian.txt" | head -n 5 | tr '\n' ' ')"
else
	tags=$(grep -E '^[WIP]: ' "$out/lintian.txt" | awk '{ print $1 $3 }' | sort | uniq -c |
		awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
	ok lintian "no lintian errors (others: ${tags:-none}; justified in debian/README.source)"
fi

# --- the chroot: debootstrap once, then a fresh copy per run ---
if mounted_below; then
	nok chroot "fresh $suite root" "something is still mounted below $root (a killed run?): unmount it first"
	finish
fi
rm -rf --one-file-system "$root"
if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +30 2>/dev/null)" ]; then
	m=$(mirror)
	t0=$SECONDS
	rm -rf --one-file-system "$debcache/base.tmp"
	if debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		"$suite" "$debcache/base.tmp" "$m" >"$out/debootstrap.log" 2>&1 &&
	   tar -C "$debcache/base.tmp" --numeric-owner -czf "$base.tmp" . &&
	   mv "$base.tmp" "$base"; then
		note "debootstrap --variant=minbase $suite from $m: $((SECONDS - t0)) s, cached as $base"
	else
		nok chroot "debootstrap --variant=minbase $suite $m" "see $out/debootstrap.log"
		tailof "$out/debootstrap.log"
		rm -rf --one-file-system "$debcache/base.tmp" "$base.tmp"
		finish
	fi
	rm -rf --one-file-system "$debcache/base.tmp"
fi
mkdir -p "$root"
if ! tar -C "$root" --numeric-owner -xzf "$base"; then
	nok chroot "unpack $base"
	finish
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# keep what apt downloads (the bind-mounted cache: `apt` itself would drop
# it), no fsync per file (the root is thrown away), no service starts
printf 'APT::Sandbox::User "root";\nDpkg::Use-Pty "0";\nAPT::Keep-Downloaded-Packages "true";\nBinary::apt::APT::Keep-Downloaded-Packages "true";\n' \
	>"$root/etc/apt/apt.conf.d/90deb-check"
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/90deb-check"
mnt -t proc proc "$root/proc" &&
	mnt -t sysfs -o ro sysfs "$root/sys" &&
	mnt --bind /dev "$root/dev" &&
	mnt --bind /dev/pts "$root/dev/pts" &&
	mnt --bind "$debcache/archives" "$root/var/cache/apt/archives" || {
	nok chroot "mount /proc, /sys, /dev and the package cache in the chroot"
	finish
}
ok chroot "fresh $suite minbase root from $(basename "$base") ($(in_chroot 'cat /etc/debian_version'))"

# --- install the four packages with their dependencies from the archive ---
mkdir -p "$root/tmp/debs"
cp "$debs"/nowait-aio-dkms_*_all.deb "$debs"/libnowait0_*.deb "$debs"/libnowait-dev_*.deb \
	"$debs"/nowait-aio-tools_*.deb "$root/tmp/debs/"
rm -f "$root"/tmp/debs/*dbgsym*
t0=$SECONDS
if in_chroot 'apt-get update -q && cd /tmp/debs &&
	apt install -y -q ./nowait-aio-dkms_*.deb ./libnowait0_*.deb ./libnowait-dev_*.deb ./nowait-aio-tools_*.deb' \
	>"$out/install.log" 2>&1 &&
   in_chroot 'dpkg-query -W -f="\${Status}\n" nowait-aio-dkms libnowait0 libnowait-dev nowait-aio-tools' |
	grep -c 'install ok installed' | grep -qx 4; then
	ok install "apt install ./nowait-aio-dkms ./libnowait0 ./libnowait-dev ./nowait-aio-tools: $(grep -m1 -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$out/install.log") ($((SECONDS - t0)) s)"
else
	nok install "apt install of the four packages" "see $out/install.log"
	tailof "$out/install.log" 25
	finish
fi
# what DKMS said while the packages were configured
grep -E '^(dkms|Loading new|Error!|Module build|Building module|Sign|Deprecated|Creating symlink|This indicates|/etc/kernel)' \
	"$out/install.log" | head -n 12 | sed 's/^/#   postinst: /'

# --- DKMS knows the module ---
st=$(in_chroot 'dkms status' 2>&1)
if echo "$st" | grep -qE "^nowait-aio[/,] ?$version"; then
	ok dkms-status "dkms status lists the module: $(echo "$st" | grep nowait-aio | head -n 1)"
else
	nok dkms-status "dkms status lists nowait-aio $version" "$st"
fi
missing=""
for f in dkms.conf Kbuild VERSION include/nowait_aio.h module/Kbuild module/main.c module/compat/compat.h; do
	[ -f "$root/usr/src/nowait-aio-$version/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok dkms-source "/usr/src/nowait-aio-$version holds the DKMS build's files" ||
	nok dkms-source "/usr/src/nowait-aio-$version holds the DKMS build's files" "missing:$missing"

# Debian 12's own kernel headers (dkms Recommends them): the module is
# not built there (BUILD_EXCLUSIVE_KERNEL), and dkms says so with 77
hdr=$(in_chroot 'cd /lib/modules 2>/dev/null && for k in *; do [ -e "$k/build/Makefile" ] && echo "$k"; done' | sort -V | tail -n 1)
if [ -n "$hdr" ]; then
	in_chroot "dkms install -m nowait-aio -v $version -k $hdr" >"$out/build-exclusive.log" 2>&1
	rc=$?
	if [ $rc = 77 ] && grep -q 'BUILD_EXCLUSIVE' "$out/build-exclusive.log"; then
		ok build-exclusive "dkms install for Debian's $hdr headers: skipped by BUILD_EXCLUSIVE_KERNEL, status 77"
	else
		nok build-exclusive "dkms install for $hdr skipped with status 77" "status $rc: $(tail -n 3 "$out/build-exclusive.log" | tr '\n' ' ')"
	fi
else
	skip build-exclusive "no kernel headers in the chroot (dkms's Recommends not installed)"
fi

# --- libnowait through pkg-config ---
cat >"$root/tmp/lnw.c" <<'EOF'
/* links against libnowait through pkg-config; needs no module */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libnowait.h>
#include <nowait_aio.h>

int main(void)
{
	static char buf[4096] __attribute__((aligned(4096)));
	static const char *const names[] = { "none", "native", "module" };
	char path[] = "/var/tmp/lnwXXXXXX";
	struct iocb cb, *cbs[1] = { &cb };
	struct nowait_loop *l;
	struct io_event ev;
	io_context_t ctx = 0;
	int fd = mkstemp(path), dfd, why = 0, n;
	enum nowait_support s;

	if (fd < 0 || RWF_NOWAIT != 8)
		return 1;
	dfd = open(path, O_RDWR | O_DIRECT);
	s = nowait_probe(dfd >= 0 ? dfd : fd, &why);
	printf("nowait_probe: %s (%s)\n", names[s], why ? strerror(why) : "-");
	if (io_setup(8, &ctx) || !(l = nowait_open(ctx, 1)))
		return 1;
	memset(buf, 'x', sizeof(buf));
	io_prep_pwrite(&cb, fd, buf, sizeof(buf), 0);
	if (nowait_submit(l, cbs, 1) != 1)
		return 1;
	n = nowait_getevents(l, 1, 1, &ev, NULL);
	printf("nowait_getevents: %d event(s), res %ld, obj %s\n", n, (long)ev.res,
	       ev.obj == &cb ? "ok" : "wrong");
	nowait_close(l);
	unlink(path);
	return !(n == 1 && (long)ev.res == (long)sizeof(buf) && ev.obj == &cb);
}
EOF
if in_chroot 'apt-get install -y -q pkg-config >/dev/null 2>&1 &&
	flags=$(pkg-config --cflags --libs nowait) && echo "pkg-config --cflags --libs nowait: $flags" &&
	cc -Wall -Wextra -Werror -o /tmp/lnw /tmp/lnw.c $flags && /tmp/lnw' >"$out/pkg-config.log" 2>&1; then
	ok pkg-config "cc \$(pkg-config --cflags --libs nowait) links and runs: $(grep -E '^(pkg-config|nowait_)' "$out/pkg-config.log" | sed 's/^pkg-config --cflags --libs nowait: //' | tr '\n' ';' | sed 's/;$//;s/;/; /g')"
else
	nok pkg-config "a program built with pkg-config --cflags --libs nowait links and runs" "$(tail -n 4 "$out/pkg-config.log" | tr '\n' ' ')"
fi
if in_chroot 'cc -static -o /tmp/lnw-static /tmp/lnw.c $(pkg-config --static --cflags --libs nowait) && /tmp/lnw-static' \
	>"$out/pkg-config-static.log" 2>&1; then
	ok pkg-config-static "cc -static \$(pkg-config --static --libs nowait) links and runs"
else
	nok pkg-config-static "a static program links with pkg-config --static" "$(tail -n 4 "$out/pkg-config-static.log" | tr '\n' ' ')"
fi

# --- the tools ---
rel=$(uname -r)
if nw_kver_native "$rel"; then
	want=3 what="native"
else
	want=2 what="not loaded"
fi
msg=$(in_chroot 'nowait-aio-stat' 2>&1)
rc=$?
msg2=$(in_chroot 'NOWAIT_AIO_RELEASE=4.12.0 nowait-aio-stat --json' 2>&1)
rc2=$?
if [ $rc = $want ] && [ $rc2 = 2 ] && echo "$msg2" | grep -q 'not loaded'; then
	ok stat "nowait-aio-stat on $rel: $what, status $rc ($msg); as 4.12.0: not loaded, status 2"
else
	nok stat "nowait-aio-stat: $what (status $want), as 4.12.0 not loaded (2)" "status $rc: $msg; status $rc2: $msg2"
fi
msg=$(in_chroot 'echo x >/var/tmp/probe.dat && nowait-aio-probe /var/tmp/probe.dat; r=$?; rm -f /var/tmp/probe.dat; exit $r' 2>&1)
rc=$?
if [ $want = 3 ]; then
	if [ $rc = 0 ] && echo "$msg" | grep -q ': native'; then
		ok probe "nowait-aio-probe: $msg"
	elif echo "$msg" | grep -q 'has no O_DIRECT'; then
		skip probe "the chroot's /var/tmp has no O_DIRECT: $msg"
	else
		nok probe "nowait-aio-probe says native on $rel" "status $rc: $msg"
	fi
else
	[ $rc = 1 ] && echo "$msg" | grep -q 'none:' && ok probe "nowait-aio-probe: $msg" ||
		nok probe "nowait-aio-probe says none without the module" "status $rc: $msg"
fi
ex=$root/usr/share/doc/nowait-aio-tools/examples
if [ -f "$ex/modules-load.d/nowait-aio.conf" ] && [ -f "$ex/modprobe.d/nowait-aio.conf" ] &&
   ! grep -hvE '^[[:space:]]*(#|$)' "$ex/modules-load.d/nowait-aio.conf" "$ex/modprobe.d/nowait-aio.conf" | grep -q . &&
   grep -q '^#nowait_aio$' "$ex/modules-load.d/nowait-aio.conf" &&
   grep -q '^#options nowait_aio ' "$ex/modprobe.d/nowait-aio.conf" &&
   [ ! -e "$root/etc/modules-load.d/nowait-aio.conf" ] && [ ! -e "$root/etc/modprobe.d/nowait-aio.conf" ]; then
	ok examples "examples/modules-load.d and modprobe.d nowait-aio.conf installed, commented out, nothing in /etc"
else
	nok examples "example modules-load.d and modprobe.d files, commented out"
fi

# --- DKMS build, signing and install for a hand-built 4.12.0 tree ---
tree=""
[ -e "$kernels/4.12.0" ] && tree=$(readlink -f "$kernels/4.12.0")
built="" sf=""
kdir=/usr/src/kernel-4.12.0
dkmsmod=$root/var/lib/dkms/nowait-aio/$version/4.12.0/x86_64/module
unpack_ko() { # built module (maybe compressed), destination .ko
	case $1 in
	*.ko) cp "$1" "$2" ;;
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*.ko.gz) gzip -dc "$1" >"$2" ;;
	*.ko.zst) zstd -qdc "$1" >"$2" ;;
	esac
}
if [ -n "$tree" ] && [ -f "$tree/.config" ] && [ -f "$tree/Module.symvers" ]; then
	mkdir -p "$root$kdir"
	if mnt_ro "$tree" "$kdir" && mnt_source "$tree"; then
		# 1. the build, unsigned (the tree has no sign-file to find)
		t0=$SECONDS
		in_chroot "nice -n 10 dkms build -m nowait-aio -v $version -k 4.12.0 -j 1 \
			--kernelsourcedir $kdir" >"$out/dkms-build.log" 2>&1 &&
			built=$(ls "$dkmsmod"/nowait_aio.ko* 2>/dev/null | head -n 1)
		if [ -n "$built" ]; then
			unpack_ko "$built" "$out/nowait_aio.ko"
			vm=$(modinfo -F vermagic "$out/nowait_aio.ko" 2>/dev/null)
			mv=$(modinfo -F version "$out/nowait_aio.ko" 2>/dev/null)
			if [ "${vm%% *}" = 4.12.0 ] && [ "$mv" = "$version" ]; then
				ok dkms-build-4.12.0 "dkms build -k 4.12.0 --kernelsourcedir $tree (read-only) in $((SECONDS - t0)) s: version $mv, vermagic '$vm'; copied to test/deb/out/nowait_aio.ko"
			else
				nok dkms-build-4.12.0 "the DKMS-built module is 4.12.0's" "vermagic '$vm', version '$mv'"
			fi
		else
			nok dkms-build-4.12.0 "dkms build -k 4.12.0 --kernelsourcedir $tree" "see $out/dkms-build.log"
			tailof "$out/dkms-build.log" 20
			mk=$(ls "$root"/var/lib/dkms/nowait-aio/"$version"/build/make.log 2>/dev/null)
			[ -n "$mk" ] && cp "$mk" "$out/dkms-make.log" && tailof "$out/dkms-make.log" 20
		fi
	else
		nok dkms-build-4.12.0 "bind-mount $tree (and its source directory) read-only into the chroot"
	fi
else
	skip dkms-build-4.12.0 "no built kernel tree at $kernels/4.12.0 (with .config and Module.symvers)"
fi

# 2. signing by hand: a throwaway key, the tree's scripts/sign-file (as the
# tree built it, else built here from its source: with CONFIG_MODULE_SIG
# off the tree has none), modinfo's signer
if [ -z "$tree" ] || [ ! -f "$tree/scripts/sign-file.c" ]; then
	skip sign "no 4.12.0 tree with scripts/sign-file"
elif [ -z "$built" ]; then
	skip sign "no DKMS-built module to sign"
else
	cp "$out/nowait_aio.ko" "$root/tmp/nowait_aio.signed.ko"
	if [ -x "$tree/scripts/sign-file" ]; then
		sf=$kdir/scripts/sign-file how="the tree's scripts/sign-file"
	else
		sf=/tmp/sign-file how="built from the tree's scripts/sign-file.c"
	fi
	if in_chroot "set -e
		apt-get install -y -q openssl libssl-dev >/dev/null
		[ $sf != /tmp/sign-file ] || cc -o /tmp/sign-file $kdir/scripts/sign-file.c -lcrypto 2>/dev/null
		cd /tmp
		openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -sha256 \
			-subj '/CN=nowait-aio deb-check throwaway key/' \
			-keyout throwaway.key -outform DER -out throwaway.der 2>/dev/null
		$sf sha256 throwaway.key throwaway.der nowait_aio.signed.ko
		modinfo nowait_aio.signed.ko | grep -E '^(signer|sig_key|sig_hashalgo):'" >"$out/sign.log" 2>&1 &&
	   grep -q '^signer: *nowait-aio deb-check throwaway key' "$out/sign.log"; then
		cp "$root/tmp/nowait_aio.signed.ko" "$out/nowait_aio.signed.ko"
		cp "$root/tmp/throwaway.der" "$out/throwaway-cert.der"
		ok sign "sign-file ($how) sha256 with a throwaway openssl key; modinfo: $(grep -E '^(signer|sig_hashalgo)' "$out/sign.log" | tr -s ' ' | tr '\n' ';' | sed 's/;$//;s/;/; /')"
	else
		nok sign "sign with the tree's sign-file, modinfo lists the signer" "$(tail -n 4 "$out/sign.log" | tr '\n' ' ')"
		sf=""
	fi
fi

# 3. DKMS's own signing: with a sign-file to use (framework.conf's
# sign_file) DKMS makes its MOK key pair and signs what it builds
if [ -z "$built" ]; then
	skip dkms-sign-4.12.0 "no DKMS build for 4.12.0"
elif [ -z "$sf" ]; then
	skip dkms-sign-4.12.0 "no sign-file for the 4.12.0 tree"
else
	mkdir -p "$root/etc/dkms/framework.conf.d"
	echo "sign_file=\"$sf\"" >"$root/etc/dkms/framework.conf.d/deb-check.conf"
	in_chroot "nice -n 10 dkms build --force -m nowait-aio -v $version -k 4.12.0 -j 1 \
		--kernelsourcedir $kdir" >"$out/dkms-sign.log" 2>&1
	b=$(ls "$dkmsmod"/nowait_aio.ko* 2>/dev/null | head -n 1)
	signer=""
	if [ -n "$b" ]; then
		unpack_ko "$b" "$out/nowait_aio.dkms-signed.ko"
		signer=$(modinfo -F signer "$out/nowait_aio.dkms-signed.ko" 2>/dev/null)
	fi
	if [ "$signer" = "DKMS module signing key" ] && grep -q '^Signing module' "$out/dkms-sign.log" &&
	   [ -f "$root/var/lib/dkms/mok.key" ] && [ -f "$root/var/lib/dkms/mok.pub" ]; then
		ok dkms-sign-4.12.0 "dkms build with sign_file=$sf: made /var/lib/dkms/mok.key and mok.pub, signed the module; modinfo signer: $signer"
	else
		nok dkms-sign-4.12.0 "DKMS signs with its MOK key" "signer '$signer'; see $out/dkms-sign.log"
		tailof "$out/dkms-sign.log" 10
	fi
fi

# 4. dkms install, as on a machine that runs 4.12.0: its modules
# directory, and build pointing at its tree
if [ -n "$built" ]; then
	mkdir -p "$root/lib/modules/4.12.0"
	ln -sfn "$kdir" "$root/lib/modules/4.12.0/build"
	if in_chroot "dkms install -m nowait-aio -v $version -k 4.12.0" >"$out/dkms-install.log" 2>&1 &&
	   p=$(in_chroot 'modinfo -k 4.12.0 -n nowait_aio' 2>&1) &&
	   in_chroot 'dkms status' | grep -q "4.12.0.*installed"; then
		ok dkms-install-4.12.0 "dkms install -k 4.12.0: modprobe would load $p ($(in_chroot 'dkms status' | grep 4.12.0))"
	else
		nok dkms-install-4.12.0 "dkms install -k 4.12.0" "see $out/dkms-install.log"
		tailof "$out/dkms-install.log" 10
	fi
else
	skip dkms-install-4.12.0 "no DKMS build for 4.12.0"
fi

# --- purge: nothing left ---
if in_chroot 'apt remove --purge -y -q nowait-aio-dkms libnowait0 libnowait-dev nowait-aio-tools' \
	>"$out/purge.log" 2>&1; then
	st=$(in_chroot 'dkms status' 2>&1)
	left=$(cd "$root" && ls -d usr/src/nowait-aio-* var/lib/dkms/nowait-aio \
		lib/modules/*/updates/dkms/nowait_aio.ko* usr/sbin/nowait-aio-* \
		usr/lib/*/libnowait* usr/lib/*/pkgconfig/nowait.pc usr/include/libnowait.h \
		usr/share/doc/nowait-aio-tools 2>/dev/null | tr '\n' ' ')
	pk=$(in_chroot 'dpkg -l nowait-aio-dkms libnowait0 libnowait-dev nowait-aio-tools 2>/dev/null' | grep -E '^[a-z][a-z] ' | grep -v '^un' | awk '{ print $1 ":" $2 }' | tr '\n' ' ')
	if [ -z "$st" ] && [ -z "$left" ] && [ -z "$pk" ]; then
		ok purge "apt remove --purge of the four: dkms status empty, nothing under /usr/src/nowait-aio-*, /var/lib/dkms or /lib/modules"
	else
		nok purge "apt remove --purge leaves nothing" "dkms status: '$st'; left: $left; packages: $pk"
	fi
else
	nok purge "apt remove --purge of the four packages" "see $out/purge.log"
	tailof "$out/purge.log"
fi

# --- done: unmount, drop the chroot ---
cleanup
if [ "$keep" = 1 ]; then
	note "chroot kept in $root (--keep)"
elif mounted_below; then
	note "not removing $root: something is still mounted below it"
else
	rm -rf --one-file-system "$root"
fi
finish
