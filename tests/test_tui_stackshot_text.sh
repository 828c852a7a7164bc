#!/bin/sh
# test_tui_stackshot_text.sh: a `stackshot -i` text in the browser with
# --load (issue 14 item 9): indexed as a stackshot, its kext frame placed at
# the given load address and symbolicated by the dSYM found by bundle id.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tap.sh"
. "$KP_TESTS_DIR/tui_tmux.sh"
tt_shell 160 40
mkdir -p "$tt_work/syms"
cp -R "$KP_FIXTURES/bin/fakekext.x86_64.dSYM" "$tt_work/syms/FakeDriver.kext.dSYM"
ss="$KP_FIXTURES/textforms/stackshot-i.txt"
tt_run_line "KPBROWSE_CACHE_DIR='$tt_work/cache' '$KPBROWSE' --db '$tt_work/index.db' --dsym '$tt_work/syms' --load com.kpbrowse.FakeDriver=0xffffff7f80e40000 '$ss'"
tt_check "the text is listed by its headline" "stackshot (text): 2 processes, 3 threads" 20
tt_keys Enter
tt_check "summary: the kind" "Kind:            stackshot"
tt_keys / f a k e c l i e n t Enter
tt_check "the process" "fakeclient  2 threads"
tt_keys Enter
# the priority right-aligned at the state column's end, in line on every row
if tt_wait_re 'TH_WAIT TH_UNINT +47 ' 10; then _ok "its thread list"; else tt_notok "its thread list"; fi
tt_keys Enter
if tt_wait_re 'com\.kpbrowse\.FakeDriver +\+0x6a9 +validateReport\(ReportHeader const&, unsigned int, unsigned int\) +fakekext\.cpp:74' 20; then
	_ok "the bare kext frame is placed by --load and symbolicated by the dSYM found by bundle id"
else
	tt_notok "the bare kext frame is placed by --load and symbolicated by the dSYM found by bundle id"
fi
tt_keys q q q q q
done_testing
