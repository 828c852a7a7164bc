#!/bin/sh
# test_screens.sh: whole-screen tests like tig's.  The demo (its files
# copied to a path of fixed length, see tui_tmux.sh) at 80x24,
# 120x40 and 40x12, walked through its views; each screen is compared with
# tests/screens/SIZE-NAME.txt.  KP_SCREENS_UPDATE=1 rewrites the expected
# screens (review the diff before committing it).  TAP; 77 without tmux.
set -u
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/tui_tmux.sh"

walk() {   # walk W H: one session, every view
	s="$1x$2"
	rm -f "$tt_work/demo.db"*   # each size starts from an empty index: every report new
	tt_start "$1" "$2" "$tt_demo_cmd" || { _notok "tmux session $s"; return; }
	tt_wait "Fake" 20   # all a 40-column row keeps of the title
	tt_expect "$s-panics"
	tt_keys Tab; tt_wait "count" 5; tt_expect "$s-groups"
	tt_keys Enter; tt_wait "Members" 5; tt_wait "Kexts:       com" 10; tt_expect "$s-group"
	tt_keys c; tt_wait "Panicked threads" 10; tt_wait "panic_trap_to_debugger (" 20; tt_expect "$s-compare-group"
	tt_keys Escape; tt_wait "Members" 5
	tt_keys Escape; tt_wait "count" 5
	tt_keys Tab Enter; tt_wait "Summary" 5; tt_expect "$s-report"
	tt_keys Tab; tt_wait "Binary images" 5; tt_expect "$s-images"
	tt_keys Tab Enter; tt_wait "thread" 5
	tt_keys Enter; tt_wait "fakekernel.c" 20; tt_expect "$s-thread"
	tt_keys j j Enter; tt_wait 'panic("FakeDriv' 5; tt_expect "$s-source"
	if [ "$capstone" = yes ]; then
		tt_keys Escape d; tt_wait "frame 2 at 0x" 20; tt_expect "$s-disasm"
		tt_keys d "?"
	else
		skip "$s-disasm: kpbrowse built without Capstone"
		tt_keys Escape "?"
	fi
	tt_wait "move down" 5; tt_expect "$s-help"
	tt_keys Escape u "4c4c44a3-5555-3144" Enter; tt_wait "4c4c44a3" 5; tt_expect "$s-uuid"
	tt_keys Escape K FakeDriver Enter; tt_wait "with kext FakeDriver" 5; tt_expect "$s-kext"
	tt_keys Escape Escape Escape Escape; tt_wait "dups" 5
	tt_keys g m G m c; tt_wait "Panicked threads" 10; tt_wait "panic_trap_to_debugger (" 20
	tt_expect "$s-compare-marked"
}

# walk_real W H: the real corpus (tests/real: other Macs' reports,
# no dSYMs for them), newest first: the list, the groups, the newest
# report's panicked process and thread (issue 20: what a kernel developer
# reads at 80x24 without symbols), and a report whose culprit kext is frame 13
walk_real() {
	s="$1x$2-real"
	mkdir -p "$tt_fix/real"
	cp "$KP_REAL_DIR/"* "$tt_fix/real/" 2>/dev/null
	rm -f "$tt_fix/real/MANIFEST.tsv" "$tt_work/real.db"*
	tt_start "$1" "$2" "HOME='$tt_work/home' XDG_CACHE_HOME='$tt_work/cache' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/real.db' '$tt_fix/real'" ||
		{ _notok "tmux session $s"; return; }
	tt_wait "IOCommandGate" 20
	tt_expect "$s-panics"
	tt_keys Tab; tt_wait "count" 5; tt_expect "$s-groups"
	# the iPhone stackshot (227 threads), whatever date order the corpus has
	tt_keys Tab / IOCommandGate Enter; tt_wait "(filtered)" 5
	tt_keys Enter; tt_wait "Summary" 5; tt_expect "$s-report"
	tt_keys Enter; tt_wait "waits on" 5; tt_keys s s; tt_wait "threads by priority" 5; tt_expect "$s-process"
	tt_keys g Enter; tt_wait "no dSYM" 10; tt_expect "$s-thread"
	# a culprit kext further down than the first frames (frame 13): shown
	# after them, its number after a "…" (issue 20)
	tt_keys Escape Escape Escape; tt_wait "dups" 5
	tt_keys / C-u N V D A Enter Enter; tt_wait "NVDAResmanWeb +0x" 10; tt_expect "$s-culprit"
	# the machine-check state a report holds before its panic line, above
	# the panic string (issue 31 item 2)
	tt_keys Escape; tt_wait "dups" 5
	tt_keys / C-u M a c h i n e Space C h e c k Enter Enter; tt_wait "Summary" 5
	tt_keys NPage; tt_wait "Before the panic line" 5; tt_expect "$s-preamble"
	# Enter on frame 6 of the summary's backtrace opens the thread at frame
	# 6, not at its top (issue 31 item 11)
	tt_keys Escape Escape; tt_wait "dups" 5
	tt_keys / C-u I O C o m m a n d G a t e Enter Enter; tt_wait "Summary" 5
	tt_keys / S E P K e y S t o r e Enter; tt_wait "(filtered)" 5
	tt_keys Enter; tt_wait "#6 " 10; tt_expect "$s-frame"
	# a group whose backtrace kexts are more than a line: the Kexts line
	# wraps, no bundle id cut (issue 31 item 11)
	tt_keys Escape Escape Escape; tt_wait "dups" 5
	tt_keys Tab; tt_wait "count" 5
	tt_keys / S l e e p Space t r a n s i t i o n Space t i m e d Enter Enter; tt_wait "Members" 5; tt_wait "Kexts:       com" 10; tt_expect "$s-group-kexts"
}

# walk_symbols W H: a real report whose frames carry the report's own
# (mangled) symbols and no dSYM: rows and the detail lines demangled, the
# image and offset beside them while width allows, the function never
# dropped for another column, the images without a dSYM named in the lines
# there are (issue 20)
walk_symbols() {
	s="$1x$2-symbols"
	mkdir -p "$tt_fix/sym"
	cp "$KP_REAL_DIR/text-intel-1015-ryzen-hackintosh-userspace-watchdog-1.txt" "$tt_fix/sym/"
	rm -f "$tt_work/sym.db"*
	tt_start "$1" "$2" "HOME='$tt_work/home' XDG_CACHE_HOME='$tt_work/cache' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/sym.db' '$tt_fix/sym'" ||
		{ _notok "tmux session $s"; return; }
	tt_wait "19H15" 20
	tt_keys Enter; tt_wait "Panicked task" 5
	tt_keys Enter; tt_wait "cpu 2" 5
	tt_keys Enter; tt_wait "no dSYM for" 10
	tt_keys j j j; tt_wait "#3 void VirtualSMCProvider::kernelTrap<" 5; tt_expect "$s-thread"
}

# the disassembly screens need a kpbrowse built with Capstone
capstone=yes
"$KPBROWSE" show --disasm 1 /dev/null 2>&1 | grep -q "without Capstone" && capstone=no
# test_screens.sh [W H]: one size (ctest runs each as a test of its own),
# or all three
if [ $# -ge 2 ]; then
	walk "$1" "$2"
	[ "$1x$2" = 80x24 ] && walk_real 80 24
	[ "$1x$2" = 120x40 ] || walk_symbols "$1" "$2"
else
	walk 80 24
	walk_real 80 24
	walk_symbols 80 24
	walk_symbols 40 12
	walk 120 40
	walk 40 12
fi
done_testing
