#!/bin/sh
# bench_pg.sh: bench_pg on a throwaway PostgreSQL server (tests/pg_server.sh:
# a Unix socket in a temp folder, fsync on as a real server has it unless
# KP_PG_FSYNC=off) and an sqlite file in the same temp folder.
# Usage: sh bench/bench_pg.sh [BUILD_DIR [HOSTS [PER_HOST]]]  (default build, 100 x 1000)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target bench_pg -j2 >/dev/null || exit 2
T=$(mktemp -d "${TMPDIR:-/tmp}/kp-bench-pg-XXXXXX") || exit 2
. "$root/tests/tap.sh"
KP_PG_FSYNC=${KP_PG_FSYNC:-on}
. "$root/tests/pg_server.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
pg_start || { echo "bench_pg: skipped: $pg_why"; exit 0; }
PATH="$pg_bin:$PATH"; export PATH   # psql, the peer bench_pg runs beside kpbrowse
pg_createdb bench
"$build/cli/kpbrowse" db init --db "host=$PGHOST dbname=bench" >/dev/null || exit 2
mkdir "$T/work"
"$build/bench/bench_pg" "host=$PGHOST dbname=bench" "$T/index.sqlite3" "$T/work" "${2:-100}" "${3:-1000}"
# The same queries once the servers have done what they do on their own
# after a big push: PostgreSQL's autovacuum (visibility map, statistics;
# run here at once with VACUUM ANALYZE; sqlite's file is left as it is).
echo "after VACUUM ANALYZE (what autovacuum does on its own), the queries alone:"
"$pg_bin/psql" -q -d bench -c "VACUUM ANALYZE" >/dev/null 2>&1 || psql -q -d bench -c "VACUUM ANALYZE" >/dev/null
"$build/bench/bench_pg" "host=$PGHOST dbname=bench" "$T/index.sqlite3" - "${2:-100}" "${3:-1000}"
