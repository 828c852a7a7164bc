#!/bin/sh
# test_optional_libs.sh: each optional library (docs/style.md, "Optional
# libraries") absent at run time, made so by its KPBROWSE_LIB* variable
# pointing nowhere: what is lost is lost, said as the README's dependency
# table says, and nothing else is.  Arguments: NAME=1 for each library this
# build has (from CMake: KP_<NAME>_FOUND), so that a library the build has
# but cannot load fails here instead of passing as "built without".
# libcurl and libc++abi have their own (test_symbol_server.sh,
# test_lookup_llvm19.sh).
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
CAPSTONE=0 LIBPQ=0
for a in "$@"; do
	case "$a" in
	CAPSTONE=1 | CAPSTONE=TRUE) CAPSTONE=1 ;;
	LIBPQ=1 | LIBPQ=TRUE) LIBPQ=1 ;;
	esac
done
R=$KP_FIXTURES/reports
demo=$R/Kernel_2020-08-03-094512_kpbrowse-demo.panic

# --- Capstone: disassembly only ----------------------------------------------
if [ "$CAPSTONE" = 1 ]; then
	"$kp" show --disasm 2 --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/cs.out" 2>"$tmp/cs.err"
	check "$?" = 0 "Capstone: --disasm works when it loads"
	check "$(grep -c ' -> 0x' "$tmp/cs.out")" -ge 1 "Capstone: instructions printed"
	KPBROWSE_LIBCAPSTONE=/nonexistent/libcapstone.so.4 \
		"$kp" show --disasm 2 --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/cs.out" 2>"$tmp/cs.err"
	check "$?" = 2 "no Capstone at run time: --disasm is a usage error"
	check_grep "^kpbrowse: show: --disasm: cannot load Capstone (/nonexistent/libcapstone.so.4): .*; install it (Debian: " \
		"$tmp/cs.err" "  naming the file tried, why, and how to get it"
	check "$(wc -c <"$tmp/cs.out" | tr -d ' ')" = 0 "  nothing printed"
	KPBROWSE_LIBCAPSTONE=/nonexistent/libcapstone.so.4 \
		"$kp" show --dsym "$KP_FIXTURES/bin" "$demo" >"$tmp/cs.out" 2>"$tmp/cs.err"
	check "$?" = 0 "no Capstone at run time: show without --disasm still works"
	check_grep "panic_trap_to_debugger (/kpbrowse/fixtures/src/fakekernel.c:62)" "$tmp/cs.out" \
		"  and symbolicates"
else
	skip "built without Capstone (-DKP_CAPSTONE=OFF or not found)"
fi

# --- libpq: PostgreSQL targets only --------------------------------------------
pg="postgresql://kp@%2Fnonexistent/kp"
if [ "$LIBPQ" = 1 ]; then
	KPBROWSE_LIBPQ=/nonexistent/libpq.so.5 "$kp" list --db "$pg" >"$tmp/pq.out" 2>"$tmp/pq.err"
	check "$?" = 2 "no libpq at run time: a PostgreSQL target fails, exit 2"
	check_grep "^kpbrowse: cannot load libpq (/nonexistent/libpq.so.5): .*; install it (Debian: " "$tmp/pq.err" \
		"  naming the file tried, why, and how to get it"
	KPBROWSE_LIBPQ=/nonexistent/libpq.so.5 "$kp" index --db "$tmp/pq.sqlite3" "$R" >/dev/null 2>"$tmp/pq.err"
	check "$?" = 0 "no libpq at run time: the sqlite index still works"
else
	"$kp" list --db "$pg" >"$tmp/pq.out" 2>"$tmp/pq.err"
	check_grep "PostgreSQL support is not built in" "$tmp/pq.err" "built without libpq: a PostgreSQL target says so"
fi

done_testing
