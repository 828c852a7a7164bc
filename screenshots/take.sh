#!/bin/sh
# take.sh: real screenshots of kpbrowse --demo, taken from xterm on a
# virtual X display (Xvfb).  xterm runs tmux, which runs kpbrowse, so keys
# are sent with tmux send-keys and the window is captured with xwd and
# converted to PNG.  Installs nothing: it says what is missing.
# Usage: screenshots/take.sh [KPBROWSE] (default: ../build/cli/kpbrowse)
# Needs: Xvfb (xvfb), xterm, xwd (x11-apps), convert (imagemagick), tmux,
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

Xvfb "$disp" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
export DISPLAY="$disp"
i=0
until xwd -root -silent >/dev/null 2>&1; do
	i=$((i + 1)); [ "$i" -lt 50 ] || { echo "take.sh: Xvfb did not start" >&2; exit 1; }
	sleep 0.1
done

cols=110 rows=32
xterm -T kpbrowse -geometry ${cols}x${rows}+0+0 -fa 'DejaVu Sans Mono' -fs 11 \
	-bg '#1e1e1e' -fg '#d8d8d8' -xrm 'XTerm*termName: xterm-256color' \
	-e env TMPDIR="$work" $T new-session -s shot -x $cols -y $rows \
	"env TMPDIR='$work' '$KPBROWSE' --demo" &
xterm_pid=$!

screen() { $T capture-pane -t shot -p 2>/dev/null || true; }
wait_for() {
	i=0
	while [ "$i" -lt "${2:-100}" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "take.sh: gave up waiting for '$1'" >&2
	return 1
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
	"$CONVERT" "xwd:$work/s.xwd" -trim +repage "$here/$1.png"
	echo "take.sh: $here/$1.png"
}

wait_for "q quit" 150
$T set-option -t shot status off >/dev/null
wait_for "FakeDriver" 100
shot 01-panics
keys Tab; wait_for "group (normalised"; shot 02-groups
keys Tab Enter; wait_for "Processes ("; shot 03-report
keys Tab; wait_for "Binary images"; shot 04-images
keys Tab Enter; wait_for "panicked"; shot 05-process
keys Enter; wait_for "fakekext.cpp:128" 100; shot 06-thread
keys j j Enter; wait_for ">    74"; shot 07-source
keys Escape d; wait_for "frame 2 at 0x" 100; shot 10-disasm
keys d u "4C4C44A3" Enter; wait_for "panics with UUID"; shot 08-uuid-search
keys "?"; wait_for "this help"; shot 09-help
keys q
