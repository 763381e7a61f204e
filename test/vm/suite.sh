#!/bin/busybox sh
# Guest side of the suite profile (test/vm/profiles/suite.env; the guest's
# init runs it, its output is the run's results): the conformance suite
# (the cases of /params' cases=, comma-separated globs; all when empty),
# the 32-bit compat entry points with the interface group, libnowait's
# tests with the lib group, and with the module (module=1) the module
# checks (test/vm/module-checks.sh, test/vm/hostile.sh).  Exit status:
# the conformance suite's.
param() { sed -n "s/^$1=//p" /params | tail -n 1; }
cases=$(param cases)
module=$(param module)
# shellcheck disable=SC2046
/nwconf $(echo "$cases" | tr ',' ' ') 2>&1
rc=$?
# the 32-bit compat entry points, with the interface group
case "$cases" in
""|interface*|*,interface*)
	if [ -x /nwconf32 ]; then
		/nwconf32 /mnt/ext4/nwconf 2>&1 || rc=1
	fi ;;
esac
# libnowait on this kernel: inline, deferred, fallback, 10k mixed
case "$cases" in
""|lib*|*,lib*)
	mkdir -p /mnt/ext4/lnw
	LNW_PREFIX=lib.libnowait /libnowait_test /mnt/ext4/lnw 2>&1 |
		grep -v ' passed, ' ;;
esac
# module-checks.sh and hostile.sh: "module*" (or all) runs both,
# "module.hostile*" the hostile checks alone
case ",$cases," in
,,|*,module,*|*,module\**) mc=1 ;;
*,module.hostile*) mc=2 ;;
*) mc=0 ;;
esac
if [ "$module" = 1 ] && [ $mc != 0 ]; then
	[ $mc = 1 ] && sh /module-checks.sh 2>&1
	sh /hostile.sh 2>&1
fi
exit $rc
