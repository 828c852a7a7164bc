/* cmd_search.c: `kpbrowse search`: reports by UUID, kext, suspect zone or
 * panic text. */
#include "kp_index.h"
#include "kp_lex.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kpc_rows.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option search_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"uuid", required_argument, NULL, 'u'},
	{"kext", required_argument, NULL, 'k'},
	{"zone", required_argument, NULL, 'z'},
	{"json", no_argument, NULL, 'j'},
	{"limit", required_argument, NULL, 'l'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};


typedef struct sink_ctx {
	kpc_json_rows *arr;
	bool header_due;
} sink_ctx;

static int search_sink(void *ctx, const kpi_report_row *row)
{
	sink_ctx *sc = ctx;
	if (sc->header_due) {
		kpc_report_row_header();
		sc->header_due = false;
	}
	return kpc_row_sink(sc->arr, row);
}

int kpc_cmd_search(int argc, char **argv)
{
	const char *db_opt = NULL, *uuid = NULL, *kext = NULL, *zone = NULL;
	bool json = false;
	size_t limit = 0;   /* every row */
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:u:k:z:jl:h", search_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'u': uuid = optarg; break;
		case 'k': kext = optarg; break;
		case 'z': zone = optarg; break;
		case 'j': json = true; break;
		case 'l': {
			uint64_t v;
			if (!kp_parse_u64(optarg, strlen(optarg), &v) || v == 0 || v > SIZE_MAX / 2) {
				kp_usage_error("search: --limit takes a number of reports, 1 or more");
				return KP_EXIT_BAD;
			}
			limit = (size_t)v;
			break;
		}
		case 'h': return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	int nwords = argc - optind;
	if ((uuid != NULL) + (kext != NULL) + (zone != NULL) + (nwords > 0) != 1) {
		kp_usage_error("search: give exactly one of --uuid UUID, --kext BUNDLE_ID, --zone NAME or TEXT");
		return KP_EXIT_BAD;
	}
	char text[4096] = "";
	size_t tl = 0;
	for (int i = optind; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (tl + n + 2 > sizeof text) {
			kp_usage_error("search: text too long");
			return KP_EXIT_BAD;
		}
		if (tl)
			text[tl++] = ' ';
		memcpy(text + tl, argv[i], n + 1);
		tl += n;
	}
	if (zone && !*zone) {
		kp_usage_error("search: --zone needs a zone name");
		return KP_EXIT_BAD;
	}
	if (kext && !*kext) {   /* said before anything prints, and not of the database */
		kp_usage_error("search: --kext needs a bundle id (or its last part)");
		return KP_EXIT_BAD;
	}
	if (uuid && !*uuid) {
		kp_usage_error("search: --uuid needs a UUID (or its first 8+ hex digits)");
		return KP_EXIT_BAD;
	}
	if (nwords > 0 && !text[strspn(text, " ")]) {
		kp_usage_error("search: the text to look for is empty");
		return KP_EXIT_BAD;
	}
	kp_error err;
	/* a malformed argument is refused before anything prints */
	if (uuid && kpi_check_uuid_arg(uuid, &err) != KP_OK) {
		kp_report_error("search", &err);
		return KP_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	kpc_json_rows *arr = NULL;
	int rc = kpc_rows_begin(db_opt, json, &db, &arr, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	/* the header comes with the first row (or after a search that found
	 * none): a search that fails at once prints none before its error */
	sink_ctx sc = {arr, !json};
	/* one page: --limit's, else every row in one go (pages of a few
	 * thousand would each walk the matches again) */
	kpi_page page = {.limit = limit};
	kpi_search_kind kind = uuid ? KPI_SEARCH_UUID : kext ? KPI_SEARCH_KEXT : zone ? KPI_SEARCH_ZONE
	                                                                      : KPI_SEARCH_TEXT;
	kp_status st = kpi_search_page(db, kind, uuid ? uuid : kext ? kext : zone ? zone : text, &page,
	                               search_sink, &sc, &err);
	if (st == KP_OK && sc.header_due)
		kpc_report_row_header();
	rc = kpc_rows_end(&db, arr, st, dbpath, &err, kpc_report_db_error);
	if (rc != KP_EXIT_OK)
		return rc;
	if (!page.done)
		fprintf(stderr, "kpbrowse: search: the newest %zu of %zu reports (--limit %zu)\n", page.rows,
		        page.total, limit);
	return page.rows ? KP_EXIT_OK : KP_EXIT_NONE;
}
