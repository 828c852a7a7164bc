/* cmd_db.c: `kpbrowse db init`: creates or migrates the index's schema (on a
 * PostgreSQL server the only command that does; a file is created by any
 * indexing command too). */
#include "kp_index.h"
#include "kp_report_json.h"
#include "kpc_cmd.h"
#include "kpt_sanitize.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <string.h>

static const struct option db_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_db(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:jh", db_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'j': json = true; break;
		case 'h': return KPC_HELP;
		default: return KPT_EXIT_BAD;
		}
	}
	if (optind + 1 != argc || strcmp(argv[optind], "init") != 0) {
		if (optind < argc)
			kpt_usage_error("db: unknown action '%s'", argv[optind]);
		return KPC_USAGE;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	int rc = kpc_open_index(db_opt, KPI_OPEN_CREATE | KPI_OPEN_INIT, &db, dbpath, sizeof dbpath);
	if (rc != KPT_EXIT_OK)
		return rc;
	kpi_close(&db);
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "db", dbpath);
		cJSON_AddNumberToObject(o, "schema_version", KPI_SCHEMA_VERSION);
		char *txt = cJSON_Print(o);
		if (txt) {
			kp_report_json_fputs_safe(stdout, txt);
			putchar('\n');
		}
		cJSON_free(txt);
		cJSON_Delete(o);
	} else {
		fputs("Index ", stdout);
		kpt_sanitize_write(stdout, dbpath, strlen(dbpath), 0);
		printf(": schema version %d\n", KPI_SCHEMA_VERSION);
	}
	return KPT_EXIT_OK;
}
