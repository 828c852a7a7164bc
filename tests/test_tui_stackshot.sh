#!/bin/sh
# test_tui_stackshot.sh: a watchdog in the browser (issue 14 item 4): the
# summary says the kind, blamed process and thread, reason and wait chains.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux not installed"
	exit 77
fi
: "${KPBROWSE:?KPBROWSE must name the kpbrowse binary}"
: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-tui-ss.XXXXXX")
sock="kpt-tui-ss-$$"
T="tmux -L $sock -f /dev/null"
cleanup() {
	$T kill-server >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

n=0
fails=0
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
	return 1
}
# wait_for TEXT [SECONDS]: the screen holds TEXT; wait_for_re: a line matches REGEX.
wait_for() { poll_screen -F "$1" "${2:-10}"; }
wait_for_re() { poll_screen -E "$1" "${2:-10}"; }

check() {   # check DESCRIPTION TEXT [SECONDS]
	if wait_for "$2" "${3:-10}"; then ok "$1"; else not_ok "$1 (waited for '$2')"; fi
}

keys() { $T send-keys -t kpt "$@"; }

# A private $TMPDIR: nothing of the user's is touched.
export TMPDIR="$work"
$T new-session -d -s kpt -x 140 -y 40 "env PS1='kpt-prompt\$ ' TMPDIR='$work' sh" || {
	echo "1..0 # SKIP cannot start tmux"
	exit 77
}
$T set-option -g remain-on-exit on >/dev/null 2>&1
wait_for 'kpt-prompt$' 5
ss="$KP_FIXTURES/stackshots"
keys "clear; '$KPBROWSE' --db '$work/index.db' '$ss/WatchdogCrash-2026-11-22-100000.ips'" Enter
check "the watchdog is listed by its reason" "monitoring timed out for service" 20
keys Enter
check "summary: the reason" "Reason:          monitoring timed out for service"
check "summary: the kind" "Kind:            watchdog"
check "summary: the blamed process" "Blamed:          pid 400 fakedaemon"
check "summary: the blamed thread" "Blamed thread:   fakedaemon[400] 5001, TH_WAIT, priority 31"
check "summary: the wait chains" "Wait chains (3)"
check "summary: the longest chain" "fakeclient[321] 4242 -> fakedaemon[400] 5001 -> fakedaemon[400] 5002"
check "summary: the deadlock" "back to deadlockd[500] 6001: a deadlock"
# the process list: state and priority, what each thread waits on
keys / f a k e c l i e n t Enter
check "summary filter finds the process" "fakeclient  4 threads"
check "process row: state counts and frontmost" "4 threads  0 run 4 wait 2 blocked   frontmost"
keys j j Enter
check "thread list: state and priority" "TH_WAIT TH_UNINT 47"
check "thread list: what a thread waits on" "-> 5001 kernel mutex 0xfffffe1000aa0000"
check "thread list: an owner process" "-> pid 400 semaphore port"
keys o
check "o opens the owner thread across processes" "Report 1 > fakeclient > thread 5001"
keys o
check "o again follows the chain" "Report 1 > fakeclient > thread 5001 > thread 5002"
keys Escape Escape
check "Esc comes back to the thread list" "-> pid 400 semaphore port"
keys / T H _ F U T U R E Enter
check "thread filter by state" "1/1  /TH_FUTURE (filtered)"
keys q
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ "$fails" -eq 0 ]
