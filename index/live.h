/* live.h: private to index/: report rows whose path still exists.  The
 * listing and search functions of index.c pass their caller's callback
 * through kpi__live_row, which swaps a vanished path for another recorded
 * one that exists.
 *
 * Whether a path exists is asked as stat() would say it, without one
 * stat() per row: a folder that serves many rows is listed once and its
 * names looked up in the listing.  An entry whose type says what stat()
 * would find (anything but a symbolic link or an unknown type) exists; a
 * name not in the listing does not; a symbolic link, an unknown type, a
 * folder that cannot be listed or searched, and the first LIVE_LIST_AFTER
 * paths of each folder (a short search result lists nothing) are asked of
 * stat() itself.  The listing is a snapshot taken at the folder's first
 * use, as racy as a stat() at that moment.
 *
 * Ownership: a kpi__live_rows is the caller's, zero-initialised but for
 * db, fn and ctx; kpi__live_free releases its cache after the query. */
#ifndef KPI_LIVE_H
#define KPI_LIVE_H

#include "kpi_store.h"

#include <stdint.h>

#include "kp_htab.h"

typedef struct kpi__live_dir {
	char *dir;            /* as the paths spell it */
	size_t dlen;
	unsigned hits;
	int state;            /* 0 not listed yet, 1 listed, -1 ask stat() */
	char *blob;           /* the names, NUL-separated */
	size_t *offs;         /* name i at blob + offs[i] */
	unsigned char *types; /* d_type of name i */
	kp_htab names;        /* i + 1 of each name */
} kpi__live_dir;

typedef struct kpi__live_cache {
	kpi__live_dir *dirs;
	size_t n, cap;
	size_t last;          /* the folder of the previous lookup */
} kpi__live_cache;

/* Wraps the caller's row callback: the row's path becomes one that still
 * exists (the most recently seen, else any recorded one that does, in
 * the store's order: most recently seen first). */
typedef struct kpi__live_rows {
	kpi_db *db;
	kpi_report_fn fn;
	void *ctx;
	char *live;
	kpi__live_cache cache;
} kpi__live_rows;

/* The row callback: calls l->fn with the row, its path made a live one. */
int kpi__live_row(void *ctx, const kpi_report_row *row);
void kpi__live_free(kpi__live_cache *c);

#endif
