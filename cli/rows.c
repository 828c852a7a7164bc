/* rows.c: the rows of list, search and hosts, as text or streamed JSON
 * (contract: kpc_rows.h). */
#include "kp_demangle.h"
#include "kp_index.h"
#include "kp_jw.h"
#include "kp_signature.h"
#include "kp_sanitize.h"
#include "kp_summary.h"
#include "kp_triage.h"
#include "kp_utf8.h"
#include "kpc_common.h"
#include "kpc_rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void put(const char *s, int width)
{
	char buf[4096];
	size_t n = kp_sanitize(buf, sizeof buf, s ? s : "-", strlen(s ? s : "-"), 0);
	fputs(buf, stdout);
	for (int i = (int)n; i < width; i++)
		putchar(' ');
}

/* ---- JSON: one array streamed through the JSON writer (kp_jw.h) ---------- */

struct kpc_json_rows {
	kp_jw out;
	size_t n;   /* elements written */
	const kpi_trends *trends;   /* groups' trends (kpc_rows_set_trends), or NULL */
};

void kpc_rows_set_trends(kpc_json_rows *j, const kpi_trends *t)
{
	if (j)
		j->trends = t;
}

kpc_json_rows *kpc_rows_open(void)
{
	kpc_json_rows *j = malloc(sizeof *j);
	if (!j)
		return NULL;
	kp_jw_init(&j->out, stdout);
	j->n = 0;
	j->trends = NULL;
	return j;
}

bool kpc_rows_close(kpc_json_rows *j, bool failed)
{
	if (!j)
		return true;
	if (j->n) {
		kp_jw_end(&j->out);
		KP_JW_LIT(&j->out, "\n");
	} else if (!failed) {
		KP_JW_LIT(&j->out, "[]\n");
	}
	bool ok = kp_jw_flush(&j->out) && fflush(stdout) == 0;
	kp_jw_free(&j->out);
	free(j);
	return ok;   /* a failed write is main.c's to report, once (finish_stdout) */
}

int kpc_rows_begin(const char *db_opt, bool json, kpi_db **db, kpc_json_rows **arr,
                   char *dbpath, size_t size)
{
	*arr = NULL;
	int rc = kpc_open_index(db_opt, 0, db, dbpath, size);
	if (rc != KP_EXIT_OK)
		return rc;
	if (json && !(*arr = kpc_rows_open())) {
		kpi_close(db);
		return KP_EXIT_BAD;
	}
	return KP_EXIT_OK;
}

int kpc_rows_end(kpi_db **db, kpc_json_rows *arr, kp_status st, const char *dbpath,
                 const kp_error *err, void (*report)(const char *dbpath, const kp_error *err))
{
	kpi_close(db);
	bool written = kpc_rows_close(arr, st != KP_OK);
	if (st != KP_OK) {
		report(dbpath, err);
		return KP_EXIT_BAD;
	}
	return written ? KP_EXIT_OK : KP_EXIT_BAD;
}

/* The next element of the array (opened with the first), an object. */
static kp_jw *rows_next(kpc_json_rows *j)
{
	if (!j->n++)
		kp_jw_arr(&j->out);
	kp_jw_obj(&j->out);
	return &j->out;
}

/* Members with a literal key (KP_JW_KEY's inline path) and their value. */
#define M_STR(w, k, v) (KP_JW_KEY(w, k), kp_jw_str(w, v))
#define M_INT(w, k, v) (KP_JW_KEY(w, k), kp_jw_int(w, v))
#define M_BOOL(w, k, v) (KP_JW_KEY(w, k), kp_jw_bool(w, v))

static void row_json(kpc_json_rows *j, const kpi_report_row *r)
{
	kp_jw *w = rows_next(j);
	M_INT(w, "id", r->id);
	M_STR(w, "path", r->path);
	char iso[32], os[128], title[KP_HEADLINE_DISPLAY_SIZE];
	M_STR(w, "timestamp", kp_timestamp_iso(r->timestamp, iso, sizeof iso) ? iso : NULL);
	M_STR(w, "timestamp_raw", r->timestamp);
	M_STR(w, "os_version", r->os_version);
	kp_os_label(r->os_version, os, sizeof os);
	M_STR(w, "os", r->os_version ? os : NULL);
	kp_headline_display(r->headline, title, sizeof title);
	M_STR(w, "headline", r->headline ? title : NULL);
	M_STR(w, "headline_raw", r->headline);
	M_INT(w, "group_id", r->group_id);
	M_INT(w, "group_count", r->group_count);
	M_BOOL(w, "archived", r->archived);
	M_STR(w, "host", r->host);
	M_STR(w, "host_key", r->host_key);
	M_STR(w, "kind", r->kind);
	M_STR(w, "class", r->cls);   /* issue 34 */
	if (r->match) {
		KP_JW_KEY(w, "match");
		kp_jw_obj(w);
		M_STR(w, "uuid", r->match->uuid);
		M_STR(w, "name", r->match->name);
		M_STR(w, "role", r->match->role);
		if (r->match->name && kp_text_has_unsafe(r->match->name, strlen(r->match->name)))
			M_BOOL(w, "invisible", true);   /* as show --json flags the name */
		kp_jw_end(w);
	}
	kp_jw_end(w);
}

/* "trend": how the group moves (kp_index.h kpi_trend): reports per day
 * from days_from (YYYY-MM-DD, UTC) to now, its builds and flags, and why. */
static void trend_json(kp_jw *w, const kpi_trend *t, int64_t hosts)
{
	KP_JW_KEY(w, "trend");
	kp_jw_obj(w);
	char from[16] = "";
	time_t d0 = (time_t)(t ? t->day0 : 0) * 86400;
	struct tm tm;
	if (t && t->ndays && gmtime_r(&d0, &tm))
		strftime(from, sizeof from, "%Y-%m-%d", &tm);
	M_STR(w, "days_from", from[0] ? from : NULL);
	KP_JW_KEY(w, "days");
	kp_jw_arr(w);
	for (int i = 0; t && i < t->ndays; i++)
		kp_jw_int(w, t->days[i]);
	kp_jw_end(w);
	M_STR(w, "first_build", t ? t->first_build : NULL);
	M_STR(w, "last_build", t ? t->last_build : NULL);
	KP_JW_KEY(w, "builds");
	kp_jw_obj(w);
	for (size_t i = 0; t && i < t->nbuilds; i++) {
		kp_jw_key(w, t->builds[i].build);
		kp_jw_int(w, t->builds[i].count);
	}
	kp_jw_end(w);
	M_INT(w, "hosts", hosts);
	M_BOOL(w, "new", t && t->is_new);
	M_BOOL(w, "regressed", t && t->regressed);
	M_INT(w, "last_7_days", t ? t->last7 : 0);
	M_INT(w, "previous_7_days", t ? t->prev7 : 0);
	M_BOOL(w, "new_build", t && t->new_build);
	M_INT(w, "quiet_days", t ? t->quiet_days : 0);
	M_STR(w, "stopped_build", t ? t->stopped_build : NULL);
	kp_jw_end(w);
}

static void group_json(kpc_json_rows *j, const kpi_group_row *g)
{
	kp_jw *w = rows_next(j);
	M_INT(w, "group_id", g->group_id);
	M_STR(w, "title", g->title);
	M_STR(w, "culprit", g->culprit);
	M_INT(w, "count", g->count);
	M_INT(w, "hosts", g->hosts);
	M_STR(w, "first_seen", g->first_seen);
	M_STR(w, "last_seen", g->last_seen);
	KP_JW_KEY(w, "report_ids");
	kp_jw_arr(w);
	for (size_t i = 0; i < g->nreport_ids; i++)
		kp_jw_int(w, g->report_ids[i]);
	kp_jw_end(w);
	if (j->trends)
		trend_json(w, kpi_trends_get(j->trends, g->group_id), g->hosts);
	kp_jw_end(w);
}

/* The table's columns: one date form (kpi_date_label: UTC, or the Mac's
 * clock marked ~), the OS whole as kp_os_label names it, every kind's
 * name, the cause class's short name (kp_class_short); a longer id or
 * group only pushes its own row. */
void kpc_report_row_header(void)
{
	printf("%-7s %-17s %-22s %-10s %-14s %-6s %s\n", "ID", "DATE (UTC)", "OS", "GROUP", "KIND", "CLASS",
	       "HEADLINE");
}

void kpc_report_row_print(const kpi_report_row *r)
{
	char id[24], grp[40], date[32], os[64];
	snprintf(id, sizeof id, "@%" PRId64, r->id);
	snprintf(grp, sizeof grp, "%" PRId64 "(%" PRId64 ")", r->group_id, r->group_count);
	kpi_date_label(r->timestamp, date, sizeof date);
	kp_os_label(r->os_version, os, sizeof os);
	printf("%-7s %-17s ", id, date);
	put(os, 22);
	putchar(' ');
	printf("%-10s ", grp);
	put(r->kind, 14);
	putchar(' ');
	kp_class cls;
	printf("%-6s ", kp_class_parse(r->cls, &cls) ? kp_class_short(cls) : "-");
	char title[KP_HEADLINE_DISPLAY_SIZE];
	kp_headline_display(r->headline, title, sizeof title);
	put(title[0] ? title : NULL, 0);
	putchar('\n');
	printf("%-7s ", "");
	put(r->path, 0);
	if (!r->archived)
		fputs("  (not archived)", stdout);
	if (r->host) {
		fputs("  on ", stdout);
		put(r->host, 0);
	}
	putchar('\n');
	if (r->match) {
		printf("%-7s match: %s ", "", r->match->role ? r->match->role : "?");
		put(r->match->name, 0);
		if (r->match->uuid)
			printf(" %s", r->match->uuid);
		if (r->match->name && kp_text_has_unsafe(r->match->name, strlen(r->match->name)))
			fputs(KP_SUM_HIDDEN_NOTE, stdout);
		putchar('\n');
	}
}

int kpc_row_sink(void *ctx, const kpi_report_row *row)
{
	if (ctx)
		row_json(ctx, row);
	else
		kpc_report_row_print(row);
	return 0;
}

void kpc_group_row_header(void)
{
	printf("%-6s %5s %5s  %-17s %-17s %s\n", "GROUP", "COUNT", "MACS", "FIRST SEEN (UTC)",
	       "LAST SEEN (UTC)", "TITLE");
}

int kpc_group_sink(void *ctx, const kpi_group_row *g)
{
	if (ctx) {
		group_json(ctx, g);
		return 0;
	}
	char first[32], last[32];
	kpi_date_label(g->first_seen, first, sizeof first);
	kpi_date_label(g->last_seen, last, sizeof last);
	printf("%-6" PRId64 " %5" PRId64 " %5" PRId64 "  %-17s %-17s ", g->group_id, g->count, g->hosts, first, last);
	put(g->title, 0);
	putchar('\n');
	if (g->culprit) {
		char dm[1024];
		fputs("              culprit: ", stdout);
		put(kp_demangle_label(g->culprit, dm, sizeof dm), 0);
		putchar('\n');
	}
	fputs("              reports:", stdout);
	for (size_t i = 0; i < g->nreport_ids; i++)
		printf(" @%" PRId64, g->report_ids[i]);
	putchar('\n');
	return 0;
}

/* ---- hosts (kpbrowse hosts) ---- */

/* Calls fn for each line of the "\n"-joined list s. */
static void each_build(const char *s, void (*fn)(void *ctx, const char *b, size_t n, bool first),
                       void *ctx)
{
	for (bool first = true; s && *s; first = false) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		fn(ctx, s, n, first);
		s += n + (e != NULL);
	}
}

/* An OS version of the index's as every view names it (kp_os_label) */
static void build_label(const char *b, size_t n, char *out, size_t size)
{
	char raw[256];
	snprintf(raw, sizeof raw, "%.*s", (int)n, b);
	kp_os_label(raw, out, size);
}

static void build_json_raw(void *ctx, const char *b, size_t n, bool first)
{
	(void)first;   /* the writer puts the separators */
	kp_jw_strn(ctx, b, n);
}

static void build_json(void *ctx, const char *b, size_t n, bool first)
{
	char os[256];
	build_label(b, n, os, sizeof os);
	build_json_raw(ctx, os, strlen(os), first);
}

static void build_text(void *ctx, const char *b, size_t n, bool first)
{
	(void)ctx;
	char buf[512], os[256];
	build_label(b, n, os, sizeof os);
	kp_sanitize(buf, sizeof buf, os, strlen(os), 0);
	if (!first)
		fputs(", ", stdout);
	fputs(buf, stdout);
}

void kpc_host_row_header(void)
{
	printf("%-24s %-42s %-16s %7s  %-17s %s\n", "HOST", "HOST KEY", "MODEL", "REPORTS",
	       "LAST SEEN (UTC)", "BUILDS");
}

int kpc_host_sink(void *ctx, const kpi_host_row *h)
{
	kpc_json_rows *j = ctx;
	if (j) {
		kp_jw *w = rows_next(j);
		M_STR(w, "host", h->host);
		M_STR(w, "host_key", h->host_key);
		M_STR(w, "model", h->model);
		KP_JW_KEY(w, "builds");
		kp_jw_arr(w);
		each_build(h->builds, build_json, w);
		kp_jw_end(w);
		KP_JW_KEY(w, "builds_raw");
		kp_jw_arr(w);
		each_build(h->builds, build_json_raw, w);
		kp_jw_end(w);
		M_INT(w, "reports", h->reports);
		M_STR(w, "last_seen", h->last_seen);
		kp_jw_end(w);
		return 0;
	}
	/* a report that names no Mac, pushed with none named: unknown, never
	 * the machine that read it (issue 31 item 4) */
	put(h->host || h->host_key ? h->host : "(unknown)", 24);
	putchar(' ');
	put(h->host_key, 42);
	putchar(' ');
	put(h->model, 16);
	char last[32];
	kpi_date_label(h->last_seen, last, sizeof last);
	printf(" %7" PRId64 "  %-17s ", h->reports, last);
	each_build(h->builds, build_text, NULL);
	putchar('\n');
	return 0;
}
