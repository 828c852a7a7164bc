/* view_panics.c: the panic list, newest first, or its groups of duplicates;
 * opened with a kpt_group* it lists only that group's reports.
 *
 * Rows are indices into the catalog (no copy of the list), so a catalog
 * reload only remaps the cursor by report id. */
#include "kp_signature.h"
#include "kp_triage.h"
#include "kpt_app.h"
#include "kpt_columns.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"
#include "kp_demangle.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The kind filter's cycle (f): all, then each kind. */
static const char *const kinds[] = {NULL,  "panic", "watchdog", "stackshot", "reset",
                                    "hang", "shutdown-stall", "sleep-wake"};
#define NKINDS (sizeof kinds / sizeof kinds[0])

typedef struct panics_priv {
	bool groups;            /* showing groups */
	bool one_group;         /* opened on one group */
	size_t kind;            /* index into kinds: the reports listed (0: all) */
	int cls;                /* t: the cause class listed (kp_class), -1: all */
	char base_title[64];    /* the title without the kind filter */
	int64_t group_id;
	size_t *rows;           /* one_group or a kind filter: catalog entry indices */
	size_t nrows;
	unsigned generation;
	int64_t cur_id;         /* the report or group under the cursor at the last draw */
	kpt_group push_group;   /* handed to the pushed view */
	kpt_entry push_entry;
	kpt_marks marks;        /* m: reports marked for c */
	kpt_compare_arg cmp;    /* c: handed to the compare view */
	/* kpbrowse PATH...: only the reports under these (as the index spells
	 * them, kpi_root_path), unless a shows the whole index (issue 31
	 * item 5) */
	char (*roots)[PATH_MAX];
	size_t nroots;
	bool whole;             /* a: the whole index, not only PATH's */
	size_t outside;         /* reports of the index not under them: with
	                           none, the scope is not said (nothing differs) */
	bool by_growth;         /* s: groups by recent growth (kpi_trend_growth) */
	size_t *gorder;         /* by_growth: row -> catalog group index */
	size_t ngorder;         /* rows of gorder (the catalog's groups when sorted) */
} panics_priv;

/* The catalog group of a row of the groups list, NULL past the end. */
static const kpt_group *group_at(kpt_view *v, size_t row)
{
	panics_priv *p = v->priv;
	kpt_catalog *c = &v->app->cat;
	size_t i = row;
	if (p->by_growth && p->gorder)
		i = row < p->ngorder ? p->gorder[row] : c->ng;
	return i < c->ng ? &c->g[i] : NULL;
}

static const kpt_group *sort_groups;
/* growth, then reports of the last 7 days, then as the index lists them */
static int cmp_growth(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const kpi_trend *tx = sort_groups[x].trend, *ty = sort_groups[y].trend;
	int64_t gx = kpi_trend_growth(tx), gy = kpi_trend_growth(ty);
	if (gx != gy)
		return gx > gy ? -1 : 1;
	int64_t lx = tx ? tx->last7 : 0, ly = ty ? ty->last7 : 0;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return (x > y) - (x < y);
}

static void sort_by_growth(panics_priv *p, const kpt_catalog *c)
{
	free(p->gorder);
	p->gorder = kpt_xmalloc((c->ng ? c->ng : 1) * sizeof *p->gorder);
	for (size_t i = 0; i < c->ng; i++)
		p->gorder[i] = i;
	p->ngorder = c->ng;
	sort_groups = c->g;   /* the UI thread's alone */
	qsort(p->gorder, c->ng, sizeof *p->gorder, cmp_growth);
}

static bool scoped(const panics_priv *p)
{
	return p->nroots && !p->whole;
}

/* Reports listed through rows: one group's, those of one kind or class,
 * or those under the PATHs given. */
static bool uses_rows(const panics_priv *p)
{
	return p->one_group || (!p->groups && (p->kind || p->cls >= 0 || scoped(p)));
}

/* The class filter's id, NULL for all. */
static const char *cls_name(const panics_priv *p)
{
	return p->cls >= 0 ? kp_class_name((kp_class)p->cls) : NULL;
}

static bool under_roots(const panics_priv *p, const char *path)
{
	if (!path)
		return false;
	for (size_t i = 0; i < p->nroots; i++) {
		size_t n = strlen(p->roots[i]);
		if (strncmp(path, p->roots[i], n) == 0 && (path[n] == '\0' || path[n] == '/' || (n && p->roots[i][n - 1] == '/')))
			return true;
	}
	return false;
}

/* "Panics", "Groups" or "group of N", then the kind and class filters:
 * "[watchdog]", "[gpu]", and "in PATH" or "(whole index)" when PATHs were
 * given. */
static void set_title(kpt_view *v)
{
	panics_priv *p = v->priv;
	char scope[96] = "";
	if (p->nroots && p->outside && !p->groups && !p->one_group) {
		const char *last = strrchr(p->roots[0], '/');   /* the folder's name: its path is in the hint */
		last = last && last[1] ? last + 1 : p->roots[0];
		if (p->whole)
			snprintf(scope, sizeof scope, " (whole index)");
		else if (p->nroots > 1)
			snprintf(scope, sizeof scope, " in %.40s +%zu", last, p->nroots - 1);
		else
			snprintf(scope, sizeof scope, " in %.40s", last);
	}
	char filt[64] = "";
	if (kinds[p->kind] && !p->groups)
		snprintf(filt, sizeof filt, " [%s]", kinds[p->kind]);
	if (cls_name(p) && !p->groups)
		snprintf(filt + strlen(filt), sizeof filt - strlen(filt), " [%s]", cls_name(p));
	snprintf(v->title, sizeof v->title, "%s%s%s", p->base_title, filt, scope);
}

static void rebuild(kpt_view *v)
{
	panics_priv *p = v->priv;
	kpt_catalog *c = &v->app->cat;
	/* the id under the cursor as last drawn: the catalog may already be
	 * the reloaded one, where the old row number means another report */
	int64_t keep_id = p->generation ? p->cur_id : -1;
	p->generation = c->generation;
	size_t n, outside = 0;
	for (size_t i = 0; p->nroots && i < c->n; i++)
		outside += !under_roots(p, c->e[i].path);
	if (outside != p->outside) {
		p->outside = outside;
		set_title(v);
	}
	if (uses_rows(p)) {
		free(p->rows);
		p->rows = kpt_xmalloc((c->n ? c->n : 1) * sizeof *p->rows);
		p->nrows = 0;
		for (size_t i = 0; i < c->n; i++)
			if ((!p->one_group || c->e[i].group_id == p->group_id) &&
			    (!kinds[p->kind] || (c->e[i].kind && strcmp(c->e[i].kind, kinds[p->kind]) == 0)) &&
			    (!cls_name(p) || (c->e[i].cls && strcmp(c->e[i].cls, cls_name(p)) == 0)) &&
			    (p->one_group || !scoped(p) || under_roots(p, c->e[i].path)))
				p->rows[p->nrows++] = i;
		n = p->nrows;
	} else {
		n = p->groups ? c->ng : c->n;
	}
	if (p->groups && p->by_growth)
		sort_by_growth(p, c);
	kpt_list_reset(&v->list, n);
	if (v->list.filter[0])
		kpt_list_refilter(v);
	if (keep_id >= 0)
		for (size_t i = 0; i < n; i++) {
			int64_t id = p->groups ? group_at(v, i)->id : c->e[uses_rows(p) ? p->rows[i] : i].id;
			if (id == keep_id) {
				kpt_list_select_row(&v->list, i);
				break;
			}
		}
}

static const kpt_entry *entry_at(kpt_view *v, size_t row)
{
	panics_priv *p = v->priv;
	kpt_catalog *c = &v->app->cat;
	size_t i = uses_rows(p) ? (row < p->nrows ? p->rows[row] : c->n) : row;
	return i < c->n ? &c->e[i] : NULL;
}

static int panics_open(kpt_view *v, void *arg)
{
	panics_priv *p = v->priv;
	p->cls = -1;
	if (arg) {
		const kpt_group *g = arg;
		p->one_group = true;
		p->group_id = g->id;
		snprintf(p->base_title, sizeof p->base_title, "group of %" PRId64, g->count);
	} else {
		snprintf(p->base_title, sizeof p->base_title, "Panics");
		const kpt_config *o = &v->app->cfg;
		if (!o->default_paths && !o->demo && o->npaths) {
			p->roots = kpt_xcalloc(o->npaths, sizeof *p->roots);
			for (size_t i = 0; i < o->npaths; i++)
				if (kpi_root_path(o->paths[i], p->roots[p->nroots], sizeof p->roots[0]))
					p->nroots++;
		}
	}
	set_title(v);
	rebuild(v);
	return 0;
}

static void panics_close(kpt_view *v)
{
	panics_priv *p = v->priv;
	free(p->rows);
	free(p->roots);
	free(p->gorder);
}


/* the flat list's columns and the groups' */
enum { PC_MARK, PC_DATE, PC_OS, PC_COUNT, PC_CLASS, PC_HEADLINE, PC_CULPRIT, PC_HOST, PC_N };
/* The host column is shown only when the index holds reports from more
 * than one Mac (a shared PostgreSQL index): a single Mac's list keeps its
 * layout.  It goes first when space runs out. */
static const kpt_col panic_cols[PC_N] = {
	[PC_MARK] = {.width = 3},   /* new, then the m mark (1, 2) */
	[PC_DATE] = {.width = 17, .gap = 1},   /* "2018-08-18 13:08~": the Mac's clock */
	[PC_OS] = {.width = 9, .wide = 12, .gap = 1},
	[PC_COUNT] = {.width = 4, .gap = 1},
	/* the cause class, short (kp_class_short): dropped with the culprit
	 * before the panic gets under 10 */
	[PC_CLASS] = {.width = 5, .optional = true, .gap = 1},
	[PC_HEADLINE] = {.gap = 1},
	[PC_CULPRIT] = {.width = 18, .wide = 32, .optional = true, .gap = 1},
	[PC_HOST] = {.width = 14, .wide = 20, .optional = true},
};

/* The flat list's columns for this catalog (without the host column, the
 * table as it always was). */
int kpt_panics_layout(const kpt_catalog *cat, kpt_col *c, int width)
{
	memcpy(c, panic_cols, sizeof panic_cols);
	/* "macOS 14.2 (23C64)" whole on a wide screen (the headline gives way);
	 * on a narrow one the same label cut at 14 ("macOS 14.2 (2…"), at 9
	 * on a tight one */
	if (cat->os_w > c[PC_OS].width) {
		c[PC_OS].narrow = c[PC_OS].width;   /* and at 9 when the panic would get under 10 */
		c[PC_OS].width = cat->os_w < 14 ? cat->os_w : 14;
	}
	if (cat->os_w > c[PC_OS].wide)
		c[PC_OS].wide = cat->os_w < 21 ? cat->os_w : 21;
	int n = cat->many_hosts ? PC_N : PC_HOST;
	if (!cat->many_hosts)
		c[PC_CULPRIT].gap = 0;
	kpt_cols_layout(c, n, width);
	if (!cat->many_hosts)
		c[PC_HOST].w = 0;
	return n;
}
enum { GC_COUNT, GC_FLAG, GC_TREND, GC_DATE, GC_TITLE, GC_CULPRIT, GC_N };
/* the trend: one column per week of the last 13 (91 days, kpi_trend's 90
 * and today), the oldest first */
#define TREND_WEEKS 13
static const kpt_col group_cols[GC_N] = {
	[GC_COUNT] = {.width = 5, .gap = 1},
	[GC_FLAG] = {.width = 2, .gap = 1},    /* N new, R regressed */
	[GC_TREND] = {.width = TREND_WEEKS, .gap = 1, .optional = true},
	[GC_DATE] = {.width = 17, .gap = 1},   /* as the flat list's */
	[GC_TITLE] = {.gap = 1},
	[GC_CULPRIT] = {.width = 18, .wide = 32, .optional = true},
};
_Static_assert(PC_N == KPT_PANICS_COLS && GC_N == KPT_GROUPS_COLS, "kpt_columns.h");

void kpt_groups_layout(kpt_col *c, int width)
{
	memcpy(c, group_cols, sizeof group_cols);
	kpt_cols_layout(c, GC_N, width);
}

static void draw_entry(kpt_view *v, size_t row, int y, int width, bool sel)
{
	const kpt_entry *e = entry_at(v, row);
	if (!e)
		return;
	kpt_col c[PC_N];
	kpt_panics_layout(&v->app->cat, c, width);
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char d[32], os[32], cnt[16], dm[1024];
	kpi_date_label(e->date, d, sizeof d);
	kp_os_label(e->os, os, sizeof os);
	if (e->count > 1)
		kpt_count_label(e->count, cnt, sizeof cnt);
	else
		cnt[0] = '\0';
	if (sel)
		kpt_put(y, 0, width, "", st, true);
	char mark[3] = {e->is_new ? '*' : ' ', kpt_marks_label(&((panics_priv *)v->priv)->marks, e->id), '\0'};
	kpt_put(y, c[PC_MARK].x, c[PC_MARK].w, mark, sel ? st : KPT_ST_MARK, true);
	kpt_put(y, c[PC_DATE].x, c[PC_DATE].w, d, st, true);
	kpt_put(y, c[PC_OS].x, c[PC_OS].w, os, st, true);
	kpt_putf(y, c[PC_COUNT].x, c[PC_COUNT].w, sel ? st : KPT_ST_MARK, true, "%*s", c[PC_COUNT].w, cnt);
	kp_class cls;
	if (c[PC_CLASS].w > 0)
		kpt_put(y, c[PC_CLASS].x, c[PC_CLASS].w, kp_class_parse(e->cls, &cls) ? kp_class_short(cls) : "-",
		        sel ? st : KPT_ST_DIM, true);
	char title[KP_HEADLINE_DISPLAY_SIZE];
	/* the report's file moved or removed since it was indexed: said before
	 * its headline (a stat of the rows drawn only) */
	struct stat fst;
	bool gone = e->path && stat(e->path, &fst) != 0;
	size_t off = gone ? (size_t)snprintf(title, sizeof title, "[file gone] ") : 0;
	kp_headline_display(e->headline, title + off, sizeof title - off);
	kpt_put(y, c[PC_HEADLINE].x, c[PC_HEADLINE].w, title[off] ? title : "(no panic string)", st, true);
	if (c[PC_CULPRIT].w > 0)
		kpt_put_id(y, c[PC_CULPRIT].x, c[PC_CULPRIT].w, e->culprit ? kp_demangle_label(e->culprit, dm, sizeof dm) : "",
		           sel ? st : KPT_ST_FUNC, true);
	if (c[PC_HOST].w > 0)
		kpt_put(y, c[PC_HOST].x, c[PC_HOST].w, e->host ? e->host : "-", st, true);
}

/* The last 13 weeks' counts of t, oldest first (zeros without one). */
static void trend_weeks(const kpi_trend *t, int64_t today, int64_t w[TREND_WEEKS])
{
	memset(w, 0, TREND_WEEKS * sizeof *w);
	for (int i = 0; t && i < t->ndays; i++) {
		int64_t ago = today - (t->day0 + i);   /* 0: today */
		if (ago >= 0 && ago < TREND_WEEKS * 7)
			w[TREND_WEEKS - 1 - ago / 7] += t->days[i];
	}
}

static void draw_group(kpt_view *v, size_t row, int y, int width, bool sel)
{
	kpt_catalog *cat = &v->app->cat;
	const kpt_group *g = group_at(v, row);
	if (!g)
		return;
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char d[32];
	kpi_date_label(g->last_seen, d, sizeof d);
	if (sel)
		kpt_put(y, 0, width, "", st, true);
	kpt_col c[GC_N];
	kpt_groups_layout(c, width);
	char cnt[16], dm[1024];
	kpt_count_label(g->count, cnt, sizeof cnt);
	kpt_putf(y, c[GC_COUNT].x, c[GC_COUNT].w, sel ? st : KPT_ST_MARK, true, "%*s", c[GC_COUNT].w, cnt);
	const kpi_trend *t = g->trend;
	kpt_putf(y, c[GC_FLAG].x, c[GC_FLAG].w, sel ? st : KPT_ST_MARK, true, "%s%s", t && t->is_new ? "N" : "",
	         t && t->regressed ? "R" : "");
	if (c[GC_TREND].w > 0) {
		int64_t w[TREND_WEEKS];
		char spark[TREND_WEEKS * 3 + 1];
		trend_weeks(t, kpi_trends_today(cat->trends), w);
		kpt_sparkline(w, TREND_WEEKS, spark, sizeof spark);
		kpt_putf(y, c[GC_TREND].x, c[GC_TREND].w, st, true, "%s", spark);
	}
	kpt_put(y, c[GC_DATE].x, c[GC_DATE].w, d, st, true);
	kpt_put(y, c[GC_TITLE].x, c[GC_TITLE].w, g->title, st, true);
	if (c[GC_CULPRIT].w > 0)
		kpt_put_id(y, c[GC_CULPRIT].x, c[GC_CULPRIT].w, g->culprit ? kp_demangle_label(g->culprit, dm, sizeof dm) : "",
		           sel ? st : KPT_ST_FUNC, true);
}

static void panics_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	panics_priv *p = v->priv;
	if (p->groups)
		draw_group(v, row, y, width, sel);
	else
		draw_entry(v, row, y, width, sel);
}

static void panics_draw(kpt_view *v, int y0, int h, int width)
{
	panics_priv *p = v->priv;
	kpt_app *app = v->app;
	if (p->generation != app->cat.generation)
		rebuild(v);
	if (p->groups) {
		kpt_col c[GC_N];
		kpt_groups_layout(c, width);
		static const char *const head[GC_N] = {"count", "", "13 weeks", "last seen UTC", "group (normalised headline)", "culprit"};
		kpt_put(y0, 0, width, "", KPT_ST_HEADER, true);
		for (int i = 0; i < GC_N; i++)
			if (c[i].w > 0)   /* a narrow title column says only what it is */
				kpt_put(y0, c[i].x, c[i].w + c[i].gap,
				        i == GC_TITLE && c[i].w < (int)strlen(head[i]) ? "group" : head[i], KPT_ST_HEADER, true);
	} else {
		kpt_col c[PC_N];
		int nc = kpt_panics_layout(&app->cat, c, width);
		static const char *const head[PC_N] = {"", "date (UTC)", "OS", "dups", "class", "panic", "culprit", "Mac"};
		kpt_put(y0, 0, width, "", KPT_ST_HEADER, true);
		for (int i = 1; i < nc; i++)
			if (c[i].w > 0)
				kpt_put(y0, c[i].x, c[i].w + c[i].gap, head[i], KPT_ST_HEADER, true);
	}
	if (v->list.n == 0) {
		int y = y0 + 2;
		bool loading = kpt_catalog_fd(&app->cat) >= 0;   /* the rest of the list still coming */
		if (cls_name(p) && !p->groups && app->cat.n && !loading) {
			kpt_putf(y, 2, width - 4, KPT_ST_NORMAL, false, "No %s reports of class %s here (t: the next class).",
			         kinds[p->kind] ? kinds[p->kind] : "", cls_name(p));
		} else if (kinds[p->kind] && !p->groups && app->cat.n && !loading) {
			kpt_putf(y, 2, width - 4, KPT_ST_NORMAL, false, "No %s reports here (f: the next kind).",
			         kinds[p->kind]);
		} else if (app->cat.scanning || loading) {
			kpt_put(y, 2, width - 4, "Indexing panic reports...", KPT_ST_DIM, false);
		} else if (app->cfg.no_reports_folder) {
			kpt_put(y++, 2, width - 4, "No panic report folder on this machine", KPT_ST_ERROR, false);
			kpt_put(y++, 2, width - 4, "(macOS keeps them in /Library/Logs/DiagnosticReports).", KPT_ST_NORMAL, false);
			y++;
			kpt_put(y++, 2, width - 4, "Try:  kpbrowse --demo        the bundled demo reports and dSYMs", KPT_ST_NORMAL, false);
			kpt_put(y++, 2, width - 4, "      kpbrowse PATH...       report files or folders", KPT_ST_NORMAL, false);
		} else {
			kpt_put(y++, 2, width - 4, "No panic reports found in:", KPT_ST_NORMAL, false);
			/* a path that is not there is said so: a typo, or a folder
			 * not made yet (the list fills when it is: live folders) */
			struct stat st;
			for (size_t i = 0; i < app->cfg.npaths && y < y0 + h; i++)
				if (stat(app->cfg.paths[i], &st) == 0)
					kpt_put(y++, 4, width - 6, app->cfg.paths[i], KPT_ST_NORMAL, false);
				else
					kpt_putf(y++, 4, width - 6, KPT_ST_NORMAL, false, "%s  (%s)", app->cfg.paths[i],
					         errno == ENOENT ? "no such file or folder" : strerror(errno));
		}
		return;
	}
	kpt_list_draw(v, y0 + 1, h - 1, width);
	size_t cur;
	p->cur_id = -1;
	if (kpt_list_current(&v->list, &cur)) {
		const kpt_entry *e = p->groups ? NULL : entry_at(v, cur);
		const kpt_group *g = p->groups ? group_at(v, cur) : NULL;
		p->cur_id = p->groups ? (g ? g->id : -1) : e ? e->id : -1;
	}
}

static const char *panics_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	panics_priv *p = v->priv;
	if (p->groups) {
		const kpt_group *g = group_at(v, row);
		if (!g)
			return NULL;
		/* "new" and "regressed" filter the list by its marks too */
		snprintf(buf, size, "%s %s %s%s%s", g->last_seen ? g->last_seen : "", g->title ? g->title : "",
		         g->culprit ? g->culprit : "", g->trend && g->trend->is_new ? " new" : "",
		         g->trend && g->trend->regressed ? " regressed" : "");
		return buf;
	}
	const kpt_entry *e = entry_at(v, row);
	if (!e)
		return NULL;
	/* hot: runs over every row per filter key, so no snprintf */
	const char *parts[6] = {e->date, e->os, e->headline, e->culprit, e->host, e->cls};
	size_t k = 0;
	for (int i = 0; i < 6; i++) {
		if (!parts[i])
			continue;
		size_t n = strlen(parts[i]);
		if (n > size - k - 2)
			n = size - k - 2;
		memcpy(buf + k, parts[i], n);
		k += n;
		buf[k++] = '\t';
	}
	buf[k] = '\0';
	return buf;
}

static unsigned panics_request(kpt_view *v, kpt_request req)
{
	panics_priv *p = v->priv;
	size_t row;
	switch (req) {
	case KPT_REQ_TAB:
		if (p->one_group)
			return 0;
		p->groups = !p->groups;
		v->list.cur = v->list.top = 0;
		v->list.filter[0] = '\0';
		p->generation = 0;
		rebuild(v);
		snprintf(p->base_title, sizeof p->base_title, "%s",
		         p->groups ? (p->by_growth ? "Groups by growth" : "Groups") : "Panics");
		set_title(v);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_SCOPE:
		if (!p->nroots || !p->outside || p->one_group) {
			kpt_set_msg(v->app, p->nroots && !p->one_group ? "a: every report of the index is under the PATHs given"
			                                                : "a: kpbrowse PATH... lists PATH's reports; this is the whole index");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->whole = !p->whole;
		v->list.cur = v->list.top = 0;
		p->generation = 0;
		rebuild(v);
		set_title(v);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_KIND:
		if (p->groups) {
			kpt_set_msg(v->app, "f: the kind filter is for the flat list (Tab)");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->kind = (p->kind + 1) % NKINDS;
		v->list.cur = v->list.top = 0;
		p->generation = 0;
		rebuild(v);
		set_title(v);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_CLASS:
		if (p->groups) {
			kpt_set_msg(v->app, "t: the class filter is for the flat list (Tab)");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->cls = p->cls + 1 < KP_CLASS_COUNT ? p->cls + 1 : -1;
		v->list.cur = v->list.top = 0;
		p->generation = 0;
		rebuild(v);
		set_title(v);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_ENTER:
		if (!kpt_list_current(&v->list, &row))
			return KPT_HANDLED;
		if (p->groups) {
			const kpt_group *g = group_at(v, row);
			if (!g)
				return KPT_HANDLED;
			p->push_group = *g;
			return kpt_push_later(v->app, &kpt_view_group, &p->push_group);
		} else {
			const kpt_entry *e = entry_at(v, row);
			if (!e)
				return KPT_HANDLED;
			p->push_entry = *e;
			return kpt_push_later(v->app, &kpt_view_report, &p->push_entry);
		}
	case KPT_REQ_MARK: {
		const kpt_entry *e = !p->groups && kpt_list_current(&v->list, &row) ? entry_at(v, row) : NULL;
		if (!e) {
			kpt_set_msg(v->app, "m marks a report: Tab to the flat list");
			return KPT_HANDLED | KPT_REDRAW;
		}
		kpt_marks_toggle(&p->marks, e->id);
		kpt_list_request(v, KPT_REQ_DOWN);
		return KPT_HANDLED | KPT_REDRAW;
	}
	case KPT_REQ_COMPARE: {
		if (p->groups) {
			if (!kpt_list_current(&v->list, &row))
				return KPT_HANDLED;
			const kpt_group *g = group_at(v, row);
			return g ? kpt_compare_group(v->app, g, &p->cmp) : KPT_HANDLED;
		}
		const kpt_entry *e = kpt_list_current(&v->list, &row) ? entry_at(v, row) : NULL;
		return kpt_compare_marked(v->app, &p->marks, e ? e->id : -1, &p->cmp);
	}
	case KPT_REQ_SORT:
		if (!p->groups) {
			kpt_set_msg(v->app, "s: groups by recent growth (Tab to the groups)");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->by_growth = !p->by_growth;
		v->list.cur = v->list.top = 0;
		p->generation = 0;
		rebuild(v);
		snprintf(p->base_title, sizeof p->base_title, "%s", p->by_growth ? "Groups by growth" : "Groups");
		set_title(v);
		return KPT_HANDLED | KPT_REDRAW;
	case KPT_REQ_BACK:
		if (!p->one_group && !v->list.filter[0])
			return KPT_HANDLED;   /* the bottom view: Esc does not quit */
		return 0;
	default:
		return 0;
	}
}

static const char *panics_hint(kpt_view *v)
{
	panics_priv *p = v->priv;
	if (p->one_group)
		return "Enter open  m mark  c compare  Esc back  / filter";
	if (p->nroots && p->outside && !p->groups)
		return p->whole ? "Enter open  m mark  c compare  Tab groups  / filter  a PATH's only"
		                : "Enter open  m mark  c compare  Tab groups  / filter  a whole index";
	return p->groups ? "Enter group  c compare  s growth  Tab flat list  / filter  u uuid"
	                 : "Enter open  m mark  c compare  Tab groups  / filter";
}

static unsigned panics_update(kpt_view *v)
{
	panics_priv *p = v->priv;
	if (p->generation != v->app->cat.generation) {
		rebuild(v);
		return KPT_REDRAW;
	}
	return 0;
}

const kpt_view_ops kpt_view_panics = {
	.name = "panics",
	.private_size = sizeof(panics_priv),
	.open = panics_open,
	.close = panics_close,
	.draw = panics_draw,
	.draw_row = panics_draw_row,
	.row_text = panics_row_text,
	.request = panics_request,
	.hint = panics_hint,
	.update = panics_update,
};
