/* store_pg.c: the PostgreSQL store (issue 16): one index shared by many
 * Macs on a server a team already runs.  The only file that includes
 * libpq-fe.h.
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
 * takes its locks in one order (group key, report keys, path, group row),
 * so pushers cannot deadlock.  Group counts are kept by report_add
 * (count, first and last seen, and distinct hosts through group_hosts);
 * re-signing recounts.  The writer role has no DELETE: groups emptied by
 * re-signing stay with count 0 and are not listed (groups_prune does
 * nothing), and group_hosts keeps a host a re-signed group no longer has
 * until the next re-sign recount (hosts is then recounted from reports).
 *
 * seq is the report id (an identity): two pushers committing at once may
 * commit ids out of order by a few, so "new since" can miss a report
 * stored in that instant until the next look. */
#include "kpi_store.h"
#include "kp_vec.h"

#include <libpq-fe.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PREPARED 64

typedef struct kpi__pg {
	kpi_db base;            /* first: a kpi_db * is a kpi__pg * */
	PGconn *conn;
	char display[512];      /* the target, password masked: in every message */
	/* statements prepared on this connection, by their (static) text */
	const char *prepared[MAX_PREPARED];
	int nprepared;
} kpi__pg;

#define PG(h) ((kpi__pg *)(h))

/* ---- parameters ---- */

#define MAXP 24

typedef struct params {
	int n;
	const char *v[MAXP];
	int len[MAXP];
	int fmt[MAXP];
	char num[MAXP][24];
} params;

static void p_text(params *p, const char *s)
{
	p->v[p->n] = s;
	p->len[p->n] = 0;
	p->fmt[p->n] = 0;
	p->n++;
}

static void p_int(params *p, int64_t x)
{
	snprintf(p->num[p->n], sizeof p->num[p->n], "%" PRId64, x);
	p_text(p, p->num[p->n]);
}

static void p_bin(params *p, const void *b, size_t n)
{
	p->v[p->n] = b;
	p->len[p->n] = (int)n;
	p->fmt[p->n] = 1;
	p->n++;
}

/* ---- errors ---- */

/* libpq's message, one line, without its trailing newline. */
static void one_line(const char *m, char *out, size_t size)
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

/* KP_ERR_DB naming the target and what was being done; a lost connection
 * and a missing privilege are named as such. */
static kp_status pg_fail(kpi__pg *db, const PGresult *res, kp_error *err, const char *what)
{
	char m[400];
	one_line(res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn), m, sizeof m);
	if (!m[0])
		one_line(PQerrorMessage(db->conn), m, sizeof m);
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (PQstatus(db->conn) == CONNECTION_BAD)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: the connection to the server was lost while %s: %s", db->display,
		                    what, m);
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
static PGresult *run(kpi__pg *db, const char *sql, const params *p, ExecStatusType want,
                     kp_error *err, const char *what)
{
	char name[16];
	const char *stmt = p && p->n && PQtransactionStatus(db->conn) != PQTRANS_INERROR
	                       ? prepared(db, sql, name) : NULL;
	PGresult *res = stmt ? PQexecPrepared(db->conn, stmt, p->n, p->v, p->len, p->fmt, 0)
	                     : PQexecParams(db->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL,
	                                    p ? p->len : NULL, p ? p->fmt : NULL, 0);
	if (res && PQresultStatus(res) == want)
		return res;
	pg_fail(db, res, err, what);
	PQclear(res);
	return NULL;
}

static kp_status run_cmd(kpi__pg *db, const char *sql, const params *p, kp_error *err,
                         const char *what)
{
	PGresult *res = run(db, sql, p, PGRES_COMMAND_OK, err, what);
	PQclear(res);
	return res ? KP_OK : KP_ERR_DB;
}

static const char *val(const PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return NULL;
	const char *s = PQgetvalue(r, row, col);
	return *s ? s : NULL;
}

static int64_t val_int(const PGresult *r, int row, int col)
{
	const char *s = val(r, row, col);
	return s ? strtoll(s, NULL, 10) : 0;
}

/* ---- schema ---- */

/* The schema every kpbrowse version up to KPI_SCHEMA_VERSION builds (the
 * PostgreSQL store starts at version 3, the sqlite schema with hosts). */
static const char schema_v3[] =
	"CREATE SCHEMA kpbrowse;"
	"CREATE TABLE kpbrowse.meta(key text PRIMARY KEY, value text NOT NULL);"
	"CREATE TABLE kpbrowse.groups("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" key text NOT NULL UNIQUE,"
	" title text NOT NULL,"
	" culprit text,"
	" count bigint NOT NULL DEFAULT 0,"
	" hosts bigint NOT NULL DEFAULT 0,"
	" first_seen bigint, last_seen bigint);"
	"CREATE INDEX groups_order ON kpbrowse.groups(count DESC, last_seen DESC, id);"
	"CREATE TABLE kpbrowse.reports("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" content_hash text NOT NULL UNIQUE,"
	" incident_id text UNIQUE,"
	" size bigint NOT NULL,"
	" format text, timestamp text,"
	" ts bigint NOT NULL,"
	" os_version text COLLATE \"C\", kernel_uuid text, headline text,"
	" exact_key text NOT NULL,"
	" group_id bigint NOT NULL REFERENCES kpbrowse.groups(id),"
	" indexed_at bigint NOT NULL,"
	" host text COLLATE \"C\", host_key text COLLATE \"C\", model text);"
	"CREATE INDEX reports_group ON kpbrowse.reports(group_id, ts DESC, id DESC);"
	"CREATE INDEX reports_ts ON kpbrowse.reports(ts DESC, id DESC);"
	"CREATE INDEX reports_host ON kpbrowse.reports(host);"
	"CREATE INDEX reports_host_key ON kpbrowse.reports(lower(host_key));"
	"CREATE INDEX reports_ident ON kpbrowse.reports((coalesce(host_key, host, '')), ts DESC);"
	"CREATE TABLE kpbrowse.archives("
	" report_id bigint PRIMARY KEY REFERENCES kpbrowse.reports(id),"
	" data bytea NOT NULL);"
	"CREATE TABLE kpbrowse.paths("
	" host text NOT NULL,"
	" path text COLLATE \"C\" NOT NULL,"
	" report_id bigint REFERENCES kpbrowse.reports(id),"
	" size bigint NOT NULL, mtime bigint NOT NULL, seen_at bigint NOT NULL,"
	" skip_reason text,"
	" PRIMARY KEY(host, path));"
	"CREATE INDEX paths_report ON kpbrowse.paths(report_id, seen_at DESC, path);"
	"CREATE TABLE kpbrowse.images("
	" report_id bigint NOT NULL REFERENCES kpbrowse.reports(id),"
	" rank int NOT NULL,"
	" uuid_hex text COLLATE \"C\" NOT NULL,"
	" name text NOT NULL,"
	" live boolean NOT NULL DEFAULT true,"   /* false: replaced (the writer has no DELETE) */
	" PRIMARY KEY(report_id, rank, uuid_hex, name));"
	"CREATE INDEX images_uuid ON kpbrowse.images(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE INDEX images_name ON kpbrowse.images(lower(name)) WHERE name <> '';"
	"CREATE TABLE kpbrowse.panic_text("
	" report_id bigint PRIMARY KEY REFERENCES kpbrowse.reports(id),"
	" body tsvector NOT NULL);"
	"CREATE INDEX panic_text_body ON kpbrowse.panic_text USING gin(body);"
	"CREATE TABLE kpbrowse.group_hosts("
	" group_id bigint NOT NULL REFERENCES kpbrowse.groups(id),"
	" ident text NOT NULL,"
	" PRIMARY KEY(group_id, ident));"
	"INSERT INTO kpbrowse.meta VALUES ('application', 'kpbrowse'), ('text_search', 'postgresql');";

/* A report's ts when it has a date, else NULL (min/max leave it out). */
#define DATED_TS "CASE WHEN ts > " KPI__UNDATED_SQL " THEN ts END"

/* v4 (as the sqlite store's): kind and suspect zone of every report, an
 * undated report's ts KPI__UNDATED; rows stored before are filled from
 * their archives (kpi__fill_v4) in the same transaction. */
static const char schema_v4[] =
	"ALTER TABLE kpbrowse.reports ADD COLUMN kind text, ADD COLUMN zone text;"
	"CREATE INDEX reports_zone ON kpbrowse.reports(lower(zone)) WHERE zone IS NOT NULL;"
	"UPDATE kpbrowse.reports SET ts = " KPI__UNDATED_SQL " WHERE timestamp IS NULL;"
	"UPDATE kpbrowse.groups g SET first_seen = s.f, last_seen = s.l FROM (SELECT group_id, "
	"min(" DATED_TS ") AS f, max(" DATED_TS ") AS l FROM kpbrowse.reports GROUP BY group_id) s "
	"WHERE g.id = s.group_id;"
	/* a group without a dated report has no last seen: listed after the
	 * others, as sqlite orders NULLs */
	"DROP INDEX kpbrowse.groups_order;"
	"CREATE INDEX groups_order ON kpbrowse.groups(count DESC, last_seen DESC NULLS LAST, id);";

/* v5: UUID matches counted from the index alone (a search's total): the
 * report id in the key, only live rows (every query asks for those). */
static const char schema_v5[] =
	"CREATE INDEX IF NOT EXISTS images_uuid_report ON kpbrowse.images(uuid_hex, report_id) "
	"WHERE uuid_hex <> '' AND live;"
	"DROP INDEX IF EXISTS kpbrowse.images_uuid;";

/* v6 (as the sqlite store's): a bundle id's last part indexed for K and
 * search --kext without a dot. */
static const char schema_v6[] =
	"CREATE INDEX IF NOT EXISTS images_last ON kpbrowse.images(lower(" KPI__LAST_PART_SQL("name") ")) "
	"WHERE name <> '' AND live;";

/* migrations[v] takes the schema from version v to the next; the store
 * starts at 3, so versions 0..2 are "no schema yet" and go to 3 at once. */
static const char *const migrations[] = {NULL, NULL, schema_v3, schema_v4, schema_v5, schema_v6};

_Static_assert(sizeof migrations / sizeof migrations[0] == KPI_SCHEMA_VERSION,
               "one migration per schema version");

/* The schema version: 0 when there is no kpbrowse schema; -1 (err set)
 * when there is one that is not ours or cannot be read. */
static int schema_version(kpi__pg *db, kp_error *err)
{
	PGresult *r = run(db, "SELECT to_regclass('kpbrowse.meta') IS NOT NULL, "
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
	r = run(db, "SELECT (SELECT value FROM kpbrowse.meta WHERE key = 'application'), "
	            "(SELECT value FROM kpbrowse.meta WHERE key = 'schema_version')",
	        NULL, PGRES_TUPLES_OK, err, "reading the schema version");
	if (!r)
		return -1;
	const char *app = val(r, 0, 0), *v = val(r, 0, 1);
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

/* db init: creates or migrates under a transaction-scoped advisory lock,
 * so two inits at once do the work once. */
static kp_status migrate(kpi__pg *db, kp_error *err)
{
	kp_status st = run_cmd(db, "BEGIN", NULL, err, "starting the migration");
	if (st != KP_OK)
		return st;
	/* "kpbx" as in the sqlite store's application_id */
	PGresult *r = st == KP_OK ? run(db, "SELECT pg_advisory_xact_lock(1802531448)", NULL,
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
	for (; st == KP_OK && v < KPI_SCHEMA_VERSION; v++) {
		if (!migrations[v])
			continue;
		PGresult *m = PQexec(db->conn, migrations[v]);
		if (PQresultStatus(m) != PGRES_COMMAND_OK)
			st = pg_fail(db, m, err, "creating the schema");
		PQclear(m);
		if (st == KP_OK && v == 3)
			st = kpi__fill_v4(&db->base, err);
	}
	if (st == KP_OK) {
		params p = {0};
		p_int(&p, KPI_SCHEMA_VERSION);
		st = run_cmd(db, "INSERT INTO kpbrowse.meta VALUES ('schema_version', $1) "
		                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		             &p, err, "setting the schema version");
	}
	if (st == KP_OK)
		return run_cmd(db, "COMMIT", NULL, err, "committing the migration");
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
	free(db);
}

kp_status kpi__pg_open(const char *target, unsigned flags, kpi_db **out, kp_error *err)
{
	*out = NULL;
	kpi__pg *db = calloc(1, sizeof *db);
	if (!db)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	kpi_target_display(target, db->display, sizeof db->display);
	/* the target is libpq's own string, expanded as a dbname (URI or
	 * key=value); kpbrowse only names itself unless the target does */
	const char *const keys[] = {"dbname", "fallback_application_name", NULL};
	const char *const vals[] = {target, "kpbrowse", NULL};
	db->conn = PQconnectdbParams(keys, vals, 1);
	if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
		char m[400];
		one_line(db->conn ? PQerrorMessage(db->conn) : "out of memory", m, sizeof m);
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
	db->base.ops = &pg_ops; /* the v4 fill reads and writes through them */
	if (v < 0) {
		st = KP_ERR_DB;
	} else if (v > KPI_SCHEMA_VERSION) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1,
		                  "%s: index schema version %d is newer than this kpbrowse (%d)",
		                  db->display, v, KPI_SCHEMA_VERSION);
	} else if (v < KPI_SCHEMA_VERSION) {
		if (flags & KPI_OPEN_INIT)
			st = migrate(db, err);
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
	return run_cmd(PG(h), "BEGIN", NULL, err, "starting a transaction");
}

static kp_status pg_commit(kpi_db *h, kp_error *err)
{
	kpi__pg *db = PG(h);
	PGresult *r = run(db, "COMMIT", NULL, PGRES_COMMAND_OK, err, "committing");
	if (!r)
		return KP_ERR_DB;
	/* COMMIT of a failed transaction "succeeds" as ROLLBACK */
	bool ok = strcmp(PQcmdStatus(r), "COMMIT") == 0;
	PQclear(r);
	return ok ? KP_OK : kp_error_set(err, KP_ERR_DB, 0, -1, "%s: the transaction was rolled back",
	                                 db->display);
}

static void pg_rollback(kpi_db *h)
{
	if (PQstatus(PG(h)->conn) == CONNECTION_OK)
		PQclear(PQexec(PG(h)->conn, "ROLLBACK"));
}

/* ---- paths ---- */

static kp_status pg_path_get(kpi_db *h, const char *path, kpi__path_rec *out, kp_error *err)
{
	kpi__pg *db = PG(h);
	memset(out, 0, sizeof *out);
	params p = {0};
	p_text(&p, h->host);
	p_text(&p, path);
	PGresult *r = run(db, "SELECT report_id, size, mtime FROM kpbrowse.paths "
	                      "WHERE host = $1 AND path = $2", &p, PGRES_TUPLES_OK, err,
	                  "looking up a path");
	if (!r)
		return KP_ERR_DB;
	if (PQntuples(r) == 1) {
		out->known = true;
		out->report_id = val_int(r, 0, 0);
		out->size = val_int(r, 0, 1);
		out->mtime_ns = val_int(r, 0, 2);
	}
	PQclear(r);
	return KP_OK;
}

static kp_status pg_path_put(kpi_db *h, const char *path, int64_t report_id, int64_t size,
                             int64_t mtime_ns, int64_t seen_at, const char *skip, kp_error *err)
{
	params p = {0};
	p_text(&p, h->host);
	p_text(&p, path);
	if (report_id > 0)
		p_int(&p, report_id);
	else
		p_text(&p, NULL);
	p_int(&p, size);
	p_int(&p, mtime_ns);
	p_int(&p, seen_at);
	p_text(&p, skip);
	return run_cmd(PG(h), "INSERT INTO kpbrowse.paths(host, path, report_id, size, mtime, seen_at, skip_reason) "
	                      "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (host, path) DO UPDATE SET "
	                      "report_id = excluded.report_id, size = excluded.size, mtime = excluded.mtime, "
	                      "seen_at = excluded.seen_at, skip_reason = excluded.skip_reason",
	               &p, err, "recording a path");
}

static kp_status pg_report_paths(kpi_db *h, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err)
{
	params p = {0};
	p_int(&p, id);
	PGresult *r = run(PG(h), "SELECT path FROM kpbrowse.paths WHERE report_id = $1 "
	                         "ORDER BY seen_at DESC, path", &p, PGRES_TUPLES_OK, err, "listing paths");
	if (!r)
		return KP_ERR_DB;
	for (int i = 0; i < PQntuples(r); i++)
		if (fn(ctx, PQgetvalue(r, i, 0)))
			break;
	PQclear(r);
	return KP_OK;
}

/* ---- reports ---- */

static kp_status pg_report_find(kpi_db *h, const char *hash, const char *incident, int64_t *id,
                                kp_error *err)
{
	*id = 0;
	params p = {0};
	p_text(&p, hash ? hash : incident);
	PGresult *r = run(PG(h), hash ? "SELECT id FROM kpbrowse.reports WHERE content_hash = $1"
	                              : "SELECT id FROM kpbrowse.reports WHERE incident_id = $1",
	                  &p, PGRES_TUPLES_OK, err, "looking up a report");
	if (!r)
		return KP_ERR_DB;
	if (PQntuples(r) == 1)
		*id = val_int(r, 0, 0);
	PQclear(r);
	return KP_OK;
}

/* Images in statements of up to IMG_CHUNK rows: ($1, $2, $3, $4), ($1, $5, ...). */
#define IMG_CHUNK 200

static int cmp_image(const void *a, const void *b)
{
	const kpi__image *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	int c = strcmp(x->uuid_hex, y->uuid_hex);
	return c ? c : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Records images (live), each once: one statement may not name a row twice. */
static kp_status add_images(kpi__pg *db, int64_t id, const kpi__image *given, size_t ngiven,
                            kp_error *err)
{
	kpi__image *im = malloc((ngiven ? ngiven : 1) * sizeof *im);
	if (!im)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (ngiven)
		memcpy(im, given, ngiven * sizeof *im);
	qsort(im, ngiven, sizeof *im, cmp_image);
	size_t n = 0;
	for (size_t i = 0; i < ngiven; i++)
		if (!n || cmp_image(&im[n - 1], &im[i]) != 0)
			im[n++] = im[i];
	char idbuf[24];
	snprintf(idbuf, sizeof idbuf, "%" PRId64, id);
	kp_status st = KP_OK;
	for (size_t at = 0; at < n && st == KP_OK; at += IMG_CHUNK) {
		size_t k = n - at < IMG_CHUNK ? n - at : IMG_CHUNK;
		char *sql = malloc(128 + k * 40);
		const char **v = malloc((1 + 3 * k) * sizeof *v);
		char (*rank)[12] = malloc(k * sizeof *rank);
		if (!sql || !v || !rank) {
			free(sql);
			free(v);
			free(rank);
			free(im);
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
		size_t o = (size_t)sprintf(sql, "INSERT INTO kpbrowse.images(report_id, rank, uuid_hex, name) VALUES ");
		v[0] = idbuf;
		for (size_t i = 0; i < k; i++) {
			int b = 2 + 3 * (int)i;
			o += (size_t)sprintf(sql + o, "%s($1, $%d::int, $%d, $%d)", i ? ", " : "", b, b + 1, b + 2);
			snprintf(rank[i], sizeof rank[i], "%d", im[at + i].rank);
			v[1 + 3 * i] = rank[i];
			v[2 + 3 * i] = im[at + i].uuid_hex;
			v[3 + 3 * i] = im[at + i].name ? im[at + i].name : "";
		}
		strcpy(sql + o, " ON CONFLICT (report_id, rank, uuid_hex, name) DO UPDATE SET live = true");
		PGresult *r = PQexecParams(db->conn, sql, (int)(1 + 3 * k), NULL, v, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			st = pg_fail(db, r, err, "recording images");
		PQclear(r);
		free(sql);
		free(v);
		free(rank);
	}
	free(im);
	return st;
}

/* A report's 15 columns as $1..$15, in the order of kpbrowse.reports'
 * INSERT and UPDATE below. */
static void report_params(params *p, const kpi__new_report *r)
{
	p_text(p, r->content_hash);
	p_text(p, r->incident_id);
	p_int(p, r->size);
	p_text(p, r->format);
	p_text(p, r->timestamp);
	p_int(p, r->ts);
	p_text(p, r->os_version);
	p_text(p, r->kernel_uuid);
	p_text(p, r->headline);
	p_text(p, r->exact_key);
	p_int(p, r->group_id);
	p_int(p, r->indexed_at);
	p_text(p, r->host);
	p_text(p, r->host_key);
	p_text(p, r->model);
}

/* kind and zone as $n, $n+1 after report_params' 15 (and any others). */
static void report_facts_params(params *p, const kpi__new_report *r)
{
	p_text(p, r->kind);
	p_text(p, r->zone);
}

/* $6 (ts) when the report is dated, else NULL (least/greatest skip it). */
#define DATED_P6 "(CASE WHEN $6::bigint > " KPI__UNDATED_SQL " THEN $6::bigint END)"

static kp_status pg_report_add(kpi_db *h, const kpi__new_report *r, int64_t *id, bool *added,
                               kp_error *err)
{
	kpi__pg *db = PG(h);
	*added = false;
	*id = 0;
	params p = {0};
	report_params(&p, r);
	p_text(&p, r->text);
	p_text(&p, r->host_key ? r->host_key : r->host ? r->host : "");
	report_facts_params(&p, r);
	/* One statement: the report, its text, and its group's counts (count,
	 * first and last seen, and the host when it is new to the group), in
	 * the lock order of the file's comment. */
	PGresult *res = run(db, "WITH r AS (INSERT INTO kpbrowse.reports(content_hash, incident_id, size, "
	                        "format, timestamp, ts, os_version, kernel_uuid, headline, exact_key, group_id, "
	                        "indexed_at, host, host_key, model, kind, zone) VALUES ($1, $2, $3, $4, $5, $6, $7, "
	                        "$8, $9, $10, $11, $12, $13, $14, $15, $18, $19) ON CONFLICT DO NOTHING RETURNING id), "
	                        "t AS (INSERT INTO kpbrowse.panic_text(report_id, body) "
	                        "SELECT id, to_tsvector('simple', $16::text) FROM r WHERE $16::text IS NOT NULL), "
	                        "h AS (INSERT INTO kpbrowse.group_hosts(group_id, ident) SELECT $11, $17 FROM r "
	                        "ON CONFLICT DO NOTHING RETURNING 1), "
	                        "g AS (UPDATE kpbrowse.groups SET count = count + 1, "
	                        "hosts = hosts + (SELECT count(*) FROM h), first_seen = least(first_seen, " DATED_P6 "), "
	                        "last_seen = greatest(last_seen, " DATED_P6 ") WHERE id = $11 AND EXISTS (SELECT 1 FROM r)) "
	                        "SELECT id FROM r",
	                    &p, PGRES_TUPLES_OK, err, "recording a report");
	if (!res)
		return KP_ERR_DB;
	if (PQntuples(res) == 1)
		*id = val_int(res, 0, 0);
	PQclear(res);
	if (!*id) {
		/* stored before, or by another writer who committed while we
		 * waited on its key: a new statement sees it */
		kp_status st = pg_report_find(h, r->content_hash, NULL, id, err);
		if (st == KP_OK && !*id && r->incident_id)
			st = pg_report_find(h, NULL, r->incident_id, id, err);
		if (st == KP_OK && !*id)
			st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: a report vanished while recording it",
			                  db->display);
		return st;
	}
	*added = true;
	return add_images(db, *id, r->images, r->nimages, err);
}

/* Supersede in place (kpi_store.h).  No DELETE: the old images are marked
 * not live and the new ones (re)marked live; text and archive are
 * overwritten.  old_text is not needed (the tsvector is a column). */
static kp_status pg_report_replace(kpi_db *h, int64_t id, const kpi__new_report *r,
                                   const char *old_text, const void *z, size_t zlen, kp_error *err)
{
	kpi__pg *db = PG(h);
	(void)old_text;
	params p = {0};
	report_params(&p, r);
	p_int(&p, id);
	report_facts_params(&p, r);
	PGresult *res = run(db, "UPDATE kpbrowse.reports SET content_hash = $1, incident_id = $2, size = $3, "
	                        "format = $4, timestamp = $5, ts = $6, os_version = $7, kernel_uuid = $8, "
	                        "headline = $9, exact_key = $10, group_id = $11, indexed_at = $12, host = $13, "
	                        "host_key = $14, model = $15, kind = $17, zone = $18 WHERE id = $16",
	                    &p, PGRES_COMMAND_OK, err, "replacing a report");
	if (!res)
		return KP_ERR_DB;
	bool found = strcmp(PQcmdTuples(res), "1") == 0;
	PQclear(res);
	if (!found)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	params q = {0};
	p_int(&q, id);
	kp_status st = run_cmd(db, "UPDATE kpbrowse.images SET live = false WHERE report_id = $1", &q,
	                       err, "replacing images");
	if (st == KP_OK)
		st = add_images(db, id, r->images, r->nimages, err);
	if (st == KP_OK) {
		params t = {0};
		p_int(&t, id);
		p_text(&t, r->text ? r->text : "");
		st = run_cmd(db, "INSERT INTO kpbrowse.panic_text(report_id, body) VALUES ($1, "
		                 "to_tsvector('simple', $2)) ON CONFLICT (report_id) DO UPDATE SET body = excluded.body",
		             &t, err, "replacing the panic text");
	}
	if (st == KP_OK) {
		params a = {0};
		p_int(&a, id);
		p_bin(&a, z, zlen);
		st = run_cmd(db, "INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $2) "
		                 "ON CONFLICT (report_id) DO UPDATE SET data = excluded.data", &a, err,
		             "replacing an archive");
	}
	return st;
}

static kp_status pg_archive_add(kpi_db *h, int64_t id, const void *z, size_t zlen, kp_error *err)
{
	params p = {0};
	p_int(&p, id);
	p_bin(&p, z, zlen);
	return run_cmd(PG(h), "INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $2) "
	                      "ON CONFLICT DO NOTHING", &p, err, "archiving a report");
}

static kp_status pg_archive_get(kpi_db *h, int64_t id, kpi__archive *out, kp_error *err)
{
	kpi__pg *db = PG(h);
	memset(out, 0, sizeof *out);
	params p = {0};
	p_int(&p, id);
	/* binary results: the bytea comes back as its bytes */
	PGresult *r = PQexecParams(db->conn, "SELECT r.size, r.content_hash, a.data, r.group_id, "
	                                     "a.report_id IS NOT NULL FROM kpbrowse.reports r LEFT JOIN "
	                                     "kpbrowse.archives a ON a.report_id = r.id WHERE r.id = $1::bigint",
	                           p.n, NULL, p.v, NULL, NULL, 1);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		kp_status st = pg_fail(db, r, err, "reading the archive");
		PQclear(r);
		return st;
	}
	if (PQntuples(r) != 1) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	}
	/* int8 in network order */
	const unsigned char *b = (const unsigned char *)PQgetvalue(r, 0, 0);
	uint64_t u = 0;
	for (int i = 0; i < 8 && PQgetlength(r, 0, 0) == 8; i++)
		u = u << 8 | b[i];
	out->size = (int64_t)u;
	snprintf(out->hash, sizeof out->hash, "%.*s", PQgetlength(r, 0, 1), PQgetvalue(r, 0, 1));
	b = (const unsigned char *)PQgetvalue(r, 0, 3);
	u = 0;
	for (int i = 0; i < 8 && PQgetlength(r, 0, 3) == 8; i++)
		u = u << 8 | b[i];
	out->group_id = (int64_t)u;
	if (PQgetlength(r, 0, 4) != 1 || PQgetvalue(r, 0, 4)[0] != 1) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: report @%lld has no archive (the index is damaged)", db->display,
		                    (long long)id);
	}
	int blen = PQgetlength(r, 0, 2);
	out->z = malloc(blen > 0 ? (size_t)blen : 1);
	if (out->z && blen > 0)
		memcpy(out->z, PQgetvalue(r, 0, 2), (size_t)blen);
	out->zlen = blen > 0 ? (size_t)blen : 0;
	PQclear(r);
	return out->z ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

static kp_status pg_report_ids(kpi_db *h, int64_t **out, size_t *nout, kp_error *err)
{
	*out = NULL;
	*nout = 0;
	PGresult *r = run(PG(h), "SELECT id FROM kpbrowse.reports ORDER BY id", NULL, PGRES_TUPLES_OK,
	                  err, "listing reports");
	if (!r)
		return KP_ERR_DB;
	int n = PQntuples(r);
	int64_t *ids = malloc((n ? (size_t)n : 1) * sizeof *ids);
	if (!ids) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	for (int i = 0; i < n; i++)
		ids[i] = val_int(r, i, 0);
	PQclear(r);
	*out = ids;
	*nout = (size_t)n;
	return KP_OK;
}

static kp_status pg_report_regroup(kpi_db *h, int64_t id, const char *headline,
                                   const char *exact_key, int64_t gid, kp_error *err)
{
	params p = {0};
	p_int(&p, id);
	p_text(&p, headline);
	p_text(&p, exact_key);
	p_int(&p, gid);
	return run_cmd(PG(h), "UPDATE kpbrowse.reports SET headline = $2, exact_key = $3, group_id = $4 "
	                      "WHERE id = $1", &p, err, "updating a report");
}

static kp_status pg_report_facts(kpi_db *h, int64_t id, const kpi__facts *f, kp_error *err)
{
	params p = {0};
	p_int(&p, id);
	p_text(&p, f->kind);
	p_text(&p, f->zone);
	p_int(&p, f->ts);
	return run_cmd(PG(h), "UPDATE kpbrowse.reports SET kind = $2, zone = $3, ts = $4 WHERE id = $1",
	               &p, err, "updating a report");
}

/* ---- groups ---- */

static kp_status pg_group_add(kpi_db *h, const char *key, const char *title, const char *culprit,
                              bool retitle, int64_t *gid, kp_error *err)
{
	kpi__pg *db = PG(h);
	*gid = 0;
	params k = {0};
	p_text(&k, key);
	/* Looked up first only so that an existing group costs no identity
	 * value (ids then match the sqlite store's); the insert below is what
	 * settles a race, and the second look sees its winner. */
	for (int pass = 0; pass < 2 && !*gid; pass++) {
		PGresult *r = run(db, "SELECT id FROM kpbrowse.groups WHERE key = $1", &k, PGRES_TUPLES_OK,
		                  err, "finding a group");
		if (!r)
			return KP_ERR_DB;
		if (PQntuples(r) == 1)
			*gid = val_int(r, 0, 0);
		PQclear(r);
		if (*gid || pass)
			break;
		params p = {0};
		p_text(&p, key);
		p_text(&p, title);
		p_text(&p, culprit);
		if (!(r = run(db, "INSERT INTO kpbrowse.groups(key, title, culprit) VALUES ($1, $2, $3) "
		                  "ON CONFLICT (key) DO NOTHING RETURNING id", &p, PGRES_TUPLES_OK, err,
		              "recording a group")))
			return KP_ERR_DB;
		if (PQntuples(r) == 1)
			*gid = val_int(r, 0, 0);
		PQclear(r);
	}
	if (!*gid)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: finding a group: not found", db->display);
	if (!retitle)
		return KP_OK;
	params t = {0};
	p_int(&t, *gid);
	p_text(&t, title);
	p_text(&t, culprit);
	return run_cmd(db, "UPDATE kpbrowse.groups SET title = $2, culprit = $3 WHERE id = $1", &t, err,
	               "updating a group");
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A full recount (re-signing): in ascending id order, the order every
 * writer locks group rows in. */
static kp_status pg_groups_refresh(kpi_db *h, const int64_t *gids, size_t n, kp_error *err)
{
	kpi__pg *db = PG(h);
	if (!n)
		return KP_OK;
	int64_t *v = malloc(n * sizeof *v);
	if (!v)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(v, gids, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_id);
	kp_status st = KP_OK;
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		params p = {0};
		p_int(&p, v[i]);
		st = run_cmd(db, "INSERT INTO kpbrowse.group_hosts(group_id, ident) "
		                 "SELECT DISTINCT group_id, coalesce(host_key, host, '') FROM kpbrowse.reports "
		                 "WHERE group_id = $1 ON CONFLICT DO NOTHING", &p, err, "counting hosts");
		if (st == KP_OK)
			st = run_cmd(db, "UPDATE kpbrowse.groups g SET count = s.c, hosts = s.h, "
			                 "first_seen = s.f, last_seen = s.l FROM (SELECT count(*) AS c, "
			                 "count(DISTINCT coalesce(host_key, host, '')) AS h, min(" DATED_TS ") AS f, "
			                 "max(" DATED_TS ") AS l FROM kpbrowse.reports WHERE group_id = $1) s WHERE g.id = $1",
			             &p, err, "updating group counts");
	}
	free(v);
	return st;
}

static kp_status pg_groups_prune(kpi_db *h, kp_error *err)
{
	(void)h;
	(void)err; /* no DELETE for the writer: empty groups stay, unlisted */
	return KP_OK;
}

/* ---- queries ---- */

#define ROW_COLS \
	"r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, 1, "
#define ROW_TAIL \
	", (SELECT path FROM kpbrowse.paths p WHERE p.report_id = r.id ORDER BY p.seen_at DESC, " \
	"p.path LIMIT 1), r.host, r.host_key, r.kind"

static void uuid_pretty(const char *hex, char out[37])
{
	if (!hex || strlen(hex) != 32 || !kp_uuid_canon(hex, 32, out))
		out[0] = '\0';
}

/* Row i of a report-row result (columns: id, seq, timestamp, os_version,
 * headline, group_id, group count, archived, match uuid, name, rank, path,
 * host, host key, kind); m (filled when not NULL) and uuid (37 bytes) are
 * the caller's, lent to the row. */
static kpi_report_row report_row(const PGresult *r, int i, kpi_match *m, char *uuid)
{
	if (m) {
		uuid_pretty(val(r, i, 8), uuid);
		*m = (kpi_match){uuid[0] ? uuid : NULL, val(r, i, 9), kpi__role_name((int)val_int(r, i, 10))};
	}
	return (kpi_report_row){
		.id = val_int(r, i, 0),
		.seq = val_int(r, i, 1),
		.path = val(r, i, 11),
		.timestamp = val(r, i, 2),
		.os_version = val(r, i, 3),
		.headline = val(r, i, 4),
		.group_id = val_int(r, i, 5),
		.group_count = val_int(r, i, 6),
		.archived = val_int(r, i, 7) != 0,
		.host = val(r, i, 12),
		.host_key = val(r, i, 13),
		.kind = val(r, i, 14),
		.match = m,
	};
}

/* Rows as in the sqlite store's run_rows: one call per report (later rows
 * of the same report are its weaker matches). */
static kp_status run_rows(kpi__pg *db, const char *sql, const params *p, bool with_match,
                          kpi_report_fn fn, void *ctx, size_t *nfound, kp_error *err)
{
	PGresult *r = run(db, sql, p, PGRES_TUPLES_OK, err, "querying");
	if (nfound)
		*nfound = 0;
	if (!r)
		return KP_ERR_DB;
	size_t n = 0;
	int64_t last = -1;
	for (int i = 0; i < PQntuples(r); i++) {
		int64_t id = val_int(r, i, 0);
		if (id == last)
			continue;
		last = id;
		char uuid[37];
		kpi_match m;
		kpi_report_row row = report_row(r, i, with_match ? &m : NULL, uuid);
		n++;
		if (fn && fn(ctx, &row))
			break;
	}
	PQclear(r);
	if (nfound)
		*nfound = n;
	return KP_OK;
}

static kp_status pg_list_reports(kpi_db *h, const char *host, kpi_report_fn fn, void *ctx,
                                 kp_error *err)
{
	if (!host)
		return run_rows(PG(h), "SELECT " ROW_COLS "NULL, NULL, NULL" ROW_TAIL " FROM kpbrowse.reports r "
		                       "JOIN kpbrowse.groups g ON g.id = r.group_id ORDER BY r.ts DESC, r.id DESC",
		                NULL, false, fn, ctx, NULL, err);
	params p = {0};
	p_text(&p, host);
	return run_rows(PG(h), "SELECT " ROW_COLS "NULL, NULL, NULL" ROW_TAIL " FROM kpbrowse.reports r "
	                       "JOIN kpbrowse.groups g ON g.id = r.group_id "
	                       "WHERE r.host = $1 OR lower(r.host_key) = lower($1) "
	                       "ORDER BY r.ts DESC, r.id DESC",
	                &p, false, fn, ctx, NULL, err);
}

static void time_of(const PGresult *r, int row, int col, char out[32])
{
	out[0] = '\0';
	if (!PQgetisnull(r, row, col))
		kpi__iso_time(val_int(r, row, col), out);
}

/* with_ids: every group's report ids too (column 7) */
static kp_status list_groups(kpi_db *h, bool with_ids, kpi_group_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = run(PG(h), with_ids
	                  ? "SELECT g.id, g.title, g.culprit, g.count, g.first_seen, g.last_seen, "
	                    "g.hosts, array(SELECT id FROM kpbrowse.reports WHERE group_id = g.id "
	                    "ORDER BY ts DESC, id DESC) FROM kpbrowse.groups g "
	                    "WHERE g.count > 0 ORDER BY g.count DESC, g.last_seen DESC NULLS LAST, g.id"
	                  : "SELECT g.id, g.title, g.culprit, g.count, g.first_seen, g.last_seen, "
	                    "g.hosts, NULL FROM kpbrowse.groups g "
	                    "WHERE g.count > 0 ORDER BY g.count DESC, g.last_seen DESC NULLS LAST, g.id",
	                  NULL, PGRES_TUPLES_OK, err, "listing groups");
	if (!r)
		return KP_ERR_DB;
	kp_status st = KP_OK;
	for (int i = 0; i < PQntuples(r) && st == KP_OK; i++) {
		kpi_group_row g = {
			.group_id = val_int(r, i, 0),
			.title = val(r, i, 1),
			.culprit = val(r, i, 2),
			.count = val_int(r, i, 3),
			.hosts = val_int(r, i, 6),
		};
		char first[32], last[32];
		time_of(r, i, 4, first);
		time_of(r, i, 5, last);
		g.first_seen = first[0] ? first : NULL;
		g.last_seen = last[0] ? last : NULL;
		int64_t *ids = NULL;
		size_t n = 0, cap = 0;
		/* "{3,2,1}" */
		for (const char *s = val(r, i, 7); s && *s;) {
			if (*s == '{' || *s == ',') {
				s++;
				continue;
			}
			char *end;
			int64_t id = strtoll(s, &end, 10);
			if (end == s)
				break;
			int64_t *slot = kp_vec_push((void **)&ids, &n, &cap, sizeof *ids);
			if (!slot) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			*slot = id;
			s = end;
		}
		g.report_ids = ids;
		g.nreport_ids = n;
		int stop = st == KP_OK && fn ? fn(ctx, &g) : 0;
		free(ids);
		if (stop)
			break;
	}
	PQclear(r);
	return st;
}

static kp_status pg_list_groups(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, true, fn, ctx, err);
}

static kp_status pg_list_group_counts(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, false, fn, ctx, err);
}

static kp_status pg_list_hosts(kpi_db *h, kpi_host_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = run(PG(h),
	                  "SELECT (SELECT host FROM kpbrowse.reports x WHERE x.id = h.last_id), h.key, "
	                  "(SELECT model FROM kpbrowse.reports x WHERE x.id = h.model_id), h.builds, h.n, h.last "
	                  "FROM (SELECT coalesce(host_key, host, '') AS ident, max(host_key) AS key, count(*) AS n, "
	                  "max(" DATED_TS ") AS last, max(id) AS last_id, max(id) FILTER (WHERE model IS NOT NULL) AS model_id, "
	                  "string_agg(DISTINCT os_version, E'\\n' ORDER BY os_version) AS builds "
	                  "FROM kpbrowse.reports GROUP BY 1) h ORDER BY h.last DESC NULLS LAST, h.ident",
	                  NULL, PGRES_TUPLES_OK, err, "listing hosts");
	if (!r)
		return KP_ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		char last[32];
		time_of(r, i, 5, last);
		kpi_host_row row = {
			.host = val(r, i, 0),
			.host_key = val(r, i, 1),
			.model = val(r, i, 2),
			.builds = val(r, i, 3),
			.reports = val_int(r, i, 4),
			.last_seen = last[0] ? last : NULL,
		};
		if (fn && fn(ctx, &row))
			break;
	}
	PQclear(r);
	return KP_OK;
}

/* ---- pages ---- */

/* Rows of a page query (run_rows' columns, then r.ts as column 15): one
 * per report already; sets page's rows, done and cursor. */
static kp_status run_page(kpi__pg *db, const char *sql, const params *p, bool with_match,
                          kpi_page *page, kpi_report_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = run(db, sql, p, PGRES_TUPLES_OK, err, "querying");
	if (!r)
		return KP_ERR_DB;
	int n = PQntuples(r), take = page->limit && (size_t)n > page->limit ? (int)page->limit : n;
	page->done = take == n;
	for (int i = 0; i < take; i++) {
		char uuid[37];
		kpi_match m;
		kpi_report_row row = report_row(r, i, with_match ? &m : NULL, uuid);
		page->after_ts = val_int(r, i, 15);
		page->after_id = row.id;
		page->rows++;
		if (fn && fn(ctx, &row)) {
			page->done = page->done && i == take - 1;
			break;
		}
	}
	PQclear(r);
	return KP_OK;
}

/* The first statement's value, a count. */
static kp_status count_of(kpi__pg *db, const char *sql, const params *p, size_t *out, kp_error *err)
{
	PGresult *r = run(db, sql, p, PGRES_TUPLES_OK, err, "counting");
	if (!r)
		return KP_ERR_DB;
	*out = PQntuples(r) == 1 ? (size_t)val_int(r, 0, 0) : 0;
	PQclear(r);
	return KP_OK;
}

/* The keyset and the limit as $n.. of p: (ts, id) to continue after (the
 * largest for the first page) and one row more than the page, to know
 * whether another follows (NULL: no limit). */
static void page_params(params *p, const kpi_page *page)
{
	p_int(p, page->after_id > 0 ? page->after_ts : INT64_MAX);
	p_int(p, page->after_id > 0 ? page->after_id : INT64_MAX);
	if (page->limit)
		p_int(p, (int64_t)page->limit + 1);
	else
		p_text(p, NULL);
}

/* A page's rows: the reports the filter selects, each with its best match
 * (MATCH: a lateral subquery over images as m, or nothing and NULLs), after
 * the keyset (ts, id) $K, $K+1 with the limit $K+2 (KEYSET(K)). */
#define PAGE_SQL(MATCH_COLS, MATCH, FILTER, KEYSET) \
	"SELECT " ROW_COLS MATCH_COLS ROW_TAIL ", r.ts FROM kpbrowse.reports r " \
	"JOIN kpbrowse.groups g ON g.id = r.group_id " MATCH " WHERE " FILTER KEYSET
#define KEYSET(A, B, L) \
	" AND (r.ts, r.id) < ($" A "::bigint, $" B "::bigint) ORDER BY r.ts DESC, r.id DESC LIMIT $" L "::bigint"
#define BEST_IMAGE(COND) \
	"CROSS JOIN LATERAL (SELECT i.uuid_hex, i.name, i.rank FROM kpbrowse.images i " \
	"WHERE i.report_id = r.id AND " COND " AND i.live ORDER BY i.rank, i.uuid_hex, i.name LIMIT 1) m"
#define UUID_COND "i.uuid_hex BETWEEN $1 AND $2 AND i.uuid_hex <> ''"
#define KEXT_COND "lower(i.name) = lower($1) AND i.name <> ''"
/* a bundle id's last part, through images_last (schema 6) */
#define KEXT_LAST_COND "i.name <> '' AND lower(" KPI__LAST_PART_SQL("i.name") ") = lower($1)"
#define ZONE_COND "lower(r.zone) = lower($1)"

static kp_status pg_search_page(kpi_db *h, kpi__search kind, const char *arg, kpi_page *page,
                                kpi_report_fn fn, void *ctx, kp_error *err)
{
	kpi__pg *db = PG(h);
	page->rows = 0;
	params p = {0};
	char lo[33], hi[33];   /* bound: live until the queries ran */
	if (kind == KPI__SEARCH_UUID) {
		kpi__uuid_range(arg, lo, hi);
		p_text(&p, lo);
		p_text(&p, hi);
	} else {
		p_text(&p, arg);
	}
	kp_status st = KP_OK;
	if (page->after_id <= 0)
		st = count_of(db, kind == KPI__SEARCH_UUID
		                      ? "SELECT count(DISTINCT i.report_id) FROM kpbrowse.images i WHERE "
		                        UUID_COND " AND i.live"
		                  : kind == KPI__SEARCH_KEXT
		                      ? "SELECT count(DISTINCT i.report_id) FROM kpbrowse.images i WHERE "
		                        KEXT_COND " AND i.live"
		                  : kind == KPI__SEARCH_KEXT_LAST
		                      ? "SELECT count(DISTINCT i.report_id) FROM kpbrowse.images i WHERE "
		                        KEXT_LAST_COND " AND i.live"
		                  : kind == KPI__SEARCH_ZONE
		                      ? "SELECT count(*) FROM kpbrowse.reports r WHERE " ZONE_COND
		                      : "SELECT count(*) FROM kpbrowse.panic_text t "
		                        "WHERE t.body @@ plainto_tsquery('simple', $1)",
		              &p, &page->total, err);
	if (st != KP_OK)
		return st;
	page_params(&p, page);
	/* Many matches, a page of few: walking reports newest first (each
	 * checked by its best match) finds the page after about limit x
	 * reports / total rows, whatever the planner's statistics say (a big
	 * push leaves them stale for a while); else the matches, sorted. */
	bool walk = page->limit && page->total && (kind == KPI__SEARCH_UUID || kind == KPI__SEARCH_KEXT);
	size_t nreports = 0;
	if (walk && (st = count_of(db, "SELECT max(id) FROM kpbrowse.reports", NULL, &nreports, err)) != KP_OK)
		return st;
	if (walk && (double)page->limit * (double)nreports < (double)page->total * (double)page->total)
		return run_page(db, kind == KPI__SEARCH_UUID
		                        ? PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(UUID_COND), "true",
		                                   KEYSET("3", "4", "5"))
		                        : PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_COND), "true",
		                                   KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	switch (kind) {
	case KPI__SEARCH_UUID:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(UUID_COND),
		                             "r.id IN (SELECT i.report_id FROM kpbrowse.images i WHERE "
		                             UUID_COND " AND i.live)", KEYSET("3", "4", "5")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_COND),
		                             "r.id IN (SELECT i.report_id FROM kpbrowse.images i WHERE "
		                             KEXT_COND " AND i.live)", KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT_LAST:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_LAST_COND),
		                             "r.id IN (SELECT i.report_id FROM kpbrowse.images i WHERE "
		                             KEXT_LAST_COND " AND i.live)", KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_ZONE:
		return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", ZONE_COND, KEYSET("2", "3", "4")),
		                &p, false, page, fn, ctx, err);
	case KPI__SEARCH_TEXT:
		break;
	}
	/* PostgreSQL's own full-text search, as pg_search */
	return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", "r.id IN (SELECT t.report_id FROM "
	                             "kpbrowse.panic_text t WHERE t.body @@ plainto_tsquery('simple', $1))",
	                             KEYSET("2", "3", "4")),
	                &p, false, page, fn, ctx, err);
}

static kp_status pg_list_page(kpi_db *h, kpi_page *page, kpi_report_fn fn, void *ctx,
                              kp_error *err)
{
	kpi__pg *db = PG(h);
	page->rows = 0;
	if (page->after_id <= 0) {
		kp_status st = count_of(db, "SELECT count(*) FROM kpbrowse.reports", NULL, &page->total, err);
		if (st != KP_OK)
			return st;
	}
	params p = {0};
	page_params(&p, page);
	return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", "true", KEYSET("1", "2", "3")), &p, false,
	                page, fn, ctx, err);
}

/* ---- meta ---- */

static kp_status pg_meta_get(kpi_db *h, const char *key, char **value, kp_error *err)
{
	*value = NULL;
	params p = {0};
	p_text(&p, key);
	PGresult *r = run(PG(h), "SELECT value FROM kpbrowse.meta WHERE key = $1", &p, PGRES_TUPLES_OK,
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
	params p = {0};
	p_text(&p, key);
	p_text(&p, value ? value : "");
	/* one statement: its own transaction */
	return run_cmd(PG(h), "INSERT INTO kpbrowse.meta(key, value) VALUES ($1, $2) "
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
	.path_get = pg_path_get,
	.path_put = pg_path_put,
	.report_paths = pg_report_paths,
	.report_find = pg_report_find,
	.report_add = pg_report_add,
	.archive_add = pg_archive_add,
	.report_replace = pg_report_replace,
	.archive_get = pg_archive_get,
	.report_ids = pg_report_ids,
	.report_regroup = pg_report_regroup,
	.report_facts = pg_report_facts,
	.group_add = pg_group_add,
	.groups_refresh = pg_groups_refresh,
	.groups_prune = pg_groups_prune,
	.list_reports = pg_list_reports,
	.list_groups = pg_list_groups,
	.list_group_counts = pg_list_group_counts,
	.list_hosts = pg_list_hosts,
	.search_page = pg_search_page,
	.list_page = pg_list_page,
	.meta_get = pg_meta_get,
	.meta_set = pg_meta_set,
};
