/* kpi_store.h: private to index/: the store behind the index, as an ops
 * table (one per kind of database; the sqlite store is store_sqlite*.c).
 *
 * Contract.  A store keeps reports, the paths they were seen at, their
 * archives (the original bytes, compressed by archive.c: opaque to the store),
 * groups, and a key/value meta table.  kpi_open (index.c) picks the store
 * from the --db target, whose kpi__NAME_open returns a kpi_db whose first
 * member is its ops; every
 * op takes that handle.  open creates (KPI_OPEN_CREATE) or migrates the
 * schema and refuses, without writing to it, anything that is not a
 * kpbrowse index or has a newer schema (KP_ERR_DB naming the target).
 * Writes happen only between begin and commit/rollback; a commit is
 * atomic, so a killed writer leaves no partial report.  Concurrent writers
 * (other processes, other Macs) either wait in begin (sqlite) or run side
 * by side (PostgreSQL: find-or-add is INSERT ... ON CONFLICT, never a read
 * then a write).  Paths are keyed by the pushing host (kpi_db.host) where
 * the store is shared (on PostgreSQL by the login too: each its own).  Report ids are positive; a report's
 * seq is strictly greater than that of every report stored before it, for
 * "new since" questions.  Rows handed to callbacks are borrowed and valid
 * during the call only; a callback may call other ops of the same handle,
 * but not the running query.  Values are always bound, never spliced into
 * query text.  Errors: KP_ERR_DB with what was being done, KP_ERR_NOTFOUND
 * for an unknown id, KP_ERR_NOMEM.  A store never prints and never reads
 * report files. */
#ifndef KPI_STORE_H
#define KPI_STORE_H

#include "kp_index.h"
#include "kp_sha1.h"
#include "kp_sha256.h"

#include <sys/stat.h>

/* What the store knows of a path: report_id 0 = skipped (not a report). */
typedef struct kpi__path_rec {
	bool known;
	int64_t report_id;
	int64_t size;
	int64_t mtime_ns;
} kpi__path_rec;

/* An image of a report for UUID and kext search. */
typedef struct kpi__image {
	char uuid_hex[33];     /* 32 upper-case hex digits, "" when unknown */
	const char *name;      /* "" when unknown */
	int rank;              /* 0 kernel, 1 backtrace, 2 image, 3 dependency */
} kpi__image;
/* Sorts v[0..n) by rank, then UUID, then name, drops repeats and returns
 * how many are left; hash gets the hex SHA-256 of that list ("" when n is
 * 0): the key under which the sqlite store keeps one copy of a list that
 * many reports share (schema 10; SHA-256 since 11, as a list comes from
 * an untrusted file: one made to collide with another Mac's would take
 * its place).  Defined in scan_file.c. */
size_t kpi__images_canon(kpi__image *v, size_t n, char hash[KP_SHA256_HEX]);
/* The same for a loaded kext list (kpi__kext_set): sorted by name, then
 * UUID, repeats dropped, hash its key. */
size_t kpi__kexts_canon(kpi__image *v, size_t n, char hash[KP_SHA256_HEX]);
/* "kernel", "backtrace", "image", "dependency" for rank 0..3: the role a
 * store's match rows name (index.c). */
const char *kpi__role_name(int rank);

/* A report's loaded kexts (schema 8): every one, Apple's too, by bundle
 * id and UUID ("" when the report gives none).  A store keeps each set
 * once, shared by every report that loaded the same kexts (a Mac's list
 * changes little from panic to panic), and searches its members as
 * matches of rank 2 when a report's images hold none. */
typedef struct kpi__kext_set {
	const kpi__image *kexts;    /* sorted by name, then UUID, no two alike; rank unused */
	size_t n;                   /* 0: no list (no set) */
	char hash[KP_SHA256_HEX];   /* kpi__kexts_canon's: the set's key */
} kpi__kext_set;

typedef struct kpi__new_report {
	const char *content_hash;   /* hex SHA-256 of the original bytes (KPI__CONTENT_HASH) */
	const char *incident_id;    /* or NULL */
	int64_t size;
	const char *format, *timestamp, *os_version, *kernel_uuid;   /* NULL allowed */
	int64_t ts;                 /* epoch seconds of the report's date, KPI__UNDATED without one */
	const char *headline, *exact_key;
	int64_t group_id;
	int64_t indexed_at;
	const char *host;           /* the pushing machine's name */
	const char *host_key;       /* crashReporterKey / Anonymous UUID, or NULL */
	const char *model;          /* or NULL */
	const kpi__image *images;   /* as kpi__images_canon leaves them */
	size_t nimages;
	const char *images_hash;    /* kpi__images_canon's hash of them */
	const char *text;           /* the text to search, or NULL */
	const char *kind;           /* kp_kind_name */
	const char *zone;           /* suspect zone name, or NULL */
	const char *cls;            /* cause class id (kp_class_name; schema 12) */
	kpi__kext_set kexts;        /* its loaded kexts (n 0: none) */
} kpi__new_report;

/* The ts of an undated report: below every real date, so "ts DESC" lists
 * it after the dated ones in both stores; group and host first/last seen
 * leave it out (NULL when a group has no dated report).  The SQL spelling
 * is for query text (a constant, not a value from a report). */
#define KPI__UNDATED (-4611686018427387904LL)
#define KPI__UNDATED_SQL "-4611686018427387904"
/* SQL for the part of a bundle id after its last dot (all of it when it has
 * none), in functions both sqlite and PostgreSQL have and may index:
 * rtrim drops the trailing run of characters that are not a dot.  A search
 * by a last part compares this, so both stores index it (schema 6). */
#define KPI__LAST_PART_SQL(col) "substr(" col ", length(rtrim(" col ", replace(" col ", '.', ''))) + 1)"
/* The facts schema 4 added to every report (kind, zone, ts of an undated
 * report) and schema 12's cause class, recomputed from its archive
 * (scan.h's kpi__report_facts). */
typedef struct kpi__facts {
	const char *kind;
	const char *zone;           /* or NULL */
	const char *cls;            /* kp_class_name (static) */
	int64_t ts;                 /* its date, or KPI__UNDATED */
} kpi__facts;

/* A report's content hash, its dedup key (content_hash, UNIQUE in both
 * stores): since schema 11 the hex SHA-256 of its original bytes, 64
 * digits.  The file is untrusted, so the key must be one no one can make
 * collide (issue 33 item 7): a crafted SHA-1 collision would have hidden a
 * report behind another.  A report whose bytes were gone when its index
 * was migrated (archive damaged, file gone) keeps its SHA-1 (40 digits:
 * never equal to a SHA-256), and the meta key KPI__META_SHA1_LEFT counts
 * them: while it is set, a scan looks a new file up by its SHA-1 too, so
 * those bytes coming back are that report, not a second one. */
#define KPI__CONTENT_HASH(data, len, hex) kp_sha256_hex((data), (len), (hex))
#define KPI__META_SHA1_LEFT "sha1_hashes_left"

/* An archive as stored: z (malloc'd, caller frees) decompresses to size
 * bytes whose content hash is hash (a SHA-1 of 40 digits in an index
 * before schema 11, or left by its migration: archive.c checks either). */
typedef struct kpi__archive {
	void *z;
	size_t zlen;
	int64_t size;
	char hash[KP_SHA256_HEX];
	int64_t group_id;
	char host[256];      /* the host that pushed the report ("" when none) */
} kpi__archive;

typedef enum kpi__search {
	KPI__SEARCH_UUID,      /* arg: 8..32 upper-case hex digits, a prefix */
	KPI__SEARCH_KEXT,      /* arg: a bundle id, any case */
	KPI__SEARCH_TEXT,      /* arg: words that must all occur (the store's own text search) */
	KPI__SEARCH_KEXT_LAST, /* arg: a bundle id's last part (no dot), any case: a name
	                          equal to it or ending in "." and it */
	KPI__SEARCH_ZONE,      /* arg: a suspect zone name, any case */
} kpi__search;
/* The range a UUID search binds (index.c): an upper-case hex prefix (at
 * most 32 digits used) filled out with 0s into lo and with Fs into hi. */
void kpi__uuid_range(const char *prefix, char lo[33], char hi[33]);
/* A stored UUID (32 hex digits, as kpi__image's uuid_hex) in its dashed
 * upper-case form into out; "" when hex is NULL or not one. */
void kpi__uuid_pretty(const char *hex, char out[37]);

/* One row of trend_rows: n reports of group_id on day (floor(ts / 86400),
 * days since the epoch, UTC; KPI__UNDATED for undated reports) with that
 * OS version (NULL when unknown).  Non-zero stops. */
typedef int (*kpi__trend_fn)(void *ctx, int64_t group_id, int64_t day, const char *os_version,
                             int64_t n);

/* Return non-zero to stop. */
typedef int (*kpi__path_fn)(void *ctx, const char *path);

typedef struct kpi__store_ops {
	const char *name;
	/* The scanner commits after this many files (or two seconds): sqlite
	 * batches, a shared server commits each report on its own so that
	 * concurrent pushers never hold each other's locks for long. */
	size_t batch_files;
	/* True when report_add keeps its group's counts itself (then the
	 * scanner refreshes no group for an added report; superseding and
	 * re-signing still do). */
	bool counts_on_add;
	void (*close)(kpi_db *db);
	kp_status (*begin)(kpi_db *db, kp_error *err);
	kp_status (*commit)(kpi_db *db, kp_error *err);
	void (*rollback)(kpi_db *db);
	/* True for the store's own files (a scan skips them); may be NULL. */
	bool (*is_own_file)(kpi_db *db, const struct stat *st);
	/* True once the store cannot be reached at all (a server's connection
	 * dropped: killed, or the server restarted): a failure then is the
	 * store's, not the file's, so a scan stops with that one error instead
	 * of counting the file and failing again on the next; the next run
	 * resumes.  NULL for a store that cannot lose one. */
	bool (*lost)(kpi_db *db);

	kp_status (*path_get)(kpi_db *db, const char *path, kpi__path_rec *out, kp_error *err);
	/* Records (or updates) a path; report_id 0 with skip = why it is not one. */
	kp_status (*path_put)(kpi_db *db, const char *path, int64_t report_id, int64_t size,
	                      int64_t mtime_ns, int64_t seen_at, const char *skip, kp_error *err);
	/* Paths of report id, most recently seen first. */
	kp_status (*report_paths)(kpi_db *db, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err);

	/* The report with that content hash (incident_id NULL) or incident id
	 * (hash NULL); *id 0 when none. */
	kp_status (*report_find)(kpi_db *db, const char *hash, const char *incident_id, int64_t *id,
	                         kp_error *err);
	/* Adds r (images and text with it) unless a report with r's content
	 * hash or incident id is stored (or is being stored by a writer it
	 * waited for): then *added is false and *id 0.  Callers find-or-add
	 * through kpi__report_add. */
	kp_status (*report_add)(kpi_db *db, const kpi__new_report *r, int64_t *id, bool *added,
	                        kp_error *err);
	kp_status (*archive_add)(kpi_db *db, int64_t id, const void *z, size_t zlen, kp_error *err);
	/* Supersede: report id (a record of the same report, e.g. cut short
	 * because it was read while being written) becomes r in place, in one
	 * op inside the caller's transaction: its content hash, incident id,
	 * size, fields, keys and group (r->group_id), images and search text
	 * all replaced by r's, its archive replaced by z (zlen bytes, as for
	 * archive_add); id, seq and its recorded paths are kept.  old_text is
	 * the search text the record was stored with (what report_add got as
	 * text; NULL for none), for a text index that cannot forget a row
	 * without it (sqlite's contentless FTS5); others may ignore it.  The
	 * counts of both groups, old and new, are the caller's to refresh
	 * (groups_refresh), unlike report_add's.  Which record wins is the scanner's rule, not the
	 * store's.  KP_ERR_NOTFOUND for an unknown id; KP_ERR_DB when r's hash
	 * or incident id belongs to another report (never merged). */
	kp_status (*report_replace)(kpi_db *db, int64_t id, const kpi__new_report *r,
	                            const char *old_text, const void *z, size_t zlen, kp_error *err);
	/* KP_ERR_NOTFOUND for an unknown id; KP_ERR_DB saying so when the
	 * report is known but its archive is missing (out->group_id,
	 * out->host, out->size and out->hash are still set then). */
	kp_status (*archive_get)(kpi_db *db, int64_t id, kpi__archive *out, kp_error *err);
	/* Every report id, ascending (*ids malloc'd). */
	kp_status (*report_ids)(kpi_db *db, int64_t **ids, size_t *n, kp_error *err);
	kp_status (*report_regroup)(kpi_db *db, int64_t id, const char *headline,
	                            const char *exact_key, int64_t group_id, kp_error *err);
	/* Sets kind, zone, ts and class of report id (re-signing, the
	 * schema 4 and 12 fills).  The group's first/last seen are the caller's to refresh. */
	kp_status (*report_facts)(kpi_db *db, int64_t id, const kpi__facts *f, kp_error *err);
	/* Sets the loaded kexts of report id (the schema 8 fill; report_add
	 * and report_replace take them with the report). */
	kp_status (*report_kexts)(kpi_db *db, int64_t id, const kpi__kext_set *ks, kp_error *err);
	/* Adds the search text of report id, which has none (the schema 9
	 * fill, after the store's own step at 9 emptied a text search kept
	 * apart); NULL for a store whose text needs no refill (PostgreSQL's
	 * is a column of each report, and no delete depends on it). */
	kp_status (*report_text)(kpi_db *db, int64_t id, const char *text, kp_error *err);
	/* Sets the content hash of report id (the schema 11 fill: SHA-1 to
	 * SHA-256); KP_ERR_DB when another report has that hash. */
	kp_status (*report_rehash)(kpi_db *db, int64_t id, const char *hash, kp_error *err);

	/* Find-or-add the group of key; retitle sets title and culprit of an
	 * existing one too. */
	kp_status (*group_add)(kpi_db *db, const char *key, const char *title, const char *culprit,
	                       bool retitle, int64_t *gid, kp_error *err);
	/* Recounts the groups (count, first and last seen). */
	kp_status (*groups_refresh)(kpi_db *db, const int64_t *gids, size_t n, kp_error *err);
	kp_status (*groups_prune)(kpi_db *db, kp_error *err);   /* removes empty groups */

	/* Queries as in kp_index.h; row paths are the most recently seen ones
	 * (index.c swaps in one that still exists). */
	kp_status (*list_reports)(kpi_db *db, const char *host, kpi_report_fn fn, void *ctx,
	                          kp_error *err);   /* host NULL: every report */
	kp_status (*list_hosts)(kpi_db *db, kpi_host_fn fn, void *ctx, kp_error *err);
	kp_status (*list_groups)(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);
	kp_status (*list_group_counts)(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);
	/* Every report once as (group, day, OS version): rows may repeat a
	 * combination (the caller adds them up) and come in no order; what
	 * kpi_group_trends (trend.c) reads, in one pass.  Unlike other
	 * callbacks', fn calls no op of the handle (a row costs no more than
	 * its summing: the query time limit runs on through it). */
	kp_status (*trend_rows)(kpi_db *db, kpi__trend_fn fn, void *ctx, kp_error *err);
	/* Pages of search and list_reports (kp_index.h kpi_page): rows in
	 * the same order, one per report (its best match: lowest rank, then
	 * uuid, then name), those after (page->after_ts, after_id) when
	 * after_id > 0; sets total on the first page, rows, done and the
	 * cursor (the ts and id of the last row passed to fn). */
	kp_status (*search_page)(kpi_db *db, kpi__search kind, const char *arg, kpi_page *page,
	                         kpi_report_fn fn, void *ctx, kp_error *err);
	kp_status (*list_page)(kpi_db *db, kpi_page *page, kpi_report_fn fn, void *ctx,
	                       kp_error *err);

	/* *value malloc'd, NULL when the key is unset.  set runs in its own
	 * transaction, or in the one open (a migration's fill). */
	kp_status (*meta_get)(kpi_db *db, const char *key, char **value, kp_error *err);
	kp_status (*meta_set)(kpi_db *db, const char *key, const char *value, kp_error *err);
} kpi__store_ops;

/* Above the seam, the same for every store (seam.c). */

/* Find-or-add: the id of the report with r's content hash or incident id,
 * adding r through report_add when there is none (*added then). */
kp_status kpi__report_add(kpi_db *db, const kpi__new_report *r, int64_t *id, bool *added, kp_error *err);

/* Every store's handle starts with this. */
struct kpi_db {
	const kpi__store_ops *ops;
	char host[256];       /* the pushing machine (kpi_set_host): keys paths */
	char report_host[256];   /* the Mac the scanned reports come from, "" unknown */
};

/* What a migration needs of the reports is the index layer's to fill, since
 * a store never reads report files: after each schema step, inside the
 * migration's transaction, a store calls this with the version reached (the
 * handle's ops set; it reads and writes through them only, no begin/commit
 * of its own).  index.c passes kpi_open's. */
typedef kp_status (*kpi__migrated_fn)(kpi_db *db, int version, kp_error *err);

/* The sqlite store: target is a file path. */
kp_status kpi__sqlite_open(const char *path, unsigned flags, kpi__migrated_fn migrated, kpi_db **out,
                           kp_error *err);
/* kpi_rebuild's reading of an old sqlite index that may be damaged: every
 * report whose row and archive can still be read, in id order, with its
 * most recently seen path ("" when none can be read), passed to fn (a
 * non-zero return stops).  A report that cannot be read is counted in
 * *unreadable and skipped: damage stops no more than the rows it is in.
 * KP_ERR_DB naming path when the file cannot be read at all or is the
 * database of another program (*foreign true then: never to be replaced). */
typedef int (*kpi__salvage_fn)(void *ctx, const kpi__archive *a, const char *path);
kp_status kpi__sqlite_salvage(const char *path, kpi__salvage_fn fn, void *ctx, size_t *unreadable,
                              bool *foreign, kp_error *err);

/* The PostgreSQL store (store_pg*.c, the only files that include libpq-fe.h;
 * built with KP_HAVE_LIBPQ): target is a libpq URI or key=value string. */
kp_status kpi__pg_open(const char *target, unsigned flags, kpi__migrated_fn migrated, kpi_db **out,
                       kp_error *err);

#endif
