/* worker.c: the symbolication worker thread of kpt_worker.h.  The UI
 * never touches DWARF.
 *
 * The worker owns its own kp_symbols (not thread-safe), configured by
 * kpt_options_symbols.  Requests are (document, process, thread, frame
 * range); each holds a reference to its document, taken and dropped on the
 * UI thread, so the worker reads the report the UI already parsed.  The
 * newest "visible" request is served first, one frame at a time, so
 * scrolling re-prioritises at once.  Each answer is a malloc'd kpt_wmsg
 * whose pointer is written to the result pipe; the UI reads the pointers,
 * applies them to the document, drops the request's reference with its
 * last answer, and frees them.
 *
 * When the queue is empty, the worker builds the symbol caches its
 * kp_symbols wants (kp_symbols_cache_step), telling the status line; a new
 * request or kpt_worker_stop cancels the build at once (it is tried again
 * when idle next; a half-built cache is never written). */
#include "kp_symbols.h"
#include "kpt_app.h"
#include "kpt_term.h"
#include "kpt_pipe.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct wreq {
	struct wreq *next;
	kpt_doc *doc;            /* one reference, dropped by the UI */
	size_t proc, thread, lo, hi;
	bool visible;
	bool started;            /* its first frame was taken */
	bool images;             /* lo..hi are images to find dSYMs for */
	kpt_disasm_job *job;     /* a disassembly of frame lo (one reference) */
	unsigned long seq;
} wreq;

enum { WMSG_RESULT, WMSG_PROGRESS, WMSG_IDLE, WMSG_DSYM, WMSG_DISASM, WMSG_WARN };

typedef struct kpt_wmsg {
	struct kpt_wmsg *next;   /* in the undelivered list */
	int kind;
	kpt_doc *doc;            /* WMSG_RESULT */
	bool release;            /* the request's last answer: drop its reference */
	size_t proc, thread, frame;
	kpt_sym sym;             /* state DONE */
	kpt_disasm_job *job;     /* WMSG_DISASM: filled, the request's reference */
	char text[320];
} kpt_wmsg;

/* What the symbol sources said of a UUID, asked once (kp_symbols_where,
 * worker thread): its source remapping (kp_symwhere's pairs,
 * DBGBuildSourcePath -> DBGSourcePath last) and, when nothing holds it,
 * where they looked. */
struct uuid_said {
	char uuid[37];
	const char **pairs;   /* 2 * n strings, malloc'd */
	size_t n;
	char *said;           /* malloc'd; NULL when found */
	struct uuid_said *next;
};

struct kpt_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wreq *queue;             /* under mu */
	unsigned long seq;
	bool stop;               /* under mu */
	int pipe[2];
	/* worker-thread state */
	kp_symbols *sym;
	unsigned serial;         /* the document kp_symbols_set_report was told */
	kpt_wmsg *undelivered;   /* posts abandoned by stop, read after the join */
	struct timespec last_progress;
	struct uuid_said *said;       /* per UUID: what the sources said */
	bool fetched;            /* the thread below had its dSYMs fetched in parallel */
	unsigned fetched_serial;
	size_t fetched_proc, fetched_thread;
	size_t warned;           /* the symbol warnings put on the message line so far */
	/* UI-thread state: the warnings delivered (WMSG_WARN), "FILE: reason" */
	char **warns;
	size_t nwarns, warncap;
};

static bool stopping(kpt_worker *w)
{
	pthread_mutex_lock(&w->mu);
	bool s = w->stop;
	pthread_mutex_unlock(&w->mu);
	return s;
}

/* Blocks while the pipe is full, but gives up when asked to stop (the
 * message then waits in w->undelivered for kpt_worker_stop). */
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
		m->next = w->undelivered;
		w->undelivered = m;
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
	kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
	m->kind = WMSG_PROGRESS;
	if (total)
		snprintf(m->text, sizeof m->text, "loading dSYM %s (%zu/%zu)", what ? what : "", done, total);
	else
		snprintf(m->text, sizeof m->text, "loading dSYM %s", what ? what : "");
	post(w, m);
}

static void dsym_name(const char *p, char *out, size_t size);

struct cache_job {
	kpt_worker *w;
	char name[256];
};

static bool build_cancelled(void *ctx)
{
	kpt_worker *w = ((struct cache_job *)ctx)->w;
	pthread_mutex_lock(&w->mu);
	bool c = w->stop || w->queue;
	pthread_mutex_unlock(&w->mu);
	return c;
}

static void on_build_progress(void *ctx, size_t done, size_t total)
{
	struct cache_job *j = ctx;
	kpt_worker *w = j->w;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double dt = (double)(now.tv_sec - w->last_progress.tv_sec) +
	            (double)(now.tv_nsec - w->last_progress.tv_nsec) / 1e9;
	if (dt < 0.2 && done != total)
		return;
	w->last_progress = now;
	kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
	m->kind = WMSG_PROGRESS;
	snprintf(m->text, sizeof m->text, "building the symbol cache of %s (%zu%%)", j->name,
	         total ? done * 100 / total : 0);
	post(w, m);
}

/* Idle: builds the symbol caches wanted, one per call, until a request
 * arrives or the worker stops.  Called and returns with w->mu unlocked. */
static void build_caches(kpt_worker *w)
{
	const char *path;
	while (!build_cancelled(&(struct cache_job){.w = w}) &&
	       (path = kp_symbols_cache_pending(w->sym)) != NULL) {
		struct cache_job j = {.w = w};
		dsym_name(path, j.name, sizeof j.name);
		kp_symbols_cache_cb cb = {on_build_progress, build_cancelled, &j};
		kp_error err;
		kp_symbols_cache_step(w->sym, &cb, &err);
		kpt_wmsg *idle = kpt_xcalloc(1, sizeof *idle);
		idle->kind = WMSG_IDLE;   /* clears the status line */
		post(w, idle);
	}
}

static wreq *take_request(kpt_worker *w)
{
	wreq **best = NULL;
	for (wreq **pp = &w->queue; *pp; pp = &(*pp)->next)
		if ((*pp)->job)
			return *pp;   /* a disassembly someone is waiting for */
	for (wreq **pp = &w->queue; *pp; pp = &(*pp)->next) {
		wreq *q = *pp;
		if (!best || (q->visible && (!(*best)->visible || q->seq > (*best)->seq)) ||
		    (!q->visible && !(*best)->visible && q->seq < (*best)->seq))
			best = pp;
	}
	return best ? *best : NULL;
}

static void set_note(kpt_sym *s, const char *note)
{
	s->note = kpt_xstrdup(note);
}

/* The thread of q's frame, its report told to the kp_symbols; NULL with
 * *why when there is no symboliser or the frame is out of range. */
static const kp_thread *frame_thread(kpt_worker *w, const wreq *q, size_t frame, const char **why)
{
	const kp_report *r = q->doc->r;
	if (!w->sym) {
		*why = "no symboliser";
		return NULL;
	}
	if (w->serial != q->doc->serial) {
		kp_symbols_set_report(w->sym, r);
		w->serial = q->doc->serial;
	}
	const kp_thread *t = q->proc < r->nprocesses && q->thread < r->processes[q->proc].nthreads
	                     ? &r->processes[q->proc].threads[q->thread] : NULL;
	if (!t || frame > t->nframes || (frame == t->nframes && !t->has_continuation)) {
		*why = "frame out of range";
		return NULL;
	}
	return t;
}

/* A --dsym or --kernelcache that cannot serve r: each new warning of the
 * symbol sources posted once (the UI puts it on the message line and keeps
 * it for the images tab, kpt_worker_warning); worker thread, which alone
 * reads w->sym. */
static void check_named(kpt_worker *w, const kp_report *r)
{
	if (!w->sym)
		return;
	kp_symbols_check_named(w->sym, r, true);
	const char *wfile, *wmsg;
	for (; (wmsg = kp_symbols_warning_at(w->sym, w->warned, &wfile)) != NULL; w->warned++) {
		kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
		m->kind = WMSG_WARN;
		snprintf(m->text, sizeof m->text, "%s: %s", wfile ? wfile : "", wmsg);
		post(w, m);
	}
}

/* Before q's thread's first frame: the dSYMs of all its images from the
 * symbol servers at once, in parallel (nothing when none is configured or
 * every image is found locally), once per thread. */
static void fetch_thread(kpt_worker *w, const wreq *q)
{
	const char *why;
	const kp_thread *t = frame_thread(w, q, 0, &why);
	if (!t || (w->fetched && w->fetched_serial == q->doc->serial && w->fetched_proc == q->proc &&
	           w->fetched_thread == q->thread))
		return;
	w->fetched = true;
	w->fetched_serial = q->doc->serial;
	w->fetched_proc = q->proc;
	w->fetched_thread = q->thread;
	check_named(w, q->doc->r);
	kp_symbols_prefetch_thread(w->sym, q->doc->r, t);
}

/* For a UUID nothing holds: each source that looked somewhere, with where
 * and what came of it, else the sources that could have ("none set":
 * --dsym, ...), as `kpbrowse symbols where` says it at length. */
static void said_text(const kp_symwhere *wh, kp_status st, char *out, size_t size)
{
	out[0] = '\0';
	if (st == KP_ERR_USAGE) {
		snprintf(out, size, "no UUID to look for");
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < wh->nsteps && k < size; i++) {
		const kp_symwhere_step *step = &wh->steps[i];
		if (!step->tried || !step->tried[0])
			continue;
		k += (size_t)snprintf(out + k, size - k, "%s%s %s: %s", k ? "; " : "looked in ", step->source,
		                      step->tried, step->said ? step->said : "");
	}
	if (k == 0) {
		k = (size_t)snprintf(out, size, "nothing to look in (none set:");
		for (size_t i = 0; i < wh->nsteps && k < size; i++)
			k += (size_t)snprintf(out + k, size - k, "%s %s", i ? "," : "", wh->steps[i].source);
		if (k < size)
			snprintf(out + k, size - k, "; kpbrowse symbols where UUID says more)");
	}
}

static struct uuid_said *uuid_said_of(kpt_worker *w, const char *uuid)
{
	for (struct uuid_said *m = w->said; m; m = m->next)
		if (strcmp(m->uuid, uuid) == 0)
			return m;
	struct uuid_said *m = kpt_xcalloc(1, sizeof *m);
	snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
	m->next = w->said;
	w->said = m;
	kp_symwhere wh;
	kp_error err;
	kp_status st = kp_symbols_where(w->sym, uuid, &wh, &err);
	if (st != KP_OK) {
		char b[1200];
		said_text(&wh, st, b, sizeof b);
		m->said = kpt_xstrdup(b);
		return m;
	}
	size_t n = wh.nremap + (wh.build_source_path && wh.source_path ? 1 : 0);
	m->pairs = kpt_xcalloc(2 * n + 1, sizeof *m->pairs);
	for (size_t i = 0; i < 2 * wh.nremap; i++)
		m->pairs[i] = kpt_xstrdup(wh.remap[i]);
	if (n > wh.nremap) {
		m->pairs[2 * wh.nremap] = kpt_xstrdup(wh.build_source_path);
		m->pairs[2 * wh.nremap + 1] = kpt_xstrdup(wh.source_path);
	}
	m->n = n;
	return m;
}

static void uuid_said_free(kpt_worker *w)
{
	while (w->said) {
		struct uuid_said *m = w->said;
		w->said = m->next;
		for (size_t i = 0; i < 2 * m->n; i++)
			free((char *)m->pairs[i]);
		free(m->pairs);
		free(m->said);
		free(m);
	}
}

/* What the sources said of uuid, for a frame or image left unnamed. */
static void where_said(kpt_worker *w, const char *uuid, char *out, size_t size)
{
	const struct uuid_said *m = uuid ? uuid_said_of(w, uuid) : NULL;
	snprintf(out, size, "%s", !uuid ? "no UUID to look for" : m->said ? m->said : "found");
}

/* Each line's file where the dsymForUUID that gave uuid's dSYM says it is
 * now (its DBGSourcePathRemapping), for the source view and the editor. */
static void remap_lines(kpt_worker *w, const char *uuid, kpt_sym *s)
{
	if (!uuid)
		return;
	struct uuid_said *m = uuid_said_of(w, uuid);
	if (!m->n)
		return;
	kp_symwhere wh = {.remap = m->pairs, .nremap = m->n};
	char out[4096];
	for (size_t i = 0; i < s->nlines; i++)
		if (s->lines[i].file && kp_symwhere_map_source(&wh, s->lines[i].file, out, sizeof out))
			s->lines[i].source = kpt_xstrdup(out);
}

/* Answers frame of q; the report is q->doc->r (read-only here). */
static kpt_wmsg *symbolicate(kpt_worker *w, const wreq *q, size_t frame)
{
	kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
	m->kind = WMSG_RESULT;
	m->doc = q->doc;
	m->proc = q->proc;
	m->thread = q->thread;
	m->frame = frame;
	m->sym.state = KPT_SYM_DONE;
	const kp_report *r = q->doc->r;
	const char *why;
	const kp_thread *t = frame_thread(w, q, frame, &why);
	if (!t) {
		m->sym.status = KP_SYM_ERROR;
		set_note(&m->sym, why);
		return m;
	}
	kp_thread parked;   /* the continuation, frame 0 of a thread of its own */
	kp_frame cont;
	if (frame == t->nframes) {
		parked = *t;
		cont = t->continuation;
		parked.frames = &cont;
		parked.nframes = 1;
		t = &parked;
		frame = 0;
	}
	kp_symresult res;
	m->sym.status = kp_symbols_frame(w->sym, r, t, frame, &res);
	if (res.path)
		snprintf(m->text, sizeof m->text, "%s", res.path);
	switch (m->sym.status) {
	case KP_SYM_OK:
		m->sym.lines = kpt_xcalloc(res.nframes, sizeof *m->sym.lines);
		for (size_t i = 0; i < res.nframes; i++) {
			m->sym.lines[i].function = kpt_xstrdup(res.frames[i].function);
			m->sym.lines[i].file = kpt_xstrdup(res.frames[i].file);
			m->sym.lines[i].line = res.frames[i].line;
		}
		m->sym.nlines = res.nframes;
		remap_lines(w, res.uuid, &m->sym);
		if (kp_symresult_approximate(&res) && res.msg[0]) {
			/* the offset into the nearest name, and where the name came from
			 * (a dSYM's is exact: no mark) */
			char b[220];
			const char *from = kp_symresult_source_label(&res);
			snprintf(b, sizeof b, from ? "%s (%s)" : "%s", res.msg, from);
			set_note(&m->sym, b);
		}
		break;
	case KP_SYM_NO_DSYM: {
		char b[1400];
		int k = snprintf(b, sizeof b, "no dSYM for %s: ", res.uuid ? res.uuid : "?");
		if (k > 0 && (size_t)k < sizeof b)
			where_said(w, res.uuid, b + k, sizeof b - (size_t)k);
		set_note(&m->sym, b);
		break;
	}
	case KP_SYM_NOT_FOUND:
	case KP_SYM_ERROR:
		set_note(&m->sym, res.msg);
		break;
	default:
		break;
	}
	return m;
}

/* Disassembles frame q->lo of q's thread into q->job (worker thread: the
 * UI does not read the job until the message arrives). */
static kpt_wmsg *disassemble(kpt_worker *w, const wreq *q, size_t frame)
{
	kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
	m->kind = WMSG_DISASM;
	m->doc = q->doc;
	m->job = q->job;
	kpt_disasm_job *j = q->job;
	const char *why;
	const kp_thread *t = frame_thread(w, q, frame, &why);
	if (t && frame == t->nframes) {
		t = NULL;
		why = "a continuation is not disassembled";
	}
	if (!t) {
		j->status = kp_error_set(&j->err, KP_ERR_USAGE, 0, -1, "%s", why);
		return m;
	}
	j->status = kp_disasm_frame(w->sym, q->doc->r, t, frame, j->count, &j->d, &j->err);
	return m;
}

/* The dSYM of image i of q's report: its path in text, "" when none. */
static kpt_wmsg *find_dsym(kpt_worker *w, const wreq *q, size_t i)
{
	kpt_wmsg *m = kpt_xcalloc(1, sizeof *m);
	m->kind = WMSG_DSYM;
	m->doc = q->doc;
	m->frame = i;
	const kp_report *r = q->doc->r;
	const char *uuid = i < r->nimages ? r->images[i].uuid : NULL;
	const char *path = w->sym && uuid ? kp_symbols_find(w->sym, uuid) : NULL;
	snprintf(m->text, sizeof m->text, "%s", path ? path : "");
	if (!path && w->sym && uuid) {   /* what the sources said, in the note */
		char b[1200];
		where_said(w, uuid, b, sizeof b);
		set_note(&m->sym, b);
	}
	return m;
}

static void *worker_main(void *arg)
{
	(void)kpt_term_altstack();   /* an overflow here still gives the terminal back */
	kpt_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && !w->queue)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		wreq *q = take_request(w);
		bool first = !q->started;
		q->started = true;
		size_t frame = q->lo++;
		wreq copy = *q;
		bool last = q->lo >= q->hi;
		if (last) {
			for (wreq **pp = &w->queue; *pp; pp = &(*pp)->next)
				if (*pp == q) {
					*pp = q->next;
					break;
				}
			free(q);
		}
		pthread_mutex_unlock(&w->mu);
		if (first) {   /* a request starts: say so before a slow dSYM search */
			kpt_wmsg *pm = kpt_xcalloc(1, sizeof *pm);
			pm->kind = WMSG_PROGRESS;
			if (copy.job)
				snprintf(pm->text, sizeof pm->text, "disassembling frame %zu", frame);
			else if (copy.images)
				snprintf(pm->text, sizeof pm->text, "looking for the dSYMs of %zu images", copy.hi - frame);
			else
				snprintf(pm->text, sizeof pm->text, "symbolicating frames %zu-%zu: looking for dSYMs",
				         frame, copy.hi - 1);
			post(w, pm);
			if (!copy.job && !copy.images)
				fetch_thread(w, &copy);
			else if (copy.images)   /* the images tab lists them too */
				check_named(w, copy.doc->r);
		}
		kpt_wmsg *m = copy.job ? disassemble(w, &copy, frame)
		            : copy.images ? find_dsym(w, &copy, frame) : symbolicate(w, &copy, frame);
		m->release = last;
		post(w, m);
		pthread_mutex_lock(&w->mu);
		if (!w->queue && !w->stop) {
			pthread_mutex_unlock(&w->mu);
			kpt_wmsg *idle = kpt_xcalloc(1, sizeof *idle);
			idle->kind = WMSG_IDLE;
			post(w, idle);
			build_caches(w);
			pthread_mutex_lock(&w->mu);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

kp_status kpt_worker_start(kpt_app *app, kp_error *err)
{
	kpt_worker *w = kpt_xcalloc(1, sizeof *w);
	kp_symbols_opts o;
	kpt_options_symbols(&app->cfg, &o);
	kp_status st = kp_symbols_new(&o, &w->sym, err);
	if (st != KP_OK) {
		free(w);
		return st;
	}
	kp_symbols_set_progress(w->sym, on_progress, w);
	if (!kpt_pipe_open(w->pipe)) {
		kp_symbols_free(&w->sym);
		free(w);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "pipe: %s", strerror(errno));
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
		kpt_pipe_close(w->pipe);
		kp_symbols_free(&w->sym);
		free(w);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot start the symbol thread");
	}
	app->worker = w;
	return KP_OK;
}

/* Drops m's request reference when it is the request's last answer, and
 * frees m (UI thread). */
static void finish_msg(kpt_app *app, kpt_wmsg *m)
{
	kpt_disasm_job_release(&m->job);
	if (m->release)
		kpt_doc_release(&app->docs, &m->doc);
	kpt_sym_clear(&m->sym);
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
	if (w->sym)
		kp_symbols_cancel(w->sym);   /* a download in flight ends now, not at its timeout */
	pthread_join(w->thread, NULL);
	kpt_wmsg *m;
	while (read(w->pipe[0], &m, sizeof m) == (ssize_t)sizeof m)
		finish_msg(app, m);
	while ((m = w->undelivered)) {
		w->undelivered = m->next;
		finish_msg(app, m);
	}
	while (w->queue) {
		wreq *q = w->queue;
		w->queue = q->next;
		kpt_doc_release(&app->docs, &q->doc);
		kpt_disasm_job_release(&q->job);
		free(q);
	}
	kpt_pipe_close(w->pipe);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	kp_symbols_free(&w->sym);
	uuid_said_free(w);
	for (size_t i = 0; i < w->nwarns; i++)
		free(w->warns[i]);
	free(w->warns);
	free(w);
	app->worker = NULL;
}

size_t kpt_worker_nwarnings(const kpt_app *app)
{
	return app->worker ? app->worker->nwarns : 0;
}

const char *kpt_worker_warning(const kpt_app *app, size_t i)
{
	return app->worker && i < app->worker->nwarns ? app->worker->warns[i] : NULL;
}

int kpt_worker_fd(const kpt_app *app)
{
	return app->worker ? app->worker->pipe[0] : -1;
}

/* Queues a request for d (taking a reference) and wakes the worker. */
static void enqueue(kpt_worker *w, wreq proto)
{
	wreq *q = kpt_xcalloc(1, sizeof *q);
	*q = proto;
	kpt_doc_retain(q->doc);
	pthread_mutex_lock(&w->mu);
	q->seq = ++w->seq;
	q->next = w->queue;
	w->queue = q;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void kpt_worker_request(kpt_app *app, kpt_doc *d, size_t proc, size_t thread, size_t lo,
                        size_t hi, bool visible)
{
	if (!app->worker || lo >= hi)
		return;
	enqueue(app->worker, (wreq){.doc = d, .proc = proc, .thread = thread, .lo = lo, .hi = hi, .visible = visible});
}

void kpt_worker_find_dsyms(kpt_app *app, kpt_doc *d)
{
	if (!app->worker || d->dsyms_asked || !d->r || d->r->nimages == 0)
		return;
	d->dsyms_asked = true;
	d->dsyms = kpt_xcalloc(d->r->nimages, sizeof *d->dsyms);
	d->dsym_said = kpt_xcalloc(d->r->nimages, sizeof *d->dsym_said);
	enqueue(app->worker, (wreq){.doc = d, .lo = 0, .hi = d->r->nimages, .visible = true, .images = true});
}

kpt_disasm_job *kpt_worker_disasm(kpt_app *app, kpt_doc *d, size_t proc, size_t thread,
                                  size_t frame, size_t count)
{
	kpt_disasm_job *j = kpt_xcalloc(1, sizeof *j);
	j->refs = 1;
	j->count = count;
	if (!app->worker || !d->r) {
		j->status = kp_error_set(&j->err, KP_ERR_USAGE, 0, -1, "no symboliser");
		j->done = true;
		return j;
	}
	j->refs++;
	enqueue(app->worker, (wreq){.doc = d, .proc = proc, .thread = thread, .lo = frame,
	                            .hi = frame + 1, .visible = true, .job = j});
	return j;
}

void kpt_disasm_job_release(kpt_disasm_job **jp)
{
	kpt_disasm_job *j = *jp;
	*jp = NULL;
	if (j && --j->refs == 0) {
		kp_disasm_free(&j->d);
		free(j);
	}
}

/* The name to show for a dSYM path: the bundle, not its inner DWARF path. */
static void dsym_name(const char *p, char *out, size_t size)
{
	const char *s = strstr(p, ".dSYM/");
	if (s) {
		const char *b = s;
		while (b > p && b[-1] != '/')
			b--;
		snprintf(out, size, "%.*s", (int)(s + 5 - b), b);
		return;
	}
	const char *b = strrchr(p, '/');
	snprintf(out, size, "%s", b ? b + 1 : p);
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
		} else if (m->kind == WMSG_DSYM) {
			if (m->doc->dsyms && m->frame < m->doc->r->nimages && !m->doc->dsyms[m->frame]) {
				m->doc->dsyms[m->frame] = kpt_xstrdup(m->text);
				m->doc->dsym_said[m->frame] = m->sym.note;   /* taken: finish_msg frees the rest */
				m->sym.note = NULL;
			}
		} else if (m->kind == WMSG_DISASM) {
			m->job->done = true;   /* finish_msg drops the request's reference */
		} else if (m->kind == WMSG_IDLE) {
			app->work[0] = '\0';   /* the status says what happens now: nothing */
		} else if (m->kind == WMSG_WARN) {
			kpt_set_msg(app, "%s", m->text);   /* drawn sanitised (kpt_put) */
			char **slot = kpt_xpush((void **)&w->warns, &w->nwarns, &w->warncap, sizeof *w->warns);
			*slot = kpt_xstrdup(m->text);
		} else {
			if (m->text[0]) {
				char name[256];
				dsym_name(m->text, name, sizeof name);
				snprintf(app->work, sizeof app->work, "symbols from %s", name);
			}
			/* the request's reference keeps m->doc alive until now */
			kpt_sym *arr = kpt_doc_syms(m->doc, m->proc, m->thread);
			if (arr && m->frame <= m->doc->r->processes[m->proc].threads[m->thread].nframes) {
				kpt_sym_clear(&arr[m->frame]);
				arr[m->frame] = m->sym;
				memset(&m->sym, 0, sizeof m->sym);
			}
		}
		finish_msg(app, m);
	}
	return f;
}
