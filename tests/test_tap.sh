#!/bin/sh
# test_tap.sh: the shell tests' TAP library (tap.sh) judged by running small
# scripts on it: each check form passes and fails when it should (a check
# that cannot fail proves nothing), the counts and exit statuses (0, 1, 77
# when everything was skipped), check_not_grep failing on a missing file,
# and the condition form seeing the status of the command before it.
set -u
. "$KP_TESTS_DIR/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run NAME BODY: BODY as a script on tap.sh; its output in $tmp/NAME, status in $rc
run() {
	printf '. "%s/tap.sh"\n%s\ndone_testing\n' "$KP_TESTS_DIR" "$2" >"$tmp/$1.sh"
	sh "$tmp/$1.sh" >"$tmp/$1" 2>&1
	rc=$?
}
echo hello >"$tmp/file"

run pass "check 1 = 1 eq
check 'true' cond
false; check '[ \$? -eq 1 ]' status
sh -c 'exit 2'; check '[ \$? -eq 2 ]' status2
check_grep hello '$tmp/file' grep
check_not_grep absent '$tmp/file' not_grep"
check "$rc" = 0 "every form passing: exit 0"
check "$(grep -c '^ok [1-6] - ' "$tmp/pass")" = 6 "  six ok lines, numbered"
check_grep "^1\.\.6$" "$tmp/pass" "  the plan"
check_grep "^# 6 passed, 0 failed, 0 skipped$" "$tmp/pass" "  the closing count"

run fail "check 1 = 2 eq
check 'false' cond
true; check '[ \$? -eq 1 ]' status
check_grep absent '$tmp/file' grep
check_not_grep hello '$tmp/file' not_grep
check_not_grep anything '$tmp/no-such-file' missing"
check "$rc" = 1 "every form failing: exit 1"
check "$(grep -c '^not ok [1-6] - ' "$tmp/fail")" = 6 "  six not ok lines"
check_grep "^not ok 1 - eq (got '1', want = '2')$" "$tmp/fail" "  a comparison says what it got"
check_grep "^not ok 6 - missing (no file $tmp/no-such-file)$" "$tmp/fail" "  check_not_grep fails on a missing file, saying so"
check_grep "^# 0 passed, 6 failed, 0 skipped$" "$tmp/fail" "  the closing count"

run skipped "skip 'not here'
skip 'nor this'"
check "$rc" = 77 "everything skipped: exit 77"
check_grep "^ok 2 - # SKIP nor this$" "$tmp/skipped" "  skips are counted ok lines with the reason"

run mixed "check 1 = 1 one
skip 'why'"
check "$rc" = 0 "a pass and a skip: exit 0"
check_grep "^# 1 passed, 0 failed, 1 skipped$" "$tmp/mixed" "  counted apart"
done_testing
