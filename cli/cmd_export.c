/* cmd_export.c: `kpbrowse export @ID FILE`: the archived original bytes. */
#include "kp_index.h"
#include "kpc_cmd.h"
#include "kpc_common.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const struct option export_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_export(int argc, char **argv)
{
	const char *db_opt = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", export_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'h':
			return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	int64_t id;
	if (argc - optind != 2)
		return KPC_USAGE;
	if (!kpi_parse_id(argv[optind], &id)) {
		kpc_bad_id("export", argv[optind]);
		return KP_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	int rc = kpc_open_index(db_opt, 0, &db, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	kp_error err;
	/* "-": standard output */
	kp_status st = strcmp(argv[optind + 1], "-") == 0 ? kpi_export_fd(db, id, STDOUT_FILENO, &err)
	                                                 : kpi_export(db, id, argv[optind + 1], &err);
	kpi_close(&db);
	if (st != KP_OK) {
		kp_report_error(argv[optind], &err);
		return KP_EXIT_BAD;   /* a missing @ID is bad input, as for show */
	}
	return KP_EXIT_OK;
}
