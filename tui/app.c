/* tui.c: the interactive browser: options, the event loop, the view stack,
 * drawing helpers and the one-line prompt.  The list widget is in list.c,
 * terminal setup, restore and signals in term.c.
 *
 * The loop waits in poll() on the terminal, a self-pipe fed by the signal
 * handlers (SIGWINCH, SIGINT, SIGTERM), the worker's result pipe and the
 * scanner's progress pipe; it handles whatever is ready, then redraws once.
 * Quirk: we replace ncurses' own SIGWINCH handler, so a resize is applied
 * by term.c with resizeterm() from TIOCGWINSZ. */
#include "kpt_view.h"
#include "kpt_exit.h"
#include "kpt_main.h"
#include "kpt_sanitize.h"
#include "kpt_term.h"

#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#ifndef KP_SOURCE_DIR
#define KP_SOURCE_DIR ""
#endif

/* ---- styles ---- */

static attr_t style_attr[KPT_ST_COUNT];

static void init_styles(kpt_app *app)
{
	const char *nc = getenv("NO_COLOR");
	app->color = has_colors() && !(nc && *nc);
	static const attr_t mono[KPT_ST_COUNT] = {
		[KPT_ST_TITLE] = A_REVERSE | A_BOLD, [KPT_ST_STATUS] = A_REVERSE,
		[KPT_ST_CURSOR] = A_REVERSE,          [KPT_ST_HEADER] = A_BOLD | A_UNDERLINE,
		[KPT_ST_DIM] = A_DIM,                  [KPT_ST_FUNC] = A_BOLD,
		[KPT_ST_MARK] = A_BOLD,                [KPT_ST_MATCH] = A_REVERSE | A_BOLD,
		[KPT_ST_ERROR] = A_BOLD,
	};
	memcpy(style_attr, mono, sizeof mono);
	if (!app->color)
		return;
	start_color();
	use_default_colors();
	struct { kpt_style st; short fg, bg; attr_t extra; } pairs[] = {
		{KPT_ST_TITLE, COLOR_WHITE, COLOR_BLUE, A_BOLD},
		{KPT_ST_STATUS, COLOR_BLACK, COLOR_CYAN, 0},
		{KPT_ST_CURSOR, COLOR_BLACK, COLOR_YELLOW, 0},
		{KPT_ST_HEADER, COLOR_CYAN, -1, A_BOLD},
		{KPT_ST_DIM, -1, -1, A_DIM},
		{KPT_ST_FUNC, COLOR_GREEN, -1, 0},
		{KPT_ST_FILE, COLOR_MAGENTA, -1, 0},
		{KPT_ST_MARK, COLOR_RED, -1, A_BOLD},
		{KPT_ST_MATCH, COLOR_BLACK, COLOR_GREEN, 0},
		{KPT_ST_ERROR, COLOR_RED, -1, A_BOLD},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		if (init_pair((short)(i + 1), pairs[i].fg, pairs[i].bg) == ERR)
			continue;
		style_attr[pairs[i].st] = COLOR_PAIR((int)(i + 1)) | pairs[i].extra;
	}
}

void kpt_attr_on(kpt_style st) { attron(style_attr[st]); }
void kpt_attr_off(kpt_style st) { attroff(style_attr[st]); }

/* ---- text output ---- */

static int put_clean(int y, int x, int width, const char *s, kpt_style st, bool pad)
{
	wchar_t w[512];
	int n = 0, used = 0;
	mbstate_t ps;
	memset(&ps, 0, sizeof ps);
	size_t len = strlen(s);
	while (len > 0 && n < (int)(sizeof w / sizeof w[0])) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &ps);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2) {
			wc = L'?';
			k = 1;
			memset(&ps, 0, sizeof ps);
		}
		int cw = wcwidth(wc);
		if (cw < 0)
			wc = L'?', cw = 1;
		if (used + cw > width)
			break;
		w[n++] = wc;
		used += cw;
		s += k;
		len -= k;
	}
	attron(style_attr[st]);
	mvaddnwstr(y, x, w, n);
	if (pad && used < width) {
		mvhline(y, x + used, ' ', width - used);
		used = width;
	}
	attroff(style_attr[st]);
	return used;
}

int kpt_put(int y, int x, int width, const char *s, kpt_style st, bool pad)
{
	char buf[2048];
	if (width <= 0)
		return 0;
	if (!s)
		s = "";
	size_t len = strlen(s);
	if (len > 600)
		len = 600;
	kpt_sanitize(buf, sizeof buf, s, len, 0);
	return put_clean(y, x, width, buf, st, pad);
}

int kpt_putf(int y, int x, int width, kpt_style st, bool pad, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return kpt_put(y, x, width, buf, st, pad);
}

int kpt_text_width(const char *s)
{
	char buf[2048];
	kpt_sanitize(buf, sizeof buf, s, strlen(s), 0);
	mbstate_t ps;
	memset(&ps, 0, sizeof ps);
	int w = 0;
	const char *p = buf;
	size_t len = strlen(buf);
	while (len > 0) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, p, len, &ps);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2) {
			k = 1;
			wc = L'?';
			memset(&ps, 0, sizeof ps);
		}
		int cw = wcwidth(wc);
		w += cw < 0 ? 1 : cw;
		p += k;
		len -= k;
	}
	return w;
}

void kpt_set_msg(kpt_app *app, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->msg, sizeof app->msg, fmt, ap);
	va_end(ap);
}

/* ---- prompt ---- */

static struct {
	bool active;
	kpt_view *view;
	kpt_prompt_fn fn;
	char label[64];
	char text[256];
} prompt;

void kpt_prompt(kpt_app *app, kpt_view *v, const char *label, const char *initial,
                kpt_prompt_fn fn)
{
	(void)app;
	prompt.active = true;
	prompt.view = v;
	prompt.fn = fn;
	snprintf(prompt.label, sizeof prompt.label, "%s", label);
	snprintf(prompt.text, sizeof prompt.text, "%s", initial ? initial : "");
}

static unsigned prompt_key(kpt_app *app, int ret, wint_t ch)
{
	size_t n = strlen(prompt.text);
	kpt_prompt_fn fn = prompt.fn;
	kpt_view *v = prompt.view;
	if (ret == KEY_CODE_YES) {
		if (ch == KEY_BACKSPACE)
			goto backspace;
		if (ch == KEY_ENTER)
			goto enter;
		return KPT_REDRAW;
	}
	if (ch == 27) {
		prompt.active = false;
		return fn(app, v, NULL, true) | KPT_REDRAW;
	}
	if (ch == '\n' || ch == '\r') {
enter:
		prompt.active = false;
		return fn(app, v, prompt.text, true) | KPT_REDRAW;
	}
	if (ch == 127 || ch == 8) {
backspace:
		while (n > 0 && ((unsigned char)prompt.text[n - 1] & 0xC0) == 0x80)
			n--;
		if (n > 0)
			n--;
		prompt.text[n] = '\0';
	} else if (ch == KPT_CTRL('u')) {
		prompt.text[0] = '\0';
	} else if (ch >= 32 && ch != 127) {
		char mb[MB_LEN_MAX];
		mbstate_t ps;
		memset(&ps, 0, sizeof ps);
		size_t k = wcrtomb(mb, (wchar_t)ch, &ps);
		if (k == (size_t)-1 || n + k + 1 > sizeof prompt.text)
			return KPT_REDRAW;
		memcpy(prompt.text + n, mb, k);
		prompt.text[n + k] = '\0';
	} else {
		return KPT_REDRAW;
	}
	return fn(app, v, prompt.text, false) | KPT_REDRAW;
}

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

static void push_view(kpt_app *app, const kpt_view_ops *ops, void *arg)
{
	if (app->depth >= (int)(sizeof app->stack / sizeof app->stack[0])) {
		kpt_set_msg(app, "too many views open");
		return;
	}
	kpt_view *v = calloc(1, sizeof *v);
	if (!v)
		abort();
	v->ops = ops;
	v->app = app;
	v->list.height = app->rows > 4 ? app->rows - 4 : 1;
	if (ops->open(v, arg) != 0) {
		kpt_list_free(&v->list);
		free(v);
		return;
	}
	app->stack[app->depth++] = v;
}

static void pop_view(kpt_app *app)
{
	if (app->depth <= 1)
		return;
	kpt_view *v = app->stack[--app->depth];
	if (prompt.active && prompt.view == v)
		prompt.active = false;
	if (v->ops->close)
		v->ops->close(v);
	kpt_list_free(&v->list);
	free(v);
	kpt_view *t = top_view(app);
	if (t && t->ops->update)
		t->ops->update(t);
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
		if (app->cat.scanning)
			snprintf(buf, sizeof buf, "indexing: %zu files, %zu new  %s", app->cat.scan_files,
			         app->cat.scan_new, app->cat.scan_path);
		if (app->work[0]) {
			size_t n = strlen(buf);
			snprintf(buf + n, sizeof buf - n, "%s%s", n ? "  |  " : "", app->work);
		}
		line = buf;
	}
	kpt_put(rows - 2, 0, cols, line, app->msg[0] ? KPT_ST_ERROR : KPT_ST_DIM, true);

	if (prompt.active) {
		int used = kpt_put(rows - 1, 0, cols, prompt.label, KPT_ST_STATUS, false);
		used += kpt_put(rows - 1, used, cols - used - 1, prompt.text, KPT_ST_NORMAL, false);
		kpt_put(rows - 1, used, cols - used, "", KPT_ST_NORMAL, true);
		move(rows - 1, used);
		curs_set(1);
	} else {
		curs_set(0);
		char pos[128] = "";
		if (v) {
			size_t vis = kpt_list_visible(&v->list);
			snprintf(pos, sizeof pos, " %zu/%zu%s%s%s ", vis ? v->list.cur + 1 : 0, vis,
			         v->list.filter[0] ? "  /" : "", v->list.filter,
			         v->list.filtered ? " (filtered)" : "");
		}
		char hint[400];
		snprintf(hint, sizeof hint, "%s  ? help  q quit ", v && v->ops->hint ? v->ops->hint(v) : "");
		int used = kpt_put(rows - 1, 0, cols, pos, KPT_ST_STATUS, false);
		int hw = kpt_text_width(hint);
		if (hw > cols - used)
			hw = cols - used;
		kpt_put(rows - 1, used, cols - used - hw, "", KPT_ST_STATUS, true);
		kpt_put(rows - 1, cols - hw, hw, hint, KPT_ST_STATUS, true);
	}
	refresh();
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
	case KPT_REQ_BACK: return KPT_POP | KPT_REDRAW;
	case KPT_REQ_QUIT: return KPT_QUIT;
	case KPT_REQ_HELP:
		if (v->ops != &kpt_view_help)
			return kpt_push_later(app, &kpt_view_help, NULL);
		return 0;
	case KPT_REQ_UUID: return kpt_push_later(app, &kpt_view_search, NULL);
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
		if (ret == KEY_CODE_YES && ch == KEY_MOUSE && !prompt.active) {
			f = handle_mouse(app);
		} else if (prompt.active) {
			f = prompt_key(app, ret, ch);
		} else {
			app->msg[0] = '\0';
			*dirty = true;
			f = dispatch(app, key_to_request(ret, ch));
		}
		if (!apply_flags(app, f, dirty))
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

static int event_loop(kpt_app *app)
{
	bool dirty = true;
	for (;;) {
		int quit_sig = kpt_term_quit_signal();
		if (quit_sig)
			return 128 + quit_sig;
		if (dirty) {
			draw_all(app);
			dirty = false;
		}
		struct pollfd fds[4];
		int nfds = 0;
		fds[nfds++] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
		fds[nfds++] = (struct pollfd){.fd = kpt_term_signal_fd(), .events = POLLIN};
		int wfd = kpt_worker_fd(app), sfd = kpt_scanner_fd(app);
		int wi = -1, si = -1;
		if (wfd >= 0) {
			wi = nfds;
			fds[nfds++] = (struct pollfd){.fd = wfd, .events = POLLIN};
		}
		if (sfd >= 0) {
			si = nfds;
			fds[nfds++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		}
		int n = poll(fds, (nfds_t)nfds, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return KPT_EXIT_BAD;
		}
		if ((fds[1].revents & POLLIN) && kpt_term_drain_signals())
			dirty = true;
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!read_keys(app, &dirty))
				return KPT_EXIT_OK;
			if (fds[0].revents & (POLLHUP | POLLERR) && !(fds[0].revents & POLLIN))
				return KPT_EXIT_OK;
		}
		if (wi >= 0 && (fds[wi].revents & POLLIN))
			if (kpt_worker_poll(app) & KPT_REDRAW) {
				dirty = true;
				notify_views(app, &dirty);
			}
		if (si >= 0 && (fds[si].revents & (POLLIN | POLLHUP)))
			if (kpt_scanner_poll(app) & KPT_REDRAW) {
				dirty = true;
				notify_views(app, &dirty);
			}
	}
}

/* ---- options ---- */

const char kpt_synopsis[] = "[--demo] [--db PATH] [--dsym PATH]... [--source-map FROM=TO]... [PATH...]";
const char kpt_options_help[] =
	"  --demo              browse the bundled demo reports with their dSYMs\n"
	"  --db PATH           the index database (default: per-user data folder)\n"
	"  --dsym PATH         a dSYM, binary, folder or KDK to symbolicate with\n"
	"  --source-map F=T    show source files under F from T instead\n"
	"  PATH                report files or folders to index (default: the system's)\n";

static void tui_usage(FILE *fp)
{
	fprintf(fp, "Usage: kpbrowse %s\n%s", kpt_synopsis, kpt_options_help);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The demo folder: reports/, bin/ and src/ of the fixtures, from the source
 * tree when built here, else ../share/kpbrowse/demo beside the binary. */
static bool find_demo(const char *argv0, char *out, size_t size)
{
	char p[PATH_MAX + 64];
	if (KP_SOURCE_DIR[0]) {
		snprintf(out, size, "%s/tests/fixtures", KP_SOURCE_DIR);
		snprintf(p, sizeof p, "%s/reports", out);
		if (is_dir(p))
			return true;
	}
	char exe[PATH_MAX];
	if (strchr(argv0, '/') && realpath(argv0, exe)) {
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(out, size, "%s/../share/kpbrowse/demo", exe);
		snprintf(p, sizeof p, "%s/reports", out);
		if (is_dir(p))
			return true;
	}
	return false;
}

static char demo_paths[4][PATH_MAX + 64];
static char default_paths[3][PATH_MAX];

static int parse_args(kpt_app *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{"demo", no_argument, NULL, 'D'},
		{"db", required_argument, NULL, 'b'},
		{"dsym", required_argument, NULL, 'd'},
		{"source-map", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	kpt_config *c = &app->cfg;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+hd:", opts, NULL)) != -1) {
		switch (ch) {
		case 'D': c->demo = true; break;
		case 'b': snprintf(c->db_path, sizeof c->db_path, "%s", optarg); break;
		case 'd':
			if (c->ndsyms < KPT_MAX_PATHS)
				c->dsyms[c->ndsyms++] = optarg;
			break;
		case 'm': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || c->nmaps >= KPT_MAX_PATHS) {
				fprintf(stderr, "kpbrowse: --source-map wants FROM=TO, got '%s'\nTry 'kpbrowse --help'.\n", optarg);
				return KPT_EXIT_BAD;
			}
			*eq = '\0';
			c->map_from[c->nmaps] = optarg;
			c->map_to[c->nmaps++] = eq + 1;
			break;
		}
		case 'h': tui_usage(stdout); return -1;
		default: tui_usage(stderr); return KPT_EXIT_BAD;
		}
	}
	for (int i = optind; i < argc && c->npaths < KPT_MAX_PATHS; i++)
		c->paths[c->npaths++] = argv[i];

	if (c->demo) {
		char *root = demo_paths[0];
		if (!find_demo(argv[0], root, sizeof demo_paths[0])) {
			fprintf(stderr, "kpbrowse: the demo reports are not installed (looked in %s/tests/fixtures "
			                "and ../share/kpbrowse/demo)\n", KP_SOURCE_DIR[0] ? KP_SOURCE_DIR : "?");
			return KPT_EXIT_BAD;
		}
		snprintf(demo_paths[1], sizeof demo_paths[1], "%s/reports", root);
		snprintf(demo_paths[2], sizeof demo_paths[2], "%s/bin", root);
		if (c->npaths < KPT_MAX_PATHS)
			c->paths[c->npaths++] = demo_paths[1];
		if (c->ndsyms < KPT_MAX_PATHS)
			c->dsyms[c->ndsyms++] = demo_paths[2];
		if (c->nmaps < KPT_MAX_PATHS) {
			c->map_from[c->nmaps] = "/kpbrowse/fixtures";
			c->map_to[c->nmaps++] = root;
		}
		c->no_system = true;
		if (!c->db_path[0]) {
			const char *tmp = getenv("TMPDIR");
			if (!tmp || !*tmp)
				tmp = "/tmp";
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s/kpbrowse-demo-%ld", tmp, (long)getuid());
			mkdir(dir, 0700);
			snprintf(c->db_path, sizeof c->db_path, "%s/index.sqlite3", dir);
		}
	} else if (c->npaths == 0) {
		const char *home = getenv("HOME");
		size_t k = 0;
		snprintf(default_paths[k++], PATH_MAX, "/Library/Logs/DiagnosticReports");
		if (home && *home)
			snprintf(default_paths[k++], PATH_MAX, "%s/Library/Logs/DiagnosticReports", home);
		bool any = false;
		for (size_t i = 0; i < k; i++) {
			c->paths[c->npaths++] = default_paths[i];
			any |= is_dir(default_paths[i]);
		}
		c->default_paths = true;
		app->no_reports_folder = !any;
	}
	if (!c->db_path[0]) {
		kp_error err;
		if (kpi_default_path(NULL, c->db_path, sizeof c->db_path, &err) != KP_OK) {
			fprintf(stderr, "kpbrowse: %s\n", err.msg);
			return KPT_EXIT_BAD;
		}
	}
	return 0;
}

/* ---- bench hooks ---- */

static SCREEN *bench_screen;
static FILE *bench_out, *bench_in;

kpt_app *kpt_bench_open(int rows, int cols)
{
	kpt_app *app = calloc(1, sizeof *app);
	if (!app)
		abort();
	setlocale(LC_ALL, "");
	bench_out = fopen("/dev/null", "w");
	bench_in = fopen("/dev/null", "r");
	const char *term = getenv("TERM");
	bench_screen = newterm(term && *term ? term : "xterm-256color", bench_out, bench_in);
	if (!bench_screen)
		bench_screen = newterm("vt100", bench_out, bench_in);
	if (!bench_screen)
		abort();
	resizeterm(rows, cols);
	init_styles(app);
	app->rows = rows;
	app->cols = cols;
	return app;
}

void kpt_bench_close(kpt_app *app)
{
	while (app->depth > 0) {
		kpt_view *v = app->stack[--app->depth];
		if (v->ops->close)
			v->ops->close(v);
		kpt_list_free(&v->list);
		free(v);
	}
	endwin();
	delscreen(bench_screen);
	fclose(bench_out);
	fclose(bench_in);
	free(app);
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

/* ---- entry ---- */

static kpt_app the_app;

static void shutdown_app(kpt_app *app)
{
	kpt_scanner_stop(app);
	kpt_worker_stop(app);
	while (app->depth > 0) {
		kpt_view *v = app->stack[--app->depth];
		if (v->ops->close)
			v->ops->close(v);
		kpt_list_free(&v->list);
		free(v);
	}
	kpt_catalog_save_state(app);
	kpt_catalog_free(&app->cat);
	free(app->docs);
	app->docs = NULL;
	kpi_close(&app->db);
}

int kpt_main(int argc, char **argv)
{
	kpt_app *app = &the_app;
	memset(app, 0, sizeof *app);
	setlocale(LC_ALL, "");
	int rc = parse_args(app, argc, argv);
	if (rc != 0)
		return rc < 0 ? KPT_EXIT_OK : rc;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fputs("kpbrowse: the browser needs a terminal (see 'kpbrowse --help' for the commands)\n", stderr);
		return KPT_EXIT_BAD;
	}

	kp_error err;
	if (kpi_open(app->cfg.db_path, KPI_OPEN_CREATE, &app->db, &err) != KP_OK) {
		fputs("kpbrowse: ", stderr);
		kpt_sanitize_write(stderr, err.msg, strlen(err.msg), 0);
		fputc('\n', stderr);
		return KPT_EXIT_BAD;
	}
	if (!kpt_term_pipe_open()) {
		perror("kpbrowse: pipe");
		return KPT_EXIT_BAD;
	}

	if (!kpt_term_start()) {
		fputs("kpbrowse: cannot initialise the terminal\n", stderr);
		return KPT_EXIT_BAD;
	}
	init_styles(app);
	app->rows = LINES;
	app->cols = COLS;

	if (kpt_catalog_reload(app, &err) != KP_OK)
		kpt_set_msg(app, "index: %s", err.msg);
	if (kpt_worker_start(app, &err) != KP_OK)
		kpt_set_msg(app, "symbols unavailable: %s", err.msg);
	if (kpt_scanner_start(app, &err) != KP_OK)
		kpt_set_msg(app, "cannot index: %s", err.msg);
	push_view(app, &kpt_view_panics, NULL);

	rc = event_loop(app);
	kpt_term_restore();
	shutdown_app(app);
	return rc;
}
