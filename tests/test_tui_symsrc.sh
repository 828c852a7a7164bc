#!/bin/sh
# test_tui_symsrc.sh: the symbol sources seen from the browser (issue 23):
# a frame left unnamed says which sources looked where and what each said
# (the line above the frames and the frame's detail), and a dSYM named by a
# dsymForUUID program opens its sources where DBGSourcePathRemapping /
# DBGSourcePath say they are now, with no --source-map.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tui_shell.sh"
ts_init tui-symsrc
bin=$KP_FIXTURES/bin
kext=4C4C44A3-5555-3144-A151-249D146ED38D
mkdir -p "$work/reports" "$work/lab/kext"
cp "$KP_FIXTURES/reports/panic-full-2026-11-27-183005.0002.ips" "$work/reports/"
cp "$KP_FIXTURES/src/fakekext.cpp" "$work/lab/kext/"
# the lab's dsymForUUID: the kext's dSYM with its sources moved from the
# build folder to /lab; the kernel's an error
cat >"$work/dsymForUUID" <<EOS
#!/bin/sh
case \$1 in
$kext) cat <<P
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>\$1</key><dict>
<key>DBGDSYMPath</key><string>$bin/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64</string>
<key>DBGArchitecture</key><string>arm64</string>
<key>DBGVersion</key><string>3</string>
<key>DBGSourcePathRemapping</key><dict><key>/kpbrowse/fixtures/src</key><string>$work/lab/kext</string></dict>
</dict></dict></plist>
P
;;
*) printf '<plist version="1.0"><dict><key>%s</key><dict><key>DBGError</key><string>not in the lab store</string></dict></dict></plist>' "\$1";;
esac
EOS
chmod +x "$work/dsymForUUID"
ts_shell 120 40
run_line "HOME='$work' XDG_CACHE_HOME='$work/cache' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$work/dsymForUUID' '$KPBROWSE' --db '$work/i.db' '$work/reports'"
if wait_for_re '^ 1/1 ' 30; then ok "the report is listed"; else not_ok "the report is listed"; fi
keys Enter
check "its summary" "Panicked task:"
keys Enter
check "the panicked process" "fakeclient.report"
keys Enter
check "the kext's frame named through dsymForUUID" "validateReport(ReportHeader const&" 20
check "the kernel's frames: which source looked where" \
	"no dSYM for kernel 4C4C44BD-5555-3144-A14B-0078EC5E31E1: looked in dsymForUUID $work/dsymForUUID"
check "  the frame's detail says it whole, with what the source said" "DBGError: not in the lab store"
keys j j
check "the kext frame's detail: its source where the lab keeps it now" "$work/lab/kext/fakekext.cpp:74"
keys Enter
check "Enter opens the remapped source" 'panic("FakeDriv'
check "  from the lab's folder" "$work/lab/kext/fakekext.cpp"
keys Q
# the binaries alone (no dSYM): names from their symbol tables, each marked
# with where it came from and the offset into it (issue 22 item 4)
mkdir -p "$work/bare"
cp "$bin/fakekernel.arm64" "$bin/fakekext.arm64" "$work/bare/"
run_line "HOME='$work' XDG_CACHE_HOME='$work/cache2' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$work/i.db' --dsym '$work/bare' '$work/reports'"
if wait_for_re '^ 1/1 ' 30; then ok "listed again"; else not_ok "listed again"; fi
keys Enter
check "the summary again" "Panicked task:"
keys Enter
check "the process again" "fakeclient.report"
keys Enter
if wait_for_re '^  0 kernel .* panic_trap_to_debugger +\+0x[0-9a-f]+ \(symbol table\)' 20; then
	ok "a symbol table's name: marked as such, with the offset into it"
else not_ok "a symbol table's name: marked as such, with the offset into it"; fi
keys Q
# a dsymForUUID that hangs (a lab server down): quitting while it runs
# stops it and quits at once, not when its timeout (60 s) ends
cat >"$work/slowForUUID" <<EOS
#!/bin/sh
echo \$\$ >"$work/slow.started"
exec sleep 60
EOS
chmod +x "$work/slowForUUID"
run_line "HOME='$work' XDG_CACHE_HOME='$work/cache3' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$work/slowForUUID' '$KPBROWSE' --db '$work/i.db' '$work/reports'; echo kp-exit-\$?"
if wait_for_re '^ 1/1 ' 30; then ok "listed with a hanging dsymForUUID"; else not_ok "listed with a hanging dsymForUUID"; fi
keys Enter
check "its summary, with the lookup under way" "Panicked task:"
keys Enter Enter
i=0
while [ ! -s "$work/slow.started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e "$work/slow.started" ]; then ok "the hanging dsymForUUID runs"; else not_ok "the hanging dsymForUUID runs"; fi
keys Q
if wait_for "kp-exit-0" 3; then ok "Q quits within 3 s while dsymForUUID hangs"
else not_ok "Q quits within 3 s while dsymForUUID hangs"; screen | tail -5; fi
pid=$(cat "$work/slow.started" 2>/dev/null)
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok "the hanging program was stopped"
else not_ok "the hanging program was stopped (pid $pid)"; [ -n "$pid" ] && kill "$pid"; fi
# a --dsym of another build (issue 30 item 3): the message line says so,
# naming the file, when a backtrace is opened
run_line "HOME='$work' XDG_CACHE_HOME='$work/cache5' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$work/i.db' --dsym '$bin/fakekext.x86_64.dSYM' '$work/reports'; echo kp-exit-\$?"
if wait_for_re '^ 1/1 ' 30; then ok "listed with a --dsym of another build"; else not_ok "listed with a --dsym of another build"; fi
keys Enter
check "the message line, with the report's backtrace: the --dsym of another build, named" "fakekext.x86_64.dSYM: --dsym: another build: its UUIDs (4C4C4449" 10
# the images tab, the browser's `symbols where`, lists it at its top, after
# the message line is gone (Tab clears it)
keys Tab
check "the images tab" "under each image: its dSYM, or where it was looked for"
if wait_for_re '^  ! .*fakekext\.x86_64\.dSYM: --dsym: another build: its UUIDs \(4C4C4449' 10; then
	ok "the images tab lists the --dsym of another build, one row"
else not_ok "the images tab lists the --dsym of another build, one row"; screen | head -12; fi
keys Q
if wait_for "kp-exit-0" 3; then ok "quit"; else not_ok "quit"; fi
# a --dsym cut short: its row says why it cannot be read
head -c 64 "$bin/fakekernel.arm64" >"$work/cut.arm64"
run_line "HOME='$work' XDG_CACHE_HOME='$work/cache6' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$work/i.db' --dsym '$work/cut.arm64' '$work/reports'; echo kp-exit-\$?"
if wait_for_re '^ 1/1 ' 30; then ok "listed with a --dsym cut short"; else not_ok "listed with a --dsym cut short"; fi
keys Enter
check "its summary, with the --dsym cut short" "Panicked task:"
keys Tab
if wait_for_re '^  ! .*cut\.arm64: --dsym: left out: ' 10; then
	ok "the images tab lists the --dsym cut short, with the parser's reason"
else not_ok "the images tab lists the --dsym cut short, with the parser's reason"; screen | head -12; fi
keys Q
if wait_for "kp-exit-0" 3; then ok "quit again"; else not_ok "quit again"; fi
# w with a hanging dsymForUUID (issue 30 item 4): it says what it waits
# for, and q cancels it at once (the program stopped, no file left), then
# does what q does; before, w held every key for 60 s a UUID
rm -f "$work/slow.started"
run_line "cd '$work'; HOME='$work' XDG_CACHE_HOME='$work/cache4' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$work/slowForUUID' '$KPBROWSE' --db '$work/i.db' '$work/reports'; echo kp-exit-\$?"
if wait_for_re '^ 1/1 ' 30; then ok "listed for w"; else not_ok "listed for w"; fi
keys Enter
check "the summary, for w" "Panicked task:"
keys w
check "w asks where" "write the report to:"
keys Enter
check "w says it waits for the symbol sources, and how to cancel" "q, Esc or Ctrl-C cancels" 5
keys q
if wait_for_re '^ 1/1 ' 3; then ok "q cancels w and goes back to the list within 3 s while dsymForUUID hangs"
else not_ok "q cancels w and goes back to the list within 3 s while dsymForUUID hangs"; screen | tail -3; fi
if ls "$work"/kpbrowse-report-*.txt >/dev/null 2>&1; then not_ok "no half-written report left"
else ok "no half-written report left"; fi
pid=$(cat "$work/slow.started" 2>/dev/null)
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok "the hanging program was stopped by the cancel"
else not_ok "the hanging program was stopped by the cancel (pid $pid)"; [ -n "$pid" ] && kill "$pid"; fi
keys Q
if wait_for "kp-exit-0" 3; then ok "Q then quits"; else not_ok "Q then quits"; fi
ts_done
