/* view_group.c: one group of duplicates as an object: its title and
 * culprit, count, first and last seen (UTC, or the Mac's clock marked ~,
 * from the members' own dates: "-" when none has one), the OS versions
 * (kp_os_label), Mac models and backtrace kexts
 * it occurred with, then its members newest first (Enter opens one, m
 * marks, c compares).  Rows are catalog indices, re-found by report id
 * when the catalog reloads.  Models and kexts need the reports themselves:
 * the view reads the newest MAX_READ members one at a time through the
 * loader (off the UI thread) and fills the lines in as they arrive. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_loader.h"
#include "kpt_prompt.h"
#include "kpt_write.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"
#include "kp_demangle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_READ = 50 };   /* members read for models and kexts */

/* distinct names with how many members have each */
typedef struct tally {
	char **name;
	size_t *count;
	size_t n;
} tally;

typedef struct group_priv {
	int64_t id;
	size_t *rows;          /* catalog entry indices of the members */
	size_t nrows;
	unsigned generation;
	char os[512];          /* the distinct OS versions, ", "-joined */
	char first[32], last[32];   /* dated members' oldest and newest, "-" when none */
	size_t undated;
	tally models, kexts;
	tally hosts;           /* every member's Mac (the catalog's) */
	int64_t *read_ids;     /* members to read (newest first), read_next of them done */
	size_t nread, read_next;
	kpt_doc *reading;      /* the one being loaded */
	kpt_entry push;
	kpt_marks marks;
	kpt_compare_arg cmp;
	int64_t bug_id;        /* B: the member whose bug report is written */
} group_priv;

static void tally_add(tally *t, const char *name)
{
	if (!name || !*name)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->name[i], name) == 0) {
			t->count[i]++;
			return;
		}
	t->name = kpt_xrealloc(t->name, (t->n + 1) * sizeof *t->name);
	t->count = kpt_xrealloc(t->count, (t->n + 1) * sizeof *t->count);
	t->name[t->n] = kpt_xstrdup(name);
	t->count[t->n++] = 1;
}

static void tally_free(tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->name);
	free(t->count);
	memset(t, 0, sizeof *t);
}

/* "a (2), b" into out */
static void tally_text(const tally *t, char *out, size_t size)
{
	size_t k = 0;
	out[0] = '\0';
	for (size_t i = 0; i < t->n && k < size; i++) {
		int w = t->count[i] > 1 ? snprintf(out + k, size - k, "%s%s (%zu)", i ? ", " : "", t->name[i], t->count[i])
		                        : snprintf(out + k, size - k, "%s%s", i ? ", " : "", t->name[i]);
		if (w < 0)
			break;
		k += (size_t)w;
	}
}

/* A loaded member's model and the kexts in its panicked backtrace. */
static void take_report(group_priv *p, const kp_report *r)
{
	tally_add(&p->models, r->product);
	const kp_thread *t = kp_report_panicked_thread(r, NULL);
	bool *seen = kpt_xcalloc(r->nimages + 1, 1);
	for (size_t f = 0; t && f < t->nframes; f++) {
		int i = t->frames[f].image;
		if (i < 0 || (size_t)i >= r->nimages || seen[i])
			continue;
		seen[i] = true;
		const kp_image *im = &r->images[i];
		bool kernel = im->kind == 'K' || im->kind == 'U' || (im->name && strcmp(im->name, "kernel") == 0);
		if (!kernel)
			tally_add(&p->kexts, im->name);
	}
	free(seen);
}

/* Reads members until one is still loading; true when a line changed. */
static bool read_members(kpt_view *v)
{
	group_priv *p = v->priv;
	bool changed = false;
	for (;;) {
		if (p->reading) {
			if (!p->reading->r && !p->reading->load_error)
				return changed;
			if (p->reading->r)
				take_report(p, p->reading->r);
			kpt_doc_release(&v->app->docs, &p->reading);
			p->read_next++;
			changed = true;
		}
		if (p->read_next >= p->nread)
			return changed;
		const kpt_entry *e = kpt_catalog_find(&v->app->cat, p->read_ids[p->read_next]);
		kp_error err;
		p->reading = kpt_doc_open(v->app, p->read_ids[p->read_next], e ? e->path : NULL, &err);
		if (!p->reading) {
			p->read_next++;
			changed = true;
		}
	}
}

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
	p->undated = 0;
	tally_free(&p->hosts);
	int64_t lo = 0, hi = 0;
	bool dated = false;
	for (size_t i = 0; i < c->n; i++) {
		if (c->e[i].group_id != p->id)
			continue;
		p->rows[p->nrows++] = i;
		tally_add(&p->hosts, c->e[i].host);
		int64_t t;
		if (c->e[i].date && kpi_report_time(c->e[i].date, &t)) {
			if (!dated || t < lo) {
				lo = t;
				snprintf(p->first, sizeof p->first, "%s", c->e[i].date);
			}
			if (!dated || t > hi) {
				hi = t;
				snprintf(p->last, sizeof p->last, "%s", c->e[i].date);
			}
			dated = true;
		} else {
			p->undated++;
		}
		char os[128] = "?";   /* as every view labels it */
		if (c->e[i].os)
			kp_os_label(c->e[i].os, os, sizeof os);
		if (!strstr(p->os, os)) {
			size_t n = strlen(p->os);
			snprintf(p->os + n, sizeof p->os - n, "%s%s", n ? ", " : "", os);
		}
	}
	if (!dated)
		p->first[0] = p->last[0] = '\0';
	p->generation = c->generation;
	kpt_list_reset(&v->list, p->nrows);
	if (!p->read_ids) {   /* the members to read, once */
		p->nread = p->nrows < MAX_READ ? p->nrows : MAX_READ;
		p->read_ids = kpt_xcalloc(p->nread + 1, sizeof *p->read_ids);
		for (size_t i = 0; i < p->nread; i++)
			p->read_ids[i] = c->e[p->rows[i]].id;
	}
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
	free(p->read_ids);
	if (p->reading)
		kpt_doc_release(&v->app->docs, &p->reading);
	tally_free(&p->models);
	tally_free(&p->kexts);
	tally_free(&p->hosts);
}

/* The trend lines (issue 34 item 2): a histogram by week over the group's
 * span (the newest weeks that fit), its builds with their counts, and why
 * it is new or regressed.  Returns the lines drawn. */
enum { MAX_WEEKS = 52 };
static int draw_trend(const kpt_group *g, int64_t today, int y, int width)
{
	const kpi_trend *t = g->trend;
	if (!t)
		return 0;
	int lines = 0;
	/* weeks ending today, the newest last; as many as the span has */
	int cells = width - 13 - 24;
	cells = cells > MAX_WEEKS ? MAX_WEEKS : cells;
	if (t->nday && cells >= 4) {
		int64_t span = (today - t->first_day) / 7 + 1;
		int nw = span < cells ? (int)(span < 1 ? 1 : span) : cells;
		int64_t w[MAX_WEEKS] = {0}, max = 0;
		for (size_t i = 0; i < t->nday; i++) {
			int64_t ago = today - t->day[i];
			if (ago >= 0 && ago / 7 < nw)
				w[nw - 1 - ago / 7] += t->day_count[i];
		}
		for (int i = 0; i < nw; i++)
			max = w[i] > max ? w[i] : max;
		char spark[MAX_WEEKS * 3 + 1];
		kpt_sparkline(w, nw, spark, sizeof spark);
		kpt_putf(y + lines++, 0, width, KPT_ST_NORMAL, true, "Weekly:      %s  %d week%s, at most %" PRId64 "/week",
		         spark, nw, nw == 1 ? "" : "s", max);
	}
	if (t->nbuilds) {
		int64_t max = 0;
		for (size_t i = 0; i < t->nbuilds; i++)
			max = t->builds[i].count > max ? t->builds[i].count : max;
		char line[1024];
		size_t k = 0;
		for (size_t i = 0; i < t->nbuilds && k < sizeof line; i++) {
			int64_t one = t->builds[i].count;
			char bar[8];   /* one block, scaled to the largest build */
			kpt_sparkline((int64_t[]){one, max}, 2, bar, sizeof bar);
			bar[MB_CUR_MAX > 1 ? 3 : 1] = '\0';
			int n = snprintf(line + k, sizeof line - k, "%s%s %s %" PRId64, i ? "  " : "", t->builds[i].build, bar, one);
			if (n < 0)
				break;
			k += (size_t)n;
		}
		kpt_putf(y + lines++, 0, width, KPT_ST_NORMAL, true, "Builds:      %s", line);
	}
	char why[256] = "";
	size_t k = 0;
	if (t->is_new && t->new_build)
		k += (size_t)snprintf(why + k, sizeof why - k, "NEW on %s, a build newer than every earlier report's",
		                      t->first_build ? t->first_build : "?");
	else if (t->is_new)
		k += (size_t)snprintf(why + k, sizeof why - k, "NEW in the last %d days", KPI_TREND_NEW_DAYS);
	if (t->quiet_days && k < sizeof why)
		k += (size_t)snprintf(why + k, sizeof why - k, "%sREGRESSED: back after %" PRId64 " quiet days", k ? "   " : "",
		                      t->quiet_days);
	if (t->stopped_build && k < sizeof why)
		snprintf(why + k, sizeof why - k, "%sREGRESSED: on %s, newer than %s where it had stopped",
		         k ? "   " : "", t->last_build ? t->last_build : "?", t->stopped_build);
	if (why[0])
		kpt_putf(y + lines++, 0, width, KPT_ST_MARK, true, "Trend:       %s", why);
	return lines;
}

static void group_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	group_priv *p = v->priv;
	const kpt_entry *e = &v->app->cat.e[p->rows[row]];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char d[32];
	kpi_date_label(e->date, d, sizeof d);
	kpt_put(y, 0, width, "", st, true);
	kpt_putf(y, 0, 21, st, true, "%s%c %s", e->is_new ? "*" : " ", kpt_marks_label(&p->marks, e->id), d);
	char os[128];
	kp_os_label(e->os, os, sizeof os);
	/* the OS column as wide as the list's widest label (kpt_panics_layout's cap) */
	int osw = v->app->cat.os_w < 12 ? 12 : v->app->cat.os_w > 21 ? 21 : v->app->cat.os_w;
	if (width < KPT_COL_WIDE && osw > 14)   /* as the flat list narrows it */
		osw = width < 80 ? 9 : 14;
	kpt_put(y, 21, osw, os, st, true);
	int x = 21 + osw + 1;
	/* the file's own name first: members of a group share their folder */
	const char *path = e->path ? e->path : "", *base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	int used = kpt_put(y, x, width - x, base, st, false);
	if (base != path && x + used + 2 < width) {
		char dir[1024];
		snprintf(dir, sizeof dir, "%.*s", (int)(base - 1 - path), path);
		kpt_put_path(y, x + used + 2, width - x - used - 2, dir, sel ? st : KPT_ST_DIM, true);
	}
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
	read_members(v);
	char first[32], last[32], undated[48] = "";
	kpi_date_kind df = kpi_date_label(p->first[0] ? p->first : NULL, first, sizeof first);
	kpi_date_kind dl = kpi_date_label(p->last[0] ? p->last : NULL, last, sizeof last);
	if (p->undated)
		snprintf(undated, sizeof undated, "   (%zu undated)", p->undated);
	int y = y0;
	kpt_put(y++, 0, width, g->title, KPT_ST_HEADER, true);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "Count:       %" PRId64, g->count);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "First seen:  %s%s   Last seen: %s%s%s", first,
	         kpi_date_zone(df), last, kpi_date_zone(dl), undated);
	char dm[1024];
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "Culprit:     %s", g->culprit ? kp_demangle_label(g->culprit, dm, sizeof dm) : "-");
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "OS versions: %s", p->os[0] ? p->os : "-");
	char models[512], kexts[1024], of[64] = "";
	tally_text(&p->models, models, sizeof models);
	tally_text(&p->kexts, kexts, sizeof kexts);
	if (p->read_next < p->nread)
		snprintf(of, sizeof of, "  (reading %zu of %zu)", p->read_next + 1, p->nread);
	else if (p->nread < p->nrows)
		snprintf(of, sizeof of, "  (of the newest %zu)", p->nread);
	kpt_putf(y++, 0, width, KPT_ST_NORMAL, true, "Mac models:  %s%s", models[0] ? models : "-", of);
	/* the Macs and the trend where the members keep room (as the kexts
	 * get one line only on a short screen) */
	if (h >= 16) {
		char hosts[1024];
		tally_text(&p->hosts, hosts, sizeof hosts);
		kpt_put(y, 0, 13, "Macs:", KPT_ST_NORMAL, true);
		kpt_put(y++, 13, width - 13, hosts[0] ? hosts : "-", KPT_ST_NORMAL, true);
		y += draw_trend(g, kpi_trends_today(v->app->cat.trends), y, width);
	}
	/* the kexts wrap (up to 3 lines, 1 on a short screen): every bundle id
	 * of a group is a lead, none cut while there is room below */
	char kline[1100];
	snprintf(kline, sizeof kline, "%s%s", kexts[0] ? kexts : "-", of);
	kpt_put(y, 0, 13, "Kexts:", KPT_ST_NORMAL, true);
	int kmax = h >= 16 ? 3 : 1, kneed = kpt_wrap(0, 0, kmax, width - 13, kline, KPT_ST_NORMAL, false);
	for (int i = 1; i < kneed; i++)
		kpt_put(y + i, 0, 13, "", KPT_ST_NORMAL, true);
	y += kpt_wrap(y, 13, kneed, width - 13, kline, KPT_ST_NORMAL, true);
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

/* B's path typed: the member's report (open already, else read from the
 * index here) written as its Markdown bug report, with the group's counts. */
static unsigned bug_done(kpt_app *app, kpt_view *v, const char *text, bool final)
{
	group_priv *p = v->priv;
	if (!text || !final || !text[0])
		return KPT_REDRAW;
	kp_error err = {0};
	kpt_doc *d = kpt_doc_find(&app->docs, p->bug_id, NULL);
	if (!d && app->db)
		d = kpt_doc_acquire(&app->docs, app->db, p->bug_id, NULL, &err);
	if (!d || !d->r)
		kpt_set_msg(app, "B: report @%" PRId64 " %s", p->bug_id, d ? "is still loading" : err.msg[0] ? err.msg : "cannot be read");
	else
		kpt_write_bug_report(app, d, text);
	if (d)
		kpt_doc_release(&app->docs, &d);
	return KPT_REDRAW;
}

static unsigned group_request(kpt_view *v, kpt_request req)
{
	group_priv *p = v->priv;
	size_t row;
	if (req == KPT_REQ_BUGREPORT) {   /* the selected member, the newest first */
		if (!p->nrows)
			return KPT_HANDLED;
		row = kpt_list_current(&v->list, &row) ? row : 0;
		p->bug_id = v->app->cat.e[p->rows[row]].id;
		char path[64], label[96];
		snprintf(path, sizeof path, "kpbrowse-bug-%" PRId64 ".md", p->bug_id);
		snprintf(label, sizeof label, "write the Markdown bug report of @%" PRId64 " to: ", p->bug_id);
		kpt_prompt_start(v->app, v, label, path, bug_done);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_MARK) {
		if (kpt_list_current(&v->list, &row)) {
			kpt_marks_toggle(&p->marks, v->app->cat.e[p->rows[row]].id);
			kpt_list_request(v, KPT_REQ_DOWN);
		}
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_COMPARE) {
		const kpt_group *g = group(v);
		if (p->marks.n == 0 && g)
			return kpt_compare_group(v->app, g, &p->cmp);
		int64_t cur = kpt_list_current(&v->list, &row) ? v->app->cat.e[p->rows[row]].id : -1;
		return kpt_compare_marked(v->app, &p->marks, cur, &p->cmp);
	}
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
	return "Enter open  m mark  c compare  / filter  Esc back";
}

static unsigned group_update(kpt_view *v)
{
	group_priv *p = v->priv;
	bool read = read_members(v);
	return p->generation != v->app->cat.generation || read ? KPT_REDRAW : 0;
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
