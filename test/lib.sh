# shellcheck shell=bash disable=SC2034
# Shared by the harness's bash scripts (source it): kernel versions, the
# list of kernel series (SERIES), the test kernels.  Functions only, and
# the paths below.
nw_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nw_cache=${NOWAIT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/nowait-aio}
nw_kernels=${NOWAIT_KERNELS:-$nw_cache/kernels}

# --- kernel versions ---
# nw_kver_code REL: a number that orders kernel releases, from the first
# three numbers (4.9.337-debian -> 4009337, 4.12 -> 4012000)
nw_kver_code() {
	local a b c
	IFS=. read -r a b c _ <<<"${1%%[!0-9.]*}"
	echo $((10#${a:-0} * 1000000 + 10#${b:-0} * 1000 + 10#${c:-0}))
}
# nw_kver_ge REL MAJOR MINOR: true when REL is MAJOR.MINOR or later
nw_kver_ge() {
	[ "$(nw_kver_code "$1")" -ge "$(nw_kver_code "$2.$3")" ]
}
# nw_kver_series REL: its series, MAJOR.MINOR (4.9.337-debian -> 4.9)
nw_kver_series() {
	local a b
	IFS=. read -r a b _ <<<"${1%%[!0-9.]*}"
	echo "${a:-0}.${b:-0}"
}
# nw_kver_native REL: 4.13 and later have RWF_NOWAIT of their own
nw_kver_native() {
	nw_kver_ge "$1" 4 13
}

# --- the kernel series (SERIES: series, status, test kernels) ---
nw_series_file=$nw_top/SERIES
# nw_series STATUS: the series of that status, one line each, in file order
nw_series() {
	awk -v s="$1" '!/^#/ && NF && $2 == s { print $1 }' "$nw_series_file"
}
# nw_series_status SERIES: module, native or none (also for an unlisted one)
nw_series_status() {
	local s
	s=$(awk -v s="$1" '!/^#/ && $1 == s { print $2 }' "$nw_series_file")
	echo "${s:-none}"
}
# nw_test_kernels: the test kernels SERIES names (folders in $nw_kernels)
nw_test_kernels() {
	awk '!/^#/ && NF { for (i = 3; i <= NF; i++) if ($i != "-") print $i }' "$nw_series_file"
}
# nw_dkms_regex: BUILD_EXCLUSIVE_KERNEL for the series of status module,
# grouped by major (4.4 4.9 4.10 -> ^4\.(4|9|10)\.)
nw_dkms_regex() {
	nw_series module | awk -F. '
		!($1 in m) { order[n++] = $1; m[$1] = $2; next }
		{ m[$1] = m[$1] "|" $2 }
		END {
			for (i = 0; i < n; i++) {
				g = m[order[i]]
				s = s (i ? "|" : "") order[i] "\\." (g ~ /\|/ ? "(" g ")" : g)
			}
			if (n > 1)
				s = "(" s ")"
			printf "^%s\\.\n", s
		}'
}
# nw_dkms_conf FILE: dkms.conf FILE with BUILD_EXCLUSIVE_KERNEL from SERIES
nw_dkms_conf() {
	R=$(nw_dkms_regex) awk '
		/^BUILD_EXCLUSIVE_KERNEL=/ { print "BUILD_EXCLUSIVE_KERNEL=\"" ENVIRON["R"] "\""; next }
		{ print }' "$1"
}
