/* cmd_list.c: `kpbrowse list`: reports newest first (of one host with
 * --host, of one kind with --kind, of one cause class with --class), or
 * dedup groups. */
#include "kp_index.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kpc_rows.h"
#include "kp_triage.h"

#include <getopt.h>
#include <string.h>

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
			kpc_group_row_header();
		kpi_trends *trends = NULL;   /* JSON's "trend" of each group (issue 34 item 2) */
		st = json ? kpi_group_trends(db, &trends, &err) : KP_OK;
		kpc_rows_set_trends(arr, trends);
		if (st == KP_OK)
			st = kpi_list_groups(db, kpc_group_sink, arr, &err);
		kpc_rows_set_trends(arr, NULL);
		kpi_trends_free(&trends);
	} else {
		if (!json)
			kpc_report_row_header();
		kind_filter f = {kind && strcmp(kind, "all") != 0 ? kind : NULL,
		                 cls && strcmp(cls, "all") != 0 ? cls : NULL, arr};
		st = kpi_list_reports_host(db, host, kind_sink, &f, &err);
	}
	return kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
}

