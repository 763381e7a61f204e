#!/bin/bash
# Install what the tests need from Debian's packages, when missing, and a
# QEMU of 8.1 or later (from bookworm-backports on Debian 12).
set -u
need=""
for p in gcc gcc-multilib make libaio-dev busybox-static qemu-system-x86 e2fsprogs xfsprogs \
	btrfs-progs cpio kmod gzip fio gnuplot-nox groff man-db python3 pkg-config prometheus \
	rpm rpm2cpio rpmlint elfutils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need="$need $p"
done

# QEMU before 8.1 has two TCG bugs that stop guests with or without the
# module (README "Testing"): it can keep running a translation of code that
# ftrace has since rewritten (deba78709ae8), and on a one-CPU machine it
# leaves out the memory barriers of virtqueue notification (c914d46d0a64).
qemu_new_enough() {
	local v
	v=$(qemu-system-x86_64 --version 2>/dev/null |
		sed -n 's/^QEMU emulator version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	# shellcheck disable=SC2086
	[ -n "$v" ] && set -- $v && { [ "$1" -gt 8 ] || { [ "$1" = 8 ] && [ "$2" -ge 1 ]; }; }
}
backports() {
	# shellcheck disable=SC1091
	[ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = bookworm ] || return 1
	[ -f /etc/apt/sources.list.d/bookworm-backports.sources ] && return 0
	cat > /etc/apt/sources.list.d/bookworm-backports.sources <<-'SRC'
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: bookworm-backports
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SRC
}

# QEMU too old is a warning, not a stop: the harness's workarounds make
# most runs pass under 7.2, and a VM stage that hangs still fails loudly
qemu_old() {
	echo "install-deps: WARNING: $1; the VM stages run under $(qemu-system-x86_64 --version | head -n 1), whose TCG bugs can hang a guest (README \"Testing\")" >&2
	exit 0
}

[ -z "$need" ] && qemu_new_enough && exit 0
if [ "$(id -u)" != 0 ]; then
	if [ -n "$need" ]; then
		echo "install-deps: missing packages:$need (run as root, or install them)" >&2
		exit 1
	fi
	qemu_old "QEMU is older than 8.1 (run as root, or install a newer one)"
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$need" ]; then
	echo "# installing:$need"
	# shellcheck disable=SC2086
	apt-get update -qq >/dev/null && apt-get install -y -qq $need >/dev/null || exit 1
fi
qemu_new_enough && exit 0
backports || qemu_old "QEMU is older than 8.1 and this is not Debian 12: install QEMU 8.1 or later"
echo "# installing: qemu-system-x86 qemu-utils from bookworm-backports (QEMU 8.1 or later)"
if ! { apt-get update -qq >/dev/null &&
	apt-get install -y -qq --no-install-recommends -t bookworm-backports \
		qemu-system-x86 qemu-utils >/dev/null; }; then
	qemu_old "the install from bookworm-backports failed"
fi
qemu_new_enough || qemu_old "still no QEMU 8.1 or later"
echo "# $(qemu-system-x86_64 --version | head -n 1)"
