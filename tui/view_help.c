/* view_help.c: the `?` screen, generated from the KPT_KEYS table that the
 * dispatcher uses, so the two cannot disagree.  Its prose is wrapped to the
 * width at each draw (a key's text under its text, a legend entry's under
 * its text), never cut. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct help_row {
	const char *label, *help;
} help_row;

static const help_row help_rows[] = {
#define KPT_HELP_ROW(name, label, help, ...) {label, help},
	KPT_KEYS(KPT_HELP_ROW)
#undef KPT_HELP_ROW
};
#define NHELP (sizeof help_rows / sizeof help_rows[0])

/* After the keys: paragraphs (label NULL) and legend entries (a label in a
 * column of LEGEND_W); "" is a blank line. */
#define LEGEND_W 13
static const help_row help_notes[] = {
	{NULL, ""},
	{NULL, "Mouse: the wheel scrolls, a click selects, a click on the selected row opens it, "
	       "a click on the top bar goes back.  Only clicks are reported (no motion), so the "
	       "terminal's own selection works by dragging (Shift-drag in some terminals)."},
	{NULL, "Views: Panics -> Report (Tab: images) -> Process -> Thread -> Source."},
	{NULL, ""},
	{NULL, "Legend"},
	{"*", "new since the last launch, or arrived while running"},
	{"dups, count", "copies of the same panic (1.2k = 1,200 or more)"},
	{"culprit", "the first non-Apple kext in the backtrace, else IMAGE!function "
	            "of the first frame after the panic machinery (? no image known)"},
	{"T:2899AE9D", "an image the report does not name: its kind letter and UUID start "
	               "(K kernel, U kernelcache, T kext text, A absolute, P process, "
	               "S shared cache, X kext named by the backtrace text only)"},
	{"dates", "UTC; ~ marks a time the report gives without a zone (the Mac's own clock); - when none (listed last)"},
	{"*1 *2", "reports marked with m for c (compare), in the order marked"},
	{"= ! < >", "compare: the same function, a different one, only in A, only in B"},
	{" ->", "a thread's continuation: where a parked thread resumes"},
	{NULL, "Thread frames fill in with function and file:line as the dSYMs load."},
};
#define NNOTES (sizeof help_notes / sizeof help_notes[0])
#define KEY_W 18

/* One screen line: a piece of an entry's text, the entry's label on its
 * first line only. */
typedef struct hline {
	const help_row *row;
	bool key, first;
	size_t off, len;   /* the piece of row->help */
} hline;

typedef struct help_priv {
	hline *lines;
	size_t n, cap;
	int width;        /* the width lines were wrapped for */
} help_priv;

static void push(help_priv *p, const help_row *row, bool key, bool first, size_t off, size_t len)
{
	hline *l = kpt_xpush((void **)&p->lines, &p->n, &p->cap, sizeof *p->lines);
	*l = (hline){row, key, first, off, len};
}

/* text in pieces of at most w bytes (the help is ASCII), broken after a
 * space where one is; a word longer than w is cut where it is full */
static void wrap_entry(help_priv *p, const help_row *row, bool key, int w)
{
	const char *t = row->help;
	size_t len = strlen(t), at = 0;
	size_t cols = w > 8 ? (size_t)w : 8;
	bool first = true;
	do {
		size_t end = len - at <= cols ? len : at + cols;
		if (end < len) {
			size_t sp = end;
			while (sp > at && t[sp] != ' ')
				sp--;
			if (sp > at)
				end = sp;
		}
		push(p, row, key, first, at, end - at);
		first = false;
		at = end;
		while (at < len && t[at] == ' ')
			at++;
	} while (at < len);
}

static void relayout(kpt_view *v, int width)
{
	help_priv *p = v->priv;
	if (p->width == width && p->n)
		return;
	/* keep the entry under the cursor */
	size_t cur = 0;
	const help_row *keep = kpt_list_current(&v->list, &cur) && cur < p->n ? p->lines[cur].row : NULL;
	p->n = 0;
	p->width = width;
	for (size_t i = 0; i < NHELP; i++)
		wrap_entry(p, &help_rows[i], true, width - 2 - KEY_W);
	for (size_t i = 0; i < NNOTES; i++)
		wrap_entry(p, &help_notes[i], false, width - 2 - (help_notes[i].label ? LEGEND_W : 0));
	kpt_list_reset(&v->list, p->n);
	if (v->list.filter[0])
		kpt_list_refilter(v);
	for (size_t i = 0; keep && i < p->n; i++)
		if (p->lines[i].row == keep && p->lines[i].first) {
			kpt_list_select_row(&v->list, i);
			break;
		}
}

static int help_open(kpt_view *v, void *arg)
{
	(void)arg;
	snprintf(v->title, sizeof v->title, "Help");
	relayout(v, 80);
	return 0;
}

static void help_close(kpt_view *v)
{
	free(((help_priv *)v->priv)->lines);
}

static void help_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	help_priv *p = v->priv;
	if (row >= p->n)
		return;
	const hline *l = &p->lines[row];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char piece[512];
	snprintf(piece, sizeof piece, "%.*s", (int)l->len, l->row->help + l->off);
	kpt_put(y, 0, width, "", st, true);
	if (l->key) {
		if (l->first)
			kpt_put(y, 2, KEY_W, l->row->label, sel ? st : KPT_ST_FUNC, true);
		kpt_put(y, 2 + KEY_W, width - 2 - KEY_W, piece, st, true);
	} else if (l->row->label) {
		if (l->first)
			kpt_put(y, 2, LEGEND_W - 1, l->row->label, sel ? st : KPT_ST_DIM, true);
		kpt_put(y, 2 + LEGEND_W, width - 2 - LEGEND_W, piece, sel ? st : KPT_ST_DIM, true);
	} else {
		kpt_put(y, 2, width - 2, piece, sel ? st : KPT_ST_DIM, true);
	}
}

static void help_draw(kpt_view *v, int y0, int h, int width)
{
	relayout(v, width);
	kpt_put(y0, 0, width, "  key               does", KPT_ST_HEADER, true);
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

/* a filter matches the whole entry, label and text, on each of its lines */
static const char *help_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	help_priv *p = v->priv;
	if (row >= p->n)
		return "";
	const help_row *r = p->lines[row].row;
	snprintf(buf, size, "%s %s", r->label ? r->label : "", r->help);
	return buf;
}

static unsigned help_request(kpt_view *v, kpt_request req)
{
	(void)v;
	if (req == KPT_REQ_HELP || req == KPT_REQ_ENTER)
		return KPT_HANDLED | KPT_POP | KPT_REDRAW;
	return 0;
}

static const char *help_hint(kpt_view *v)
{
	(void)v;
	return "Esc back";
}

const kpt_view_ops kpt_view_help = {
	.name = "help",
	.private_size = sizeof(help_priv),
	.open = help_open,
	.close = help_close,
	.draw = help_draw,
	.draw_row = help_draw_row,
	.row_text = help_row_text,
	.request = help_request,
	.hint = help_hint,
};
