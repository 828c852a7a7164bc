/* view_source.c: a source file around one line, that line highlighted.
 * The DWARF path is rewritten by the first matching --source-map FROM=TO
 * (FROM must match whole path components); a file that cannot be read
 * shows "source not on this machine: PATH".  `/` searches (n/N) instead of
 * filtering, so line numbers stay put.  The file is opened without blocking
 * (a FIFO named like a source file does not hang) and must be regular; it
 * is paged through (see source_priv) and closed when the view is left. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_editor.h"
#include "kpt_options.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file is paged through, never held: a checkpoint (byte offset) every
 * LINE_STEP lines, a window of the file, and the last line found, so a
 * 32 MiB file of newlines costs 4 MiB of checkpoints, and sequential
 * access (drawing, searching) reads each byte about once. */
#define SOURCE_MAX_BYTES ((off_t)1 << 30)
#define LINE_STEP 64
#define WINDOW 65536
#define SHOW_MAX 2048          /* bytes of one line shown or searched */

typedef struct source_priv {
	char path[2048];      /* after mapping */
	char dwarf_path[1024];
	unsigned line;
	int fd;               /* -1 when not open */
	off_t size;
	off_t *ckpt;          /* ckpt[k]: offset of line k * LINE_STEP */
	size_t nlines;
	char *win;            /* WINDOW bytes of the file from win_off */
	off_t win_off;
	size_t win_len;
	size_t last_line;     /* the last line found ... */
	off_t last_off;       /* ... starts here (last_line = SIZE_MAX: none) */
	char text[SHOW_MAX * 8 + 1];   /* the line handed out, tabs expanded */
	char error[256];
	bool centred;
	size_t hscroll;       /* characters hidden on the left (Left/Right) */
} source_priv;

static void expand_tabs(const char *s, size_t len, char *o, size_t size)
{
	size_t col = 0, q = 0;
	for (size_t i = 0; i < len && q + 9 < size; i++) {
		if (s[i] == '\t') {
			do {
				o[q++] = ' ';
				col++;
			} while (col % 8);
		} else {
			o[q++] = s[i];
			if (((unsigned char)s[i] & 0xC0) != 0x80)
				col++;
		}
	}
	o[q] = '\0';
}

/* The window holding off (WINDOW bytes from off when it must move);
 * bytes available at off, 0 at the end of the file or on an error. */
static size_t window_at(source_priv *p, off_t off, const char **at)
{
	if (off < p->win_off || off >= p->win_off + (off_t)p->win_len) {
		ssize_t k = pread(p->fd, p->win, WINDOW, off);
		p->win_off = off;
		p->win_len = k > 0 ? (size_t)k : 0;
	}
	size_t skip = (size_t)(off - p->win_off);
	*at = p->win + skip;
	return p->win_len - skip;
}

/* The offset just past the newline ending the line at off (the file's size
 * for the last line). */
static off_t next_line(source_priv *p, off_t off)
{
	for (;;) {
		const char *at;
		size_t n = window_at(p, off, &at);
		if (n == 0)
			return p->size;
		const char *nl = memchr(at, '\n', n);
		if (nl)
			return off + (off_t)(nl - at) + 1;
		off += (off_t)n;
	}
}

static off_t line_offset(source_priv *p, size_t row)
{
	off_t off;
	size_t from;
	if (p->last_line != SIZE_MAX && p->last_line <= row && row - p->last_line < LINE_STEP) {
		off = p->last_off;
		from = p->last_line;
	} else {
		off = p->ckpt[row / LINE_STEP];
		from = row / LINE_STEP * LINE_STEP;
	}
	for (; from < row; from++)
		off = next_line(p, off);
	p->last_line = row;
	p->last_off = off;
	return off;
}

/* Line row (0-based) with tabs expanded, at most SHOW_MAX bytes of it;
 * borrowed until the next call. */
static const char *line_text(source_priv *p, size_t row)
{
	off_t off = line_offset(p, row);
	char raw[SHOW_MAX];
	size_t len = 0;
	while (len < SHOW_MAX) {
		const char *at;
		size_t n = window_at(p, off + (off_t)len, &at);
		if (n == 0)
			break;
		if (n > SHOW_MAX - len)
			n = SHOW_MAX - len;
		const char *nl = memchr(at, '\n', n);
		size_t take = nl ? (size_t)(nl - at) : n;
		memcpy(raw + len, at, take);
		len += take;
		if (nl)
			break;
	}
	expand_tabs(raw, len, p->text, sizeof p->text);
	return p->text;
}

static void unload(source_priv *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->ckpt);
	free(p->win);
	p->ckpt = NULL;
	p->win = NULL;
	p->nlines = 0;
}

/* Opens the file without blocking on a FIFO or device and without
 * following a symlink it did not resolve itself (realpath first, then
 * O_NOFOLLOW on the result), checks that it is a regular file, and counts
 * its lines, keeping only the checkpoints. */
static bool load_file(source_priv *p)
{
	char real[PATH_MAX];
	if (!realpath(p->path, real)) {
		snprintf(p->error, sizeof p->error, "%s", strerror(errno));
		return false;
	}
	p->fd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (p->fd < 0) {
		snprintf(p->error, sizeof p->error, "%s", strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(p->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(p->error, sizeof p->error, "not a regular file");
		unload(p);
		return false;
	}
	if (st.st_size > SOURCE_MAX_BYTES) {
		snprintf(p->error, sizeof p->error, "larger than 1 GiB (%lld bytes): not shown", (long long)st.st_size);
		unload(p);
		return false;
	}
	p->size = st.st_size;
	p->win = kpt_xmalloc(WINDOW);
	p->last_line = SIZE_MAX;
	size_t cap = 64;
	p->ckpt = kpt_xmalloc(cap * sizeof *p->ckpt);
	p->ckpt[0] = 0;
	size_t lines = 0;   /* lines started so far */
	off_t off = 0;
	while (off < p->size) {
		const char *at;
		size_t n = window_at(p, off, &at);
		if (n == 0)
			break;   /* shorter than fstat said: it shrank */
		const char *e = at + n;
		if (lines == 0)
			lines = 1;
		for (const char *q = memchr(at, '\n', n); q; q = memchr(q + 1, '\n', (size_t)(e - q - 1))) {
			off_t next = off + (off_t)(q - at) + 1;
			if (next >= p->size)
				break;   /* a final newline starts no line */
			if (lines % LINE_STEP == 0) {
				if (lines / LINE_STEP == cap) {
					cap *= 2;
					p->ckpt = kpt_xrealloc(p->ckpt, cap * sizeof *p->ckpt);
				}
				p->ckpt[lines / LINE_STEP] = next;
			}
			lines++;
			if (q + 1 >= e)
				break;
		}
		off += (off_t)n;
	}
	p->size = off;
	p->nlines = lines;
	return true;
}

static int source_open(kpt_view *v, void *arg)
{
	const kpt_source_arg *a = arg;
	source_priv *p = v->priv;
	p->line = a->line;
	snprintf(p->dwarf_path, sizeof p->dwarf_path, "%s", a->file);
	kpt_options_map_source(&v->app->cfg, a->file, p->path, sizeof p->path);
	const char *b = strrchr(a->file, '/');
	snprintf(v->title, sizeof v->title, "%.120s:%u", b ? b + 1 : a->file, a->line);
	v->list.search_only = true;
	p->fd = -1;
	if (load_file(p)) {
		kpt_list_reset(&v->list, p->nlines);
		if (p->line > 0)
			kpt_list_select_row(&v->list, p->line - 1);
	}
	return 0;
}

static void source_close(kpt_view *v)
{
	unload(v->priv);
}

static void source_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	source_priv *p = v->priv;
	bool target = row + 1 == p->line;
	kpt_style st = target ? KPT_ST_MATCH : sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	kpt_put(y, 0, width, "", st, true);
	kpt_putf(y, 0, 8, target || sel ? st : KPT_ST_DIM, true, "%c%6zu ", target ? '>' : ' ', row + 1);
	const char *t = line_text(p, row);
	for (size_t skip = p->hscroll; *t && skip > 0; skip--)   /* by characters */
		for (t++; ((unsigned char)*t & 0xC0) == 0x80; t++)
			;
	kpt_put(y, 8, width - 8, t, st, true);
}

static void source_draw(kpt_view *v, int y0, int h, int width)
{
	source_priv *p = v->priv;
	kpt_put(y0, 0, width, p->path, KPT_ST_HEADER, true);
	if (p->fd < 0) {
		int y = y0 + 2;
		kpt_putf(y++, 2, width - 4, KPT_ST_ERROR, false, "source not on this machine: %s", p->path);
		kpt_put(y++, 2, width - 4, p->error, KPT_ST_DIM, false);
		y++;
		if (strcmp(p->path, p->dwarf_path) == 0)
			kpt_put(y++, 2, width - 4, "If the sources live elsewhere: kpbrowse --source-map FROM=TO", KPT_ST_NORMAL, false);
		else
			kpt_putf(y++, 2, width - 4, KPT_ST_NORMAL, false, "(DWARF says %s)", p->dwarf_path);
		return;
	}
	if (!p->centred && p->line > 0 && h > 2) {   /* first draw: the line in the middle */
		p->centred = true;
		size_t mid = (size_t)(h - 1) / 2;
		v->list.height = h - 1;
		v->list.top = v->list.cur > mid ? v->list.cur - mid : 0;
	}
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

static const char *source_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	source_priv *p = v->priv;
	return p->fd >= 0 && row < p->nlines ? line_text(p, row) : NULL;
}

/* Right scrolls by 8 columns (as far as a line is shown, SHOW_MAX);
 * Left scrolls back, and at the left edge goes back like Esc. */
static unsigned source_request(kpt_view *v, kpt_request req)
{
	source_priv *p = v->priv;
	if (req == KPT_REQ_EDIT) {   /* at the line under the cursor */
		size_t row;
		kpt_editor_open(v->app, p->dwarf_path, kpt_list_current(&v->list, &row) ? (unsigned)row + 1 : p->line);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_RIGHT) {
		if (p->hscroll + 8 < SHOW_MAX)
			p->hscroll += 8;
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_LEFT && p->hscroll > 0) {
		p->hscroll = p->hscroll > 8 ? p->hscroll - 8 : 0;
		return KPT_HANDLED | KPT_REDRAW;
	}
	return 0;
}

static const char *source_hint(kpt_view *v)
{
	(void)v;
	return "/ search  n/N  Left/Right scroll  e edit  Esc back";
}

const kpt_view_ops kpt_view_source = {
	.name = "source",
	.private_size = sizeof(source_priv),
	.open = source_open,
	.close = source_close,
	.draw = source_draw,
	.draw_row = source_draw_row,
	.row_text = source_row_text,
	.request = source_request,
	.hint = source_hint,
};
