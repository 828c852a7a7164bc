/* scan.h: private to the scanner (scan*.c): the state of one scan or
 * re-sign and the pieces its files share.  scan.c walks the folders and
 * owns the batches (tx_begin/tx_commit around kpi__scan_file calls);
 * scan_file.c does one file's work: what needs no store (reading, hashing,
 * parsing, packing: a kpi__prep, done ahead on scan_pool.c's threads or in
 * place) and the recording inside an open batch; all record what happened
 * through scan_summary.c.  Calls go one way only: scan.c to scan_pool.c and
 * scan_file.c, scan_pool.c to scan_file.c's prep functions, scan.c and
 * scan_file.c to scan_summary.c.
 * Ownership: a scan borrows db, err and sum from its caller; dirty and the
 * summary's error list grow with kp_vec_push (freed by scan.c and
 * kpi_summary_free); a kpi__prep owns everything in it (kpi__prep_free). */
#ifndef KPI_SCAN_H
#define KPI_SCAN_H

#include "kpi_store.h"

#include <sys/stat.h>

typedef struct scan {
	kpi_db *db;
	kp_sig_symbol_fn sym;
	void *sym_ctx;
	kpi_progress_fn fn;
	void *ctx;
	kpi_summary *sum;
	kp_error *err;
	size_t batch_work;
	int64_t batch_start;
	int64_t now;   /* the scan's start: every path it sees gets it as seen_at, so two copies
	                  seen in one scan tie and their order is by path, not by batch timing */
	int64_t *dirty;       /* groups touched in this batch */
	size_t ndirty, dirty_cap;
	size_t errors_cap;    /* of sum->error_list */
	size_t skips_cap;     /* of sum->skip_list */
	size_t warnings_cap;  /* of sum->warning_list */
	/* stored in the open batch: added to the summary when it commits */
	size_t pend_new, pend_superseded;
	bool in_tx;
	size_t total;         /* files counted before the walk, for progress */
	struct kpi__pool *pool; /* the workers preparing files ahead, or NULL */
	bool sha1_left;       /* the index holds SHA-1 content hashes (KPI__META_SHA1_LEFT) */
} scan;

/* A file's work that needs no store, done by kpi__prep_read and
 * kpi__prep_parse on a worker thread (they touch nothing but *p) or in
 * place, then recorded by kpi__scan_file in walk order.  Errors are kept
 * as values here and become the scan's when the file is recorded. */
typedef struct kpi__prep {
	char *path;
	struct stat lst;          /* the walk's lstat */
	bool sign;                /* sign in kpi__prep_parse (no symbol callback: one that
	                             may not run on another thread signs in kpi__scan_file) */
	unsigned parse_flags;     /* kp_report_parse_flags': KP_PARSE_SKIM_FRAMES from
	                             kpi__prep_new (a record reads only the panicked
	                             thread's frames); 0 parses whole (tests compare) */
	/* kpi__prep_read */
	bool read;
	kp_status read_st;        /* kp_fs_read_file's */
	kp_error read_err;
	bool gone;                /* the read failed: no such file any more */
	bool changing;            /* changed while read: data NULL */
	char *data;               /* NUL-terminated, len bytes */
	size_t len;
	struct stat st;           /* of the open file */
	char hash[KP_SHA256_HEX]; /* of data: KPI__CONTENT_HASH */
	kp_format fmt;            /* kp_report_sniff's */
	/* kpi__prep_parse */
	bool parsed;
	kp_status parse_st;
	kp_error parse_err;
	kp_report *r;             /* when parse_st is KP_OK */
	kp_status rec_st;         /* the parts below, when parse_st is KP_OK */
	kp_error rec_err;
	bool have_sig;            /* sig computed */
	kp_sig sig;
	void *z;                  /* the archive */
	size_t zlen;
	kpi__image *images;       /* names borrowed from r; sorted, no two alike */
	size_t nimages, images_cap;
	char images_hash[KP_SHA256_HEX]; /* kpi__images_canon's */
	char *body;               /* search text, NULL when r has none */
	char key[64];             /* the host key, "" when none */
	kpi__image *kexts;        /* the loaded kext set's members (names borrowed from r) */
	kpi__kext_set kset;       /* over kexts */
	kpi__facts facts;         /* kpi__report_facts' (strings borrowed from r or static) */
} kpi__prep;

/* A prep for path (lst: its lstat), nothing done yet; NULL when out of memory. */
kpi__prep *kpi__prep_new(const char *path, const struct stat *lst, bool sign);
/* Reads, hashes and sniffs p's file (once; again is a no-op). */
void kpi__prep_read(kpi__prep *p);
/* Parses what kpi__prep_read read and makes the parts of its record (once;
 * nothing when the read gave no bytes or they are binary). */
void kpi__prep_parse(kpi__prep *p);
void kpi__prep_free(kpi__prep **p);

/* scan_pool.c: the workers (threads of their own) preparing files ahead of
 * the writer, handed back in the order they were pushed. */
typedef struct kpi__pool kpi__pool;
/* NULL when one thread is all there is to use: one CPU, or
 * KPBROWSE_INDEX_THREADS=0 (its number of workers, at most 16; default:
 * the CPUs online), or no thread could be started; then files are
 * prepared in place. */
kpi__pool *kpi__pool_new(void);
/* Whether another prep may be pushed (the queue is bounded in files and
 * bytes; an empty queue always takes one). */
bool kpi__pool_room(const kpi__pool *pl, const kpi__prep *p);
/* Hands p to the workers (the pool owns it until popped). */
void kpi__pool_push(kpi__pool *pl, kpi__prep *p);
/* The oldest prep pushed, once its worker is done with it (the caller's
 * then); NULL when none is queued. */
kpi__prep *kpi__pool_pop(kpi__pool *pl);
/* Stops the workers and frees what is still queued. */
void kpi__pool_free(kpi__pool **pl);

/* scan_summary.c.  Adds path: msg to the summary's errors (KP_ERR_NOMEM only). */
kp_status kpi__scan_add_error(scan *s, const char *path, const char *msg);
/* Adds path: msg to the summary's warnings (KP_ERR_NOMEM only). */
kp_status kpi__scan_add_warning(scan *s, const char *path, const char *msg);
/* Counts path as skipped and adds path: why to the summary's skip list. */
kp_status kpi__scan_add_skip(scan *s, const char *path, const char *why);
/* Notes group gid as touched in this batch (refreshed when it commits). */
kp_status kpi__scan_mark_dirty(scan *s, int64_t gid);
/* scan_file.c.  Records a report from its bytes (data: malloc'd, NUL-
 * terminated, taken over) as a scan records a file, at path (its last path
 * in an old index, "" for none; left out when the path is recorded with
 * another file's report): kpi_rebuild's reports that only an archive
 * holds.  *stored: it was not in the index yet and now is. */
kp_status kpi__scan_bytes(scan *s, const char *path, char *data, size_t len, bool *stored);
/* scan.c.  kpi_rebuild's second half: every report the old index at path
 * still holds (kpi__sqlite_salvage), recorded by kpi__scan_bytes in
 * batches into db. */
kp_status kpi__scan_salvage(kpi_db *db, const char *old_path, kp_sig_symbol_fn sym, void *sym_ctx,
                            kpi_rebuild_summary *out, kp_error *err);
/* scan_file.c.  Finds or creates the group of sig; *gid gets its id. */
kp_status kpi__scan_group_for(kpi_db *db, const kp_sig *sig, bool retitle, int64_t *gid,
                              kp_error *err);
/* r's text for the store's text search (malloc'd; NULL when r has none,
 * or when out of memory: *oom says which): at most KPI__SEARCH_TEXT_MAX
 * bytes, cut after the last whole word that fits, the same for every
 * store (PostgreSQL refuses a tsvector whose words pass 1 MiB, and
 * lower-casing can grow UTF-8 text by half). */
#define KPI__SEARCH_TEXT_MAX ((size_t)512 << 10)
char *kpi__search_text(const kp_report *r, bool *oom);
/* The schema 4 and 12 facts of a parsed report (strings borrowed from r
 * or static). */
void kpi__report_facts(const kp_report *r, kpi__facts *out);
/* The first look at a file found by the walk (lst: its lstat), in walk
 * order: counted, shown to progress, and compared with its path record.
 * *work false when there is nothing more to do (the store's own file,
 * unchanged, a known skip); else kpi__scan_file records it. */
kp_status kpi__scan_look(scan *s, const char *path, const struct stat *lst, bool *work);
/* One file that kpi__scan_look left work for, inside an open batch, in walk
 * order: read once, parsed, signed and recorded, or skipped or noted as an
 * error; p's steps not done yet (all of them on the writer's own thread)
 * are done here. */
kp_status kpi__scan_file(scan *s, kpi__prep *p);

/* The loaded kexts of r as a set (schema 8): *kexts malloc'd (names
 * borrowed from r; NULL when r lists none), out->kexts pointing at it.
 * KP_ERR_NOMEM only. */
kp_status kpi__report_kexts(const kp_report *r, kpi__image **kexts, kpi__kext_set *out);

#endif
