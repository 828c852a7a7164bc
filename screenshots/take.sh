#!/bin/sh
# take.sh: real screenshots of kpbrowse --demo at 80x24 and 160x45 (into
# 80x24/ and 160x45/), taken from xterm on a virtual X display (Xvfb).  xterm runs tmux, which runs kpbrowse, so keys
# are sent with tmux send-keys and the window is captured with xwd and
# converted to PNG.  Installs nothing: it says what is missing.
# The trend shots (14-16) are of fleet.py's generated folder beside tests/real.
# Usage: screenshots/take.sh [KPBROWSE] (default: ../build/cli/kpbrowse)
# Needs: Xvfb (xvfb), xterm, xwd (x11-apps), convert (imagemagick), tmux, xdotool,
# and the DejaVu Sans Mono font (fonts-dejavu-core).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
KPBROWSE=${1:-$here/../build/cli/kpbrowse}
missing=""
for t in Xvfb xterm xwd tmux; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
# a real ImageMagick convert (some machines shadow it with a stand-in)
CONVERT=""
for c in magick convert /usr/bin/convert /usr/bin/convert-im6.q16; do
	if command -v "$c" >/dev/null 2>&1 && "$c" -version 2>/dev/null | grep -q ImageMagick; then
		CONVERT=$c
		break
	fi
done
[ -n "$CONVERT" ] || missing="$missing convert(imagemagick)"
if [ -n "$missing" ]; then
	echo "take.sh: missing:$missing (Debian: apt-get install xvfb xterm x11-apps imagemagick tmux)" >&2
	exit 1
fi
[ -x "$KPBROWSE" ] || { echo "take.sh: no kpbrowse at $KPBROWSE (build first or pass its path)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kpt-shots.XXXXXX")
disp=":$((90 + $$ % 100))"
sock="kpt-shots-$$"
T="tmux -L $sock -f /dev/null"
cleanup() {
	$T kill-server >/dev/null 2>&1 || true
	[ -n "${xterm_pid:-}" ] && kill "$xterm_pid" 2>/dev/null || true
	[ -n "${xvfb_pid:-}" ] && kill "$xvfb_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
export DISPLAY="$disp"
i=0
until xwd -root -silent >/dev/null 2>&1; do
	i=$((i + 1)); [ "$i" -lt 50 ] || { echo "take.sh: Xvfb did not start" >&2; exit 1; }
	sleep 0.1
done

# take COLS ROWS: one xterm of that size running the demo, walked through
# every view, into $here/COLSxROWS/NN-view.png.
take() {
	cols=$1 rows=$2
	out="$here/${cols}x$rows"
	mkdir -p "$out"
	rm -rf "$work/tmp" && mkdir -p "$work/tmp"   # a fresh demo index: every report new
	xterm -T kpbrowse -geometry ${cols}x${rows}+0+0 -fa 'DejaVu Sans Mono' -fs 11 \
		-bg '#1e1e1e' -fg '#d8d8d8' -xrm 'XTerm*termName: xterm-256color' \
		-e env TMPDIR="$work/tmp" $T new-session -s shot -x "$cols" -y "$rows" \
		"env TMPDIR='$work/tmp' '$KPBROWSE' --demo" &
	xterm_pid=$!

	wait_for "q quit" 150
	$T set-option -t shot status off >/dev/null
	wait_for "FakeDriver" 100
	shot 01-panics
	keys Tab; wait_for "13 weeks"; shot 02-groups
	keys Enter; wait_for "Kexts:       com"; shot 03-group
	keys Escape Tab g m G m c; wait_for "Panicked threads"; wait_for "panic_trap_to_debugger ("; shot 04-compare
	keys Escape g Enter; wait_for "Summary"; wait_for "panic_trap_to_debugger"; shot 05-report
	keys Tab; wait_for "Binary images"; shot 06-images
	keys Tab Enter; wait_for "panicked"; shot 07-process
	keys Enter; wait_for "fakekernel.c:62" 100; shot 08-thread
	keys j j Enter; wait_for "74"; shot 09-source
	keys Escape d; wait_for "frame 2 at 0x" 100; shot 10-disasm
	keys d u "4C4C44A3" Enter; wait_for "panics with UUID"; shot 11-uuid-search
	keys Escape K FakeDriver Enter; wait_for "panics with kext"; shot 12-kext-search
	keys "?"; wait_for "> Help"; shot 13-help
	keys Q
	sleep 0.5
	$T kill-server >/dev/null 2>&1 || true
	kill "$xterm_pid" 2>/dev/null || true
	wait "$xterm_pid" 2>/dev/null || true
	xterm_pid=""
}

# take_fleet COLS ROWS: the groups' trends (issue 34) on a folder that
# moves: the real corpus (other Macs' reports) and fleet.py's generated
# ones (a group rising over 13 weeks on two builds, one back after a quiet
# autumn), into 14-trends, 15-growth (s) and 16-group-trend.
take_fleet() {
	cols=$1 rows=$2
	out="$here/${cols}x$rows"
	rm -rf "$work/tmp" "$work/fleet" && mkdir -p "$work/tmp" "$work/fleet"
	python3 "$here/fleet.py" "$here/../tests/fixtures/reports" "$work/fleet" || return 0
	cp "$here/../tests/real/"* "$work/fleet/" 2>/dev/null || true
	rm -f "$work/fleet/MANIFEST.tsv"
	xterm -T kpbrowse -geometry ${cols}x${rows}+0+0 -fa 'DejaVu Sans Mono' -fs 11 \
		-bg '#1e1e1e' -fg '#d8d8d8' -xrm 'XTerm*termName: xterm-256color' \
		-e env TMPDIR="$work/tmp" $T new-session -s shot -x "$cols" -y "$rows" \
		"env HOME='$work/tmp' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$work/tmp/fleet.db' '$work/fleet'" &
	xterm_pid=$!
	wait_for "q quit" 150
	$T set-option -t shot status off >/dev/null
	wait_for "FakeDriver" 100
	sleep 3   # the whole folder indexed
	keys Tab; wait_for "13 weeks"; shot 14-trends
	keys s; wait_for "by growth"; shot 15-growth
	keys s g Enter; wait_for "Weekly"; shot 16-group-trend
	keys Q
	sleep 0.5
	$T kill-server >/dev/null 2>&1 || true
	kill "$xterm_pid" 2>/dev/null || true
	wait "$xterm_pid" 2>/dev/null || true
	xterm_pid=""
}

screen() { $T capture-pane -t shot -p 2>/dev/null || true; }
wait_for() {   # a view that never shows TEXT is still shot (and named)
	i=0
	while [ "$i" -lt "${2:-100}" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "take.sh: gave up waiting for '$1'" >&2
	return 0
}
keys() { $T send-keys -t shot "$@"; }
shot() {
	sleep 0.4
	wid=$(xdotool search --name '^kpbrowse$' 2>/dev/null | head -1 || true)
	if [ -n "$wid" ]; then
		xwd -silent -id "$wid" >"$work/s.xwd"
	else
		xwd -silent -root >"$work/s.xwd"
	fi
	"$CONVERT" "xwd:$work/s.xwd" -trim +repage "$out/$1.png"
	echo "take.sh: $out/$1.png"
}

# take_real COLS ROWS: the real reports of tests/real (issue 34): the panic
# list's class column, t on one class, a report's Class line and B.
take_real() {
	cols=$1 rows=$2
	out="$here/${cols}x$rows"
	rm -rf "$work/tmp" "$work/bug" && mkdir -p "$work/tmp" "$work/bug"
	xterm -T kpbrowse -geometry ${cols}x${rows}+0+0 -fa 'DejaVu Sans Mono' -fs 11 \
		-bg '#1e1e1e' -fg '#d8d8d8' -xrm 'XTerm*termName: xterm-256color' \
		-e env TMPDIR="$work/tmp" $T new-session -s shot -x "$cols" -y "$rows" \
		"cd '$work/bug' && env TMPDIR='$work/tmp' '$KPBROWSE' --db '$work/tmp/real.db' '$here/../tests/real'" &
	xterm_pid=$!
	wait_for "q quit" 150
	$T set-option -t shot status off >/dev/null
	wait_for "AMCC0" 100
	shot 18-classes
	keys t; wait_for "[hardware]"; shot 19-class-filter
	keys t t t t t; wait_for "[null-deref]"; keys Enter; wait_for "Class:"; shot 20-report-class
	keys B; wait_for "bug report to:"; keys Enter; wait_for "wrote the bug report"; shot 21-bug-report
	keys Q
	sleep 0.5
	$T kill-server >/dev/null 2>&1 || true
	kill "$xterm_pid" 2>/dev/null || true
	wait "$xterm_pid" 2>/dev/null || true
	xterm_pid=""
}

take 80 24
take 160 45
take_fleet 80 24
take_fleet 160 45
take_real 80 24
take_real 160 45
