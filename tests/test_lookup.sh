#!/bin/sh
# test_lookup.sh: `kpbrowse lookup` prints exactly what `llvm-symbolizer
# --inlining` prints, for every instruction address of every fixture's
# __text (both slices of the universal file too), plus the symtab-only and
# bad-input cases.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
bin=$KP_FIXTURES/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
llvm=/usr/lib/llvm-14/bin
PATH=$PATH:$llvm
sym=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
# `bounded SECONDS CMD` kills CMD when it hangs (status 137)
bounded() {
	s=$1
	shift
	sh -c "$1" &
	p=$!
	# the watchdog's output is /dev/null: a sleep left holding the test's
	# stdout would keep ctest waiting for it after the test ended
	(sleep "$s"; kill -9 $p 2>/dev/null) >/dev/null 2>&1 &
	w=$!
	wait $p
	rc=$?
	kill $w 2>/dev/null
	wait $w 2>/dev/null
	return $rc
}
# FIFOs never block (issue 11 item 5): as --dsym, and planted as the dSYM
# walk's cache file; these need no LLVM tool, so they run on both paths.
fifo_checks() {
	mkfifo "$tmp/fifo"
	bounded 20 "'$kp' lookup --dsym '$tmp/fifo' 0x10 >/dev/null 2>'$tmp/err'"
	check "$?" = 2 "a FIFO as --dsym: refused at once, exit 2"
	check_grep "not a regular file" "$tmp/err" "a FIFO as --dsym: says why"
	mkdir -p "$tmp/fc"
	mkfifo "$tmp/fc/dsym-cache-v1"
	bounded 30 "KPBROWSE_CACHE_DIR='$tmp/fc' '$kp' show --dsym '$bin' '$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips' >'$tmp/out' 2>&1"
	check "$?" = 0 "a FIFO planted as dsym-cache-v1: show does not block"
	check_grep "panic_trap_to_debugger" "$tmp/out" "a FIFO planted as dsym-cache-v1: frames still symbolicated"
}

objdump=$(command -v llvm-objdump || command -v llvm-objdump-14 || true)
lipo=$(command -v llvm-lipo || command -v llvm-lipo-14 || true)
if [ -z "$sym" ] || [ -z "$objdump" ] || [ -z "$lipo" ]; then
	skip "llvm-symbolizer, llvm-objdump or llvm-lipo absent"
	fifo_checks
done_testing
fi

# instruction addresses of __text, as llvm-objdump decodes them
addrs() {
	f=$1
	if [ -n "${2:-}" ]; then   # universal: disassemble the thin slice
		"$lipo" -thin "$2" "$1" -output "$tmp/thin" || return
		f=$tmp/thin
	fi
	"$objdump" -d --no-show-raw-insn "$f" |
		awk '/^Disassembly of section/ {t = ($0 ~ /,__text:/)} t && /^ *[0-9a-f]+:/ {sub(":", "", $1); print "0x" $1}'
}

compare() { # name binary dwarf [arch]
	addrs "$2" "${4:-}" >"$tmp/a"
	n=$(wc -l <"$tmp/a" | tr -d ' ')
	if [ -n "${4:-}" ]; then
		"$sym" --inlining --obj="$3" --default-arch="$4" <"$tmp/a" >"$tmp/want"
		"$kp" lookup --dsym "$3" --arch "$4" <"$tmp/a" >"$tmp/got"
	else
		"$sym" --inlining --obj="$3" <"$tmp/a" >"$tmp/want"
		"$kp" lookup --dsym "$3" <"$tmp/a" >"$tmp/got"
	fi
	if cmp -s "$tmp/want" "$tmp/got"; then
		_ok "$1: $n addresses, byte for byte as llvm-symbolizer"
	else
		_notok "$1: differs from llvm-symbolizer over $n addresses"
		diff "$tmp/want" "$tmp/got" | head -20 | sed 's/^/# /'
	fi
	check "$n" -gt 20 "$1: enough addresses"
}

all_fixtures() { # prefix
	for f in fakekernel.arm64 fakekernel.x86_64 fakekext.arm64 fakekext.x86_64; do
		compare "$1$f" "$bin/$f" "$bin/$f.dSYM/Contents/Resources/DWARF/$f"
	done
	for a in arm64 x86_64; do
		compare "${1}universal $a" "$bin/fakekext.universal" "$bin/fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal" $a
	done
}
export KPBROWSE_SYMCACHE=never
all_fixtures ""

# second pass: lookups never build a cache (the first answer comes from the
# DWARF); `kpbrowse cache build` does, and later runs answer from it
export KPBROWSE_SYMCACHE=always KPBROWSE_CACHE_DIR="$tmp/cache"
all_fixtures "no cache yet: "
check "$(ls "$tmp/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')" = 0 "lookup builds no cache"
"$kp" cache build "$bin" >"$tmp/built"
check "$?" = 0 "cache build over the fixture folder"
n=$(ls "$tmp/cache/symcache" 2>/dev/null | grep -c '\.kpsym$')
# one per UUID: the universal file's slices share the thin files' UUIDs, so
# for those only the file built last is fresh (the other answers from DWARF)
check "$n" = 4 "one symbol cache per UUID written ($n)"
check "$(wc -l <"$tmp/built" | tr -d ' ')" = 6 "cache build: one line per slice built"
all_fixtures "symcache warm: "
# every slice through its own cache: thin files first, then the universal one
for f in fakekernel.arm64 fakekernel.x86_64 fakekext.arm64 fakekext.x86_64; do
	"$kp" cache build "$bin/$f.dSYM" >/dev/null
	compare "symcache $f: " "$bin/$f" "$bin/$f.dSYM/Contents/Resources/DWARF/$f"
done
"$kp" cache build "$bin/fakekext.universal.dSYM" >/dev/null
for a in arm64 x86_64; do
	compare "symcache universal $a: " "$bin/fakekext.universal" "$bin/fakekext.universal.dSYM/Contents/Resources/DWARF/fakekext.universal" $a
done
"$kp" cache list >"$tmp/list"
check "$(grep -c ' fresh ' "$tmp/list")" = 4 "cache list: four fresh caches"
"$kp" cache clear 4C4C44BD-5555-3144-A14B-0078EC5E31E1 >/dev/null
check "$(ls "$tmp/cache/symcache" | grep -c '\.kpsym$')" = 3 "cache clear UUID removes that one"
"$kp" cache clear >/dev/null
check "$(ls "$tmp/cache/symcache" | grep -c '\.kpsym$')" = 0 "cache clear removes all"
unset KPBROWSE_SYMCACHE KPBROWSE_CACHE_DIR

# a .dSYM bundle stands for its DWARF file
"$kp" lookup --dsym "$bin/fakekernel.arm64.dSYM" 0xc094 >"$tmp/got"
"$sym" --inlining --obj="$bin/fakekernel.arm64.dSYM/Contents/Resources/DWARF/fakekernel.arm64" 0xc094 >"$tmp/want"
check "$(cmp -s "$tmp/got" "$tmp/want" && echo same)" = same "a .dSYM bundle path works"

# a universal file needs --arch
"$kp" lookup --dsym "$bin/fakekext.universal" 0x1000 >/dev/null 2>"$tmp/err"
check "$?" = 2 "universal without --arch: exit 2"
check_grep "arch" "$tmp/err" "universal without --arch: says to pass --arch"

# symtab only: the nearest preceding symbol (llvm-symbolizer shows the same name)
"$objdump" -d --no-show-raw-insn "$bin/fakekext.symtab" | awk '/^[0-9a-f]+ <.*>:$/ {print}' | head -3 >"$tmp/funcs"
while read -r addr name; do
	a=$(printf '0x%x' $((0x$addr + 4)))
	"$kp" lookup --dsym "$bin/fakekext.symtab" "$a" | head -1 >"$tmp/got"
	"$sym" --obj="$bin/fakekext.symtab" "$a" | head -1 >"$tmp/want"
	check "$(cat "$tmp/got")" = "$(cat "$tmp/want")" "symtab-only $a: $(cat "$tmp/got")"
done <"$tmp/funcs"

# unknown addresses
printf '0xffffffff\nnothex\n' | "$kp" lookup --dsym "$bin/fakekext.arm64.dSYM" >"$tmp/got"
printf '??\n??:0:0\n\n??\n??:0:0\n\n' >"$tmp/want"
check "$(cmp -s "$tmp/got" "$tmp/want" && echo same)" = same "unknown addresses print ?? and ??:0:0"

# bad dSYMs
printf 'not a mach-o file at all' >"$tmp/bad"
"$kp" lookup --dsym "$tmp/bad" 0x10 >/dev/null 2>"$tmp/err"
check "$?" = 2 "non-Mach-O --dsym: exit 2"
check_grep "^kpbrowse: $tmp/bad: " "$tmp/err" "non-Mach-O --dsym: one line naming the file"
"$kp" lookup 0x10 >/dev/null 2>&1
check "$?" = 2 "lookup without --dsym: exit 2"

fifo_checks
done_testing
