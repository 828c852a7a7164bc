/* scan.h: private to the scanner (scan*.c): the state of one scan or
 * re-sign and the pieces its files share.  scan.c walks the folders and
 * owns the batches (tx_begin/tx_commit around kpi__scan_file calls);
 * scan_file.c does one file's work inside an open batch; both record what
 * happened through scan_summary.c.  Calls go one way only: scan.c to
 * scan_file.c, both to scan_summary.c.
 * Ownership: a scan borrows db, err and sum from its caller; dirty and the
 * summary's error list grow with kp_vec_push (freed by scan.c and
 * kpi_summary_free). */
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
} scan;

/* scan_summary.c.  Adds path: msg to the summary's errors (KP_ERR_NOMEM only). */
kp_status kpi__scan_add_error(scan *s, const char *path, const char *msg);
/* Adds path: msg to the summary's warnings (KP_ERR_NOMEM only). */
kp_status kpi__scan_add_warning(scan *s, const char *path, const char *msg);
/* Counts path as skipped and adds path: why to the summary's skip list. */
kp_status kpi__scan_add_skip(scan *s, const char *path, const char *why);
/* Notes group gid as touched in this batch (refreshed when it commits). */
kp_status kpi__scan_mark_dirty(scan *s, int64_t gid);
/* scan_file.c.  Finds or creates the group of sig; *gid gets its id. */
kp_status kpi__scan_group_for(kpi_db *db, const kp_sig *sig, bool retitle, int64_t *gid,
                              kp_error *err);
/* The schema 4 facts of a parsed report (strings borrowed from r). */
void kpi__report_facts(const kp_report *r, kpi__facts *out);
/* One file found by the walk (lst: its lstat), inside an open batch: read
 * once, parsed, signed and recorded, or skipped or noted as an error. */
kp_status kpi__scan_file(scan *s, const char *path, const struct stat *lst);

/* The schema 4 fill, run by index.c's migration hook (kpi__migrated_fn) at
 * version 4 inside the migration's transaction: every report's facts from
 * its archive (a damaged one is left as it was), then its groups
 * recounted. */
kp_status kpi__fill_v4(kpi_db *db, kp_error *err);

#endif
