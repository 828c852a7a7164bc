# tui_tmux.sh: the one tmux driver of the TUI tests (sourced after tap.sh):
# kpbrowse in a private tmux server, in session "tt", under a private
# $TMPDIR ($tt_work).  Two ways in: tt_start W H CMD runs CMD in a session
# of that size; tt_shell W H opens a shell at the prompt `kpt-prompt$ `
# there, for the tests that type command lines as a user would
# (tt_run_line).  tt_screen prints the whole screen (every row, trailing
# blanks kept off; after tt_start, paths normalised: $WORK, $DEMO, $SRC);
# tt_wait TEXT and tt_wait_re REGEX poll for a line; tt_check and
# tt_check_re are the TAP checks of those (the screen printed when they
# fail, as tt_notok does); tt_stable waits until the screen stops
# changing; tt_expect NAME compares the screen with tests/screens/NAME.txt,
# or writes it when KP_SCREENS_UPDATE=1 (a changed screen is then a
# reviewed diff in git).
# A script may define tt_before_cleanup (run first on exit).  Exits 77 when
# tmux is missing or cannot start.  Needs KPBROWSE and KP_TESTS_DIR.
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
	command -v tt_before_cleanup >/dev/null 2>&1 && tt_before_cleanup
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
	tt_raw=0
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
# tt_shell W H: a fresh session "tt" of that size with a shell at the
# prompt `kpt-prompt$ ` (and the tmux status line), everything it runs, and
# the script itself, under TMPDIR=$tt_work; waits for the prompt.
tt_shell() {
	tt_raw=1
	export TMPDIR="$tt_work"   # nothing of the user's is touched
	$TT kill-session -t tt >/dev/null 2>&1
	$TT new-session -d -s tt -x "$1" -y "$2" "env PS1='kpt-prompt\$ ' TMPDIR='$tt_work' sh" || {
		echo "1..0 # SKIP cannot start tmux"
		exit 77
	}
	$TT set-option -g remain-on-exit on >/dev/null 2>&1
	tt_wait 'kpt-prompt$' 5
	tt_sh=$($TT display-message -p -t tt '#{pane_current_command}' 2>/dev/null)
}
# tt_shell_ready: waits (30 s at most) for tt_shell's shell to be in the
# foreground again
tt_shell_ready() {
	_i=0
	while [ "$_i" -lt 300 ]; do
		[ "$($TT display-message -p -t tt '#{pane_current_command}' 2>/dev/null)" = "$tt_sh" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "# tt_shell_ready: '$($TT display-message -p -t tt '#{pane_current_command}')' still runs after 30 s"
	return 1
}
# tt_run_line TEXT: types "clear; TEXT" and Enter at tt_shell's prompt, once
# the shell is in the foreground again.  Typed while the last program still
# runs (a sanitizer build can take a second to exit after q), the keys would
# reach that program, or arrive in its raw mode, where Enter is a bare CR
# the shell later reads as part of the last word (CI saw a path end in one).
tt_run_line() {
	tt_shell_ready
	$TT send-keys -t tt "clear; $1" Enter
}
tt_keys() { $TT send-keys -t tt "$@"; }
# the screen as text; the work folder and the source tree normalised, but
# for tt_shell's (its tests type real paths and wait for them)
tt_raw=0
tt_screen() {
	if [ "$tt_raw" = 1 ]; then
		$TT capture-pane -t tt -p 2>/dev/null
		return
	fi
	$TT capture-pane -t tt -p 2>/dev/null |
		sed -e "s|$tt_fix|\$DEMO|g" -e "s|${tt_demo_dir:-$tt_fix}|\$DEMO|g" -e "s|$tt_work|\$WORK|g" \
		    -e "s|$tt_src|\$SRC|g"
}
# tt_wait TEXT [SECONDS]: the screen shows TEXT (fixed string);
# tt_wait_re REGEX [SECONDS]: a line matches REGEX (grep -E)
tt_poll() {   # tt_poll GREP_MODE PATTERN SECONDS
	_i=0 _lim=$(( $3 * 10 ))
	while [ "$_i" -lt "$_lim" ]; do
		tt_screen | grep -q "$1" -- "$2" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	# said, so that a wait that can never match (it costs its whole
	# time on every run) shows in the log
	echo "# tt_wait: '$2' not on screen after $3 s"
	return 1
}
tt_wait() { tt_poll -F "$1" "${2:-10}"; }
tt_wait_re() { tt_poll -E "$1" "${2:-10}"; }
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
# tt_notok DESCRIPTION: a failed check, the screen printed after it
tt_notok() {
	_notok "$1"
	echo "# screen:"
	tt_screen | sed 's/^/#   /'
}
# tt_check DESCRIPTION TEXT [SECONDS]: a substring check, for content
# that is not deterministic; tt_check_re DESCRIPTION REGEX [SECONDS]
tt_check() {
	if tt_wait "$2" "${3:-10}"; then _ok "$1"; else tt_notok "$1 (waited for '$2')"; fi
}
tt_check_re() {
	if tt_wait_re "$2" "${3:-10}"; then _ok "$1"; else tt_notok "$1 (waited for /$2/)"; fi
}
