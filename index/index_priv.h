/* index_priv.h: private to index/: the handle and its statement cache.
 *
 * Ownership: statements belong to the handle (finalized by kpi_close);
 * idx_stmt returns a reset statement with cleared bindings. */
#ifndef KPI_INDEX_PRIV_H
#define KPI_INDEX_PRIV_H

#include "kp_index.h"
#include "kp_fs.h"
#include "kp_sha1.h"

#include <sqlite3.h>
#include <sys/types.h>

/* Every SQL statement the index runs on data, by id (index.c holds the text). */
typedef enum idx_sql {
	Q_BEGIN,
	Q_COMMIT,
	Q_ROLLBACK,
	Q_PATH_GET,
	Q_PATH_PUT,
	Q_REPORT_BY_HASH,
	Q_REPORT_BY_INCIDENT,
	Q_REPORT_INSERT,
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
	Q_GROUP_ALL_IDS,
	Q_LIST_REPORTS,
	Q_LIST_GROUPS,
	Q_GROUP_MEMBERS,
	Q_REPORT_PATHS,
	Q_SEARCH_UUID,
	Q_SEARCH_KEXT,
	Q_SEARCH_FTS,
	Q_SEARCH_LIKE,
	Q_COUNT
} idx_sql;

struct kpi_db {
	sqlite3 *db;
	char *path;
	bool fts;
	sqlite3_stmt *stmt[Q_COUNT];
	/* the database's own files, never scanned as reports */
	dev_t own_dev[3];
	ino_t own_ino[3];
	int nown;
};

sqlite3_stmt *idx_stmt(kpi_db *db, idx_sql q, kp_error *err);
/* KP_ERR_DB with sqlite's message and what was being done. */
kp_status idx_dberr(kpi_db *db, kp_error *err, const char *what);
kp_status idx_exec(kpi_db *db, idx_sql q, kp_error *err);   /* one-step statements */

/* Seconds since the epoch of a report timestamp ("2024-05-01 10:00:00.00
 * -0700", "Wed May  1 10:00:00 2024"), false when unrecognised. */
bool idx_parse_time(const char *ts, int64_t *out);
/* The original bytes of report id (malloc'd, *len set); NULL + err on failure. */
char *idx_archive_bytes(kpi_db *db, int64_t id, size_t *len, kp_error *err);

/* The stored images of r for search, and the report's fts text. */
kp_status idx_put_images(kpi_db *db, int64_t id, const kp_report *r, kp_error *err);

/* "kernel", "backtrace", "image", "dependency" for images.rank 0..3. */
const char *idx_role_name(int rank);

/* Records the db's own files (db, -wal, -shm) so a scan skips them. */
void idx_note_own_files(kpi_db *db);

#endif
