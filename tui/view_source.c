/* view_source.c: a source file around one line, that line highlighted.
 * The DWARF path is rewritten by the first matching --source-map FROM=TO
 * (FROM must match whole path components); a file that cannot be read
 * shows "source not on this machine: PATH".  `/` searches (n/N) instead of
 * filtering, so line numbers stay put. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_editor.h"
#include "kpt_options.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SOURCE_MAX_BYTES ((size_t)32 << 20)

typedef struct source_priv {
	char path[2048];      /* after mapping */
	char dwarf_path[1024];
	unsigned line;
	char **lines;         /* tabs expanded, untrusted otherwise */
	size_t nlines;
	char error[256];
	bool centred;
	size_t hscroll;       /* characters hidden on the left (Left/Right) */
} source_priv;

static char *expand_tabs(const char *s, size_t len)
{
	size_t tabs = 0;
	for (size_t i = 0; i < len; i++)
		tabs += s[i] == '\t';
	char *o = kpt_xmalloc(len + tabs * 8 + 1), *q = o;
	size_t col = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\t') {
			do {
				*q++ = ' ';
				col++;
			} while (col % 8);
		} else {
			*q++ = s[i];
			if (((unsigned char)s[i] & 0xC0) != 0x80)
				col++;
		}
	}
	*q = '\0';
	return o;
}

static bool load_file(source_priv *p)
{
	FILE *fp = fopen(p->path, "rb");
	if (!fp) {
		snprintf(p->error, sizeof p->error, "%s", strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > SOURCE_MAX_BYTES) {
		snprintf(p->error, sizeof p->error, "not a regular file of at most 32 MiB");
		fclose(fp);
		return false;
	}
	size_t size = (size_t)st.st_size;
	char *data = kpt_xmalloc(size + 1);
	size_t got = fread(data, 1, size, fp);
	fclose(fp);
	data[got] = '\0';
	size_t cap = 256;
	p->lines = kpt_xmalloc(cap * sizeof *p->lines);
	const char *s = data, *end = data + got;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		size_t len = e ? (size_t)(e - s) : (size_t)(end - s);
		if (p->nlines == cap) {
			cap *= 2;
			p->lines = kpt_xrealloc(p->lines, cap * sizeof *p->lines);
		}
		p->lines[p->nlines++] = expand_tabs(s, len);
		s += len + 1;
	}
	free(data);
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
	if (load_file(p)) {
		kpt_list_reset(&v->list, p->nlines);
		if (p->line > 0)
			kpt_list_select_row(&v->list, p->line - 1);
	}
	return 0;
}

static void source_close(kpt_view *v)
{
	source_priv *p = v->priv;
	for (size_t i = 0; i < p->nlines; i++)
		free(p->lines[i]);
	free(p->lines);
}

static void source_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	source_priv *p = v->priv;
	bool target = row + 1 == p->line;
	kpt_style st = target ? KPT_ST_MATCH : sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	kpt_put(y, 0, width, "", st, true);
	kpt_putf(y, 0, 8, target || sel ? st : KPT_ST_DIM, true, "%c%6zu ", target ? '>' : ' ', row + 1);
	const char *t = p->lines[row];
	for (size_t skip = p->hscroll; *t && skip > 0; skip--)   /* by characters */
		for (t++; ((unsigned char)*t & 0xC0) == 0x80; t++)
			;
	kpt_put(y, 8, width - 8, t, st, true);
}

static void source_draw(kpt_view *v, int y0, int h, int width)
{
	source_priv *p = v->priv;
	kpt_put(y0, 0, width, p->path, KPT_ST_HEADER, true);
	if (!p->lines) {
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
	return p->lines ? p->lines[row] : NULL;
}

/* Right scrolls by 8 columns while some line is still cut; Left scrolls
 * back, and at the left edge goes back like Esc. */
static unsigned source_request(kpt_view *v, kpt_request req)
{
	source_priv *p = v->priv;
	if (req == KPT_REQ_EDIT) {   /* at the line under the cursor */
		size_t row;
		kpt_editor_open(v->app, p->dwarf_path, kpt_list_current(&v->list, &row) ? (unsigned)row + 1 : p->line);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_RIGHT) {
		size_t longest = 0;
		for (size_t i = 0; i < p->nlines; i++) {
			size_t n = strlen(p->lines[i]);
			longest = n > longest ? n : longest;
		}
		if (p->hscroll + 8 < longest)
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
