/* store_sqlite.c: the sqlite store: opening, its part of the schema steps
 * (schema.c holds the list and their SQL), and
 * statements (store_sqlite_write.c: the write ops and the ops table;
 * store_sqlite_query.c: the read ops). */
#include "store_sqlite.h"
#include "schema.h"
#include "kp_utf8.h"
#include "kp_fs.h"
#include "kp_bytes.h"
#include "kp_vec.h"
#include "kp_strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "kpbx": marks a database as ours before any of our tables are read. */
#define KPI_APPLICATION_ID 0x6B706278

#define BUSY_TIMEOUT_MS 30000
/* How long a reader waits for an empty file to become an index. */
#define EMPTY_WAIT_MS 3000

/* What a damaged index's message ends with. */
#define REBUILD_HINT "'kpbrowse db rebuild' makes it anew from the report folders and its archive"

/* Values are only ever bound, never spliced into SQL text.  Report rows
 * carry their id as seq too: reports are never deleted, so a new rowid is
 * always max + 1 (no AUTOINCREMENT needed) and seq increases as the store
 * contract asks. */
/* A report row's most recently seen path, for the report-row queries. */
#define RECENT_PATH \
	"(SELECT path FROM paths p WHERE p.report_id = r.id ORDER BY p.seen_at DESC, p.path LIMIT 1)"
#define HOST_IDENT KPI__HOST_IDENT_SQL   /* schema.h */
/* The tail of every report-row query: path, host, host key, kind, class. */
#define ROW_TAIL RECENT_PATH ", r.host, r.host_key, r.kind, r.class"
#define DATED_TS KPI__DATED_TS_SQL

/* The page queries' parts (Q_PAGE_*, Q_COUNT_*). */
#define PAGE_SQL(MATCH_COLS, MATCH, FILTER) \
	"SELECT r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, 1, " MATCH_COLS \
	", " ROW_TAIL ", r.ts FROM reports r JOIN groups g ON g.id = r.group_id " MATCH " WHERE " FILTER \
	" AND (r.ts, r.id) < (?3, ?4) ORDER BY r.ts DESC, r.id DESC LIMIT ?5"
/* A search's match: a report's best image row m (lowest rank, then uuid,
 * then name) where its image set (schema 10) holds one, else its first
 * loaded kext (KX, a condition on kexts x; schema 8) as rank 2, "image". */
#define BEST_IMAGE(COND) \
	"LEFT JOIN image_members m ON m.set_id = r.image_set AND (m.rank, m.uuid_hex, m.name) = (SELECT " \
	"i.rank, i.uuid_hex, i.name FROM image_members i WHERE i.set_id = r.image_set AND " COND \
	" ORDER BY i.rank, i.uuid_hex, i.name LIMIT 1)"
#define KSET_OF_R(COL, KX) \
	"(SELECT x." COL " FROM kext_set_members s JOIN kexts x ON x.id = s.kext_id WHERE s.set_id = " \
	"r.kext_set AND " KX " ORDER BY x.uuid_hex, x.name LIMIT 1)"
#define MATCH_COLS(KX) \
	"coalesce(m.uuid_hex, " KSET_OF_R("uuid_hex", KX) "), coalesce(m.name, " KSET_OF_R("name", KX) \
	"), coalesce(m.rank, 2)"
/* the kext sets holding a kext that matches KX, and their reports */
#define KSETS(KX) "(SELECT s.set_id FROM kexts x JOIN kext_set_members s ON s.kext_id = x.id WHERE " KX ")"
#define KSET_IDS(KX) "SELECT kr.id FROM reports kr WHERE kr.kext_set IN " KSETS(KX)
#define UUID_COND "i.uuid_hex BETWEEN ?1 AND ?2 AND i.uuid_hex <> ''"
#define KEXT_COND "i.name = ?1 COLLATE NOCASE AND i.name <> ''"
/* a bundle id's last part, through images_last (schema 6) */
/* an image's last part is a column (schema 9), a kext's the expression */
#define KEXT_LAST_COND "i.name <> '' AND i.last = ?1 COLLATE NOCASE"
#define UUID_KX "x.uuid_hex BETWEEN ?1 AND ?2 AND x.uuid_hex <> ''"
#define KEXT_KX "x.name = ?1 COLLATE NOCASE AND x.name <> ''"
#define KEXT_LAST_KX "x.name <> '' AND " KPI__LAST_PART_SQL("x.name") " = ?1 COLLATE NOCASE"
/* the image sets holding an image that matches COND, and their reports */
#define ISET_IDS(COND) \
	"SELECT ir.id FROM reports ir WHERE ir.image_set IN (SELECT i.set_id FROM image_members i WHERE " \
	COND ")"
#define UNION_IDS(COND, KX) "(" ISET_IDS(COND) " UNION " KSET_IDS(KX) ")"
#define UUID_IDS UNION_IDS(UUID_COND, UUID_KX)
#define KEXT_IDS UNION_IDS(KEXT_COND, KEXT_KX)
#define KEXT_LAST_IDS UNION_IDS(KEXT_LAST_COND, KEXT_LAST_KX)
/* a page walking reports newest first: each one's best image, else its set */
#define SCAN_FILTER(KX) "(m.set_id IS NOT NULL OR r.kext_set IN " KSETS(KX) ")"
#define ZONE_COND "r.zone = ?1 COLLATE NOCASE"
#define FTS_IDS "(SELECT rowid FROM panic_fts WHERE panic_fts MATCH ?1)"
#define LIKE_IDS "(SELECT t.report_id FROM panic_text t WHERE t.body LIKE '%' || ?1 || '%' ESCAPE '\\')"

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
	                    "os_version, kernel_uuid, headline, exact_key, group_id, indexed_at, "
	                    "host, host_key, model, kind, zone, kext_set, image_set, class) "
	                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?17, ?18, ?19, "
	                    "?20, ?21) ON CONFLICT DO NOTHING",
	[Q_REPORT_UPDATE] = "UPDATE reports SET content_hash = ?1, incident_id = ?2, size = ?3, format = ?4, "
	                    "timestamp = ?5, ts = ?6, os_version = ?7, kernel_uuid = ?8, headline = ?9, "
	                    "exact_key = ?10, group_id = ?11, indexed_at = ?12, host = ?13, host_key = ?14, "
	                    "model = ?15, kind = ?17, zone = ?18, kext_set = ?19, image_set = ?20, class = ?21 WHERE id = ?16",
	[Q_FTS_DELETE] = NULL, /* depends on the text search mode, see stmt_text */
	[Q_ARCHIVE_UPDATE] = "INSERT INTO archives(report_id, data) VALUES (?1, ?2) "
	                     "ON CONFLICT(report_id) DO UPDATE SET data = excluded.data",
	[Q_ARCHIVE_INSERT] = "INSERT INTO archives(report_id, data) VALUES (?1, ?2)",
	[Q_GROUP_INSERT] = "INSERT INTO groups(key, title, culprit) VALUES (?1, ?2, ?3) "
	                   "ON CONFLICT(key) DO NOTHING",
	[Q_GROUP_GET] = "SELECT id FROM groups WHERE key = ?1",
	/* a full recount (re-signing, superseding): group_hosts is remade
	 * first (Q_GROUP_HOSTS_CLEAR, _FILL), then counted */
	[Q_GROUP_REFRESH] = "UPDATE groups SET "
	                    "count = (SELECT count(*) FROM reports WHERE group_id = groups.id), "
	                    "first_seen = (SELECT min(" DATED_TS ") FROM reports WHERE group_id = groups.id), "
	                    "last_seen = (SELECT max(" DATED_TS ") FROM reports WHERE group_id = groups.id), "
	                    "hosts = (SELECT count(*) FROM group_hosts WHERE group_id = groups.id) "
	                    "WHERE id = ?1",
	/* the same before schema 7 (a migration's fill at 4): no group_hosts yet */
	[Q_GROUP_REFRESH_V6] = "UPDATE groups SET "
	                       "count = (SELECT count(*) FROM reports WHERE group_id = groups.id), "
	                       "first_seen = (SELECT min(" DATED_TS ") FROM reports WHERE group_id = groups.id), "
	                       "last_seen = (SELECT max(" DATED_TS ") FROM reports WHERE group_id = groups.id), "
	                       "hosts = (SELECT count(DISTINCT " HOST_IDENT ") FROM reports WHERE group_id = groups.id) "
	                       "WHERE id = ?1",
	/* loaded kext sets (schema 8) */
	[Q_KSET_GET] = "SELECT id FROM kext_sets WHERE hash = ?1",
	[Q_KSET_INSERT] = "INSERT INTO kext_sets(hash) VALUES (?1)",
	[Q_KEXT_INSERT] = "INSERT OR IGNORE INTO kexts(name, uuid_hex) VALUES (?1, ?2)",
	[Q_KEXT_GET] = "SELECT id FROM kexts WHERE name = ?1 AND uuid_hex = ?2",
	[Q_KSET_MEMBER] = "INSERT OR IGNORE INTO kext_set_members(kext_id, set_id) VALUES (?1, ?2)",
	[Q_REPORT_KSET] = "UPDATE reports SET kext_set = ?2 WHERE id = ?1",
	[Q_GROUP_HOSTS_CLEAR] = "DELETE FROM group_hosts WHERE group_id = ?1",
	[Q_GROUP_HOSTS_FILL] = "INSERT OR IGNORE INTO group_hosts(group_id, ident) SELECT DISTINCT ?1, "
	                       HOST_IDENT " FROM reports WHERE group_id = ?1",
	/* rows of groups no longer there (ids may be reused) */
	[Q_GROUP_HOSTS_PRUNE] = "DELETE FROM group_hosts WHERE NOT EXISTS "
	                        "(SELECT 1 FROM groups WHERE groups.id = group_hosts.group_id)",
	/* report_add's counts (schema 7), owed and paid by the transaction:
	 * ?1 the group, ?2 its new hosts (idents), ?4 its new reports, ?3 and
	 * ?5 their first and last dated ts (NULL: first/last seen unchanged) */
	[Q_GROUP_HOST_ADD] = "INSERT OR IGNORE INTO group_hosts(group_id, ident) VALUES (?1, ?2)",
	[Q_GROUP_COUNT_ADD] = "UPDATE groups SET count = count + ?4, hosts = hosts + ?2, "
	                      "first_seen = CASE WHEN ?3 IS NULL OR first_seen <= ?3 THEN first_seen ELSE ?3 END, "
	                      "last_seen = CASE WHEN ?5 IS NULL OR last_seen >= ?5 THEN last_seen ELSE ?5 END "
	                      "WHERE id = ?1",
	[Q_GROUP_DELETE_EMPTY] = "DELETE FROM groups WHERE NOT EXISTS "
	                         "(SELECT 1 FROM reports WHERE group_id = groups.id)",
	/* image sets (schema 10); ?5: the name's last part, as
	 * KPI__LAST_PART_SQL makes it (schema 9) */
	[Q_ISET_GET] = "SELECT id FROM image_sets WHERE hash = ?1",
	[Q_ISET_INSERT] = "INSERT INTO image_sets(hash) VALUES (?1)",
	[Q_IMAGE_INSERT] = "INSERT OR IGNORE INTO image_members(set_id, uuid_hex, name, rank, last) "
	                   "VALUES (?1, ?2, ?3, ?4, ?5)",
	[Q_FTS_INSERT] = NULL, /* depends on the text search mode, see stmt_text */
	[Q_REPORT_ARCHIVE] = "SELECT size, content_hash, a.data, group_id, a.report_id IS NOT NULL, host "
	                     "FROM reports LEFT JOIN archives a ON a.report_id = reports.id WHERE id = ?1",
	[Q_REPORT_IDS] = "SELECT id FROM reports ORDER BY id",
	[Q_REPORT_RESIGN] = "UPDATE reports SET headline = ?2, exact_key = ?3, group_id = ?4 WHERE id = ?1",
	[Q_GROUP_SET_TITLE] = "UPDATE groups SET title = ?2, culprit = ?3 WHERE id = ?1",
	[Q_LIST_REPORTS] = "SELECT r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                   "1, NULL, NULL, NULL, " ROW_TAIL " FROM reports r "
	                   "JOIN groups g ON g.id = r.group_id ORDER BY r.ts DESC, r.id DESC",
	[Q_LIST_HOST] = "SELECT r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, "
	                "1, NULL, NULL, NULL, " ROW_TAIL " FROM reports r "
	                "JOIN groups g ON g.id = r.group_id WHERE r.host = ?1 OR r.host_key = ?1 COLLATE NOCASE "
	                "ORDER BY r.ts DESC, r.id DESC",
	/* one pass over reports_ident; a host's latest name and model are
	 * those of its most recently stored report */
	[Q_LIST_HOSTS] = "SELECT (SELECT host FROM reports x WHERE x.id = h.last_id), h.key, "
	                 "(SELECT model FROM reports x WHERE x.id = h.model_id), "
	                 "(SELECT group_concat(v, char(10)) FROM (SELECT DISTINCT os_version AS v FROM reports "
	                 "WHERE " HOST_IDENT " = h.ident AND os_version IS NOT NULL ORDER BY v)), h.n, h.last, "
	                 "(SELECT timestamp FROM reports x WHERE " HOST_IDENT " = h.ident AND x.ts = h.last LIMIT 1) "
	                 "FROM (SELECT " HOST_IDENT " AS ident, max(host_key) AS key, count(*) AS n, "
	                 "max(" DATED_TS ") AS last, max(id) AS last_id, max(CASE WHEN model IS NOT NULL THEN id END) AS model_id "
	                 "FROM reports GROUP BY 1) h ORDER BY h.last DESC, h.ident",
	/* the first and last seen reports' own timestamps beside the epochs:
	 * kpi__seen_time writes them as the reports state them */
	[Q_LIST_GROUPS] = "SELECT id, title, culprit, count, first_seen, last_seen, hosts, "
	                  "(SELECT timestamp FROM reports r WHERE r.group_id = groups.id AND r.ts = first_seen LIMIT 1), "
	                  "(SELECT timestamp FROM reports r WHERE r.group_id = groups.id AND r.ts = last_seen LIMIT 1) "
	                  "FROM groups "
	                  "ORDER BY count DESC, last_seen DESC, id",
	[Q_GROUP_MEMBERS] = "SELECT id FROM reports WHERE group_id = ?1 ORDER BY ts DESC, id DESC",
	[Q_REPORT_PATHS] = "SELECT path FROM paths WHERE report_id = ?1 ORDER BY seen_at DESC, path",
	[Q_META_GET] = "SELECT value FROM meta WHERE key = ?1",
	[Q_META_SET] = "INSERT INTO meta(key, value) VALUES (?1, ?2) "
	               "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
	/* listing without RECENT_PATH and the groups join per row: the paths
	 * (in the table's own order, not through paths_report and a lookup per
	 * path) and the group counts are read in one pass each and matched to
	 * the rows in C (store_sqlite_query.c) */
	[Q_LIST_REPORTS_BARE] = "SELECT r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, "
	                        "NULL, 1, NULL, NULL, NULL, NULL, r.host, r.host_key, r.kind, r.class FROM reports r "
	                        "ORDER BY r.ts DESC, r.id DESC",
	[Q_GROUP_COUNTS] = "SELECT id, count FROM groups",
	/* trend_rows: every report in the table's own order, summed in C
	 * (trend.c): a GROUP BY here sorts 100k rows in a temp b-tree, 6x
	 * the time of the scan (README's benchmarks) */
	[Q_TREND_ROWS] = "SELECT group_id, ts, os_version FROM reports NOT INDEXED",
	[Q_GROUP_SPAN] = "SELECT max(id), (SELECT count(*) FROM groups) FROM groups",
	[Q_REPORT_PATHS_ALL] = "SELECT report_id, seen_at, path FROM paths NOT INDEXED "
	                       "WHERE report_id IS NOT NULL",
	[Q_REPORT_FACTS] = "UPDATE reports SET kind = ?2, zone = ?3, ts = ?4, class = ?5 WHERE id = ?1",
	[Q_REPORT_FACTS_V11] = "UPDATE reports SET kind = ?2, zone = ?3, ts = ?4 WHERE id = ?1",
	[Q_REPORT_REHASH] = "UPDATE reports SET content_hash = ?2 WHERE id = ?1",
	[Q_REPORT_SPAN] = "SELECT max(id), (SELECT count(*) FROM reports) FROM reports", /* count alone: no scan */
	/* pages (kpi_page): ?1 (?2) the search, ?3 ?4 the keyset (ts, id) to
	 * continue after, ?5 the limit (-1: none); one row per report, its
	 * best match joined (lowest rank, then uuid, then name) */
	[Q_PAGE_UUID] = PAGE_SQL(MATCH_COLS(UUID_KX), BEST_IMAGE(UUID_COND), "r.id IN " UUID_IDS),
	[Q_PAGE_KEXT] = PAGE_SQL(MATCH_COLS(KEXT_KX), BEST_IMAGE(KEXT_COND), "r.id IN " KEXT_IDS),
	[Q_PAGE_FTS] = PAGE_SQL("NULL, NULL, NULL", "", "r.id IN " FTS_IDS),
	[Q_PAGE_LIKE] = PAGE_SQL("NULL, NULL, NULL", "", "r.id IN " LIKE_IDS),
	[Q_PAGE_LIST] = PAGE_SQL("NULL, NULL, NULL", "", "1"),
	[Q_COUNT_UUID] = "SELECT count(*) FROM " UUID_IDS,
	[Q_COUNT_KEXT] = "SELECT count(*) FROM " KEXT_IDS,
	[Q_COUNT_FTS] = "SELECT count(*) FROM reports r WHERE r.id IN " FTS_IDS,
	[Q_COUNT_LIKE] = "SELECT count(*) FROM reports r WHERE r.id IN " LIKE_IDS,
	[Q_COUNT_REPORTS] = "SELECT count(*) FROM reports",
	/* when most reports match: newest first through reports_ts, each
	 * checked by its best match (no IN list of every match to sort) */
	[Q_PAGE_UUID_SCAN] = PAGE_SQL(MATCH_COLS(UUID_KX), BEST_IMAGE(UUID_COND), SCAN_FILTER(UUID_KX)),
	[Q_PAGE_KEXT_SCAN] = PAGE_SQL(MATCH_COLS(KEXT_KX), BEST_IMAGE(KEXT_COND), SCAN_FILTER(KEXT_KX)),
	[Q_PAGE_KEXT_LAST] = PAGE_SQL(MATCH_COLS(KEXT_LAST_KX), BEST_IMAGE(KEXT_LAST_COND),
	                              "r.id IN " KEXT_LAST_IDS),
	[Q_PAGE_ZONE] = PAGE_SQL("NULL, NULL, NULL", "", ZONE_COND),
	[Q_COUNT_KEXT_LAST] = "SELECT count(*) FROM " KEXT_LAST_IDS,
	[Q_COUNT_ZONE] = "SELECT count(*) FROM reports r WHERE " ZONE_COND,
};

/* ---- schema (the steps' SQL: schema.c) ---- */

static const char fts_v1[] = "CREATE VIRTUAL TABLE panic_fts USING fts5(body, content='');"
                             "INSERT INTO meta VALUES ('text_search', 'fts5');";
static const char like_v1[] = "CREATE TABLE panic_text(report_id INTEGER PRIMARY KEY, body TEXT);"
                              "INSERT INTO meta VALUES ('text_search', 'like');";

static kp_status exec_sql(kpi__sq *db, const char *sql, kp_error *err, const char *what)
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

/* The sqlite store's own parts of the schema steps (schema.h's list runs
 * their SQL): apply_step runs step `version` whole. */

/* v1, after the list's SQL: the text search, FTS5 where this sqlite has it
 * (contentless), else a plain table searched with LIKE; its kind in meta. */
static kp_status text_search_v1(kpi__sq *db, kp_error *err)
{
	return exec_sql(db, !db->schema_only && sqlite_has_fts5(db->db) ? fts_v1 : like_v1, err,
	                "creating text search");
}

static int pragma_int(kpi__sq *db, const char *sql, int *out);

/* v9, before the list's SQL: the text search's kind, for the fill's
 * inserts, and images.last (there already in an index taken back to an
 * older version by hand, the tests' way of making one). */
static const char schema_v9_last[] = "ALTER TABLE images ADD COLUMN last TEXT NOT NULL DEFAULT '';";

static kp_status last_column_v9(kpi__sq *db, kp_error *err)
{
	sqlite3_stmt *q;
	bool fts = false;
	if (sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = 'text_search'", -1, &q, NULL) !=
	    SQLITE_OK)
		return kpi__sq_err(db, err, "reading the text search mode (schema v9)");
	if (sqlite3_step(q) == SQLITE_ROW)
		fts = strcmp((const char *)sqlite3_column_text(q, 0), "fts5") == 0;
	sqlite3_finalize(q);
	db->fts = fts; /* the fill's inserts go where the text search is */
	int has_last = 0;
	if (pragma_int(db, "SELECT count(*) FROM pragma_table_info('images') WHERE name = 'last'", &has_last) !=
	    SQLITE_OK)
		return kpi__sq_err(db, err, "reading the images table (schema v9)");
	return has_last ? KP_OK : exec_sql(db, schema_v9_last, err, "keeping images' last parts (schema v9)");
}

/* v9, after: the text search emptied (a contentless FTS5 row is deleted
 * by naming its words); the index layer's fill adds every report's again. */
static kp_status empty_text_v9(kpi__sq *db, kp_error *err)
{
	return exec_sql(db, db->fts ? "INSERT INTO panic_fts(panic_fts) VALUES ('delete-all');" : "DELETE FROM panic_text;",
	                err, "emptying the text search (schema v9)");
}

static void free_names(kpi__image *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)v[i].name);
}

/* The image of a row (rank, uuid, name in columns 1-3) pushed on v; false
 * when out of memory.  The migrations that regroup or rekey sets read
 * their members this way. */
static bool push_image_row(sqlite3_stmt *q, kpi__image **v, size_t *n, size_t *cap)
{
	const char *uuid = (const char *)sqlite3_column_text(q, 2);
	const char *name = (const char *)sqlite3_column_text(q, 3);
	char *copy = strdup(name ? name : "");
	kpi__image *e = copy ? kp_vec_push((void **)v, n, cap, sizeof **v) : NULL;
	if (!e) {
		free(copy);
		return false;
	}
	e->name = copy;
	snprintf(e->uuid_hex, sizeof e->uuid_hex, "%s", uuid ? uuid : "");
	e->rank = sqlite3_column_int(q, 1);
	return true;
}

/* One report's rows of the old images table, as a set. */
static kp_status regroup_one(kpi__sq *db, int64_t id, kpi__image *v, size_t n, sqlite3_stmt *upd,
                             kp_error *err)
{
	char hash[KP_SHA256_HEX];
	n = kpi__images_canon(v, n, hash);
	int64_t set;
	kp_status st = kpi__sq_image_set(db, v, n, hash, &set, err);
	if (st != KP_OK)
		return st;
	sqlite3_bind_int64(upd, 1, id);
	sqlite3_bind_int64(upd, 2, set);
	int rc = sqlite3_step(upd);
	sqlite3_reset(upd);
	return rc == SQLITE_DONE ? KP_OK : kpi__sq_err(db, err, "grouping images (schema v10)");
}

/* v10, after the list's SQL: the rows of the old images table grouped
 * into sets, a report at a time, in the table's own order. */
static kp_status regroup_v10(kpi__sq *db, kp_error *err)
{
	kp_status st = KP_OK;
	sqlite3_stmt *q = NULL, *upd = NULL;
	if (sqlite3_prepare_v2(db->db, "SELECT report_id, rank, uuid_hex, name FROM images "
	                       "ORDER BY report_id, rank, uuid_hex, name", -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->db, "UPDATE reports SET image_set = ?2 WHERE id = ?1", -1, &upd, NULL) !=
	        SQLITE_OK) {
		st = kpi__sq_err(db, err, "grouping images (schema v10)");
		goto out;
	}
	kpi__image *v = NULL;
	size_t n = 0, cap = 0;
	int64_t cur = 0;
	int rc = SQLITE_DONE;
	while (st == KP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		if (n && id != cur) {
			st = regroup_one(db, cur, v, n, upd, err);
			free_names(v, n);
			n = 0;
			if (st != KP_OK)
				break;
		}
		cur = id;
		if (!push_image_row(q, &v, &n, &cap)) {
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			break;
		}
	}
	if (st == KP_OK && rc != SQLITE_DONE)
		st = kpi__sq_err(db, err, "grouping images (schema v10)");
	if (st == KP_OK && n)
		st = regroup_one(db, cur, v, n, upd, err);
	free_names(v, n);
	free(v);
	if (st == KP_OK)
		st = exec_sql(db, "DROP TABLE images;", err, "grouping images (schema v10)");
out:
	sqlite3_finalize(q);
	sqlite3_finalize(upd);
	return st;
}

/* v11, after the list's SQL: every image and kext set keyed anew by the
 * SHA-256 of its members (kpi__images_canon, kpi__kexts_canon), read in
 * set order (rows: set, rank, uuid, name), so that a report of a list
 * stored before finds its set.  A key another set holds already (two
 * sets of one list: never made by kpbrowse) stays as it was. */
static kp_status rekey_sets(kpi__sq *db, const char *rows_sql, const char *update_sql,
                            size_t (*canon)(kpi__image *, size_t, char *), kp_error *err)
{
	sqlite3_stmt *q = NULL, *upd = NULL;
	kp_status st = KP_OK;
	if (sqlite3_prepare_v2(db->db, rows_sql, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->db, update_sql, -1, &upd, NULL) != SQLITE_OK) {
		st = kpi__sq_err(db, err, "keying sets by SHA-256 (schema v11)");
		goto out;
	}
	kpi__image *v = NULL;
	size_t n = 0, cap = 0;
	int64_t cur = 0;
	int rc = SQLITE_ROW;
	while (st == KP_OK && rc == SQLITE_ROW) {
		rc = sqlite3_step(q);
		int64_t set = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
		if (n && set != cur) {
			char hash[KP_SHA256_HEX];
			canon(v, n, hash);
			sqlite3_bind_int64(upd, 1, cur);
			sqlite3_bind_text(upd, 2, hash, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(upd) != SQLITE_DONE)
				st = kpi__sq_err(db, err, "keying sets by SHA-256 (schema v11)");
			sqlite3_reset(upd);
			free_names(v, n);
			n = 0;
		}
		if (rc != SQLITE_ROW || st != KP_OK)
			break;
		cur = set;
		if (!push_image_row(q, &v, &n, &cap)) {
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			break;
		}
	}
	if (st == KP_OK && rc != SQLITE_DONE)
		st = kpi__sq_err(db, err, "keying sets by SHA-256 (schema v11)");
	free_names(v, n);
	free(v);
out:
	sqlite3_finalize(q);
	sqlite3_finalize(upd);
	return st;
}

static kp_status rekey_v11(kpi__sq *db, kp_error *err)
{
	kp_status st = rekey_sets(db, "SELECT set_id, rank, uuid_hex, name FROM image_members ORDER BY set_id",
	                          "UPDATE OR IGNORE image_sets SET hash = ?2 WHERE id = ?1", kpi__images_canon, err);
	if (st == KP_OK)
		st = rekey_sets(db, "SELECT s.set_id, 2, x.uuid_hex, x.name FROM kext_set_members s JOIN kexts x "
		                "ON x.id = s.kext_id ORDER BY s.set_id",
		                "UPDATE OR IGNORE kext_sets SET hash = ?2 WHERE id = ?1", kpi__kexts_canon, err);
	return st;
}

static kp_status apply_step(kpi__sq *db, int version, kp_error *err)
{
	const kpi__step *step = &kpi__steps[version - 1];
	kp_status st = version == 9 ? last_column_v9(db, err) : KP_OK;
	if (st == KP_OK && step->sqlite)
		st = exec_sql(db, step->sqlite, err, step->what);
	if (st != KP_OK)
		return st;
	return version == 1    ? text_search_v1(db, err)
	       : version == 9  ? empty_text_v9(db, err)
	       : version == 10 ? regroup_v10(db, err)
	       : version == 11 ? rekey_v11(db, err)
	                       : KP_OK;
}

static int pragma_int(kpi__sq *db, const char *sql, int *out)
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

/* The file's application id, schema version and object count, read in one
 * read transaction: another process creating the index commits its tables
 * and its id together, and three separate reads could see the tables
 * without the id (and call the file foreign).  On failure msg gets sqlite's
 * word for it (the ROLLBACK after would leave "not an error"). */
static int read_ids(kpi__sq *db, int *app, int *uv, int *nobj, char *msg, size_t size)
{
	int rc = sqlite3_exec(db->db, "BEGIN", NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		rc = pragma_int(db, "PRAGMA application_id", app);
		if (rc == SQLITE_OK)
			rc = pragma_int(db, "PRAGMA user_version", uv);
		if (rc == SQLITE_OK)
			rc = pragma_int(db, "SELECT count(*) FROM sqlite_master", nobj);
	}
	if (rc != SQLITE_OK)
		snprintf(msg, size, "%s", sqlite3_errcode(db->db) != SQLITE_OK ? sqlite3_errmsg(db->db)
		                                                               : sqlite3_errstr(rc));
	sqlite3_exec(db->db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* The schema steps from the file's version up, each followed by the index
 * layer's (migrated), all in one transaction. */
static kp_status migrate(kpi__sq *db, kpi__migrated_fn migrated, kp_error *err)
{
	kp_status st = exec_sql(db, "BEGIN IMMEDIATE", err, "locking for migration");
	if (st != KP_OK)
		return st;
	int uv = 0, app = 0, nobj = 0;
	if (pragma_int(db, "PRAGMA user_version", &uv) != SQLITE_OK ||
	    pragma_int(db, "PRAGMA application_id", &app) != SQLITE_OK ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &nobj) != SQLITE_OK) {
		st = kpi__sq_err(db, err, "reading the schema version");
		goto fail;
	}
	/* re-checked under the lock: another process may have created it */
	if (!(app == KPI_APPLICATION_ID || (app == 0 && uv == 0 && nobj == 0))) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index; refusing to touch it",
		                  db->path);
		goto fail;
	}
	for (int v = uv; v < KPI_SCHEMA_VERSION; v++) {
		db->version = v + 1;
		if ((st = apply_step(db, v + 1, err)) != KP_OK ||
		    (migrated && (st = migrated(&db->base, v + 1, err)) != KP_OK))
			goto fail;
	}
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

/* ---- what a handed-over index may hold (issue 32) ---- */

static void add_object(kp_sb *b, const char *type, const char *name, const char *table)
{
	kp_sb_str(b, type);
	kp_sb_str(b, "\t");
	kp_sb_str(b, name);
	kp_sb_str(b, "\t");
	kp_sb_str(b, table);
	kp_sb_str(b, "\n");
}

/* The schema objects an index of schema `version` holds, as lines
 * "type\tname\ttable\n" after a "\n" in b: made by running the migrations
 * up to it in a database in memory, so the list never drifts from what
 * they create.  A file's text search is one of two kinds: the plain one
 * is made (quicker), FTS5's table and shadow tables are added by name; and
 * the statistics tables sqlite's own ANALYZE or PRAGMA optimize make (data,
 * not code). */
static kp_status known_objects(int version, kp_sb *b, kp_error *err)
{
	kpi__sq mem = {.path = (char *)":memory:", .version = version, .schema_only = true};
	if (sqlite3_open_v2(":memory:", &mem.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(mem.db);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	kp_status st = KP_OK;
	for (int v = 0; v < version && st == KP_OK; v++)
		st = apply_step(&mem, v + 1, err);
	sqlite3_stmt *q = NULL;
	if (st == KP_OK &&
	    sqlite3_prepare_v2(mem.db, "SELECT type, name, tbl_name FROM sqlite_schema", -1, &q, NULL) !=
	        SQLITE_OK)
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "listing the schema: %s", sqlite3_errmsg(mem.db));
	kp_sb_str(b, "\n");
	while (st == KP_OK && sqlite3_step(q) == SQLITE_ROW)
		add_object(b, (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
		           (const char *)sqlite3_column_text(q, 2));
	sqlite3_finalize(q);
	sqlite3_close(mem.db);
	static const char *const other[] = {"panic_text", "panic_fts", "panic_fts_data", "panic_fts_idx",
	                                    "panic_fts_docsize", "panic_fts_config", "panic_fts_content",
	                                    "sqlite_stat1", "sqlite_stat4"};
	for (size_t i = 0; i < sizeof other / sizeof *other; i++)
		add_object(b, "table", other[i], other[i]);
	if (st == KP_OK && b->oom)
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	return st;
}

/* The objects of an index of the current schema version (known_objects'
 * list, the extras included), so that opening one builds nothing; a stale
 * copy costs only the build (check_objects falls back to it), and
 * kpi__sq_known_check, run by test_index, says so. */
static const char known_now[] =
	"\n"
	"table\tmeta\tmeta\n"
	"index\tsqlite_autoindex_meta_1\tmeta\n"
	"table\tgroups\tgroups\n"
	"index\tsqlite_autoindex_groups_1\tgroups\n"
	"table\treports\treports\n"
	"index\tsqlite_autoindex_reports_1\treports\n"
	"index\tsqlite_autoindex_reports_2\treports\n"
	"index\treports_group\treports\n"
	"index\treports_ts\treports\n"
	"table\tpaths\tpaths\n"
	"index\tpaths_report\tpaths\n"
	"table\tarchives\tarchives\n"
	"index\treports_host\treports\n"
	"index\treports_host_key\treports\n"
	"index\treports_ident\treports\n"
	"index\treports_zone\treports\n"
	"table\tgroup_hosts\tgroup_hosts\n"
	"table\tkexts\tkexts\n"
	"index\tsqlite_autoindex_kexts_1\tkexts\n"
	"index\tkexts_name\tkexts\n"
	"index\tkexts_last\tkexts\n"
	"index\tkexts_uuid\tkexts\n"
	"table\tkext_sets\tkext_sets\n"
	"index\tsqlite_autoindex_kext_sets_1\tkext_sets\n"
	"table\tkext_set_members\tkext_set_members\n"
	"index\tkext_set_members_set\tkext_set_members\n"
	"index\treports_kext_set\treports\n"
	"table\timage_sets\timage_sets\n"
	"index\tsqlite_autoindex_image_sets_1\timage_sets\n"
	"table\timage_members\timage_members\n"
	"index\timage_members_uuid\timage_members\n"
	"index\timage_members_name\timage_members\n"
	"index\timage_members_last\timage_members\n"
	"index\treports_image_set\treports\n"
	"table\tpanic_text\tpanic_text\n"
	"table\tpanic_fts\tpanic_fts\n"
	"table\tpanic_fts_data\tpanic_fts_data\n"
	"table\tpanic_fts_idx\tpanic_fts_idx\n"
	"table\tpanic_fts_docsize\tpanic_fts_docsize\n"
	"table\tpanic_fts_config\tpanic_fts_config\n"
	"table\tpanic_fts_content\tpanic_fts_content\n"
	"table\tsqlite_stat1\tsqlite_stat1\n"
	"table\tsqlite_stat4\tsqlite_stat4\n";

kp_status kpi__sq_known_check(kp_error *err)
{
	kp_sb b = {0};
	kp_status st = known_objects(KPI_SCHEMA_VERSION, &b, err);
	/* the same lines both ways */
	for (int dir = 0; st == KP_OK && dir < 2; dir++) {
		const char *from = dir ? known_now : b.s, *in = dir ? b.s : known_now;
		for (const char *l = from + 1; *l; l = strchr(l, '\n') + 1) {
			size_t n = (size_t)(strchr(l, '\n') - l);
			char line[256];
			snprintf(line, sizeof line, "\n%.*s\n", (int)n, l);
			if (!strstr(in, line)) {
				st = kp_error_set(err, KP_ERR_DB, 0, -1, "'%.*s' %s", (int)n, l,
				                  dir ? "is in known_now, not made by the migrations"
				                      : "is made by the migrations, not in known_now");
				break;
			}
		}
	}
	kp_sb_free(&b);
	return st;
}

/* Refuses an index holding a schema object kpbrowse did not create: a view
 * or trigger always (kpbrowse makes none: a planted one could run any
 * query, for ever, inside every read or write of its table), and at the
 * current schema version (full: after any migration) anything else not
 * in known_objects.  A handed-over file is untrusted input. */
static kp_status check_objects(kpi__sq *db, bool full, kp_error *err)
{
	kp_sb known = {0};   /* known_objects', built when known_now lacks an object */
	kp_status st = KP_OK;
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db->db, "SELECT type, name, tbl_name FROM sqlite_schema "
	                       "ORDER BY type IN ('view', 'trigger') DESC, name", -1, &q, NULL) != SQLITE_OK)
		st = kpi__sq_err(db, err, "reading the schema");
	kp_sb line = {0};
	int rc = SQLITE_DONE;
	while (st == KP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		const char *table = (const char *)sqlite3_column_text(q, 2);
		type = type ? type : "";
		name = name ? name : "";
		table = table ? table : "";
		bool foreign = strcmp(type, "view") == 0 || strcmp(type, "trigger") == 0 ||
		               strpbrk(name, "\t\n") || strpbrk(table, "\t\n");
		if (!foreign && full) {
			kp_sb_reset(&line);
			kp_sb_str(&line, "\n");
			add_object(&line, type, name, table);
			if (line.oom) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			foreign = db->version != KPI_SCHEMA_VERSION || !strstr(known_now, line.s);
			if (foreign && !known.s && (st = known_objects(db->version, &known, err)) != KP_OK)
				break;
			foreign = foreign && !strstr(known.s, line.s);
		}
		if (foreign) {
			st = kp_error_set(err, KP_ERR_DB, 0, -1,
			                  "%s: the index holds a %.16s '%.80s' that kpbrowse did not create; "
			                  "refusing to use it (an index handed over may be hostile)",
			                  db->path, type, name);
		}
	}
	if (st == KP_OK && rc != SQLITE_DONE)
		st = kpi__sq_err(db, err, "reading the schema");
	sqlite3_finalize(q);
	kp_sb_free(&line);
	kp_sb_free(&known);
	return st;
}

/* ---- the query time limit (issue 32) ---- */

/* seconds, KPBROWSE_QUERY_TIMEOUT; 0 for none */
#define QUERY_LIMIT_DEFAULT_S 60

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t query_limit_ms(void)
{
	const char *e = getenv("KPBROWSE_QUERY_TIMEOUT");
	char *end;
	double s = e && *e ? strtod(e, &end) : QUERY_LIMIT_DEFAULT_S;
	if (e && *e && (*end || !(s >= 0) || s > 1e9))
		s = QUERY_LIMIT_DEFAULT_S;
	return s > 0 && s * 1000 < 1 ? 1 : (int64_t)(s * 1000);
}

/* sqlite calls this every PROGRESS_OPS virtual machine steps: a non-zero
 * return interrupts the statement (SQLITE_INTERRUPT). */
#define PROGRESS_OPS 1000
static int on_progress(void *ctx)
{
	kpi__sq *db = ctx;
	if (db->deadline && now_ms() > db->deadline) {
		db->timed_out = true;
		return 1;
	}
	return 0;
}

int64_t kpi__sq_limit_begin(kpi__sq *db)
{
	int64_t saved = db->deadline;
	if (!saved)
		db->timed_out = false;
	if (db->limit_ms > 0)
		db->deadline = now_ms() + db->limit_ms;
	return saved;
}

void kpi__sq_limit_end(kpi__sq *db, int64_t saved)
{
	db->deadline = saved;
}

kpi__sq_pause kpi__sq_limit_pause(kpi__sq *db)
{
	kpi__sq_pause p = {db->deadline, db->deadline ? now_ms() : 0};
	db->deadline = 0; /* the callback's own ops, if any, run under limits of their own */
	return p;
}

void kpi__sq_limit_resume(kpi__sq *db, kpi__sq_pause p)
{
	db->deadline = p.deadline ? p.deadline + (now_ms() - p.at) : 0;
}

/* ---- opening ---- */


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
	uint32_t app = kp_be32(h + 68), uv = kp_be32(h + 60);
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
static kp_status set_wal(kpi__sq *db, kp_error *err)
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

/* Whether this process may write the index: the file, and the folder its
 * -wal and -shm files go in. */
static bool can_write(const char *path)
{
	if (access(path, W_OK) != 0)
		return false;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK) == 0;
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *dir = malloc(n + 1);
	if (!dir)
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	bool ok = access(dir, W_OK) == 0;
	free(dir);
	return ok;
}

/* Reopens db->db read-only as an immutable file (no -shm needed): for a WAL
 * index in a folder this process cannot write, where sqlite cannot make the
 * shared-memory file a plain read-only open needs.  The path is escaped as
 * a URI. */

/* An index may be shared or handed over: its schema is not trusted.  No
 * view, trigger or index expression it holds may call a function that has
 * side effects, and SQL cannot edit the schema behind sqlite's back
 * (defensive mode: no writable_schema, no shadow-table writes). */
static void harden(sqlite3 *h)
{
#ifdef SQLITE_DBCONFIG_DEFENSIVE
	sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#else
	sqlite3_exec(h, "PRAGMA trusted_schema = OFF", NULL, NULL, NULL);
#endif
	/* kpbrowse makes no view or trigger: none may run (check_objects
	 * refuses a file holding one, by name; this is the second lock) */
	sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
	/* as sqlite's advice for untrusted files: damage found early, as
	 * damage, not as a wrong answer */
	sqlite3_exec(h, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
}

/* True when path's -wal holds more than its header: commits an immutable
 * open would not see. */
static bool wal_has_frames(const char *path)
{
	size_t n = strlen(path);
	char *w = malloc(n + 5);
	if (!w)
		return true;
	memcpy(w, path, n);
	memcpy(w + n, "-wal", 5);
	struct stat st;
	bool frames = stat(w, &st) == 0 && st.st_size > 32;
	free(w);
	return frames;
}

static int open_immutable(kpi__sq *db)
{
	size_t n = strlen(db->path);
	char *uri = malloc(3 * n + 32);
	if (!uri)
		return SQLITE_NOMEM;
	char *o = uri + sprintf(uri, "file:");
	for (const char *p = db->path; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f)
			o += sprintf(o, "%%%02X", c);
		else
			*o++ = (char)c;
	}
	memcpy(o, "?immutable=1", sizeof "?immutable=1");
	sqlite3_close(db->db);
	db->db = NULL;
	int rc = sqlite3_open_v2(uri, &db->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
	                         NULL);
	free(uri);
	if (rc == SQLITE_OK)
		harden(db->db);
	return rc;
}

kp_status kpi__sqlite_open(const char *path, unsigned flags, kpi__migrated_fn migrated, kpi_db **out,
                           kp_error *err)
{
	*out = NULL;
	struct stat st;
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	bool ro = false;
	kp_status s = KP_OK;
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
	} else if ((flags & KPI_OPEN_READONLY) || !can_write(path)) {
		ro = true;
		oflags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	}

	kpi__sq *db = calloc(1, sizeof *db);
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	if (sqlite3_open_v2(path, &db->db, oflags, NULL) != SQLITE_OK) {
		s = kpi__sq_err(db, err, "cannot open");
		kpi__sq_close(&db->base);
		return s;
	}
	harden(db->db);
	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_timeout(db->db, BUSY_TIMEOUT_MS);
	db->limit_ms = query_limit_ms();
	sqlite3_progress_handler(db->db, PROGRESS_OPS, on_progress, db);
	/* a rescan looks up every path: keep a large index's pages in memory
	 * (the default 2 MB cache rereads them from the OS for 100k paths) */
	sqlite3_exec(db->db, "PRAGMA cache_size = -65536", NULL, NULL, NULL);

	db->readonly = ro;
	db->version = KPI_SCHEMA_VERSION; /* once open; migrate steps it */
	int uv = 0, app = 0, nobj = 0;
	char msg[256];
	int rc = read_ids(db, &app, &uv, &nobj, msg, sizeof msg);
	bool no_shm = ro && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY);
	if (no_shm) {
		/* WAL without a -shm sqlite may create: an immutable open reads
		 * the main file as it is, and never the -wal.  Commits still in
		 * the -wal would be missing in silence: refuse instead. */
		if (wal_has_frames(path))
			s = kp_error_set(err, KP_ERR_DB, 0, -1,
			                 "%s: cannot read the index read-only: its last commits are still in "
			                 "its -wal file, which sqlite reads only through a -shm file this user "
			                 "cannot create in that folder; open it once with write access (or copy "
			                 "the index with its -wal to a folder you can write)", path);
		else if ((rc = open_immutable(db)) == SQLITE_OK) {
			sqlite3_progress_handler(db->db, PROGRESS_OPS, on_progress, db);
			rc = read_ids(db, &app, &uv, &nobj, msg, sizeof msg);
		}
		if (s != KP_OK) {
			kpi__sq_close(&db->base);
			return s;
		}
	}
	if (rc != SQLITE_OK) {
		if (no_shm)
			s = kp_error_set(err, KP_ERR_DB, 0, -1,
			                 "%s: cannot read the index read-only (%s): it needs its -shm file "
			                 "or a folder this user can write",
			                 path, db->db ? msg : "out of memory");
		else if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
			s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: the index is damaged (%s); " REBUILD_HINT,
			                 path, msg);
		else
			s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index or corrupt: %s",
			                 path, db->db ? msg : "out of memory");
		kpi__sq_close(&db->base);
		return s;
	}
	if (!(app == KPI_APPLICATION_ID || (app == 0 && uv == 0 && nobj == 0))) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index; refusing to touch it",
		                 path);
		kpi__sq_close(&db->base);
		return s;
	}
	if (uv > KPI_SCHEMA_VERSION) {
		s = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: index schema version %d is newer than this kpbrowse (%d)",
		                 path, uv, KPI_SCHEMA_VERSION);
		kpi__sq_close(&db->base);
		return s;
	}
	/* an empty file: an index another process is creating (its schema
	 * and id commit together in a moment), which a reader waits for
	 * rather than fail; or one whose creator was killed first */
	for (int waited = 0; ro && nobj == 0 && uv == 0 && waited < EMPTY_WAIT_MS; waited += 20) {
		struct timespec ts = {0, 20 * 1000000L};
		nanosleep(&ts, NULL);
		if (read_ids(db, &app, &uv, &nobj, msg, sizeof msg) != SQLITE_OK)
			break;
	}
	if (ro && uv < KPI_SCHEMA_VERSION && nobj && can_write(path)) {
		/* an older index that may be written: migrate it, then read */
		kpi__sq_close(&db->base);
		return kpi__sqlite_open(path, flags & ~(unsigned)KPI_OPEN_READONLY, migrated, out, err);
	}
	if (ro && uv < KPI_SCHEMA_VERSION) {
		if (nobj)
			s = kp_error_set(err, KP_ERR_DB, 0, -1,
			                 "%s: the index (schema version %d) needs an upgrade and is read-only "
			                 "here: open it once with write access", path, uv);
		else
			s = kp_error_set(err, KP_ERR_NOTFOUND, 0, -1,
			                 "%s: an empty file, no index yet (run 'kpbrowse index')", path);
		kpi__sq_close(&db->base);
		return s;
	}
	db->base.ops = &kpi__sqlite_ops; /* the migration hook reads and writes through them */
	/* Only now that the file is known to be ours (or empty) may it change;
	 * and only when it holds nothing a migration's writes could set off. */
	db->version = uv;
	if ((s = check_objects(db, uv == KPI_SCHEMA_VERSION, err)) != KP_OK) {
		kpi__sq_close(&db->base);
		return s;
	}
	db->version = KPI_SCHEMA_VERSION;
	if (ro) {
		/* read-only: nothing to switch or migrate */
	} else if ((s = set_wal(db, err)) != KP_OK ||
	    (uv < KPI_SCHEMA_VERSION && (s = migrate(db, migrated, err)) != KP_OK) ||
	    (uv < KPI_SCHEMA_VERSION && (s = check_objects(db, true, err)) != KP_OK)) {
		kpi__sq_close(&db->base);
		return s;
	}
	/* the text search's kind; a damaged meta page is damage, not "like" */
	sqlite3_stmt *q;
	rc = sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = 'text_search'", -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(q, 0);
		db->fts = mode && strcmp(mode, "fts5") == 0;
		rc = SQLITE_DONE;
	}
	if (rc != SQLITE_DONE) {
		s = kpi__sq_err(db, err, "reading the text search mode");
		sqlite3_finalize(q);
		kpi__sq_close(&db->base);
		return s;
	}
	sqlite3_finalize(q);
	kpi__sq_note_own_files(db);
	if (!ro)
		kpi__sq_ckpt_install(db);
	db->base.ops = &kpi__sqlite_ops;
	*out = &db->base;
	return KP_OK;
}

void kpi__sq_close(kpi_db *h)
{
	kpi__sq *db = (kpi__sq *)h;
	kpi__sq_ckpt_stop(db);
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(db->stmt[i]);
	if (db->db)
		sqlite3_close(db->db);
	kpi__sq_memo_clear(&db->memo);
	free(db->memo.e);
	kp_htab_free(&db->memo.idx);
	free(db->memo.owed);
	free(db->path);
	free(db);
}

void kpi__sq_note_own_files(kpi__sq *db)
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
		memcpy(p + n, suffix[i], strlen(suffix[i]) + 1);
		if (stat(p, &st) == 0) {
			db->own_dev[db->nown] = st.st_dev;
			db->own_ino[db->nown] = st.st_ino;
			db->nown++;
		}
	}
	free(p);
}

/* ---- statements ---- */

static const char *stmt_text(const kpi__sq *db, kpi__sq_sql q)
{
	if (q == Q_FTS_INSERT)
		return db->fts ? "INSERT INTO panic_fts(rowid, body) VALUES (?1, ?2)"
		               : "INSERT OR REPLACE INTO panic_text(report_id, body) VALUES (?1, ?2)";
	/* a contentless FTS5 row is forgotten by naming what it held */
	if (q == Q_FTS_DELETE)
		return db->fts ? "INSERT INTO panic_fts(panic_fts, rowid, body) VALUES ('delete', ?1, ?2)"
		               : "DELETE FROM panic_text WHERE report_id = ?1";
	return sql_text[q];
}

sqlite3_stmt *kpi__sq_stmt(kpi__sq *db, kpi__sq_sql q, kp_error *err)
{
	sqlite3_stmt *s = db->stmt[q];
	if (!s) {
		if (sqlite3_prepare_v3(db->db, stmt_text(db, q), -1, SQLITE_PREPARE_PERSISTENT, &s,
		                       NULL) != SQLITE_OK) {
			kpi__sq_err(db, err, "preparing a statement");
			return NULL;
		}
		db->stmt[q] = s;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

kp_status kpi__sq_err(kpi__sq *db, kp_error *err, const char *what)
{
	int rc = db->db ? sqlite3_extended_errcode(db->db) & 0xff : SQLITE_NOMEM;
	if (rc == SQLITE_INTERRUPT && db->timed_out)
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: %s: stopped after %.3g s, the query time limit (a damaged or hostile "
		                    "index? KPBROWSE_QUERY_TIMEOUT sets the limit)",
		                    db->path, what, (double)db->limit_ms / 1000);
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: %s: the index is damaged (%s); " REBUILD_HINT,
		                    db->path, what, sqlite3_errmsg(db->db));
	return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: %s: %s", db->path, what,
	                    db->db ? sqlite3_errmsg(db->db) : "out of memory");
}

kp_status kpi__sq_exec(kpi__sq *db, kpi__sq_sql q, kp_error *err)
{
	sqlite3_stmt *s = kpi__sq_stmt(db, q, err);
	if (!s)
		return KP_ERR_DB;
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return kpi__sq_err(db, err, q == Q_BEGIN    ? "cannot lock the index"
		                            : q == Q_COMMIT ? "cannot store the last batch (it was rolled back)"
		                                            : "statement failed");
	return KP_OK;
}

void kpi__sq_bind_text(sqlite3_stmt *q, int i, const char *s)
{
	bool oom = false;
	char *fixed = kp_utf8_repair(s, &oom);
	if (fixed) {
		sqlite3_bind_text(q, i, fixed, -1, SQLITE_TRANSIENT);
		free(fixed);
	} else {
		sqlite3_bind_text(q, i, oom ? "\xEF\xBF\xBD" : s, -1, SQLITE_STATIC);
	}
}

/* ---- reading a damaged index (kpi_rebuild) ---- */

/* After this many reports in a row that cannot be read, the rest of the
 * ids are taken to be lost with them (a damaged interior page hides a
 * range of ids; each failed seek is quick). */
#define SALVAGE_MAX_MISSES 100000

kp_status kpi__sqlite_salvage(const char *path, kpi__salvage_fn fn, void *ctx, size_t *unreadable,
                              bool *foreign, kp_error *err)
{
	*unreadable = 0;
	*foreign = false;
	kpi__sq db = {.path = (char *)path};
	sqlite3_stmt *q = NULL, *pq = NULL;
	kp_status st = KP_OK;
	int app = 0, uv = 0, nobj = 0;
	char msg[256] = "";
	if (sqlite3_open_v2(path, &db.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: cannot open: %s", path,
		                  db.db ? sqlite3_errmsg(db.db) : "out of memory");
		goto out;
	}
	harden(db.db); /* views and triggers never run; rows are only read */
	sqlite3_extended_result_codes(db.db, 1);
	sqlite3_busy_timeout(db.db, BUSY_TIMEOUT_MS);
	int rc = read_ids(&db, &app, &uv, &nobj, msg, sizeof msg);
	if ((rc & 0xff) == SQLITE_CORRUPT)
		app = KPI_APPLICATION_ID; /* its header is ours (kpi_open read it); the rows may still be there */
	else if (rc != SQLITE_OK) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: cannot be read: %s", path, msg);
		goto out;
	}
	if (app != KPI_APPLICATION_ID) {
		*foreign = app != 0 || nobj != 0;
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a kpbrowse index%s", path,
		                  *foreign ? "; refusing to touch it" : " (empty)");
		goto out;
	}
	if (sqlite3_prepare_v2(db.db, "SELECT r.id, r.size, r.content_hash, a.data FROM reports r JOIN "
	                       "archives a ON a.report_id = r.id WHERE r.id > ?1 ORDER BY r.id LIMIT 1",
	                       -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db.db, "SELECT path FROM paths WHERE report_id = ?1 "
	                       "ORDER BY seen_at DESC, path LIMIT 1", -1, &pq, NULL) != SQLITE_OK) {
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: cannot be read: %s", path, sqlite3_errmsg(db.db));
		goto out;
	}
	/* the largest id, when the way to it can be read: no miss is counted
	 * past it */
	int64_t after = 0, max = INT64_MAX;
	sqlite3_stmt *mq;
	if (sqlite3_prepare_v2(db.db, "SELECT max(id) FROM reports", -1, &mq, NULL) == SQLITE_OK) {
		if (sqlite3_step(mq) == SQLITE_ROW)
			max = sqlite3_column_type(mq, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(mq, 0);
		sqlite3_finalize(mq);
	}
	for (size_t misses = 0; misses < SALVAGE_MAX_MISSES && after < max;) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, after);
		int rc = sqlite3_step(q);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW || sqlite3_column_type(q, 3) != SQLITE_BLOB ||
		    !sqlite3_column_text(q, 2)) {
			/* the row, or the way to it, is damaged: past it by one */
			int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : after;
			after = id > after ? id : after + 1;
			(*unreadable)++;
			misses++;
			continue;
		}
		/* a damaged b-tree can hand back a row at or below the last
		 * one (its cells out of order): a miss, never a step back, or
		 * the walk would go round the same rows for ever */
		int64_t id = sqlite3_column_int64(q, 0);
		if (id <= after) {
			after++;
			(*unreadable)++;
			misses++;
			continue;
		}
		misses = 0;
		after = id;
		kpi__archive a = {.z = (void *)sqlite3_column_blob(q, 3),
		                  .zlen = (size_t)sqlite3_column_bytes(q, 3),
		                  .size = sqlite3_column_int64(q, 1)};
		snprintf(a.hash, sizeof a.hash, "%s", (const char *)sqlite3_column_text(q, 2));
		sqlite3_reset(pq);
		sqlite3_bind_int64(pq, 1, after);
		const char *p = sqlite3_step(pq) == SQLITE_ROW ? (const char *)sqlite3_column_text(pq, 0) : NULL;
		if (fn(ctx, &a, p ? p : ""))
			break;
	}
	/* ids past a long run of misses are not counted: unknown */
out:
	sqlite3_finalize(q);
	sqlite3_finalize(pq);
	sqlite3_close(db.db);
	return st;
}
