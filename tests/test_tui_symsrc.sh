#!/bin/sh
# test_tui_symsrc.sh: the symbol sources seen from the browser (issue 23):
# a frame left unnamed says which sources looked where and what each said
# (the line above the frames and the frame's detail), and a dSYM named by a
# dsymForUUID program opens its sources where DBGSourcePathRemapping /
# DBGSourcePath say they are now, with no --source-map.
# Env: KPBROWSE (binary), KP_TESTS_DIR, KP_FIXTURES.
set -u

: "${KP_TESTS_DIR:=$(cd "$(dirname "$0")" && pwd)}"
. "$KP_TESTS_DIR/tap.sh"
. "$KP_TESTS_DIR/tui_tmux.sh"
bin=$KP_FIXTURES/bin
kext=4C4C44A3-5555-3144-A151-249D146ED38D
mkdir -p "$tt_work/reports" "$tt_work/lab/kext"
cp "$KP_FIXTURES/reports/panic-full-2026-11-27-183005.0002.ips" "$tt_work/reports/"
cp "$KP_FIXTURES/src/fakekext.cpp" "$tt_work/lab/kext/"
# the lab's dsymForUUID: the kext's dSYM with its sources moved from the
# build folder to /lab; the kernel's an error
cat >"$tt_work/dsymForUUID" <<EOS
#!/bin/sh
case \$1 in
$kext) cat <<P
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>\$1</key><dict>
<key>DBGDSYMPath</key><string>$bin/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64</string>
<key>DBGArchitecture</key><string>arm64</string>
<key>DBGVersion</key><string>3</string>
<key>DBGSourcePathRemapping</key><dict><key>/kpbrowse/fixtures/src</key><string>$tt_work/lab/kext</string></dict>
</dict></dict></plist>
P
;;
*) printf '<plist version="1.0"><dict><key>%s</key><dict><key>DBGError</key><string>not in the lab store</string></dict></dict></plist>' "\$1";;
esac
EOS
chmod +x "$tt_work/dsymForUUID"
tt_shell 120 40
tt_run_line "HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$tt_work/dsymForUUID' '$KPBROWSE' --db '$tt_work/i.db' '$tt_work/reports'"
if tt_wait_re '^ 1/1 ' 30; then _ok "the report is listed"; else tt_notok "the report is listed"; fi
tt_keys Enter
tt_check "its summary" "Panicked task:"
tt_keys Enter
tt_check "the panicked process" "fakeclient.report"
tt_keys Enter
tt_check "the kext's frame named through dsymForUUID" "validateReport(ReportHeader const&" 20
tt_check "the kernel's frames: which source looked where" \
	"no dSYM for kernel 4C4C44BD-5555-3144-A14B-0078EC5E31E1: looked in dsymForUUID $tt_work/dsymForUUID"
tt_check "  the frame's detail says it whole, with what the source said" "DBGError: not in the lab store"
tt_keys j j
tt_check "the kext frame's detail: its source where the lab keeps it now" "$tt_work/lab/kext/fakekext.cpp:74"
tt_keys Enter
tt_check "Enter opens the remapped source" 'panic("FakeDriv'
tt_check "  from the lab's folder" "$tt_work/lab/kext/fakekext.cpp"
tt_keys Q
# the binaries alone (no dSYM): names from their symbol tables, each marked
# with where it came from and the offset into it (issue 22 item 4)
mkdir -p "$tt_work/bare"
cp "$bin/fakekernel.arm64" "$bin/fakekext.arm64" "$tt_work/bare/"
tt_run_line "HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache2' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/i.db' --dsym '$tt_work/bare' '$tt_work/reports'"
if tt_wait_re '^ 1/1 ' 30; then _ok "listed again"; else tt_notok "listed again"; fi
tt_keys Enter
tt_check "the summary again" "Panicked task:"
tt_keys Enter
tt_check "the process again" "fakeclient.report"
tt_keys Enter
if tt_wait_re '^  0 kernel .* panic_trap_to_debugger +\+0x[0-9a-f]+ \(symbol table\)' 20; then
	_ok "a symbol table's name: marked as such, with the offset into it"
else tt_notok "a symbol table's name: marked as such, with the offset into it"; fi
tt_keys Q
# a dsymForUUID that hangs (a lab server down): quitting while it runs
# stops it and quits at once, not when its timeout (60 s) ends
cat >"$tt_work/slowForUUID" <<EOS
#!/bin/sh
echo \$\$ >"$tt_work/slow.started"
exec sleep 60
EOS
chmod +x "$tt_work/slowForUUID"
tt_run_line "HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache3' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$tt_work/slowForUUID' '$KPBROWSE' --db '$tt_work/i.db' '$tt_work/reports'; echo kp-exit-\$?"
if tt_wait_re '^ 1/1 ' 30; then _ok "listed with a hanging dsymForUUID"; else tt_notok "listed with a hanging dsymForUUID"; fi
tt_keys Enter
tt_check "its summary, with the lookup under way" "Panicked task:"
tt_keys Enter Enter
i=0
while [ ! -s "$tt_work/slow.started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e "$tt_work/slow.started" ]; then _ok "the hanging dsymForUUID runs"; else tt_notok "the hanging dsymForUUID runs"; fi
tt_keys Q
if tt_wait "kp-exit-0" 3; then _ok "Q quits within 3 s while dsymForUUID hangs"
else tt_notok "Q quits within 3 s while dsymForUUID hangs"; tt_screen | tail -5; fi
pid=$(cat "$tt_work/slow.started" 2>/dev/null)
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then _ok "the hanging program was stopped"
else tt_notok "the hanging program was stopped (pid $pid)"; [ -n "$pid" ] && kill "$pid"; fi
# a --dsym of another build (issue 30 item 3): the message line says so,
# naming the file, when a backtrace is opened
tt_run_line "HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache5' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/i.db' --dsym '$bin/fakekext.x86_64.dSYM' '$tt_work/reports'; echo kp-exit-\$?"
if tt_wait_re '^ 1/1 ' 30; then _ok "listed with a --dsym of another build"; else tt_notok "listed with a --dsym of another build"; fi
tt_keys Enter
tt_check "the message line, with the report's backtrace: the --dsym of another build, named" "fakekext.x86_64.dSYM: --dsym: another build: its UUIDs (4C4C4449" 10
# the images tab, the browser's `symbols where`, lists it at its top, after
# the message line is gone (Tab clears it)
tt_keys Tab
tt_check "the images tab" "under each image: its dSYM, or where it was looked for"
if tt_wait_re '^  ! .*fakekext\.x86_64\.dSYM: --dsym: another build: its UUIDs \(4C4C4449' 10; then
	_ok "the images tab lists the --dsym of another build, one row"
else tt_notok "the images tab lists the --dsym of another build, one row"; tt_screen | head -12; fi
tt_keys Q
if tt_wait "kp-exit-0" 3; then _ok "quit"; else tt_notok "quit"; fi
# a --dsym cut short: its row says why it cannot be read
head -c 64 "$bin/fakekernel.arm64" >"$tt_work/cut.arm64"
tt_run_line "HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache6' KPBROWSE_DSYM_PATH= '$KPBROWSE' --db '$tt_work/i.db' --dsym '$tt_work/cut.arm64' '$tt_work/reports'; echo kp-exit-\$?"
if tt_wait_re '^ 1/1 ' 30; then _ok "listed with a --dsym cut short"; else tt_notok "listed with a --dsym cut short"; fi
tt_keys Enter
tt_check "its summary, with the --dsym cut short" "Panicked task:"
tt_keys Tab
if tt_wait_re '^  ! .*cut\.arm64: --dsym: left out: ' 10; then
	_ok "the images tab lists the --dsym cut short, with the parser's reason"
else tt_notok "the images tab lists the --dsym cut short, with the parser's reason"; tt_screen | head -12; fi
tt_keys Q
if tt_wait "kp-exit-0" 3; then _ok "quit again"; else tt_notok "quit again"; fi
# w with a hanging dsymForUUID (issue 30 item 4): it says what it waits
# for, and q cancels it at once (the program stopped, no file left), then
# does what q does; before, w held every key for 60 s a UUID
rm -f "$tt_work/slow.started"
tt_run_line "cd '$tt_work'; HOME='$tt_work' XDG_CACHE_HOME='$tt_work/cache4' KPBROWSE_DSYM_PATH= KPBROWSE_DSYMFORUUID='$tt_work/slowForUUID' '$KPBROWSE' --db '$tt_work/i.db' '$tt_work/reports'; echo kp-exit-\$?"
if tt_wait_re '^ 1/1 ' 30; then _ok "listed for w"; else tt_notok "listed for w"; fi
tt_keys Enter
tt_check "the summary, for w" "Panicked task:"
tt_keys w
tt_check "w asks where" "write the report to:"
tt_keys Enter
tt_check "w says it waits for the symbol sources, and how to cancel" "q, Esc or Ctrl-C cancels" 5
tt_keys q
if tt_wait_re '^ 1/1 ' 3; then _ok "q cancels w and goes back to the list within 3 s while dsymForUUID hangs"
else tt_notok "q cancels w and goes back to the list within 3 s while dsymForUUID hangs"; tt_screen | tail -3; fi
if ls "$tt_work"/kpbrowse-report-*.txt >/dev/null 2>&1; then tt_notok "no half-written report left"
else _ok "no half-written report left"; fi
pid=$(cat "$tt_work/slow.started" 2>/dev/null)
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then _ok "the hanging program was stopped by the cancel"
else tt_notok "the hanging program was stopped by the cancel (pid $pid)"; [ -n "$pid" ] && kill "$pid"; fi
tt_keys Q
if tt_wait "kp-exit-0" 3; then _ok "Q then quits"; else tt_notok "Q then quits"; fi
done_testing
