/* kp_index.h: the panic index, a database of every panic seen, kept by a
 * store (today: an sqlite file; the store is chosen by kpi_open's target).
 *
 * Ownership: a kpi_db handle is owned by its opener and released by
 * kpi_close(); strings in rows passed to callbacks are borrowed and valid
 * only during the callback; a kpi_summary owns its error list (kpi_summary_free).
 *
 * Order of calls: kpi_open, then any of scan/resign/queries, then kpi_close.
 * One handle is used by one thread; several processes may share a database
 * (every write is one transaction that waits for other writers).  The
 * index never prints; progress comes through a callback.
 *
 * Report files are only ever opened O_RDONLY; the only file the index writes
 * besides the store's own is the target of kpi_export. */
#ifndef KP_INDEX_H
#define KP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"
#include "kp_report.h"
#include "kp_signature.h"

typedef struct kpi_db kpi_db;

#define KPI_SCHEMA_VERSION 13

enum {
	KPI_OPEN_CREATE = 1,   /* create the file (and its folder) when missing */
	/* create or migrate the schema on a server (`kpbrowse db init`); a
	 * server's schema is otherwise never changed by kpi_open */
	KPI_OPEN_INIT = 2,
	KPI_OPEN_READONLY = 4, /* only read (an older schema that may be written is migrated first) */
};

/* The database path: explicit when non-NULL and non-empty, else
 * $KPBROWSE_DB, else on macOS ~/Library/Application Support/kpbrowse/
 * index.sqlite3, elsewhere $XDG_DATA_HOME/kpbrowse/index.sqlite3 (XDG only
 * when absolute), else ~/.local/share/kpbrowse/index.sqlite3.  Writes into
 * buf; KP_ERR_USAGE when no home directory is known or buf is too small. */
kp_status kpi_default_path(const char *explicit_path, char *buf, size_t size, kp_error *err);

/* Opens (and with KPI_OPEN_CREATE creates) the index at target, migrating
 * an older schema.  The target picks the store: a file path is an sqlite
 * index; "postgresql://...", "postgres://..." or a libpq "key=value ..."
 * string names a PostgreSQL server (credentials only by libpq's own
 * conventions: ~/.pgpass, PGPASSFILE, service files, the environment;
 * sslmode as the target or PGSSLMODE says).  A server without the schema
 * (or with an older one) needs KPI_OPEN_INIT: KP_ERR_NOTFOUND naming `kpbrowse db init`
 * otherwise.  Something that is not a kpbrowse index (not SQLite, another
 * application's database, a newer schema, corrupt) is refused with
 * KP_ERR_DB and a message naming target, and is never written to.  A
 * missing file without KPI_OPEN_CREATE is KP_ERR_NOTFOUND.  An index this
 * process cannot write (the file, or the folder its journal files go in:
 * a shared index on a read-only mount) opens read-only as with
 * KPI_OPEN_READONLY: every query works, and every write (scan, resign,
 * meta_set) fails with KP_ERR_DB saying the index is read-only.  When it
 * cannot be read either, the message says why (permissions, an older
 * schema that needs one writable open to upgrade). */
kp_status kpi_open(const char *target, unsigned flags, kpi_db **out, kp_error *err);
void kpi_close(kpi_db **db);

/* True when target names a PostgreSQL server rather than a file. */
bool kpi_target_is_postgres(const char *target);

/* target as every message and JSON output shows it: a password (in a URI's
 * user info up to its last '@', a "password=" parameter, a key=value pair
 * quoted or with escapes, or inside a dbname that is itself a URI or
 * key=value string) becomes "***".
 * Always NUL-terminates buf (truncating). */
void kpi_target_display(const char *target, char *buf, size_t size);

/* text (a message from libpq or the server) as it may be shown: the raw
 * target replaced by its display, every password of the target (as written
 * and as libpq decodes it: %XX, backslash escapes, quotes) and PGPASSWORD's
 * value replaced by "***".  Into buf (size), truncating. */
void kpi_mask_secrets(const char *target, const char *text, char *buf, size_t size);

/* The pushing machine's name recorded with the reports and paths a scan
 * stores: kpi_open sets it from $KPBROWSE_HOST, else gethostname(); this
 * overrides it (truncated to 255 bytes). */
void kpi_set_host(kpi_db *db, const char *name);
const char *kpi_host(const kpi_db *db);

/* The Mac the reports a scan stores come from (reports.host): kpi_open sets
 * it from $KPBROWSE_HOST only; a caller that knows sets it (index --host, or
 * a Mac scanning its own report folders); NULL or "" is unknown, stored as
 * NULL and shown as such.  The report's own key (crashReporterKey,
 * Anonymous UUID) is kept whatever this says. */
void kpi_set_report_host(kpi_db *db, const char *name);
/* p (a file or folder as the user named it) spelled as a scan stores the
 * paths under it: absolute (against the current folder), its folder
 * resolved; into buf.  False when it does not fit. */
bool kpi_root_path(const char *p, char *buf, size_t cap);

/* The scan reads this machine's own report folders (no PATH given): on a
 * Mac they are its own reports, and its name (kpi_host) becomes theirs
 * unless a host is set already; elsewhere they stay unknown. */
void kpi_set_report_host_own(kpi_db *db);

/* ---- state kept with the index (e.g. the TUI's "seen until") ---- */

/* *value is malloc'd (caller frees), NULL when key is unset.  Keys are
 * short dotted names ("tui.seen_seq"); the index's own keys have no dot. */
kp_status kpi_meta_get(kpi_db *db, const char *key, char **value, kp_error *err);
/* Sets key in a transaction of its own (not during kpi_scan on the handle);
 * KP_ERR_USAGE for a key without a dot (the index's own). */
kp_status kpi_meta_set(kpi_db *db, const char *key, const char *value, kp_error *err);

/* ---- scanning ---- */

typedef struct kpi_progress {
	size_t files_seen;     /* files looked at so far */
	size_t new_reports;
	const char *path;      /* the file being looked at */
	size_t files_total;    /* files the scan will look at, as counted before it began
	                          (files_seen may pass it when files appear meanwhile) */
} kpi_progress;

/* Called once per file, before it is read. */
typedef void (*kpi_progress_fn)(void *ctx, const kpi_progress *p);

typedef struct kpi_scan_error {
	char *path;
	char *msg;
} kpi_scan_error;

typedef struct kpi_summary {
	size_t files;          /* regular files looked at */
	size_t new_reports;    /* panics not in the index before */
	size_t unchanged;      /* known path with the same size and mtime (or content) */
	size_t duplicates;     /* a known report (same content, or the same incident id over
	                        * bytes that continue it) under a new path */
	size_t superseded;     /* a record cut short (read while being written) replaced by the
	                        * complete report: see kpi_scan */
	size_t changing;       /* changed while being read: not recorded, read again by the next scan */
	size_t skipped;        /* not a panic report (other bug_type, binary, unrecognised text) */
	size_t errors;         /* == nerror_list */
	kpi_scan_error *error_list;
	size_t nerror_list;
	/* every file skipped in this scan and why (not a report, too large,
	 * gone: moved away or removed while the scan ran), for `index -v`;
	 * a file gone is counted in skipped, never an error */
	kpi_scan_error *skip_list;
	size_t nskip_list;
	/* stored, but worth saying: another report's incident id over other
	 * content (stored as a report of its own, its id not recorded) */
	kpi_scan_error *warning_list;
	size_t nwarning_list;
} kpi_summary;

void kpi_summary_free(kpi_summary *s);

/* Scans files and folders (recursively; symbolic links to folders are not
 * followed) and records every panic report.  Paths that do not exist count
 * as nothing (the default folders often do not exist); an unreadable one is
 * an error in the summary.  Work is committed in batches, so an interrupted
 * scan leaves a consistent index and a rerun completes it.  Fails (KP_ERR_DB,
 * KP_ERR_NOMEM) only when the database itself fails; the summary then holds
 * what was committed (new_reports and superseded count stored reports only).
 * fn may be NULL. sym may be NULL (see kp_sig_compute).
 *
 * Reports being written: a file whose size or mtime changes while it is read
 * is not recorded (summary.changing) and is read again by the next scan.  A
 * complete report supersedes a truncated record of the same report (same
 * incident id, or a file at the same path that now continues the archived
 * bytes) in place: archive, fields, keys and group re-derived, id and paths
 * kept; so does a longer cut of it.  A truncated copy of a report stored
 * complete is a duplicate.  Paths are made absolute and normalised
 * lexically (no "//", "." or ".."), so one file is one path. */
kp_status kpi_scan(kpi_db *db, const char *const *paths, size_t npaths,
                   kp_sig_symbol_fn sym, void *sym_ctx, kpi_progress_fn fn, void *ctx,
                   kpi_summary *out, kp_error *err);

typedef struct kpi_resign_summary {
	size_t reports;        /* reports in the index */
	size_t resigned;       /* re-signed and committed */
	size_t changed;        /* of those, the ones whose group changed */
	kpi_scan_error *error_list;   /* skipped: path "@ID", why (damaged archive, ...) */
	size_t nerror_list;
} kpi_resign_summary;

void kpi_resign_summary_free(kpi_resign_summary *s);

/* Recomputes every report's keys, group, title and culprit from its
 * archived bytes, with symbols from fn (NULL: the reports' own).  Groups
 * left empty are removed.  A report whose archive is missing, damaged or
 * no longer parses is skipped and listed in out; the others go on.  Fails
 * (KP_ERR_DB, KP_ERR_NOMEM) only when the database itself fails; out then
 * holds what was committed.  out may be NULL. */
kp_status kpi_resign(kpi_db *db, kp_sig_symbol_fn fn, void *ctx, kpi_resign_summary *out,
                     kp_error *err);

/* ---- rebuilding a damaged index ---- */

typedef struct kpi_rebuild_summary {
	kpi_summary scan;      /* the folders' scan into the new index */
	kpi_summary archive;   /* the old archive's reports recorded as a scan of them (its
	                          errors name a report by its last path) */
	size_t archived;       /* reports read back from the old index's archive */
	size_t restored;       /* of those, stored from the archive alone (no file of them found) */
	size_t unreadable;     /* reports of the old index that could not be read (damage) */
	bool old_unreadable;   /* the old index could not be read at all (old_error says why) */
	char old_error[300];
	char kept[4200];       /* the old file kept there (damage found), "" when replaced */
} kpi_rebuild_summary;

/* Makes a new sqlite index for target (a file) from the report folders
 * (paths, as kpi_scan) and every report the old index's archive still
 * holds (its reports no file is left of included, at their last paths),
 * in target.rebuild, then renames it over target: a reader sees the old
 * index or the new, never a part.  Report ids and groups are made anew.
 * When the old index had damage (reports it could not read, or the file
 * not readable at all) it is kept as target.damaged (in kept); else it is
 * replaced, its -wal and -shm removed.  The database of another program
 * at target is refused (KP_ERR_DB) and left as it is.  Run it with no
 * other kpbrowse using the index.  KP_ERR_USAGE for a PostgreSQL target. */
kp_status kpi_rebuild(const char *target, const char *const *paths, size_t npaths,
                      kp_sig_symbol_fn sym, void *sym_ctx, kpi_rebuild_summary *out, kp_error *err);
void kpi_rebuild_summary_free(kpi_rebuild_summary *s);

/* ---- archive ---- */

/* Loads report id from its archived original bytes (so it works after the
 * file is gone): decompresses and parses them with kp_report_parse.  The
 * report's path is the report's most recently seen path.  *out belongs to
 * the caller (kp_report_free).  KP_ERR_NOTFOUND for an unknown id.
 * For `kpbrowse show @ID`: parse "@ID" with kpi_parse_id, then kpi_load. */
kp_status kpi_load(kpi_db *db, int64_t id, kp_report **out, kp_error *err);

/* Writes report id's original bytes to path, which must not exist
 * (O_CREAT|O_EXCL, mode 0644 less umask); KP_ERR_IO naming the problem
 * otherwise.  A partial file is removed on failure. */
kp_status kpi_export(kpi_db *db, int64_t id, const char *path, kp_error *err);

/* Writes report id's original bytes to the open fd (e.g. standard output
 * for `export @ID -`); KP_ERR_IO naming the failed write. */
kp_status kpi_export_fd(kpi_db *db, int64_t id, int fd, kp_error *err);

/* Parses "@123" or "123" into *id (every id up to INT64_MAX, the largest a
 * store holds); false when s is not that or is larger. */
bool kpi_parse_id(const char *s, int64_t *id);

/* ---- queries ---- */

typedef struct kpi_match {
	const char *uuid;      /* canonical UUID that matched, or NULL (kext by name) */
	const char *name;      /* bundle id / "kernel" / NULL */
	const char *role;      /* "kernel", "backtrace", "image" or "dependency" */
} kpi_match;

typedef struct kpi_report_row {
	int64_t id;
	int64_t seq;           /* larger for every report stored later: "new since" */
	const char *path;      /* a path that still exists, else the last one seen */
	const char *timestamp; /* as the report wrote it, or NULL */
	const char *os_version;
	const char *headline;
	int64_t group_id;
	int64_t group_count;
	bool archived;         /* the original bytes are in the index */
	const char *host;      /* the Mac it came from: the pushing machine's name, or NULL */
	const char *host_key;  /* the report's own crashReporterKey / Anonymous UUID, or NULL */
	const kpi_match *match;   /* search results only, else NULL */
	/* "panic", "watchdog", "stackshot" or "reset" (kp_kind_name); NULL
	 * only for a report indexed before schema 4 whose archive could not be
	 * read when the migration filled the kinds in (list --kind all shows it) */
	const char *kind;
	/* the cause class id (kp_class_name, issue 34); NULL only for a report
	 * whose archive could not be read when schema 12 filled them in */
	const char *cls;
} kpi_report_row;

typedef struct kpi_group_row {
	int64_t group_id;
	const char *title;
	const char *culprit;   /* or NULL */
	int64_t count;
	int64_t hosts;         /* distinct Macs (host key, else host name) */
	/* ISO 8601 of its oldest and newest dated reports as they state them
	 * (kp_timestamp_iso: "2024-05-01T10:00:00-07:00", or no offset for a
	 * Mac's wall clock); NULL when none of its reports has a date */
	const char *first_seen;
	const char *last_seen;
	const int64_t *report_ids;   /* newest first */
	size_t nreport_ids;
} kpi_group_row;

/* Return non-zero to stop the iteration early (not an error). */
typedef int (*kpi_report_fn)(void *ctx, const kpi_report_row *row);
typedef int (*kpi_group_fn)(void *ctx, const kpi_group_row *row);

/* A report's timestamp as the report wrote it (kp_timestamp_parse's forms:
 * "2024-05-01 10:00:00.00 -0700", ISO 8601, or ctime's "Wed May  1
 * 10:00:00 2024", a wall clock without a zone, read as if UTC) in seconds
 * since the epoch, the index's order; false when it is none of these. */
bool kpi_report_time(const char *timestamp, int64_t *utc);

/* The one date rule of every screen and table: ts (as a report wrote it,
 * or the index's ISO 8601 UTC "...T...Z") as UTC "YYYY-MM-DD HH:MM"
 * (KPI_DATE_UTC) when it states its offset; as the Mac's own wall clock
 * marked "YYYY-MM-DD HH:MM~" (KPI_DATE_LOCAL) when it states none (a
 * legacy .panic's ctime line: never shown as UTC, the zone is unknown);
 * KPI_DATE_NONE (and "-" in out) when it cannot be read (an undated report
 * sorts last).  A column headed "(UTC)" holds both: the ~ says which. */
#define KPI_DATE_LOCAL_MARK "~"
typedef enum kpi_date_kind { KPI_DATE_NONE, KPI_DATE_UTC, KPI_DATE_LOCAL } kpi_date_kind;
kpi_date_kind kpi_date_label(const char *ts, char *out, size_t size);
/* What a line says after kpi_date_label's date: " UTC", " (the Mac's
 * local time)", or "" for none. */
const char *kpi_date_zone(kpi_date_kind k);

/* Reports newest first by their own date; undated reports (no timestamp
 * the index understands: never the file's or the index's time) after
 * every dated one, newest indexed first. */
kp_status kpi_list_reports(kpi_db *db, kpi_report_fn fn, void *ctx, kp_error *err);
/* The same, only the reports of one Mac: host is a host name or host key
 * (exact; any case for a key). */
kp_status kpi_list_reports_host(kpi_db *db, const char *host, kpi_report_fn fn, void *ctx,
                                kp_error *err);

/* A Mac: reports with the same host key (else, without one, the same host
 * name) are one host. */
typedef struct kpi_host_row {
	const char *host;      /* the name it pushed under most recently, or NULL */
	const char *host_key;  /* or NULL */
	const char *model;     /* "MacBookPro18,3", or NULL */
	const char *builds;    /* the OS versions of its reports, distinct, sorted, joined by "\n" */
	int64_t reports;
	const char *last_seen; /* ISO 8601 of its newest report (as first_seen), or NULL */
} kpi_host_row;
typedef int (*kpi_host_fn)(void *ctx, const kpi_host_row *row);
/* Hosts, most recent report first. */
kp_status kpi_list_hosts(kpi_db *db, kpi_host_fn fn, void *ctx, kp_error *err);
/* Groups by count, largest first, then most recent. */
kp_status kpi_list_groups(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);
/* The same groups without their report ids (report_ids NULL, nreport_ids
 * 0): the counts kept with each group, what a screen of groups shows; a
 * lab's index lists them without reading every report id. */
kp_status kpi_list_group_counts(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err);

/* ---- how each group moves (trends) ---- */

/* "Now" for every trend is a day (UTC): $KPBROWSE_NOW when set (epoch
 * seconds, or a date as kpi_report_time reads it, "2026-01-13" too), else
 * the day of the newest dated report in the index (the clock's only when
 * none is dated): an index read later, copied from a lab or a test's
 * fixture shows the same trends any day and on any machine; a report
 * dated ahead (a Mac's clock set wrong) moves it, KPBROWSE_NOW sets it.  KPI_TREND_DAYS days end on it. */
#define KPI_TREND_DAYS 90
#define KPI_TREND_NEW_DAYS 7      /* new: first seen within these last days */
#define KPI_TREND_QUIET_DAYS 30   /* regressed: seen again after this many days without */
/* regressed by build: a build the fleet ran so much that the group, at its
 * usual share of the reports of its own builds, would have had at least
 * this many reports on it, and it had none (a Poisson chance of 5%) */
#define KPI_TREND_STOP_EXPECTED 3

typedef struct kpi_build_count {
	const char *build;     /* "23C64", as kpi_build_of takes it from the OS version */
	int64_t count;
} kpi_build_count;

typedef struct kpi_trend {
	int64_t group_id;
	/* reports per day: days[i] is day day0 + i (days since the epoch,
	 * UTC); the last KPI_TREND_DAYS days up to now, or from the group's
	 * first dated day when that is later; ndays 0 when none is dated */
	int64_t day0;
	int ndays;
	int64_t days[KPI_TREND_DAYS];
	int64_t last7, prev7;          /* reports in the last 7 days and the 7 before */
	/* every day with a dated report, ascending (days since the epoch),
	 * and its count: the group's whole span, for histograms by week */
	const int64_t *day, *day_count;
	size_t nday;
	int64_t undated;               /* reports without a date */
	int64_t first_day, last_day;   /* its oldest and newest dated day; -1 none */
	/* builds with their counts, oldest build first (kpi_build_cmp);
	 * first_build and last_build the oldest and newest, NULL for none */
	const kpi_build_count *builds;
	size_t nbuilds;
	const char *first_build, *last_build;
	bool is_new;                   /* first seen in the last KPI_TREND_NEW_DAYS days, or ... */
	bool new_build;                /* ... within the window on a build newer than every
	                                  build of the index's earlier reports */
	bool regressed;                /* quiet_days or stopped_build */
	int64_t quiet_days;            /* seen in the window after this many days without (>=
	                                  KPI_TREND_QUIET_DAYS; the longest such), else 0 */
	const char *stopped_build;     /* seen on a build newer than this one, where it had
	                                  stopped (KPI_TREND_STOP_EXPECTED), else NULL */
} kpi_trend;

typedef struct kpi_trends kpi_trends;

/* Every group's trend from one pass over the reports (the store's own
 * query, no per-group reads).  *out is the caller's (kpi_trends_free).
 * KP_ERR_USAGE when $KPBROWSE_NOW is set but is no date. */
kp_status kpi_group_trends(kpi_db *db, kpi_trends **out, kp_error *err);
/* The trend of a group (borrowed from t), NULL when it has none. */
const kpi_trend *kpi_trends_get(const kpi_trends *t, int64_t group_id);
int64_t kpi_trends_today(const kpi_trends *t);   /* "now": days since the epoch */
void kpi_trends_free(kpi_trends **t);
/* The build of an OS version: "23C64" of "macOS 14.2 (23C64)" or of a bare
 * "23C64"; false (out "") when it names none.  Builds compare by their
 * major number, letter, number, then the trailing letters (none first):
 * 23C64 < 23D56 < 24A335, 23A344 < 23A5286i; a string that is no build
 * sorts before every build, among themselves by bytes. */
bool kpi_build_of(const char *os_version, char *out, size_t size);
int kpi_build_cmp(const char *a, const char *b);
/* growth for a sort by recent growth: last7 - prev7 */
static inline int64_t kpi_trend_growth(const kpi_trend *t)
{
	return t ? t->last7 - t->prev7 : 0;
}

/* Reports that involve a UUID: full, or a prefix of at least 8 hex digits,
 * any case, dashes optional; matched against binary images, kexts in the
 * backtrace and the kernel UUID.  One row per report (its best match:
 * kernel, backtrace, image, dependency), newest first.  KP_ERR_USAGE for a
 * malformed UUID.  *nfound (may be NULL) gets the row count. */
kp_status kpi_search_uuid(kpi_db *db, const char *uuid, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err);
/* Checks a UUID argument as kpi_search_uuid does (KP_ERR_USAGE naming
 * what is wrong), so a caller can refuse it before printing anything. */
kp_status kpi_check_uuid_arg(const char *uuid, kp_error *err);
/* Reports with a loaded or backtrace kext of that bundle id (any case); a
 * bundle id without a dot is its last part: IOUSBHostFamily finds
 * com.apple.iokit.IOUSBHostFamily (and a kext named just that). */
kp_status kpi_search_kext(kpi_db *db, const char *bundle_id, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err);
/* Panics whose suspect zone (kp_report.zone, a zone exhaustion panic) is
 * name, any case. */
kp_status kpi_search_zone(kpi_db *db, const char *name, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err);
/* Reports whose panic string contains every word of text, by the store's
 * own text search (hex numbers are not indexed, search them by UUID; nor
 * the loaded kext list, search it by kext). */
kp_status kpi_search_text(kpi_db *db, const char *text, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err);

/* ---- pages (a lab's index: tens of thousands of rows) ---- */

/* A search or the listing one page at a time, in the same order and with
 * the same rows as the calls above: zero it, set limit, call, and call
 * again with the same page for the next one until done.  Pages continue
 * after the last row passed (a keyset, not an offset): reports stored in
 * between that sort before it do not shift later pages. */
typedef struct kpi_page {
	size_t limit;          /* in: at most this many reports per call; 0: every one left */
	size_t total;          /* out, set by the first page: every report that matches */
	size_t rows;           /* out: reports passed to fn by this call */
	bool done;             /* out: no report after this page */
	int64_t after_ts, after_id;   /* the store's: where the next page starts (0, 0: the first) */
} kpi_page;

typedef enum kpi_search_kind {
	KPI_SEARCH_UUID,       /* as kpi_search_uuid */
	KPI_SEARCH_KEXT,       /* as kpi_search_kext */
	KPI_SEARCH_TEXT,       /* as kpi_search_text */
	KPI_SEARCH_ZONE,       /* as kpi_search_zone */
} kpi_search_kind;

/* One page of kpi_search_uuid/kext/text/zone (arg as they take it, refused as
 * they refuse it). */
kp_status kpi_search_page(kpi_db *db, kpi_search_kind kind, const char *arg, kpi_page *page,
                          kpi_report_fn fn, void *ctx, kp_error *err);
/* One page of kpi_list_reports. */
kp_status kpi_list_reports_page(kpi_db *db, kpi_page *page, kpi_report_fn fn, void *ctx,
                                kp_error *err);

#endif
