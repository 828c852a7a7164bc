/* kpt_catalog.h: the panic list as the index has it (catalog.c).  The app
 * owns one catalog; its strings live in a pool that one reload replaces,
 * so borrowed entry/group strings stay valid until the next reload (which
 * bumps generation).  It borrows the index connection and its path from
 * kpt_catalog_open until kpt_catalog_free, and sees nothing else of the
 * app: errors come back as values for the caller to show.  UI thread only. */
#ifndef KPT_CATALOG_H
#define KPT_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

#include "kp_index.h"

typedef struct kpt_entry {
	int64_t id;
	const char *path, *date, *os, *headline, *culprit;
	const char *host;        /* the Mac it came from, or NULL */
	const char *kind;        /* "panic", "watchdog", "stackshot", "reset"; NULL unknown */
	const char *cls;         /* cause class id (kp_class_name); NULL unknown */
	int64_t group_id, count;
	bool is_new;
} kpt_entry;

typedef struct kpt_group {
	int64_t id;
	const char *title, *culprit, *last_seen, *first_seen;
	int64_t count;
	int64_t hosts;           /* distinct Macs */
	const kpi_trend *trend;  /* how it moves (the catalog's trends), NULL when unknown */
	int64_t *ids;
	size_t nids;
} kpt_group;

typedef struct kpt_catalog {
	kpt_entry *e;
	size_t n, cap;
	kpt_group *g;
	size_t ng, gcap;
	struct kpt_strpool *pool;
	/* every group's trend, read with the groups (NULL when it could not
	 * be: the list goes on without, trend_error says why) */
	kpi_trends *trends;
	char trend_error[160];
	bool no_trends;          /* set before kpt_catalog_open: none read (the
	                            list as before them, for the benchmarks) */
	unsigned generation;     /* bumped by every reload */
	int64_t seen_seq;        /* report seqs above it are "new since last launch" */
	int64_t max_seq;         /* the largest seq loaded, saved at quit */
	bool state_read;
	bool many_hosts;         /* reports from more than one Mac: a host column */
	int os_w;                /* the widest brief OS label ("bridgeOS 6.2") */
	bool scanning;           /* the scanner is filling the index */
	size_t scan_files, scan_new;
	size_t scan_total;       /* files the scan counted before it began (0: not yet) */
	char scan_path[256];
	/* kpt_catalog_open: the first page is in, the rest loading */
	bool partial;
	size_t total;            /* reports in the index when the first page was read */
	struct kpt_catload *rest;   /* the background load of the rest, or NULL */
	kpi_db *db;              /* borrowed (kpt_catalog_open) */
	const char *db_path;     /* borrowed: the rest's thread opens its own connection */
} kpt_catalog;

/* Re-reads groups and reports from the index (which also keeps the "seen"
 * state between launches, kpi_meta). */
kp_status kpt_catalog_reload(kpt_catalog *c, kp_error *err);
/* The first load, for a quick first paint on a big index: the groups and
 * the newest KPT_CATALOG_FIRST reports now (partial set when there are
 * more), the whole list on a thread of its own with its own connection
 * to app->cfg.db_path, adopted by kpt_catalog_poll as a reload would be
 * (dropped when a reload came first).  kpt_catalog_fd / kpt_catalog_poll
 * are an event source of the app's loop; without one (no thread) the
 * whole list loads at once. */
#define KPT_CATALOG_FIRST 200
kp_status kpt_catalog_open(kpt_catalog *c, kpi_db *db, const char *db_path, kp_error *err);
/* A reload on that thread (the scanner's, as reports arrive): the list
 * on screen stays until the new one is in; one load at a time, another
 * after it when asked meanwhile.  At once without a thread. */
kp_status kpt_catalog_refresh(kpt_catalog *c, kp_error *err);
int kpt_catalog_fd(const kpt_catalog *c);   /* -1 when nothing is loading */
/* True when the list changed (the rest came in, or stopped: err says why
 * when it could not be read, else err is untouched). */
bool kpt_catalog_poll(kpt_catalog *c, kp_error *err);
void kpt_catalog_free(kpt_catalog *c);
const kpt_entry *kpt_catalog_find(const kpt_catalog *c, int64_t id);
/* Remembers the largest id seen, for the next launch's "new" marks. */
void kpt_catalog_save_state(kpt_catalog *c);

#endif
