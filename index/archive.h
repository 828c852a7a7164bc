/* archive.h: private to index/: the archive format, one home for both
 * directions: a report's original bytes as one zstd frame (indexes written
 * before hold zlib streams: both are read, told apart by their first
 * bytes, in either store; storing them is the store's business:
 * kpi__store_ops archive_add, archive_get).
 * Ownership: what these return is malloc'd and the caller's to free. */
#ifndef KPI_ARCHIVE_H
#define KPI_ARCHIVE_H

#include "kpi_store.h"

/* The compressed form of data (malloc'd, *zlen bytes: a zstd frame that
 * records len), or NULL when out of memory.  Any thread. */
void *kpi__archive_pack(const char *data, size_t len, size_t *zlen);

/* The original bytes of report id from its archive (malloc'd,
 * NUL-terminated, *len set), checked against the stored size and hash;
 * NULL with err set otherwise (KP_ERR_NOTFOUND, KP_ERR_DB naming the
 * damage, KP_ERR_NOMEM).  *group_id (may be NULL) gets its group. */
char *kpi__archive_bytes(kpi_db *db, int64_t id, size_t *len, int64_t *group_id, kp_error *err);

/* The original bytes of archive a (malloc'd, NUL-terminated, *len set),
 * checked against its size and hash; NULL with err set (KP_ERR_DB naming
 * what, e.g. "report @12", as damaged; KP_ERR_NOMEM) otherwise. */
char *kpi__archive_unpack(const kpi__archive *a, const char *what, size_t *len, kp_error *err);

/* For re-signing and the schema 4 fill: report id parsed from its archive
 * (checked against its hash), nameless, and its current group. */
kp_status kpi__load_archived(kpi_db *db, int64_t id, kp_report **out, int64_t *group_id,
                             kp_error *err);

#endif
