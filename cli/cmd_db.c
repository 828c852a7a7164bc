/* cmd_db.c: `kpbrowse db init`: creates or migrates the index's schema (on a
 * PostgreSQL server the only command that does; a file is created by any
 * indexing command too); `kpbrowse db rebuild`: a damaged sqlite index made
 * anew from the report folders and its archive (kpi_rebuild). */
#include "kp_index.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kp_sanitize.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static int rebuild(const char *db_opt, bool json, const char *const *paths, size_t npaths)
{
	kp_error err;
	char target[4096], shown[4096];
	if (kpi_default_path(db_opt, target, sizeof target, &err) != KP_OK) {
		kp_report_error("--db", &err);
		return KP_EXIT_BAD;
	}
	kpi_target_display(target, shown, sizeof shown);
	char home_reports[4096];
	const char *defaults[2];
	if (npaths == 0) {
		npaths = kpc_default_folders(defaults, home_reports, sizeof home_reports);
		paths = defaults;
	}
	kp_symbols *sym = NULL;
	kp_symbols_opts so = {.batch = true};
	kp_error serr;
	if (kp_symbols_new(&so, &sym, &serr) != KP_OK)
		sym = NULL; /* the reports' own symbols, as index --no-symbols */
	kpi_rebuild_summary sum;
	kp_status st = kpi_rebuild(target, paths, npaths, sym ? kp_symbols_sig_name : NULL, sym, &sum, &err);
	kp_symbols_free(&sym);
	memset(target, 0, sizeof target);
	if (st != KP_OK) {
		kpc_report_db_error(shown, &err);
		kpi_rebuild_summary_free(&sum);
		return KP_EXIT_BAD;
	}
	kpc_print_scan_errors(&sum.scan, NULL);
	kpc_print_scan_errors(&sum.archive, NULL);
	if (sum.old_unreadable) {
		kp_error e;
		kp_error_set(&e, KP_ERR_DB, 0, -1, "the old index could not be read (%s): rebuilt from the "
		             "folders only", sum.old_error);
		kpc_report_db_error(shown, &e);
	} else if (sum.unreadable) {
		kp_error e;
		kp_error_set(&e, KP_ERR_DB, 0, -1, "%zu reports of the old index could not be read (damage)",
		             sum.unreadable);
		kpc_report_db_error(shown, &e);
	}
	if (json) {
		kp_jw w;
		kpc_json_open(&w);
		kp_jw_obj(&w);
		kp_jw_key(&w, "db");
		kp_jw_str(&w, shown);
		kp_jw_key(&w, "files");
		kp_jw_int(&w, (int64_t)sum.scan.files);
		kp_jw_key(&w, "from_files");
		kp_jw_int(&w, (int64_t)sum.scan.new_reports);
		kp_jw_key(&w, "archived");
		kp_jw_int(&w, (int64_t)sum.archived);
		kp_jw_key(&w, "restored");
		kp_jw_int(&w, (int64_t)sum.restored);
		kp_jw_key(&w, "unreadable");
		kp_jw_int(&w, (int64_t)sum.unreadable);
		kp_jw_key(&w, "old_unreadable");
		kp_jw_bool(&w, sum.old_unreadable);
		if (sum.kept[0]) {
			kp_jw_key(&w, "kept");
			kp_jw_str(&w, sum.kept);
		}
		kp_jw_end(&w);
		kpc_json_close(&w);
	} else {
		fputs("Rebuilt ", stdout);
		kp_sanitize_write(stdout, shown, strlen(shown), 0);
		printf(": %zu reports from %zu files, %zu more from the old archive (%zu read back, %zu "
		       "unreadable)\n",
		       sum.scan.new_reports, sum.scan.files, sum.restored, sum.archived, sum.unreadable);
		if (sum.kept[0]) {
			fputs("The damaged index is kept as ", stdout);
			kp_sanitize_write(stdout, sum.kept, strlen(sum.kept), 0);
			putchar('\n');
		}
	}
	bool lost = sum.unreadable || sum.old_unreadable || sum.scan.errors || sum.archive.errors;
	kpi_rebuild_summary_free(&sum);
	return lost ? KP_EXIT_BAD : KP_EXIT_OK;
}

int kpc_cmd_db(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool json = false;
	int rc = kpc_db_json_options(argc, argv, &db_opt, &json);
	if (rc != KP_EXIT_OK)
		return rc;
	if (optind < argc && strcmp(argv[optind], "rebuild") == 0)
		return rebuild(db_opt, json, (const char *const *)argv + optind + 1, (size_t)(argc - optind - 1));
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
		kp_jw w;
		kpc_json_open(&w);
		kp_jw_obj(&w);
		kp_jw_key(&w, "db");
		kp_jw_str(&w, dbpath);
		kp_jw_key(&w, "schema_version");
		kp_jw_int(&w, KPI_SCHEMA_VERSION);
		kp_jw_end(&w);
		kpc_json_close(&w);
	} else {
		fputs("Index ", stdout);
		kp_sanitize_write(stdout, dbpath, strlen(dbpath), 0);
		printf(": schema version %d\n", KPI_SCHEMA_VERSION);
	}
	return KP_EXIT_OK;
}
