#!/bin/sh
# fault-index.sh: `kpbrowse index` killed (SIGKILL) at random points, many
# times over one index, and `cache build` likewise (issue 32 item 11).
# After every kill the index must open (`list` exit 0, its rows the reports
# stored), pass sqlite's integrity check and hold no report twice, its
# groups counting exactly its reports; a last run to the end must hold
# every report exactly once, at its one path.  After a killed `cache
# build`, the next one leaves no temporary and `cache list` shows the cache.
#
#   sh scripts/fault-index.sh [BUILD_DIR] [KILLS] [REPORTS]
#
# Defaults: build, 200 kills, 4,000 generated reports (tens of minutes on
# 2 cores).  SEED=N repeats a run's kill points.  tests/test_index_cli.sh
# runs it with 4 kills.  Prints TAP; exit 0 when every check passed.
set -u
B=${1:-build}
KILLS=${2:-200}
N=${3:-4000}
K="$B/cli/kpbrowse"
GEN="$B/tests/test_index"
[ -x "$K" ] && [ -x "$GEN" ] || { echo "Bail out! build $B first (kpbrowse, test_index)"; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/kp-fault-XXXXXX") || exit 2
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT INT TERM
SEED=${SEED:-$$}
echo "# seed $SEED, $KILLS kills, $N reports, in $T"
. "$(dirname "$0")/../tests/tap.sh"
# a random whole number below $1, from the seed and the step $2
rnd() { awk -v m="$1" -v s="$SEED" -v i="$2" 'BEGIN { srand(s * 7919 + i); print int(rand() * m) }'; }

mkdir "$T/r" && "$GEN" --gen-large "$T/r" "$N" || { echo "Bail out! cannot generate reports"; exit 2; }
export KPBROWSE_CACHE_DIR="$T/cache" KPBROWSE_CONFIG="$T/no-config"
now_ms() { python3 -c 'import time; print(int(time.time() * 1000))' 2>/dev/null || echo $(($(date +%s) * 1000)); }
# how long a cold run takes: kills fall anywhere in it (opening, the walk,
# a batch being stored, a commit, a checkpoint)
t0=$(now_ms)
"$K" index --no-symbols --db "$T/timing.sqlite3" "$T/r" >/dev/null 2>&1
span_ms=$(( $(now_ms) - t0 + 100 ))
rm -f "$T/timing.sqlite3"*
echo "# a cold run takes $span_ms ms"
# kill_at MS STEP: starts index on $db, kills it after MS ms, then checks
# that the index opens, is intact and holds each report once
kill_at() {
	"$K" index --no-symbols --db "$db" "$T/r" >/dev/null 2>"$T/err" &
	pid=$!
	sleep "$(awk -v m="$1" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ ! -e "$db" ]; then
		_ok "kill $2 at $1 ms: before the index was made"
		return
	fi
	c=$("$GEN" --check "$db" 2>&1)
	rows=$("$K" list --db "$db" 2>"$T/lerr" | grep -c '^@')
	# killed while making the file (its schema not committed, a rollback
	# journal maybe left before WAL mode): no index yet, which the next run
	# makes
	case $c in
	*"no such table"* | *"readonly database"*)
		if grep -q "no index yet" "$T/lerr"; then
			_ok "kill $2 at $1 ms: before the schema was committed (list: no index yet)"
		else
			_notok "kill $2 at $1 ms: check '$c', and list says '$(head -c 200 "$T/lerr")'"
		fi
		return
	esac
	set -- "$1" "$2" $c
	if [ "$3" = ok ] && [ "$8" = 0 ] && [ "$7" = "$4" ] && [ "$rows" = "$4" ] && [ ! -s "$T/lerr" ]; then
		_ok "kill $2 at $1 ms: opens, intact, $4 reports once each"
	else
		_notok "kill $2 at $1 ms: check '$c', list $rows rows ($(head -c 200 "$T/lerr"))"
	fi
}
i=0
while [ $i -lt "$KILLS" ]; do
	i=$((i + 1))
	db="$T/k$i.sqlite3"
	kill_at "$(rnd "$span_ms" "$i")" "$i"
	# every other time a second kill, in the run that completes the first
	[ $((i % 2)) = 0 ] && kill_at "$(rnd "$span_ms" "$((i + 50000))")" "$i.2"
	"$K" index --no-symbols --db "$db" "$T/r" >/dev/null 2>"$T/err"
	rc=$?
	c=$("$GEN" --check "$db")
	if [ $rc = 0 ] && [ "$c" = "ok $N $N 3 $N 0" ]; then
		_ok "the run after kill $i: every report exactly once"
	else
		_notok "the run after kill $i: exit $rc, check '$c' (want 'ok $N $N 3 $N 0'; $(head -c 200 "$T/err"))"
	fi
	rm -f "$db" "$db-wal" "$db-shm"
done

# cache build: a killed build never leaves a cache that is used half-made,
# nor temporaries the next build does not remove
dsym=$(find "$(dirname "$0")/../tests/fixtures/bin" -path '*.dSYM/Contents/Resources/DWARF/*' -type f 2>/dev/null |
	xargs ls -S 2>/dev/null | head -1)
if [ -z "$dsym" ]; then
	skip "no dSYM fixture for cache build"
else
	ckills=$((KILLS / 10 + 1))
	i=0
	while [ $i -lt $ckills ]; do
		i=$((i + 1))
		rm -rf "$T/cache"
		"$K" cache build "$dsym" >/dev/null 2>&1 &
		pid=$!
		sleep "$(awk -v m="$(rnd 40 "$((i + 100000))")" 'BEGIN { printf "%.3f", m / 1000 }')"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		"$K" cache build "$dsym" >/dev/null 2>"$T/cerr"
		crc=$?
		left=$(find "$T/cache" -name '*.tmp' 2>/dev/null | wc -l | tr -d ' ')
		"$K" cache list >"$T/clist" 2>&1
		if [ $crc = 0 ] && [ "$left" = 0 ] && grep -q . "$T/clist"; then
			_ok "cache build killed ($i): the next build completes, no temporary left"
		else
			_notok "cache build killed ($i): exit $crc, $left temporaries left ($(head -c 200 "$T/cerr"))"
		fi
	done
fi
done_testing
