/* catalog.c: the panic list as the index holds it (kpt_catalog.h).
 *
 * "New since last launch": the largest report seq seen when the browser
 * last quit is kept in the index itself (kpi_meta_set, key tui.seen_seq);
 * rows with a larger seq are new (the store guarantees seqs increase). */
#include "kpt_catalog.h"
#include "kpt_term.h"
#include "kpt_draw.h"
#include "kpt_pipe.h"
#include "kpt_xalloc.h"
#include "kp_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- string pool: strings of one catalog generation ---- */

typedef struct kpt_strpool {
	struct kpt_strpool *next;
	size_t used, size;
	char data[];
} kpt_strpool;

static const char *pool_dup(kpt_strpool **pool, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	if (!*pool || (*pool)->size - (*pool)->used < n) {
		size_t size = n > 65536 ? n : 65536;
		kpt_strpool *b = kpt_xmalloc(sizeof *b + size);
		b->next = *pool;
		b->used = 0;
		b->size = size;
		*pool = b;
	}
	char *p = (*pool)->data + (*pool)->used;
	memcpy(p, s, n);
	(*pool)->used += n;
	return p;
}

static void pool_free(kpt_strpool **pool)
{
	while (*pool) {
		kpt_strpool *n = (*pool)->next;
		free(*pool);
		*pool = n;
	}
}

/* ---- listing ---- */

typedef struct load_ctx {
	int64_t seen_seq;        /* copied: a load may run on another thread */
	kpt_strpool *pool;
	kpt_group *g;
	size_t ng, gcap;
	kpt_entry *e;
	size_t n, cap;
	int64_t max_seq;
	bool many_hosts;
	int os_w;
	bool no_trends;
	/* the rest of kpt_catalog_open's list: the first load's trends are
	 * every report's already (the server is not asked twice while the
	 * first screen paints); adopt keeps them */
	bool reuse_trends;
	kpi_trends *trends;
	char trend_error[160];
} load_ctx;

static int on_group(void *ctx, const kpi_group_row *row)
{
	load_ctx *lc = ctx;
	kpt_group *g = kpt_xpush((void **)&lc->g, &lc->ng, &lc->gcap, sizeof *lc->g);
	g->id = row->group_id;
	g->title = pool_dup(&lc->pool, row->title);
	g->culprit = pool_dup(&lc->pool, row->culprit);
	g->last_seen = pool_dup(&lc->pool, row->last_seen);
	g->first_seen = pool_dup(&lc->pool, row->first_seen);
	g->count = row->count;
	g->hosts = row->hosts;
	g->nids = row->nreport_ids;   /* 0: the counts alone are listed */
	g->ids = kpt_xcalloc(g->nids, sizeof *g->ids);
	if (g->nids)
		memcpy(g->ids, row->report_ids, g->nids * sizeof *g->ids);
	return 0;
}

static int on_report(void *ctx, const kpi_report_row *row)
{
	load_ctx *lc = ctx;
	kpt_entry *e = kpt_xpush((void **)&lc->e, &lc->n, &lc->cap, sizeof *lc->e);
	e->id = row->id;
	e->path = pool_dup(&lc->pool, row->path);
	e->date = pool_dup(&lc->pool, row->timestamp);
	e->os = pool_dup(&lc->pool, row->os_version);
	e->headline = pool_dup(&lc->pool, row->headline);
	e->host = pool_dup(&lc->pool, row->host);
	e->kind = pool_dup(&lc->pool, row->kind);
	e->cls = pool_dup(&lc->pool, row->cls);
	if (lc->n > 1 && !lc->many_hosts && e->host != lc->e[0].host &&
	    (!e->host || !lc->e[0].host || strcmp(e->host, lc->e[0].host) != 0))
		lc->many_hosts = true;
	char os[64];
	kp_os_label(e->os, os, sizeof os);
	int w = kpt_text_width(os);
	lc->os_w = w > lc->os_w ? w : lc->os_w;
	e->culprit = NULL;
	e->group_id = row->group_id;
	e->count = row->group_count;
	e->is_new = row->seq > lc->seen_seq;
	if (row->seq > lc->max_seq)
		lc->max_seq = row->seq;
	return 0;
}

typedef struct gid_idx {
	int64_t id;
	size_t idx;
} gid_idx;

static int cmp_gid(const void *a, const void *b)
{
	int64_t x = ((const gid_idx *)a)->id, y = ((const gid_idx *)b)->id;
	return x < y ? -1 : x > y;
}

/* The index lists a report without a readable date after the dated ones
 * (schema 4); this keeps the list so for any row the index dates
 * differently (stable: the order among the dated and among the undated is
 * the index's). */
static void undated_last(kpt_entry *e, size_t n)
{
	if (n == 0)   /* e may be NULL */
		return;
	kpt_entry *tmp = kpt_xmalloc(n * sizeof *tmp);
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			int64_t t;
			if (kpi_report_time(e[i].date, &t) == (pass == 0))
				tmp[k++] = e[i];
		}
	memcpy(e, tmp, n * sizeof *e);
	free(tmp);
}

#define SEEN_KEY "tui.seen_seq"

static void read_state(kpt_catalog *c)
{
	c->state_read = true;
	c->seen_seq = 0;
	char *v = NULL;
	if (kpi_meta_get(c->db, SEEN_KEY, &v, NULL) == KP_OK && v) {
		long long n = strtoll(v, NULL, 10);
		c->seen_seq = n > 0 ? n : 0;
	}
	free(v);
	c->max_seq = c->seen_seq;
}

void kpt_catalog_save_state(kpt_catalog *c)
{
	if (!c->state_read || !c->db || c->max_seq <= c->seen_seq)
		return;
	char v[32];
	snprintf(v, sizeof v, "%" PRId64, c->max_seq);
	kpi_meta_set(c->db, SEEN_KEY, v, NULL); /* best effort: quitting anyway */
}

static void load_free(load_ctx *lc)
{
	for (size_t i = 0; i < lc->ng; i++)
		free(lc->g[i].ids);
	free(lc->g);
	free(lc->e);
	pool_free(&lc->pool);
	kpi_trends_free(&lc->trends);
}

/* The groups (their counts) and the reports: page NULL every one, else
 * that page of them. */
static kp_status load(kpi_db *db, load_ctx *lc, kpi_page *page, kp_error *err)
{
	kp_status st = kpi_list_group_counts(db, on_group, lc, err);
	kp_error terr;
	if (st == KP_OK && !lc->no_trends && !lc->reuse_trends && kpi_group_trends(db, &lc->trends, &terr) != KP_OK)
		snprintf(lc->trend_error, sizeof lc->trend_error, "%s", terr.msg);
	for (size_t i = 0; st == KP_OK && i < lc->ng; i++)
		lc->g[i].trend = kpi_trends_get(lc->trends, lc->g[i].id);
	if (st == KP_OK)
		st = page ? kpi_list_reports_page(db, page, on_report, lc, err)
		          : kpi_list_reports(db, on_report, lc, err);
	return st;
}

/* lc becomes the catalog (lc's memory with it): a new generation. */
static void adopt(kpt_catalog *c, load_ctx *lc)
{
	gid_idx *ix = kpt_xcalloc(lc->ng, sizeof *ix);
	for (size_t i = 0; i < lc->ng; i++)
		ix[i] = (gid_idx){lc->g[i].id, i};
	qsort(ix, lc->ng, sizeof *ix, cmp_gid);
	for (size_t i = 0; i < lc->n; i++) {
		gid_idx key = {lc->e[i].group_id, 0};
		gid_idx *hit = lc->ng ? bsearch(&key, ix, lc->ng, sizeof *ix, cmp_gid) : NULL;
		if (hit)
			lc->e[i].culprit = lc->g[hit->idx].culprit;
	}
	free(ix);
	undated_last(lc->e, lc->n);

	for (size_t i = 0; i < c->ng; i++)
		free(c->g[i].ids);
	free(c->g);
	free(c->e);
	pool_free(&c->pool);
	if (lc->reuse_trends) {
		for (size_t i = 0; i < lc->ng; i++)
			lc->g[i].trend = kpi_trends_get(c->trends, lc->g[i].id);
	} else {
		kpi_trends_free(&c->trends);
		c->trends = lc->trends;
		lc->trends = NULL;
		memcpy(c->trend_error, lc->trend_error, sizeof c->trend_error);
	}
	c->e = lc->e;
	c->n = lc->n;
	c->cap = lc->cap;
	c->g = lc->g;
	c->ng = lc->ng;
	c->gcap = lc->gcap;
	c->pool = lc->pool;
	if (lc->max_seq > c->max_seq)
		c->max_seq = lc->max_seq;
	c->many_hosts = lc->many_hosts;
	c->os_w = lc->os_w;
	c->partial = false;
	c->generation++;
}

/* The list (a first page of it when page is not NULL) read on this thread
 * and made the catalog's; on failure the catalog is as it was. */
static kp_status load_adopt(kpt_catalog *c, kpi_page *page, kp_error *err)
{
	if (!c->db)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "no index open");
	if (!c->state_read)
		read_state(c);
	load_ctx lc = {.seen_seq = c->seen_seq, .no_trends = c->no_trends};
	kp_status st = load(c->db, &lc, page, err);
	if (st != KP_OK) {
		load_free(&lc);
		return st;
	}
	adopt(c, &lc);
	return KP_OK;
}

kp_status kpt_catalog_reload(kpt_catalog *c, kp_error *err)
{
	return load_adopt(c, NULL, err);
}

/* ---- the rest of the list in the background (kpt_catalog_open) ---- */

/* One load of the whole list: the thread's until it posts it to the pipe
 * (a pointer: far below PIPE_BUF, written whole), then the UI's. */
typedef struct rest_job {
	char *db_path;
	unsigned generation;     /* the catalog's when it started */
	int wfd;
	load_ctx lc;
	kp_status st;
	kp_error err;            /* why, when st is not KP_OK */
} rest_job;

/* The pipe stays open while a load runs: a thread still running at exit
 * must never write to a descriptor number reused for something else. */
typedef struct kpt_catload {
	int pipe[2];
	bool running;
	bool again;              /* a refresh was asked for while one ran */
} kpt_catload;

static void *rest_main(void *arg)
{
	(void)kpt_term_altstack();   /* an overflow here still gives the terminal back */
	rest_job *j = arg;
	kpi_db *db = NULL;
	j->st = kpi_open(j->db_path, 0, &db, &j->err);
	if (j->st == KP_OK)
		j->st = load(db, &j->lc, NULL, &j->err);
	kpi_close(&db);
	(void)!write(j->wfd, &j, sizeof j);
	return NULL;
}

static void job_free(rest_job *j)
{
	load_free(&j->lc);
	free(j->db_path);
	free(j);
}

/* Starts the load of the whole list; false when no thread could run. */
static bool rest_start(kpt_catalog *c, bool reuse_trends)
{
	if (!c->rest) {
		kpt_catload *l = kpt_xcalloc(1, sizeof *l);
		if (!kpt_pipe_open(l->pipe)) {
			free(l);
			return false;
		}
		c->rest = l;
	}
	rest_job *j = kpt_xcalloc(1, sizeof *j);
	j->db_path = kpt_xstrdup(c->db_path);
	j->generation = c->generation;
	j->wfd = c->rest->pipe[1];
	j->lc.seen_seq = c->seen_seq;
	j->lc.no_trends = c->no_trends;
	j->lc.reuse_trends = reuse_trends;
	if (!kpt_pipe_job(rest_main, j)) {
		job_free(j);
		return false;
	}
	c->rest->running = true;
	return true;
}

kp_status kpt_catalog_open(kpt_catalog *c, kpi_db *db, const char *db_path, kp_error *err)
{
	c->db = db;
	c->db_path = db_path;
	kpi_page page = {.limit = KPT_CATALOG_FIRST};
	kp_status st = load_adopt(c, &page, err);
	if (st != KP_OK)
		return st;
	if (page.done)
		return KP_OK;
	c->partial = true;
	c->total = page.total;
	if (!c->db_path[0] || !rest_start(c, true))
		return kpt_catalog_reload(c, err);
	return KP_OK;
}

kp_status kpt_catalog_refresh(kpt_catalog *c, kp_error *err)
{
	if (c->rest && c->rest->running)
		c->rest->again = true;
	else if (!c->db || !c->db_path[0] || !rest_start(c, false))
		return kpt_catalog_reload(c, err);
	return KP_OK;
}

int kpt_catalog_fd(const kpt_catalog *c)
{
	const kpt_catload *l = c->rest;
	return l && l->running ? l->pipe[0] : -1;
}

bool kpt_catalog_poll(kpt_catalog *c, kp_error *err)
{
	kpt_catload *l = c->rest;
	rest_job *j;
	bool changed = false;
	while (l && read(l->pipe[0], &j, sizeof j) == (ssize_t)sizeof j) {
		l->running = false;
		/* a reload since it started has a list at least as new */
		if (j->st == KP_OK && j->generation == c->generation) {
			adopt(c, &j->lc);
			memset(&j->lc, 0, sizeof j->lc);
			changed = true;
		} else if (j->generation == c->generation) {
			c->partial = false;   /* the first page is all there will be */
			kp_error_set(err, KP_ERR_DB, 0, -1, "the rest of the list could not be read: %s", j->err.msg);
			changed = true;
		}
		job_free(j);
		if (l->again) {
			l->again = false;
			kp_error e2;
			if (kpt_catalog_refresh(c, &e2) != KP_OK)
				*err = e2;
		}
	}
	return changed;
}

void kpt_catalog_free(kpt_catalog *c)
{
	if (c->rest && !c->rest->running) {
		kpt_pipe_close(c->rest->pipe);
		free(c->rest);
	} else if (c->rest) {
		static kpt_catload *volatile left_to_exit;   /* kept, and reachable, for the thread's write */
		left_to_exit = c->rest;
		(void)left_to_exit;
	}
	c->rest = NULL;
	for (size_t i = 0; i < c->ng; i++)
		free(c->g[i].ids);
	free(c->g);
	free(c->e);
	pool_free(&c->pool);
	kpi_trends_free(&c->trends);
	c->g = NULL;
	c->e = NULL;
	c->n = c->ng = 0;
}

const kpt_entry *kpt_catalog_find(const kpt_catalog *c, int64_t id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].id == id)
			return &c->e[i];
	return NULL;
}
