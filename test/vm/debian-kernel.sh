#!/bin/bash
# Print the directory holding Debian's stock 6.1 kernel, unpacked from the
# newest linux-image-6.1.0-*-amd64-unsigned package (vmlinuz, lib/modules).
# The package is downloaded and unpacked once into $NOWAIT_CACHE/debian/.
set -euo pipefail
cache=${NOWAIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nowait-aio}
mkdir -p "$cache/debian"
cd "$cache/debian"

pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' 2>/dev/null |
	awk '{print $1}' | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	# no package lists: use what was unpacked before, if anything
	dir=$(ls -d linux-image-6.1.0-*-amd64-unsigned 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] || { echo "debian-kernel: no linux-image-6.1.0-*-amd64-unsigned package found (apt-get update?)" >&2; exit 1; }
	echo "$cache/debian/$dir"
	exit 0
fi
if [ ! -f "$pkg/.unpacked" ]; then
	rm -rf "$pkg" "$pkg".tmp
	mkdir -p "$pkg".tmp
	(cd "$pkg".tmp && apt-get download "$pkg" >/dev/null 2>&1) ||
		{ echo "debian-kernel: apt-get download $pkg failed" >&2; exit 1; }
	dpkg-deb -x "$pkg".tmp/*.deb "$pkg".tmp/root
	mv "$pkg".tmp/root "$pkg"
	rm -rf "$pkg".tmp
	cp "$pkg"/boot/vmlinuz-* "$pkg"/vmlinuz
	# the package ships no modules.dep (postinst makes it): make it here
	depmod -b "$pkg" "$(ls "$pkg/lib/modules" | head -n 1)"
	touch "$pkg/.unpacked"
fi
echo "$cache/debian/$pkg"
