# shellcheck shell=bash disable=SC2034
# Shared by the harness's bash scripts (source it): kernel versions, the
# list of kernel series (SERIES), the test kernels, the output folder of a
# VM run and its summary.env.  Functions only, and the paths below.
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
# A series is MAJOR.MINOR, or MAJOR.MINOR/QUALIFIER for the releases of
# that series that are a distribution's (3.10/el7: 3.10.0-*.el7*, RHEL and
# CentOS 7).
# nw_series STATUS: the series of that status, one line each, in file order
nw_series() {
	awk -v s="$1" '!/^#/ && NF && $2 == s { print $1 }' "$nw_series_file"
}
# nw_series_status SERIES: module, native or none (also for an unlisted
# one); SERIES as nw_kver_series prints it (3.10 for 3.10/el7)
nw_series_status() {
	local s
	s=$(awk -v s="$1" '!/^#/ && ($1 == s || index($1, s "/") == 1) { print $2; exit }' "$nw_series_file")
	echo "${s:-none}"
}
# nw_test_kernels: the test kernels SERIES names (folders in $nw_kernels)
nw_test_kernels() {
	awk '!/^#/ && NF { for (i = 3; i <= NF; i++) if ($i != "-") print $i }' "$nw_series_file"
}
# nw_dkms_regex: BUILD_EXCLUSIVE_KERNEL for the series of status module,
# grouped by major (4.4 4.9 4.10 -> ^4\.(4|9|10)\.), a qualified one on its
# own (3.10/el7 -> 3\.10\.0-.*\.el7)
nw_dkms_regex() {
	nw_series module | awk -F'[./]' '
		NF == 3 { q[nq++] = $1 "\\." $2 "\\.0-.*\\." $3; next }
		!($1 in m) { order[n++] = $1; m[$1] = $2; next }
		{ m[$1] = m[$1] "|" $2 }
		END {
			for (i = 0; i < n; i++) {
				g = m[order[i]]
				s = s (i ? "|" : "") order[i] "\\." (g ~ /\|/ ? "(" g ")" : g) "\\."
			}
			for (i = 0; i < nq; i++)
				s = q[i] (s == "" ? "" : "|") s
			if (n + nq > 1)
				s = "(" s ")"
			printf "^%s\n", s
		}'
}
# nw_dkms_conf FILE: dkms.conf FILE with BUILD_EXCLUSIVE_KERNEL from SERIES
nw_dkms_conf() {
	R=$(nw_dkms_regex) awk '
		/^BUILD_EXCLUSIVE_KERNEL=/ { print "BUILD_EXCLUSIVE_KERNEL=\"" ENVIRON["R"] "\""; next }
		{ print }' "$1"
}

# --- a VM run's output folder ---
# nw_release KVER: the kernel release of a test kernel ("debian" is
# Debian's stock 6.1; a hand-built tree says its own in kernel.release)
nw_release() {
	if [ "$1" = debian ]; then
		echo 6.1
	else
		cat "$nw_kernels/$1/include/config/kernel.release" 2>/dev/null || echo "$1"
	fi
}
# nw_mode KVER MODULE [ORDER]: native (4.13+, whatever MODULE says),
# module or stock, with -modfirst when ORDER is module-first
nw_mode() {
	local m=stock
	if nw_kver_native "$(nw_release "$1")"; then
		m=native
	elif [ "$2" = 1 ]; then
		m=module
	fi
	[ "${3:-fs-first}" = module-first ] && m=$m-modfirst
	echo "$m"
}
# nw_profile_file PROFILE: test/vm/profiles/PROFILE.env, or PROFILE when
# it is a path (a profile file of that form elsewhere)
nw_profile_file() {
	local f=$nw_top/test/vm/profiles/$1.env
	case $1 in */*) f=$1 ;; esac
	[ -f "$f" ] && echo "$f"
}
# nw_profile_get PROFILE VAR: a variable of that profile (arg as it has it)
nw_profile_get() {
	(
		f=$(nw_profile_file "$1") || exit 1
		# shellcheck disable=SC1090
		. "$f" || exit 1
		printf '%s\n' "${!2}"
	)
}
# where the VM runs' folders go: run.sh --out DIR and its callers' --out
# set it (default test/vm/out)
nw_out=$nw_top/test/vm/out
# nw_out_dir KVER MODULE PROFILE [ORDER]: the folder of that run of
# test/vm/run.sh, $nw_out/<kver>-<mode><profile's suffix>
nw_out_dir() {
	local suffix
	suffix=$(nw_profile_get "$3" suffix) || return 1
	echo "$nw_out/$1-$(nw_mode "$1" "$2" "${4:-}")$suffix"
}

# --- the environment variables that are gone ---
# Every harness script calls nw_no_old_env NAME first: a variable that once
# steered the harness stops the run (status 2), naming what replaced it.
# Only NOWAIT_KERNELS and NOWAIT_CACHE remain (README: Testing).
nw_old_env='NOWAIT_OUT	--out DIR
NOWAIT_VM_SMP	--smp N
NOWAIT_VM_MAXCPUS	--maxcpus N
NOWAIT_VM_TIMEOUT	--timeout S
NOWAIT_VM_ORDER	--order fs-first|module-first
NOWAIT_VM_SWITCHES	--switches NAME=VALUE[,...]
NOWAIT_UNLOAD_CYCLES	--unload-cycles N
NOWAIT_VM_UNSTICK	--no-unstick
NOWAIT_VM_APPEND	--append ARGS
NOWAIT_MODULE_KO	--module-ko FILE
NOWAIT_IMAGES_FROM	--images-from DIR
NOWAIT_BENCH	--profile bench
NOWAIT_FUZZ	--profile fuzz
NOWAIT_STRESS	--profile stress
NOWAIT_IOSOAK	--profile iosoak
NOWAIT_STRESS_MODULE	test/stress/run.sh --stock (make stress MODULE=0)
NOWAIT_HOST_HOGS	test/vm/soak.sh --host-hogs N
NOWAIT_FUZZ_SEED	make check SEED=N (test/check.sh --fuzz-seed N)
NOWAIT_DEB_MIRROR	test/deb/deb-check.sh --mirror URL (make deb-check MIRROR=URL)
NOWAIT_DEB_KEEP	test/deb/deb-check.sh --keep (make deb-check KEEP=1)
NW_BENCH_SCALE	test/bench/run.sh --no-scale (make bench SCALE=0)
NW_SYSMAP	test/vm/verdict.sh --sysmap FILE
NW_KASLR_DELTA	test/vm/verdict.sh --kaslr-delta HEX
NOWAIT_AIO_STAT	test/unit/stat_test.sh --binary FILE
NOWAIT_NO_PROMTOOL	test/unit/stat_test.sh --no-promtool
NOWAIT_AIO_PROBE	test/unit/probe_test.sh --binary FILE'
# nw_no_old_env NAME: exit 2 when an old variable is set; the benchmark's
# knobs (NW_BENCH_*, NW_STALL_*, NW_REFUSAL_*, NW_SCALE_*, NW_SLEEPS_*) are
# the bench and scale profiles' parameters now: --set <lowercase name>
nw_no_old_env() {
	local v use
	while IFS='	' read -r v use; do
		[ -n "${!v+x}" ] || continue
		echo "$1: $v is gone: use $use" >&2
		exit 2
	done <<<"$nw_old_env"
	for v in $(compgen -e | grep -E '^NW_(BENCH|STALL|REFUSAL|SCALE|SLEEPS)_'); do
		use=${v#NW_}
		use=${use#BENCH_}
		echo "$1: $v is gone: use --set $(echo "$use" | tr '[:upper:]' '[:lower:]')=${!v} (the bench and scale profiles' parameters)" >&2
		exit 2
	done
}

# --- summary.env: key=value lines ---
# nw_summary_get FILE KEY [DEFAULT]: the value (the last line for KEY)
nw_summary_get() {
	local v
	v=$(sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n 1)
	echo "${v:-${3:-}}"
}
# nw_counts_env: the last "N passed, N failed[, N skipped]" line of stdin
# as passed=, failed=, skipped= lines (nothing when there is none)
nw_counts_env() {
	sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/passed=\1 failed=\2 skipped=\4/p' |
		tail -n 1 | tr ' ' '\n' | sed 's/^skipped=$/skipped=0/'
}
