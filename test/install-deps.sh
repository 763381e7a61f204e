#!/bin/bash
# Install what the tests need from Debian's packages, when missing.
set -u
need=""
for p in gcc gcc-multilib make libaio-dev busybox-static qemu-system-x86 e2fsprogs xfsprogs \
	btrfs-progs cpio kmod gzip fio gnuplot-nox groff man-db python3 pkg-config prometheus \
	rpm rpm2cpio rpmlint elfutils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$need (run as root, or install them)" >&2
	exit 1
fi
echo "# installing:$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $need >/dev/null
