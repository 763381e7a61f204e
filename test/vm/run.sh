#!/bin/bash
# Run the conformance suite, or another profile, on one kernel in QEMU (TCG).
#h usage: test/vm/run.sh [OPTIONS] --kernel KVER [--module|--stock]
#h        test/vm/run.sh [OPTIONS] KVER [MODULE] [CASES]     (positional form)
#h
#h   --kernel KVER       a folder of $NOWAIT_KERNELS (a built tree with
#h                       arch/x86/boot/bzImage), or debian (Debian's 6.1)
#h   --module            load module/nowait_aio.ko, built against that tree
#h                       (MODULE 1); on 4.13 and later (native NOWAIT) check
#h                       that it refuses to load instead
#h   --stock             no module (MODULE 0, the default)
#h   --profile NAME      what the VM runs: test/vm/profiles/NAME.env (suite),
#h                       or a profile file of that form (a path)
#h   --arg VALUE         the profile's argument: fuzz SEED:OPS[:noclone],
#h                       stress SECS, iosoak SECS[:fixed][:trace][:ftrace],
#h                       field xfstests|ltp:FS:TESTS
#h   --set KEY=VALUE     one of the profile's parameters (bench, scale)
#h   --cases GLOBS       case ids or globs, comma-separated (suite; all)
#h   --order fs-first|module-first
#h                       the filesystem modules before nowait_aio (default),
#h                       or nowait_aio first
#h   --smp N             vCPUs (the profile's)
#h   --maxcpus N         CPUs the machine can hold, at least N (the profile's)
#h   --mem MIB           guest memory (the profile's; 1024 when it sets none)
#h   --timeout S         seconds before the VM is stopped (the profile's)
#h   --module-ko FILE    load this .ko instead of the tree's (with --module)
#h   --switches K=V[,...]  module knobs set right after the load
#h   --unload-cycles N   the count of module.unload.under-io (50)
#h   --append ARGS       more kernel arguments
#h   --no-unstick        leave CPUs held on QEMU's stale translation
#h   --images-from DIR   boot on the images (and 9p files) of an earlier run
#h   --out DIR           where the output folders go (test/vm/out)
#h   --dry-run           print the run's settings and the guest's /params,
#h                       boot nothing
#h   -h, --help          this text
#h
#h Environment: NOWAIT_KERNELS (the test kernels, ~/.cache/nowait-aio/kernels)
#h and NOWAIT_CACHE (kernels/, modroot/, guest/, debian/; ~/.cache/nowait-aio).
#
# Output: the guest's lines ("ok", "not ok", "skip", "#") as they run, then
# "# summary: <folder>/summary.env" and last "N passed, N failed, N
# skipped".  Exit status 0 only when nothing failed, 2 for a wrong option
# (or an old environment variable: test/lib.sh's nw_no_old_env).  A run
# also fails when the guest does not reach its end marker (crash,
# panic_on_warn, time-out) or its dmesg shows a WARN, oops, BUG, lockdep
# report or hung task; the dmesg path is printed then.
#
# The folder is <--out>/<kver>-<mode><suffix> (nw_out_dir in test/lib.sh;
# mode stock, module or native, -modfirst with --order module-first;
# suffix from the profile, e.g. -fuzz).  summary.env there holds key=value
# lines: profile, kver, release, mode, arg, out, passed, failed, skipped,
# then the profile's figures: fuzz ops; stress ops, eagain, refused, bytes,
# mismatches, cycles, fs_reloads; stress-verify ops, eagain, refused,
# bytes, mismatches; bench and scale the key=value figures of the guest's
# final "bench:" or "bench-scale:" line.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib.sh
. "$top/test/lib.sh"
usage() {
	sed -n 's/^#h \{0,1\}//p' "$0" >&2
	exit 2
}
bad() { echo "run.sh: $*" >&2; exit 2; }
nw_no_old_env run.sh
profile=suite arg='' KVER='' MODULE='' CASES='' vm_order=fs-first vm_smp='' vm_maxcpus=''
vm_mem_opt='' vm_timeout='' module_ko='' switches='' unload_cycles=50 append='' unstick=1
images_from='' sets=() pos=() dry=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage ;;
	--module) MODULE=1; shift; continue ;;
	--stock) MODULE=0; shift; continue ;;
	--no-unstick) unstick=0; shift; continue ;;
	--dry-run) dry=1; shift; continue ;;
	--*) [ $# -ge 2 ] || bad "$1 needs a value (run.sh --help)" ;;
	*) pos+=("$1"); shift; continue ;;
	esac
	case $1 in
	--kernel) KVER=$2 ;;
	--order) vm_order=$2 ;;
	--smp) vm_smp=$2 ;;
	--maxcpus) vm_maxcpus=$2 ;;
	--mem) vm_mem_opt=$2 ;;
	--timeout) vm_timeout=$2 ;;
	--cases) CASES=$2 ;;
	--profile) profile=$2 ;;
	--arg) arg=$2 ;;
	--module-ko) module_ko=$2 ;;
	--switches) switches=$2 ;;
	--unload-cycles) unload_cycles=$2 ;;
	--append) append=$2 ;;
	--images-from) images_from=$2 ;;
	--out) nw_out=$2 ;;
	--set) sets+=("$2") ;;
	*) bad "no option $1 (run.sh --help)" ;;
	esac
	shift 2
done
# the old positional form: KVER [MODULE] [CASES]
[ ${#pos[@]} -le 3 ] || bad "too many arguments: ${pos[*]} (run.sh --help)"
[ -z "$KVER" ] || [ ${#pos[@]} = 0 ] || bad "--kernel and the positional form do not mix: ${pos[*]}"
[ -n "$KVER" ] || KVER=${pos[0]:-}
[ -n "$MODULE" ] || MODULE=${pos[1]:-0}
[ -n "$CASES" ] || CASES=${pos[2]:-}
[ -n "$KVER" ] || bad "which kernel? --kernel KVER (run.sh --help)"
case $MODULE in 0|1) ;; *) bad "MODULE is 0 or 1 (--stock or --module), not '$MODULE'" ;; esac
case $vm_order in fs-first|module-first) ;; *) bad "--order is fs-first or module-first, not '$vm_order'" ;; esac
for v in vm_smp:smp vm_maxcpus:maxcpus vm_timeout:timeout unload_cycles:unload-cycles; do
	o=${v#*:} v=${v%%:*}
	case ${!v} in *[!0-9]*|0?*) bad "--$o takes a number, not '${!v}'" ;; esac
	case $v:${!v} in unload_cycles:*|*:) ;; *:0) bad "--$o takes a positive number, not 0" ;; esac
done
[ -z "$module_ko" ] || [ "$MODULE" = 1 ] || bad "--module-ko needs --module"
[ -z "$module_ko" ] || module_ko=$(readlink -f "$module_ko")
[ -z "$images_from" ] || images_from=$(readlink -f "$images_from")
case $nw_out in /*) ;; *) nw_out=$PWD/$nw_out ;; esac
profile_file=$(nw_profile_file "$profile") || bad "no profile $profile (test/vm/profiles/)"
profile=$(basename "$profile_file" .env)
mem=
# shellcheck source=test/vm/profiles/suite.env
. "$profile_file"
vm_mem=${vm_mem_opt:-${mem:-1024}}
case $vm_mem in ''|*[!0-9]*|0*) bad "memory is MiB (--mem, the profile's mem), not '$vm_mem'" ;; esac
# the profile's fields (test/vm/profiles/suite.env says what each is)
for v in smp maxcpus timeout icount hangcheck run end; do
	[ -n "${!v:-}" ] || bad "profile $profile sets no $v ($profile_file)"
done
case $end in poweroff|powercut) ;; *) bad "profile $profile: end is poweroff or powercut, not '$end'" ;; esac
case ${idle:-0} in *[!0-9]*) bad "profile $profile: idle is seconds, not '$idle'" ;; esac
for f in ${files:-}; do
	case $f in ?*:?*) [ -f "$top/${f%%:*}" ] || bad "profile $profile: no file ${f%%:*} in the tree" ;;
	*) bad "profile $profile: files are SRC:DEST, not '$f'" ;; esac
done
for d in ${disks:-}; do
	case $d in fieldroot|scratch=[1-9]*) ;; *) bad "profile $profile: no disk kind '$d' (fieldroot, scratch=SIZE)" ;; esac
done
for f in ${figures:-}; do
	case $f in sum:?*|last:?*|value:?*:?*|count:?*:?*:?*) ;;
	*) bad "profile $profile: no figure kind '$f' (sum:PREFIX, last:PREFIX, value:KEY:PREFIX, count:KEY:FILE:RE)" ;; esac
done
# its parameters, KEY=DEFAULT, and --set's values for them
pvals=()
for kv in ${params:-}; do
	case $kv in [a-z]*=*) pvals+=("$kv") ;; *) bad "profile $profile: parameter '$kv' is not KEY=DEFAULT" ;; esac
done
for kv in ${sets[@]+"${sets[@]}"}; do
	case $kv in [a-z]*=*) ;; *) bad "--set takes KEY=VALUE, not '$kv'" ;; esac
	found=0
	for i in ${pvals[@]+"${!pvals[@]}"}; do
		[ "${pvals[i]%%=*}" = "${kv%%=*}" ] && pvals[i]=$kv found=1
	done
	[ $found = 1 ] || bad "profile $profile has no parameter ${kv%%=*} (its parameters: $(echo ${params:-none}))"
done
vm_timeout=${vm_timeout:-$timeout}
vm_smp=${vm_smp:-$smp}
# QEMU before 8.1 (Debian 12 has 7.2) drops the guest's memory barriers
# from the translated code when the machine can have only one CPU (no
# CF_PARALLEL; upstream fix c914d46d0a64, "tcg: Do not elide memory
# barriers for !CF_PARALLEL in system mode").  The device side of a
# virtqueue runs in QEMU's I/O thread all the same, so the guest's
# "publish used_event, mb, re-read the used index" and QEMU's "publish
# the used index, mb, read used_event" can both read stale values: no
# interrupt, and with VIRTIO_RING_F_EVENT_IDX none ever again, and the
# disk's requests stay in flight for good (issue #18, README "Test
# kernels").  A second possible CPU (maxcpus=2, left offline) makes QEMU
# keep the barriers; --maxcpus 1 restores the old machine.  The
# benchmark's -icount runs single-threaded TCG, which drops them whatever
# maxcpus says: it stays exposed (README "Benchmarks").
vm_maxcpus=${vm_maxcpus:-$maxcpus}
[ "$vm_maxcpus" -lt "$vm_smp" ] && vm_maxcpus=$vm_smp
mode=$(nw_mode "$KVER" "$MODULE" "$vm_order")
out=$(nw_out_dir "$KVER" "$MODULE" "$profile_file" "$vm_order")
# The guest's parameters: /params in the initramfs, key=value lines
# (test/vm/init.sh reads them; the profile's as set.KEY)
guest_params() { # MODULE (0, 1 or refuse)
	printf '%s\n' "profile=$profile" "module=$1" "order=$vm_order" "switches=$switches" \
		"unload_cycles=$unload_cycles" "cases=$CASES" "arg=$arg" "unstick=$unstick" \
		"hangcheck=$hangcheck" "end=$end" "run=$run"
	for kv in ${pvals[@]+"${pvals[@]}"}; do
		echo "set.$kv"
	done
}
if [ "$dry" = 1 ]; then
	m=$MODULE
	nw_kver_native "$(nw_release "$KVER")" && { [ "$MODULE" = 1 ] && [ "$KVER" != debian ] && m=refuse || m=0; }
	printf '%s\n' "# kernel $KVER, mode $mode, profile $profile ($profile_file)" \
		"# smp $vm_smp, maxcpus $vm_maxcpus, mem $vm_mem MiB, timeout $vm_timeout s, idle ${idle:-0} s, icount $icount, disks ${disks:-none}" \
		"# files ${files:-none}; programs ${programs:-none}; figures ${figures:-none}" \
		"# output in $out" "# /params:"
	guest_params "$m"
	exit 0
fi
mkdir -p "$nw_out" || bad "cannot make --out $nw_out"
rm -rf "$out"
mkdir -p "$out"
release=""

summary() { # the counts and figures, key=value lines on stdin
	{
		printf '%s\n' "profile=$profile" "kver=$KVER" "release=$release" \
			"mode=$mode" "arg=$arg" "out=$out"
		cat
	} >"$out/summary.env"
	echo "# summary: $out/summary.env"
}
die() {
	echo "vm-check: $*" >&2
	printf '%s\n' passed=0 failed=1 skipped=0 | summary
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

# --- the kernel ---
modsrc=""
if [ "$KVER" = debian ]; then
	kdir=$("$top/test/vm/debian-kernel.sh") || die "cannot get Debian's 6.1 kernel"
	bzimage=$kdir/vmlinuz
	release=$(ls "$kdir/lib/modules" | head -n 1)
	modsrc=$kdir/lib/modules/$release
else
	kdir=$nw_kernels/$KVER
	bzimage=$kdir/arch/x86/boot/bzImage
	[ -f "$bzimage" ] || die "no built kernel at $kdir (arch/x86/boot/bzImage)"
	release=$(cat "$kdir/include/config/kernel.release" 2>/dev/null || echo "$KVER")
fi

# Options the suite needs (README: Test kernels): a hand-built tree that
# lacks one fails as vm.config, by name, instead of as a puzzling case.
config_lines=""
if [ "$KVER" != debian ] && [ -f "$kdir/.config" ]; then
	need="DETECT_HUNG_TASK EXT4_FS XFS_FS BTRFS_FS TMPFS USERFAULTFD VIRTIO_PCI
		VIRTIO_BLK BLK_DEV_NULL_BLK BLK_DEV_LOOP BLK_DEV_DM MD_RAID0 NET_9P_VIRTIO
		9P_FS DEVTMPFS BLK_DEV_INITRD SERIAL_8250_CONSOLE MAGIC_SYSRQ"
	[ "$MODULE" = 1 ] && need="$need DYNAMIC_FTRACE_WITH_REGS KALLSYMS_ALL MODULE_UNLOAD"
	for o in $need; do
		grep -q -E "^CONFIG_$o=[ym]" "$kdir/.config" ||
			config_lines="${config_lines}not ok vm.config - CONFIG_$o is off in $kdir
"
	done
fi
refuse=0
if nw_kver_native "$release"; then
	# a hand-built native tree: check that the module refuses to load
	[ "$MODULE" = 1 ] && [ "$KVER" != debian ] && refuse=1
	MODULE=0
fi
echo "# vm-check: kernel $release ($KVER), mode $mode, profile $profile${arg:+ ($arg)}, $vm_smp vCPUs (maxcpus $vm_maxcpus), $vm_mem MiB, output in $out"
printf '%s' "$config_lines"
# Build everything (module, suite, library, tools) in a private copy of the
# tree, so that runs on different kernels can go on side by side.
mkdir -p "$out/src"
tar -C "$top" --exclude=./test/vm/out --exclude=./.git -cf - . | tar -C "$out/src" -xf - ||
	die "cannot copy the tree to $out/src"
find "$out/src" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod.c' \
	-o -name '*.a' -o -name '*.so' \) -delete
top=$out/src

# --- the guest programs: the same for every kernel, built once for each
# version of their sources (test/vm/guest-build.sh) and kept in the cache ---
guest_programs() {
	local key new
	key=$(bash "$top/test/vm/guest-build.sh" --key "$top") || die "cannot hash the guest's sources"
	gdir=$nw_cache/guest/$key
	mkdir -p "$nw_cache/guest"
	# what no run used for two weeks (and what a killed build left)
	find "$nw_cache/guest" -mindepth 1 -maxdepth 1 -mtime +14 -exec rm -rf {} +
	if [ -f "$gdir/.done" ]; then
		touch "$gdir"
		echo "# guest programs: $gdir"
		return
	fi
	new=$(mktemp -d "$nw_cache/guest/.new.XXXXXX")
	bash "$top/test/vm/guest-build.sh" "$top" "$new" >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; rm -rf "$new"; die "the guest programs do not build"; }
	touch "$new/.done"
	# a run on another kernel may have built them meanwhile: keep one
	mv -T "$new" "$gdir" 2>/dev/null || rm -rf "$new"
	echo "# guest programs: built into $gdir"
}
guest_programs
if [ "$MODULE" = 1 ] || [ $refuse = 1 ]; then
	make -s -C "$top" module KDIR="$kdir" >"$out/module-build.log" 2>&1 ||
		{ cat "$out/module-build.log" >&2; die "module does not build against $kdir"; }
fi

# --- the initramfs ---
root=$out/initramfs
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,mnt,lib/modules}
cp /bin/busybox "$root/bin/busybox" || die "busybox-static is not installed"
cp "$top/test/vm/init.sh" "$root/init"
chmod +x "$root/init"
cp "$gdir/nwconf" "$gdir/nwconf32" "$gdir/libnowait_test" "$gdir/nwfuzz" \
	"$gdir/nwstress" "$gdir/ioload" "$root/" || die "the guest programs are not in $gdir"
# the profile's programs and files
for p in ${programs:-}; do
	cp "$gdir/$p" "$root/" || die "no guest program $p in $gdir"
done
for f in ${files:-}; do
	cp "$top/${f%%:*}" "$root/${f#*:}" || die "cannot copy ${f%%:*} into the guest"
done
nwmod=$MODULE
[ $refuse = 1 ] && nwmod=refuse
guest_params $nwmod >"$root/params"
# the kernel's config, for the field's suites (LTP reads it: KCONFIG_PATH)
[ -f "$kdir/.config" ] && cp "$kdir/.config" "$root/kconfig"
cp "$top/test/iosoak/rqlife.awk" "$root/rqlife.awk"
{ [ "$MODULE" = 1 ] || [ $refuse = 1 ]; } && cp "$top/module/nowait_aio.ko" "$root/nowait_aio.ko"
if [ "$MODULE" = 1 ]; then
	# the README's install path: make install into the guest's root, so
	# that the guest loads the module with modprobe; the library and the
	# static tools from the cache, newer than their sources, so that make
	# takes them as built
	cp "$gdir/libnowait.o" "$gdir/libnowait.a" "$gdir/libnowait.so" "$top/lib/"
	cp "$gdir/nowait-aio-probe" "$gdir/nowait-aio-stat" "$top/tools/"
	touch "$top/lib/libnowait.o"
	touch "$top/lib/libnowait.a" "$top/lib/libnowait.so" \
		"$top/tools/nowait-aio-probe" "$top/tools/nowait-aio-stat"
	make -s -C "$top" install KDIR="$kdir" DESTDIR="$root" PREFIX=/usr \
		TOOLS_LDFLAGS=-static >"$out/install.log" 2>&1 ||
		{ cat "$out/install.log" >&2; die "make install into the guest root failed"; }
	# --module-ko: load this .ko instead (the one DKMS built from the
	# Debian package, test/deb), so that the packaged build is tested
	if [ -n "$module_ko" ]; then
		[ -f "$module_ko" ] || die "no module at $module_ko"
		ko=$(find "$root/lib/modules" -name nowait_aio.ko | head -n 1)
		[ -n "$ko" ] || die "make install left no nowait_aio.ko in the guest root"
		cp "$module_ko" "$ko"
		cp "$module_ko" "$root/nowait_aio.ko"
		echo "# module: $module_ko (vermagic $(modinfo -F vermagic "$ko"))"
	fi
fi
if [ -z "$modsrc" ]; then
	# A hand-built tree: its modules as `make modules_install` lays them
	# out (done once per build of the tree, kept in the cache), so that
	# what it builds as modules (null_blk always; the filesystems on a
	# distribution-shaped config) is loaded from there as on a user's
	# machine, dependencies from its modules.dep.
	modroot=$nw_cache/modroot/$KVER
	if [ ! -f "$modroot/.done" ] || [ "$kdir/Module.symvers" -nt "$modroot/.done" ]; then
		rm -rf "$modroot"
		make -s -C "$kdir" modules_install INSTALL_MOD_PATH="$modroot" \
			>"$out/modules-install.log" 2>&1 ||
			{ cat "$out/modules-install.log" >&2; die "modules_install of $kdir failed"; }
		touch "$modroot/.done"
	fi
	modsrc=$modroot/lib/modules/$release
fi
# Copy the modules the suite needs with their dependencies, and let depmod
# write modules.dep.  What the kernel has built in is not looked for.
want="crc32c_generic virtio_pci virtio_blk ext4 xfs btrfs 9pnet_virtio 9p null_blk loop dm_mod raid0"
dst=$root/lib/modules/$release
mkdir -p "$dst"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$modsrc/$f" ] && cp "$modsrc/$f" "$dst/"
done
have=""
for m in $want; do
	pat=$(echo "$m" | sed 's/[-_]/[-_]/g')
	line=$(grep -E "(^|/)$pat\.ko(\.[a-z]+)?:" "$modsrc/modules.dep" | head -n 1)
	if [ -z "$line" ]; then
		grep -q -E "(^|/)$pat\.ko$" "$modsrc/modules.builtin" 2>/dev/null ||
			echo "# module $m: neither built in nor a module of $release" >&2
		continue
	fi
	have="$have $m"
	for p in ${line%%:*} ${line#*:}; do
		mkdir -p "$dst/$(dirname "$p")"
		cp -n "$modsrc/$p" "$dst/$p"
	done
done
: >>"$dst/modules.builtin"
: >>"$dst/modules.builtin.modinfo"
depmod -b "$root" "$release" || die "depmod failed"
# loaded at boot (--order: before or after nowait_aio); null_blk, loop,
# dm_mod and raid0 are loaded by the cases that need them
echo "$have" | tr ' ' '\n' | grep -v -x -E '|null_blk|loop|dm_mod|raid0' >"$root/modules.list"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initramfs.cpio.gz"

# --- fresh filesystem images, with features old kernels mount ---
if [ -n "$images_from" ]; then
	# a second boot on the images (and 9p files) of an earlier run
	for f in ext4.img xfs.img btrfs.img; do
		cp --sparse=always "$images_from/$f" "$out/$f" || die "no $f in $images_from"
	done
	mkdir -p "$out/9p"
	cp -r "$images_from/9p/." "$out/9p/"
else
truncate -s 512M "$out/ext4.img" "$out/xfs.img" "$out/btrfs.img"
# XFS reflink arrived in 4.9 and the btrfs free-space tree in 4.5; before
# 4.4 (RHEL/CentOS 7's 3.10) no ext4 metadata checksums or 64-bit block
# numbers, no XFS free-inode btree or sparse inodes, no btrfs no-holes
ext4_off=^orphan_file,^metadata_csum_seed
xfs_reflink=1 xfs_old=""
btrfs_opts=""
if ! nw_kver_ge "$release" 4 9; then
	xfs_reflink=0
	btrfs_opts="-R ^free-space-tree"
fi
if ! nw_kver_ge "$release" 4 4; then
	ext4_off=$ext4_off,^metadata_csum,^64bit
	xfs_old=",finobt=0 -i sparse=0"
	btrfs_opts="$btrfs_opts -O ^no-holes"
fi
mkfs.ext4 -q -F -O "$ext4_off" "$out/ext4.img" ||
	mkfs.ext4 -q -F "$out/ext4.img" || die "mkfs.ext4 failed"
# shellcheck disable=SC2086
mkfs.xfs -q -f -m bigtime=0,inobtcount=0,reflink=$xfs_reflink$xfs_old "$out/xfs.img" ||
	die "mkfs.xfs failed"
# shellcheck disable=SC2086
mkfs.btrfs -q -f $btrfs_opts "$out/btrfs.img" >/dev/null || die "mkfs.btrfs failed"
fi
mkdir -p "$out/9p"

# --- boot ---
# the kernel's reports of a CPU that stopped scheduling, and of tasks
# stuck behind one (a preemptible kernel's only sign: README "Testing")
stall_re='soft lockup|rcu_.* stall|blocked for more than'

: >"$out/results.log"
# a debug kernel's ACPI interrupt-link setup takes minutes under TCG
[ "${release%-debug}" != "$release" ] && [ -z "$append" ] && append=acpi=noirq
# KASLR stays on where the kernel has it, as on the users' machines.
# Before 4.8 a kernel with hibernation randomizes only when asked
# ("kaslr"; 65fe935dd238 lifted that): ask, as a user who wants it does.
if nw_kver_ge "$release" 4 0 && ! nw_kver_ge "$release" 4 8 &&
   grep -q '^CONFIG_RANDOMIZE_BASE=y' "$kdir/.config" 2>/dev/null; then
	append="$append kaslr"
fi
# softlockup_panic=0: a soft lockup fails the run from its dmesg line, and
# the guest stays up for the host to look at it (and to free it, below)
cmdline="console=ttyS0 panic_on_warn=1 panic=-1 oops=panic softlockup_panic=0 sysrq_always_enabled $append"
qextra=""
for d in ${disks:-}; do
	case $d in
	fieldroot)
		# the field's suites: their Debian root (test/field/root.sh,
		# left unchanged: snapshot)
		field_root=$(bash "$top/test/field/root.sh" --cached) ||
			die "no field root image: build it with test/field/root.sh --xfstests GITDIR"
		qextra="$qextra -drive file=$field_root,format=raw,if=virtio,snapshot=on" ;;
	scratch=*)
		truncate -s "${d#scratch=}" "$out/scratch.img"
		qextra="$qextra -drive file=$out/scratch.img,format=raw,if=virtio" ;;
	esac
done
if [ "$icount" = 1 ]; then
	# guest time counts instructions; fio comes from the host's root
	qextra="$qextra -icount shift=0,sleep=off -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,id=hostroot"
fi
timeout --foreground "$vm_timeout" qemu-system-x86_64 -accel tcg -m "$vm_mem" \
	-smp "$vm_smp,maxcpus=$vm_maxcpus" \
	-display none -monitor none -no-reboot \
	-kernel "$bzimage" -initrd "$out/initramfs.cpio.gz" -append "$cmdline" \
	-serial file:"$out/dmesg.log" -serial file:"$out/results.log" \
	-drive file="$out/ext4.img",format=raw,if=virtio \
	-drive file="$out/xfs.img",format=raw,if=virtio \
	-drive file="$out/btrfs.img",format=raw,if=virtio \
	-virtfs local,path="$out/9p",mount_tag=host9p,security_model=none,id=host9p $qextra \
	-qmp unix:"$out/qmp.sock",server=on,wait=off \
	</dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
# When the guest reports a hung task (init.sh's hang_dump), save QEMU's
# view of every virtqueue: whether the device still holds the stuck
# requests or completed them without the guest seeing it.  When its log
# reports a CPU stuck in the kernel (RCU stall, soft lockup), free vCPUs
# that QEMU 7.2 left on a stale translation (qemu-unstick.py, README
# "Testing"), and look again after the next report.
(
	queues=0 stalls=0
	while kill -0 $qpid 2>/dev/null; do
		if [ $queues = 0 ] && grep -q '^# hang: ask-host' "$out/results.log" 2>/dev/null; then
			python3 "$top/test/vm/qmp-virtio.py" "$out/qmp.sock" \
				>"$out/virtio-queues.txt" 2>&1
			queues=1
		fi
		n=$(grep -a -c -E "$stall_re" "$out/dmesg.log" 2>/dev/null)
		if [ "${n:-0}" -gt "$stalls" ] && [ "$unstick" = 1 ]; then
			sleep 3	# the report's backtraces first
			echo "# $(date +%T) after: $(grep -a -E "$stall_re" "$out/dmesg.log" | tail -n 1 | tr -d '\r')" >>"$out/unstick.txt"
			python3 "$top/test/vm/qemu-unstick.py" "$out/qmp.sock" \
				"$out/gdb.sock" >>"$out/unstick.txt" 2>&1
			sleep 10
			stalls=$(grep -a -c -E "$stall_re" "$out/dmesg.log")
		fi
		sleep 1
	done
) &
# A guest that shows no sign of life for the profile's idle seconds (no
# serial output, QEMU idle: test/vm/idle-watch.sh) is stopped then, its
# state saved as before a time-out (below), and the verdict says why.
if [ "${idle:-0}" -gt 0 ]; then
	(
		q=
		while [ -z "$q" ] && kill -0 $qpid 2>/dev/null; do
			sleep 1
			q=$(pgrep -P $qpid)
		done
		[ -n "$q" ] && "$top/test/vm/idle-watch.sh" "$idle" "$q" "$out/dmesg.log" \
			"$out/results.log" >"$out/idle.txt" || { rm -f "$out/idle.txt"; exit 0; }
		python3 "$top/test/vm/qmp-virtio.py" --sysrq "$out/qmp.sock" \
			>"$out/timeout-dump.txt" 2>&1
		kill "$q"
	) &
	ipid=$!
fi
# A minute before the time-out, if the guest is still running: its blocked
# tasks and every CPU's backtrace (SysRq from the host's side, as the
# guest's own watcher may be stuck too), each vCPU's registers and the
# virtqueues, for the summary below.
(
	sleep $((vm_timeout > 120 ? vm_timeout - 60 : vm_timeout / 2)) &
	trap 'kill $! 2>/dev/null' TERM
	wait $!
	kill -0 $qpid 2>/dev/null &&
		python3 "$top/test/vm/qmp-virtio.py" --sysrq "$out/qmp.sock" \
			>"$out/timeout-dump.txt" 2>&1
) &
dpid=$!
tail -n +1 -f "$out/results.log" --pid=$qpid | grep -v -E '^(nwsuite-done|[0-9]+ passed, )' &
tpid=$!
wait $qpid
qrc=$?
kill $dpid 2>/dev/null
# (the idle watch is done: it must not touch the folder of a later run)
[ -z "${ipid:-}" ] || kill "$ipid" 2>/dev/null
wait $tpid 2>/dev/null

# --- verdict ---
# After a time-out: what the SysRq dump showed (blocked tasks, then each
# CPU's backtrace), briefly; the whole of it is in dmesg.log.
timeout_summary() {
	[ -s "$out/timeout-dump.txt" ] || {
		echo "# timeout: no dump (the VM was gone or QMP did not answer)"
		return
	}
	grep '^registers: RIP' "$out/timeout-dump.txt" | sed 's/^/# timeout: /'
	tr -d '\r' <"$out/dmesg.log" |
		sed -n '/SysRq : Show Blocked State/,$p' |
		grep -E 'SysRq|^[^ ]+ +D |NMI backtrace|RIP: 00|^ [a-z_0-9.]+\+0x|^ \? ' |
		grep -v '^ ?' | head -n 60 | sed 's/^/# timeout: /'
}

# --- the profile's figures, key=value lines for summary.env ---
# the numbers of the PREFIX lines of results.txt, summed, each named by the
# word after it ("stress-run: 10 ops, 2 eagain, ..." -> ops=10, eagain=2)
sum_lines() { # PREFIX
	grep -h "^$1 " "$out/results.txt" | awk '
		{ for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) { k = $(i + 1); sub(/,$/, "", k); t[k] += $i } }
		END { for (k in t) printf "%s=%.0f\n", k, t[k] }' | sort
}
# the key=value words of the last PREFIX line
last_line() { # PREFIX
	grep -h "^$1 " "$out/results.txt" | tail -n 1 | tr ' ' '\n' | grep -E '^[A-Za-z0-9_]+='
}
# the profile's figures (its figures= line, test/vm/profiles/suite.env)
figure_lines() {
	local f k p re
	for f in ${figures:-}; do
		case $f in
		sum:*) sum_lines "${f#sum:}" ;;
		last:*) last_line "${f#last:}" ;;
		value:*)
			k=${f#value:} p=${f#value:*:}
			k=${k%%:*}
			sed -n "s/^$p \([0-9]*\)\$/$k=\1/p" "$out/results.txt" | tail -n 1 ;;
		count:*)
			k=${f#count:} p=${f#count:*:} re=${f#count:*:*:}
			k=${k%%:*} p=${p%%:*}
			echo "$k=$(grep -c -E "$re" "$out/$p" 2>/dev/null)" ;;
		esac
	done
}

{ printf '%s' "$config_lines"; tr -d '\r' <"$out/results.log"; } >"$out/results.txt"
# KASLR: the guest's kernel text against the tree's link address
t=$(sed -n 's/^# kernel _text \([0-9a-f]*\)$/\1/p' "$out/results.txt" | head -n 1)
m=$(awk '$3 == "_text" { print $1; exit }' "$kdir/System.map" 2>/dev/null)
if [ -n "$t" ] && [ -n "$m" ]; then
	[ "$t" = "$m" ] && echo "# kaslr: off (_text at its link address $m)" ||
		echo "# kaslr: on (_text at $t, linked at $m)"
fi
to=0
[ $qrc = 124 ] && to=1
[ -s "$out/idle.txt" ] && to="idle:$(cat "$out/idle.txt")"
# the System.map and KASLR's offset name QEMU's samples of held CPUs
delta=0
[ -n "$t" ] && [ -n "$m" ] && delta=$(printf '%x' $((16#$t - 16#$m)))
"$top/test/vm/verdict.sh" --sysmap "$kdir/System.map" --kaslr-delta "$delta" "$out/results.txt" "$out/dmesg.log" "$to" "$out/unstick.txt" >"$out/verdict.txt"
rc=$?
grep -v ' passed, ' "$out/verdict.txt"
[ "$to" != 0 ] && timeout_summary
[ $rc = 0 ] || echo "# failed: results in $out/results.txt, dmesg in $out/dmesg.log"
{ nw_counts_env <"$out/verdict.txt"; figure_lines; } | summary
tail -n 1 "$out/verdict.txt"
exit $rc
