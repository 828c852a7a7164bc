/* view_group.c: one group of duplicates as an object: its title and
 * culprit, count, first and last seen (UTC), the OS versions it occurred
 * on, then its members newest first (Enter opens one).  Rows are catalog
 * indices, re-found by report id when the catalog reloads. */
#include "kpt_app.h"
#include "kpt_date.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct group_priv {
	int64_t id;
	size_t *rows;          /* catalog entry indices of the members */
	size_t nrows;
	unsigned generation;
	char os[512];          /* the distinct OS versions, ", "-joined */
	kpt_entry push;
} group_priv;

static const kpt_group *group(kpt_view *v)
{
	group_priv *p = v->priv;
	for (size_t i = 0; i < v->app->cat.ng; i++)
		if (v->app->cat.g[i].id == p->id)
			return &v->app->cat.g[i];
	return NULL;
}

static void rebuild(kpt_view *v)
{
	group_priv *p = v->priv;
	kpt_catalog *c = &v->app->cat;
	free(p->rows);
	p->rows = kpt_xmalloc((c->n ? c->n : 1) * sizeof *p->rows);
	p->nrows = 0;
	p->os[0] = '\0';
	for (size_t i = 0; i < c->n; i++) {
		if (c->e[i].group_id != p->id)
			continue;
		p->rows[p->nrows++] = i;
		const char *os = c->e[i].os ? c->e[i].os : "?";
		if (!strstr(p->os, os)) {
			size_t n = strlen(p->os);
			snprintf(p->os + n, sizeof p->os - n, "%s%s", n ? ", " : "", os);
		}
	}
	p->generation = c->generation;
	kpt_list_reset(&v->list, p->nrows);
}

static int group_open(kpt_view *v, void *arg)
{
	const kpt_group *g = arg;
	group_priv *p = v->priv;
	p->id = g->id;
	snprintf(v->title, sizeof v->title, "group of %" PRId64, g->count);
	rebuild(v);
	return 0;
}

static void group_close(kpt_view *v)
{
	group_priv *p = v->priv;
	free(p->rows);
}

static void group_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	group_priv *p = v->priv;
	const kpt_entry *e = &v->app->cat.e[p->rows[row]];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char d[32];
	kpt_date_utc(e->date, d, sizeof d);
	kpt_put(y, 0, width, "", st, true);
	kpt_putf(y, 0, 20, st, true, "%s %s", e->is_new ? "*" : " ", d);
	kpt_put(y, 20, 12, e->os ? e->os : "-", st, true);
	kpt_put(y, 33, width - 33, e->path ? e->path : "", sel ? st : KPT_ST_DIM, true);
}

static void group_draw(kpt_view *v, int y0, int h, int width)
{
	group_priv *p = v->priv;
	if (p->generation != v->app->cat.generation)
		rebuild(v);
	const kpt_group *g = group(v);
	if (!g) {
		kpt_put(y0 + 1, 2, width - 4, "This group is no longer in the index.", KPT_ST_DIM, false);
		return;
	}
	char first[32], last[32];
	kpt_date_utc(g->first_seen, first, sizeof first);
	kpt_date_utc(g->last_seen, last, sizeof last);
	int y = y0;
	kpt_put(y++, 0, width, g->title, KPT_ST_HEADER, true);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "Count:       %" PRId64, g->count);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "First seen:  %s UTC   Last seen: %s UTC", first, last);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "Culprit:     %s", g->culprit ? g->culprit : "-");
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "OS versions: %s", p->os[0] ? p->os : "-");
	kpt_putf(y++, 0, width, KPT_ST_HEADER, true, "Members (%zu)", p->nrows);
	if (y < y0 + h)
		kpt_list_draw(v, y, y0 + h - y, width);
}

static const char *group_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	group_priv *p = v->priv;
	const kpt_entry *e = &v->app->cat.e[p->rows[row]];
	snprintf(buf, size, "%s %s %s", e->date ? e->date : "", e->os ? e->os : "", e->path ? e->path : "");
	return buf;
}

static unsigned group_request(kpt_view *v, kpt_request req)
{
	group_priv *p = v->priv;
	size_t row;
	if (req != KPT_REQ_ENTER)
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	p->push = v->app->cat.e[p->rows[row]];
	return kpt_push_later(v->app, &kpt_view_report, &p->push);
}

static const char *group_hint(kpt_view *v)
{
	(void)v;
	return "Enter open  / filter  Esc back";
}

static unsigned group_update(kpt_view *v)
{
	group_priv *p = v->priv;
	return p->generation != v->app->cat.generation ? KPT_REDRAW : 0;
}

const kpt_view_ops kpt_view_group = {
	.name = "group",
	.private_size = sizeof(group_priv),
	.open = group_open,
	.close = group_close,
	.draw = group_draw,
	.draw_row = group_draw_row,
	.row_text = group_row_text,
	.request = group_request,
	.hint = group_hint,
	.update = group_update,
};
