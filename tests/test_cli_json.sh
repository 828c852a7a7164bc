#!/bin/sh
# test_cli_json.sh: every command's --json output byte for byte against
# tests/golden/cli/ (written by the cJSON-printing CLI before the one JSON
# writer replaced it, then kept): index (-v, errors, warnings, --resign),
# list, list --groups, list --kind, hosts, search (a UUID match, text, none),
# db init, db rebuild, nvram, and show with symbols (one file, several,
# --disasm when Capstone is built in).  The temporary folder and the
# fixtures' folder are written as $TMP and $FIXTURES, so the goldens are the
# same in every clone.  KP_GOLDEN_UPDATE=1 rewrites them (review the diff).
set -u
. "$KP_TESTS_DIR/tap.sh"
cli_setup
golden="$KP_TESTS_DIR/golden/cli"
update=${KP_GOLDEN_UPDATE:-0}
bins="$KP_FIXTURES/bin"
intel="$KP_FIXTURES/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic"
full="$KP_FIXTURES/reports/panic-full-2026-11-20-101500.0001.ips"

# pin NAME WHAT CMD...: CMD's stdout (paths made neutral) against golden/NAME
pin() {
	_name=$1 _what=$2
	shift 2
	"$@" >"$tmp/raw" 2>"$tmp/err"
	_rc=$?
	sed -e "s#$tmp#\$TMP#g" -e "s#$KP_FIXTURES#\$FIXTURES#g" "$tmp/raw" >"$tmp/out"
	if [ "$update" = 1 ]; then
		mkdir -p "$golden"
		cp "$tmp/out" "$golden/$_name"
		_ok "$_what: wrote golden/cli/$_name (exit $_rc)"
	elif cmp -s "$golden/$_name" "$tmp/out"; then
		_ok "$_what: byte for byte golden/cli/$_name (exit $_rc)"
	else
		_notok "$_what: differs from golden/cli/$_name (exit $_rc)"
		diff "$golden/$_name" "$tmp/out" | head -20 | sed 's/^/# /'
	fi
}

# a folder of reports: the fixtures, one that is not a report (an error or a
# skip, named), one hostile name
mkdir -p "$tmp/r"
cp "$KP_FIXTURES"/reports/*.ips "$KP_FIXTURES"/reports/*.panic "$tmp/r/"
rlo=$(printf '\342\200\256')
printf 'not a panic at all\n' >"$tmp/r/junk-$rlo.panic"
# a bare panic string whose text holds a C0, C1 and bidi control, under a name with one
printf 'panic(cpu 0 caller 0xffffff8000000000): "evil\033[2J \302\233 %s\tend"@x.c:1\nBacktrace (CPU 0), Frame : Return Address\n' "$rlo" >"$tmp/r/evil-$rlo.panic"
db="$tmp/i.sqlite3"

pin index.json "index --json -v" "$kp" index --db "$db" --host "test${rlo}mac" --json -v --no-symbols "$tmp/r"
pin index-again.json "index --json again (unchanged)" "$kp" index --db "$db" --json --no-symbols "$tmp/r"
pin resign.json "index --resign --json" "$kp" index --db "$db" --json --resign --no-symbols
pin list.json "list --json" "$kp" list --db "$db" --json
pin list-kind.json "list --kind panic --json" "$kp" list --db "$db" --kind panic --json
pin groups.json "list --groups --json" "$kp" list --db "$db" --groups --json
pin hosts.json "hosts --json" "$kp" hosts --db "$db" --json
pin search-kext.json "search --kext --json" "$kp" search --db "$db" --json --kext FakeDriver
pin search-text.json "search TEXT --json" "$kp" search --db "$db" --json report length
pin search-none.json "search --json, no match" "$kp" search --db "$db" --json nothingmatchesthis
pin db-init.json "db init --json" "$kp" db init --db "$tmp/n.sqlite3" --json
pin db-rebuild.json "db rebuild --json" "$kp" db rebuild --db "$db" --json "$tmp/r"
pin nvram.json "nvram --json" "$kp" nvram --json "$KP_FIXTURES/nvram/nvram-x-intel.plist"
pin nvram-region.json "nvram --json (a region dump with its header)" "$kp" nvram --json "$KP_FIXTURES/nvram/region-funk.bin"
pin show-sym.json "show --json, symbolicated" "$kp" show --json --dsym "$bins" "$intel"
pin show-two.json "show --json of two reports (one array)" "$kp" show --json --dsym "$bins" "$intel" "$full"
if "$kp" show --disasm 4 --dsym "$bins" "$intel" >/dev/null 2>&1; then
	pin show-disasm.json "show --json --disasm 4" "$kp" show --json --disasm 4 --dsym "$bins" "$intel"
else
	skip "show --json --disasm: built without Capstone"
fi
done_testing
