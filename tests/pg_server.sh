# pg_server.sh: a throwaway PostgreSQL server for the tests and the
# benchmark, sourced (needs $T, a fresh temp folder, and tap.sh's skip).
# pg_start: initdb into $T/pg and pg_ctl start listening only on a Unix
# socket in $T/pg (listen_addresses=''; no TCP port); sets PGHOST to that
# folder, PGUSER=kpbrowse (the superuser) and PGDATABASE=postgres.  Returns
# 1 with $pg_why set when the binaries are absent (the caller skips,
# counted).  As root (CI) the server runs as an unprivileged user (nobody),
# which owns $T/pg: initdb and postgres refuse to run as root.
# pg_stop: stops it (pg_start installs it in the EXIT trap with $T's removal).
# pg_pw_user NAME PASSWORD: adds a login role that must give a password
# over the socket (scram-sha-256 in pg_hba.conf), for the wrong-password test.
pg_bin=""
for d in "${KP_PG_BIN:-}" /usr/lib/postgresql/*/bin /opt/homebrew/opt/postgresql@16/bin \
	/usr/local/opt/postgresql@16/bin; do
	[ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { pg_bin=$d; break; }
done
if [ -z "$pg_bin" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
	pg_bin=$(dirname "$(command -v initdb)")
fi
pg_as=""

# pg_run CMD...: runs a server binary as the server's user
pg_run() {
	if [ -n "$pg_as" ]; then
		if command -v setpriv >/dev/null 2>&1; then
			setpriv --reuid="$pg_as" --regid="$(id -g "$pg_as")" --init-groups "$@"
		else
			su -s /bin/sh "$pg_as" -c '"$0" "$@"' -- "$@"
		fi
	else
		"$@"
	fi
}

pg_start() {
	pg_why=""
	if [ -z "$pg_bin" ]; then
		pg_why="PostgreSQL server binaries (initdb, pg_ctl) not found"
		return 1
	fi
	if ! command -v psql >/dev/null 2>&1 && [ ! -x "$pg_bin/psql" ]; then
		pg_why="psql not found"
		return 1
	fi
	PG_DIR="$T/pg"
	mkdir -p "$PG_DIR"
	if [ "$(id -u)" -eq 0 ]; then
		pg_as=nobody
		chmod 755 "$T"
		chown -R "$pg_as" "$PG_DIR"
	fi
	chmod 700 "$PG_DIR"
	pg_run "$pg_bin/initdb" -D "$PG_DIR/data" -U kpbrowse -A trust -E UTF8 --no-sync \
		>"$PG_DIR/initdb.log" 2>&1 || { pg_why="initdb failed: $(tail -n 3 "$PG_DIR/initdb.log")"; return 1; }
	# trust over the socket for everyone but the password user (pg_pw_user)
	pg_run sh -c 'printf "local all kppw scram-sha-256\nlocal all all trust\n" >"$0/data/pg_hba.conf"' "$PG_DIR"
	pg_run "$pg_bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -c fsync=${KP_PG_FSYNC:-off} -c max_connections=60" \
		start >/dev/null 2>&1 || { pg_why="pg_ctl start failed: $(tail -n 3 "$PG_DIR/server.log" 2>/dev/null)"; return 1; }
	PG_STARTED=1
	PGHOST=$PG_DIR PGUSER=kpbrowse PGDATABASE=postgres
	export PGHOST PGUSER PGDATABASE
	unset PGPASSWORD PGSERVICE PGPORT
	PGPASSFILE=$T/no-pgpass
	export PGPASSFILE
	return 0
}

pg_stop() {
	[ -n "${PG_STARTED:-}" ] || return 0
	pg_run "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	PG_STARTED=""
}

# pg_restart: stop (fast) and start again on the same folder
pg_restart() {
	pg_run "$pg_bin/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
	pg_run "$pg_bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-c listen_addresses='' -c unix_socket_directories='$PG_DIR' -c fsync=${KP_PG_FSYNC:-off} -c max_connections=60" \
		start >/dev/null 2>&1
}

# pg_createdb NAME: a fresh, empty database
pg_createdb() {
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE \"$1\"" >/dev/null
}

pg_pw_user() {
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE ROLE $1 LOGIN PASSWORD '$2'" >/dev/null
}
