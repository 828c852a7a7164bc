/* store_sqlite.h: private to the sqlite store (store_sqlite*.c): the
 * handle and its statement cache.
 *
 * Ownership: statements belong to the handle (finalized by its close);
 * kpi__sq_stmt returns a reset statement with cleared bindings.  The
 * sqlite store keeps its file in WAL mode with a busy timeout, so several
 * processes can share it; every write runs in BEGIN IMMEDIATE. */
#ifndef KPI_STORE_SQLITE_H
#define KPI_STORE_SQLITE_H

#include "kpi_store.h"
#include "kp_htab.h"

#include <sqlite3.h>
#include <sys/types.h>

/* Every SQL statement the store runs on data, by id (store_sqlite.c holds the text). */
typedef enum kpi__sq_sql {
	Q_BEGIN,
	Q_COMMIT,
	Q_ROLLBACK,
	Q_PATH_GET,
	Q_PATH_PUT,
	Q_REPORT_BY_HASH,
	Q_REPORT_BY_INCIDENT,
	Q_REPORT_INSERT,
	Q_REPORT_UPDATE,
	Q_FTS_DELETE,
	Q_ARCHIVE_UPDATE,
	Q_ARCHIVE_INSERT,
	Q_GROUP_INSERT,
	Q_GROUP_GET,
	Q_GROUP_REFRESH,
	Q_GROUP_DELETE_EMPTY,
	Q_IMAGE_INSERT,
	Q_FTS_INSERT,
	Q_REPORT_ARCHIVE,
	Q_REPORT_IDS,
	Q_REPORT_RESIGN,
	Q_GROUP_SET_TITLE,
	Q_LIST_REPORTS,
	Q_LIST_HOST,
	Q_LIST_HOSTS,
	Q_LIST_GROUPS,
	Q_GROUP_MEMBERS,
	Q_REPORT_PATHS,
	Q_META_GET,
	Q_META_SET,
	Q_LIST_REPORTS_BARE,
	Q_REPORT_PATHS_ALL,
	Q_REPORT_SPAN,
	Q_GROUP_COUNTS,
	Q_GROUP_SPAN,
	Q_REPORT_FACTS,
	Q_PAGE_UUID,
	Q_PAGE_KEXT,
	Q_PAGE_FTS,
	Q_PAGE_LIKE,
	Q_PAGE_LIST,
	Q_COUNT_UUID,
	Q_COUNT_KEXT,
	Q_COUNT_FTS,
	Q_COUNT_LIKE,
	Q_COUNT_REPORTS,
	Q_PAGE_UUID_SCAN,
	Q_PAGE_KEXT_SCAN,
	Q_PAGE_KEXT_LAST,
	Q_PAGE_ZONE,
	Q_COUNT_KEXT_LAST,
	Q_COUNT_ZONE,
	Q_GROUP_HOST_ADD,
	Q_GROUP_COUNT_ADD,
	Q_GROUP_HOSTS_CLEAR,
	Q_GROUP_HOSTS_FILL,
	Q_GROUP_HOSTS_PRUNE,
	Q_GROUP_REFRESH_V6,
	Q_REPORT_FACTS_V11,   /* Q_REPORT_FACTS in a migration's fill before schema 12 (no class) */
	Q_KSET_GET,
	Q_KSET_INSERT,
	Q_KEXT_INSERT,
	Q_KEXT_GET,
	Q_KSET_MEMBER,
	Q_REPORT_KSET,
	Q_ISET_GET,
	Q_ISET_INSERT,
	Q_TREND_ROWS,
	Q_REPORT_REHASH,
	Q_COUNT
} kpi__sq_sql;

typedef struct kpi__sq_ckpt kpi__sq_ckpt;

/* What one write transaction has learnt (store_sqlite_write.c): ids by key
 * ("g" group key, "k" kext set hash, "i" image set hash, "h" group and
 * host: known to be counted), so a batch asks the database once for each;
 * and the counts report_add owes its groups, written before anything
 * reads or recounts them (commit, groups_refresh, groups_prune).
 * Emptied by begin, rollback and close: another writer may change the
 * database between transactions. */
typedef struct kpi__sq_memo {
	struct kpi__sq_learnt {
		char *key;
		int64_t val;
	} *e;                     /* what is remembered, in the order learnt */
	size_t n, e_cap;
	kp_htab idx;              /* i + 1 of each e[i], by its key */
	struct kpi__sq_owed {
		int64_t gid, count, hosts, first, last;   /* first/last: KPI__UNDATED for none */
	} *owed;
	size_t nowed, owed_cap;
} kpi__sq_memo;

typedef struct kpi__sq {
	kpi_db base;          /* first: a kpi_db * is a kpi__sq * */
	sqlite3 *db;
	kpi__sq_ckpt *ckpt;   /* checkpoints off the committing thread, or NULL */
	char *path;
	bool fts;             /* FTS5 text search, else LIKE over panic_text */
	bool readonly;        /* opened read-only: writes are refused by name */
	bool schema_only;     /* check_objects' copy in memory: the plain text search (FTS5's
	                         objects are known by name), made quickly */
	int version;          /* the schema version reached (below KPI_SCHEMA_VERSION while migrating) */
	sqlite3_stmt *stmt[Q_COUNT];
	kpi__sq_memo memo;
	/* the database's own files, never scanned as reports */
	dev_t own_dev[3];
	ino_t own_ino[3];
	int nown;
	/* The query time limit (issue 32): a read op's statements stop with
	 * SQLITE_INTERRUPT (timed_out set) once CLOCK_MONOTONIC passes
	 * deadline (ms; 0: no limit running).  Time spent in the caller's
	 * callbacks does not count (kpi__sq_limit_pause/resume). */
	int64_t deadline;
	int64_t limit_ms;
	bool timed_out;
} kpi__sq;

/* Starts a read op's time limit and returns the deadline it replaces (a
 * callback's op nested in another's), for kpi__sq_limit_end. */
int64_t kpi__sq_limit_begin(kpi__sq *db);
void kpi__sq_limit_end(kpi__sq *db, int64_t saved);
/* Around a callback: no limit runs during it (an op it calls has its own),
 * and its time is added to the running deadline after. */
typedef struct kpi__sq_pause {
	int64_t deadline, at;
} kpi__sq_pause;
kpi__sq_pause kpi__sq_limit_pause(kpi__sq *db);
void kpi__sq_limit_resume(kpi__sq *db, kpi__sq_pause p);

sqlite3_stmt *kpi__sq_stmt(kpi__sq *db, kpi__sq_sql q, kp_error *err);
/* KP_ERR_DB with sqlite's message and what was being done; a damaged file
 * and a query stopped by the time limit are said as such. */
kp_status kpi__sq_err(kpi__sq *db, kp_error *err, const char *what);
kp_status kpi__sq_exec(kpi__sq *db, kpi__sq_sql q, kp_error *err);   /* one-step statements */

/* store_sqlite_ckpt.c: a writable handle's checkpoints moved to a thread
 * of their own, started when a commit leaves a large WAL (else sqlite's
 * own stay); stop before the connection closes. */
void kpi__sq_ckpt_install(kpi__sq *db);
void kpi__sq_ckpt_stop(kpi__sq *db);

/* Forgets what the transaction learnt (owed counts too). */
void kpi__sq_memo_clear(kpi__sq_memo *m);
/* The id of the image set holding the list v[0..n) (kpi__images_canon's,
 * its hash), added with its members when new; 0 when n is 0 (schema 10). */
kp_status kpi__sq_image_set(kpi__sq *db, const kpi__image *v, size_t n, const char *hash, int64_t *out,
                            kp_error *err);

/* Whether store_sqlite.c's list of the current schema's objects is the one
 * its migrations make (KP_ERR_DB naming the first difference): a test's. */
kp_status kpi__sq_known_check(kp_error *err);

/* Finalizes the statements, closes and frees the handle (the ops' close). */
void kpi__sq_close(kpi_db *h);
/* Records the db's own files (db, -wal, -shm) so a scan skips them. */
void kpi__sq_note_own_files(kpi__sq *db);
/* The ops table (store_sqlite_write.c), set by kpi__sqlite_open. */
extern const kpi__store_ops kpi__sqlite_ops;

/* The query ops (store_sqlite_query.c). */
kp_status kpi__sq_report_paths(kpi_db *db, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_archive_get(kpi_db *db, int64_t id, kpi__archive *out, kp_error *err);
kp_status kpi__sq_list_reports(kpi_db *db, const char *host, kpi_report_fn fn, void *ctx,
                               kp_error *err);
kp_status kpi__sq_list_hosts(kpi_db *db, kpi_host_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_list_groups(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_list_group_counts(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_trend_rows(kpi_db *db, kpi__trend_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_search_page(kpi_db *db, kpi__search kind, const char *arg, kpi_page *page,
                              kpi_report_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_list_page(kpi_db *db, kpi_page *page, kpi_report_fn fn, void *ctx, kp_error *err);
kp_status kpi__sq_meta_get(kpi_db *db, const char *key, char **value, kp_error *err);

/* Binds s (not NULL) as text parameter i, made valid UTF-8 as the
 * PostgreSQL store sends it (U+FFFD for each invalid byte), so both stores
 * keep the same rows for the same files; the raw bytes stay in the archive. */
void kpi__sq_bind_text(sqlite3_stmt *q, int i, const char *s);

#endif
