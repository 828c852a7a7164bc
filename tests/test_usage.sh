#!/bin/sh
# test_usage.sh: the usage text has one home (cli/main.c's commands[] and
# the TUI's kpt_synopsis): README.md's Usage block equals the synopsis
# lines of `kpbrowse --help` (the lines after "Usage:" up to the first
# blank line, without their two-space indent), and every command answers
# `kpbrowse CMD --help` with its line from the same table.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
readme="$KP_TESTS_DIR/../README.md"

"$kp" --help >"$tmp/help"
check "$?" = 0 "--help exits 0"
sed -n '/^Usage:$/,/^$/p' "$tmp/help" | sed '1d;$d' | sed 's/^  //' >"$tmp/synopsis"
awk '/^## Usage$/ { u = 1; next } u && /^```$/ { if (in_) exit; in_ = 1; next } in_' "$readme" >"$tmp/readme"
check "$(wc -l <"$tmp/synopsis")" -gt 5 "--help has a synopsis block"
if cmp -s "$tmp/synopsis" "$tmp/readme"; then _ok "README Usage block = kpbrowse --help synopsis"
else _notok "README Usage block = kpbrowse --help synopsis"; diff "$tmp/readme" "$tmp/synopsis" | sed 's/^/# /'; fi

check_grep "index .*--dsym PATH.*--no-symbols" "$tmp/synopsis" "index --dsym/--no-symbols in --help"
check_grep "--source-map FROM=TO" "$tmp/synopsis" "the TUI's --source-map in --help"
for cmd in show lookup index list search export; do
	"$kp" "$cmd" --help >"$tmp/c" 2>&1
	check "$?" = 0 "$cmd --help exits 0"
	line=$(head -n 1 "$tmp/c" | sed 's/^usage: //')
	if grep -qxF -- "$line" "$tmp/synopsis"; then _ok "$cmd --help: its line of --help"
	else _notok "$cmd --help: its line of --help (got '$line')"; fi
done
"$kp" list --json --help >"$tmp/c" 2>&1
check_grep "^usage: kpbrowse list " "$tmp/c" "--help after other options"
"$kp" --demo --help >"$tmp/t" 2>&1
check "$?" = 0 "the TUI's --help exits 0"
check_grep "^Usage: kpbrowse .*--source-map FROM=TO" "$tmp/t" "the TUI's --help names --source-map"
# README's key table is generated from the one key table (tui/kpt_keys.h)
src=$(cd "$(dirname "$0")/.." && pwd)
sh "$src/scripts/readme-keys.sh" >"$tmp/keys"
sed -n '/<!-- keys: begin/,/<!-- keys: end/p' "$src/README.md" | sed '1d;$d' >"$tmp/readme-keys"
if cmp -s "$tmp/keys" "$tmp/readme-keys"; then _ok "README key table = tui/kpt_keys.h (scripts/readme-keys.sh)"
else _notok "README key table = tui/kpt_keys.h: run sh scripts/readme-keys.sh --write"; diff "$tmp/keys" "$tmp/readme-keys" | sed 's/^/#   /'; fi
done_testing
