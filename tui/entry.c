/* entry.c: the TUI's start and end (kpt_main of kpt_main.h): options, the
 * index, the terminal, the catalog, the worker, loader and scanner as event
 * sources of the app's loop, the root and global views; then the loop and
 * an orderly shutdown (threads joined before the views and documents go). */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kp_exit.h"
#include "kpt_loader.h"
#include "kpt_main.h"
#include "kp_sanitize.h"
#include "kpt_scanner.h"
#include "kpt_term.h"
#include "kpt_watch.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void shutdown_app(kpt_app *app)
{
	kpt_watch_stop(app);
	kpt_scanner_stop(app);
	kpt_worker_stop(app);
	kpt_loader_stop(app);
	kpt_app_close_views(app);
	kpt_catalog_save_state(&app->cat);
	kpt_catalog_free(&app->cat);
	kpt_docs_free(&app->docs);
	kpi_close(&app->db);
	kpt_options_free(&app->cfg);
	free(app);
}

int kpt_main(int argc, char **argv)
{
	kpt_app *app = kpt_xcalloc(1, sizeof *app);
	setlocale(LC_ALL, "");
	int rc = kpt_options_parse(&app->cfg, argc, argv);
	if (rc == 0 && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fputs("kpbrowse: the browser needs a terminal (see 'kpbrowse --help' for the commands)\n", stderr);
		rc = KP_EXIT_BAD;
	}
	char why[300];
	if (rc == 0 && !kpt_term_usable(why, sizeof why)) {
		fprintf(stderr, "kpbrowse: %s\n", why);
		rc = KP_EXIT_BAD;
	}
	if (rc != 0) {
		kpt_options_free(&app->cfg);
		free(app);
		return rc < 0 ? KP_EXIT_OK : rc;
	}

	kp_error err;
	if (kpi_open(app->cfg.db_path, KPI_OPEN_CREATE, &app->db, &err) != KP_OK) {
		fputs("kpbrowse: ", stderr);
		kp_sanitize_write(stderr, err.msg, strlen(err.msg), 0);
		fputc('\n', stderr);
		shutdown_app(app);
		return KP_EXIT_BAD;
	}
	if (!kpt_term_pipe_open()) {
		perror("kpbrowse: pipe");
		shutdown_app(app);
		return KP_EXIT_BAD;
	}

	if (!kpt_term_start()) {
		fputs("kpbrowse: cannot initialise the terminal\n", stderr);
		shutdown_app(app);
		return KP_EXIT_BAD;
	}
	app->color = kpt_draw_init_styles();
	app->rows = LINES;
	app->cols = COLS;
	app->views = (kpt_global_views){.help = &kpt_view_help, .search = &kpt_view_search,
	                                .kext = &kpt_view_kext_search};
	app->sources[app->nsources++] = (kpt_source){kpt_worker_fd, kpt_worker_poll};
	app->sources[app->nsources++] = (kpt_source){kpt_scanner_fd, kpt_scanner_poll};
	app->sources[app->nsources++] = (kpt_source){kpt_loader_fd, kpt_loader_poll};
	app->sources[app->nsources++] = (kpt_source){kpt_watch_fd, kpt_watch_poll};
	app->sources[app->nsources++] = (kpt_source){kpt_app_catalog_fd, kpt_app_catalog_poll};
	app->rescan = kpt_scanner_rescan;

	if (kpt_catalog_open(&app->cat, app->db, app->cfg.db_path, &err) != KP_OK)   /* the first page now, the rest loading */
		kpt_set_msg(app, "index: %s", err.msg);
	if (kpt_worker_start(app, &err) != KP_OK)
		kpt_set_msg(app, "symbols unavailable: %s", err.msg);
	if (kpt_loader_start(app, &err) != KP_OK)
		kpt_set_msg(app, "reports will load in the foreground: %s", err.msg);
	if (kpt_scanner_start(app, &err) != KP_OK)
		kpt_set_msg(app, "cannot index: %s", err.msg);
	if (!app->cfg.no_reports_folder)
		kpt_watch_start(app);
	kpt_app_push(app, &kpt_view_panics, NULL);

	rc = kpt_app_loop(app);
	kpt_term_restore();
	if (kpt_scanner_busy(app)) {
		/* A scan cannot be cancelled and may have minutes to go: quit now
		 * and let the process exit end it (its batches are committed; the
		 * one under way rolls back).  Its thread still reads app->cfg, so
		 * the app is kept, reachable from here, and not freed.  The "seen"
		 * mark is not saved: the scanner may hold the write lock for long,
		 * and what it found shows as new next time, which it is. */
		static kpt_app *volatile left_to_exit;
		left_to_exit = app;
		(void)left_to_exit;
		return rc;
	}
	shutdown_app(app);
	return rc;
}
