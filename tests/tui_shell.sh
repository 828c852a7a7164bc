# tui_shell.sh: a shell prompt in a private tmux server, for the TUI tests
# that type kpbrowse command lines as a user would (sourced).  ts_init NAME
# makes $work (a private $TMPDIR), $T (the tmux command) and the TAP
# counters; ts_shell W H opens session "kpt" at that size with the prompt
# `kpt-prompt$ ` and waits for it.  A script may define ts_before_cleanup
# (run first on exit).  Exits 77 when tmux is missing or cannot start.
# Needs KPBROWSE.
if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux not installed"
	exit 77
fi
: "${KPBROWSE:?KPBROWSE must name the kpbrowse binary}"

ts_init() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-$1.XXXXXX")
	sock="kpt-$1-$$"
	T="tmux -L $sock -f /dev/null"
	trap cleanup EXIT INT TERM
	export TMPDIR="$work"   # nothing of the user's is touched
}
cleanup() {
	command -v ts_before_cleanup >/dev/null 2>&1 && ts_before_cleanup
	$T kill-server >/dev/null 2>&1
	rm -rf "$work"
}

n=0
fails=0
skips=0
skip() { n=$((n + 1)); skips=$((skips + 1)); echo "ok $n - # SKIP $1"; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
	echo "# screen:"; screen | sed 's/^/#   /'
}
screen() { $T capture-pane -t kpt -p 2>/dev/null; }

# poll_screen GREP_MODE PATTERN SECONDS: polls the screen until grep -q
# GREP_MODE (-F fixed string, -E regex) finds PATTERN.
poll_screen() {
	limit=$(( $3 * 10 ))
	i=0
	while [ "$i" -lt "$limit" ]; do
		if screen | grep -q "$1" -- "$2"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "# wait: '$2' not on screen after $3 s"
	return 1
}
# wait_for TEXT [SECONDS]: the screen holds TEXT; wait_for_re: a line matches REGEX.
wait_for() { poll_screen -F "$1" "${2:-10}"; }
wait_for_re() { poll_screen -E "$1" "${2:-10}"; }

check() {   # check DESCRIPTION TEXT [SECONDS]
	if wait_for "$2" "${3:-10}"; then ok "$1"; else not_ok "$1 (waited for '$2')"; fi
}

keys() { $T send-keys -t kpt "$@"; }
# run_line TEXT: types "clear; TEXT" and Enter at the prompt, once the shell
# is in the foreground again.  Typed while the last program still runs (a
# sanitizer build can take a second to exit after q), the keys would reach
# that program, or arrive in its raw mode, where Enter is a bare CR the
# shell later reads as part of the last word (CI saw a path end in one).
shell_ready() {   # shell_ready: waits (30 s at most) for the shell to be in the foreground
	_i=0
	while [ "$_i" -lt 300 ]; do
		[ "$($T display-message -p -t kpt '#{pane_current_command}' 2>/dev/null)" = "$ts_sh" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "# shell_ready: '$($T display-message -p -t kpt '#{pane_current_command}')' still runs after 30 s"
	return 1
}
run_line() {
	shell_ready
	$T send-keys -t kpt "clear; $1" Enter
}

ts_shell() {   # ts_shell WIDTH HEIGHT
	$T new-session -d -s kpt -x "$1" -y "$2" "env PS1='kpt-prompt\$ ' TMPDIR='$work' sh" || {
		echo "1..0 # SKIP cannot start tmux"
		exit 77
	}
	$T set-option -g remain-on-exit on >/dev/null 2>&1
	wait_for 'kpt-prompt$' 5
	ts_sh=$($T display-message -p -t kpt '#{pane_current_command}' 2>/dev/null)
}

# ts_done: the TAP plan and the closing line; the exit status.
ts_done() {
	echo "1..$n"
	echo "# $((n - fails - skips)) passed, $fails failed, $skips skipped"
	[ "$fails" -eq 0 ]
}
