/* bench.c: kpt_bench.h. */
#include "kpt_bench.h"
#include "kpt_draw.h"
#include "kpt_xalloc.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the app first, so kpt_bench_close finds the rest from it */
typedef struct bench {
	kpt_app app;
	SCREEN *screen;
	FILE *out, *in;
} bench;

kpt_app *kpt_bench_open(int rows, int cols)
{
	bench *b = kpt_xcalloc(1, sizeof *b);
	setlocale(LC_ALL, "");
	b->out = fopen("/dev/null", "w");
	b->in = fopen("/dev/null", "r");
	if (!b->out || !b->in)
		abort();
	const char *term = getenv("TERM");
	b->screen = newterm(term && *term ? term : "xterm-256color", b->out, b->in);
	if (!b->screen)
		b->screen = newterm("vt100", b->out, b->in);
	if (!b->screen)
		abort();
	resizeterm(rows, cols);
	kpt_app *app = &b->app;
	app->color = kpt_draw_init_styles();
	app->rows = rows;
	app->cols = cols;
	app->views = (kpt_global_views){.help = &kpt_view_help, .search = &kpt_view_search,
	                                .kext = &kpt_view_kext_search};
	return app;
}

void kpt_bench_close(kpt_app *app)
{
	bench *b = (bench *)app;
	kpt_app_close_views(app);
	endwin();
	delscreen(b->screen);
	fclose(b->out);
	fclose(b->in);
	free(b);
}

unsigned kpt_bench_rest(kpt_app *app)
{
	unsigned f = 0;
	int fd;
	while ((fd = kpt_app_catalog_fd(app)) >= 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		f |= kpt_app_catalog_poll(app);
	}
	return f;
}

double kpt_bench_groups_paint(const char *target, bool trends, int rows, int cols, size_t *groups,
                              kp_error *err)
{
	kpt_app *app = kpt_bench_open(rows, cols);
	snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", target);
	app->cat.no_trends = !trends;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double t = -1;
	if (kpi_open(target, 0, &app->db, err) == KP_OK &&
	    kpt_catalog_open(&app->cat, app->db, app->cfg.db_path, err) == KP_OK) {
		kpt_app_push(app, &kpt_view_panics, NULL);
		kpt_app_key(app, KPT_REQ_TAB);   /* the groups, drawn */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (groups)
			*groups = app->cat.ng;
		kpt_bench_rest(app);
	}
	kpt_app_close_views(app);
	kpt_catalog_free(&app->cat);
	kpi_close(&app->db);
	kpt_bench_close(app);
	return t;
}
