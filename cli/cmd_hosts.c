/* cmd_hosts.c: `kpbrowse hosts`: the Macs whose reports the index holds. */
#include "kp_index.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kpc_rows.h"

#include <getopt.h>
#include <stdio.h>

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
		kpc_host_row_header();
	kp_error err;
	kp_status st = kpi_list_hosts(db, kpc_host_sink, arr, &err);
	return kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
}
