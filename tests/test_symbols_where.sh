#!/bin/sh
# test_symbols_where.sh: `kpbrowse symbols where UUID` prints every symbol
# source asked, in the one order, what each tried and said, and where the
# answer came from (exit 0), or that none holds it (exit 1); what a
# dsymForUUID program says is sanitised before it reaches the terminal.
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
bin=$KP_FIXTURES/bin
kext=4C4C44A3-5555-3144-A151-249D146ED38D
kernel=4C4C44BD-5555-3144-A14B-0078EC5E31E1
unset KPBROWSE_DSYMFORUUID LLDB_APPLE_DSYMFORUUID_EXECUTABLE

# found through --dsym: the steps before it, then the answer
"$kp" symbols where --dsym "$bin" "$(echo $kext | tr A-F a-f | tr -d -)" >"$tmp/out" 2>"$tmp/err"
check "$?" = 0 "--dsym holds it: exit 0"
check "$(sed -n 1p "$tmp/out")" = "UUID $kext" "the UUID, canonical"
check "$(grep -c '^[0-9]*\. ' "$tmp/out")" = 2 "two sources asked"
check "$(sed -n 's/^1\. //p' "$tmp/out")" = "next to the binary" "first: next to the binary"
check "$(sed -n 's/^2\. //p' "$tmp/out")" = "--dsym" "then --dsym"
check_grep "^  tried: $bin\$" "$tmp/out" "--dsym names its folder"
check_grep "^found: $bin/.*\.dSYM/Contents/Resources/DWARF/" "$tmp/out" "the answer: a dSYM's DWARF file"
check_grep "^  from: --dsym\$" "$tmp/out" "from --dsym"
check_grep "^  kind: dSYM, arm64\$" "$tmp/out" "dSYM, arm64"
check_grep "^  executable: $bin/fakekext" "$tmp/out" "the binary beside it"
check "$(wc -c <"$tmp/err" | tr -d ' ')" = 0 "nothing on stderr"

# nowhere: every source, in order, and exit 1
"$kp" symbols where 01234567-89AB-CDEF-0123-456789ABCDEF >"$tmp/out" 2>&1
check "$?" = 1 "held by no source: exit 1"
sed -n 's/^[0-9]*\. //p' "$tmp/out" | tr '\n' '|' >"$tmp/order"
check "$(cat "$tmp/order")" = "next to the binary|--dsym|local folders|file-mapped|KDKs|Spotlight|dsymForUUID|symbol servers|kernelcaches|" \
	"every source asked, in the table's order"
check_grep "^not found: no source holds 01234567-89AB-CDEF-0123-456789ABCDEF\$" "$tmp/out" "says not found"

# a file-mapped tree (from the environment) and a refused link in another
mkdir -p "$tmp/fm/4C4C/44A3/5555/3144/A151" "$tmp/bad/4C4C/44A3/5555/3144/A151"
ln -s "$bin/fakekernel.arm64" "$tmp/bad/4C4C/44A3/5555/3144/A151/249D146ED38D"
ln -s "$bin/fakekext.arm64.dSYM" "$tmp/fm/4C4C/44A3/5555/3144/A151/249D146ED38D"
KPBROWSE_FILE_MAPPED_PATHS="$tmp/bad:$tmp/fm" "$kp" symbols where $kext >"$tmp/out" 2>&1
check "$?" = 0 "file-mapped: exit 0"
check_grep "^  from: file-mapped\$" "$tmp/out" "file-mapped: from"
check_grep "^  said: refused: the file does not hold this UUID\$" "$tmp/out" "file-mapped: the wrong link refused"
check_grep "^found: $tmp/fm/4C4C/44A3/5555/3144/A151/249D146ED38D/Contents/Resources/DWARF/fakekext.arm64\$" "$tmp/out" \
	"file-mapped: a link to the .dSYM"

# the config file names the tree
printf 'DBGFileMappedPaths = %s\n' "$tmp/fm" >"$tmp/config"
KPBROWSE_CONFIG="$tmp/config" "$kp" symbols where $kext >"$tmp/out" 2>&1
check "$?" = 0 "the config's DBGFileMappedPaths: found"

# dsymForUUID: its answer, its source paths, and a hostile DBGError
cat >"$tmp/dsymForUUID" <<EOF
#!/bin/sh
case \$1 in
$kext) cat <<P
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>\$1</key><dict>
<key>DBGDSYMPath</key><string>$bin/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64</string>
<key>DBGArchitecture</key><string>arm64</string>
<key>DBGVersion</key><string>3</string>
<key>DBGBuildSourcePath</key><string>/build</string>
<key>DBGSourcePath</key><string>/lab/src</string>
<key>DBGSourcePathRemapping</key><dict><key>/build/kext</key><string>/lab/kext</string></dict>
</dict></dict></plist>
P
;;
*) printf '<plist version="1.0"><dict><key>%s</key><dict><key>DBGError</key><string>\033]52;c;cHduZWQ=\007\033[2Jgone</string></dict></dict></plist>' "\$1";;
esac
EOF
chmod +x "$tmp/dsymForUUID"
KPBROWSE_DSYMFORUUID="$tmp/dsymForUUID" "$kp" symbols where $kext >"$tmp/out" 2>&1
check "$?" = 0 "dsymForUUID: exit 0"
check_grep "^  tried: $tmp/dsymForUUID $kext\$" "$tmp/out" "dsymForUUID: the command and its one argument"
check_grep "^  from: dsymForUUID\$" "$tmp/out" "dsymForUUID: from"
check_grep "^  DBGSourcePath: /lab/src\$" "$tmp/out" "dsymForUUID: DBGSourcePath"
check_grep "^  remap: /build/kext -> /lab/kext\$" "$tmp/out" "dsymForUUID: DBGSourcePathRemapping"
LLDB_APPLE_DSYMFORUUID_EXECUTABLE="$tmp/dsymForUUID" "$kp" symbols where $kernel >"$tmp/out" 2>&1
check "$?" = 1 "a DBGError: exit 1"
check_grep "^  said: DBGError: .*gone\$" "$tmp/out" "the DBGError is said (LLDB_APPLE_DSYMFORUUID_EXECUTABLE)"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out" || LC_ALL=C grep -q "$(printf '\007')" "$tmp/out"; then
	_notok "the DBGError's escape sequences reach the terminal"
else
	_ok "the DBGError's escape sequences are inert"
fi

# walks stay inside the roots named (issue 32 item 7): a link out of a
# --dsym folder is not followed (one to / walked the whole file system), a
# link inside it is; in a .dSYM only Contents/Resources/DWARF is opened
mkdir -p "$tmp/w/root/.hidden" "$tmp/w/outside" "$tmp/w/odd.dSYM/Contents/Resources/Other"
cp -R "$bin/fakekext.arm64.dSYM" "$tmp/w/outside/"
cp -R "$bin/fakekernel.arm64.dSYM" "$tmp/w/root/.hidden/"
ln -s "$tmp/w/outside" "$tmp/w/root/out"
ln -s / "$tmp/w/root/slash"
ln -s .hidden "$tmp/w/root/in"
"$kp" symbols where --dsym "$tmp/w/root" $kext >"$tmp/out" 2>&1
check "$?" = 1 "a link out of a --dsym folder is not followed"
"$kp" symbols where --dsym "$tmp/w/root" $kernel >"$tmp/out" 2>&1
check_grep "^found: $tmp/w/root/in/fakekernel.arm64.dSYM/Contents/Resources/DWARF/" "$tmp/out" \
	"a link that stays inside it is"
cp "$bin/fakekext.arm64" "$tmp/w/odd.dSYM/Contents/Resources/Other/"
"$kp" symbols where --dsym "$tmp/w/odd.dSYM" $kext >"$tmp/out" 2>&1
check "$?" = 1 "in a .dSYM, a Mach-O outside Contents/Resources/DWARF is not opened"
# bounded: names looked at (KPBROWSE_DSYM_WALK_MAX) and depth (40), and said
mkdir -p "$tmp/w/chain/a/b/c/d/e/f"
cp -R "$bin/fakekext.arm64.dSYM" "$tmp/w/chain/a/b/c/d/e/f/"
KPBROWSE_DSYM_WALK_MAX=11 "$kp" symbols where --dsym "$tmp/w/chain" $kext >"$tmp/out" 2>&1
check "$?" = 1 "a walk past KPBROWSE_DSYM_WALK_MAX names (11 of 12) stops"
check_grep "^  tried: $tmp/w/chain (walk cut short: too deep or KPBROWSE_DSYM_WALK_MAX names)\$" "$tmp/out" "  and says so"
KPBROWSE_DSYM_WALK_MAX=12 "$kp" symbols where --dsym "$tmp/w/chain" $kext >"$tmp/out" 2>&1
check "$?" = 0 "  within it (the 12 names there): found"
deep=$tmp/w/deep/$(printf 'd/%.0s' $(seq 41))
mkdir -p "$deep"
cp -R "$bin/fakekext.arm64.dSYM" "$deep"
"$kp" symbols where --dsym "$tmp/w/deep" $kext >"$tmp/out" 2>&1
check "$?" = 1 "a walk past 40 folders deep stops"
check_grep "^  tried: $tmp/w/deep (walk cut short" "$tmp/out" "  and says so"
# a dsymForUUID answer naming a folder: only a dSYM bundle's DWARF files
mkdir -p "$tmp/w/plain"
cp "$bin/fakekext.arm64" "$tmp/w/plain/"
for target in "$tmp/w/plain" "$bin/fakekext.arm64.dSYM"; do
	printf '#!/bin/sh\nprintf "<plist version=\\"1.0\\"><dict><key>%%s</key><dict><key>DBGDSYMPath</key><string>%s</string></dict></dict></plist>" "$1"\n' \
		"$target" >"$tmp/w/dfu"
	chmod +x "$tmp/w/dfu"
	KPBROWSE_DSYMFORUUID="$tmp/w/dfu" "$kp" symbols where $kext >"$tmp/w/$(basename "$target").out" 2>&1
done
check_grep "^  said: names no file here: $tmp/w/plain\$" "$tmp/w/plain.out" \
	"dsymForUUID naming a plain folder: its files are not opened"
check_grep "^found: $bin/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64\$" "$tmp/w/fakekext.arm64.dSYM.out" \
	"dsymForUUID naming a .dSYM: its DWARF file"

# signature folders: a last step names them; a dSYM is not what they name
mkdir -p "$tmp/sigs"
"$kp" symbols where --dsym "$bin" --signatures "$tmp/sigs" --signatures "$tmp/sigs" $kext >"$tmp/out" 2>&1
check "$?" = 0 "--signatures: exit 0"
check "$(sed -n 's/^3\. //p' "$tmp/out")" = "signatures" "--signatures: the step after the source that found it"
check_grep "^  tried: $tmp/sigs\$" "$tmp/out" "--signatures: the folder, once"
check_grep "^  said: not consulted: the file is neither a kernelcache entry nor a kernel\$" "$tmp/out" \
	"--signatures: a dSYM consults no signature file"
"$kp" symbols where --signatures "$tmp/nope" $kext >/dev/null 2>"$tmp/err"
check "$?" = 2 "--signatures of a missing folder: exit 2"
"$kp" dsym-for-uuid --signatures "$tmp/sigs" $kext >/dev/null 2>"$tmp/err"
check "$?" = 2 "dsym-for-uuid takes no --signatures"

# no dsymForUUID stalls a report (issue 30 item 4): a report of 13 images
# (the kernel, 12 kexts) asks its UUIDs at most 4 at a time within one
# deadline (KPBROWSE_SYMBOL_DEADLINE), each UUID once for the run
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/r13.panic" <<'PY'
import json, sys
bt, kx, names = ["0xffffff81f5a3bc40 : 0xffffff800b000544 "], [], []
for k in range(12):
    base = 0xffffff7f81a00000 + k * 0x10000
    bt.append("0xffffff81f5a3bc%02x : 0x%x " % (0x50 + k, base + 0x6a9))
    kx.append("         com.kpbrowse.Hung%d(1.0)[%08X-5555-3144-A1F6-9DFF5C39A349]@0x%x->0x%x"
              % (k, 0xAB000000 + k, base, base + 0xfff))
    names.append("com.kpbrowse.Hung%d\t1.0" % k)
ps = ("panic(cpu 0 caller 0xffffff7f81a006a9): \"hung\"@/x.cpp:74\nBacktrace (CPU 0), Frame : Return Address\n"
      + "\n".join(bt) + "\n      Kernel Extensions in backtrace:\n" + "\n".join(kx)
      + "\n\nBSD process name corresponding to current thread: fakeclient\n\nMac OS version:\n19H2\n\n"
      "Kernel version:\nDarwin Kernel Version 19.6.0: Thu Jun 18 20:49:00 PDT 2020; root:xnu-6153.141.1~1/RELEASE_X86_64\n"
      "Kernel UUID: 4C4C44EF-5555-3144-A1CD-413F9846D32A\nKernel slide:     0x000000000ae00000\n"
      "Kernel text base: 0xffffff800b000000\nSystem model name: MacBookPro16,1 (Mac-E1008331FDC96864)\n\n"
      "System uptime in nanoseconds: 123456789012\nloaded kexts:\n" + "\n".join(names) + "\n\nEOF\n")
with open(sys.argv[1], "w") as f:
    f.write('{"bug_type":"210","timestamp":"2020-09-14 20:17:44.00 +0200","os_version":"Mac OS X 10.15.7 (19H2)"}\n')
    f.write(json.dumps({"macOSPanicString": ps}) + "\n")
PY
	# a program that hangs (60 s, the default timeout): 13 x 60 s before
	printf '#!/bin/sh\necho "$1" >>"%s"\nsleep 60\n' "$tmp/calls" >"$tmp/hang"
	chmod +x "$tmp/hang"
	: >"$tmp/calls"
	bounded 40 env KPBROWSE_SYMBOL_DEADLINE=2 KPBROWSE_DSYMFORUUID="$tmp/hang" \
		"$kp" show "$tmp/r13.panic" >"$tmp/h.out" 2>"$tmp/h.err"
	check "$?:$to" = 0:0 "13 hung UUIDs: show exits 0"
	check "$took" -le 10 "  within one deadline of 2 s, not 13 timeouts ($took s)"
	check_grep "com.kpbrowse.Hung11 + 0x6a9" "$tmp/h.out" "  every frame shown"
	check "$(wc -l <"$tmp/calls" | tr -d ' ')" -le 4 "  at most 4 asked at once, none after the deadline ($(wc -l <"$tmp/calls" | tr -d ' '))"
	check "$(sort "$tmp/calls" | uniq -d | wc -l | tr -d ' ')" = 0 "  no UUID asked twice"
	# a program that answers in 1 s: 13 asks in parallel, ~4 s, not 13 s
	printf '#!/bin/sh\necho "$1" >>"%s"\nsleep 1\nprintf "<plist version=\\"1.0\\"><dict><key>%%s</key><dict><key>DBGError</key><string>not in the lab</string></dict></dict></plist>" "$1"\n' \
		"$tmp/calls" >"$tmp/slow"
	chmod +x "$tmp/slow"
	: >"$tmp/calls"
	bounded 40 env KPBROWSE_DSYMFORUUID="$tmp/slow" "$kp" show "$tmp/r13.panic" >"$tmp/h.out" 2>"$tmp/h.err"
	check "$?:$to" = 0:0 "13 UUIDs answered in 1 s each: exit 0"
	check "$(sort -u "$tmp/calls" | wc -l | tr -d ' ')" = 13 "  every UUID asked, once ($(wc -l <"$tmp/calls" | tr -d ' ') asks)"
	check "$took" -le 8 "  4 at a time: $took s, not 13"
else
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
	skip "python3 absent: no 13-image report"
fi

# usage
"$kp" symbols where not-a-uuid >/dev/null 2>"$tmp/err"
check "$?" = 2 "a malformed UUID: exit 2"
check_grep "not a UUID" "$tmp/err" "a malformed UUID: says so"
"$kp" symbols >/dev/null 2>&1
check "$?" = 2 "no subcommand: exit 2"
"$kp" symbols where --help >"$tmp/out" 2>&1
check "$?" = 0 "--help: exit 0"
check_grep "^usage: kpbrowse symbols where " "$tmp/out" "--help: the synopsis"
for src in "next to a --dsym binary" "--dsym" "local folders" "file-mapped trees" "KDKs" "Spotlight" "dsymForUUID" "symbol servers" "kernelcaches"; do
	tr '\n' ' ' <"$tmp/out" | grep -q -- "$src[,)]" || { _notok "--help lists every source it tries: $src missing"; src=; break; }
done
[ -n "$src" ] && _ok "--help lists every source it tries, symbol servers too"
done_testing
