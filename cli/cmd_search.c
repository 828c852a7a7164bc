/* cmd_search.c: `kpbrowse search`: reports by UUID, kext, suspect zone or
 * panic text. */
#include "kp_index.h"
#include "kpc_cmd.h"

#include <getopt.h>
#include <string.h>

static const struct option search_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"uuid", required_argument, NULL, 'u'},
	{"kext", required_argument, NULL, 'k'},
	{"zone", required_argument, NULL, 'z'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};


int kpc_cmd_search(int argc, char **argv)
{
	const char *db_opt = NULL, *uuid = NULL, *kext = NULL, *zone = NULL;
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:u:k:z:jh", search_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'u': uuid = optarg; break;
		case 'k': kext = optarg; break;
		case 'z': zone = optarg; break;
		case 'j': json = true; break;
		case 'h': return KPC_HELP;
		default: return KPT_EXIT_BAD;
		}
	}
	int nwords = argc - optind;
	if ((uuid != NULL) + (kext != NULL) + (zone != NULL) + (nwords > 0) != 1) {
		kpt_usage_error("search: give exactly one of --uuid UUID, --kext BUNDLE_ID, --zone NAME or TEXT");
		return KPT_EXIT_BAD;
	}
	char text[4096] = "";
	size_t tl = 0;
	for (int i = optind; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (tl + n + 2 > sizeof text) {
			kpt_usage_error("search: text too long");
			return KPT_EXIT_BAD;
		}
		if (tl)
			text[tl++] = ' ';
		memcpy(text + tl, argv[i], n + 1);
		tl += n;
	}
	if (zone && !*zone) {
		kpt_usage_error("search: --zone needs a zone name");
		return KPT_EXIT_BAD;
	}
	kp_error err;
	/* a malformed argument is refused before anything prints */
	if (uuid && kpi_check_uuid_arg(uuid, &err) != KP_OK) {
		kpt_report_error("search", &err);
		return KPT_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	kpc_json_rows *arr = NULL;
	int rc = kpc_rows_begin(db_opt, json, &db, &arr, dbpath, sizeof dbpath);
	if (rc != KPT_EXIT_OK)
		return rc;
	size_t n = 0;
	kp_status st;
	if (!json)
		kpc_report_row_header();
	if (uuid)
		st = kpi_search_uuid(db, uuid, kpc_row_sink, arr, &n, &err);
	else if (kext)
		st = kpi_search_kext(db, kext, kpc_row_sink, arr, &n, &err);
	else if (zone)
		st = kpi_search_zone(db, zone, kpc_row_sink, arr, &n, &err);
	else
		st = kpi_search_text(db, text, kpc_row_sink, arr, &n, &err);
	rc = kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
	if (rc != KPT_EXIT_OK)
		return rc;
	return n ? KPT_EXIT_OK : KPT_EXIT_NONE;
}
