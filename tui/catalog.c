/* catalog.c: the panic list as the index holds it, the background scan
 * (its own thread and its own kpi_db connection, as kp_index.h requires),
 * and the open report documents with their symbol caches.
 *
 * "New since last launch": the largest report seq seen when the browser
 * last quit is kept in the index itself (kpi_meta_set, key tui.seen_seq);
 * rows with a larger seq are new (the store guarantees seqs increase). */
#include "kp_symbols.h"
#include "kpt_view.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
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
		kpt_strpool *b = malloc(sizeof *b + size);
		if (!b)
			abort();
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
	kpt_catalog *c;
	kpt_strpool *pool;
	kpt_group *g;
	size_t ng, gcap;
	kpt_entry *e;
	size_t n, cap;
	int64_t max_seq;
} load_ctx;

static int on_group(void *ctx, const kpi_group_row *row)
{
	load_ctx *lc = ctx;
	if (lc->ng == lc->gcap) {
		lc->gcap = lc->gcap ? lc->gcap * 2 : 256;
		lc->g = realloc(lc->g, lc->gcap * sizeof *lc->g);
		if (!lc->g)
			abort();
	}
	kpt_group *g = &lc->g[lc->ng++];
	g->id = row->group_id;
	g->title = pool_dup(&lc->pool, row->title);
	g->culprit = pool_dup(&lc->pool, row->culprit);
	g->last_seen = pool_dup(&lc->pool, row->last_seen);
	g->count = row->count;
	g->nids = row->nreport_ids;
	g->ids = malloc((g->nids ? g->nids : 1) * sizeof *g->ids);
	if (!g->ids)
		abort();
	if (g->nids)
		memcpy(g->ids, row->report_ids, g->nids * sizeof *g->ids);
	return 0;
}

static int on_report(void *ctx, const kpi_report_row *row)
{
	load_ctx *lc = ctx;
	if (lc->n == lc->cap) {
		lc->cap = lc->cap ? lc->cap * 2 : 1024;
		lc->e = realloc(lc->e, lc->cap * sizeof *lc->e);
		if (!lc->e)
			abort();
	}
	kpt_entry *e = &lc->e[lc->n++];
	e->id = row->id;
	e->path = pool_dup(&lc->pool, row->path);
	e->date = pool_dup(&lc->pool, row->timestamp);
	e->os = pool_dup(&lc->pool, row->os_version);
	e->headline = pool_dup(&lc->pool, row->headline);
	e->culprit = NULL;
	e->group_id = row->group_id;
	e->count = row->group_count;
	e->is_new = row->seq > lc->c->seen_seq;
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

#define SEEN_KEY "tui.seen_seq"

static void read_state(kpt_app *app)
{
	kpt_catalog *c = &app->cat;
	c->state_read = true;
	c->seen_seq = 0;
	char *v = NULL;
	if (kpi_meta_get(app->db, SEEN_KEY, &v, NULL) == KP_OK && v) {
		long long n = strtoll(v, NULL, 10);
		c->seen_seq = n > 0 ? n : 0;
	}
	free(v);
	c->max_seq = c->seen_seq;
}

void kpt_catalog_save_state(kpt_app *app)
{
	kpt_catalog *c = &app->cat;
	if (!c->state_read || !app->db || c->max_seq <= c->seen_seq)
		return;
	char v[32];
	snprintf(v, sizeof v, "%" PRId64, c->max_seq);
	kpi_meta_set(app->db, SEEN_KEY, v, NULL); /* best effort: quitting anyway */
}

kp_status kpt_catalog_reload(kpt_app *app, kp_error *err)
{
	kpt_catalog *c = &app->cat;
	if (!app->db)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "no index open");
	if (!c->state_read)
		read_state(app);
	load_ctx lc = {.c = c};
	kp_status st = kpi_list_groups(app->db, on_group, &lc, err);
	if (st == KP_OK)
		st = kpi_list_reports(app->db, on_report, &lc, err);
	if (st != KP_OK) {
		for (size_t i = 0; i < lc.ng; i++)
			free(lc.g[i].ids);
		free(lc.g);
		free(lc.e);
		pool_free(&lc.pool);
		return st;
	}
	gid_idx *ix = malloc((lc.ng ? lc.ng : 1) * sizeof *ix);
	if (!ix)
		abort();
	for (size_t i = 0; i < lc.ng; i++)
		ix[i] = (gid_idx){lc.g[i].id, i};
	qsort(ix, lc.ng, sizeof *ix, cmp_gid);
	for (size_t i = 0; i < lc.n; i++) {
		gid_idx key = {lc.e[i].group_id, 0};
		gid_idx *hit = lc.ng ? bsearch(&key, ix, lc.ng, sizeof *ix, cmp_gid) : NULL;
		if (hit)
			lc.e[i].culprit = lc.g[hit->idx].culprit;
	}
	free(ix);

	for (size_t i = 0; i < c->ng; i++)
		free(c->g[i].ids);
	free(c->g);
	free(c->e);
	pool_free(&c->pool);
	c->e = lc.e;
	c->n = lc.n;
	c->cap = lc.cap;
	c->g = lc.g;
	c->ng = lc.ng;
	c->gcap = lc.gcap;
	c->pool = lc.pool;
	if (lc.max_seq > c->max_seq)
		c->max_seq = lc.max_seq;
	c->generation++;
	return KP_OK;
}

void kpt_catalog_free(kpt_catalog *c)
{
	for (size_t i = 0; i < c->ng; i++)
		free(c->g[i].ids);
	free(c->g);
	free(c->e);
	pool_free(&c->pool);
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

/* ---- the scanner thread ---- */

typedef struct kpt_scanner {
	pthread_t thread;
	int pipe[2];
	pthread_mutex_t mu;
	/* under mu */
	size_t files, fresh;
	char path[256];
	bool done;
	kp_status status;
	char msg[256];
	size_t errors;
	volatile int stop;
	/* UI side */
	struct timespec last_reload;
	size_t reloaded_at_new;
	kpt_app *app;
} kpt_scanner;

static void scan_progress(void *ctx, const kpi_progress *p)
{
	kpt_scanner *s = ctx;
	pthread_mutex_lock(&s->mu);
	s->files = p->files_seen;
	s->fresh = p->new_reports;
	snprintf(s->path, sizeof s->path, "%s", p->path ? p->path : "");
	pthread_mutex_unlock(&s->mu);
	char c = 'p';
	(void)!write(s->pipe[1], &c, 1);   /* non-blocking: a full pipe already wakes the UI */
}

static void *scan_main(void *arg)
{
	kpt_scanner *s = arg;
	kpt_app *app = s->app;
	kpi_db *db = NULL;
	kp_error err;
	kpi_summary sum;
	memset(&sum, 0, sizeof sum);
	kp_status st = kpi_open(app->cfg.db_path, KPI_OPEN_CREATE, &db, &err);
	/* the scanner's own symboliser (kp_symbols is per thread): group keys
	 * name frames image!function where a dSYM is found */
	kp_symbols *sym = NULL;
	kp_symbols_opts so = {.paths = app->cfg.dsyms, .npaths = app->cfg.ndsyms};
	if (kp_symbols_new(&so, &sym, NULL) != KP_OK)
		sym = NULL;
	if (st == KP_OK) {
		st = kpi_scan(db, app->cfg.paths, app->cfg.npaths, sym ? kp_symbols_sig_name : NULL, sym,
		              scan_progress, s, &sum, &err);
		kpi_close(&db);
	}
	kp_symbols_free(&sym);
	pthread_mutex_lock(&s->mu);
	s->done = true;
	s->status = st;
	s->errors = sum.errors;
	s->fresh = sum.new_reports;
	s->files = sum.files;
	if (st != KP_OK)
		snprintf(s->msg, sizeof s->msg, "%s", err.msg);
	else if (sum.nerror_list > 0)
		snprintf(s->msg, sizeof s->msg, "%zu file(s) could not be indexed, e.g. %s: %s",
		         sum.nerror_list, sum.error_list[0].path ? sum.error_list[0].path : "?",
		         sum.error_list[0].msg ? sum.error_list[0].msg : "?");
	pthread_mutex_unlock(&s->mu);
	kpi_summary_free(&sum);
	char c = 'd';
	(void)!write(s->pipe[1], &c, 1);
	return NULL;
}

kp_status kpt_scanner_start(kpt_app *app, kp_error *err)
{
	if (app->cfg.npaths == 0 || app->no_reports_folder)
		return KP_OK;
	kpt_scanner *s = calloc(1, sizeof *s);
	if (!s)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	s->app = app;
	if (pipe(s->pipe) != 0) {
		free(s);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "pipe: %s", strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(s->pipe[i], F_SETFL, fcntl(s->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(s->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&s->mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &s->last_reload);
	if (pthread_create(&s->thread, NULL, scan_main, s) != 0) {
		close(s->pipe[0]);
		close(s->pipe[1]);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot start the indexing thread");
	}
	app->scanner = s;
	app->cat.scanning = true;
	return KP_OK;
}

int kpt_scanner_fd(const kpt_app *app)
{
	return app->scanner ? app->scanner->pipe[0] : -1;
}

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

unsigned kpt_scanner_poll(kpt_app *app)
{
	kpt_scanner *s = app->scanner;
	if (!s)
		return 0;
	char buf[256];
	while (read(s->pipe[0], buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&s->mu);
	bool done = s->done;
	app->cat.scan_files = s->files;
	app->cat.scan_new = s->fresh;
	snprintf(app->cat.scan_path, sizeof app->cat.scan_path, "%s", s->path);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", s->msg);
	pthread_mutex_unlock(&s->mu);
	kp_error err;
	if (done) {
		pthread_join(s->thread, NULL);
		close(s->pipe[0]);
		close(s->pipe[1]);
		pthread_mutex_destroy(&s->mu);
		free(s);
		app->scanner = NULL;
		app->cat.scanning = false;
		if (kpt_catalog_reload(app, &err) != KP_OK)
			kpt_set_msg(app, "index: %s", err.msg);
		else if (msg[0])
			kpt_set_msg(app, "%s", msg);
		return KPT_REDRAW;
	}
	/* Show reports as they arrive, but not more than a few times a second. */
	if (app->cat.scan_new > s->reloaded_at_new && since(&s->last_reload) > 0.5) {
		s->reloaded_at_new = app->cat.scan_new;
		clock_gettime(CLOCK_MONOTONIC, &s->last_reload);
		if (kpt_catalog_reload(app, &err) != KP_OK)
			kpt_set_msg(app, "index: %s", err.msg);
	}
	return KPT_REDRAW;
}

/* Quirk: kpi_scan has no cancel hook, so quitting mid-scan waits for it;
 * batches are committed, so detaching would also be safe, but joining
 * keeps sanitizer builds quiet. */
void kpt_scanner_stop(kpt_app *app)
{
	kpt_scanner *s = app->scanner;
	if (!s)
		return;
	pthread_join(s->thread, NULL);
	close(s->pipe[0]);
	close(s->pipe[1]);
	pthread_mutex_destroy(&s->mu);
	free(s);
	app->scanner = NULL;
}

/* ---- documents ---- */

kpt_doc *kpt_doc_acquire(kpt_app *app, int64_t id, const char *path, kp_error *err)
{
	for (size_t i = 0; i < app->ndocs; i++) {
		kpt_doc *d = app->docs[i];
		if ((id >= 0 && d->id == id) || (id < 0 && d->id < 0 && path && strcmp(d->path, path) == 0)) {
			d->refs++;
			return d;
		}
	}
	kp_report *r = NULL;
	kp_status st = id >= 0 ? kpi_load(app->db, id, &r, err) : kp_report_load(path, &r, err);
	if (st != KP_OK)
		return NULL;
	kpt_doc *d = calloc(1, sizeof *d);
	kpt_doc **docs = realloc(app->docs, (app->ndocs + 1) * sizeof *docs);
	if (!d || !docs)
		abort();
	app->docs = docs;
	d->serial = ++app->next_serial;
	d->id = id;
	d->path = strdup(path ? path : (r->path ? r->path : ""));
	d->r = r;
	d->refs = 1;
	d->syms = calloc(r->nprocesses ? r->nprocesses : 1, sizeof *d->syms);
	if (!d->path || !d->syms)
		abort();
	app->docs[app->ndocs++] = d;
	return d;
}

static void free_sym(kpt_sym *s)
{
	for (size_t i = 0; i < s->nlines; i++) {
		free(s->lines[i].function);
		free(s->lines[i].file);
	}
	free(s->lines);
	free(s->note);
}

void kpt_doc_release(kpt_app *app, kpt_doc **dp)
{
	kpt_doc *d = *dp;
	*dp = NULL;
	if (!d || --d->refs > 0)
		return;
	for (size_t i = 0; i < app->ndocs; i++)
		if (app->docs[i] == d) {
			app->docs[i] = app->docs[--app->ndocs];
			break;
		}
	for (size_t p = 0; p < d->r->nprocesses; p++) {
		if (!d->syms[p])
			continue;
		for (size_t t = 0; t < d->r->processes[p].nthreads; t++) {
			kpt_sym *fr = d->syms[p][t];
			if (!fr)
				continue;
			for (size_t f = 0; f < d->r->processes[p].threads[t].nframes; f++)
				free_sym(&fr[f]);
			free(fr);
		}
		free(d->syms[p]);
	}
	free(d->syms);
	kp_report_free(&d->r);
	free(d->path);
	free(d);
}

kpt_doc *kpt_doc_by_serial(kpt_app *app, unsigned serial)
{
	for (size_t i = 0; i < app->ndocs; i++)
		if (app->docs[i]->serial == serial)
			return app->docs[i];
	return NULL;
}

kpt_sym *kpt_doc_syms(kpt_doc *d, size_t proc, size_t thread)
{
	if (proc >= d->r->nprocesses || thread >= d->r->processes[proc].nthreads)
		return NULL;
	if (!d->syms[proc]) {
		d->syms[proc] = calloc(d->r->processes[proc].nthreads, sizeof *d->syms[proc]);
		if (!d->syms[proc])
			abort();
	}
	kpt_sym **slot = &d->syms[proc][thread];
	if (!*slot) {
		size_t n = d->r->processes[proc].threads[thread].nframes;
		*slot = calloc(n ? n : 1, sizeof **slot);
		if (!*slot)
			abort();
	}
	return *slot;
}

char *kpt_xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}
