/* app.c: the app of kpt_app.h: the view stack, the screen frame (title
 * bar, message line, status bar), key and mouse dispatch and the event
 * loop.  Styles and text output are in draw.c, the prompt in prompt.c, the
 * list widget in list.c, terminal setup, restore and signals in term.c,
 * and the program's start (options, worker, scanner) in entry.c.
 *
 * The loop waits in poll() on the terminal, a self-pipe fed by the signal
 * handlers (SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGPIPE) and the registered
 * sources (the worker's result pipe, the scanner's progress pipe, the
 * loader's pipe); it handles whatever is ready, then redraws once.
 * While the top view has deferred work (its
 * idle op says KPT_MORE) the loop polls without waiting and does one slice
 * of it per turn, so no long job keeps it from keys and signals.  Handlers
 * that may take long in one piece (a view's open loads a report) run
 * marked busy (kpt_term_busy): a quit signal then restores the terminal
 * and exits at once instead of waiting for them.
 * Quirk: we replace ncurses' own SIGWINCH handler, so a resize is applied
 * by term.c with resizeterm() from TIOCGWINSZ. */
#include "kpt_app.h"
#include "kpt_prompt.h"
#include "kpt_draw.h"
#include "kp_exit.h"
#include "kpt_term.h"
#include "kpt_xalloc.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- view stack ---- */

unsigned kpt_push_later(kpt_app *app, const kpt_view_ops *ops, void *arg)
{
	app->push_ops = ops;
	app->push_arg = arg;
	return KPT_HANDLED | KPT_PUSH | KPT_REDRAW;
}

static kpt_view *top_view(kpt_app *app)
{
	return app->depth > 0 ? app->stack[app->depth - 1] : NULL;
}

/* Closes v (its close op frees what the view allocated) and frees it. */
static void free_view(kpt_app *app, kpt_view *v)
{
	kpt_prompt_forget(&app->prompt, v);
	if (v->ops->close)
		v->ops->close(v);
	kpt_list_free(&v->list);
	free(v->priv);
	free(v);
}

static void push_view(kpt_app *app, const kpt_view_ops *ops, void *arg)
{
	if (app->depth >= (int)(sizeof app->stack / sizeof app->stack[0])) {
		kpt_set_msg(app, "too many views open");
		return;
	}
	kpt_view *v = kpt_xcalloc(1, sizeof *v);
	v->ops = ops;
	v->app = app;
	v->priv = ops->private_size ? kpt_xcalloc(1, ops->private_size) : NULL;
	v->list.height = app->rows > 4 ? app->rows - 4 : 1;
	if (ops->open(v, arg) != 0) {
		free_view(app, v);
		return;
	}
	app->stack[app->depth++] = v;
}

static void pop_view(kpt_app *app)
{
	if (app->depth <= 1)
		return;
	free_view(app, app->stack[--app->depth]);
	kpt_view *t = top_view(app);
	if (t && t->ops->update)
		t->ops->update(t);
}

/* The key hints that fit in width columns, whole items only (a cut "Q qui…"
 * says nothing): the view's first (its Enter), "? help" and q come first,
 * then the view's others in order, then Q. */
static void fit_hint(const char *view, bool top, int width, char *out, size_t size)
{
	const char *item[24];
	int len[24], n = 0;
	for (const char *at = view; *at && n < 21;) {
		while (*at == ' ')
			at++;
		const char *end = strstr(at, "  ");
		int l = end ? (int)(end - at) : (int)strlen(at);
		if (l > 0) {
			item[n] = at;
			len[n++] = l;
		}
		at += l;
	}
	int nv = n;
	item[n] = "? help", len[n++] = 6;
	item[n] = top ? "q quit" : "q close", len[n++] = top ? 6 : 7;
	if (!top)
		item[n] = "Q quit", len[n++] = 6;
	int prio[24], np = 0;   /* indexes in the order they are given room */
	if (nv)
		prio[np++] = 0;
	prio[np++] = nv;
	prio[np++] = nv + 1;
	for (int i = 1; i < nv; i++)
		prio[np++] = i;
	if (!top)
		prio[np++] = nv + 2;
	bool keep[24] = {false};
	int w = -1;   /* a trailing space, and no separator before the first */
	for (int i = 0; i < np; i++) {
		char tmp[256];
		snprintf(tmp, sizeof tmp, "%.*s", len[prio[i]], item[prio[i]]);
		int iw = kpt_text_width(tmp) + 2;
		if (w + iw <= width || i == 0) {
			keep[prio[i]] = true;
			w += iw;
		}
	}
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < n && k < size; i++)
		if (keep[i])
			k += (size_t)snprintf(out + k, size - k, "%s%.*s", k ? "  " : "", len[i], item[i]);
	if (k < size)
		snprintf(out + k, size - k, " ");
}

/* ---- drawing ---- */

static void draw_all(kpt_app *app)
{
	int rows = LINES, cols = COLS;
	app->rows = rows;
	app->cols = cols;
	erase();
	if (rows < 4 || cols < 20) {
		kpt_put(0, 0, cols, "terminal too small", KPT_ST_ERROR, false);
		refresh();
		return;
	}
	char crumb[600] = "kpbrowse";
	for (int i = 0; i < app->depth; i++) {
		size_t n = strlen(crumb);
		snprintf(crumb + n, sizeof crumb - n, " > %s", app->stack[i]->title);
	}
	kpt_put(0, 0, cols, crumb, KPT_ST_TITLE, true);

	kpt_view *v = top_view(app);
	int h = rows - 3;
	if (v)
		v->ops->draw(v, 1, h, cols);

	const char *line = app->msg[0] ? app->msg : NULL;
	char buf[700];
	if (!line) {
		buf[0] = '\0';
		size_t total = app->cat.scan_total, seen = app->cat.scan_files;
		if (app->cat.scanning && total)   /* what happens now: file N of M */
			snprintf(buf, sizeof buf, "indexing %zu of %zu (%zu new)  %s", seen, seen > total ? seen : total,
			         app->cat.scan_new, app->cat.scan_path);
		else if (app->cat.scanning)
			snprintf(buf, sizeof buf, "indexing: counting the files to read");
		if (app->work[0]) {
			size_t n = strlen(buf);
			snprintf(buf + n, sizeof buf - n, "%s%s", n ? "  |  " : "", app->work);
		}
		line = buf;
	}
	kpt_put(rows - 2, 0, cols, line, app->msg[0] ? KPT_ST_ERROR : KPT_ST_DIM, true);

	if (app->prompt.active) {
		kpt_prompt_draw(&app->prompt, rows - 1, cols);
	} else {
		curs_set(0);
		char pos[128] = "";
		if (v) {
			size_t vis = kpt_list_visible(&v->list);
			snprintf(pos, sizeof pos, " %zu/%zu%s%s%s ", vis ? v->list.cur + 1 : 0, vis,
			         v->list.filter[0] ? "  /" : "", v->list.filter,
			         v->list.filtered ? " (filtered)" : "");
		}
		int used = kpt_put(rows - 1, 0, cols, pos, KPT_ST_STATUS, false);
		char hint[400];
		fit_hint(v && v->ops->hint ? v->ops->hint(v) : "", app->depth <= 1, cols - used, hint, sizeof hint);
		int hw = kpt_text_width(hint);
		if (hw > cols - used)
			hw = cols - used;
		kpt_put(rows - 1, used, cols - used - hw, "", KPT_ST_STATUS, true);
		kpt_put(rows - 1, cols - hw, hw, hint, KPT_ST_STATUS, true);
	}
	refresh();
}

/* ---- the catalog as an event source ---- */

int kpt_app_catalog_fd(const kpt_app *app)
{
	return kpt_catalog_fd(&app->cat);
}

unsigned kpt_app_catalog_poll(kpt_app *app)
{
	kp_error err = {0};
	if (!kpt_catalog_poll(&app->cat, &err))
		return 0;
	if (err.code != KP_OK)
		kpt_set_msg(app, "index: %s", err.msg);
	return KPT_REDRAW;
}

void kpt_app_catalog_refresh(kpt_app *app)
{
	kp_error err;
	if (kpt_catalog_refresh(&app->cat, &err) != KP_OK)
		kpt_set_msg(app, "index: %s", err.msg);
}

/* ---- input ---- */

static kpt_request key_to_request(int ret, wint_t ch)
{
	int code = (int)ch;
	(void)ret;
#define KPT_KEY_MATCH(name, label, help, ...) \
	{ static const int keys_##name[] = {__VA_ARGS__, 0}; \
	  for (const int *k = keys_##name; *k; k++) if (*k == code) return KPT_REQ_##name; }
	KPT_KEYS(KPT_KEY_MATCH)
#undef KPT_KEY_MATCH
	return KPT_REQ_NONE;
}

static unsigned dispatch(kpt_app *app, kpt_request req)
{
	kpt_view *v = top_view(app);
	unsigned f = 0;
	if (!v)
		return KPT_QUIT;
	if (v->ops->request)
		f = v->ops->request(v, req);
	if (!(f & KPT_HANDLED))
		f |= kpt_list_request(v, req);
	if (f & KPT_HANDLED)
		return f;
	switch (req) {
	case KPT_REQ_RIGHT: return dispatch(app, KPT_REQ_ENTER);   /* views that do not scroll */
	case KPT_REQ_LEFT: return dispatch(app, KPT_REQ_BACK);
	case KPT_REQ_BACK: return KPT_POP | KPT_REDRAW;
	case KPT_REQ_COPY:
	case KPT_REQ_COPYALL:
		kpt_set_msg(app, "nothing to copy here");
		return KPT_REDRAW;
	case KPT_REQ_WRITE:
		kpt_set_msg(app, "w writes a report: open one first");
		return KPT_REDRAW;
	case KPT_REQ_BUGREPORT:
		kpt_set_msg(app, "B writes a report's Markdown bug report: open one first");
		return KPT_REDRAW;
	case KPT_REQ_EDIT:
		kpt_set_msg(app, "e opens a frame's source: select a frame with a file and line");
		return KPT_REDRAW;
	case KPT_REQ_RESCAN:
		if (!app->rescan)
			return 0;
		app->rescan(app);
		kpt_set_msg(app, "rescanning the report folders");
		return KPT_REDRAW;
	case KPT_REQ_QUIT: return KPT_QUIT;
	case KPT_REQ_CLOSE: return app->depth <= 1 ? KPT_QUIT : KPT_POP | KPT_REDRAW;
	case KPT_REQ_REDRAW:
		clearok(curscr, TRUE);   /* the next refresh repaints every cell */
		return KPT_REDRAW;
	case KPT_REQ_HELP:
		if (app->views.help && v->ops != app->views.help)
			return kpt_push_later(app, app->views.help, NULL);
		return 0;
	case KPT_REQ_UUID:
		return app->views.search ? kpt_push_later(app, app->views.search, NULL) : 0;
	case KPT_REQ_KEXT:
		return app->views.kext ? kpt_push_later(app, app->views.kext, NULL) : 0;
	case KPT_REQ_MARK:
	case KPT_REQ_COMPARE:
		kpt_set_msg(app, "m and c work on the panic list and in a group");
		return KPT_REDRAW;
	default: return 0;
	}
}

static unsigned handle_mouse(kpt_app *app)
{
	MEVENT ev;
	kpt_view *v = top_view(app);
	if (getmouse(&ev) != OK || !v)
		return 0;
	unsigned f = 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		for (int i = 0; i < 3; i++)
			f |= dispatch(app, KPT_REQ_UP);
		return f;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		for (int i = 0; i < 3; i++)
			f |= dispatch(app, KPT_REQ_DOWN);
		return f;
	}
#endif
	if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED)) {
		if (ev.y == 0)
			return dispatch(app, KPT_REQ_BACK);
		kpt_list *l = &v->list;
		if (ev.y >= l->y0 && ev.y < l->y0 + l->height) {
			size_t vi = l->top + (size_t)(ev.y - l->y0);
			if (vi >= kpt_list_visible(l))
				return 0;
			if (vi == l->cur || (ev.bstate & BUTTON1_DOUBLE_CLICKED))
				return dispatch(app, KPT_REQ_ENTER);
			l->cur = vi;
			return KPT_REDRAW;
		}
	}
	return 0;
}

/* Applies f; returns false when the loop should end. */
static bool apply_flags(kpt_app *app, unsigned f, bool *dirty)
{
	if (f & KPT_QUIT)
		return false;
	if (f & KPT_POP)
		pop_view(app);
	if (f & KPT_PUSH) {
		const kpt_view_ops *ops = app->push_ops;
		app->push_ops = NULL;
		if (ops)
			push_view(app, ops, app->push_arg);
	}
	if (f & (KPT_REDRAW | KPT_POP | KPT_PUSH))
		*dirty = true;
	return true;
}

static bool read_keys(kpt_app *app, bool *dirty)
{
	wint_t ch;
	int ret;
	while ((ret = get_wch(&ch)) != ERR) {
		unsigned f;
		if (ret == KEY_CODE_YES && ch == KEY_RESIZE) {
			*dirty = true;
			continue;
		}
		if (ret == KEY_CODE_YES && ch == KEY_MOUSE && !app->prompt.active) {
			f = handle_mouse(app);
		} else if (app->prompt.active) {
			f = kpt_prompt_key(app, ret, (unsigned)ch);
		} else {
			app->msg[0] = '\0';
			*dirty = true;
			kpt_term_busy(true);
			f = dispatch(app, key_to_request(ret, ch));
			kpt_term_busy(false);
		}
		kpt_term_busy(true);
		bool go_on = apply_flags(app, f, dirty);
		kpt_term_busy(false);
		if (!go_on)
			return false;
	}
	return true;
}

static void notify_views(kpt_app *app, bool *dirty)
{
	kpt_view *v = top_view(app);
	if (v && v->ops->update && (v->ops->update(v) & KPT_REDRAW))
		*dirty = true;
}

int kpt_app_loop(kpt_app *app)
{
	bool dirty = true, more = false;
	for (;;) {
		int quit_sig = kpt_term_quit_signal();
		if (quit_sig)
			return 128 + quit_sig;
		if (dirty) {
			draw_all(app);
			dirty = false;
		}
		struct pollfd fds[2 + sizeof app->sources / sizeof app->sources[0]];
		int src[sizeof fds / sizeof fds[0]];
		int nfds = 0;
		fds[nfds++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		fds[nfds++] = (struct pollfd){.fd = kpt_term_signal_fd(), .events = POLLIN};
		for (int i = 0; i < app->nsources; i++) {
			int fd = app->sources[i].fd(app);
			if (fd < 0)
				continue;
			src[nfds] = i;
			fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
		int n = poll(fds, (nfds_t)nfds, more ? 0 : -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return KP_EXIT_BAD;
		}
		if ((fds[1].revents & POLLIN) && kpt_term_drain_signals())
			dirty = true;
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!read_keys(app, &dirty))
				return KP_EXIT_OK;
			if (fds[0].revents & (POLLHUP | POLLERR) && !(fds[0].revents & POLLIN))
				return KP_EXIT_OK;
		}
		for (int i = 2; i < nfds; i++)
			if ((fds[i].revents & (POLLIN | POLLHUP)) &&
			    (app->sources[src[i]].poll(app) & KPT_REDRAW)) {
				dirty = true;
				notify_views(app, &dirty);
			}
		kpt_view *v = top_view(app);
		more = false;
		if (v && v->ops->idle && !kpt_term_quit_signal()) {
			unsigned f = v->ops->idle(v);
			more = (f & KPT_MORE) != 0;
			dirty |= (f & KPT_REDRAW) != 0;
		}
	}
}

void kpt_app_close_views(kpt_app *app)
{
	while (app->depth > 0)
		free_view(app, app->stack[--app->depth]);
}

void kpt_app_push(kpt_app *app, const kpt_view_ops *ops, void *arg)
{
	push_view(app, ops, arg);
}

void kpt_app_draw(kpt_app *app)
{
	draw_all(app);
}

void kpt_app_key(kpt_app *app, kpt_request req)
{
	bool dirty = false;
	apply_flags(app, dispatch(app, req), &dirty);
	if (dirty)
		draw_all(app);
}
