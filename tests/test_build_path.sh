#!/bin/sh
# test_build_path.sh: the binary carries no build path (issue 21 item 6):
# neither the source tree's nor the build tree's absolute path is in it
# (__FILE__, debug info, --demo's folder); --demo finds its reports, dSYMs
# and sources in the prefix `cmake --install` put it in, and a binary
# without them says so instead of reaching into the tree it was built in.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
src=$(cd "$KP_TESTS_DIR/.." && pwd)

sanitized=no
grep -q '^KP_SANITIZE:BOOL=ON' "$KP_BUILD_DIR/CMakeCache.txt" 2>/dev/null && sanitized=yes
if command -v strings >/dev/null 2>&1; then
	# the runpath a build against a private library prefix records (the
	# libdwarf 2.3.1 leg's) names where those libraries are, not this tree's
	# sources: it is left out
	rp=$(readelf -d "$kp" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
	strings -a "$kp" | awk -v rp="$rp" 'rp == "" || $0 != rp' >"$tmp/strings"
	for p in "$src" "$KP_BUILD_DIR"; do
		if [ "$sanitized" = yes ] && [ "$p" = "$src" ]; then
			# ASan's global descriptors name each source file as the
			# compiler was given it (-ffile-prefix-map leaves them); no
			# such build ships
			skip "an ASan build names its sources in its global descriptors: $p not checked"
		elif grep -qF -- "$p" "$tmp/strings"; then
			_notok "no $p in the binary (got: $(grep -F -- "$p" "$tmp/strings" | head -n 3 | tr '\n' ' '))"
		else
			_ok "no $p in the binary"
		fi
	done
else
	skip "no strings(1) to read the binary with"
fi

prefix="$tmp/prefix"
if cmake --install "$KP_BUILD_DIR" --prefix "$prefix" >"$tmp/install.out" 2>&1; then
	_ok "cmake --install into a prefix"
else
	_notok "cmake --install into a prefix ($(tail -n 3 "$tmp/install.out"))"
fi
demo="$prefix/share/kpbrowse/demo"
check "$(ls "$demo/reports" 2>/dev/null | grep -c -e '\.ips$' -e '\.panic$')" = 4 "the demo's 4 reports installed"
check "$(ls -d "$demo"/bin/*.dSYM 2>/dev/null | wc -l | tr -d ' ')" = 5 "  with the 5 dSYMs"
check "$(ls "$demo/src" 2>/dev/null | grep -c '\.c$')" -ge 1 "  and the sources"
check "$(ls "$demo/reports/expected.tsv" 2>/dev/null)" = "" "  not the tests' expected.tsv"

# the binary away from any prefix with a demo: a clear error, no build tree
mkdir -p "$tmp/bare/bin"
cp "$prefix/bin/kpbrowse" "$tmp/bare/bin/kpbrowse"
TMPDIR="$tmp" "$tmp/bare/bin/kpbrowse" --demo >"$tmp/bare.out" 2>&1
check "$?" = 2 "--demo with no demo installed: exit 2"
check_grep "not installed (looked in $tmp/bare/bin/../share/kpbrowse/demo)" "$tmp/bare.out" \
	"  naming where it looked ($(head -n 1 "$tmp/bare.out"))"

# the installed binary opens its demo (in tmux: the browser needs a terminal)
if command -v tmux >/dev/null 2>&1; then
	sock="kpt-bp-$$"
	mkdir -p "$tmp/t" "$tmp/home"
	tmux -L "$sock" -f /dev/null new-session -d -s bp -x 100 -y 24 \
		"env TMPDIR='$tmp/t' HOME='$tmp/home' TZ=UTC TERM=xterm-256color LC_ALL=C.UTF-8 KPBROWSE_DSYM_PATH= '$prefix/bin/kpbrowse' --demo; sleep 30"
	i=0
	while [ "$i" -lt 200 ]; do
		tmux -L "$sock" capture-pane -t bp -p 2>/dev/null >"$tmp/screen"
		grep -qF vm_page_check_sanity "$tmp/screen" && break
		sleep 0.1
		i=$((i + 1))
	done
	tmux -L "$sock" kill-server >/dev/null 2>&1
	check_grep vm_page_check_sanity "$tmp/screen" "the installed kpbrowse --demo lists the demo's panics"
else
	skip "tmux not installed: the installed demo is not opened"
fi
done_testing
