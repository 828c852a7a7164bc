/* index.c: opening, schema and migrations, statements, the archive. */
#include "index_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* "kpbx": marks a database as ours before any of our tables are read. */
#define KPI_APPLICATION_ID 0x6B706278

#define BUSY_TIMEOUT_MS 30000

/* Values are only ever bound, never spliced into SQL text. */
/* A report row's most recently seen path, for the report-row queries. */
#define RECENT_PATH \
	"(SELECT path FROM paths p WHERE p.report_id = r.id ORDER BY p.seen_at DESC, p.path LIMIT 1)"

static const char *const sql_text[Q_COUNT] = {
	[Q_BEGIN] = "BEGIN IMMEDIATE",
	[Q_COMMIT] = "COMMIT",
	[Q_ROLLBACK] = "ROLLBACK",
	[Q_PATH_GET] = "SELECT report_id, size, mtime, skip_reason FROM paths WHERE path = ?1",
	[Q_PATH_PUT] = "INSERT INTO paths(path, report_id, size, mtime, seen_at, skip_reason) "
	               "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(path) DO UPDATE SET "
	               "report_id = excluded.report_id, size = excluded.size, mtime = excluded.mtime, "
	               "seen_at = excluded.seen_at, skip_reason = excluded.skip_reason",
	[Q_REPORT_BY_HASH] = "SELECT id FROM reports WHERE content_hash = ?1",
	[Q_REPORT_BY_INCIDENT] = "SELECT id FROM reports WHERE incident_id = ?1",
	[Q_REPORT_INSERT] = "INSERT INTO reports(content_hash, incident_id, size, format, timestamp, ts, "
	                    "os_version, kernel_uuid, headline, exact_key, group_id, indexed_at) "
	                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[Q_ARCHIVE_INSERT] = "INSERT INTO archives(report_id, data) VALUES (?1, ?2)",
	[Q_GROUP_INSERT] = "INSERT INTO groups(key, title, culprit) VALUES (?1, ?2, ?3) "
	                   "ON CONFLICT(key) DO NOTHING",
	[Q_GROUP_GET] = "SELECT id FROM groups WHERE key = ?1",
	[Q_GROUP_REFRESH] = "UPDATE groups SET "
	                    "count = (SELECT count(*) FROM reports WHERE group_id = groups.id), "
	                    "first_seen = (SELECT min(ts) FROM reports WHERE group_id = groups.id), "
	                    "last_seen = (SELECT max(ts) FROM reports WHERE group_id = groups.id) "
	                    "WHERE id = ?1",
	[Q_GROUP_DELETE_EMPTY] = "DELETE FROM groups WHERE NOT EXISTS "
	                         "(SELECT 1 FROM reports WHERE group_id = groups.id)",
	[Q_IMAGE_INSERT] = "INSERT OR IGNORE INTO images(report_id, uuid_hex, name, rank) "
	                   "VALUES (?1, ?2, ?3, ?4)",
	[Q_FTS_INSERT] = NULL, /* depends on the text search mode, see stmt_text */
	[Q_REPORT_ARCHIVE] = "SELECT size, content_hash, a.data, group_id, "
	                     "(SELECT path FROM paths WHERE report_id = reports.id "
	                     "ORDER BY seen_at DESC, path LIMIT 1) FROM reports "
	                     "JOIN archives a ON a.report_id = reports.id WHERE id = ?1",
	[Q_REPORT_IDS] = "SELECT id FROM reports ORDER BY id",
	[Q_REPORT_RESIGN] = "UPDATE reports SET headline = ?2, exact_key = ?3, group_id = ?4 WHERE id = ?1",
	[Q_GROUP_SET_TITLE] = "UPDATE groups SET title = ?2, culprit = ?3 WHERE id = ?1",
	[Q_GROUP_ALL_IDS] = "SELECT id FROM groups",
	[Q_LIST_REPORTS] = "SELECT r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                   "1, NULL, NULL, NULL, " RECENT_PATH " FROM reports r "
	                   "JOIN groups g ON g.id = r.group_id ORDER BY r.ts DESC, r.id DESC",
	[Q_LIST_GROUPS] = "SELECT id, title, culprit, count, first_seen, last_seen FROM groups "
	                  "ORDER BY count DESC, last_seen DESC, id",
	[Q_GROUP_MEMBERS] = "SELECT id FROM reports WHERE group_id = ?1 ORDER BY ts DESC, id DESC",
	[Q_REPORT_PATHS] = "SELECT path FROM paths WHERE report_id = ?1 ORDER BY seen_at DESC, path",
	[Q_SEARCH_UUID] = "SELECT r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                  "1, i.uuid_hex, i.name, i.rank, " RECENT_PATH " FROM images i "
	                  "JOIN reports r ON r.id = i.report_id JOIN groups g ON g.id = r.group_id "
	                  "WHERE i.uuid_hex BETWEEN ?1 AND ?2 AND i.uuid_hex <> '' ORDER BY r.ts DESC, r.id DESC, i.rank",
	[Q_SEARCH_KEXT] = "SELECT r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                  "1, i.uuid_hex, i.name, i.rank, " RECENT_PATH " FROM images i "
	                  "JOIN reports r ON r.id = i.report_id JOIN groups g ON g.id = r.group_id "
	                  "WHERE i.name = ?1 COLLATE NOCASE AND i.name <> '' ORDER BY r.ts DESC, r.id DESC, i.rank",
	[Q_SEARCH_FTS] = "SELECT r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                 "1, NULL, NULL, NULL, " RECENT_PATH " FROM panic_fts f "
	                 "JOIN reports r ON r.id = f.rowid JOIN groups g ON g.id = r.group_id "
	                 "WHERE panic_fts MATCH ?1 ORDER BY r.ts DESC, r.id DESC",
	[Q_SEARCH_LIKE] = "SELECT r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                  "1, NULL, NULL, NULL, " RECENT_PATH " FROM panic_text t "
	                  "JOIN reports r ON r.id = t.report_id JOIN groups g ON g.id = r.group_id "
	                  "WHERE t.body LIKE '%' || ?1 || '%' ESCAPE '\\' ORDER BY r.ts DESC, r.id DESC",
};

/* ---- schema ---- */

static const char schema_v1[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE groups("
	" id INTEGER PRIMARY KEY,"
	" key TEXT NOT NULL UNIQUE,"          /* hex SHA-1 group key */
	" title TEXT NOT NULL,"
	" culprit TEXT,"
	" count INTEGER NOT NULL DEFAULT 0,"
	" first_seen INTEGER, last_seen INTEGER);" /* epoch seconds */
	"CREATE TABLE reports("
	" id INTEGER PRIMARY KEY,"
	" content_hash TEXT NOT NULL UNIQUE," /* hex SHA-1 of the original bytes */
	" incident_id TEXT UNIQUE,"
	" size INTEGER NOT NULL,"
	" format TEXT,"
	" timestamp TEXT,"                    /* as the report wrote it */
	" ts INTEGER NOT NULL,"               /* epoch seconds: report time, else file mtime */
	" os_version TEXT,"
	" kernel_uuid TEXT,"
	" headline TEXT,"                     /* as the report says it */
	" exact_key TEXT NOT NULL,"
	" group_id INTEGER NOT NULL REFERENCES groups(id),"
	" indexed_at INTEGER NOT NULL,"
	" archive BLOB NOT NULL);"            /* v1 only: moved to archives by v2 */
	"CREATE INDEX reports_group ON reports(group_id, ts);"
	"CREATE INDEX reports_ts ON reports(ts);"
	"CREATE INDEX reports_exact ON reports(exact_key);"
	"CREATE TABLE paths("
	" path TEXT PRIMARY KEY,"
	" report_id INTEGER REFERENCES reports(id)," /* NULL: skipped, see skip_reason */
	" size INTEGER NOT NULL,"
	" mtime INTEGER NOT NULL,"            /* nanoseconds */
	" seen_at INTEGER NOT NULL,"
	" skip_reason TEXT) WITHOUT ROWID;"
	"CREATE INDEX paths_report ON paths(report_id);"
	"CREATE TABLE images("
	" report_id INTEGER NOT NULL REFERENCES reports(id),"
	" rank INTEGER NOT NULL,"             /* role: 0 kernel, 1 backtrace, 2 image, 3 dependency */
	" uuid_hex TEXT NOT NULL,"            /* 32 upper-case hex digits, '' when unknown */
	" name TEXT NOT NULL,"                /* '' when unknown */
	" PRIMARY KEY(report_id, rank, uuid_hex, name)) WITHOUT ROWID;"
	"CREATE INDEX images_uuid ON images(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE INDEX images_name ON images(name COLLATE NOCASE) WHERE name <> '';";

static const char fts_v1[] = "CREATE VIRTUAL TABLE panic_fts USING fts5(body, content='');"
                             "INSERT INTO meta VALUES ('text_search', 'fts5');";
static const char like_v1[] = "CREATE TABLE panic_text(report_id INTEGER PRIMARY KEY, body TEXT);"
                              "INSERT INTO meta VALUES ('text_search', 'like');";

static kp_status exec_sql(kpi_db *db, const char *sql, kp_error *err, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kp_error_set(err, KP_ERR_DB, 0, -1, "%s: %s: %s", db->path, what, msg ? msg : "?");
		sqlite3_free(msg);
		return KP_ERR_DB;
	}
	return KP_OK;
}

static bool sqlite_has_fts5(sqlite3 *h)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h, "CREATE VIRTUAL TABLE temp.kpi_fts_probe USING fts5(x);"
	                         "DROP TABLE temp.kpi_fts_probe;", NULL, NULL, &msg);
	sqlite3_free(msg);
	return rc == SQLITE_OK;
}

static kp_status migrate_v1(kpi_db *db, kp_error *err)
{
	kp_status st = exec_sql(db, schema_v1, err, "creating the schema");
	if (st == KP_OK)
		st = exec_sql(db, sqlite_has_fts5(db->db) ? fts_v1 : like_v1, err, "creating text search");
	return st;
}

/* v2: the original bytes (zlib-compressed) move to a table of their own, so
 * that listing reports never pages through them.  DROP COLUMN needs sqlite
 * 3.35 (macOS 12 ships 3.36). */
static const char schema_v2[] =
	"CREATE TABLE archives("
	" report_id INTEGER PRIMARY KEY REFERENCES reports(id),"
	" data BLOB NOT NULL);"
	"INSERT INTO archives(report_id, data) SELECT id, archive FROM reports;"
	"ALTER TABLE reports DROP COLUMN archive;";

static kp_status migrate_v2(kpi_db *db, kp_error *err)
{
	return exec_sql(db, schema_v2, err, "moving the archives (schema v2)");
}

/* migrations[i] takes a database from user_version i to i + 1. */
static kp_status (*const migrations[])(kpi_db *, kp_error *) = {
	migrate_v1,
	migrate_v2,
};

_Static_assert(sizeof migrations / sizeof migrations[0] == KPI_SCHEMA_VERSION,
               "one migration per schema version");

static int pragma_int(kpi_db *db, const char *sql, int *out)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

static kp_status migrate(kpi_db *db, kp_error *err)
{
	kp_status st = exec_sql(db, "BEGIN IMMEDIATE", err, "locking for migration");
	if (st != KP_OK)
		return st;
	int uv = 0, app = 0, nobj = 0;
	if (pragma_int(db, "PRAGMA user_version", &uv) != SQLITE_OK ||
	    pragma_int(db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &nobj) != SQLITE_OK) {
		st = idx_dberr(db, err, "reading the schema version");
		goto fail;
	}
	/* re-checked under the lock: another process may have created it */
	if (!(app == KPI_APPLICATION_ID || (app == 0 && uv == 0 && nobj == 0))) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index; refusing to touch it",
		                  db->path);
		goto fail;
	}
	for (int v = uv; v < KPI_SCHEMA_VERSION; v++)
		if ((st = migrations[v](db, err)) != KP_OK)
			goto fail;
	if (uv < KPI_SCHEMA_VERSION) {
		char sql[96];
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
		         KPI_APPLICATION_ID, KPI_SCHEMA_VERSION);
		if ((st = exec_sql(db, sql, err, "setting the schema version")) != KP_OK)
			goto fail;
	}
	return exec_sql(db, "COMMIT", err, "committing the migration");
fail:
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return st;
}

/* ---- opening ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Looks at the file header before sqlite opens it: only an SQLite file
 * that is ours (application_id), or has no id and no schema yet, passes. */
static kp_status check_header(const char *path, kp_error *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: cannot open: %s", path, strerror(errno));
	unsigned char h[100];
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n == 0)
		return KP_OK; /* an empty file: sqlite makes it a new database */
	if (n < (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: not a kpbrowse index (not an SQLite database); refusing to touch it",
		                    path);
	uint32_t app = be32(h + 68), uv = be32(h + 60);
	if (app != 0 && app != KPI_APPLICATION_ID)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: an SQLite database of another program, not a kpbrowse index; "
		                    "refusing to touch it", path);
	if (app == KPI_APPLICATION_ID && uv > KPI_SCHEMA_VERSION)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: index schema version %u is newer than this kpbrowse (%d)", path,
		                    (unsigned)uv, KPI_SCHEMA_VERSION);
	return KP_OK;
}

/* WAL is persistent, so only a new file needs switching.  Switching takes a
 * lock that sqlite does not wait for through the busy handler (two processes
 * creating the index at once get SQLITE_BUSY at once): retry for as long as
 * the busy timeout. */
static kp_status set_wal(kpi_db *db, kp_error *err)
{
	sqlite3_stmt *q;
	bool wal = false;
	if (sqlite3_prepare_v2(db->db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW) {
			const char *m = (const char *)sqlite3_column_text(q, 0);
			wal = m && strcmp(m, "wal") == 0;
		}
		sqlite3_finalize(q);
	}
	for (int waited = 0; !wal; waited += 20) {
		int rc = sqlite3_exec(db->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			break;
		if ((rc & 0xff) != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
			return exec_sql(db, "PRAGMA journal_mode = WAL", err, "setting WAL mode");
		struct timespec ts = {0, 20 * 1000000L};
		nanosleep(&ts, NULL);
	}
	return exec_sql(db, "PRAGMA synchronous = NORMAL", err, "setting WAL mode");
}

kp_status kpi_open(const char *path, unsigned flags, kpi_db **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	if (!path || !*path)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty database path");
	struct stat st;
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	kp_status s;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", path, strerror(errno));
		if (!(flags & KPI_OPEN_CREATE))
			return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1,
			                    "%s: no index yet (run 'kpbrowse index')", path);
		if ((s = kp_fs_mkdirs_for(path, 0755, err)) != KP_OK)
			return s;
		oflags |= SQLITE_OPEN_CREATE;
	} else if (!S_ISREG(st.st_mode)) {
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a regular file", path);
	} else if ((s = check_header(path, err)) != KP_OK) {
		return s;
	}

	kpi_db *db = calloc(1, sizeof *db);
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	if (sqlite3_open_v2(path, &db->db, oflags, NULL) != SQLITE_OK) {
		s = idx_dberr(db, err, "cannot open");
		kpi_close(&db);
		return s;
	}
	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_timeout(db->db, BUSY_TIMEOUT_MS);

	int uv = 0, app = 0, nobj = 0;
	if (pragma_int(db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    pragma_int(db, "PRAGMA user_version", &uv) != SQLITE_OK ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &nobj) != SQLITE_OK) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index or corrupt: %s", path,
		                 sqlite3_errmsg(db->db));
		kpi_close(&db);
		return s;
	}
	if (!(app == KPI_APPLICATION_ID || (app == 0 && uv == 0 && nobj == 0))) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index; refusing to touch it",
		                 path);
		kpi_close(&db);
		return s;
	}
	if (uv > KPI_SCHEMA_VERSION) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: index schema version %d is newer than this kpbrowse (%d)",
		                 path, uv, KPI_SCHEMA_VERSION);
		kpi_close(&db);
		return s;
	}
	/* Only now that the file is known to be ours (or empty) may it change. */
	if ((s = set_wal(db, err)) != KP_OK ||
	    (uv < KPI_SCHEMA_VERSION && (s = migrate(db, err)) != KP_OK)) {
		kpi_close(&db);
		return s;
	}
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = 'text_search'", -1, &q,
	                       NULL) != SQLITE_OK) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index or corrupt: %s", path,
		                 sqlite3_errmsg(db->db));
		kpi_close(&db);
		return s;
	}
	if (sqlite3_step(q) == SQLITE_ROW)
		db->fts = strcmp((const char *)sqlite3_column_text(q, 0), "fts5") == 0;
	sqlite3_finalize(q);
	idx_note_own_files(db);
	*out = db;
	return KP_OK;
}

void kpi_close(kpi_db **dbp)
{
	if (!dbp || !*dbp)
		return;
	kpi_db *db = *dbp;
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(db->stmt[i]);
	if (db->db)
		sqlite3_close(db->db);
	free(db->path);
	free(db);
	*dbp = NULL;
}

bool kpi_has_fts(const kpi_db *db)
{
	return db->fts;
}

void idx_note_own_files(kpi_db *db)
{
	static const char *const suffix[3] = {"", "-wal", "-shm"};
	size_t n = strlen(db->path);
	char *p = malloc(n + 5);
	if (!p)
		return;
	db->nown = 0;
	for (int i = 0; i < 3; i++) {
		struct stat st;
		memcpy(p, db->path, n);
		strcpy(p + n, suffix[i]);
		if (stat(p, &st) == 0) {
			db->own_dev[db->nown] = st.st_dev;
			db->own_ino[db->nown] = st.st_ino;
			db->nown++;
		}
	}
	free(p);
}

kp_status kpi_default_path(const char *explicit_path, char *buf, size_t size, kp_error *err)
{
	const char *e = explicit_path && *explicit_path ? explicit_path : getenv("KPBROWSE_DB");
	int n;
	if (e && *e) {
		n = snprintf(buf, size, "%s", e);
	} else {
		const char *home = getenv("HOME");
		if (!home || !*home) {
			struct passwd *pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
#ifdef __APPLE__
		if (!home)
			return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no home directory: use --db PATH");
		n = snprintf(buf, size, "%s/Library/Application Support/kpbrowse/index.sqlite3", home);
#else
		const char *xdg = getenv("XDG_DATA_HOME");
		if (xdg && xdg[0] == '/')
			n = snprintf(buf, size, "%s/kpbrowse/index.sqlite3", xdg);
		else if (home)
			n = snprintf(buf, size, "%s/.local/share/kpbrowse/index.sqlite3", home);
		else
			return kp_error_set(err, KP_ERR_USAGE, 0, -1, "no home directory: use --db PATH");
#endif
	}
	if (n < 0 || (size_t)n >= size)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "database path too long");
	return KP_OK;
}

/* ---- statements ---- */

static const char *stmt_text(const kpi_db *db, idx_sql q)
{
	if (q == Q_FTS_INSERT)
		return db->fts ? "INSERT INTO panic_fts(rowid, body) VALUES (?1, ?2)"
		               : "INSERT OR REPLACE INTO panic_text(report_id, body) VALUES (?1, ?2)";
	return sql_text[q];
}

sqlite3_stmt *idx_stmt(kpi_db *db, idx_sql q, kp_error *err)
{
	sqlite3_stmt *s = db->stmt[q];
	if (!s) {
		if (sqlite3_prepare_v3(db->db, stmt_text(db, q), -1, SQLITE_PREPARE_PERSISTENT, &s,
		                       NULL) != SQLITE_OK) {
			idx_dberr(db, err, "preparing a statement");
			return NULL;
		}
		db->stmt[q] = s;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

kp_status idx_dberr(kpi_db *db, kp_error *err, const char *what)
{
	return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: %s: %s", db->path, what,
	                    db->db ? sqlite3_errmsg(db->db) : "out of memory");
}

kp_status idx_exec(kpi_db *db, idx_sql q, kp_error *err)
{
	sqlite3_stmt *s = idx_stmt(db, q, err);
	if (!s)
		return KP_ERR_DB;
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return idx_dberr(db, err, q == Q_BEGIN ? "cannot lock the index" : "statement failed");
	return KP_OK;
}

/* ---- time ---- */

static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

bool idx_parse_time(const char *ts, int64_t *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (!ts)
		return false;
	while (*ts == ' ')
		ts++;
	int y, mo, d, h, mi, s, n = 0;
	int64_t off = 0;
	if (sscanf(ts, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) == 6) {
		const char *p = ts + n;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		while (*p == ' ')
			p++;
		int oh, om;
		if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d%2d", &oh, &om) == 2)
			off = (*p == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
	} else {
		char wd[4], mon[4];
		if (sscanf(ts, "%3s %3s %d %d:%d:%d %d", wd, mon, &d, &h, &mi, &s, &y) != 7)
			return false;
		const char *m = strstr(months, mon);
		if (!m || strlen(mon) != 3 || (m - months) % 3)
			return false;
		mo = (int)(m - months) / 3 + 1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - off;
	return true;
}

/* ---- archive ---- */

char *idx_archive_bytes(kpi_db *db, int64_t id, size_t *len, kp_error *err)
{
	sqlite3_stmt *s = idx_stmt(db, Q_REPORT_ARCHIVE, err);
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index", (long long)id);
		else
			idx_dberr(db, err, "reading the archive");
		sqlite3_reset(s);
		return NULL;
	}
	sqlite3_int64 size = sqlite3_column_int64(s, 0);
	const void *blob = sqlite3_column_blob(s, 2);
	int blen = sqlite3_column_bytes(s, 2);
	char want[41];
	snprintf(want, sizeof want, "%s", (const char *)sqlite3_column_text(s, 1));
	char *buf = size >= 0 && (uint64_t)size <= KP_REPORT_MAX_SIZE ? malloc((size_t)size + 1) : NULL;
	if (!buf) {
		sqlite3_reset(s);
		kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		return NULL;
	}
	uLongf out = (uLongf)size;
	int zr = uncompress((Bytef *)buf, &out, blob, (uLong)blen);
	sqlite3_reset(s);
	char got[41];
	if (zr == Z_OK)
		kp_sha1_hex(buf, (size_t)out, got);
	if (zr != Z_OK || out != (uLongf)size || strcmp(got, want) != 0) {
		free(buf);
		kp_error_set(err, KP_ERR_DB, 0, -1, "%s: the archive of report @%lld is damaged", db->path,
		             (long long)id);
		return NULL;
	}
	buf[size] = '\0';
	*len = (size_t)size;
	return buf;
}

kp_status kpi_load(kpi_db *db, int64_t id, kp_report **out, kp_error *err)
{
	*out = NULL;
	kp_error_clear(err);
	size_t len;
	char *bytes = idx_archive_bytes(db, id, &len, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	char name[64];
	snprintf(name, sizeof name, "@%lld", (long long)id);
	char *path = NULL;
	sqlite3_stmt *s = idx_stmt(db, Q_REPORT_PATHS, err);
	if (s) {
		sqlite3_bind_int64(s, 1, id);
		if (sqlite3_step(s) == SQLITE_ROW)
			path = strdup((const char *)sqlite3_column_text(s, 0));
		sqlite3_reset(s);
	}
	kp_status st = kp_report_parse(bytes, len, path ? path : name, out, err);
	free(path);
	free(bytes);
	return st;
}

kp_status kpi_export(kpi_db *db, int64_t id, const char *path, kp_error *err)
{
	kp_error_clear(err);
	size_t len;
	char *bytes = idx_archive_bytes(db, id, &len, err);
	if (!bytes)
		return err ? err->code : KP_ERR_DB;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		kp_status st = kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", path,
		                            errno == EEXIST ? "exists; not overwriting it" : strerror(errno));
		free(bytes);
		return st;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, bytes + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	int e = errno;
	bool ok = done == len && fsync(fd) == 0;
	if (!ok && done == len)
		e = errno;
	ok = close(fd) == 0 && ok;
	free(bytes);
	if (!ok) {
		unlink(path);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: write failed: %s", path, strerror(e));
	}
	return KP_OK;
}

bool kpi_parse_id(const char *s, int64_t *id)
{
	if (!s)
		return false;
	if (*s == '@')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	int64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*id = v;
	return true;
}

/* ---- images ---- */

const char *idx_role_name(int rank)
{
	static const char *const names[] = {"kernel", "backtrace", "image", "dependency"};
	return rank >= 0 && rank < 4 ? names[rank] : "image";
}

static void uuid_hex(const char *uuid, char out[33])
{
	char c[37];
	out[0] = '\0';
	if (!uuid || !kp_uuid_canon(uuid, strlen(uuid), c))
		return;
	int j = 0;
	for (int i = 0; c[i]; i++)
		if (c[i] != '-')
			out[j++] = c[i];
	out[j] = '\0';
}

static kp_status put_image(kpi_db *db, int64_t id, const char *uuid, const char *name,
                           const char *role, int rank, kp_error *err)
{
	(void)role; /* stored as its rank, see idx_role_name */
	char hex[33];
	uuid_hex(uuid, hex);
	if (!hex[0] && !(name && *name))
		return KP_OK;
	sqlite3_stmt *s = idx_stmt(db, Q_IMAGE_INSERT, err);
	if (!s)
		return KP_ERR_DB;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, hex, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 3, name ? name : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, rank);
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? KP_OK : idx_dberr(db, err, "recording images");
}

kp_status idx_put_images(kpi_db *db, int64_t id, const kp_report *r, kp_error *err)
{
	kp_status st = KP_OK;
	bool *in_bt = r->nimages ? calloc(r->nimages, 1) : NULL;
	if (r->nimages && !in_bt)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	const kp_thread *t = kp_report_panicked_thread(r, NULL);
	for (size_t i = 0; t && i < t->nframes; i++)
		if (t->frames[i].image >= 0 && (size_t)t->frames[i].image < r->nimages)
			in_bt[t->frames[i].image] = true;
	if (r->kernel_uuid)
		st = put_image(db, id, r->kernel_uuid, "kernel", "kernel", 0, err);
	for (size_t i = 0; st == KP_OK && i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		bool kernel = im->kind == 'K' || (im->name && strcmp(im->name, "kernel") == 0) ||
		              (im->uuid && r->kernel_uuid && strcmp(im->uuid, r->kernel_uuid) == 0);
		if (kernel)
			st = put_image(db, id, im->uuid, im->name ? im->name : "kernel", "kernel", 0, err);
		else if (im->in_backtrace || in_bt[i])
			st = put_image(db, id, im->uuid, im->name, "backtrace", 1, err);
		else if (im->is_dependency)
			st = put_image(db, id, im->uuid, im->name, "dependency", 3, err);
		else
			st = put_image(db, id, im->uuid, im->name, "image", 2, err);
	}
	/* Loaded Apple kexts without a UUID are in nearly every report: only
	 * third-party ones (or ones with a UUID) are worth a row. */
	for (size_t i = 0; st == KP_OK && i < r->nkexts; i++)
		if (r->kexts[i].uuid || !kp_sig_is_apple(r->kexts[i].name))
			st = put_image(db, id, r->kexts[i].uuid, r->kexts[i].name, "image", 2, err);
	free(in_bt);
	return st;
}
