# Sourced by the host unit tests: t NAME COMMAND... runs COMMAND and prints
# "ok <prefix>NAME" or "not ok <prefix>NAME: <its output>", counting into
# np/nf.  The caller sets tmp (a scratch dir) and t_prefix.
np=0 nf=0
t() { # name, command...
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $t_prefix$name"
		np=$((np + 1))
	else
		echo "not ok $t_prefix$name: $(head -c 400 "$tmp/out" | tr '\n' ' ')"
		nf=$((nf + 1))
	fi
}
