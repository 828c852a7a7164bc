/* view_compare.c: two panics side by side (`c`): for each its report, date,
 * headline, OS and kernel, then the two panicked threads' backtraces
 * aligned by function (the longest common subsequence of their frames'
 * function names, as diff aligns lines).  A marker column says what each
 * row is, so it reads without colour too: "=" the same function in both
 * (dimmed), "!" a different function at that place, "<" a frame only A
 * has, ">" one only B has (the differing ones highlighted).  From 100
 * columns the two sides stand side by side; narrower, the headers stack
 * and the backtraces become one column with A's frame of a "!" pair above
 * B's.  Frames show at once as the reports have them and re-align as the
 * worker's symbols arrive (a frame's name is its function once
 * symbolicated, else the report's own symbol, else image +offset).
 *
 * Also the marks both lists keep for `c` (kpt_marks, kpt_view.h). */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_frame.h"
#include "kpt_loader.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"
#include "kp_symbols.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- marks ---- */

void kpt_marks_toggle(kpt_marks *m, int64_t id)
{
	for (int i = 0; i < m->n; i++)
		if (m->id[i] == id) {
			if (i == 0)
				m->id[0] = m->id[1];
			m->n--;
			return;
		}
	if (m->n == 2) {   /* a third: the oldest mark goes */
		m->id[0] = m->id[1];
		m->n = 1;
	}
	m->id[m->n++] = id;
}

char kpt_marks_label(const kpt_marks *m, int64_t id)
{
	for (int i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return (char)('1' + i);
	return ' ';
}

unsigned kpt_compare_marked(kpt_app *app, const kpt_marks *m, int64_t cur, kpt_compare_arg *out)
{
	if (m->n == 2) {
		out->a = m->id[0];
		out->b = m->id[1];
	} else if (m->n == 1 && cur >= 0 && cur != m->id[0]) {
		out->a = m->id[0];
		out->b = cur;
	} else {
		kpt_set_msg(app, "c compares two reports: mark them with m (or mark one and select the other)");
		return KPT_HANDLED | KPT_REDRAW;
	}
	return kpt_push_later(app, &kpt_view_compare, out);
}

unsigned kpt_compare_group(kpt_app *app, const kpt_group *g, kpt_compare_arg *out)
{
	const kpt_catalog *c = &app->cat;
	int64_t newest = -1, oldest = -1, oldest_any = -1;
	char d[32];
	for (size_t i = 0; i < c->n; i++) {   /* newest first, undated last */
		if (c->e[i].group_id != g->id)
			continue;
		if (newest < 0)
			newest = c->e[i].id;
		oldest_any = c->e[i].id;
		if (kpi_date_label(c->e[i].date, d, sizeof d))
			oldest = c->e[i].id;
	}
	if (oldest < 0 || oldest == newest)
		oldest = oldest_any;
	if (newest < 0 || oldest == newest) {
		kpt_set_msg(app, "this group has one report: nothing to compare it with");
		return KPT_HANDLED | KPT_REDRAW;
	}
	out->a = oldest;
	out->b = newest;
	return kpt_push_later(app, &kpt_view_compare, out);
}

/* ---- the view ---- */

enum { MAX_FRAMES = 1024 };   /* per side, for the alignment (more are not aligned) */

typedef struct side {
	int64_t id;
	char *path;
	kpt_doc *doc;
	bool has_thread, asked;
	size_t proc, thread, nframes;
} side;

/* a row: frame indices of A and B (-1: none) and its marker */
typedef struct crow {
	int a, b;
	char mark;   /* '=', '!', '<', '>' */
} crow;

typedef struct compare_priv {
	side s[2];
	crow *pairs;         /* side by side: one row per aligned pair */
	size_t npairs;
	crow *lines;         /* stacked: "!" pairs as two rows */
	size_t nlines;
	size_t same, only[2], changed;
	size_t done_seen;    /* symbol results seen at the last alignment */
	bool aligned;
	bool narrow;
	kpt_process_arg push;   /* Enter: the thread of the row's frame */
} compare_priv;

static const kp_thread *side_thread(const side *s)
{
	return s->has_thread ? &s->doc->r->processes[s->proc].threads[s->thread] : NULL;
}

static const kpt_sym *side_sym(const side *s, size_t f)
{
	kpt_sym *arr = kpt_doc_syms(s->doc, s->proc, s->thread);
	return arr ? &arr[f] : NULL;
}

/* The name frame f is aligned by (into buf). */
static const char *frame_key(const side *s, size_t f, char *buf, size_t size)
{
	const kp_report *r = s->doc->r;
	const kp_frame *fr = &side_thread(s)->frames[f];
	const kpt_sym *sy = side_sym(s, f);
	if (sy && sy->state == KPT_SYM_DONE && sy->status == KP_SYM_OK && sy->nlines > 0 &&
	    sy->lines[0].function)
		return sy->lines[0].function;
	if (fr->symbol) {   /* "name + 123" or "name+0x7b": the name */
		size_t n = strcspn(fr->symbol, " +");
		snprintf(buf, size, "%.*s", (int)n, fr->symbol);
		return buf;
	}
	char ib[64];
	snprintf(buf, size, "%s +0x%" PRIx64, kpt_image_label(r, fr->image, ib, sizeof ib),
	         fr->has_offset ? fr->offset : fr->address);
	return buf;
}

static size_t done_count(const compare_priv *p)
{
	size_t n = 0;
	for (int k = 0; k < 2; k++) {
		const side *s = &p->s[k];
		if (!s->has_thread)
			continue;
		for (size_t f = 0; f < s->nframes; f++) {
			const kpt_sym *sy = side_sym(s, f);
			n += sy && sy->state == KPT_SYM_DONE;
		}
	}
	return n;
}

static void push_row(crow **v, size_t *n, crow r)
{
	*v = kpt_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = r;
}

/* Pairs a run of frames only in A with the run only in B that follows it
 * ("!" rows), the rest of the longer run staying "<" or ">". */
static void flush_run(compare_priv *p, int *ra, size_t na, int *rb, size_t nb)
{
	size_t n = na > nb ? na : nb;
	for (size_t i = 0; i < n; i++) {
		crow r = {i < na ? ra[i] : -1, i < nb ? rb[i] : -1, 0};
		r.mark = r.a >= 0 && r.b >= 0 ? '!' : r.a >= 0 ? '<' : '>';
		push_row(&p->pairs, &p->npairs, r);
	}
}

static void align(kpt_view *v)
{
	compare_priv *p = v->priv;
	free(p->pairs);
	free(p->lines);
	p->pairs = p->lines = NULL;
	p->npairs = p->nlines = 0;
	p->same = p->only[0] = p->only[1] = p->changed = 0;
	size_t n = p->s[0].has_thread ? p->s[0].nframes : 0;
	size_t m = p->s[1].has_thread ? p->s[1].nframes : 0;
	n = n < MAX_FRAMES ? n : MAX_FRAMES;
	m = m < MAX_FRAMES ? m : MAX_FRAMES;
	char **ka = kpt_xcalloc(n + 1, sizeof *ka), **kb = kpt_xcalloc(m + 1, sizeof *kb);
	char buf[512];
	for (size_t i = 0; i < n; i++)
		ka[i] = kpt_xstrdup(frame_key(&p->s[0], i, buf, sizeof buf));
	for (size_t j = 0; j < m; j++)
		kb[j] = kpt_xstrdup(frame_key(&p->s[1], j, buf, sizeof buf));
	/* L[i][j]: LCS length of the suffixes a[i..], b[j..] */
	uint16_t *L = kpt_xcalloc((n + 1) * (m + 1), sizeof *L);
#define LCS(i, j) L[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			LCS(i, j) = strcmp(ka[i], kb[j]) == 0 ? (uint16_t)(LCS(i + 1, j + 1) + 1)
			            : LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j) : LCS(i, j + 1);
	int *ra = kpt_xcalloc(n + 1, sizeof *ra), *rb = kpt_xcalloc(m + 1, sizeof *rb);
	size_t na = 0, nb = 0, i = 0, j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && strcmp(ka[i], kb[j]) == 0) {
			flush_run(p, ra, na, rb, nb);
			na = nb = 0;
			push_row(&p->pairs, &p->npairs, (crow){(int)i, (int)j, '='});
			i++, j++;
		} else if (j >= m || (i < n && LCS(i + 1, j) >= LCS(i, j + 1))) {
			ra[na++] = (int)i++;
		} else {
			rb[nb++] = (int)j++;
		}
	}
	flush_run(p, ra, na, rb, nb);
#undef LCS
	for (size_t k = 0; k < p->npairs; k++) {
		crow r = p->pairs[k];
		p->same += r.mark == '=';
		p->changed += r.mark == '!';
		p->only[0] += r.mark == '<';
		p->only[1] += r.mark == '>';
		if (r.mark == '!') {
			push_row(&p->lines, &p->nlines, (crow){r.a, -1, '!'});
			push_row(&p->lines, &p->nlines, (crow){-1, r.b, '!'});
		} else {
			push_row(&p->lines, &p->nlines, r);
		}
	}
	for (size_t k = 0; k < n; k++)
		free(ka[k]);
	for (size_t k = 0; k < m; k++)
		free(kb[k]);
	free(ka);
	free(kb);
	free(L);
	free(ra);
	free(rb);
	p->done_seen = done_count(p);
	p->aligned = true;
	kpt_list_reset(&v->list, p->narrow ? p->nlines : p->npairs);
}

/* Once loaded: the panicked thread, and its frames asked of the worker. */
static void side_ready(kpt_view *v, side *s)
{
	if (s->asked || !s->doc->r)
		return;
	s->asked = true;
	const kp_process *pp = NULL;
	const kp_thread *t = kp_report_panicked_thread(s->doc->r, &pp);
	if (!t || !pp)
		return;
	s->has_thread = true;
	s->proc = (size_t)(pp - s->doc->r->processes);
	s->thread = (size_t)(t - pp->threads);
	s->nframes = t->nframes;
	kpt_sym *arr = kpt_doc_syms(s->doc, s->proc, s->thread);
	bool any = false;
	for (size_t f = 0; arr && f < t->nframes; f++)
		if (arr[f].state == KPT_SYM_NONE) {
			arr[f].state = KPT_SYM_PENDING;
			any = true;
		}
	if (any)
		kpt_worker_request(v->app, s->doc, s->proc, s->thread, 0, t->nframes, true);
}

static bool loaded(const compare_priv *p)
{
	return p->s[0].doc->r && p->s[1].doc->r;
}

static int compare_open(kpt_view *v, void *arg)
{
	const kpt_compare_arg *a = arg;
	compare_priv *p = v->priv;
	int64_t ids[2] = {a->a, a->b};
	for (int k = 0; k < 2; k++) {
		const kpt_entry *e = kpt_catalog_find(&v->app->cat, ids[k]);
		kp_error err;
		p->s[k].id = ids[k];
		p->s[k].path = kpt_xstrdup(e ? e->path : NULL);
		p->s[k].doc = kpt_doc_open(v->app, ids[k], p->s[k].path, &err);
		if (!p->s[k].doc) {
			kpt_set_msg(v->app, "cannot open report %" PRId64 ": %s", ids[k], err.msg);
			return -1;
		}
	}
	snprintf(v->title, sizeof v->title, "compare %" PRId64 " : %" PRId64, a->a, a->b);
	return 0;
}

static void compare_close(kpt_view *v)
{
	compare_priv *p = v->priv;
	for (int k = 0; k < 2; k++) {
		free(p->s[k].path);
		if (p->s[k].doc)
			kpt_doc_release(&v->app->docs, &p->s[k].doc);
	}
	free(p->pairs);
	free(p->lines);
}

static kpt_style row_style(char mark, bool sel)
{
	if (sel)
		return KPT_ST_CURSOR;
	return mark == '=' ? KPT_ST_DIM : KPT_ST_MARK;
}

static void put_frame(kpt_view *v, int k, int f, int y, int x, int w, kpt_style st)
{
	compare_priv *p = v->priv;
	if (f < 0 || w <= 0) {
		kpt_put(y, x, w, "", st == KPT_ST_CURSOR ? st : KPT_ST_NORMAL, true);
		return;
	}
	const side *s = &p->s[k];
	char text[1200];
	kpt_frame_text(s->doc->r, side_thread(s), side_sym(s, (size_t)f), (size_t)f, text, sizeof text);
	kpt_putf(y, x, w, st, true, "%-3d ", f);
	kpt_put(y, x + 4, w - 4, text, st, true);
}

static void compare_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	compare_priv *p = v->priv;
	const crow *r = p->narrow ? &p->lines[row] : &p->pairs[row];
	kpt_style st = row_style(r->mark, sel);
	char m[3] = {r->mark, ' ', '\0'};
	if (p->narrow) {
		/* a "!" pair's two rows say which side each is */
		if (r->mark == '!')
			m[1] = r->a >= 0 ? 'A' : 'B';
		kpt_put(y, 0, 3, m, st, true);
		put_frame(v, r->a >= 0 ? 0 : 1, r->a >= 0 ? r->a : r->b, y, 3, width - 3, st);
		return;
	}
	int half = (width - 4) / 2;
	kpt_put(y, 0, 2, m, st, true);
	put_frame(v, 0, r->a, y, 2, half, st);
	kpt_put(y, 2 + half, 2, r->mark == '=' ? " " : "|", st, true);
	put_frame(v, 1, r->b, y, 4 + half, width - 4 - half, st);
}

/* The header lines of side k at x, w wide: 4 rows, or 2 when short
 * (report and date, headline); returns the next row. */
static int draw_side(kpt_view *v, int k, int y, int x, int w, bool short_)
{
	compare_priv *p = v->priv;
	const side *s = &p->s[k];
	const kp_report *r = s->doc->r;
	char d[32];
	kpi_date_kind dk = kpi_date_label(r->timestamp, d, sizeof d);
	kpt_putf(y++, x, w, KPT_ST_HEADER, true, "%c  Report %" PRId64 "  %s%s", 'A' + k, s->id, d, kpi_date_zone(dk));
	char title[KP_HEADLINE_DISPLAY_SIZE];
	kp_headline_display(r->headline, title, sizeof title);
	kpt_put(y++, x, w, title[0] ? title : "(no panic string)", KPT_ST_NORMAL, true);
	if (short_)
		return y;
	char os[300];
	snprintf(os, sizeof os, "OS %s  %s", r->os_version ? r->os_version : "-", r->product ? r->product : "");
	kpt_put(y++, x, w, os, KPT_ST_NORMAL, true);
	/* the kernel's build ("xnu-12377.41.6~2/RELEASE_ARM64_T8112") says more than its date */
	const char *kv = r->kernel_version, *root = kv ? strstr(kv, "root:") : NULL;
	kpt_putf(y++, x, w, KPT_ST_NORMAL, true, "Kernel %s", root ? root + 5 : kv ? kv : "-");
	return y;
}

static void compare_draw(kpt_view *v, int y0, int h, int width)
{
	compare_priv *p = v->priv;
	if (!loaded(p)) {
		for (int k = 0; k < 2; k++)
			if (p->s[k].doc->load_error) {
				kpt_putf(y0 + 1, 2, width - 4, KPT_ST_ERROR, false, "cannot open report %" PRId64 ": %s",
				         p->s[k].id, p->s[k].doc->load_error);
				return;
			}
		kpt_put(y0 + 1, 2, width - 4, "Loading the two reports...", KPT_ST_DIM, false);
		return;
	}
	side_ready(v, &p->s[0]);
	side_ready(v, &p->s[1]);
	bool narrow = width < 100;
	if (!p->aligned || narrow != p->narrow || done_count(p) != p->done_seen) {
		p->narrow = narrow;
		size_t keep = v->list.cur;
		align(v);
		v->list.cur = keep < kpt_list_visible(&v->list) ? keep : 0;
	}
	int y = y0;
	if (narrow) {
		y = draw_side(v, 0, y, 0, width, h < 20);
		y = draw_side(v, 1, y, 0, width, h < 20);
	} else {
		int half = (width - 4) / 2;
		draw_side(v, 0, y, 2, half, h < 12);
		y = draw_side(v, 1, y, 4 + half, width - 4 - half, h < 12);
	}
	kpt_putf(y++, 0, width, KPT_ST_HEADER, true,
	         "Panicked threads: %zu same, %zu differ, %zu only A, %zu only B   (= same  ! differs  < A only  > B only)",
	         p->same, p->changed, p->only[0], p->only[1]);
	for (int k = 0; k < 2; k++)
		if (!p->s[k].has_thread && y < y0 + h)
			kpt_putf(y++, 2, width - 2, KPT_ST_DIM, true, "%c names no panicked thread", 'A' + k);
	if (y < y0 + h)
		kpt_list_draw(v, y, y0 + h - y, width);
}

static const char *compare_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	compare_priv *p = v->priv;
	const crow *r = p->narrow ? &p->lines[row] : &p->pairs[row];
	char a[600] = "", b[600] = "";
	if (r->a >= 0)
		kpt_frame_text(p->s[0].doc->r, side_thread(&p->s[0]), side_sym(&p->s[0], (size_t)r->a),
		               (size_t)r->a, a, sizeof a);
	if (r->b >= 0)
		kpt_frame_text(p->s[1].doc->r, side_thread(&p->s[1]), side_sym(&p->s[1], (size_t)r->b),
		               (size_t)r->b, b, sizeof b);
	snprintf(buf, size, "%c %s\t%s", r->mark, a, b);
	return buf;
}

/* Enter: the whole thread of the row's frame (A's when the row has both) */
static unsigned compare_request(kpt_view *v, kpt_request req)
{
	compare_priv *p = v->priv;
	size_t row;
	if (req != KPT_REQ_ENTER || !loaded(p))
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const crow *r = p->narrow ? &p->lines[row] : &p->pairs[row];
	const side *s = &p->s[r->a >= 0 ? 0 : 1];
	if (!s->has_thread)
		return KPT_HANDLED;
	p->push = (kpt_process_arg){.doc = s->doc, .proc = s->proc, .thread = s->thread};
	return kpt_push_later(v->app, &kpt_view_thread, &p->push);
}

static const char *compare_hint(kpt_view *v)
{
	(void)v;
	return "Enter thread  / filter  Esc back";
}

static unsigned compare_update(kpt_view *v)
{
	compare_priv *p = v->priv;
	if (!loaded(p))
		return KPT_REDRAW;   /* a load may have finished or failed */
	return !p->aligned || done_count(p) != p->done_seen ? KPT_REDRAW : 0;
}

const kpt_view_ops kpt_view_compare = {
	.name = "compare",
	.private_size = sizeof(compare_priv),
	.open = compare_open,
	.close = compare_close,
	.draw = compare_draw,
	.draw_row = compare_draw_row,
	.row_text = compare_row_text,
	.request = compare_request,
	.hint = compare_hint,
	.update = compare_update,
};
