#!/bin/sh
# test.sh: configure, build warning-free and run every test (the README's
# test command and what CI runs).  KP_SANITIZE=1 for the ASan+UBSan build.
# Ends with one line that counts every check of every program, skipped ones
# included, and a line per skipped check naming its program and reason:
# a skip is said, never passed over in silence.
set -eu
cd "$(dirname "$0")/.."
build=${KP_BUILD_DIR:-build}
san=OFF
[ "${KP_SANITIZE:-0}" = 1 ] && san=ON && build=${KP_BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DKP_WERROR=ON -DKP_SANITIZE=$san >/dev/null
cmake --build "$build" -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
cd "$build"
rc=0
# more jobs than cores: the tmux tests mostly wait on the screen (the long
# ones start first: COST in tests/tests.cmake).  KP_TEST_JOBS overrides.
ctest --output-on-failure -j"${KP_TEST_JOBS:-4}" || rc=$?
# Every TAP program ends "# P passed, F failed, S skipped" and says
# "ok N - # SKIP why" per skipped check (tests/tap.sh, tests/kt.h).
awk '
/^[0-9]+\/[0-9]+ Test: / { prog = $3 }
/^# [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/ {
	p += $2; f += $4; s += $6; progs++
}
/^ok [0-9]+ - # SKIP / {
	why = $0; sub(/^ok [0-9]+ - # SKIP /, "", why)
	key = prog ": " why
	if (!(key in seen)) order[++n] = key
	seen[key]++
}
END {
	printf "checks: %d passed, %d failed, %d skipped, in %d test programs\n", p, f, s, progs
	for (i = 1; i <= n; i++)
		printf "skipped: %s%s\n", order[i], (seen[order[i]] > 1 ? " (x" seen[order[i]] ")" : "")
}' Testing/Temporary/LastTest.log
exit $rc
