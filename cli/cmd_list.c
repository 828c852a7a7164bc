/* cmd_list.c: `kpbrowse list`: reports newest first (of one host with
 * --host), or dedup groups; `kpbrowse hosts`: the Macs. */
#include "kp_demangle.h"
#include "kp_index.h"
#include "kp_report_json.h"
#include "kp_signature.h"
#include "kpc_cmd.h"
#include "kp_sanitize.h"
#include "kp_summary.h"
#include "kp_triage.h"
#include "kp_utf8.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put(const char *s, int width)
{
	char buf[4096];
	size_t n = kp_sanitize(buf, sizeof buf, s ? s : "-", strlen(s ? s : "-"), 0);
	fputs(buf, stdout);
	for (int i = (int)n; i < width; i++)
		putchar(' ');
}

/* ---- JSON: streamed in cJSON_Print's layout (kp_report_json.h) ---------- */

struct kpc_json_rows {
	kp_report_json_out out;
	size_t n;   /* elements written */
};

kpc_json_rows *kpc_rows_open(void)
{
	kpc_json_rows *j = malloc(sizeof *j);
	if (!j)
		return NULL;
	kp_report_json_init(&j->out, stdout);
	j->n = 0;
	return j;
}

bool kpc_rows_close(kpc_json_rows *j, bool failed)
{
	if (!j)
		return true;
	if (j->n)
		kp_report_json_raw(&j->out, "]\n", 2);
	else if (!failed)
		kp_report_json_raw(&j->out, "[]\n", 3);
	bool ok = kp_report_json_flush(&j->out) && fflush(stdout) == 0;
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

static const struct option db_json_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_db_json_options(int argc, char **argv, const char **db_opt, bool *json)
{
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:jh", db_json_options, NULL)) != -1) {
		switch (c) {
		case 'd': *db_opt = optarg; break;
		case 'j': *json = true; break;
		case 'h': return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	return KP_EXIT_OK;
}

/* The separator before the next array element, then its object. */
static kp_report_json_obj rows_next(kpc_json_rows *j)
{
	if (j->n++)
		kp_report_json_raw(&j->out, ", ", 2);
	else
		kp_report_json_raw(&j->out, "[", 1);
	return kp_report_json_begin(&j->out, 1);
}

static void m_str(kp_report_json_obj *ob, const char *k, const char *v)
{
	kp_report_json_key(ob, k);
	kp_report_json_str(ob->out, v);
}

static void m_int(kp_report_json_obj *ob, const char *k, int64_t v)
{
	kp_report_json_key(ob, k);
	kp_report_json_int(ob->out, v);
}

static void row_json(kpc_json_rows *j, const kpi_report_row *r)
{
	kp_report_json_obj ob = rows_next(j);
	m_int(&ob, "id", r->id);
	m_str(&ob, "path", r->path);
	char iso[32], os[128], title[KP_HEADLINE_DISPLAY_SIZE];
	m_str(&ob, "timestamp", kp_timestamp_iso(r->timestamp, iso, sizeof iso) ? iso : NULL);
	m_str(&ob, "timestamp_raw", r->timestamp);
	m_str(&ob, "os_version", r->os_version);
	kp_os_label(r->os_version, os, sizeof os);
	m_str(&ob, "os", r->os_version ? os : NULL);
	kp_headline_display(r->headline, title, sizeof title);
	m_str(&ob, "headline", r->headline ? title : NULL);
	m_str(&ob, "headline_raw", r->headline);
	m_int(&ob, "group_id", r->group_id);
	m_int(&ob, "group_count", r->group_count);
	kp_report_json_key(&ob, "archived");
	kp_report_json_bool(&j->out, r->archived);
	m_str(&ob, "host", r->host);
	m_str(&ob, "host_key", r->host_key);
	m_str(&ob, "kind", r->kind);
	m_str(&ob, "class", r->cls);
	if (r->match) {
		kp_report_json_key(&ob, "match");
		kp_report_json_obj m = kp_report_json_begin(&j->out, 2);
		m_str(&m, "uuid", r->match->uuid);
		m_str(&m, "name", r->match->name);
		m_str(&m, "role", r->match->role);
		if (r->match->name && kp_text_has_unsafe(r->match->name, strlen(r->match->name))) {
			kp_report_json_key(&m, "invisible");   /* as show --json flags the name */
			kp_report_json_bool(&j->out, true);
		}
		kp_report_json_end(&m);
	}
	kp_report_json_end(&ob);
}

static void group_json(kpc_json_rows *j, const kpi_group_row *g)
{
	kp_report_json_obj ob = rows_next(j);
	m_int(&ob, "group_id", g->group_id);
	m_str(&ob, "title", g->title);
	m_str(&ob, "culprit", g->culprit);
	m_int(&ob, "count", g->count);
	m_int(&ob, "hosts", g->hosts);
	m_str(&ob, "first_seen", g->first_seen);
	m_str(&ob, "last_seen", g->last_seen);
	kp_report_json_key(&ob, "report_ids");
	kp_report_json_raw(&j->out, "[", 1);
	for (size_t i = 0; i < g->nreport_ids; i++) {
		if (i)
			kp_report_json_raw(&j->out, ", ", 2);
		kp_report_json_int(&j->out, g->report_ids[i]);
	}
	kp_report_json_raw(&j->out, "]", 1);
	kp_report_json_end(&ob);
}

/* The table's columns: one date form (kpi_date_label: UTC, or the Mac's
 * clock marked ~), the OS whole as kp_os_label names it, every kind's
 * name, the cause class's short name (kp_class_short); a longer id or group
 * only pushes its own row. */
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

static int group_sink(void *ctx, const kpi_group_row *g)
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

/* list --kind and --class: rows of one kind (kpi_report_row.kind) and
 * one cause class (kpi_report_row.cls) to the row sink. */
typedef struct kind_filter {
	const char *kind;   /* NULL: all */
	const char *cls;    /* NULL: all */
	kpc_json_rows *arr;
} kind_filter;

static int kind_sink(void *ctx, const kpi_report_row *row)
{
	kind_filter *f = ctx;
	if ((f->kind && (!row->kind || strcmp(row->kind, f->kind) != 0)) ||
	    (f->cls && (!row->cls || strcmp(row->cls, f->cls) != 0)))
		return 0;
	return kpc_row_sink(f->arr, row);
}

static const struct option list_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"kind", required_argument, NULL, 'k'},
	{"class", required_argument, NULL, 'c'},
	{"groups", no_argument, NULL, 'g'},
	{"host", required_argument, NULL, 'H'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_list(int argc, char **argv)
{
	const char *db_opt = NULL, *host = NULL, *kind = NULL, *cls = NULL;
	bool groups = false, json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:d:gjhH:k:", list_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'k': kind = optarg; break;
		case 'c': cls = optarg; break;
		case 'H': host = optarg; break;
		case 'g': groups = true; break;
		case 'j': json = true; break;
		case 'h': return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (optind < argc) {
		kp_usage_error("list: unexpected argument '%s'", argv[optind]);
		return KP_EXIT_BAD;
	}
	if (groups && host) {
		kp_usage_error("list: --host lists reports, not --groups");
		return KP_EXIT_BAD;
	}
	if (kind && strcmp(kind, "panic") != 0 && strcmp(kind, "watchdog") != 0 &&
	    strcmp(kind, "stackshot") != 0 && strcmp(kind, "reset") != 0 && strcmp(kind, "hang") != 0 &&
	    strcmp(kind, "shutdown-stall") != 0 && strcmp(kind, "sleep-wake") != 0 && strcmp(kind, "all") != 0) {
		kp_usage_error("list: --kind is panic, watchdog, stackshot, reset, hang, shutdown-stall, sleep-wake "
		               "or all, not '%s'", kind);
		return KP_EXIT_BAD;
	}
	if (groups && kind) {
		kp_usage_error("list: --kind lists reports, not --groups");
		return KP_EXIT_BAD;
	}
	kp_class want;
	if (cls && strcmp(cls, "all") != 0 && !kp_class_parse(cls, &want)) {
		kp_usage_error("list: --class is hardware, firmware, heap-corruption, resource-exhaustion, lock, "
		               "null-deref, bad-pointer, gpu, storage-io, sleep-wake, watchdog, assertion, other or "
		               "all, not '%s'", cls);
		return KP_EXIT_BAD;
	}
	if (groups && cls) {
		kp_usage_error("list: --class lists reports, not --groups");
		return KP_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	kpc_json_rows *arr = NULL;
	int rc = kpc_rows_begin(db_opt, json, &db, &arr, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	kp_error err;
	kp_status st;
	if (groups) {
		if (!json)
			printf("%-6s %5s %5s  %-17s %-17s %s\n", "GROUP", "COUNT", "MACS", "FIRST SEEN (UTC)",
			       "LAST SEEN (UTC)", "TITLE");
		st = kpi_list_groups(db, group_sink, arr, &err);
	} else {
		if (!json)
			kpc_report_row_header();
		kind_filter f = {kind && strcmp(kind, "all") != 0 ? kind : NULL,
		                 cls && strcmp(cls, "all") != 0 ? cls : NULL, arr};
		st = kpi_list_reports_host(db, host, kind_sink, &f, &err);
	}
	return kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
}

/* ---- kpbrowse hosts ---- */

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
	kp_report_json_out *out = ctx;
	if (!first)
		kp_report_json_raw(out, ", ", 2);
	kp_report_json_string(out, b, n);
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

static int host_sink(void *ctx, const kpi_host_row *h)
{
	kpc_json_rows *j = ctx;
	if (j) {
		kp_report_json_obj ob = rows_next(j);
		m_str(&ob, "host", h->host);
		m_str(&ob, "host_key", h->host_key);
		m_str(&ob, "model", h->model);
		kp_report_json_key(&ob, "builds");
		kp_report_json_raw(&j->out, "[", 1);
		each_build(h->builds, build_json, &j->out);
		kp_report_json_raw(&j->out, "]", 1);
		kp_report_json_key(&ob, "builds_raw");
		kp_report_json_raw(&j->out, "[", 1);
		each_build(h->builds, build_json_raw, &j->out);
		kp_report_json_raw(&j->out, "]", 1);
		m_int(&ob, "reports", h->reports);
		m_str(&ob, "last_seen", h->last_seen);
		kp_report_json_end(&ob);
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

int kpc_cmd_hosts(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool json = false;
	int rc = kpc_db_json_options(argc, argv, &db_opt, &json);
	if (rc != KP_EXIT_OK)
		return rc;
	if (optind < argc) {
		kp_usage_error("hosts: unexpected argument '%s'", argv[optind]);
		return KP_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	kpc_json_rows *arr = NULL;
	rc = kpc_rows_begin(db_opt, json, &db, &arr, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	if (!json)
		printf("%-24s %-42s %-16s %7s  %-17s %s\n", "HOST", "HOST KEY", "MODEL", "REPORTS",
		       "LAST SEEN (UTC)", "BUILDS");
	kp_error err;
	kp_status st = kpi_list_hosts(db, host_sink, arr, &err);
	return kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
}
