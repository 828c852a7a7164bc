# tap.sh: the one TAP library of the shell tests (and scripts/fault-index.sh);
# done_testing ends with a "N passed, N failed, N skipped" line and exit
# 0 / 1 / 77 (all skipped).
_n=0 _fail=0 _skip=0
_ok() { _n=$((_n + 1)); echo "ok $_n - $1"; }
_notok() { _n=$((_n + 1)); _fail=$((_fail + 1)); echo "not ok $_n - $1"; }
# check A OP B WHAT: test(1) comparison
# check 'CONDITION' WHAT: a shell condition, eval'd, in which $? is still
# the status of the command before check ('[ $? -eq 2 ] && cmp -s a b')
_tap_ret() { return "$1"; }
check() {
	_tap_st=$?
	if [ $# -eq 2 ]; then
		if _tap_ret "$_tap_st"; eval "$1"; then _ok "$2"; else _notok "$2"; fi
	elif [ "$1" "$2" "$3" ] 2>/dev/null; then _ok "$4"
	else _notok "$4 (got '$1', want $2 '$3')"; fi
}
check_grep() { if grep -q -- "$1" "$2" 2>/dev/null; then _ok "$3"; else _notok "$3"; fi; }
# check_not_grep PATTERN FILE WHAT: FILE exists and has no line matching
# (a missing file proves nothing: it fails)
check_not_grep() {
	if [ ! -f "$2" ]; then _notok "$3 (no file $2)"
	elif grep -q -- "$1" "$2"; then _notok "$3"
	else _ok "$3"; fi
}
skip() { _n=$((_n + 1)); _skip=$((_skip + 1)); echo "ok $_n - # SKIP $1"; }
# cli_setup: the CLI tests' common start: $kp the program under test, $tmp a
# private folder removed at exit, a private symbol cache, and no symbol
# source taken from the caller's environment or config file.
cli_setup() {
	kp=$KPBROWSE
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	export KPBROWSE_CACHE_DIR="$tmp/cache"
	unset KPBROWSE_DSYM_PATH KPBROWSE_FILE_MAPPED_PATHS
	export KPBROWSE_CONFIG="$tmp/no-config"
}
# bounded SECONDS CMD...: runs CMD (its status returned), killed past SECONDS
# (a hang fails the check, never the suite); $took its seconds, $to 1 when killed.
bounded() {
	_lim=$1
	shift
	_t0=$(date +%s)
	"$@" &
	_pid=$!
	to=0
	while kill -0 "$_pid" 2>/dev/null; do
		if [ $(($(date +%s) - _t0)) -ge "$_lim" ]; then
			kill "$_pid" 2>/dev/null
			to=1
			break
		fi
		sleep 0.2
	done
	wait "$_pid" 2>/dev/null
	_rc=$?
	took=$(($(date +%s) - _t0))
	return $_rc
}
done_testing() {
	echo "1..$_n"
	echo "# $((_n - _fail - _skip)) passed, $_fail failed, $_skip skipped"
	[ "$_fail" -gt 0 ] && exit 1
	[ "$_skip" -gt 0 ] && [ "$_skip" -eq "$_n" ] && exit 77
	exit 0
}
