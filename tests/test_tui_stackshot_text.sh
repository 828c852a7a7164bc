#!/bin/sh
# test_tui_stackshot_text.sh: a `stackshot -i` text in the browser with
# --load (issue 14 item 9): indexed as a stackshot, its kext frame placed at
# the given load address and symbolicated by the dSYM found by bundle id.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tui_shell.sh"
ts_init tui-sst
ts_shell 160 40
mkdir -p "$work/syms"
cp -R "$KP_FIXTURES/bin/fakekext.x86_64.dSYM" "$work/syms/FakeDriver.kext.dSYM"
ss="$KP_FIXTURES/textforms/stackshot-i.txt"
run_line "KPBROWSE_CACHE_DIR='$work/cache' '$KPBROWSE' --db '$work/index.db' --dsym '$work/syms' --load com.kpbrowse.FakeDriver=0xffffff7f80e40000 '$ss'"
check "the text is listed by its headline" "stackshot (text): 2 processes, 3 threads" 20
keys Enter
check "summary: the kind" "Kind:            stackshot"
keys / f a k e c l i e n t Enter
check "the process" "fakeclient  2 threads"
keys Enter
# the priority right-aligned at the state column's end, in line on every row
if wait_for_re 'TH_WAIT TH_UNINT +47 ' 10; then ok "its thread list"; else not_ok "its thread list"; fi
keys Enter
if wait_for_re 'com\.kpbrowse\.FakeDriver +\+0x6a9 +validateReport\(ReportHeader const&, unsigned int, unsigned int\) +fakekext\.cpp:74' 20; then
	ok "the bare kext frame is placed by --load and symbolicated by the dSYM found by bundle id"
else
	not_ok "the bare kext frame is placed by --load and symbolicated by the dSYM found by bundle id"
fi
keys q q q q q
ts_done
