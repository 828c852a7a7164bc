/* list.c: the list widget of kpt_list.h: cursor and
 * scrolling over a view's rows, the incremental filter (`/` hides rows that
 * do not match) and, for search_only views, jumping between matches (n/N).
 *
 * A view supplies its rows through draw_row and row_text; the widget keeps
 * only row numbers (the map when filtered), so the strings stay the view's. */
#include "kpt_app.h"
#include "kpt_list.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static inline unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c;
}

/* ASCII case-insensitive substring test (UTF-8 bytes compare as they are). */
static bool ci_contains(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	if (nl == 0)
		return true;
	/* strpbrk (vectorised in the C libraries) finds the candidates for the
	 * first byte in either case; only those are compared further */
	unsigned char f = fold((unsigned char)needle[0]);
	char first[3] = {(char)f, (char)(f >= 'a' && f <= 'z' ? f - 0x20 : f), 0};
	if (first[1] == first[0])
		first[1] = 0;
	for (const char *h = strpbrk(hay, first); h; h = strpbrk(h + 1, first)) {
		size_t i = 1;
		while (i < nl && h[i] && fold((unsigned char)h[i]) == fold((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

size_t kpt_list_visible(const kpt_list *l)
{
	return l->filtered ? l->nmap : l->n;
}

bool kpt_list_current(const kpt_list *l, size_t *row)
{
	if (kpt_list_visible(l) == 0)
		return false;
	*row = l->filtered ? l->map[l->cur] : l->cur;
	return true;
}

void kpt_list_select_row(kpt_list *l, size_t row)
{
	if (!l->filtered) {
		if (row < l->n)
			l->cur = row;
		return;
	}
	for (size_t i = 0; i < l->nmap; i++)
		if (l->map[i] == row) {
			l->cur = i;
			return;
		}
}

static void list_clamp(kpt_list *l)
{
	size_t vis = kpt_list_visible(l);
	if (vis == 0) {
		l->cur = l->top = 0;
		return;
	}
	if (l->cur >= vis)
		l->cur = vis - 1;
	size_t h = l->height > 0 ? (size_t)l->height : 1;
	if (l->cur < l->top)
		l->top = l->cur;
	if (l->cur >= l->top + h)
		l->top = l->cur - h + 1;
	if (l->top + h > vis)
		l->top = vis > h ? vis - h : 0;
}

static bool row_matches(kpt_view *v, size_t row, const char *needle)
{
	char buf[1024];
	const char *t = v->ops->row_text ? v->ops->row_text(v, row, buf, sizeof buf) : NULL;
	return t && ci_contains(t, needle);
}

/* Incremental: when the new filter extends the old one only the rows that
 * matched before are tested again. */
static void list_apply_filter(kpt_view *v, const char *old)
{
	kpt_list *l = &v->list;
	size_t keep = 0;
	bool had = kpt_list_current(l, &keep);
	if (l->filter[0] == '\0' || l->search_only) {
		l->filtered = false;
		if (had)
			kpt_list_select_row(l, keep);
		list_clamp(l);
		return;
	}
	if (l->mapcap < l->n) {
		size_t *m = kpt_xrealloc(l->map, (l->n ? l->n : 1) * sizeof *m);
		l->map = m;
		l->mapcap = l->n;
	}
	bool narrow = l->filtered && old && old[0] && strncmp(l->filter, old, strlen(old)) == 0;
	size_t k = 0;
	if (narrow) {
		for (size_t i = 0; i < l->nmap; i++)
			if (row_matches(v, l->map[i], l->filter))
				l->map[k++] = l->map[i];
	} else {
		for (size_t i = 0; i < l->n; i++)
			if (row_matches(v, i, l->filter))
				l->map[k++] = i;
	}
	l->nmap = k;
	l->filtered = true;
	l->cur = 0;
	if (had)
		for (size_t i = 0; i < k; i++)
			if (l->map[i] >= keep) {
				l->cur = i;
				break;
			}
	list_clamp(l);
}

void kpt_list_refilter(kpt_view *v)
{
	list_apply_filter(v, NULL);
}

void kpt_list_reset(kpt_list *l, size_t n)
{
	l->n = n;
	l->filtered = false;
	list_clamp(l);
}

void kpt_list_free(kpt_list *l)
{
	free(l->map);
	l->map = NULL;
	l->nmap = l->mapcap = 0;
}

void kpt_list_draw(kpt_view *v, int y0, int h, int cols)
{
	kpt_list *l = &v->list;
	l->y0 = y0;
	l->height = h;
	list_clamp(l);
	size_t vis = kpt_list_visible(l);
	for (int i = 0; i < h; i++) {
		size_t vi = l->top + (size_t)i;
		if (vi >= vis)
			break;
		size_t row = l->filtered ? l->map[vi] : vi;
		v->ops->draw_row(v, row, y0 + i, cols, vi == l->cur);
	}
}

static void search_jump(kpt_view *v, int dir, bool include_cur)
{
	kpt_list *l = &v->list;
	size_t vis = kpt_list_visible(l);
	if (vis == 0 || !l->filter[0])
		return;
	for (size_t step = include_cur ? 0 : 1; step <= vis; step++) {
		size_t i = dir > 0 ? (l->cur + step) % vis : (l->cur + vis - step % vis) % vis;
		size_t row = l->filtered ? l->map[i] : i;
		if (row_matches(v, row, l->filter)) {
			l->cur = i;
			return;
		}
	}
	kpt_set_msg(v->app, "no match for \"%s\"", l->filter);
}

static unsigned filter_prompt_cb(kpt_app *app, kpt_view *v, const char *text, bool final)
{
	(void)app;
	char old[128];
	snprintf(old, sizeof old, "%s", v->list.filter);
	if (!text) {
		snprintf(v->list.filter, sizeof v->list.filter, "%s", v->list.filter_before);
		list_apply_filter(v, NULL);
		return KPT_REDRAW;
	}
	snprintf(v->list.filter, sizeof v->list.filter, "%s", text);
	if (v->list.search_only)
		search_jump(v, 1, true);
	else
		list_apply_filter(v, old);
	(void)final;
	return KPT_REDRAW;
}

unsigned kpt_list_request(kpt_view *v, kpt_request req)
{
	kpt_list *l = &v->list;
	size_t vis = kpt_list_visible(l);
	size_t page = l->height > 1 ? (size_t)l->height - 1 : 1;
	switch (req) {
	case KPT_REQ_UP: if (l->cur > 0) l->cur--; break;
	case KPT_REQ_DOWN: if (l->cur + 1 < vis) l->cur++; break;
	case KPT_REQ_PGUP: l->cur = l->cur > page ? l->cur - page : 0; break;
	case KPT_REQ_PGDN: l->cur = l->cur + page < vis ? l->cur + page : (vis ? vis - 1 : 0); break;
	case KPT_REQ_HALFUP: l->cur = l->cur > page / 2 ? l->cur - page / 2 : 0; break;
	case KPT_REQ_HALFDN: l->cur = l->cur + page / 2 < vis ? l->cur + page / 2 : (vis ? vis - 1 : 0); break;
	case KPT_REQ_HOME: l->cur = 0; break;
	case KPT_REQ_END: l->cur = vis ? vis - 1 : 0; break;
	case KPT_REQ_NEXT: search_jump(v, 1, false); break;
	case KPT_REQ_PREV: search_jump(v, -1, false); break;
	case KPT_REQ_FILTER:
		snprintf(l->filter_before, sizeof l->filter_before, "%s", l->filter);
		kpt_prompt_start(v->app, v, l->search_only ? "search: " : "filter: ", l->filter, filter_prompt_cb);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_BACK:
		if (l->filter[0] && !l->search_only) {   /* first Esc clears the filter */
			l->filter[0] = '\0';
			list_apply_filter(v, NULL);
			return KPT_HANDLED | KPT_REDRAW;
		}
		return 0;
	default:
		return 0;
	}
	list_clamp(l);
	return KPT_HANDLED | KPT_REDRAW;
}
