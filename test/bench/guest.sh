#!/bin/busybox sh
# Guest side of `make bench`: fio runs side by side in one boot, under
# QEMU's -icount (guest time counts instructions, so submit latency repeats).
# Per filesystem: a 32 MiB file of written blocks (btrfs: NODATACOW), 4 KiB
# random direct overwrites through libaio at queue depth 1 (no allocation,
# no EOF zeroing: the layout every NOWAIT write can take).  Rounds alternate
# module unloaded / loaded (plain I/O, the cost to everyone), and loaded
# with fio's nowait=1 (RWF_NOWAIT on every iocb).  On a native kernel the
# module rounds are skipped and plain is compared with nowait=1.
# fio comes from the host's root, mounted read-only over 9p.
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro hostroot /host || { echo "bench: no host root"; exit 1; }
L=/host/lib/x86_64-linux-gnu:/host/usr/lib/x86_64-linux-gnu:/host/usr/lib/x86_64-linux-gnu/ceph
FIO="/host/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --library-path $L /host/usr/bin/fio"
$FIO --version >/dev/null 2>&1 || { echo "bench: cannot run the host's fio: $($FIO --version 2>&1 | head -n 2)"; exit 1; }
rounds=${NW_BENCH_ROUNDS:-3}
native=1
[ -e /nowait_aio.ko ] && native=0

# fio terse v3: field 49 write IOPS, 53 write slat mean (usec)
run() { # file, extra options
	$FIO --name=w --filename=$1 --ioengine=libaio --direct=1 --rw=randwrite \
		--bs=4k --size=32M --io_size=4M --iodepth=1 --randrepeat=1 \
		--norandommap --continue_on_error=write --output-format=terse \
		--terse-version=3 $2 2>/dev/null |
		awk -F';' '{ print $53, $49 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "nan" }'; }
mean() { echo "$@" | tr ' ' '\n' | awk 'NF { s += $1; n++ } END { if (n) printf "%.3f", s / n }'; }
spread() { echo "$@" | tr ' ' '\n' | awk 'NF { if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 } END { printf "%.0f-%.0f", min, max }'; }

all_over="" all_nw=""
echo "# fs     round  slat_off(us) slat_on(us) slat_nowait(us)  iops_off iops_on iops_nowait"
[ "${NW_BENCH_FS:-all}" = all ] && NW_BENCH_FS="ext4 xfs btrfs"
for fs in $NW_BENCH_FS; do
	f=/mnt/$fs/bench.dat
	rm -f $f
	# fio's own layout would recreate the file (losing NODATACOW)
	/nwconf --mkfile $f 32 $([ $fs = btrfs ] && echo nocow) || echo "# $fs: making $f failed"
	so="" sn="" sw="" io="" in="" iw=""
	for r in $(seq $rounds); do
		if [ $native = 0 ]; then
			rmmod nowait_aio 2>/dev/null
			set -- $(run $f "")
			so="$so $1" io="$io $2"; o=$1 oi=$2
			insmod /nowait_aio.ko
		fi
		set -- $(run $f "")
		sn="$sn $1" in="$in $2"; n=$1 ni=$2
		k=/sys/kernel/nowait_aio
		[ -d $k ] && c0=$(cat $k/eagain_lock $k/eagain_pagecache $k/eagain_alloc $k/eagain_congestion | tr '\n' ' ')
		set -- $(run $f "--nowait=1")
		sw="$sw $1" iw="$iw $2"; w=$1 wi=$2
		[ -d $k ] && echo "# $fs: EAGAIN (lock pagecache alloc congestion) before: $c0 after: $(cat $k/eagain_lock $k/eagain_pagecache $k/eagain_alloc $k/eagain_congestion | tr '\n' ' ')"
		[ $native = 1 ] && o=- oi=-
		echo "# $fs    $r      $o  $n  $w  $oi $ni $wi"
	done
	if [ $native = 0 ]; then
		over=$(ratio $(mean $sn) $(mean $so))
		all_over="$all_over $over"
		echo "# $fs: module loaded/unloaded slat ratio $over, IOPS $(mean $in)/$(mean $io) (spread on $(spread $in), off $(spread $io))"
	fi
	nw=$(ratio $(mean $sw) $(mean $sn))
	all_nw="$all_nw $nw"
	echo "# $fs: nowait=1/plain slat ratio $nw, IOPS $(mean $iw)/$(mean $in) (spread nowait $(spread $iw))"
	rm -f $f
done
if [ $native = 0 ]; then
	echo "bench: overhead_slat_ratio=$(mean $all_over) nowait_slat_ratio=$(mean $all_nw)"
else
	echo "bench: overhead_slat_ratio=native nowait_slat_ratio=$(mean $all_nw)"
fi
