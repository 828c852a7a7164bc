/* cmd_db.c: `kpbrowse db init`: creates or migrates the index's schema (on a
 * PostgreSQL server the only command that does; a file is created by any
 * indexing command too). */
#include "kp_index.h"
#include "kpc_cmd.h"
#include "kp_sanitize.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <string.h>

int kpc_cmd_db(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool json = false;
	int rc = kpc_db_json_options(argc, argv, &db_opt, &json);
	if (rc != KP_EXIT_OK)
		return rc;
	if (optind + 1 != argc || strcmp(argv[optind], "init") != 0) {
		if (optind < argc)
			kp_usage_error("db: unknown action '%s'", argv[optind]);
		return KPC_USAGE;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	rc = kpc_open_index(db_opt, KPI_OPEN_CREATE | KPI_OPEN_INIT, &db, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	kpi_close(&db);
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "db", dbpath);
		cJSON_AddNumberToObject(o, "schema_version", KPI_SCHEMA_VERSION);
		kpc_print_json(o);
	} else {
		fputs("Index ", stdout);
		kp_sanitize_write(stdout, dbpath, strlen(dbpath), 0);
		printf(": schema version %d\n", KPI_SCHEMA_VERSION);
	}
	return KP_EXIT_OK;
}
