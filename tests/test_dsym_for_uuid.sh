#!/bin/sh
# test_dsym_for_uuid.sh: `kpbrowse dsym-for-uuid UUID...` prints the plist
# lldb reads from a dsymForUUID program (a dictionary keyed by UUID:
# DBGArchitecture, DBGDSYMPath, DBGSymbolRichExecutable, DBGError),
# XML-escaped, for lldb's own way of calling it; read back with python3's
# plistlib (lldb reads DBGShellCommands only on macOS, so no lldb here can
# be asked), and by kpbrowse's own dsymForUUID source (round trip), with a
# wrapper that calls itself stopped after one level.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
bin=$KP_FIXTURES/bin
unset KPBROWSE_DSYMFORUUID LLDB_APPLE_DSYMFORUUID_EXECUTABLE KPBROWSE_IN_DSYM_FOR_UUID
kext_arm=4C4C44A3-5555-3144-A151-249D146ED38D
kernel_x86=4C4C44EF-5555-3144-A1CD-413F9846D32A
symtab=4C4C440D-5555-3144-A1F7-3CAE66CE75DF
none=01234567-89AB-CDEF-0123-456789ABCDEF
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 absent: the plist cannot be read back"
	done_testing
fi

# plist_check FILE PYTHON-EXPR: the expression over p (the parsed plist) is true
plist_check() {
	python3 - "$1" "$2" <<'EOF'
import plistlib, sys
try:
    p = plistlib.load(open(sys.argv[1], "rb"))
except Exception as e:
    print("# not a plist: %s" % e)
    sys.exit(1)
ok = eval(sys.argv[2])
if not ok:
    print("# %r" % p)
sys.exit(0 if ok else 1)
EOF
}

# as lldb runs it: EXE --ignoreNegativeCache --copyExecutable UUID
"$kp" dsym-for-uuid --ignoreNegativeCache --copyExecutable --dsym "$bin" \
	"$(echo $kext_arm | tr A-F a-f)" $kernel_x86 $symtab $none $kernel_x86 >"$tmp/out.plist" 2>"$tmp/err"
check "$?" = 0 "lldb's flags accepted, exit 0 with a UUID not found"
check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "nothing on stderr"
plist_check "$tmp/out.plist" "isinstance(p, dict) and sorted(p) == sorted(['$kext_arm', '$kernel_x86', '$symtab', '$none'])"
check "$?" = 0 "a dictionary keyed by each UUID once, upper case with dashes"
plist_check "$tmp/out.plist" "p['$kext_arm']['DBGArchitecture'] == 'arm64' and p['$kext_arm']['DBGDSYMPath'].endswith('.dSYM/Contents/Resources/DWARF/' + p['$kext_arm']['DBGDSYMPath'].split('/')[-1]) and p['$kext_arm']['DBGDSYMPath'].startswith('/')"
check "$?" = 0 "the kext: arm64, DBGDSYMPath an absolute DWARF file inside its .dSYM"
plist_check "$tmp/out.plist" "p['$kext_arm']['DBGSymbolRichExecutable'] == '$bin/fakekext.arm64' or p['$kext_arm']['DBGSymbolRichExecutable'] == '$bin/fakekext.universal'"
check "$?" = 0 "the kext: DBGSymbolRichExecutable the binary with its UUID"
plist_check "$tmp/out.plist" "p['$kernel_x86']['DBGArchitecture'] == 'x86_64' and 'DBGError' not in p['$kernel_x86']"
check "$?" = 0 "the x86_64 kernel: x86_64"
plist_check "$tmp/out.plist" "p['$symtab'] == {'DBGArchitecture': 'arm64', 'DBGSymbolRichExecutable': '$bin/fakekext.symtab'}"
check "$?" = 0 "a binary without dSYM: DBGSymbolRichExecutable only"
plist_check "$tmp/out.plist" "list(p['$none']) == ['DBGError'] and '$none' in p['$none']['DBGError']"
check "$?" = 0 "not found: DBGError naming the UUID"
# each DBGDSYMPath holds its UUID, as llvm-dwarfdump reads it
dd=$(command -v llvm-dwarfdump-19 || command -v llvm-dwarfdump || true)
if [ -n "$dd" ]; then
	f=$(python3 -c "import plistlib,sys;print(plistlib.load(open(sys.argv[1],'rb'))['$kernel_x86']['DBGDSYMPath'])" "$tmp/out.plist")
	"$dd" --uuid "$f" >"$tmp/uuid" 2>&1
	check_grep "UUID: $kernel_x86 (x86_64)" "$tmp/uuid" "DBGDSYMPath holds the UUID (llvm-dwarfdump --uuid)"
else
	skip "llvm-dwarfdump absent: DBGDSYMPath's UUID unchecked"
fi

# XML escaping: a folder named with & < > ' " is written escaped and reads
# back the same; a path XML cannot carry (ESC) is a DBGError
odd="$tmp/a&b<c>'d\"e"
mkdir -p "$odd"
cp -R "$bin/fakekext.x86_64.dSYM" "$odd/"
"$kp" dsym-for-uuid --dsym "$odd" 4C4C4449-5555-3144-A1F6-9DFF5C39A349 >"$tmp/odd.plist"
check_grep "a&amp;b&lt;c&gt;&apos;d&quot;e" "$tmp/odd.plist" "& < > ' \" escaped"
ODD="$odd" plist_check "$tmp/odd.plist" "p['4C4C4449-5555-3144-A1F6-9DFF5C39A349']['DBGDSYMPath'].startswith(__import__('os').environ['ODD'] + '/')"
check "$?" = 0 "the escaped path reads back as the folder's name"
esc="$tmp/e$(printf '\033')x"
mkdir -p "$esc"
cp -R "$bin/fakekernel.arm64.dSYM" "$esc/"
"$kp" dsym-for-uuid --dsym "$esc" 4C4C44BD-5555-3144-A14B-0078EC5E31E1 >"$tmp/esc.plist"
check "$?" = 0 "a path with ESC: exit 0"
plist_check "$tmp/esc.plist" "list(p['4C4C44BD-5555-3144-A14B-0078EC5E31E1']) == ['DBGError']"
check "$?" = 0 "a path with ESC: a DBGError, the plist still valid"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/esc.plist"; then _notok "no ESC byte in the plist"; else _ok "no ESC byte in the plist"; fi

# round trip: kpbrowse's own dsymForUUID source reads what it prints
cat >"$tmp/wrapper" <<EOF
#!/bin/sh
exec "$kp" dsym-for-uuid --dsym "$bin" "\$@"
EOF
chmod +x "$tmp/wrapper"
KPBROWSE_DSYMFORUUID="$tmp/wrapper" "$kp" symbols where $kext_arm >"$tmp/where" 2>&1
check "$?" = 0 "round trip: symbols where through kpbrowse as dsymForUUID"
check_grep "^  from: dsymForUUID\$" "$tmp/where" "round trip: the dsymForUUID source answered"
check_grep "^  kind: dSYM, arm64\$" "$tmp/where" "round trip: the dSYM, arm64"

# a wrapper that asks itself: the nested run runs no dsymForUUID
cat >"$tmp/loop" <<EOF
#!/bin/sh
echo run >>"$tmp/loops"
exec "$kp" dsym-for-uuid "\$@"
EOF
chmod +x "$tmp/loop"
KPBROWSE_DSYMFORUUID="$tmp/loop" KPBROWSE_DSYMFORUUID_TIMEOUT=20 "$kp" dsym-for-uuid $none >"$tmp/loop.plist" 2>&1
check "$?" = 0 "a self-calling wrapper: exit 0"
check "$(wc -l <"$tmp/loops" | tr -d ' ')" = 1 "a self-calling wrapper: run once, not again from inside"
plist_check "$tmp/loop.plist" "'DBGError' in p['$none']"
check "$?" = 0 "a self-calling wrapper: DBGError"

# an answer nesting 200,000 <array>s (libplist recursed into them and the
# process died of a stack overflow): refused by name, the lookup goes on
python3 -c "
import sys
sys.stdout.write('<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>$kext_arm</key><dict>'
                 '<key>DBGDSYMPath</key><string>/nowhere</string><key>Deep</key>'
                 + '<array>' * 200000 + '</array>' * 200000 + '</dict></dict></plist>')" >"$tmp/deep.plist"
printf '#!/bin/sh\ncat "%s"\n' "$tmp/deep.plist" >"$tmp/deep"
chmod +x "$tmp/deep"
KPBROWSE_DSYMFORUUID="$tmp/deep" "$kp" symbols where $kext_arm >"$tmp/deep.out" 2>&1
check "$?" = 1 "a 200,000-deep answer: no crash, not found (exit 1)"
check_grep "^  said: its output: the plist nested deeper than 128 levels\$" "$tmp/deep.out" \
	"a 200,000-deep answer: refused as nested too deeply"
# a lab program's DBGError passes through (issue 30 item 4), made inert
cat >"$tmp/lab" <<'EOF'
#!/bin/sh
printf '<plist version="1.0"><dict><key>%s</key><dict><key>DBGError</key><string>build 25G83 purged from the lab store \033[2J</string></dict></dict></plist>' "$1"
EOF
chmod +x "$tmp/lab"
KPBROWSE_DSYMFORUUID="$tmp/lab" "$kp" dsym-for-uuid $none >"$tmp/lab.plist" 2>&1
plist_check "$tmp/lab.plist" "'build 25G83 purged from the lab store' in p['$none']['DBGError'] and 'no symbol source' not in p['$none']['DBGError']"
check "$?" = 0 "a lab program's DBGError: its text, not \"no symbol source holds\""
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/lab.plist"; then _notok "  its ESC made inert"; else _ok "  its ESC made inert"; fi

# usage
"$kp" dsym-for-uuid >/dev/null 2>&1
check "$?" = 2 "no UUID: exit 2"
"$kp" dsym-for-uuid nope >/dev/null 2>"$tmp/err"
check "$?" = 2 "not a UUID: exit 2"
check_grep "not a UUID" "$tmp/err" "not a UUID: says so"
done_testing
