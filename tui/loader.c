/* loader.c: kpt_loader.h.  One detached thread per load; each posts its
 * finished request's pointer to the loader's pipe.  The pipe is closed by
 * stop only when no load is under way: a thread still running at exit
 * must never write to a descriptor number reused for something else. */
#include "kpt_app.h"
#include "kpt_term.h"
#include "kpt_loader.h"
#include "kpt_pipe.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct lreq lreq;

struct kpt_loader {
	int pipe[2];
	size_t inflight;      /* UI thread only */
	lreq *pending;        /* UI thread only: loads under way, so that what
	                         they hold stays reachable (leak checkers) */
};

struct lreq {
	lreq *next;           /* in pending (the UI thread's) */
	unsigned serial;      /* the document to fill in */
	int64_t id;
	char *path, *db_path; /* the thread's own copies */
	int wfd;
	kp_report *r;
	kp_status st;
	kp_error err;
};

static void *load_main(void *arg)
{
	(void)kpt_term_altstack();   /* an overflow here still gives the terminal back */
	lreq *q = arg;
	if (q->id >= 0) {
		kpi_db *db = NULL;
		q->st = kpi_open(q->db_path, 0, &db, &q->err);
		if (q->st == KP_OK)
			q->st = kpi_load(db, q->id, &q->r, &q->err);
		kpi_close(&db);
	} else {
		q->st = kp_report_load(q->path, &q->r, &q->err);
	}
	/* a pointer is far below PIPE_BUF: written whole or not at all, and
	 * the pipe holds thousands of them */
	(void)!write(q->wfd, &q, sizeof q);
	return NULL;
}

kp_status kpt_loader_start(kpt_app *app, kp_error *err)
{
	kpt_loader *l = kpt_xcalloc(1, sizeof *l);
	if (!kpt_pipe_open(l->pipe)) {
		free(l);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "pipe: %s", strerror(errno));
	}
	app->loader = l;
	return KP_OK;
}

void kpt_loader_stop(kpt_app *app)
{
	kpt_loader *l = app->loader;
	if (!l)
		return;
	app->loader = NULL;
	if (l->inflight == 0) {
		kpt_pipe_close(l->pipe);
		free(l);
		return;
	}
	static kpt_loader *volatile left_to_exit;   /* kept, and reachable, for the threads' writes */
	left_to_exit = l;
	(void)left_to_exit;
}

int kpt_loader_fd(const kpt_app *app)
{
	return app->loader ? app->loader->pipe[0] : -1;
}

static void free_req(lreq *q)
{
	kp_report_free(&q->r);
	free(q->path);
	free(q->db_path);
	free(q);
}

unsigned kpt_loader_poll(kpt_app *app)
{
	kpt_loader *l = app->loader;
	if (!l)
		return 0;
	unsigned f = 0;
	lreq *q;
	while (read(l->pipe[0], &q, sizeof q) == (ssize_t)sizeof q) {
		l->inflight--;
		for (lreq **pp = &l->pending; *pp; pp = &(*pp)->next)
			if (*pp == q) {
				*pp = q->next;
				break;
			}
		kpt_doc *d = kpt_doc_by_serial(&app->docs, q->serial);
		if (d && !d->r && !d->load_error) {   /* else every view let it go */
			if (q->st == KP_OK) {
				kpt_options_apply_loads(&app->cfg, q->r);
				kpt_doc_set_report(d, q->r);
				q->r = NULL;
			} else {
				d->load_error = kpt_xstrdup(q->err.msg[0] ? q->err.msg : "cannot load the report");
			}
			f |= KPT_REDRAW;
		}
		free_req(q);
	}
	return f;
}

/* A report not open yet, loaded on this thread, with the --load kexts
 * placed before any view or the worker reads it. */
static kpt_doc *acquire_placed(kpt_app *app, int64_t id, const char *path, kp_error *err)
{
	kpt_doc *d = kpt_doc_acquire(&app->docs, app->db, id, path, err);
	if (d && d->r)
		kpt_options_apply_loads(&app->cfg, d->r);
	return d;
}

kpt_doc *kpt_doc_open(kpt_app *app, int64_t id, const char *path, kp_error *err)
{
	kpt_doc *d = kpt_doc_find(&app->docs, id, path);
	if (d)
		return d;
	kpt_loader *l = app->loader;
	if (!l)
		return acquire_placed(app, id, path, err);
	d = kpt_doc_add(&app->docs, id, path, NULL);
	lreq *q = kpt_xcalloc(1, sizeof *q);
	q->serial = d->serial;
	q->id = id;
	q->path = kpt_xstrdup(path ? path : "");
	q->db_path = kpt_xstrdup(app->cfg.db_path);
	q->wfd = l->pipe[1];
	if (!kpt_pipe_job(load_main, q)) {   /* no thread: load here */
		free_req(q);
		kpt_doc_release(&app->docs, &d);
		return acquire_placed(app, id, path, err);
	}
	l->inflight++;
	q->next = l->pending;
	l->pending = q;
	return d;
}
