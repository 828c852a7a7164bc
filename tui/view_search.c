/* view_search.c: every panic that involved a UUID (kernel, backtrace kext,
 * binary image or dependency) or a kext bundle id, newest first.  Opened
 * with a query (from an image or kext row) it searches at once; opened with
 * NULL (`u`) it prompts for a full UUID or a prefix of at least 8 hex
 * digits, dashes and [] <> () around it optional, or a bundle id.  The
 * kext search (`K`, kpt_view_kext_search) is the same view taking only
 * bundle ids: a full one or its last part (IOUSBHostFamily finds
 * com.apple.iokit.IOUSBHostFamily).  Results are copied out of the index
 * callbacks, which only lend their rows, a page at a time: the first when
 * searching, the next when the cursor comes within a screen of the last
 * row loaded. */
#include "kpt_app.h"
#include "kpt_columns.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_PAGE 200   /* rows per page: a few screens */

typedef struct hit {
	int64_t id;
	char *path, *date, *os, *headline, *role, *name, *uuid;
} hit;

typedef struct search_priv {
	char query[128];
	hit *hits;
	size_t n, cap;
	bool searched;
	bool kext;              /* the query is a bundle id */
	bool kext_only;         /* K: every query is one */
	kpi_page page;          /* where the next page starts; total */
	int name_need, role_need;   /* the widest name and role of the rows loaded */
	char error[300];
	kpt_entry push;
} search_priv;

static void clear_hits(search_priv *p)
{
	for (size_t i = 0; i < p->n; i++) {
		hit *h = &p->hits[i];
		free(h->path);
		free(h->date);
		free(h->os);
		free(h->headline);
		free(h->role);
		free(h->name);
		free(h->uuid);
	}
	p->n = 0;
}

static int on_hit(void *ctx, const kpi_report_row *row)
{
	search_priv *p = ctx;
	hit *h = kpt_xpush((void **)&p->hits, &p->n, &p->cap, sizeof *p->hits);
	h->id = row->id;
	h->path = kpt_xstrdup(row->path);
	h->date = kpt_xstrdup(row->timestamp);
	h->os = kpt_xstrdup(row->os_version);
	h->headline = kpt_xstrdup(row->headline);
	h->role = kpt_xstrdup(row->match ? row->match->role : NULL);
	h->name = kpt_xstrdup(row->match ? row->match->name : NULL);
	h->uuid = kpt_xstrdup(row->match ? row->match->uuid : NULL);
	return 0;
}

/* hex digits and dashes only, 8 digits or more: a UUID or its prefix;
 * anything else is a kext bundle id */
static bool looks_like_uuid(const char *q)
{
	size_t hex = 0;
	for (const char *s = q; *s; s++) {
		if (*s == '-')
			continue;
		if (!strchr("0123456789abcdefABCDEF", *s))
			return false;
		hex++;
	}
	return hex >= 8;
}

static void measure_hits(search_priv *p)
{
	p->name_need = p->role_need = 0;
	for (size_t i = 0; i < p->n; i++) {
		const hit *h = &p->hits[i];
		int nw = kpt_text_width(h->name ? h->name : h->uuid ? h->uuid : ""), rw = kpt_text_width(h->role ? h->role : "");
		p->name_need = nw > p->name_need ? nw : p->name_need;
		p->role_need = rw > p->role_need ? rw : p->role_need;
	}
}

static void run_search(kpt_view *v, const char *q)
{
	search_priv *p = v->priv;
	clear_hits(p);
	p->error[0] = '\0';
	snprintf(p->query, sizeof p->query, "%s", q);
	/* trim what a paste brings along */
	char *s = p->query;
	while (*s == ' ' || *s == '<' || *s == '(' || *s == '[')
		memmove(s, s + 1, strlen(s));
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '>' || s[n - 1] == ')' || s[n - 1] == ']'))
		s[--n] = '\0';
	p->kext = p->kext_only || !looks_like_uuid(p->query);
	snprintf(v->title, sizeof v->title, "%s %.40s", p->kext ? "kext" : "UUID", p->query);
	kp_error err;
	p->searched = true;
	kp_status st = KP_OK;
	p->page = (kpi_page){.limit = SEARCH_PAGE};
	if (v->app->db)
		st = kpi_search_page(v->app->db, p->kext ? KPI_SEARCH_KEXT : KPI_SEARCH_UUID, p->query,
		                     &p->page, on_hit, p, &err);
	if (!v->app->db)
		snprintf(p->error, sizeof p->error, "no index open");
	else if (st != KP_OK)
		snprintf(p->error, sizeof p->error, "%s", err.msg);
	v->list.cur = v->list.top = 0;
	kpt_list_reset(&v->list, p->n);
	measure_hits(p);
}

/* The next page when the cursor is within a screen of the last row. */
static void more_hits(kpt_view *v, int h)
{
	search_priv *p = v->priv;
	size_t cur;
	if (p->page.done || p->error[0] || !v->app->db || !kpt_list_current(&v->list, &cur) ||
	    cur + (size_t)(h > 0 ? h : 1) < p->n)
		return;
	kp_error err;
	if (kpi_search_page(v->app->db, p->kext ? KPI_SEARCH_KEXT : KPI_SEARCH_UUID, p->query, &p->page,
	                    on_hit, p, &err) != KP_OK) {
		snprintf(p->error, sizeof p->error, "%s", err.msg);
		return;
	}
	kpt_list_reset(&v->list, p->n);
	measure_hits(p);
	if (v->list.filter[0])
		kpt_list_refilter(v);
}

static unsigned prompt_done(kpt_app *app, kpt_view *v, const char *text, bool final)
{
	search_priv *p = v->priv;
	(void)app;
	if (!text)
		return p->searched ? 0 : KPT_POP;
	if (final) {
		if (!text[0])
			return p->searched ? 0 : KPT_POP;
		run_search(v, text);
	}
	return 0;
}

static const char *prompt_text(const search_priv *p)
{
	return p->kext_only ? "kext bundle id or its last part (IOUSBHostFamily): "
	                    : "kext/kernel UUID (8+ hex digits) or kext bundle id: ";
}

static int search_open(kpt_view *v, void *arg)
{
	search_priv *p = v->priv;
	snprintf(v->title, sizeof v->title, "%s search", p->kext_only ? "kext" : "UUID");
	if (arg)
		run_search(v, arg);
	else
		kpt_prompt_start(v->app, v, prompt_text(p), "", prompt_done);
	return 0;
}

static int kext_open(kpt_view *v, void *arg)
{
	search_priv *p = v->priv;
	p->kext_only = true;
	return search_open(v, arg);
}

static void search_close(kpt_view *v)
{
	search_priv *p = v->priv;
	clear_hits(p);
	free(p->hits);
}

/* date, role, image name, headline (the rest); on a narrow screen the
 * role goes and the name shrinks first, so no row runs off the screen */
enum { SC_DATE, SC_ROLE, SC_NAME, SC_HEADLINE, SC_N };
static const kpt_col search_cols[SC_N] = {
	[SC_DATE] = {.width = 20},   /* "  2018-08-18 13:08~ " */
	[SC_ROLE] = {.width = 11, .optional = true},
	[SC_NAME] = {.width = 20, .wide = 30, .wide_at = 110, .gap = 1, .narrow = 10},
	[SC_HEADLINE] = {0},
};
_Static_assert(SC_N == KPT_SEARCH_COLS, "kpt_columns.h");

void kpt_search_layout(kpt_col *c, int width)
{
	memcpy(c, search_cols, sizeof search_cols);
	kpt_cols_layout(c, SC_N, width);
}

#define HEADLINE_MIN 16   /* what the headline keeps when a name grows */

/* The layout fitted to the rows: the role column as wide as its widest
 * role, and a bundle id not cut while the role column or the headline
 * (down to HEADLINE_MIN) has room for it. */
static void fit_search(const search_priv *p, kpt_col *c, int width)
{
	kpt_search_layout(c, width);
	if (!c[SC_NAME].w)
		return;
	int give = 0;
	if (c[SC_ROLE].w && p->role_need + 1 < c[SC_ROLE].w) {
		give = c[SC_ROLE].w - (p->role_need + 1);
		c[SC_ROLE].w -= give;
		c[SC_NAME].x -= give;
	}
	int want = p->name_need - c[SC_NAME].w, room = give + c[SC_HEADLINE].w - HEADLINE_MIN;
	want = want > room ? room : want;
	want = want < 0 ? 0 : want;
	c[SC_NAME].w += want;
	c[SC_HEADLINE].x += want - give;
	c[SC_HEADLINE].w -= want - give;
}

static void search_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	search_priv *p = v->priv;
	const hit *h = &p->hits[row];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	kpt_col c[SC_N];
	fit_search(p, c, width);
	kpt_put(y, 0, width, "", st, true);
	char d[32];
	kpi_date_label(h->date, d, sizeof d);
	kpt_putf(y, c[SC_DATE].x, c[SC_DATE].w, st, true, "  %s", d);
	kpt_put(y, c[SC_ROLE].x, c[SC_ROLE].w, h->role ? h->role : "", sel ? st : KPT_ST_MARK, true);
	kpt_put_id(y, c[SC_NAME].x, c[SC_NAME].w, h->name ? h->name : (h->uuid ? h->uuid : ""), sel ? st : KPT_ST_FUNC, true);
	char title[KP_HEADLINE_DISPLAY_SIZE];   /* titled as the list titles it */
	kp_headline_display(h->headline, title, sizeof title);
	kpt_put(y, c[SC_HEADLINE].x, c[SC_HEADLINE].w, title, st, true);
}

static void search_draw(kpt_view *v, int y0, int h, int width)
{
	search_priv *p = v->priv;
	if (!p->searched) {
		kpt_put(y0 + 1, 2, width - 4, p->kext_only ? "Type a kext bundle id (or its last part) and press Enter."
		                                           : "Paste a UUID (or its first 8+ hex digits) or a kext bundle id and press Enter.",
		        KPT_ST_DIM, false);
		return;
	}
	more_hits(v, h);
	size_t total = p->page.done ? p->n : p->page.total;
	kpt_putf(y0, 0, width, KPT_ST_HEADER, true, "%zu panic%s with %s %s%s", total, total == 1 ? "" : "s",
	         p->kext ? "kext" : "UUID", p->query, p->page.done ? "" : " (the newest first, more as you scroll)");
	if (p->error[0]) {
		kpt_put(y0 + 2, 2, width - 4, p->error, KPT_ST_ERROR, false);
		return;
	}
	if (p->n == 0) {
		kpt_put(y0 + 2, 2, width - 4, p->kext ? "No indexed panic names this kext in its backtrace or loaded kexts."
		                                       : "No indexed panic involves this UUID.", KPT_ST_DIM, false);
		return;
	}
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

static const char *search_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	search_priv *p = v->priv;
	const hit *h = &p->hits[row];
	snprintf(buf, size, "%s %s %s %s", h->date ? h->date : "", h->role ? h->role : "",
	         h->name ? h->name : "", h->headline ? h->headline : "");
	return buf;
}

static unsigned search_request(kpt_view *v, kpt_request req)
{
	search_priv *p = v->priv;
	size_t row;
	if (req == KPT_REQ_UUID || req == KPT_REQ_KEXT) {
		p->kext_only = req == KPT_REQ_KEXT;
		kpt_prompt_start(v->app, v, prompt_text(p), p->query, prompt_done);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req != KPT_REQ_ENTER)
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const hit *h = &p->hits[row];
	p->push = (kpt_entry){.id = h->id, .path = h->path, .date = h->date, .os = h->os, .headline = h->headline};
	return kpt_push_later(v->app, &kpt_view_report, &p->push);
}

static const char *search_hint(kpt_view *v)
{
	search_priv *p = v->priv;
	return p->kext_only ? "Enter open  K new search  Esc back" : "Enter open  u new search  Esc back";
}

/* the UUID search and the kext search differ in how they open only */
#define SEARCH_OPS \
	.private_size = sizeof(search_priv), \
	.close = search_close, \
	.draw = search_draw, \
	.draw_row = search_draw_row, \
	.row_text = search_row_text, \
	.request = search_request, \
	.hint = search_hint

const kpt_view_ops kpt_view_search = {.name = "search", .open = search_open, SEARCH_OPS};
const kpt_view_ops kpt_view_kext_search = {.name = "kext search", .open = kext_open, SEARCH_OPS};
