#!/bin/sh
# seed.sh [OUT_DIR]: builds the fuzz seed corpora from the fixtures and the
# real corpus (tests/real) into OUT_DIR (default
# fuzz/corpus, not committed): OUT_DIR/TARGET/ for each target.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/corpus}
real=$root/tests/real
fix=$root/tests/fixtures
mkdir -p "$out/ips" "$out/text" "$out/nvram" "$out/macho" "$out/dwarf" "$out/signature" "$out/sanitize" "$out/symcache" "$out/sigfile" \
	"$out/dsymplist" "$out/lzfse" "$out/kcdata"
n=0
put() {   # put TARGET FILE [HEAD_BYTES]
	n=$((n + 1))
	if [ -n "${3:-}" ]; then
		head -c "$3" "$2" >"$out/$1/seed-$n"
	else
		cp "$2" "$out/$1/seed-$n"
	fi
}
for f in "$fix"/reports/*.ips "$fix"/stackshots/*.ips "$fix"/extlog/*.ips "$real"/*.ips; do
	[ -f "$f" ] || continue
	# Big reports: the first 64 KiB (a truncated report is a seed too).
	if [ "$(wc -c <"$f")" -gt 65536 ]; then put ips "$f" 65536; else put ips "$f"; fi
	put signature "$out/ips/seed-$n"
done
# Reports cut after each line (every 8th line of a long one): the parsers'
# truncation paths start close to the seeds.
cut_lines() {   # cut_lines TARGET FILE STEP
	total=$(wc -l <"$2")
	i=1
	while [ "$i" -le "$total" ] && [ "$i" -le 400 ]; do
		n=$((n + 1))
		head -n "$i" "$2" >"$out/$1/cut-$n"
		i=$((i + $3))
	done
}
for f in "$fix"/reports/panic-full-2026-11-20-101500.0001.ips "$fix"/stackshots/WatchdogCrash-2026-11-22-100000.ips; do
	[ -f "$f" ] && cut_lines ips "$f" 1
done
for f in "$fix"/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic "$real"/text-m1-macos12-usbhost-dataabort-1.txt; do
	[ -f "$f" ] && cut_lines text "$f" 4
done
# the text forms users paste (symbolicated frames, PowerPC, no version line)
for f in "$fix"/textforms/ppc.panic "$fix"/textforms/symbolicated.panic; do
	[ -f "$f" ] && cut_lines text "$f" 2
done
# spin, hang, shutdown-stall and sleep-wake reports (issue 24): whole and cut
# at every line (those with a JSON header line go to the ips target, whose
# input may start with '{')
for f in "$fix"/spindump/* "$fix"/notkernel/*; do
	[ -f "$f" ] || continue
	case $(head -c 1 "$f") in
	'{') cut_lines ips "$f" 1; put ips "$f" ;;
	*) cut_lines text "$f" 1; put text "$f" ;;
	esac
	put signature "$f"
done
# unsaved panics (issue 24): nvram -x, nvram -p, FUNK and DEED dumps
for f in "$fix"/nvram/*; do
	[ -f "$f" ] && put nvram "$f"
done
# the stackshot -i text (symstacks.rb's input), whole and cut at every line
f=$fix/textforms/stackshot-i.txt
if [ -f "$f" ]; then
	cut_lines text "$f" 1
	put text "$f"
fi
for f in "$fix"/reports/*.panic "$fix"/textforms/*.panic "$real"/*.panic "$real"/*.txt; do
	[ -f "$f" ] || continue
	put text "$f"
	put signature "$f"
done
# The panic text embedded in each .ips body is text-parser input as well.
if command -v python3 >/dev/null 2>&1; then
	for f in "$fix"/reports/*.ips "$real"/*.ips; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		python3 - "$f" "$out/text/seed-$n" <<'PY' || true
import json, sys
data = open(sys.argv[1], encoding="utf-8", errors="replace").read()
dec, i, obj = json.JSONDecoder(), 0, None
while i < len(data):
    while i < len(data) and data[i].isspace():
        i += 1
    if i >= len(data):
        break
    try:
        obj, i = dec.raw_decode(data, i)
    except ValueError:
        break
    text = obj.get("panicString") or obj.get("macOSPanicString") if isinstance(obj, dict) else None
    if text:
        open(sys.argv[2], "w").write(text)
PY
	done
fi
# The sanitiser: panic text, the hostile corpus, and what a terminal acts on.
for f in "$fix"/reports/*.panic "$root"/tests/hostile/*; do
	[ -f "$f" ] && put sanitize "$f" 8192
done
printf 'a\033[31mred\033[0m \033]0;title\007 \302\233 \342\200\256rlo \377 \355\240\200 \t\r\n' \
	>"$out/sanitize/seed-escapes"
for f in "$fix"/bin/*; do
	[ -f "$f" ] && put macho "$f"
done
# DWARF 4 from LLVM 14, DWARF 4 and 5 from LLVM 19 (dSYMs and the objects,
# whose DWARF 5 keeps the strx/addrx/rnglistx/loclistx forms)
for f in "$fix"/bin/*.dSYM/Contents/Resources/DWARF/* "$fix"/llvm19-dwarf*/bin/*.dSYM/Contents/Resources/DWARF/* \
	"$fix"/llvm19-dwarf*/bin/obj/*.o; do
	[ -f "$f" ] || continue
	put macho "$f"
	put dwarf "$f"
done
# symbol caches of the fixtures, built by kpbrowse ($KPBROWSE, else the
# normal build's) when there is one
kp=${KPBROWSE:-$root/build/cli/kpbrowse}
if [ -x "$kp" ]; then
	sc=$(mktemp -d "${TMPDIR:-/tmp}/kp-seed-sc.XXXXXX")
	KPBROWSE_CACHE_DIR=$sc "$kp" cache build "$fix/bin" >/dev/null 2>&1 || true
	for f in "$sc"/symcache/*.kpsym; do
		[ -f "$f" ] && put symcache "$f"
	done
	rm -rf "$sc"
fi
# kernelcaches: MH_FILESET, stripped, in IM4P (LZSS, stored); the older prelinked form
kc=$(mktemp -d)
if python3 "$root/tests/fixtures/make_kernelcache.py" "$kc" "$root/tests/fixtures/bin" arm64 2>/dev/null; then
	for f in "$kc"/kernelcache* "$kc"/prelinked*; do put macho "$f"; done
fi
rm -rf "$kc"
# LZFSE streams the reference encoder wrote (bvx2, bvxn; bvx1 rewritten), and
# the kernelcache's in an IM4P for the Mach-O reader
for f in "$fix"/lzfse/*.lzfse; do
	[ -f "$f" ] && put lzfse "$f"
done
kc=$(mktemp -d)
if python3 "$root/tests/fixtures/make_kernelcache.py" --wrap "$fix/lzfse/kernelcache.lzfse" "$kc/kc.im4p" 2>/dev/null; then
	put macho "$kc/kc.im4p"
fi
rm -rf "$kc"
# Intel kcdata stackshots, decoded from the kcdata fixtures (make_kcdata.py)
python3 - "$out/kcdata" "$fix"/kcdata/*.panic <<'PY' || true
import base64, json, os, sys
for p in sys.argv[2:]:
    body = json.loads(open(p).read().split("\n", 1)[1])
    open(os.path.join(sys.argv[1], "seed-" + os.path.basename(p)), "wb").write(
        base64.b64decode(body["macOSProcessedStackshotData"]))
PY
# dsymForUUID answers as lldb reads them, XML and binary, and defaults
python3 - "$out/dsymplist" <<'PY' || true
import plistlib, sys
u = "4C4C44A3-5555-3144-A151-249D146ED38D"
entry = {"DBGDSYMPath": "/s/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64",
         "DBGSymbolRichExecutable": "/s/fakekext.arm64", "DBGArchitecture": "arm64",
         "DBGVersion": "3", "DBGSourcePath": "/src", "DBGBuildSourcePath": "/build",
         "DBGSourcePathRemapping": {"/build/a": "/src/a", "/build/b": "/src/b"}}
seeds = [{u: entry}, {u.lower(): {"DBGError": "no such UUID"}},
         {u.replace("-", ""): dict(entry, DBGVersion=3)},
         {"DBGFileMappedPaths": ["/a", "/b"], "DBGShellCommands": "/usr/local/bin/dsymForUUID"}]
for i, s in enumerate(seeds):
    for j, fmt in enumerate((plistlib.FMT_XML, plistlib.FMT_BINARY)):
        open("%s/seed-plist-%d-%d" % (sys.argv[1], i, j), "wb").write(plistlib.dumps(s, fmt=fmt))
PY
# symbolicator signature files, as tests/test_signatures.sh writes them
cat >"$out/sigfile/seed-xnu.json" <<'JSON'
{"target": "com.apple.kernel", "total": 2, "version": {"min": "23.0.0", "max": "23.6.0"},
 "signatures": [{"args": 0, "anchors": [{"string": "vm_fault: bad address in map", "segment": "__TEXT",
   "section": "__cstring", "caller": "_kp_log"}], "symbol": "_vm_fault_check", "prototype": "",
   "backtrace": ["_vm_fault_enter", "_trap_entry"]},
  {"args": 1, "anchors": [{"string": "a", "segment": "__TEXT", "section": "__cstring", "caller": null},
   {"string": "b\n", "segment": "__TEXT", "section": "__cstring"}], "symbol": "__ZN3AUC5startEP9IOService",
   "backtrace": []}]}
JSON
for t in ips text nvram macho dwarf signature sanitize symcache dsymplist sigfile lzfse kcdata; do
	echo "seed: $t: $(ls "$out/$t" | wc -l) files in $out/$t"
done
