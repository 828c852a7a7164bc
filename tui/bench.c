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
