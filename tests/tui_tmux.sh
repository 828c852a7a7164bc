# tui_tmux.sh: drives kpbrowse in a private tmux server for the TUI tests
# (sourced after tap.sh).  tt_start W H CMD opens a session of that size
# running CMD under a private $TMPDIR; tt_screen prints the whole screen
# (every row, trailing blanks kept off, paths normalised); tt_wait TEXT
# polls for TEXT; tt_stable waits until the screen stops changing; tt_expect
# NAME compares the screen with tests/screens/NAME.txt, or writes it when
# KP_SCREENS_UPDATE=1 (a changed screen is then a reviewed diff in git).
# Exits 77 when tmux is missing.  Needs KPBROWSE and KP_TESTS_DIR.
if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux not installed"
	exit 77
fi
: "${KPBROWSE:?KPBROWSE must name the kpbrowse binary}"
: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
tt_work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-tt.XXXXXX")
tt_sock="kpt-tt-$$"
TT="tmux -L $tt_sock -f /dev/null"
tt_src=$(cd "$KP_TESTS_DIR/.." && pwd)
# where the built kpbrowse --demo finds its files (the build tree's
# share/kpbrowse/demo, as an install's prefix holds them)
tt_demo_dir=$(cd "$(dirname "$KPBROWSE")/../share/kpbrowse/demo" 2>/dev/null && pwd -P)
tt_cleanup() {
	$TT kill-server >/dev/null 2>&1
	rm -rf "$tt_work" "$tt_fix"
}
trap tt_cleanup EXIT INT TERM

# The demo's files at a path of fixed length (/tmp/kpt-scr.XXXXXX), so that
# where a path is cut on screen does not depend on where the tree is
# checked out; tt_demo_cmd runs kpbrowse on them as --demo would.
tt_fix=$(mktemp -d /tmp/kpt-scr.XXXXXX)
cp -R "$KP_TESTS_DIR/fixtures/reports" "$KP_TESTS_DIR/fixtures/bin" "$KP_TESTS_DIR/fixtures/src" "$tt_fix/"
rm -f "$tt_fix/reports/expected.tsv"
tt_demo_cmd="HOME='$tt_work/home' XDG_CACHE_HOME='$tt_work/cache' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/demo.db' --dsym '$tt_fix/bin' --source-map /kpbrowse/fixtures='$tt_fix' '$tt_fix/reports'"

# tt_start W H CMD...: a fresh session "tt" (any old one is killed)
tt_start() {
	_w=$1 _h=$2
	shift 2
	# a session that stays, so killing "tt" never ends the server
	$TT has-session -t keep 2>/dev/null || $TT new-session -d -s keep "sleep 3600" || return 1
	$TT kill-session -t tt >/dev/null 2>&1
	rm -rf "$tt_work/tmp" && mkdir -p "$tt_work/tmp"
	$TT new-session -d -s tt -x "$_w" -y "$_h" \
		"env TMPDIR='$tt_work/tmp' TZ=UTC TERM=xterm-256color LC_ALL=C.UTF-8 $*; sleep 30" || return 1
	$TT set-option -t tt status off >/dev/null 2>&1
	return 0
}
tt_keys() { $TT send-keys -t tt "$@"; }
# the screen as text; the work folder and the source tree normalised
tt_screen() {
	$TT capture-pane -t tt -p 2>/dev/null |
		sed -e "s|$tt_fix|\$DEMO|g" -e "s|${tt_demo_dir:-$tt_fix}|\$DEMO|g" -e "s|$tt_work|\$WORK|g" \
		    -e "s|$tt_src|\$SRC|g"
}
# tt_wait TEXT [SECONDS]: the screen shows TEXT (fixed string)
tt_wait() {
	_i=0 _lim=$(( ${2:-10} * 10 ))
	while [ "$_i" -lt "$_lim" ]; do
		tt_screen | grep -qF -- "$1" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	# said, so that a wait that can never match (it costs its whole
	# time on every run) shows in the log
	echo "# tt_wait: '$1' not on screen after ${2:-10} s"
	return 1
}
# tt_stable: the screen is the same 0.4 s apart (up to 10 s)
tt_stable() {
	_prev=$(tt_screen)
	_i=0
	while [ "$_i" -lt 25 ]; do
		sleep 0.4
		_now=$(tt_screen)
		[ "$_now" = "$_prev" ] && return 0
		_prev=$_now
		_i=$((_i + 1))
	done
	return 1
}
# tt_expect NAME: the whole screen equals tests/screens/NAME.txt
tt_expect() {
	tt_stable
	_want="$KP_TESTS_DIR/screens/$1.txt"
	tt_screen >"$tt_work/got.txt"
	if [ "${KP_SCREENS_UPDATE:-0}" = 1 ]; then
		cp "$tt_work/got.txt" "$_want"
		_ok "screen $1 (written)"
	elif diff -u "$_want" "$tt_work/got.txt" >"$tt_work/diff.txt" 2>&1; then
		_ok "screen $1"
	else
		_notok "screen $1 differs from tests/screens/$1.txt (KP_SCREENS_UPDATE=1 rewrites it)"
		sed 's/^/#   /' "$tt_work/diff.txt"
	fi
}
# tt_check DESCRIPTION TEXT [SECONDS]: a substring check, for content
# that is not deterministic
tt_check() {
	if tt_wait "$2" "${3:-10}"; then _ok "$1"; else
		_notok "$1 (waited for '$2')"
		tt_screen | sed 's/^/#   /'
	fi
}
