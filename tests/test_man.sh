#!/bin/sh
# test_man.sh: the man page (man/kpbrowse.1) is lint-clean mdoc, names every
# command and option the program's --help texts print, every key of the key
# table and every environment variable the sources read, and is installed
# by `cmake --install`.
set -u
. "$KP_TESTS_DIR/tap.sh"
kp=$KPBROWSE
src=$(cd "$KP_TESTS_DIR/.." && pwd)
man=$src/man/kpbrowse.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if command -v mandoc >/dev/null 2>&1; then
	# warnings and errors only: STYLE notes on cross references depend on
	# which manuals this machine has (atos(1) exists only on macOS)
	mandoc -T lint -W warning "$man" >"$tmp/lint" 2>&1
	rc=$?
	check "$rc:$(cat "$tmp/lint")" = "0:" "mandoc -T lint -W warning is clean"
	mandoc -T utf8 "$man" >"$tmp/out" 2>&1
	check_grep "KPBROWSE_DSYM_PATH" "$tmp/out" "mandoc renders it"
else
	skip "mandoc not installed: lint"
	skip "mandoc not installed: render"
fi

# --help of the program, of the browser and of every command it lists
"$kp" --help >"$tmp/help"
"$kp" --demo --help >>"$tmp/help"
cmds=$(sed -n 's/^  kpbrowse \([a-z][a-z]*\) .*/\1/p' "$tmp/help")
check "$(echo $cmds | wc -w)" -ge 6 "--help lists the commands"
for c in $cmds; do
	check_grep "^\.Cm $c\$" "$man" "command $c"
	"$kp" "$c" --help >>"$tmp/help"
done
opts=$(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u)
check "$(echo $opts | wc -w)" -ge 12 "the --help texts name options"
for o in $opts; do
	check_grep "Fl ${o#-}\\( \\|\$\\)" "$man" "option $o"   # mdoc: Fl adds one dash
done

# every key label of the key table (Bksp is spelt out)
keys=$(find "$src/tui" "$src/cli" -name '*keys.h' 2>/dev/null | head -n 1)
if [ -n "$keys" ]; then
	labels=$(sed -n 's/^[[:space:]]*X([A-Z]*, *"\([^"]*\)".*/\1/p' "$keys")
	check "$(echo "$labels" | wc -l)" -ge 10 "keys.h has key labels"
	for k in $labels; do
		[ "$k" = Bksp ] && k=Backspace
		[ "$k" = "?" ] && k='\\&?'
		check_grep "Ic $k\\( \\|\$\\)" "$man" "key $k"
	done
else
	skip "keys.h not found under tui/ or cli/"
fi

# every environment variable the sources read
# shellcheck disable=SC2046
envs=$(find "$src/core" "$src/index" "$src/tui" "$src/cli" -name '*.c' 2>/dev/null |
	xargs grep -ho 'getenv("[A-Z_]*")' | sed 's/getenv("\(.*\)")/\1/' | sort -u)
check "$(echo $envs | wc -w)" -ge 5 "the sources read environment variables"
for e in $envs; do
	check_grep "^\.It Ev $e\\( \\|\$\\)" "$man" "environment $e"
done

# cmake --install puts it in share/man/man1
if [ -n "${KP_BUILD_DIR:-}" ] && cmake --install "$KP_BUILD_DIR" --prefix "$tmp/inst" >"$tmp/install.log" 2>&1; then
	check "$(find "$tmp/inst" -name kpbrowse.1 -path '*/man1/*' | wc -l)" = 1 "cmake --install installs man1/kpbrowse.1"
else
	_notok "cmake --install $KP_BUILD_DIR"
	cat "$tmp/install.log" 2>/dev/null
fi
# the SYNOPSIS as man renders it says what --help says, line for line
# (case, "X]..." for "X ...]" and line breaks aside): a misplaced .Nm or a
# lost grouping shows here
if command -v mandoc >/dev/null 2>&1; then
	"$kp" --help | sed -n '/^Usage:/,/^$/p' >"$tmp/usage"
	bs=$(printf '\b')   # overstrike (bold, underline) removed without col(1)
	mandoc -T ascii "$man" | sed "s/.$bs//g" | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' >"$tmp/syn"
	python3 - "$tmp/usage" "$tmp/syn" >"$tmp/synres" 2>&1 <<'PY'
import re, sys
def norm_help(h):
    h = h.lower()
    h = re.sub(r"\]\.\.\.", " ...]", h)
    h = re.sub(r"(\S)\.\.\.", r"\1 ...", h)
    h = h.replace("0xaddr", "addr").replace("|", " | ")
    return re.sub(r"\s+", " ", h).strip()
helps = [norm_help(l) for l in open(sys.argv[1]) if l.startswith("  kpbrowse")]
mans, cur = [], None
for l in open(sys.argv[2]).read().split("\n")[1:]:
    if l.startswith("DESCRIPTION"):
        break
    if re.match(r"^ {5}kpbrowse", l):
        if cur:
            mans.append(cur)
        cur = l.strip()
    elif l.strip() and cur:
        cur += " " + l.strip()
if cur:
    mans.append(cur)
mans = [re.sub(r"\s+", " ", m.lower()) for m in mans]
for h, m in zip(helps, mans):
    print(("ok " if h == m else "differs: ") + h + ("" if h == m else "  <man>  " + m))
print("count %d %d" % (len(helps), len(mans)))
PY
	while IFS= read -r line; do
		case $line in
		"ok "*) _ok "SYNOPSIS renders: ${line#ok }" ;;
		count*) set -- $line; check "$3" = "$2" "SYNOPSIS: as many lines as --help's usage ($2)" ;;
		*) _notok "SYNOPSIS $line" ;;
		esac
	done <"$tmp/synres"
else
	skip "mandoc not installed: SYNOPSIS rendering"
fi
done_testing
