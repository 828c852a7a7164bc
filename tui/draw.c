/* draw.c: styles and the drawing helpers of kpt_draw.h.  Text goes
 * through the terminal sanitiser (sanitize.c) and then ncurses' wide API. */
#include "kpt_draw.h"
#include "kp_sanitize.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Colour pair i + 1 holds style colour_styles[i]; without colours (no
 * start_color, so COLOR_PAIRS is 0) every style uses its mono attrs. */
static const attr_t mono[KPT_ST_COUNT] = {
	[KPT_ST_TITLE] = A_REVERSE | A_BOLD, [KPT_ST_STATUS] = A_REVERSE,
	[KPT_ST_CURSOR] = A_REVERSE,          [KPT_ST_HEADER] = A_BOLD | A_UNDERLINE,
	[KPT_ST_DIM] = A_DIM,                  [KPT_ST_FUNC] = A_BOLD,
	[KPT_ST_MARK] = A_BOLD,                [KPT_ST_MATCH] = A_REVERSE | A_BOLD,
	[KPT_ST_ERROR] = A_BOLD,
};

static const struct {
	short fg, bg;
	attr_t extra;
} colour[KPT_ST_COUNT] = {
	[KPT_ST_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
	[KPT_ST_STATUS] = {COLOR_BLACK, COLOR_CYAN, 0},
	[KPT_ST_CURSOR] = {COLOR_BLACK, COLOR_YELLOW, 0},
	[KPT_ST_HEADER] = {COLOR_CYAN, -1, A_BOLD},
	[KPT_ST_DIM] = {-1, -1, A_DIM},
	[KPT_ST_FUNC] = {COLOR_GREEN, -1, 0},
	[KPT_ST_FILE] = {COLOR_MAGENTA, -1, 0},
	[KPT_ST_MARK] = {COLOR_RED, -1, A_BOLD},
	[KPT_ST_MATCH] = {COLOR_BLACK, COLOR_GREEN, 0},
	[KPT_ST_ERROR] = {COLOR_RED, -1, A_BOLD},
};

bool kpt_draw_init_styles(void)
{
	const char *nc = getenv("NO_COLOR");
	if (!has_colors() || (nc && *nc))
		return false;
	start_color();
	use_default_colors();
	for (int st = 1; st < KPT_ST_COUNT; st++)
		init_pair((short)st, colour[st].fg, colour[st].bg);
	return true;
}

/* The style's attributes on the current screen. */
static attr_t style_attrs(kpt_style st)
{
	if (st == KPT_ST_NORMAL || COLOR_PAIRS <= (int)st)
		return mono[st];
	return COLOR_PAIR((int)st) | colour[st].extra;
}

void kpt_attr_on(kpt_style st) { attron(style_attrs(st)); }
void kpt_attr_off(kpt_style st) { attroff(style_attrs(st)); }

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
		if (used + cw > width) {
			/* a cut is marked: the last column(s) give way to an ellipsis */
			while (n > 0 && used + 1 > width)
				used -= wcwidth(w[--n]) > 0 ? wcwidth(w[n]) : 1;
			if (used + 1 <= width) {
				w[n++] = MB_CUR_MAX > 1 ? L'\u2026' : L'~';
				used++;
			}
			break;
		}
		w[n++] = wc;
		used += cw;
		s += k;
		len -= k;
	}
	kpt_attr_on(st);
	mvaddnwstr(y, x, w, n);
	if (pad && used < width) {
		mvhline(y, x + used, ' ', width - used);
		used = width;
	}
	kpt_attr_off(st);
	return used;
}

int kpt_put(int y, int x, int width, const char *s, kpt_style st, bool pad)
{
	char buf[2048];
	if (width <= 0)
		return 0;
	if (!s)
		s = "";
	size_t len = strnlen(s, 600);   /* a row never shows more; s may be 50 MB */
	kp_sanitize(buf, sizeof buf, s, len, 0);
	return put_clean(y, x, width, buf, st, pad);
}

/* Width of sanitised (already clean) text, as put_clean counts it. */
static int clean_width(const char *s)
{
	mbstate_t ps;
	memset(&ps, 0, sizeof ps);
	int w = 0;
	size_t len = strlen(s);
	while (len > 0) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &ps);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2) {
			k = 1;
			wc = L'?';
			memset(&ps, 0, sizeof ps);
		}
		int cw = wcwidth(wc);
		w += cw < 0 ? 1 : cw;
		s += k;
		len -= k;
	}
	return w;
}

/* Puts s cut from the left at whole parts split by sep: "…" and then
 * as many of its last parts as fit (sep kept before them when keep_sep),
 * the part up to the first of stop (and all after it) counted in; the last
 * part always, right-cut when even it is too wide. */
static int put_left(int y, int x, int width, const char *s, char sep, bool keep_sep, const char *stop,
                    kpt_style st, bool pad)
{
	char buf[2048], out[2100];
	if (width <= 0)
		return 0;
	kp_sanitize(buf, sizeof buf, s ? s : "", s ? strnlen(s, 600) : 0, 0);
	if (clean_width(buf) <= width)
		return put_clean(y, x, width, buf, st, pad);
	size_t idlen = strcspn(buf, stop);
	const char *ell = MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~";
	for (const char *d = memchr(buf, sep, idlen); d; d = memchr(d + 1, sep, idlen - (size_t)(d + 1 - buf))) {
		snprintf(out, sizeof out, "%s%s", ell, keep_sep ? d : d + 1);
		if (clean_width(out) <= width || !memchr(d + 1, sep, idlen - (size_t)(d + 1 - buf)))
			return put_clean(y, x, width, out, st, pad);
	}
	return put_clean(y, x, width, buf, st, pad);
}

int kpt_put_id(int y, int x, int width, const char *s, kpt_style st, bool pad)
{
	/* the id runs to its suffix (" +0x1f0", "+0xe490", "!symbol"), which stays */
	return put_left(y, x, width, s, '.', false, "!+ ", st, pad);
}

int kpt_put_path(int y, int x, int width, const char *s, kpt_style st, bool pad)
{
	return put_left(y, x, width, s, '/', true, "", st, pad);
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
	kp_sanitize(buf, sizeof buf, s, strlen(s), 0);
	return clean_width(buf);
}

int kpt_wrap(int y, int x, int rows, int width, const char *text, kpt_style st, bool draw)
{
	size_t len = strlen(text), at = 0;
	int used = 0;
	while (used < rows && (at < len || used == 0)) {
		size_t end = at;
		int cols = 0;
		while (end < len && used < rows - 1) {
			size_t n;
			int w = kp_sanitize_next(text + end, len - end, &n);
			if (cols + w > width)
				break;
			cols += w;
			end += n;
		}
		if (used == rows - 1) {
			end = len;   /* the last line: kpt_put cuts it with ... */
		} else if (end < len) {
			/* break after a space when one is in the line's second half */
			size_t sp = end;
			while (sp > at && text[sp - 1] != ' ')
				sp--;
			if (sp > at + (end - at) / 2)
				end = sp;
		}
		if (draw) {
			char line[1600];
			snprintf(line, sizeof line, "%.*s", (int)(end - at), text + at);
			kpt_put(y + used, x, width, line, st, true);
		}
		used++;
		at = end;
		while (at < len && text[at] == ' ' && used < rows)   /* no line starts with the space it broke at */
			at++;
	}
	return used;
}

static int col_width(const kpt_col *c, int width, bool tight)
{
	if (tight && c->narrow)
		return c->narrow;
	return c->wide && width >= (c->wide_at ? c->wide_at : KPT_COL_WIDE) ? c->wide : c->width;
}

/* Two passes: as wide as the table says, then, when the flexible column
 * would be under its minimum, with optional columns dropped and narrow
 * ones shrunk (a table with neither keeps an explicit minimum instead). */
void kpt_cols_layout(kpt_col *c, int n, int width)
{
	for (int tight = 0; tight < 2; tight++) {
		int fixed = 0, last = -1, flex = -1;
		for (int i = 0; i < n; i++) {
			c[i].w = c[i].optional && tight ? 0 : -1;
			if (c[i].w == 0)
				continue;
			if (last >= 0)
				fixed += c[last].gap;
			last = i;
			if (c[i].width == 0)
				flex = i;
			else
				fixed += col_width(&c[i], width, tight);
		}
		int min = flex >= 0 && c[flex].min ? c[flex].min : KPT_COL_MIN;
		bool give = false;
		for (int i = 0; i < n; i++)
			give |= c[i].optional || c[i].narrow;
		if (flex >= 0 && width - fixed < min && !tight && give)
			continue;
		if (flex >= 0 && c[flex].min && !give && width - fixed < c[flex].min)
			fixed = width - c[flex].min;
		int x = 0;
		for (int i = 0; i < n; i++) {
			c[i].x = x;
			if (c[i].w == 0)
				continue;
			c[i].w = i == flex ? width - fixed : col_width(&c[i], width, tight);
			x += c[i].w + c[i].gap;
		}
		return;
	}
}

void kpt_count_label(long long n, char *out, size_t size)
{
	static const char unit[] = "kMGTPE";
	if (n < 1000) {
		snprintf(out, size, "x%lld", n);
		return;
	}
	/* tenths of the unit, rounded down: never more than there are */
	long long scaled = n;
	int u = -1;
	while (scaled >= 1000 && u < 5) {
		scaled /= 1000;
		u++;
	}
	long long div = 1;
	for (int i = 0; i <= u; i++)
		div *= 1000;
	long long tenths = (n % div) / (div / 10);
	if (scaled < 10)
		snprintf(out, size, "%lld.%lld%c", scaled, tenths, unit[u]);
	else if (scaled < 100)
		snprintf(out, size, "x%lld%c", scaled, unit[u]);
	else
		snprintf(out, size, "%lld%c", scaled, unit[u]);
}

void kpt_sparkline(const int64_t *v, int n, char *out, size_t size)
{
	static const char ascii[] = ".:-=+*#@";
	bool utf8 = MB_CUR_MAX > 1;
	int64_t max = 0;
	for (int i = 0; i < n; i++)
		max = v[i] > max ? v[i] : max;
	size_t k = 0, cell = utf8 ? 3 : 1;
	for (int i = 0; i < n && k + cell < size; i++) {
		int level = v[i] <= 0 || max <= 0 ? 0 : (int)((v[i] * 8 + max - 1) / max);
		level = level > 8 ? 8 : level;
		if (!level) {
			out[k++] = ' ';
		} else if (utf8) {   /* U+2580 + level: E2 96 80+level */
			out[k++] = '\xe2';
			out[k++] = '\x96';
			out[k++] = (char)(0x80 + level);
		} else {
			out[k++] = ascii[level - 1];
		}
	}
	if (size)
		out[k < size ? k : size - 1] = '\0';
}
