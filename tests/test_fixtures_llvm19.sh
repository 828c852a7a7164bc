#!/bin/sh
# test_fixtures_llvm19.sh: the committed LLVM 19 fixtures are what
# fixtures/build.sh --llvm19 N makes from fixtures/src, byte for byte
# (binaries, dSYMs, objects, the llvm-symbolizer-19 oracle, uuids.txt), and
# make_reports.py --llvm19 N writes the committed reports.  Rebuilt in a
# scratch copy; skipped (counted) where clang, lld or llvm 19 are absent.
set -u
. "$KP_TESTS_DIR/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
missing=""
for t in clang ld64.lld dsymutil llvm-lipo llvm-dwarfdump llvm-objdump llvm-symbolizer llvm-nm; do
	[ -x "/usr/lib/llvm-19/bin/$t" ] || missing="$missing $t"
done
for v in 5 4; do
	if [ -n "$missing" ]; then
		skip "dwarf$v: LLVM 19 tools absent (/usr/lib/llvm-19/bin:$missing)"
		continue
	fi
	rm -rf "$tmp/fx"
	mkdir "$tmp/fx"
	cp -R "$KP_FIXTURES/build.sh" "$KP_FIXTURES/make_reports.py" "$KP_FIXTURES/src" "$tmp/fx/"
	sh "$tmp/fx/build.sh" --llvm19 $v >"$tmp/log" 2>&1 &&
		python3 "$tmp/fx/make_reports.py" --llvm19 $v >>"$tmp/log" 2>&1
	check "$?" = 0 "dwarf$v: build.sh and make_reports.py run"
	for x in bin oracle reports uuids.txt; do
		if diff -r "$tmp/fx/llvm19-dwarf$v/$x" "$KP_FIXTURES/llvm19-dwarf$v/$x" >"$tmp/diff" 2>&1; then
			_ok "dwarf$v: $x rebuilds byte for byte"
		else
			_notok "dwarf$v: $x differs from a rebuild"
			head -5 "$tmp/diff" | sed 's/^/# /'
		fi
	done
done
done_testing
