/* worker.c: the symbolication worker thread.  The UI never touches DWARF.
 *
 * The worker owns its own kp_symbols (not thread-safe) and its own kpi_db
 * connection, and loads the reports it is asked about itself, so nothing
 * but messages crosses threads.  Requests are (document serial, report id
 * or path, process, thread, frame range); the newest "visible" request is
 * served first, one frame at a time, so scrolling re-prioritises at once.
 * Each answer is a malloc'd kpt_wmsg whose pointer is written to the result
 * pipe; the UI reads the pointers, applies them to the document (dropped
 * when the document was closed) and frees them. */
#include "kpt_view.h"
#include "kp_symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct wreq {
	struct wreq *next;
	unsigned serial;
	int64_t id;
	char *path;
	size_t proc, thread, lo, hi;
	bool visible;
	unsigned long seq;
} wreq;

enum { WMSG_RESULT, WMSG_PROGRESS, WMSG_IDLE };

typedef struct kpt_wmsg {
	int kind;
	unsigned serial;
	size_t proc, thread, frame;
	int status;
	kpt_symline *lines;
	size_t nlines;
	char *note;
	char text[320];
} kpt_wmsg;

struct kpt_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wreq *queue;             /* under mu */
	unsigned long seq;
	bool stop;               /* under mu */
	int pipe[2];
	kpt_app *app;            /* only cfg is read by the thread (immutable) */
	/* worker-thread state */
	kp_symbols *sym;
	kpi_db *db;
	kp_report *r;
	int64_t r_id;
	char *r_path;
	struct timespec last_progress;
};

static bool stopping(kpt_worker *w)
{
	pthread_mutex_lock(&w->mu);
	bool s = w->stop;
	pthread_mutex_unlock(&w->mu);
	return s;
}

/* Blocks while the pipe is full, but gives up when asked to stop. */
static void post(kpt_worker *w, kpt_wmsg *m)
{
	const char *p = (const char *)&m;
	size_t left = sizeof m;
	while (left > 0) {
		ssize_t k = write(w->pipe[1], p, left);
		if (k > 0) {
			p += k;
			left -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (stopping(w))
			break;
		struct pollfd pf = {.fd = w->pipe[1], .events = POLLOUT};
		poll(&pf, 1, 100);
	}
	if (left == sizeof m) {
		for (size_t i = 0; i < m->nlines; i++) {
			free(m->lines[i].function);
			free(m->lines[i].file);
		}
		free(m->lines);
		free(m->note);
		free(m);
	}
	/* a pointer is far below PIPE_BUF, so a partial write cannot happen */
}

static void on_progress(void *ctx, const char *what, size_t done, size_t total)
{
	kpt_worker *w = ctx;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double dt = (double)(now.tv_sec - w->last_progress.tv_sec) +
	            (double)(now.tv_nsec - w->last_progress.tv_nsec) / 1e9;
	if (dt < 0.1 && done != total)
		return;
	w->last_progress = now;
	kpt_wmsg *m = calloc(1, sizeof *m);
	if (!m)
		abort();
	m->kind = WMSG_PROGRESS;
	if (total)
		snprintf(m->text, sizeof m->text, "loading dSYM %s (%zu/%zu)", what ? what : "", done, total);
	else
		snprintf(m->text, sizeof m->text, "loading dSYM %s", what ? what : "");
	post(w, m);
}

static wreq *take_request(kpt_worker *w)
{
	wreq **best = NULL;
	for (wreq **pp = &w->queue; *pp; pp = &(*pp)->next) {
		wreq *q = *pp;
		if (!best || (q->visible && (!(*best)->visible || q->seq > (*best)->seq)) ||
		    (!q->visible && !(*best)->visible && q->seq < (*best)->seq))
			best = pp;
	}
	return best ? *best : NULL;
}

static bool load_report(kpt_worker *w, const wreq *q, char *msg, size_t size)
{
	if (w->r && ((q->id >= 0 && w->r_id == q->id) ||
	             (q->id < 0 && w->r_id < 0 && w->r_path && q->path && strcmp(w->r_path, q->path) == 0)))
		return true;
	kp_report_free(&w->r);
	free(w->r_path);
	w->r_path = NULL;
	kp_error err;
	kp_status st;
	if (q->id >= 0) {
		if (!w->db && kpi_open(w->app->cfg.db_path, 0, &w->db, &err) != KP_OK) {
			snprintf(msg, size, "%s", err.msg);
			return false;
		}
		st = kpi_load(w->db, q->id, &w->r, &err);
	} else {
		st = kp_report_load(q->path, &w->r, &err);
	}
	if (st != KP_OK) {
		snprintf(msg, size, "%s", err.msg);
		return false;
	}
	w->r_id = q->id;
	w->r_path = kpt_xstrdup(q->path);
	kp_symbols_set_report(w->sym, w->r);
	return true;
}

static kpt_wmsg *symbolicate(kpt_worker *w, const wreq *q, size_t frame)
{
	kpt_wmsg *m = calloc(1, sizeof *m);
	if (!m)
		abort();
	m->kind = WMSG_RESULT;
	m->serial = q->serial;
	m->proc = q->proc;
	m->thread = q->thread;
	m->frame = frame;
	char msg[256];
	if (!w->sym) {
		m->status = KP_SYM_ERROR;
		m->note = kpt_xstrdup("no symboliser");
		return m;
	}
	if (!load_report(w, q, msg, sizeof msg)) {
		m->status = KP_SYM_ERROR;
		m->note = kpt_xstrdup(msg);
		return m;
	}
	if (q->proc >= w->r->nprocesses || q->thread >= w->r->processes[q->proc].nthreads ||
	    frame >= w->r->processes[q->proc].threads[q->thread].nframes) {
		m->status = KP_SYM_ERROR;
		m->note = kpt_xstrdup("frame out of range");
		return m;
	}
	const kp_thread *t = &w->r->processes[q->proc].threads[q->thread];
	kp_symresult res;
	m->status = kp_symbols_frame(w->sym, w->r, t, frame, &res);
	if (res.path)
		snprintf(m->text, sizeof m->text, "%s", res.path);
	switch (m->status) {
	case KP_SYM_OK:
		m->lines = calloc(res.nframes ? res.nframes : 1, sizeof *m->lines);
		if (!m->lines)
			abort();
		for (size_t i = 0; i < res.nframes; i++) {
			m->lines[i].function = kpt_xstrdup(res.frames[i].function);
			m->lines[i].file = kpt_xstrdup(res.frames[i].file);
			m->lines[i].line = res.frames[i].line;
		}
		m->nlines = res.nframes;
		if (res.source && strcmp(res.source, "symtab") == 0 && res.msg[0])
			m->note = kpt_xstrdup(res.msg);
		break;
	case KP_SYM_NO_DSYM: {
		char b[200];
		snprintf(b, sizeof b, "no dSYM for %s", res.uuid ? res.uuid : "?");
		m->note = kpt_xstrdup(b);
		break;
	}
	case KP_SYM_NOT_FOUND:
	case KP_SYM_ERROR:
		m->note = kpt_xstrdup(res.msg);
		break;
	default:
		break;
	}
	return m;
}

static void *worker_main(void *arg)
{
	kpt_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && !w->queue)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		wreq *q = take_request(w);
		size_t frame = q->lo++;
		wreq copy = *q;
		bool last = q->lo >= q->hi;
		if (last) {
			for (wreq **pp = &w->queue; *pp; pp = &(*pp)->next)
				if (*pp == q) {
					*pp = q->next;
					break;
				}
			copy.path = q->path;   /* freed below */
			free(q);
		} else {
			copy.path = kpt_xstrdup(q->path);
		}
		pthread_mutex_unlock(&w->mu);
		post(w, symbolicate(w, &copy, frame));
		free(copy.path);
		pthread_mutex_lock(&w->mu);
		if (!w->queue && !w->stop) {
			pthread_mutex_unlock(&w->mu);
			kpt_wmsg *m = calloc(1, sizeof *m);
			if (!m)
				abort();
			m->kind = WMSG_IDLE;
			post(w, m);
			pthread_mutex_lock(&w->mu);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

kp_status kpt_worker_start(kpt_app *app, kp_error *err)
{
	kpt_worker *w = calloc(1, sizeof *w);
	if (!w)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	w->app = app;
	w->r_id = -1;
	kp_symbols_opts o = {
		.paths = app->cfg.dsyms,
		.npaths = app->cfg.ndsyms,
		.no_env = app->cfg.demo,
		.no_system = app->cfg.no_system,
		.cache_dir = app->cfg.demo ? "" : NULL,
	};
	kp_status st = kp_symbols_new(&o, &w->sym, err);
	if (st != KP_OK) {
		free(w);
		return st;
	}
	kp_symbols_set_progress(w->sym, on_progress, w);
	if (pipe(w->pipe) != 0) {
		kp_symbols_free(&w->sym);
		free(w);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "pipe: %s", strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(w->pipe[i], F_SETFL, fcntl(w->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(w->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
		close(w->pipe[0]);
		close(w->pipe[1]);
		kp_symbols_free(&w->sym);
		free(w);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot start the symbol thread");
	}
	app->worker = w;
	return KP_OK;
}

static void free_msg(kpt_wmsg *m)
{
	for (size_t i = 0; i < m->nlines; i++) {
		free(m->lines[i].function);
		free(m->lines[i].file);
	}
	free(m->lines);
	free(m->note);
	free(m);
}

void kpt_worker_stop(kpt_app *app)
{
	kpt_worker *w = app->worker;
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	kpt_wmsg *m;
	while (read(w->pipe[0], &m, sizeof m) == (ssize_t)sizeof m)
		free_msg(m);
	while (w->queue) {
		wreq *q = w->queue;
		w->queue = q->next;
		free(q->path);
		free(q);
	}
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	kp_report_free(&w->r);
	free(w->r_path);
	kpi_close(&w->db);
	kp_symbols_free(&w->sym);
	free(w);
	app->worker = NULL;
}

int kpt_worker_fd(const kpt_app *app)
{
	return app->worker ? app->worker->pipe[0] : -1;
}

void kpt_worker_request(kpt_app *app, kpt_doc *d, size_t proc, size_t thread, size_t lo,
                        size_t hi, bool visible)
{
	kpt_worker *w = app->worker;
	if (!w || lo >= hi)
		return;
	wreq *q = calloc(1, sizeof *q);
	if (!q)
		abort();
	q->serial = d->serial;
	q->id = d->id;
	q->path = kpt_xstrdup(d->path);
	q->proc = proc;
	q->thread = thread;
	q->lo = lo;
	q->hi = hi;
	q->visible = visible;
	pthread_mutex_lock(&w->mu);
	q->seq = ++w->seq;
	q->next = w->queue;
	w->queue = q;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static const char *base_name(const char *p)
{
	const char *s = strstr(p, ".dSYM/");
	if (s) {   /* show the bundle, not its inner DWARF path */
		const char *b = s;
		while (b > p && b[-1] != '/')
			b--;
		static char buf[256];
		snprintf(buf, sizeof buf, "%.*s", (int)(s + 5 - b), b);
		return buf;
	}
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

unsigned kpt_worker_poll(kpt_app *app)
{
	kpt_worker *w = app->worker;
	if (!w)
		return 0;
	unsigned f = 0;
	kpt_wmsg *m;
	while (read(w->pipe[0], &m, sizeof m) == (ssize_t)sizeof m) {
		f |= KPT_REDRAW;
		if (m->kind == WMSG_PROGRESS) {
			snprintf(app->work, sizeof app->work, "%s", m->text);
		} else if (m->kind == WMSG_IDLE) {
			if (strncmp(app->work, "symbols from ", 13) != 0)
				app->work[0] = '\0';
		} else {
			kpt_doc *d = kpt_doc_by_serial(app, m->serial);
			if (m->text[0])
				snprintf(app->work, sizeof app->work, "symbols from %s", base_name(m->text));
			kpt_sym *arr = d ? kpt_doc_syms(d, m->proc, m->thread) : NULL;
			if (arr && m->frame < d->r->processes[m->proc].threads[m->thread].nframes) {
				kpt_sym *s = &arr[m->frame];
				for (size_t i = 0; i < s->nlines; i++) {
					free(s->lines[i].function);
					free(s->lines[i].file);
				}
				free(s->lines);
				free(s->note);
				s->state = KPT_SYM_DONE;
				s->status = m->status;
				s->lines = m->lines;
				s->nlines = m->nlines;
				s->note = m->note;
				m->lines = NULL;
				m->nlines = 0;
				m->note = NULL;
			}
		}
		free_msg(m);
	}
	return f;
}
