/* scanner.c: the background index scan of kpt_scanner.h: its own thread,
 * its own kpi_db connection and its own symboliser (kp_symbols is per
 * thread; group keys name frames image!function where a dSYM is found),
 * configured by kpt_options_symbols like the worker's.  Progress crosses
 * to the UI under a mutex, with a byte on a pipe to wake the loop. */
#include "kp_symbols.h"
#include "kpt_app.h"
#include "kpt_term.h"
#include "kpt_pipe.h"
#include "kpt_scanner.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct kpt_scanner {
	pthread_t thread;
	int pipe[2];
	pthread_mutex_t mu;
	/* under mu */
	size_t files, fresh, total;
	char path[256];
	bool done;
	kp_status status;
	char msg[256];
	size_t errors;
	volatile int stop;
	/* UI side */
	bool again;              /* a rescan was asked for while this one ran */
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
	s->total = p->files_total;
	snprintf(s->path, sizeof s->path, "%s", p->path ? p->path : "");
	pthread_mutex_unlock(&s->mu);
	char c = 'p';
	(void)!write(s->pipe[1], &c, 1);   /* non-blocking: a full pipe already wakes the UI */
}

static void *scan_main(void *arg)
{
	(void)kpt_term_altstack();   /* an overflow here still gives the terminal back */
	kpt_scanner *s = arg;
	kpt_app *app = s->app;
	kpi_db *db = NULL;
	kp_error err;
	kpi_summary sum;
	memset(&sum, 0, sizeof sum);
	kp_status st = kpi_open(app->cfg.db_path, KPI_OPEN_CREATE, &db, &err);
	kp_symbols *sym = NULL;
	kp_symbols_opts so;
	kpt_options_symbols(&app->cfg, &so);
	if (kp_symbols_new(&so, &sym, NULL) != KP_OK)
		sym = NULL;
	if (st == KP_OK) {
		if (app->cfg.default_paths)   /* this machine's own folders */
			kpi_set_report_host_own(db);
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
	if (app->cfg.npaths == 0 || app->cfg.no_reports_folder)
		return KP_OK;
	kpt_scanner *s = kpt_xcalloc(1, sizeof *s);
	s->app = app;
	if (!kpt_pipe_open(s->pipe)) {
		free(s);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "pipe: %s", strerror(errno));
	}
	pthread_mutex_init(&s->mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &s->last_reload);
	if (pthread_create(&s->thread, NULL, scan_main, s) != 0) {
		kpt_pipe_close(s->pipe);
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
	app->cat.scan_total = s->total;
	snprintf(app->cat.scan_path, sizeof app->cat.scan_path, "%s", s->path);
	char msg[256];
	snprintf(msg, sizeof msg, "%s", s->msg);
	pthread_mutex_unlock(&s->mu);
	if (done) {
		bool again = s->again;
		kpt_scanner_stop(app);
		app->cat.scanning = false;
		if (again)
			kpt_scanner_rescan(app);
		kpt_app_catalog_refresh(app);   /* in the background: the list stays usable */
		if (msg[0])
			kpt_set_msg(app, "%s", msg);
		return KPT_REDRAW;
	}
	/* Show reports as they arrive, but not more than a few times a second. */
	if (app->cat.scan_new > s->reloaded_at_new && since(&s->last_reload) > 0.5) {
		s->reloaded_at_new = app->cat.scan_new;
		clock_gettime(CLOCK_MONOTONIC, &s->last_reload);
		kpt_app_catalog_refresh(app);
	}
	return KPT_REDRAW;
}

void kpt_scanner_rescan(kpt_app *app)
{
	kp_error err;
	if (app->scanner)
		app->scanner->again = true;
	else if (kpt_scanner_start(app, &err) != KP_OK)
		kpt_set_msg(app, "cannot index: %s", err.msg);
}

bool kpt_scanner_busy(const kpt_app *app)
{
	kpt_scanner *s = app->scanner;
	if (!s)
		return false;
	pthread_mutex_lock(&s->mu);
	bool busy = !s->done;
	pthread_mutex_unlock(&s->mu);
	return busy;
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
	kpt_pipe_close(s->pipe);
	pthread_mutex_destroy(&s->mu);
	free(s);
	app->scanner = NULL;
}
