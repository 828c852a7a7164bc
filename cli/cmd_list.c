/* cmd_list.c: `kpbrowse list`: reports newest first, or dedup groups. */
#include "kp_index.h"
#include "kp_report_json.h"
#include "kpc_cmd.h"
#include "kpt_sanitize.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

static void put(const char *s, int width)
{
	char buf[4096];
	size_t n = kpt_sanitize(buf, sizeof buf, s ? s : "-", strlen(s ? s : "-"), 0);
	fputs(buf, stdout);
	for (int i = (int)n; i < width; i++)
		putchar(' ');
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *kpc_report_row_json(const kpi_report_row *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddItemToObject(o, "path", str_or_null(r->path));
	cJSON_AddItemToObject(o, "timestamp", str_or_null(r->timestamp));
	cJSON_AddItemToObject(o, "os_version", str_or_null(r->os_version));
	cJSON_AddItemToObject(o, "headline", str_or_null(r->headline));
	cJSON_AddNumberToObject(o, "group_id", (double)r->group_id);
	cJSON_AddNumberToObject(o, "group_count", (double)r->group_count);
	cJSON_AddBoolToObject(o, "archived", r->archived);
	if (r->match) {
		cJSON *m = cJSON_AddObjectToObject(o, "match");
		cJSON_AddItemToObject(m, "uuid", str_or_null(r->match->uuid));
		cJSON_AddItemToObject(m, "name", str_or_null(r->match->name));
		cJSON_AddItemToObject(m, "role", str_or_null(r->match->role));
	}
	return o;
}

void kpc_report_row_header(void)
{
	printf("%-6s %-28s %-22s %-10s %s\n", "ID", "DATE", "OS", "GROUP", "HEADLINE");
}

void kpc_report_row_print(const kpi_report_row *r)
{
	char id[24], grp[40];
	snprintf(id, sizeof id, "@%" PRId64, r->id);
	snprintf(grp, sizeof grp, "%" PRId64 "(%" PRId64 ")", r->group_id, r->group_count);
	printf("%-6s ", id);
	put(r->timestamp, 28);
	putchar(' ');
	put(r->os_version, 22);
	putchar(' ');
	printf("%-10s ", grp);
	put(r->headline, 0);
	putchar('\n');
	printf("%-6s ", "");
	put(r->path, 0);
	if (!r->archived)
		fputs("  (not archived)", stdout);
	putchar('\n');
	if (r->match) {
		printf("%-6s match: %s ", "", r->match->role ? r->match->role : "?");
		put(r->match->name, 0);
		if (r->match->uuid)
			printf(" %s", r->match->uuid);
		putchar('\n');
	}
}

int kpc_row_sink(void *ctx, const kpi_report_row *row)
{
	cJSON *arr = ctx;
	if (arr)
		cJSON_AddItemToArray(arr, kpc_report_row_json(row));
	else
		kpc_report_row_print(row);
	return ferror(stdout) ? 1 : 0; /* a failed write stops the rows (main says why) */
}

void kpc_print_json(cJSON *j)
{
	char *s = j ? cJSON_Print(j) : NULL;
	if (s) {
		kp_report_json_fputs_safe(stdout, s);   /* inert and valid UTF-8 */
		putchar('\n');
	}
	cJSON_free(s);
	cJSON_Delete(j);
}

static int group_sink(void *ctx, const kpi_group_row *g)
{
	cJSON *arr = ctx;
	if (arr) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "group_id", (double)g->group_id);
		cJSON_AddItemToObject(o, "title", str_or_null(g->title));
		cJSON_AddItemToObject(o, "culprit", str_or_null(g->culprit));
		cJSON_AddNumberToObject(o, "count", (double)g->count);
		cJSON_AddItemToObject(o, "first_seen", str_or_null(g->first_seen));
		cJSON_AddItemToObject(o, "last_seen", str_or_null(g->last_seen));
		cJSON *ids = cJSON_AddArrayToObject(o, "report_ids");
		for (size_t i = 0; i < g->nreport_ids; i++)
			cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)g->report_ids[i]));
		cJSON_AddItemToArray(arr, o);
		return 0;
	}
	printf("%-6" PRId64 " %5" PRId64 "  %-20s  %-20s  ", g->group_id, g->count,
	       g->first_seen ? g->first_seen : "-", g->last_seen ? g->last_seen : "-");
	put(g->title, 0);
	putchar('\n');
	fputs("              reports:", stdout);
	for (size_t i = 0; i < g->nreport_ids; i++)
		printf(" @%" PRId64, g->report_ids[i]);
	putchar('\n');
	return 0;
}

static const struct option list_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"groups", no_argument, NULL, 'g'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_list(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool groups = false, json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:gjh", list_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'g': groups = true; break;
		case 'j': json = true; break;
		case 'h': return KPC_HELP;
		default: return KPT_EXIT_BAD;
		}
	}
	if (optind < argc) {
		kpt_usage_error("list: unexpected argument '%s'", argv[optind]);
		return KPT_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	int rc = kpc_open_index(db_opt, false, &db, dbpath, sizeof dbpath);
	if (rc != KPT_EXIT_OK)
		return rc;
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	kp_error err;
	kp_status st;
	if (groups) {
		if (!json)
			printf("%-6s %5s  %-20s  %-20s  %s\n", "GROUP", "COUNT", "FIRST SEEN", "LAST SEEN",
			       "TITLE");
		st = kpi_list_groups(db, group_sink, arr, &err);
	} else {
		if (!json)
			kpc_report_row_header();
		st = kpi_list_reports(db, kpc_row_sink, arr, &err);
	}
	kpi_close(&db);
	if (st != KP_OK) {
		cJSON_Delete(arr);
		kpc_report_db_error(dbpath, &err);
		return KPT_EXIT_BAD;
	}
	if (json)
		kpc_print_json(arr);
	return KPT_EXIT_OK;
}
