#!/bin/sh
# test_tui_keys.sh: the keys and fixes of issue 15 in a real terminal
# (tmux), one section each, on the demo.  Whole screens are compared with
# tests/screens/ where they are deterministic.  TAP; 77 without tmux.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/tui_tmux.sh"

demo() {   # demo [W H]: a fresh demo session on the panic list
	tt_start "${1:-80}" "${2:-24}" "'$KPBROWSE' --demo" && tt_wait "vm_page_check" 20
}
alive() { [ "$($TT display -p -t tt '#{pane_current_command}')" != sleep ]; }

# ---- navigation: q closes the view, Q quits, q on the panic list quits
demo
tt_keys Enter; tt_wait "Summary" 5
tt_keys Enter; tt_wait "waits on" 5
tt_keys q; tt_wait "Summary" 5
if alive && tt_screen | grep -qF "Summary"; then _ok "q closes the process view (back on the report)"
else _notok "q closes the process view (back on the report)"; fi
tt_check "the status bar says q close, Q quit" "q close  Q quit"
tt_keys Q; sleep 1
if alive; then _notok "Q quits from any depth"; else _ok "Q quits from any depth"; fi
demo
tt_keys q; sleep 1
if alive; then _notok "q on the panic list quits"; else _ok "q on the panic list quits"; fi

# ---- Ctrl-L repaints garbage written to the terminal
demo
tt_stable
tty=$($TT display -p -t tt '#{pane_tty}')
printf '\033[5;10HGARBAGE GARBAGE\033[12;1H###########' >"$tty"
tt_wait "GARBAGE" 3
tt_keys C-l
tt_wait_gone() { _i=0; while [ $_i -lt 30 ]; do tt_screen | grep -qF -- "$1" || return 0; sleep 0.1; _i=$((_i + 1)); done; return 1; }
tt_wait_gone "GARBAGE"
tt_expect 80x24-panics

# ---- mouse: clicks only, even when the terminfo asks for any-motion
if command -v tic >/dev/null 2>&1; then
	mkdir -p "$tt_work/terminfo"
	{ infocmp -x xterm-256color | sed 's/XM=[^,]*,/XM=\\E[?1003%?%p1%{1}%=%th%el%;,/'; } >"$tt_work/x1003.src"
	if tic -x -o "$tt_work/terminfo" "$tt_work/x1003.src" 2>/dev/null; then
		tt_start 80 24 "TERMINFO='$tt_work/terminfo' '$KPBROWSE' --demo"
		tt_wait "vm_page_check" 20
		flags=$($TT display -p -t tt '#{mouse_standard_flag}#{mouse_button_flag}#{mouse_all_flag}')
		check "$flags" = 100 "mouse: click reporting on, button-motion and any-motion (1002/1003) off"
	else
		skip "tic cannot build a test terminfo"
	fi
else
	skip "tic not installed"
fi

# ---- u accepts a UUID as reports print it, in brackets
demo
tt_keys u "[4C4C44A3-5555-3144-A151-249D146ED38D]" Enter
tt_check "u takes [UUID]" "panics with UUID 4C4C44A3" 5

# ---- u with a bundle id; Enter on a loaded-kext row
demo
tt_keys u "com.kpbrowse.FakeDriver" Enter
tt_check "u takes a kext bundle id" "panics with kext com.kpbrowse.FakeDriver" 5
demo
tt_keys Enter; tt_wait "Summary" 5
tt_keys Tab; tt_wait "Loaded kexts" 5
tt_keys "/" "AppleACPI" Enter Enter
tt_check "Enter on a loaded-kext row lists the panics with that kext" "with kext com.apple.driver.AppleACPIPlatform" 5

# ---- 80x24 readability: cuts marked, the selected frame in full, Right scrolls source
demo
tt_keys Enter; tt_wait "Summary" 5
tt_keys Enter; tt_wait "waits on" 5
tt_keys Enter; tt_wait "fakekernel.c:62" 20
tt_keys j j
tt_check "a cut function ends in an ellipsis" "validateReport(ReportHeade…" 5
tt_check "the detail line shows the whole function" "#2 validateReport(ReportHeader const&, unsigned int, unsigned int)" 5
tt_check "the detail line shows file:line, image, offset and inline chain" "fakekext.cpp:74  com.kpbrowse.FakeDriver +0x1f0" 5
tt_keys Enter; tt_wait ">    74" 5
tt_keys Right Right Right
tt_check "Right scrolls long source lines" 'u", h.length, len);' 5
tt_keys Left Left Left Left
tt_check "Left at the left edge goes back to the frames" "#2 validateReport" 5

# ---- the answer on the first screen: the panicked thread's backtrace on the summary
demo
tt_keys Enter
# opened at 80x24 the report shows its top, and keeps it through resizes
tt_check "a report opens at its top (Headline:, Date, OS, Product)" "Headline:        FakeDriver" 5
$TT resize-window -t tt -x 60 -y 16; sleep 0.3
$TT resize-window -t tt -x 80 -y 24; tt_stable
if tt_screen | sed -n 3,6p | grep -q '^Headline: .*' && tt_screen | grep -q '^Product: '; then
	_ok "after a resize the top stays visible"
else _notok "after a resize the top stays visible"; tt_screen | sed 's/^/#   /'; fi
tt_check "the summary shows the symbolicated backtrace" "   1 panic (fakekernel.c:72)" 20
tt_keys j j j j j j j Enter   # from the panicked task row to a frame row
tt_check "Enter on a backtrace frame opens the thread" "> thread 9001" 5
tt_keys Escape / F i l e : Enter   # below the first screen, under the backtrace
tt_check "the summary shows the report's file" "File:            \$DEMO/" 5   # its name may be cut at 80 columns in a deep clone

# ---- y / Y copy with OSC 52 (tmux set-clipboard on puts it in a buffer)
demo
$TT set-option -s set-clipboard on
tt_keys Enter; tt_wait "Summary" 5
tt_keys Enter; tt_wait "waits on" 5
tt_keys Enter; tt_wait "fakekernel.c:62" 20
tt_keys j j
tt_check "80x24: the selected frame's detail gives its whole function" "#2 validateReport(ReportHeader const&, unsigned int, unsigned int)" 5
tt_check "80x24: and its file:line, image and offset" "fakekext.cpp:74  com.kpbrowse.FakeDriver +0x1f0" 5
tt_check "80x24: and the call it was inlined into" "inlined into FakeDriver::handleReport(unsigned char const*, unsigned int)" 5
tt_check "80x24: with its line, wrapped below" "(fakekext.cpp:128)" 5
tt_keys y
tt_check "y says what it copied" "copied frame 2 to the clipboard" 5
got=$($TT show-buffer 2>/dev/null)
check "$got" = "validateReport(ReportHeader const&, unsigned int, unsigned int) (fakekext.cpp:74)" "y copies the frame as function (file:line)"
tt_keys Y
tt_check "Y says it copied the backtrace" "copied the backtrace" 5
$TT show-buffer >"$tt_work/bt.txt" 2>/dev/null
check "$(awk 'END { print NR }' "$tt_work/bt.txt")" = 6 "Y copies every frame and the inlined call (6 lines)"
check_grep "^#4   kernel +0x348  *kernel_bootstrap_thread (fakekernel.c:195)" "$tt_work/bt.txt" "Y: frames with image, offset, function and file:line"
check_grep "inlined into FakeDriver::handleReport" "$tt_work/bt.txt" "Y: the inlined call"
tt_keys Escape Escape Tab
tt_wait "Binary images" 5
tt_keys y
tt_check "y on an image copies its UUID" "copied the UUID" 5
check "$($TT show-buffer 2>/dev/null)" = "4C4C44BD-5555-3144-A14B-0078EC5E31E1" "y on the kernel image row copies its UUID"

# ---- e opens $EDITOR +LINE FILE (a stub that records its arguments)
cat >"$tt_work/ed.sh" <<EDEOF
#!/bin/sh
printf '%s\n' "\$@" >"$tt_work/ed.args"
EDEOF
chmod +x "$tt_work/ed.sh"
tt_start 80 24 "VISUAL= EDITOR='$tt_work/ed.sh' '$KPBROWSE' --demo"
tt_wait "vm_page_check" 20
tt_keys Enter; tt_wait "Summary" 5
tt_keys Enter; tt_wait "waits on" 5
tt_keys Enter; tt_wait "fakekernel.c:62" 20
tt_keys j j e
tt_check "e returns to the TUI and says what it edited" "edited " 5
check "$(sed -n 1p "$tt_work/ed.args" 2>/dev/null)" = "+74" "e passes +LINE first"
check "$(sed -n 2p "$tt_work/ed.args" 2>/dev/null)" = "$tt_demo_dir/src/fakekext.cpp" "e passes the file, mapped to this machine"
tt_check "the frames are back on screen after the editor" "validateReport(ReportHeade" 5

# ---- live: a report copied into a watched folder shows up, marked new, the cursor staying
R="$KP_TESTS_DIR/fixtures/reports"
mkdir -p "$tt_work/live"
cp "$R/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$tt_work/live/"
tt_start 100 24 "'$KPBROWSE' --db '$tt_work/live.db' '$tt_work/live'"
tt_wait "vm_page_check" 20
tt_keys q; sleep 0.5
tt_start 100 24 "'$KPBROWSE' --db '$tt_work/live.db' '$tt_work/live'"
tt_wait "vm_page_check" 20
tt_stable
cp "$R/panic-full-2026-11-27-183005.0002.ips" "$tt_work/live/"
if tt_wait "FakeDriver: report length 8192" 3; then _ok "a report copied into the folder shows up within 2 s, no key pressed"
else _notok "a report copied into the folder shows up within 2 s, no key pressed"; tt_screen | sed 's/^/#   /'; fi
tt_stable
if tt_screen | grep -q '^\*  2026-11-27 17:30.*FakeDriver: report length 8192'; then _ok "the new report is marked new"
else _notok "the new report is marked new"; tt_screen | sed 's/^/#   /'; fi
if tt_screen | grep -q '^   2020-08-03 09:45~.*vm_page_check'; then _ok "the old report is not marked new"
else _notok "the old report is not marked new"; fi
tt_check "the cursor stays on its report (now the second row)" " 2/2 " 3
cp "$R/Kernel-2020-09-14-201744.panic" "$tt_work/live/"
tt_keys r
tt_check "r says it rescans" "rescanning the report folders" 3
tt_check "r: the rescan finds the third report" "FakeDriver: report length 512" 5
tt_check "r: the cursor still on its report (now the third row)" " 3/3 " 1

# ---- kpbrowse PATH lists PATH's reports; a: the whole index; a file gone is said (issue 31 item 5)
mkdir -p "$tt_work/scope/a" "$tt_work/scope/b"
cp "$R/Kernel_2020-08-03-094512_kpbrowse-demo.panic" "$tt_work/scope/a/"
cp "$R/panic-full-2026-11-27-183005.0002.ips" "$R/Kernel-2020-09-14-201744.panic" "$tt_work/scope/b/"
"$KPBROWSE" index --db "$tt_work/scope.db" "$tt_work/scope/a" "$tt_work/scope/b" >/dev/null 2>&1
tt_start 100 24 "'$KPBROWSE' --db '$tt_work/scope.db' '$tt_work/scope/b'"
tt_wait "FakeDriver: report length 512" 20
tt_stable
if tt_screen | grep -q "vm_page_check"; then _notok "kpbrowse b: a's report is not listed"; tt_screen | sed 's/^/#   /'
else _ok "kpbrowse b: a's report is not listed"; fi
tt_check "kpbrowse b: the title says in b" "Panics in b" 1
tt_check "kpbrowse b: b's two reports, no more" " 1/2 " 1
tt_keys a
tt_check "a: the whole index, a's report too" "vm_page_check" 3
tt_check "a: the title says whole index" "Panics (whole index)" 1
tt_keys a
tt_check "a again: b's reports only" " 1/2 " 3
rm "$tt_work/scope/a/Kernel_2020-08-03-094512_kpbrowse-demo.panic"
tt_keys a
tt_check "a report whose file is gone is marked" "[file gone] vm_page_check" 3

# ---- w writes the report as kpbrowse show prints it
mkdir -p "$tt_work/wdir"
tt_start 100 24 "sh -c \"cd '$tt_work/wdir' && exec '$KPBROWSE' --demo\""
tt_wait "vm_page_check" 20
tt_keys Enter; tt_wait "Summary" 5
tt_keys w
tt_check "w asks for a path, offering one in the current folder" "write the report to: kpbrowse-report-" 5
tt_keys Enter
tt_check "w says where it wrote" "wrote the report" 5
f=$(ls "$tt_work/wdir"/kpbrowse-report-*.txt 2>/dev/null | head -n 1)
if [ -n "$f" ]; then
	src=$(sed -n 's/^File: *//p' "$f")
	KPBROWSE_CACHE_DIR= "$KPBROWSE" show --dsym "$KP_TESTS_DIR/fixtures/bin" "$src" >"$tt_work/show.txt" 2>/dev/null
	if cmp -s "$f" "$tt_work/show.txt"; then _ok "w wrote what kpbrowse show prints (symbolicated)"
	else _notok "w wrote what kpbrowse show prints (symbolicated)"; diff "$tt_work/show.txt" "$f" | sed 's/^/#   /' | head -20; fi
	check_grep "validateReport" "$f" "w: the frames are symbolicated"
else
	_notok "w wrote a file"
fi

# ---- B writes the Markdown bug report as export --markdown does (issue 34 item 3)
tt_start 100 24 "sh -c \"cd '$tt_work/wdir' && exec '$KPBROWSE' --demo\""
tt_wait "vm_page_check" 20
tt_keys Enter; tt_wait "Summary" 5
tt_keys B
tt_check "B asks for a path, offering one in the current folder" "write the Markdown bug report to: kpbrowse-bug-" 5
tt_keys Enter
tt_check "B says where it wrote" "wrote the bug report" 5
b=$(ls "$tt_work/wdir"/kpbrowse-bug-*.md 2>/dev/null | head -n 1)
if [ -n "$b" ]; then
	check_grep '^# Kernel panic: `' "$b" "B: a Markdown bug report, titled by the headline"
	check_grep '^- \*\*Class:\*\* `' "$b" "B: with the cause class"
	check_grep '^- \*\*Occurrences:\*\* ' "$b" "B: and its group's count from the catalog"
else
	_notok "B wrote a file"
fi
# ... and from a group: its selected member (the newest first)
tt_keys Escape Tab; tt_wait "group (normalised" 5
tt_keys Enter; tt_wait "Members" 5
tt_keys B
tt_check "B on a group asks for a path, naming the member" "write the Markdown bug report of @" 5
tt_keys C-u "$tt_work/wdir/group-bug.md" Enter
tt_check "B on a group says where it wrote" "wrote the bug report to" 5
check_grep '^- \*\*Occurrences:\*\* [0-9]* report' "$tt_work/wdir/group-bug.md" "B on a group: the member's bug report with the group's count"
alive && tt_keys Q

# ---- w never follows a link, overwrites, or waits on a FIFO (issue 19 item 6)
name=$(basename "$f" 2>/dev/null)
echo keep >"$tt_work/victim"
for kind in existing link fifo; do
	rm -rf "$tt_work/w-$kind" && mkdir -p "$tt_work/w-$kind"
	case $kind in
	existing) echo old >"$tt_work/w-$kind/$name" ;;
	link) ln -s "$tt_work/victim" "$tt_work/w-$kind/$name" ;;
	fifo) mkfifo "$tt_work/w-$kind/$name" ;;
	esac
	tt_start 100 24 "sh -c \"cd '$tt_work/w-$kind' && exec '$KPBROWSE' --demo\""
	tt_wait "vm_page_check" 20
	tt_keys Enter; tt_wait "Summary" 5
	tt_keys w; tt_wait "write the report to:" 5
	tt_keys Enter
	tt_check "w onto an existing name ($kind): writes beside it instead" "exists: wrote the report" 5
	check "$(ls "$tt_work/w-$kind" | grep -c '^kpbrowse-report-.*-1\.txt$')" = 1 "w onto an existing name ($kind): NAME-1.txt written"
done
check "$(cat "$tt_work/victim")" = keep "w never wrote through the link"
check "$(cat "$tt_work/w-existing/$name")" = old "w never overwrote the existing file"
alive && tt_keys Q

# ---- y copies report text sanitised: a pasted copy cannot end a bracketed
# paste and run a command (issue 19 item 1)
mkdir -p "$tt_work/evil"
python3 - "$KP_TESTS_DIR/fixtures/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic" \
	"$tt_work/evil/Kernel_evil.panic" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
t = t.replace("has bad magic", "has \x1b[201~\rtouch /tmp/PWNED-kpt\r bad magic", 1)
open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape").write(t)
EOF
tt_start 100 24 "'$KPBROWSE' --db '$tt_work/evil.db' '$tt_work/evil'"
tt_wait "vm_page" 20
$TT set-option -s set-clipboard on
tt_keys Enter; tt_wait "Summary" 5
tt_keys / PWNED Enter
tt_keys y
tt_check "y on the hostile line says what it copied" "copied" 5
$TT show-buffer >"$tt_work/evil.clip" 2>/dev/null
check_grep 'PWNED' "$tt_work/evil.clip" "y: the hostile line is on the clipboard"
check "$(tr -d -c '\033\r' <"$tt_work/evil.clip" | wc -c | tr -d ' ')" = 0 "y: no ESC and no CR in what was copied"
check_grep '\\e\[201~' "$tt_work/evil.clip" "y: the ESC copied as inert text, as on screen"
alive && tt_keys Q

# ---- what is copied is what is shown: a newline inside a field reaches the
# clipboard as \x0a, one line per shown line (issue 32 item 2); a name that
# holds an invisible character is marked "!" (issue 32 item 3)
mkdir -p "$tt_work/nl"
python3 - "$KP_TESTS_DIR/fixtures/reports/panic-full-2026-11-20-101500.0001.ips" \
	"$tt_work/nl/panic-full-2026-11-20-101500.0001.ips" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
t = t.replace('"procname": "fakeclient"', '"procname": "fakeclient\\ntouch /tmp/PWNED-nl\\rx"', 1)
t = t.replace("com.kpbrowse.FakeDriver", "com.kpbrowse.Fake\ufe0fDriver")
open(sys.argv[2], "w", encoding="utf-8").write(t)
EOF
tt_start 100 24 "'$KPBROWSE' --db '$tt_work/nl.db' '$tt_work/nl'"
tt_wait "FakeDriver" 20
$TT set-option -s set-clipboard on
tt_keys Enter; tt_wait "Summary" 5
tt_keys / holds Enter
tt_check "the processes list says what its ! mark means" "! the name holds an invisible character" 5
tt_keys Escape / PWNED-nl Enter
tt_check "a newline in a process name is shown as \\x0a" 'fakeclient\x0atouch /tmp/PWNED-nlx' 5
if tt_screen | grep -q '^.!  *321  *fakeclient.x0atouch'; then _ok "the process holding a newline is marked !"
else _notok "the process holding a newline is marked !"; tt_screen | sed 's/^/#   /'; fi
tt_keys y
tt_check "y on the process row says what it copied" "copied" 5
$TT show-buffer >"$tt_work/nl.clip" 2>/dev/null
check "$(cat "$tt_work/nl.clip")" = 'fakeclient\x0atouch /tmp/PWNED-nlx' "y: the clipboard holds the name as shown, \\x0a and all"
check "$(tr -d -c '\n\r\033' <"$tt_work/nl.clip" | wc -c | tr -d ' ')" = 0 "y: no raw newline, CR or ESC in what was copied"
tt_keys Escape Tab
tt_check "images: the legend says what ! means" "! the name holds an invisible character: it is not the name it looks like" 5
if tt_screen | grep -q '^ T!com\.kpbrowse\.Fake<U+FE0F>Driver'; then _ok "images: the look-alike kext is marked ! and shown escaped"
else _notok "images: the look-alike kext is marked ! and shown escaped"; tt_screen | sed 's/^/#   /'; fi
alive && tt_keys Q

# ---- the images tab: kinds explained, each image's dSYM or where it was looked for
# (wide: the demo's path, in the build tree or a prefix, is shown whole)
demo 200 24
tt_keys Enter; tt_wait "Summary" 5; tt_stable
tt_keys Tab
tt_check "images: the kind letters the rows use are explained" "kind: M kernelcache, T kernel or kext text segment, A absolute" 5
tt_check "images: the kernel's dSYM, its architecture and path" "dSYM (arm64): \$DEMO/bin/fakekernel.arm64.dSYM" 10
tt_check "images: an image without a UUID says so" "no UUID in the report: nothing to look for" 5

# ---- ? explains the labels
demo
tt_keys "?"; tt_wait "Help" 5
tt_keys G
tt_check "help has a legend for the culprit column" "culprit      the first non-Apple kext" 5
tt_check "help explains the kind:UUID image labels" "T:2899AE9D   an image the report does not name" 5

# ---- Enter on a group: the group as an object, its members
demo
tt_keys Tab; tt_wait "count" 5
tt_keys Enter
tt_check "group: count" "Count:       2" 5
tt_check "group: first and last seen, UTC" "First seen:  2026-11-20 09:15 UTC   Last seen: 2026-11-27 17:30 UTC" 5
tt_check "group: the OS versions it occurred on" "OS versions: macOS 26.1 (25B78)" 5
tt_check "group: its members" "Members (2)" 5
tt_keys Enter
tt_check "group: Enter opens a member's report" "Summary" 5

# ---- d on a frame: the instructions around it, its address marked, targets named
demo
tt_keys Enter; tt_wait "Summary" 5; tt_wait "kernel_bootstrap_thread" 20; tt_stable
if "$KPBROWSE" show --disasm 1 /dev/null 2>&1 | grep -q "without Capstone"; then
	tt_keys /; tt_keys "panic (fakekernel.c:72)"; tt_keys Enter; tt_stable
	tt_keys d
	tt_check "built without Capstone: d says how to get it" "d: this kpbrowse was built without Capstone" 5
	done_testing
fi
tt_keys d
tt_check "d off a frame row says what it wants" "d disassembles a frame: select one of the backtrace" 5
tt_keys /; tt_keys "panic (fakekernel.c:72)"; tt_keys Enter; tt_stable
tt_keys d
tt_check "d on the summary's frame 1 opens its disassembly" "frame 1 at 0xc098 (arm64)" 20
tt_check "the return address is marked" "-> 0xc098:  e8 ff ff 90" 5
tt_check "the call before it names its target" "bl 0xc044 <panic_trap_to_debugger>" 5
tt_keys y
tt_check "y copies the instruction" "copied instruction to the clipboard" 5
check "$($TT show-buffer 2>/dev/null)" = "adrp x8, #0x8000" "y puts the instruction in the clipboard"
tt_keys d
tt_check "d again goes back to the summary (its filter kept)" "   1 panic (fakekernel.c:72)" 5

done_testing
