/* store_pg.c: the PostgreSQL store (issue 16): one index shared by many
 * Macs on a server a team already runs.  With store_pg_write.c and
 * store_pg_query.c (store_pg.h), the only files that include libpq-fe.h.
 *
 * Contract (beyond kpi_store.h).  Everything lives in the schema
 * "kpbrowse"; its version is meta.schema_version and only KPI_OPEN_INIT
 * (`kpbrowse db init`) creates or migrates it, under an advisory lock, in
 * one transaction; a newer version is refused naming the target (password
 * masked).  Credentials, TLS and the rest of the connection are libpq's
 * business: the target goes to libpq untouched (sslmode, ~/.pgpass,
 * PGPASSFILE, service files, PG* variables all apply).  Every value is a
 * bound parameter (PQexecParams); no text from a report, a path or a host
 * name ever becomes SQL.
 *
 * Concurrency.  Many pushers run side by side: the scanner commits each
 * report on its own (ops.batch_files = 1) and every find-or-add is one
 * INSERT ... ON CONFLICT DO NOTHING followed, when nothing was inserted, by
 * a SELECT in a new statement (READ COMMITTED: it sees the row the other
 * writer committed while we waited on its unique key).  A transaction
 * takes its locks in one order (group key, report keys, the count of its
 * group, day and OS version (schema 13's trigger), path, group row),
 * so pushers cannot deadlock.  Group counts are kept by report_add
 * (count, first and last seen, and distinct hosts through group_hosts);
 * re-signing recounts.  A push writes only through the schema's own
 * functions (writer_api below: what a writer may EXECUTE; it writes no
 * table itself), which check what they are given.  The writer role has
 * no DELETE: groups emptied by
 * re-signing stay with count 0 and are not listed (groups_prune does
 * nothing), and group_hosts keeps a host a re-signed group no longer has
 * until the next re-sign recount (hosts is then recounted from reports).
 *
 * seq is the report id (an identity): two pushers committing at once may
 * commit ids out of order by a few, so "new since" can miss a report
 * stored in that instant until the next look. */
#include "store_pg.h"
#include "kp_utf8.h"
#include "kp_vec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---- */

/* s as the server's UTF8 encoding takes it: s itself when valid, else a
 * copy with U+FFFD for each invalid byte, kept on db until the transaction
 * ends (a params block may be run twice).  One bad byte in a panic string,
 * a file name or KPBROWSE_HOST must not stop a push (the raw bytes stay in
 * the report's archive). */
const char *kpi__pg_valid_text(kpi__pg *db, const char *s)
{
	bool oom = false;
	char *fixed = kp_utf8_repair(s, &oom);
	if (!fixed)
		return oom ? "\xEF\xBF\xBD" : s;
	if (!kp_vec_push((void **)&db->scratch, &db->nscratch, &db->scratch_cap, sizeof *db->scratch)) {
		free(fixed);
		return "\xEF\xBF\xBD";
	}
	db->scratch[db->nscratch - 1] = fixed;
	return fixed;
}

static void free_scratch(kpi__pg *db)
{
	for (size_t i = 0; i < db->nscratch; i++)
		free(db->scratch[i]);
	db->nscratch = 0;
}


void kpi__pg_text(kpi__pg_params *p, const char *s)
{
	p->v[p->n] = s;
	p->len[p->n] = 0;
	p->fmt[p->n] = 0;
	p->n++;
}

void kpi__pg_int(kpi__pg_params *p, int64_t x)
{
	snprintf(p->num[p->n], sizeof p->num[p->n], "%" PRId64, x);
	kpi__pg_text(p, p->num[p->n]);
}

void kpi__pg_bin(kpi__pg_params *p, const void *b, size_t n)
{
	p->v[p->n] = b;
	p->len[p->n] = (int)n;
	p->fmt[p->n] = 1;
	p->n++;
}

/* ---- errors ---- */

/* libpq's message, one line, without its trailing newline. */
static void one_line_raw(const char *m, char *out, size_t size)
{
	size_t o = 0;
	for (; m && *m && o + 1 < size; m++) {
		if (*m == '\n') {
			while (m[1] == ' ' || m[1] == '\t')
				m++;
			if (!m[1])
				break;
			if (o + 3 < size) {
				out[o++] = ';';
				out[o++] = ' ';
			}
			continue;
		}
		out[o++] = *m;
	}
	out[o] = '\0';
}

/* libpq's message, one line, without its trailing newline, and with the
 * target's secrets masked (libpq quotes the target and decoded values). */
static void one_line(kpi__pg *db, const char *m, char *out, size_t size)
{
	char raw[1024];
	one_line_raw(m, raw, sizeof raw);
	kpi_mask_secrets(db->target, raw, out, size);
}

/* KP_ERR_DB naming the target and what was being done; a lost connection
 * and a missing privilege are named as such. */
kp_status kpi__pg_fail(kpi__pg *db, const PGresult *res, kp_error *err, const char *what)
{
	char m[400];
	one_line(db, res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn), m, sizeof m);
	if (!m[0])
		one_line(db, PQerrorMessage(db->conn), m, sizeof m);
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (PQstatus(db->conn) == CONNECTION_BAD) {
		/* libpq's first line says what happened ("server closed the
		 * connection unexpectedly", "terminating connection due to
		 * administrator command"); the lines after it guess why, and
		 * made the one error line too long for kp_error, cut mid-word */
		m[strcspn(m, ";")] = '\0';
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%.120s: the connection to the server was lost while %s: %.80s",
		                    db->display, what, m);
	}
	/* writer_api's refusal of another login's report (or, before it,
	 * row-level security) shares the SQLSTATE of a missing grant */
	if (state && strcmp(state, "42501") == 0 &&
	    (strstr(m, "another login") || strstr(m, "row-level security")))
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%.120s: permission denied while %s (a row another login pushed: a "
		                    "writer changes only its own)", db->display, what);
	if (state && strcmp(state, "42501") == 0)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: permission denied while %s (this role may not write: pushing "
		                    "needs kpbrowse_writer): %s", db->display, what, m);
	return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: %s: %s", db->display, what, m);
}

/* The name sql is prepared under on this connection ("kpN"), preparing
 * it on first use; NULL when it cannot be (then it runs unprepared).  sql
 * must be a string literal: statements are known by their address. */
static const char *prepared(kpi__pg *db, const char *sql, char name[16])
{
	int i = 0;
	while (i < db->nprepared && db->prepared[i] != sql)
		i++;
	snprintf(name, 16, "kp%d", i);
	if (i < db->nprepared)
		return name;
	if (i == MAX_PREPARED)
		return NULL;
	PGresult *r = PQprepare(db->conn, name, sql, 0, NULL);
	bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (!ok)
		return NULL;   /* the unprepared run reports the problem */
	db->prepared[db->nprepared++] = sql;
	return name;
}

/* Runs sql (a string literal) with p; want is PGRES_COMMAND_OK or
 * PGRES_TUPLES_OK.  NULL (and err set) on failure; else the result, which
 * the caller clears.  Statements with parameters are prepared once per
 * connection. */
PGresult *kpi__pg_run(kpi__pg *db, const char *sql, kpi__pg_params *p, ExecStatusType want,
                      kp_error *err, const char *what)
{
	for (int i = 0; p && i < p->n; i++)
		if (p->v[i] && p->fmt[i] == 0)
			p->v[i] = kpi__pg_valid_text(db, p->v[i]);
	char name[16];
	const char *stmt = p && p->n && PQtransactionStatus(db->conn) != PQTRANS_INERROR
	                       ? prepared(db, sql, name) : NULL;
	PGresult *res = stmt ? PQexecPrepared(db->conn, stmt, p->n, p->v, p->len, p->fmt, 0)
	                     : PQexecParams(db->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL,
	                                    p ? p->len : NULL, p ? p->fmt : NULL, 0);

	if (res && PQresultStatus(res) == want)
		return res;
	kpi__pg_fail(db, res, err, what);
	PQclear(res);
	return NULL;
}

kp_status kpi__pg_cmd(kpi__pg *db, const char *sql, kpi__pg_params *p, kp_error *err,
                      const char *what)
{
	PGresult *res = kpi__pg_run(db, sql, p, PGRES_COMMAND_OK, err, what);
	PQclear(res);
	return res ? KP_OK : KP_ERR_DB;
}

const char *kpi__pg_val(const PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return NULL;
	const char *s = PQgetvalue(r, row, col);
	return *s ? s : NULL;
}

int64_t kpi__pg_val_int(const PGresult *r, int row, int col)
{
	const char *s = kpi__pg_val(r, row, col);
	return s ? strtoll(s, NULL, 10) : 0;
}

/* ---- schema ---- */

/* The writer's way in (issue 32 item 8), beside the schema versions, so a
 * server at any schema gets it from db init (meta writer_api; open asks
 * for db init while it is older).  Writers (roles.sql) hold SELECT and
 * EXECUTE on these functions only: every write a push makes is one of
 * them, run as the schema's owner (SECURITY DEFINER, search_path pinned),
 * each checking what it is given.  A report, its archive, images and text
 * are written only by the login that pushed it (pushed_by =
 * session_user); path rows are each login's own (pushed_by is in their
 * key: no login can plant a row that another's pushes then trip on); a
 * kext set's key is made from its members here, so no set can hold a
 * member its key does not say; group counts are kept by report_add and
 * recounted, never set.  Installed before the schema steps' fills (their
 * tables are looked up when a function runs), after the tables exist. */
#define WRITER_API "2"   /* 2: report_add and report_replace take the cause class last */
static const char writer_api[] =
	"ALTER TABLE kpbrowse.reports ADD COLUMN IF NOT EXISTS pushed_by name NOT NULL DEFAULT session_user;\n"
	"ALTER TABLE kpbrowse.reports ALTER COLUMN pushed_by SET DEFAULT session_user;\n"
	"ALTER TABLE kpbrowse.paths ADD COLUMN IF NOT EXISTS pushed_by name NOT NULL DEFAULT session_user;\n"
	"ALTER TABLE kpbrowse.paths ALTER COLUMN pushed_by SET DEFAULT session_user;\n"
	"ALTER TABLE kpbrowse.paths DROP CONSTRAINT IF EXISTS paths_pkey,\n"
	"  ADD CONSTRAINT paths_pkey PRIMARY KEY (host, path, pushed_by);\n"
	/* api 1's, without the class: one of each name, so roles.sql's GRANT
	 * (rerun after a db init that migrated) names it alone */
	"DROP FUNCTION IF EXISTS kpbrowse.report_add(text, text, bigint, text, text, bigint, text, text, text,\n"
	"  text, bigint, bigint, text, text, text, text, text, text, text[], text[]);\n"
	"DROP FUNCTION IF EXISTS kpbrowse.report_replace(bigint, text, text, bigint, text, text, bigint, text,\n"
	"  text, text, text, bigint, bigint, text, text, text, text, text, text, text[], text[], bytea);\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.kext_set(names text[], uuids text[]) RETURNS bigint\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"DECLARE\n"
	"  k text;\n"
	"  sid bigint;\n"
	"BEGIN\n"
	"  IF coalesce(cardinality(names), 0) = 0 THEN\n"
	"    RETURN NULL;\n"
	"  END IF;\n"
	"  IF cardinality(names) <> coalesce(cardinality(uuids), 0) THEN\n"
	"    RAISE EXCEPTION 'kext names and UUIDs differ in number';\n"
	"  END IF;\n"
	"  k := encode(sha256(convert_to(ARRAY(SELECT ARRAY[d.n, d.u] FROM (SELECT DISTINCT m.n, m.u\n"
	"    FROM unnest(names, uuids) AS m(n, u)) d ORDER BY d.n COLLATE \"C\", d.u COLLATE \"C\")::text, 'UTF8')), 'hex');\n"
	"  INSERT INTO kpbrowse.kext_sets(hash) VALUES (k) ON CONFLICT (hash) DO NOTHING RETURNING id INTO sid;\n"
	"  IF sid IS NULL THEN\n"
	"    SELECT s.id INTO sid FROM kpbrowse.kext_sets s WHERE s.hash = k;\n"
	"    RETURN sid;\n"
	"  END IF;\n"
	"  INSERT INTO kpbrowse.kexts(name, uuid_hex) SELECT DISTINCT m.n, m.u FROM unnest(names, uuids) AS m(n, u)\n"
	"    ON CONFLICT DO NOTHING;\n"
	"  INSERT INTO kpbrowse.kext_set_members(kext_id, set_id) SELECT x.id, sid FROM kpbrowse.kexts x\n"
	"    JOIN (SELECT DISTINCT m.n, m.u FROM unnest(names, uuids) AS m(n, u)) d ON x.name = d.n AND x.uuid_hex = d.u\n"
	"    ON CONFLICT DO NOTHING;\n"
	"  RETURN sid;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.report_add(text, text, bigint, text, text, bigint, text, text, text,\n"
	"  text, bigint, bigint, text, text, text, text, text, text, text[], text[], text) RETURNS bigint\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"DECLARE\n"
	"  rid bigint;\n"
	"  nh bigint;\n"
	"  d bigint := CASE WHEN $6 > " KPI__UNDATED_SQL " THEN $6 END;\n"
	"BEGIN\n"
	"  INSERT INTO kpbrowse.reports(content_hash, incident_id, size, format, timestamp, ts, os_version,\n"
	"    kernel_uuid, headline, exact_key, group_id, indexed_at, host, host_key, model, kind, zone, kext_set,\n"
	"    pushed_by, class)\n"
	"  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $17, $18,\n"
	"    kpbrowse.kext_set($19, $20), session_user, $21)\n"
	"  ON CONFLICT DO NOTHING RETURNING id INTO rid;\n"
	"  IF rid IS NULL THEN\n"
	"    RETURN NULL;\n"
	"  END IF;\n"
	"  IF $16 IS NOT NULL THEN\n"
	"    INSERT INTO kpbrowse.panic_text(report_id, body) VALUES (rid, to_tsvector('simple', $16));\n"
	"  END IF;\n"
	"  INSERT INTO kpbrowse.group_hosts(group_id, ident) VALUES ($11, coalesce($14, $13, '')) ON CONFLICT DO NOTHING;\n"
	"  GET DIAGNOSTICS nh = ROW_COUNT;\n"
	"  UPDATE kpbrowse.groups SET count = count + 1, hosts = hosts + nh, first_seen = least(first_seen, d),\n"
	"    last_seen = greatest(last_seen, d) WHERE id = $11;\n"
	"  RETURN rid;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.report_own(bigint) RETURNS void\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  IF NOT EXISTS (SELECT 1 FROM kpbrowse.reports r WHERE r.id = $1 AND r.pushed_by = session_user) THEN\n"
	"    RAISE EXCEPTION 'report @% was pushed by another login (a writer changes only its own)', $1\n"
	"      USING ERRCODE = '42501';\n"
	"  END IF;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.report_images(bigint, int[], text[], text[]) RETURNS void\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  PERFORM kpbrowse.report_own($1);\n"
	"  UPDATE kpbrowse.images SET live = false WHERE report_id = $1 AND live;\n"
	"  INSERT INTO kpbrowse.images(report_id, rank, uuid_hex, name) SELECT DISTINCT $1, m.r, m.u, m.n\n"
	"    FROM unnest($2, $3, $4) AS m(r, u, n)\n"
	"    ON CONFLICT (report_id, rank, uuid_hex, name) DO UPDATE SET live = true;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.archive_add(bigint, bytea) RETURNS void\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  PERFORM kpbrowse.report_own($1);\n"
	"  INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $2) ON CONFLICT DO NOTHING;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.report_replace(bigint, text, text, bigint, text, text, bigint, text,\n"
	"  text, text, text, bigint, bigint, text, text, text, text, text, text, text[], text[], bytea, text) RETURNS boolean\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  PERFORM 1 FROM kpbrowse.reports r WHERE r.id = $1 FOR UPDATE;\n"
	"  IF NOT FOUND THEN\n"
	"    RETURN false;\n"
	"  END IF;\n"
	"  PERFORM kpbrowse.report_own($1);\n"
	"  UPDATE kpbrowse.reports SET content_hash = $2, incident_id = $3, size = $4, format = $5, timestamp = $6,\n"
	"    ts = $7, os_version = $8, kernel_uuid = $9, headline = $10, exact_key = $11, group_id = $12,\n"
	"    indexed_at = $13, host = $14, host_key = $15, model = $16, kind = $18, zone = $19,\n"
	"    kext_set = kpbrowse.kext_set($20, $21), class = $23 WHERE id = $1;\n"
	"  INSERT INTO kpbrowse.panic_text(report_id, body) VALUES ($1, to_tsvector('simple', coalesce($17, '')))\n"
	"    ON CONFLICT (report_id) DO UPDATE SET body = excluded.body;\n"
	"  INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $22)\n"
	"    ON CONFLICT (report_id) DO UPDATE SET data = excluded.data;\n"
	"  RETURN true;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.path_put(text, text, bigint, bigint, bigint, bigint, text) RETURNS void\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  INSERT INTO kpbrowse.paths(host, path, report_id, size, mtime, seen_at, skip_reason, pushed_by)\n"
	"  VALUES ($1, $2, $3, $4, $5, $6, $7, session_user)\n"
	"  ON CONFLICT (host, path, pushed_by) DO UPDATE SET report_id = excluded.report_id, size = excluded.size,\n"
	"    mtime = excluded.mtime, seen_at = excluded.seen_at, skip_reason = excluded.skip_reason;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.group_add(text, text, text) RETURNS bigint\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"DECLARE\n"
	"  gid bigint;\n"
	"BEGIN\n"
	"  SELECT g.id INTO gid FROM kpbrowse.groups g WHERE g.key = $1;\n"
	"  IF gid IS NULL THEN\n"
	"    INSERT INTO kpbrowse.groups(key, title, culprit) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING\n"
	"      RETURNING id INTO gid;\n"
	"  END IF;\n"
	"  IF gid IS NULL THEN\n"
	"    SELECT g.id INTO gid FROM kpbrowse.groups g WHERE g.key = $1;\n"
	"  END IF;\n"
	"  RETURN gid;\n"
	"END $f$;\n"
	"CREATE OR REPLACE FUNCTION kpbrowse.group_recount(bigint) RETURNS void\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  INSERT INTO kpbrowse.group_hosts(group_id, ident) SELECT DISTINCT r.group_id, coalesce(r.host_key, r.host, '')\n"
	"    FROM kpbrowse.reports r WHERE r.group_id = $1 ON CONFLICT DO NOTHING;\n"
	"  UPDATE kpbrowse.groups g SET count = s.c, hosts = s.h, first_seen = s.f, last_seen = s.l\n"
	"  FROM (SELECT count(*) AS c, count(DISTINCT coalesce(r.host_key, r.host, '')) AS h,\n"
	"    min(CASE WHEN r.ts > " KPI__UNDATED_SQL " THEN r.ts END) AS f,\n"
	"    max(CASE WHEN r.ts > " KPI__UNDATED_SQL " THEN r.ts END) AS l\n"
	"    FROM kpbrowse.reports r WHERE r.group_id = $1) s WHERE g.id = $1;\n"
	"END $f$;\n"
	"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA kpbrowse FROM PUBLIC;\n";

/* The store starts at 3: schema.h's steps 1 and 2 have no SQL here (its
 * step 3 creates the schema sqlite's 1 to 3 make). */
#define PG_FIRST_VERSION 3

/* The schema version: 0 when there is no kpbrowse schema; -1 (err set)
 * when there is one that is not ours or cannot be read. */
static int schema_version(kpi__pg *db, kp_error *err)
{
	PGresult *r = kpi__pg_run(db, "SELECT to_regclass('kpbrowse.meta') IS NOT NULL, "
	                          "EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'kpbrowse')",
	                          NULL, PGRES_TUPLES_OK, err, "reading the schema");
	if (!r)
		return -1;
	bool meta = strcmp(PQgetvalue(r, 0, 0), "t") == 0, ns = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
	PQclear(r);
	if (!meta && !ns)
		return 0;
	if (!meta) {
		kp_error_set(err, KP_ERR_DB, 0, -1,
		             "%s: schema \"kpbrowse\" is not a kpbrowse index; refusing to touch it",
		             db->display);
		return -1;
	}
	r = kpi__pg_run(db, "SELECT (SELECT value FROM kpbrowse.meta WHERE key = 'application'), "
	                "(SELECT value FROM kpbrowse.meta WHERE key = 'schema_version')",
	                NULL, PGRES_TUPLES_OK, err, "reading the schema version");
	if (!r)
		return -1;
	const char *app = kpi__pg_val(r, 0, 0), *v = kpi__pg_val(r, 0, 1);
	int version = v ? atoi(v) : 0;
	if (!app || strcmp(app, "kpbrowse") != 0 || version <= 0) {
		kp_error_set(err, KP_ERR_DB, 0, -1,
		             "%s: schema \"kpbrowse\" is not a kpbrowse index; refusing to touch it",
		             db->display);
		version = -1;
	}
	PQclear(r);
	return version;
}

/* meta writer_api: whether the writer's functions are this binary's. */
static bool api_current(kpi__pg *db)
{
	PGresult *r = PQexec(db->conn, "SELECT value FROM kpbrowse.meta WHERE key = 'writer_api'");
	bool ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
	          strcmp(PQgetvalue(r, 0, 0), WRITER_API) == 0;
	PQclear(r);
	return ok;
}

static kp_status api_install(kpi__pg *db, kp_error *err)
{
	PGresult *m = PQexec(db->conn, writer_api);
	kp_status st = PQresultStatus(m) == PGRES_COMMAND_OK ? KP_OK
	                                                     : kpi__pg_fail(db, m, err, "creating the writer's functions");
	PQclear(m);
	if (st == KP_OK)
		st = kpi__pg_cmd(db, "INSERT INTO kpbrowse.meta VALUES ('writer_api', '" WRITER_API "') "
		                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value", NULL, err,
		                 "creating the writer's functions");
	return st;
}

/* db init: creates or migrates under a transaction-scoped advisory lock,
 * so two inits at once do the work once; each step is followed by the
 * index layer's (migrated) in the same transaction. */
static kp_status migrate(kpi__pg *db, kpi__migrated_fn migrated, kp_error *err)
{
	kp_status st = kpi__pg_cmd(db, "BEGIN", NULL, err, "starting the migration");
	if (st != KP_OK)
		return st;
	/* "kpbx" as in the sqlite store's application_id */
	PGresult *r = st == KP_OK ? kpi__pg_run(db, "SELECT pg_advisory_xact_lock(1802531448)", NULL,
	                                        PGRES_TUPLES_OK, err, "locking for migration")
	                          : NULL;
	if (!r)
		st = KP_ERR_DB;
	PQclear(r);
	int v = st == KP_OK ? schema_version(db, err) : -1;
	if (v < 0)
		st = KP_ERR_DB;
	else if (v > KPI_SCHEMA_VERSION)
		st = kp_error_set(err, KP_ERR_DB, 0, -1,
		                  "%s: index schema version %d is newer than this kpbrowse (%d)",
		                  db->display, v, KPI_SCHEMA_VERSION);
	if (st == KP_OK && v >= PG_FIRST_VERSION && !api_current(db))
		st = api_install(db, err);
	for (; st == KP_OK && v < KPI_SCHEMA_VERSION; v++) {
		if (v + 1 < PG_FIRST_VERSION || !kpi__steps[v].pg)
			continue;
		PGresult *m = PQexec(db->conn, kpi__steps[v].pg);
		if (PQresultStatus(m) != PGRES_COMMAND_OK)
			st = kpi__pg_fail(db, m, err, "creating the schema");
		PQclear(m);
		if (st == KP_OK && v + 1 == PG_FIRST_VERSION)
			st = api_install(db, err);
		db->migrating = v + 1;
		if (st == KP_OK && migrated)
			st = migrated(&db->base, v + 1, err);
		db->migrating = 0;
	}
	if (st == KP_OK) {
		kpi__pg_params p = {0};
		kpi__pg_int(&p, KPI_SCHEMA_VERSION);
		st = kpi__pg_cmd(db, "INSERT INTO kpbrowse.meta VALUES ('schema_version', $1) "
		                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		                 &p, err, "setting the schema version");
	}
	if (st == KP_OK)
		return kpi__pg_cmd(db, "COMMIT", NULL, err, "committing the migration");
	PQclear(PQexec(db->conn, "ROLLBACK"));
	return st;
}

/* ---- opening ---- */

static const kpi__store_ops pg_ops;

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg; /* a store never prints: NOTICEs are dropped */
}

static void pg_close(kpi_db *h)
{
	kpi__pg *db = PG(h);
	if (db->conn)
		PQfinish(db->conn);
	free(db->target);
	free_scratch(db);
	free(db->scratch);
	free(db);
}

kp_status kpi__pg_open(const char *target, unsigned flags, kpi__migrated_fn migrated, kpi_db **out,
                       kp_error *err)
{
	*out = NULL;
	if (kpi__pq_load(err) != KP_OK)
		return KP_ERR_DB;
	kpi__pg *db = calloc(1, sizeof *db);
	if (!db)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	kpi_target_display(target, db->display, sizeof db->display);
	if (!(db->target = strdup(target))) {
		free(db);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	/* the target is libpq's own string, expanded as a dbname (URI or
	 * key=value); kpbrowse only names itself unless the target does */
	const char *const keys[] = {"dbname", "fallback_application_name", NULL};
	const char *const vals[] = {target, "kpbrowse", NULL};
	db->conn = PQconnectdbParams(keys, vals, 1);
	if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
		char m[400];
		one_line(db, db->conn ? PQerrorMessage(db->conn) : "out of memory", m, sizeof m);
		kp_status st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: cannot connect: %s", db->display, m);
		pg_close(&db->base);
		return st;
	}
	PQsetNoticeProcessor(db->conn, quiet, NULL);
	/* A push commits each report on its own; not waiting for the WAL flush
	 * costs nothing in consistency (a commit stays atomic) and at worst,
	 * when the server itself crashes, loses the last moment's commits
	 * whole, paths with them, so the next push sends them again. */
	PGresult *sc = PQexec(db->conn, "SET synchronous_commit = off");
	PQclear(sc);
	/* Prepared statements save the parsing only: a generic plan for a UUID
	 * range or a host would ignore the values it is for. */
	sc = PQexec(db->conn, "SET plan_cache_mode = force_custom_plan");
	PQclear(sc);
	kp_status st = KP_OK;
	int v = schema_version(db, err);
	db->base.ops = &pg_ops; /* the migration hook reads and writes through them */
	if (v < 0) {
		st = KP_ERR_DB;
	} else if (v > KPI_SCHEMA_VERSION) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1,
		                  "%s: index schema version %d is newer than this kpbrowse (%d)",
		                  db->display, v, KPI_SCHEMA_VERSION);
	} else if (v < KPI_SCHEMA_VERSION || !api_current(db)) {
		if (flags & KPI_OPEN_INIT)
			st = migrate(db, migrated, err);
		else
			st = kp_error_set(err, KP_ERR_NOTFOUND, 0, -1,
			                  v == 0 ? "%s: no kpbrowse index on this server yet (run 'kpbrowse db init --db ...')"
			                         : "%s: the index schema is older than this kpbrowse (run 'kpbrowse db init --db ...')",
			                  db->display);
	}
	if (st != KP_OK) {
		pg_close(&db->base);
		return st;
	}
	*out = &db->base;
	return KP_OK;
}

/* ---- transactions ---- */

static kp_status pg_begin(kpi_db *h, kp_error *err)
{
	return kpi__pg_cmd(PG(h), "BEGIN", NULL, err, "starting a transaction");
}

static kp_status pg_commit(kpi_db *h, kp_error *err)
{
	kpi__pg *db = PG(h);
	PGresult *r = kpi__pg_run(db, "COMMIT", NULL, PGRES_COMMAND_OK, err, "committing");
	free_scratch(db);
	if (!r)
		return KP_ERR_DB;
	/* COMMIT of a failed transaction "succeeds" as ROLLBACK */
	bool ok = strcmp(PQcmdStatus(r), "COMMIT") == 0;
	PQclear(r);
	return ok ? KP_OK : kp_error_set(err, KP_ERR_DB, 0, -1, "%s: the transaction was rolled back",
	                                 db->display);
}

static bool pg_lost(kpi_db *h)
{
	return PQstatus(PG(h)->conn) == CONNECTION_BAD;
}

static void pg_rollback(kpi_db *h)
{
	free_scratch(PG(h));
	if (PQstatus(PG(h)->conn) == CONNECTION_OK)
		PQclear(PQexec(PG(h)->conn, "ROLLBACK"));
}

/* ---- meta ---- */

static kp_status pg_meta_get(kpi_db *h, const char *key, char **value, kp_error *err)
{
	*value = NULL;
	kpi__pg_params p = {0};
	kpi__pg_text(&p, key);
	PGresult *r = kpi__pg_run(PG(h), "SELECT value FROM kpbrowse.meta WHERE key = $1", &p, PGRES_TUPLES_OK,
	                          err, "reading state");
	if (!r)
		return KP_ERR_DB;
	kp_status st = KP_OK;
	if (PQntuples(r) == 1 && !(*value = strdup(PQgetvalue(r, 0, 0))))
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	PQclear(r);
	return st;
}

static kp_status pg_meta_set(kpi_db *h, const char *key, const char *value, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_text(&p, key);
	kpi__pg_text(&p, value ? value : "");
	/* one statement: its own transaction */
	return kpi__pg_cmd(PG(h), "INSERT INTO kpbrowse.meta(key, value) VALUES ($1, $2) "
	                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	                   &p, err, "saving state");
}

static const kpi__store_ops pg_ops = {
	.name = "postgresql",
	.batch_files = 1,
	.counts_on_add = true,
	.close = pg_close,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.is_own_file = NULL,
	.lost = pg_lost,
	.path_get = kpi__pg_path_get,
	.path_put = kpi__pg_path_put,
	.report_paths = kpi__pg_report_paths,
	.report_find = kpi__pg_report_find,
	.report_add = kpi__pg_report_add,
	.archive_add = kpi__pg_archive_add,
	.report_replace = kpi__pg_report_replace,
	.archive_get = kpi__pg_archive_get,
	.report_ids = kpi__pg_report_ids,
	.report_regroup = kpi__pg_report_regroup,
	.report_facts = kpi__pg_report_facts,
	.report_kexts = kpi__pg_report_kexts,
	.report_rehash = kpi__pg_report_rehash,
	.group_add = kpi__pg_group_add,
	.groups_refresh = kpi__pg_groups_refresh,
	.groups_prune = kpi__pg_groups_prune,
	.list_reports = kpi__pg_list_reports,
	.list_groups = kpi__pg_list_groups,
	.list_group_counts = kpi__pg_list_group_counts,
	.trend_rows = kpi__pg_trend_rows,
	.list_hosts = kpi__pg_list_hosts,
	.search_page = kpi__pg_search_page,
	.list_page = kpi__pg_list_page,
	.meta_get = pg_meta_get,
	.meta_set = pg_meta_set,
};
