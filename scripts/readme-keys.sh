#!/bin/sh
# readme-keys.sh: the README's TUI key table, generated from the one key
# table (tui/kpt_keys.h), like the help screen.  With --write it replaces
# the table between the README's "keys:" markers; tests/test_usage.sh
# checks that the README holds what this prints.
set -eu
cd "$(dirname "$0")/.."
table() {
	echo '| keys | what |'
	echo '|---|---|'
	sed -n 's/^[[:space:]]*X([A-Z]*, *"\([^"]*\)", *"\([^"]*\)".*/\1	\2/p' tui/kpt_keys.h |
		while IFS='	' read -r keys what; do
			k=$(printf '%s\n' "$keys" | sed 's/\([^ ][^ ]*\)/`\1`/g')
			printf '| %s | %s |\n' "$k" "$what"
		done
}
if [ "${1:-}" = --write ]; then
	table >README.keys.tmp
	awk -v f=README.keys.tmp '
		/<!-- keys: begin/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
		/<!-- keys: end/ { skip = 0 }
		!skip { print }' README.md >README.md.tmp
	mv README.md.tmp README.md
	rm -f README.keys.tmp
else
	table
fi
