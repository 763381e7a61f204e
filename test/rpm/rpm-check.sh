#!/bin/bash
# make rpm-check: build the RPMs (make rpm), check them with rpmlint and
# against what EL7 (rpm 4.11) reads, check each package's files,
# dependencies and scriptlets, run the DKMS scriptlets with sh against a
# missing, a stand-in and (as root) the real dkms, rebuild the SRPM as on
# EL7 (its compiler flags, and libaio/kernel headers without the name
# aio_rw_flags), then (as root) install the packages into a scratch root
# with rpm --root, use them there, erase them and check that nothing of
# theirs is left.  kmod-nowait-aio is built and checked when a built
# 3.10.0-1160.el7 tree is there: KMOD_KDIR, else
# $NOWAIT_KERNELS/3.10.0-1160.el7 (default ~/.cache/nowait-aio/kernels).
#
# One line per check: "ok rpm.<name> - <what>", "not ok rpm.<name> -
# <what>: <got> vs <want>"; "skip rpm.<name> - <why>" for a check that
# cannot run here (not counted); "# ..." notes; the last line is
# "N passed, N failed", and the exit status 0 only if none failed.  When it
# cannot run at all (rpm tools missing and not root to install them) it
# prints a line starting "SKIP:" and "0 passed, 0 failed".  Logs in
# build/rpm-check/.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
version=$(cat "$top/VERSION")
out=$top/build/rpm-check
rpms=$top/build/rpm
el7_kernel=3.10.0-1160.el7
np=0 nf=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

ok() { echo "ok rpm.$1 - $2"; np=$((np + 1)); }
nok() { echo "not ok rpm.$1 - $2${3:+: $3}"; nf=$((nf + 1)); }
skip() { echo "skip rpm.$1 - $2"; }
note() { echo "# $*"; }
oneline() { tr '\n' ' ' | sed 's/  */ /g; s/ $//'; }
tailof() { tail -n "${2:-10}" "$1" 2>/dev/null | sed 's/^/#   /'; }
finish() {
	echo "$np passed, $nf failed"
	[ "$nf" -eq 0 ]
	exit
}
# name, what, got, want: ok when equal
same() {
	if [ "$3" = "$4" ]; then
		ok "$1" "$2"
	else
		nok "$1" "$2" "$(printf '%s' "$3" | oneline) vs $(printf '%s' "$4" | oneline)"
	fi
}
# name, what, got list file, want list file (sorted, one a line)
same_list() {
	local extra missing
	extra=$(comm -23 "$3" "$4" | oneline)
	missing=$(comm -13 "$3" "$4" | oneline)
	if [ -z "$extra$missing" ]; then
		ok "$1" "$2 ($(wc -l <"$4") paths)"
	else
		nok "$1" "$2" "extra [${extra}], lacking [${missing}] vs exactly the $(wc -l <"$4") expected"
	fi
}

mkdir -p "$out"
rm -f "$out"/*.log "$out"/*.txt

# --- the tools: rpm, rpmbuild, rpmlint, and what the build needs ---
missing=""
for c in rpm rpmbuild rpmlint find-debuginfo eu-strip gcc make git; do
	command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
[ -f /usr/include/libaio.h ] || missing="$missing libaio.h"
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -q rpm rpmlint debugedit elfutils \
		gcc make git libaio-dev >"$out/host-deps.log" 2>&1; then
		ok host-deps "apt-get install rpm rpmlint debugedit elfutils gcc make git libaio-dev (lacked:$missing)"
	else
		why="as root, apt-get install rpm rpmlint debugedit elfutils gcc make git libaio-dev"
		[ -f "$out/host-deps.log" ] && why="apt-get install failed: see $out/host-deps.log"
		echo "SKIP: rpm-check needs$missing ($why)"
		echo "0 passed, 0 failed"
		exit 0
	fi
fi
isroot=0
[ "$(id -u)" = 0 ] && isroot=1
arch=$(rpm -E '%{_arch}')
libdir=$(rpm -E '%{_libdir}')
nodeps=""
rpm -q rpm >/dev/null 2>&1 || nodeps=--nodeps

# --- the kmod's kernel tree ---
kdir=${KMOD_KDIR:-}
if [ -z "$kdir" ] && [ -f "$nw_kernels/$el7_kernel/Module.symvers" ] &&
   [ -f "$nw_kernels/$el7_kernel/include/config/kernel.release" ]; then
	kdir=$nw_kernels/$el7_kernel
fi
krel=""
if [ -n "$kdir" ]; then
	krel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null)
	note "kmod-nowait-aio: built against $kdir ($krel)"
fi

# --- build: make rpm ---
t0=$SECONDS
if nice -n 10 make -s -C "$top" rpm RPM_TOP="$rpms" ${kdir:+KMOD_KDIR="$kdir"} >"$out/build.log" 2>&1; then
	built=$(cd "$rpms" && find SRPMS RPMS -name '*.rpm' | LC_ALL=C sort | oneline)
	ok build "make rpm in $((SECONDS - t0)) s: $built"
else
	nok build "make rpm" "failed vs success; see $out/build.log"
	tailof "$out/build.log" 15
	finish
fi
srpm=$rpms/SRPMS/nowait-aio-$version-1.src.rpm
pkg() { find "$rpms/RPMS" -name "$1-$version-1*.rpm" | head -n 1; }
dkms=$(pkg nowait-aio-dkms) lib=$(pkg libnowait) dev=$(pkg libnowait-devel)
tools=$(pkg nowait-aio-tools) dbg=$(pkg nowait-aio-debuginfo)
kmod="" ksrpm=""
[ -n "$kdir" ] && kmod=$(pkg kmod-nowait-aio) ksrpm=$rpms/SRPMS/kmod-nowait-aio-$version-1.src.rpm
have=""
for f in "$srpm" "$dkms" "$lib" "$dev" "$tools" "$dbg" ${kdir:+"$kmod" "$ksrpm"}; do
	[ -n "$f" ] && [ -f "$f" ] && have="$have $(basename "$f")"
done
want="nowait-aio-$version-1.src.rpm nowait-aio-dkms libnowait libnowait-devel nowait-aio-tools nowait-aio-debuginfo${kdir:+ kmod-nowait-aio(+SRPM)}"
if [ "$(echo "$have" | wc -w)" = "$([ -n "$kdir" ] && echo 8 || echo 6)" ]; then
	ok packages "the SRPM and nowait-aio-dkms (noarch), libnowait, libnowait-devel, nowait-aio-tools, nowait-aio-debuginfo ($arch)${kdir:+, kmod-nowait-aio and its SRPM}"
else
	nok packages "the packages make rpm makes" "$have vs $want"
	finish
fi
if [ -z "$kdir" ]; then
	line=$(grep -m1 '^nowait-aio: kmod-nowait-aio skipped' "$out/build.log")
	if [ -n "$line" ]; then
		ok kmod-skipped "no KMOD_KDIR: make rpm says so in one line: \"$line\""
	else
		nok kmod-skipped "make rpm without KMOD_KDIR says it skipped the kmod" "no such line vs 'nowait-aio: kmod-nowait-aio skipped: ...'"
	fi
	skip kmod "no built $el7_kernel tree at $nw_kernels/$el7_kernel (Module.symvers) and no KMOD_KDIR: the kmod's checks do not run"
fi
main_pkgs=("$dkms" "$lib" "$dev" "$tools" "$dbg")
all_rpms=("$srpm" "${main_pkgs[@]}")
[ -n "$kdir" ] && all_rpms+=("$ksrpm" "$kmod")

# --- rpmlint: errors fail; every warning kept is filtered with its reason ---
lint() { # name, rpmlintrc, packages...
	local name=$1 rc=$2 log sum e w
	shift 2
	log=$out/$name.txt
	rpmlint -c "$top/rpm/rpmlint.toml" -r "$rc" "$@" >"$log" 2>&1
	sum=$(grep -E '[0-9]+ packages? and [0-9]+ specfiles? checked' "$log" | tail -n 1 | sed 's/^ *//')
	e=$(echo "$sum" | sed -n 's/.* \([0-9][0-9]*\) errors\{0,1\},.*/\1/p')
	w=$(echo "$sum" | sed -n 's/.* \([0-9][0-9]*\) warnings\{0,1\},.*/\1/p')
	if [ -z "$sum" ]; then
		nok "$name" "rpmlint -c rpm/rpmlint.toml -r ${rc#"$top"/} on $# packages" "no summary line vs one; see $log"
		tailof "$log"
		return
	fi
	if [ "$e" = 0 ]; then
		ok "$name" "rpmlint on $# packages: $sum"
	else
		nok "$name" "rpmlint errors" "$e vs 0 ($(grep ': E: ' "$log" | head -n 4 | oneline))"
	fi
	if [ "$w" = 0 ]; then
		ok "$name-warnings" "no warning left that ${rc#"$top"/} does not give a reason for"
	else
		nok "$name-warnings" "rpmlint warnings without a reason in ${rc#"$top"/}" "$w vs 0 ($(grep ': W: ' "$log" | head -n 4 | oneline))"
	fi
}
lint rpmlint "$top/rpm/nowait-aio.rpmlintrc" "$srpm" "${main_pkgs[@]}"
[ -n "$kdir" ] && lint rpmlint-kmod "$top/rpm/kmod-nowait-aio.rpmlintrc" "$ksrpm" "$kmod"

# --- what EL7's rpm 4.11 reads ---
# rpmlib() features rpm 4.11 provides (rpm --showrc of 4.11.3)
el7_rpmlib=" CompressedFileNames PayloadFilesHavePrefix VersionedDependencies ExplicitPackageProvide HeaderLoadSortsTags ScriptletInterpreterArgs PartialHardlinkSets ConcurrentAccess BuiltinLuaScripts FileDigests FileCaps PayloadIsBzip2 PayloadIsXz PayloadIsLzma ScriptletExpansion TildeInVersions "
bad="" used=""
for p in "${all_rpms[@]}"; do
	for f in $(rpm -qp --requires "$p" 2>/dev/null | sed -n 's/^rpmlib(\([A-Za-z0-9]*\)).*/\1/p'); do
		case $el7_rpmlib in
		*" $f "*) case " $used " in *" $f "*) ;; *) used="$used $f" ;; esac ;;
		*) bad="$bad $(basename "$p"):$f" ;;
		esac
	done
done
same el7-rpmlib "every rpmlib() feature the packages need is one EL7's rpm 4.11 has:$used" "${bad:-none}" none
comp=$(for p in "${all_rpms[@]}"; do rpm -qp --qf '%{PAYLOADCOMPRESSOR}\n' "$p"; done | sort -u | oneline)
case " $comp " in
*" zstd "* | *" lzma "*) nok el7-payload "payloads EL7's rpm 4.11 can unpack" "$comp vs xz or gzip" ;;
*) ok el7-payload "payloads compressed with $comp (rpm 4.11 unpacks them), SHA-256 file digests" ;;
esac
# tags and macros that rpm 4.11 does not know (4.12+: weak and rich
# dependencies; Fedora 28+ macros; rpm 4.17's %{defined})
newer=$(grep -nE '^(Recommends|Suggests|Supplements|Enhances|OrderWithRequires|BuildSystem):|%(ldconfig_scriptlets|make_build|set_build_flags|autopatch|py3_)|%\{(defined|undefined)|^(Build)?(Requires|Provides|Conflicts|Obsoletes)(\([a-z,]+\))?:[[:space:]]*\(' \
	"$top/rpm/nowait-aio.spec" "$top/rpm/kmod-nowait-aio.spec" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' |
	sed "s|$top/||" | oneline)
same el7-spec "the specs use no tag or macro newer than rpm 4.11 (weak/rich dependencies, %ldconfig_scriptlets, %make_build, %{defined})" "${newer:-none}" none

# --- the SRPM: the spec with the version in, and the checkout's tarball ---
tarball=$rpms/SOURCES/nowait-aio-$version.tar.gz
srclist=$(rpm -qp --qf '[%{FILENAMES}\n]' "$srpm" | sort | oneline)
same srpm-files "the SRPM holds nowait-aio.spec and nowait-aio-$version.tar.gz" \
	"$srclist" "nowait-aio-$version.tar.gz nowait-aio.spec"
same srpm-version "the SRPM's spec says Version: $version (the VERSION file), License GPL-2.0-only" \
	"$(rpm -qp --qf '%{VERSION} %{LICENSE}' "$srpm")" "$version GPL-2.0-only"
dg=$(rpm -qp --qf '[%{FILENAMES} %{FILEDIGESTS}\n]' "$srpm" | awk -v f="nowait-aio-$version.tar.gz" '$1 == f { print $2 }')
same srpm-tarball "the SRPM's tarball is the one make rpm made (sha256)" "$dg" "$(sha256sum "$tarball" | cut -d' ' -f1)"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	tar -tzf "$tarball" | sed -n "s|^nowait-aio-$version/||p" | grep -v '/$' | grep . | LC_ALL=C sort >"$tmp/tar.list"
	git -C "$top" ls-files -c -o --exclude-standard | while IFS= read -r f; do
		[ -f "$top/$f" ] && printf '%s\n' "$f"
	done | LC_ALL=C sort >"$tmp/git.list"
	same_list tarball "Source0 holds the checkout's tracked and new files under nowait-aio-$version/ (git ls-files -c -o --exclude-standard), nothing else" \
		"$tmp/tar.list" "$tmp/git.list"
else
	skip tarball "not a git checkout: the tarball's list is not compared"
fi

# --- each package's files ---
# the package's files and symlinks (not directories, not rpm's build-id
# artifacts), the doc and license directories written @doc/ and @lic/
files_of() { # package file
	local n
	n=$(rpm -qp --qf '%{NAME}' "$1")
	rpm -qp --qf '[%{FILEMODES:perms} %{FILEFLAGS:fflags}|%{FILENAMES}\n]' "$1" |
		awk -F'|' '$1 !~ /^d/ && $1 !~ / .*a/ { print $2 }' |
		sed -e "s|^/usr/share/doc/$n\(-$version\)\{0,1\}/|@doc/|" \
			-e "s|^/usr/share/licenses/$n\(-$version\)\{0,1\}/|@lic/|" | LC_ALL=C sort
}
# the DKMS source exactly as `make install-dkms-src` lays it out
make -s -C "$top" install-dkms-src DESTDIR="$tmp/dkmsref" >"$out/install-dkms-src.log" 2>&1
{
	(cd "$tmp/dkmsref" && find . -type f | sed 's|^\.||')
	echo @doc/README.md
	echo @lic/LICENSE
} | LC_ALL=C sort >"$tmp/want.dkms"
files_of "$dkms" >"$tmp/got.dkms"
same_list files-dkms "nowait-aio-dkms: /usr/src/nowait-aio-$version/ as make install-dkms-src lays it out (dkms.conf, Kbuild, VERSION, include/nowait_aio.h, module/*.c, *.h, compat/*.h), README.md, LICENSE" \
	"$tmp/got.dkms" "$tmp/want.dkms"
printf '%s\n' "$libdir/libnowait.so.0" @lic/LICENSE | LC_ALL=C sort >"$tmp/want.lib"
files_of "$lib" >"$tmp/got.lib"
same_list files-libnowait "libnowait: $libdir/libnowait.so.0, LICENSE" "$tmp/got.lib" "$tmp/want.lib"
{
	printf '%s\n' /usr/include/libnowait.h /usr/include/nowait_aio.h "$libdir/libnowait.so" \
		"$libdir/pkgconfig/nowait.pc"
	for m in libnowait nowait_probe nowait_open nowait_submit nowait_getevents nowait_get_stats nowait_close; do
		echo "/usr/share/man/man3/$m.3.gz"
	done
} | LC_ALL=C sort >"$tmp/want.dev"
files_of "$dev" >"$tmp/got.dev"
same_list files-devel "libnowait-devel: the two headers, libnowait.so, pkgconfig/nowait.pc, libnowait.3 and its six function names (no static library)" \
	"$tmp/got.dev" "$tmp/want.dev"
{
	printf '%s\n' /usr/sbin/nowait-aio-probe /usr/sbin/nowait-aio-stat \
		/usr/share/man/man4/nowait_aio.4.gz /usr/share/man/man8/nowait-aio-probe.8.gz \
		/usr/share/man/man8/nowait-aio-stat.8.gz @lic/LICENSE
	(cd "$top" && find examples -type f | sed 's|^|@doc/|')
} | LC_ALL=C sort >"$tmp/want.tools"
files_of "$tools" >"$tmp/got.tools"
same_list files-tools "nowait-aio-tools: the two tools in /usr/sbin, their man pages and nowait_aio.4, examples/ (as Debian's nowait-aio-tools.examples), LICENSE" \
	"$tmp/got.tools" "$tmp/want.tools"
modes=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$lib" "$tools" "$dev" |
	grep -E ' (/usr/sbin/nowait-aio-(probe|stat)|.*/libnowait\.so(\.0)?)$' | sed 's| /.*/| |' | LC_ALL=C sort -k2 | oneline)
same modes "modes: the tools and libnowait.so.0 0755 (EL7's rpm keeps them), libnowait.so a link" "$modes" \
	"lrwxrwxrwx libnowait.so -rwxr-xr-x libnowait.so.0 -rwxr-xr-x nowait-aio-probe -rwxr-xr-x nowait-aio-stat"
dl=$(rpm -qlp "$dbg")
miss=""
for b in "$libdir/libnowait.so.0" /usr/sbin/nowait-aio-probe /usr/sbin/nowait-aio-stat; do
	echo "$dl" | grep -q "^/usr/lib/debug${b}[-.].*debug$" || miss="$miss $b"
done
for s in lib/libnowait.c tools/nowait-aio-probe.c tools/nowait-aio-stat.c; do
	echo "$dl" | grep -q "^/usr/src/debug/.*/$s$" || miss="$miss $s"
done
same files-debuginfo "nowait-aio-debuginfo: the .debug files of libnowait.so.0 and the two tools, and their sources (built with -g, stripped by rpm, not by the Makefile)" "${miss:-none}" none

# --- dependencies ---
reqs() { rpm -qp --requires "$1" | grep -v '^rpmlib(' | sort -u; }
r=$(reqs "$dkms" | oneline)
same deps-dkms "nowait-aio-dkms: noarch, requires dkms, kernel-devel, gcc, make (and /bin/sh for its scriptlets)" \
	"$(rpm -qp --qf '%{ARCH}' "$dkms") $r" "noarch /bin/sh dkms gcc kernel-devel make"
r=$(reqs "$dev")
isa=$(rpm -qp --qf '%{NAME}(%{ARCH})' "$lib" | sed 's/(x86_64)/(x86-64)/')
if echo "$r" | grep -qx "$isa = $version-1" && echo "$r" | grep -q '^libaio-devel' &&
   rpm -qp --provides "$dev" | grep -qx "pkgconfig(nowait) = $version"; then
	ok deps-devel "libnowait-devel requires $isa = $version-1 and libaio-devel, provides pkgconfig(nowait) = $version"
else
	nok deps-devel "libnowait-devel's dependencies" "$(echo "$r" | oneline); provides $(rpm -qp --provides "$dev" | oneline) vs $isa = $version-1, libaio-devel, pkgconfig(nowait) = $version"
fi
if rpm -qp --provides "$lib" | grep -q '^libnowait\.so\.0()' && reqs "$lib" | grep -q '^libaio\.so\.1'; then
	ok deps-libnowait "libnowait provides libnowait.so.0, requires libaio.so.1 (found by rpm's ELF dependency generator)"
else
	nok deps-libnowait "libnowait's soname dependencies" "$(rpm -qp --provides "$lib" | oneline) / $(reqs "$lib" | oneline) vs libnowait.so.0() / libaio.so.1"
fi
g=$( (reqs "$lib"; reqs "$tools") | sed -n 's/.*(GLIBC_\([0-9.]*\)).*/\1/p' | sort -V | tail -n 1)
note "libnowait and the tools built here need glibc $g (Debian's): for EL7 (glibc 2.17) rebuild the SRPM there; nowait-aio-dkms (noarch) and the kmod install as they are"

# --- scriptlets, as rpm -q --scripts shows them ---
sc=$(rpm -qp --scripts "$dkms")
miss=""
for want in "postinstall scriptlet (using /bin/sh)" "dkms add -m nowait-aio -v $version --rpm_safe_upgrade" \
	"dkms build -m nowait-aio -v $version -k \"\$kver\"" "dkms install -m nowait-aio -v $version -k \"\$kver\"" \
	"/lib/modules/\$kver/build/Makefile" "preuninstall scriptlet (using /bin/sh)" \
	"dkms remove -m nowait-aio -v $version --all --rpm_safe_upgrade"; do
	echo "$sc" | grep -qF -- "$want" || miss="$miss [$want]"
done
same scripts-dkms "nowait-aio-dkms: %post dkms add --rpm_safe_upgrade, then dkms build and install for the running kernel if /lib/modules/\$(uname -r)/build is there; %preun dkms remove --all --rpm_safe_upgrade" \
	"${miss:-all there}" "all there"
same scripts-libnowait "libnowait: %post and %postun run /sbin/ldconfig (-p, EL7's way)" \
	"$(rpm -qp --scripts "$lib" | oneline)" "postinstall program: /sbin/ldconfig postuninstall program: /sbin/ldconfig"
same scripts-none "libnowait-devel, nowait-aio-tools and nowait-aio-debuginfo have no scriptlets" \
	"$(rpm -qp --scripts "$dev" "$tools" "$dbg" | oneline)" ""

# --- the DKMS scriptlets run with sh: never fail, always say what happened ---
rpm -qp --qf '%{POSTIN}\n' "$dkms" >"$tmp/post.sh"
rpm -qp --qf '%{PREUN}\n' "$dkms" >"$tmp/preun.sh"
mkdir -p "$tmp/bin.nodkms" "$tmp/bin.fake"
for c in grep uname cat; do
	ln -sf "$(command -v "$c")" "$tmp/bin.nodkms/$c"
	ln -sf "$(command -v "$c")" "$tmp/bin.fake/$c"
done
# a stand-in dkms: logs its arguments; DKMS_FAIL=<action> fails that one,
# DKMS_ADDED=1 makes "status" report the module as added
cat >"$tmp/bin.fake/dkms" <<'EOF'
#!/bin/sh
echo "$*" >>"$DKMS_LOG"
[ "$1" = status ] && [ "${DKMS_ADDED:-0}" = 1 ] && echo "nowait-aio/$4: added"
[ "$1" = "${DKMS_FAIL:-}" ] && { echo "fake dkms: $1 failed" >&2; exit 10; }
exit 0
EOF
# uname -r says FAKE_KVER
rm -f "$tmp/bin.fake/uname"
cat >"$tmp/bin.fake/uname" <<EOF
#!/bin/sh
[ "\$1" = -r ] && [ -n "\${FAKE_KVER:-}" ] && { echo "\$FAKE_KVER"; exit 0; }
exec $(command -v uname) "\$@"
EOF
chmod 755 "$tmp/bin.fake/dkms" "$tmp/bin.fake/uname"
run_script() { # name, script, PATH dir, env assignments...
	local name=$1 script=$2 dir=$3
	shift 3
	: >"$tmp/dkms.log"
	env -i PATH="$dir" DKMS_LOG="$tmp/dkms.log" "$@" /bin/sh "$script" >"$tmp/$name.out" 2>&1
	echo $?
}
# name, what, status, output name, output pattern, dkms calls wanted
script_case() {
	local got_calls
	got_calls=$(oneline <"$tmp/dkms.log")
	if [ "$3" = 0 ] && grep -qE "$5" "$tmp/$4.out" && [ "$got_calls" = "$6" ]; then
		ok "$1" "$2: status 0, says \"$(grep -m1 -oE "$5.{0,60}" "$tmp/$4.out")...\""
	else
		nok "$1" "$2" "status $3, output '$(head -c 300 "$tmp/$4.out" | oneline)', dkms calls '$got_calls' vs status 0, /$5/, '$6'"
	fi
}
rc=$(run_script post-nodkms "$tmp/post.sh" "$tmp/bin.nodkms")
script_case post-no-dkms "%post without dkms (an install with --nodeps)" "$rc" post-nodkms "dkms not found" ""
kv=$(cd /lib/modules 2>/dev/null && for k in *; do [ -f "$k/build/Makefile" ] && echo "$k"; done | head -n 1)
if [ -n "$kv" ]; then
	rc=$(run_script post-build "$tmp/post.sh" "$tmp/bin.fake" FAKE_KVER="$kv")
	script_case post-build "%post with dkms and the running kernel's devel tree ($kv's)" "$rc" post-build \
		"built and installed for $kv" "status -m nowait-aio -v $version add -m nowait-aio -v $version --rpm_safe_upgrade build -m nowait-aio -v $version -k $kv install -m nowait-aio -v $version -k $kv"
	rc=$(run_script post-buildfail "$tmp/post.sh" "$tmp/bin.fake" FAKE_KVER="$kv" DKMS_FAIL=build)
	script_case post-build-fails "%post when dkms build fails (a native or unsupported kernel)" "$rc" post-buildfail \
		"not built for $kv" "status -m nowait-aio -v $version add -m nowait-aio -v $version --rpm_safe_upgrade build -m nowait-aio -v $version -k $kv"
	rc=$(run_script post-reinstall "$tmp/post.sh" "$tmp/bin.fake" FAKE_KVER="$kv" DKMS_ADDED=1)
	script_case post-reinstall "%post when the module is registered already (a reinstall: add only for --rpm_safe_upgrade's lock)" "$rc" post-reinstall \
		"built and installed" "status -m nowait-aio -v $version add -m nowait-aio -v $version --rpm_safe_upgrade build -m nowait-aio -v $version -k $kv install -m nowait-aio -v $version -k $kv"
else
	skip post-build "no /lib/modules/*/build/Makefile on this host to stand for the running kernel's devel tree"
fi
rc=$(run_script post-nodevel "$tmp/post.sh" "$tmp/bin.fake" FAKE_KVER=nw-rpm-check-no-such-release)
script_case post-no-devel "%post without the running kernel's devel tree" "$rc" post-nodevel \
	"no kernel-devel for the running kernel nw-rpm-check-no-such-release" "status -m nowait-aio -v $version add -m nowait-aio -v $version --rpm_safe_upgrade"
rc=$(run_script post-addfail "$tmp/post.sh" "$tmp/bin.fake" FAKE_KVER=nw-rpm-check-no-such-release DKMS_FAIL=add)
script_case post-add-fails "%post when dkms add fails" "$rc" post-addfail \
	"dkms add -m nowait-aio -v $version failed" "status -m nowait-aio -v $version add -m nowait-aio -v $version --rpm_safe_upgrade"
rc=$(run_script preun "$tmp/preun.sh" "$tmp/bin.fake")
if [ "$rc" = 0 ] && [ "$(oneline <"$tmp/dkms.log")" = "remove -m nowait-aio -v $version --all --rpm_safe_upgrade" ]; then
	ok preun "%preun runs dkms remove -m nowait-aio -v $version --all --rpm_safe_upgrade, status 0"
else
	nok preun "%preun's dkms call" "status $rc, '$(oneline <"$tmp/dkms.log")' vs 0, 'remove -m nowait-aio -v $version --all --rpm_safe_upgrade'"
fi
rc=$(run_script preun-nodkms "$tmp/preun.sh" "$tmp/bin.nodkms")
script_case preun-no-dkms "%preun without dkms" "$rc" preun-nodkms "dkms not found" ""
rc=$(run_script preun-fail "$tmp/preun.sh" "$tmp/bin.fake" DKMS_FAIL=remove)
script_case preun-remove-fails "%preun when dkms remove fails" "$rc" preun-fail \
	"dkms remove -m nowait-aio -v $version --all failed" "remove -m nowait-aio -v $version --all --rpm_safe_upgrade"

# --- the SRPM rebuilt as on EL7 ---
# EL7's %optflags and %__global_ldflags (redhat-rpm-config 9.1.0), gcc
# 4.8's default C dialect, and libaio.h / linux/aio_abi.h as EL7's
# libaio-devel 0.3.109 and kernel-headers 3.10 have them: the RWF_* word of
# struct iocb named __pad2 and aio_reserved1, not aio_rw_flags (CPATH puts
# them before the system's headers)
mkdir -p "$tmp/el7inc/linux" "$tmp/el7top"
sed 's/aio_rw_flags/__pad2/g' /usr/include/libaio.h >"$tmp/el7inc/libaio.h"
aio_abi=$(echo '#include <linux/aio_abi.h>' | gcc -E -x c - 2>/dev/null | sed -n 's/^# [0-9]* "\(.*aio_abi\.h\)".*/\1/p' | head -n 1)
sed 's/aio_rw_flags/aio_reserved1/g' "${aio_abi:-/usr/include/linux/aio_abi.h}" >"$tmp/el7inc/linux/aio_abi.h"
el7_optflags="-O2 -g -pipe -Wall -Wp,-D_FORTIFY_SOURCE=2 -fexceptions -fstack-protector-strong --param=ssp-buffer-size=4 -grecord-gcc-switches -m64 -mtune=generic -std=gnu90"
t0=$SECONDS
if CPATH=$tmp/el7inc nice -n 10 rpmbuild --define "_topdir $tmp/el7top" $nodeps \
	--define "optflags $el7_optflags" --define "__global_ldflags -Wl,-z,relro" \
	--define "_smp_mflags -j2" --rebuild "$srpm" >"$out/el7-rebuild.log" 2>&1 &&
   grep -q 'CPPFLAGS=-Daio_rw_flags=__pad2 make .* lib$' "$out/el7-rebuild.log" &&
   grep -q 'CPPFLAGS=-Daio_rw_flags=aio_reserved1 make .* tools$' "$out/el7-rebuild.log" &&
   grep -q -- '-std=gnu90 .*-c -o libnowait.o' "$out/el7-rebuild.log"; then
	ok el7-rebuild "rpmbuild --rebuild of the SRPM with EL7's optflags (-std=gnu90 for gcc 4.8's dialect; gcc $(gcc -dumpversion) here), libaio 0.3.109's and 3.10's struct iocb: builds, %check passes, the spec names the field -Daio_rw_flags=__pad2 (libnowait) and =aio_reserved1 (tools) in $((SECONDS - t0)) s"
else
	nok el7-rebuild "rpmbuild --rebuild with EL7's flags and headers" "failed vs builds; see $out/el7-rebuild.log"
	grep -E 'error|CPPFLAGS' "$out/el7-rebuild.log" | head -n 6 | sed 's/^/#   /'
fi

# --- the kmod: exactly one kernel ---
if [ -n "$kdir" ]; then
	kver=${krel%".$arch"}
	r=$(reqs "$kmod")
	kr=$(echo "$r" | grep -E '^kernel([ -]|$)' | oneline)
	same kmod-requires "kmod-nowait-aio requires exactly kernel = $kver, no other kernel capability (weak-modules is never offered another kernel)" "$kr" "kernel = $kver"
	same kmod-files "kmod-nowait-aio: /lib/modules/$krel/updates/nowait_aio/nowait_aio.ko, README.kmod, LICENSE" \
		"$(files_of "$kmod" | oneline)" "$(printf '%s\n' "/lib/modules/$krel/updates/nowait_aio/nowait_aio.ko" @doc/README.kmod @lic/LICENSE | LC_ALL=C sort | oneline)"
	ks=$(rpm -qp --scripts "$kmod")
	if echo "$ks" | grep -q "postinstall scriptlet" && echo "$ks" | grep -q "postuninstall scriptlet" &&
	   [ "$(echo "$ks" | grep -c "depmod -a $krel")" = 2 ] && ! echo "$ks" | grep -q weak-modules; then
		ok kmod-scripts "kmod-nowait-aio: %post and %postun run depmod -a $krel, and no weak-modules"
	else
		nok kmod-scripts "kmod-nowait-aio's scriptlets" "$(echo "$ks" | oneline) vs depmod -a $krel in %post and %postun, no weak-modules"
	fi
	same kmod-conflicts "kmod-nowait-aio conflicts with nowait-aio-dkms, provides nowait-aio-kmod" \
		"$(rpm -qp --conflicts "$kmod" | oneline); $(rpm -qp --provides "$kmod" | grep -c '^nowait-aio-kmod = ')" "nowait-aio-dkms; 1"
fi

# --- install into a scratch root, use, erase (root) ---
if [ "$isroot" != 1 ]; then
	skip install "rpm --root needs root (chroot for the scriptlets, file owners): the install, use and erase checks do not run"
	finish
fi
root=$tmp/root
mkdir -p "$root/etc"
# what the scriptlets run with: /bin/sh (the host's, with its libraries)
# and /sbin/ldconfig; /usr/lib64 is a library directory as on EL7
seed() { # host program, path in the root
	local l
	mkdir -p "$root$(dirname "$2")"
	cp -L "$1" "$root$2"
	for l in $(ldd "$1" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$root$l" ] && continue
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
}
seed /bin/sh /bin/sh
seed "$(command -v ldconfig)" /sbin/ldconfig
echo "$libdir" >"$root/etc/ld.so.conf"
rpm --root "$root" --dbpath /var/lib/rpm --initdb
(cd "$root" && find . ! -type d | LC_ALL=C sort) >"$tmp/seed.list"
rpmr() { rpm --root "$root" --dbpath /var/lib/rpm "$@"; }

# The dependencies rpm cannot resolve here must all be CentOS 7 packages
# (the scratch root has no package at all); each one is named, then the
# install is done with --nodeps:
#   bash          /bin/sh (the scriptlets' interpreter)
#   glibc         /sbin/ldconfig (libnowait's %post/%postun), libc.so.6,
#                 rtld(GNU_HASH) (libnowait, the tools)
#   libaio        libaio.so.1 (libnowait)
#   libaio-devel  libaio-devel(x86-64) (libnowait-devel: libnowait.h
#                 includes libaio.h)
#   pkgconfig     /usr/bin/pkg-config (libnowait-devel's nowait.pc)
#   dkms (EPEL), kernel-devel, gcc, make   nowait-aio-dkms
#   kernel-<version>-<release>, kmod (/usr/sbin/depmod)   kmod-nowait-aio
centos_pkg() { # dependency -> the CentOS 7 (or EPEL) package that has it
	case $1 in
	/bin/sh) echo bash ;;
	/sbin/ldconfig | libc.so.6* | libm.so.6* | libpthread.so.0* | rtld\(GNU_HASH\)) echo glibc ;;
	libaio.so.1*) echo libaio ;;
	libaio-devel*) echo libaio-devel ;;
	/usr/bin/pkg-config | pkgconfig*) echo pkgconfig ;;
	dkms) echo dkms ;;
	kernel-devel) echo kernel-devel ;;
	gcc) echo gcc ;;
	make) echo make ;;
	/usr/sbin/depmod) echo kmod ;;
	kernel\ =\ *) echo "kernel-${1#kernel = }" ;;
	*) echo "?" ;;
	esac
}
deps_check() { # name, packages...: unresolved dependencies are CentOS's
	local name=$1 d p unknown="" names=""
	shift
	rpmr -i --test "$@" >"$tmp/test.out" 2>&1
	: >"$tmp/deps.map"
	while IFS= read -r d; do
		p=$(centos_pkg "$d")
		if [ "$p" = "?" ]; then
			unknown="$unknown [$d]"
		else
			echo "$p $d" >>"$tmp/deps.map"
		fi
	done < <(sed -n 's/^[[:space:]]*\(.*\) is needed by .*/\1/p' "$tmp/test.out" | sort -u)
	if grep -q 'conflicts with' "$tmp/test.out"; then
		unknown="$unknown $(grep 'conflicts with' "$tmp/test.out" | oneline)"
	fi
	# one entry per package, library symbol versions left out
	names=$(sed 's/(\(GLIBC\|LIBAIO\)_[0-9.]*)//' "$tmp/deps.map" | sort -u | awk '
		{ d = substr($0, length($1) + 2) }
		$1 != p { if (p != "") printf "%s], ", s; p = $1; s = $1 " [" d; next }
		{ s = s ", " d }
		END { if (p != "") printf "%s]", s }')
	if [ -z "$unknown" ]; then
		ok "$name" "rpm -i --test: all that is missing is CentOS 7 packages, none in the scratch root, so --nodeps for: $names"
	else
		nok "$name" "unresolved dependencies that are not CentOS packages" "$unknown vs none (CentOS: $names)"
	fi
}
deps_check install-deps "${main_pkgs[@]}"
if rpmr -i --nodeps "${main_pkgs[@]}" >"$out/install.log" 2>&1; then
	ok install "rpm --root <scratch> --dbpath /var/lib/rpm -i --nodeps: $(rpmr -qa | sort | oneline)"
else
	nok install "rpm -i --nodeps into the scratch root" "failed vs installed; see $out/install.log"
	tailof "$out/install.log"
	finish
fi
# %post of nowait-aio-dkms ran in the root, which has no dkms
if grep -q 'nowait-aio-dkms: dkms not found' "$out/install.log" && ! grep -q 'scriptlet failed' "$out/install.log"; then
	ok install-post-dkms "nowait-aio-dkms's %post in the root without dkms: no failure, says \"$(grep -m1 -o 'nowait-aio-dkms: dkms not found[^;]*' "$out/install.log")\""
else
	nok install-post-dkms "%post of nowait-aio-dkms in the root" "$(oneline <"$out/install.log" | head -c 300) vs a 'dkms not found' message, no scriptlet failure"
fi
miss=""
for p in "${main_pkgs[@]}"; do
	while IFS= read -r f; do
		[ -e "$root$f" ] || [ -L "$root$f" ] || miss="$miss $f"
	done < <(rpm -qlp "$p")
done
same installed-files "every path of the five packages is in the root" "${miss:-none}" none
v=$(rpmr -Va --nodeps 2>&1 | oneline)
same verify "rpm -Va in the root: every file as packaged" "$v" ""
# libnowait's %post (/sbin/ldconfig in the root) wrote the root's cache
c=$(ldconfig -p -C "$root/etc/ld.so.cache" 2>/dev/null | grep -c "libnowait\.so\.0 .*=> $libdir/libnowait\.so\.0$")
same ldconfig-post "libnowait's %post ran /sbin/ldconfig in the root: its cache has libnowait.so.0 => $libdir/libnowait.so.0" "$c" 1
rm -f "$root/etc/ld.so.cache"
ldconfig -r "$root"
c=$(ldconfig -p -C "$root/etc/ld.so.cache" 2>/dev/null | grep -c 'libnowait\.so\.0 ')
same ldconfig-r "ldconfig -r <root> finds libnowait.so.0 in $libdir" "$c" 1
# the headers, libnowait.so and nowait.pc in use: a program built with
# pkg-config against the root, run against its libnowait.so.0
if command -v pkg-config >/dev/null 2>&1; then
	cat >"$tmp/lnw.c" <<'EOF'
/* built with pkg-config --cflags --libs nowait against the scratch root */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <libnowait.h>
#include <nowait_aio.h>

int main(void)
{
	char path[] = "/var/tmp/rpm-check-XXXXXX";
	io_context_t ctx = 0;
	struct nowait_loop *l;
	int fd = mkstemp(path), why = 0;

	if (fd < 0 || RWF_NOWAIT != 8 || io_setup(4, &ctx))
		return 1;
	printf("nowait_probe: %d\n", (int)nowait_probe(fd, &why));
	l = nowait_open(ctx, 1);
	if (!l)
		return 1;
	nowait_close(l);
	unlink(path);
	return 0;
}
EOF
	flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root$libdir/pkgconfig pkg-config --cflags --libs nowait 2>&1)
	# shellcheck disable=SC2086 # pkg-config's flags, one word each
	if gcc -Wall -Wextra -Werror -o "$tmp/lnw" "$tmp/lnw.c" $flags >"$tmp/lnw.out" 2>&1 &&
	   LD_LIBRARY_PATH=$root$libdir "$tmp/lnw" >>"$tmp/lnw.out" 2>&1; then
		ok devel-use "a program built with pkg-config --cflags --libs nowait (${flags//$root/<root>}) against the root links and runs with its libnowait.so.0: $(grep nowait_probe "$tmp/lnw.out")"
	else
		nok devel-use "a program built against the root's libnowait-devel" "$(oneline <"$tmp/lnw.out" | head -c 300) vs builds and runs"
	fi
else
	skip devel-use "no pkg-config on this host"
fi
msg=$(NOWAIT_AIO_RELEASE=4.12.0 "$root/usr/sbin/nowait-aio-stat" --json 2>&1)
rc=$?
if [ $rc = 2 ] && echo "$msg" | grep -q 'not loaded'; then
	ok tools-run "the root's nowait-aio-stat runs: as on 4.12.0 without the module, status 2 ($(echo "$msg" | head -n 1 | cut -c 1-100)...)"
else
	nok tools-run "the root's nowait-aio-stat as on 4.12.0" "status $rc, '$(echo "$msg" | oneline | head -c 200)' vs status 2, not loaded"
fi

# the scriptlets with the real dkms (the host's), in a scratch DKMS tree
# over the root's /usr/src: add registers the packaged source; a second
# %post (a reinstall) and a %preun from the same rpm process (same parent:
# the transaction) leave it registered, as --rpm_safe_upgrade means; a
# %preun from another process (an erase) removes it
if [ -x /usr/sbin/dkms ]; then
	mkdir -p "$tmp/bin.real" "$tmp/dkmstree" "$tmp/dkmsinst" "$tmp/dkmstmp"
	for c in grep cat; do ln -sf "$(command -v "$c")" "$tmp/bin.real/$c"; done
	cp "$tmp/bin.fake/uname" "$tmp/bin.real/uname"
	cat >"$tmp/bin.real/dkms" <<EOF
#!/bin/sh
exec /usr/sbin/dkms "\$@" --dkmstree $tmp/dkmstree --sourcetree $root/usr/src --installtree $tmp/dkmsinst
EOF
	chmod 755 "$tmp/bin.real/dkms"
	rpath=$tmp/bin.real:/usr/sbin:/usr/bin:/sbin:/bin
	dstat() { env PATH="$rpath" TMPDIR="$tmp/dkmstmp" dkms status -m nowait-aio -v "$version" 2>&1 | oneline; }
	# txn <name> <scriptlet>...: one rpm transaction's scriptlets, each a
	# child of one process as rpm runs them (--rpm_safe_upgrade's lock
	# names that process); outputs $tmp/<name>.<n>, statuses $tmp/<name>.rc
	txn() {
		local name=$1
		shift
		# shellcheck disable=SC2016 # expanded by the inner bash
		env -i PATH="$rpath" TMPDIR="$tmp/dkmstmp" FAKE_KVER=nw-rpm-check-no-such-release \
			bash -c 'o=$1; shift; n=0; for s; do n=$((n + 1)); /bin/sh "$s" >"$o.$n" 2>&1; echo $? >>"$o.rc"; done' \
			txn "$tmp/$name" "$@"
	}
	txn t1 "$tmp/post.sh"
	s1=$(dstat)
	txn t2 "$tmp/post.sh" "$tmp/preun.sh"
	s2=$(dstat)
	txn t3 "$tmp/preun.sh"
	s3=$(dstat)
	rcs=$(cat "$tmp/t1.rc" "$tmp/t2.rc" "$tmp/t3.rc" | oneline)
	if [ "$rcs" = "0 0 0 0" ] && echo "$s1" | grep -q "nowait-aio.*$version.*added" &&
	   grep -q 'no kernel-devel for the running kernel' "$tmp/t1.1" &&
	   grep -q 'rpm_safe_upgrade' "$tmp/t2.2" && [ "$s2" = "$s1" ] && [ -z "$s3" ]; then
		ok dkms-real "with dkms $(/usr/sbin/dkms --version 2>/dev/null | grep -o '[0-9][0-9.]*'): an install's %post adds the packaged source (\"$s1\"); a reinstall's %post and the old %preun in one transaction keep it (\"$(grep -o 'Remove cancelled[^.]*' "$tmp/t2.2")\"); an erase's %preun removes it (status empty); all status 0"
	else
		nok dkms-real "the scriptlets with the real dkms" "statuses '$rcs', install: '$(head -c 150 "$tmp/t1.1" | oneline)' status '$s1'; reinstall's %preun: '$(head -c 150 "$tmp/t2.2" | oneline)' status '$s2'; erase's %preun: '$(head -c 150 "$tmp/t3.1" | oneline)' status '$s3' vs 0 0 0 0, added, kept, removed"
	fi
else
	skip dkms-real "no dkms on this host: the scriptlets ran only with a stand-in"
fi

# erase: the scriptlets run (the root has no dkms: %preun says so), and no
# file of the packages is left
names=$(for p in "${main_pkgs[@]}"; do rpm -qp --qf '%{NAME} ' "$p"; done)
# shellcheck disable=SC2086
if rpmr -e $names >"$out/erase.log" 2>&1 && [ -z "$(rpmr -qa)" ]; then
	ok erase "rpm -e $names: all gone from the database; nowait-aio-dkms's %preun: \"$(grep -m1 -o 'nowait-aio-dkms: dkms not found.*' "$out/erase.log")\""
else
	nok erase "rpm -e of the five packages" "failed or '$(rpmr -qa | oneline)' left vs nothing; see $out/erase.log"
	tailof "$out/erase.log"
fi
left=""
for p in "${main_pkgs[@]}"; do
	while IFS= read -r f; do
		[ -e "$root$f" ] || [ -L "$root$f" ] && left="$left $f"
	done < <(rpm -qlp "$p")
done
same erase-files "after rpm -e no path of the packages is in the root" "${left:-none}" none
(cd "$root" && find . ! -type d | LC_ALL=C sort) | LC_ALL=C comm -13 "$tmp/seed.list" - |
	grep -vE '^\./(var/lib/rpm/|etc/ld\.so\.cache$|var/cache/ldconfig/aux-cache$)' >"$tmp/left.list"
same erase-clean "after rpm -e the root holds only what it had (and rpm's database, ldconfig's cache)" \
	"$(oneline <"$tmp/left.list")" ""

# the kmod: installed alone (it conflicts with nowait-aio-dkms), then erased
if [ -n "$kdir" ]; then
	rpmr -i --test "$kmod" "$dkms" >"$tmp/conflict.out" 2>&1
	if grep -q 'conflicts with' "$tmp/conflict.out"; then
		ok kmod-conflict "rpm -i --test kmod-nowait-aio with nowait-aio-dkms: \"$(grep -m1 'conflicts with' "$tmp/conflict.out" | sed 's/^[[:space:]]*//')\""
	else
		nok kmod-conflict "kmod-nowait-aio and nowait-aio-dkms conflict" "$(oneline <"$tmp/conflict.out" | head -c 300) vs a conflict"
	fi
	deps_check kmod-deps "$kmod"
	ko=/lib/modules/$krel/updates/nowait_aio/nowait_aio.ko
	if rpmr -i --nodeps "$kmod" >"$out/kmod-install.log" 2>&1 && [ -f "$root$ko" ]; then
		vm=$(modinfo -F vermagic "$root$ko" 2>/dev/null)
		mv=$(modinfo -F version "$root$ko" 2>/dev/null)
		if [ "${vm%% *}" = "$krel" ]; then
			ok kmod-install "rpm -i --nodeps kmod-nowait-aio: $ko, vermagic '$vm'${mv:+, version $mv}"
		else
			nok kmod-install "the installed module is $krel's" "vermagic '$vm' vs $krel ..."
		fi
	else
		nok kmod-install "rpm -i --nodeps kmod-nowait-aio" "see $out/kmod-install.log"
		tailof "$out/kmod-install.log"
	fi
	if rpmr -e kmod-nowait-aio >"$out/kmod-erase.log" 2>&1 && [ ! -e "$root$ko" ] &&
	   [ ! -e "$root/lib/modules/$krel/updates/nowait_aio" ] && [ -z "$(rpmr -qa)" ]; then
		ok kmod-erase "rpm -e kmod-nowait-aio: the module and its directory are gone"
	else
		nok kmod-erase "rpm -e kmod-nowait-aio" "see $out/kmod-erase.log"
	fi
fi

# --- the packaged source built by DKMS for the 3.10 tree, as on EL7 ---
# dkms add and build from nowait-aio-dkms's /usr/src in a DKMS tree of its
# own (--sourcetree, --dkmstree: nothing of the host's DKMS is touched); the
# module is left in build/rpm-check/nowait_aio.ko, which make check boots
# on 3.10.0-1160.el7 (stage 3.10.0-1160.el7-rpm-dkms-module)
rm -f "$out/nowait_aio.ko"
if [ -n "$kdir" ] && [ "$(id -u)" = 0 ] && ! command -v dkms >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dkms >/dev/null 2>&1
fi
if [ -n "$kdir" ] && [ "$(id -u)" = 0 ] && command -v dkms >/dev/null && command -v rpm2cpio >/dev/null; then
	d=$tmp/dkmsx
	mkdir -p "$d/tree"
	rpm2cpio "$dkms" | (cd "$d" && cpio -idm --quiet)
	t0=$SECONDS
	if dkms add -m nowait-aio -v "$version" --sourcetree "$d/usr/src" --dkmstree "$d/tree" \
		>"$out/dkms-el7.log" 2>&1 &&
	   nice -n 10 dkms build -m nowait-aio -v "$version" -k "$krel" --kernelsourcedir "$kdir" \
		--sourcetree "$d/usr/src" --dkmstree "$d/tree" >>"$out/dkms-el7.log" 2>&1; then
		built=$(find "$d/tree/nowait-aio/$version/$krel" -path '*/module/nowait_aio.ko*' | head -n 1)
		case $built in *.xz) xz -dc "$built" >"$out/nowait_aio.ko" ;; ?*) cp "$built" "$out/nowait_aio.ko" ;; esac
		vm=$(modinfo -F vermagic "$out/nowait_aio.ko" 2>/dev/null)
		if [ "${vm%% *}" = "$krel" ]; then
			ok dkms-build-el7 "dkms build -k $krel of nowait-aio-dkms's source in $((SECONDS - t0)) s: vermagic '$vm'; copied to build/rpm-check/nowait_aio.ko"
		else
			nok dkms-build-el7 "the DKMS-built module is $krel's" "vermagic '$vm'"
			rm -f "$out/nowait_aio.ko"
		fi
	else
		nok dkms-build-el7 "dkms add and build -k $krel of nowait-aio-dkms's source" "see $out/dkms-el7.log"
		tailof "$out/dkms-el7.log" 15
	fi
elif [ -n "$kdir" ]; then
	skip dkms-build-el7 "needs root, dkms and rpm2cpio"
fi
finish
