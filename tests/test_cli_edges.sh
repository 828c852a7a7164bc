#!/bin/sh
# test_cli_edges.sh: the subcommands at their edges (issue 11 items 9, 11,
# 12, 13, 14): failed writes to stdout, a read-only index, messages that
# name what failed, report ids at the limit, command-line edges.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export KPBROWSE_CACHE_DIR="$tmp/cache"
unset KPBROWSE_DSYM_PATH KPBROWSE_DB
reports=$KP_FIXTURES/reports
bin=$KP_FIXTURES/bin
db=$tmp/idx/index.sqlite3
"$kp" index --db "$db" --no-symbols "$reports" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "index of the fixtures ($(head -c 200 "$tmp/err"))"

# ---- item 9: a failed write to stdout is exit 2 with one line; EPIPE is quiet
if [ -w /dev/full ]; then
	for cmd in "list" "list --json" "list --groups" "search Widget" "search --json Widget" \
		"show --no-symbols @1" "show --no-symbols --json @1" \
		"show --no-symbols $reports/panic-full-2026-11-20-101500.0001.ips" \
		"lookup --dsym $bin/fakekernel.arm64.dSYM 0xc094" "index --no-symbols $reports" \
		"index --json --no-symbols $reports"; do
		# shellcheck disable=SC2086
		"$kp" $cmd --db "$db" >/dev/full 2>"$tmp/err"
		rc=$?
		[ "${cmd%% *}" = lookup ] && { "$kp" $cmd >/dev/full 2>"$tmp/err"; rc=$?; }
		check "$rc" = 2 "$cmd >/dev/full: exit 2"
		check "$(wc -l <"$tmp/err" | tr -d ' ')" = 1 "$cmd >/dev/full: one line on stderr ($(head -c 200 "$tmp/err"))"
		check_grep "standard output" "$tmp/err" "$cmd >/dev/full: names standard output"
	done
else
	skip "/dev/full absent"
fi
# a reader that goes away: no message, whatever SIGPIPE's disposition
for cmd in "list" "list --json" "show --no-symbols @1"; do
	# shellcheck disable=SC2086
	( "$kp" $cmd --db "$db" 2>"$tmp/err"; echo $? >"$tmp/rc" ) | head -c 1 >/dev/null
	check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "$cmd | head -c 1: quiet ($(head -c 200 "$tmp/err"))"
	if command -v python3 >/dev/null 2>&1; then
		# python starts children with SIGPIPE ignored: EPIPE instead of the signal
		python3 -c '
import signal, subprocess, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=False)
p.stdout.read(1); p.stdout.close()
err = p.stderr.read(); p.wait()
sys.stdout.write("%d %d\n" % (p.returncode, len(err)))' "$kp" $cmd --db "$db" >"$tmp/py"
		read -r prc plen <"$tmp/py"
		check "$plen" = 0 "$cmd with SIGPIPE ignored: quiet on EPIPE (exit $prc)"
	fi
done

done_testing
