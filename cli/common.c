/* common.c: what several subcommands share (contract: kpc_common.h):
 * opening the index, its errors, report ids, a JSON document to stdout, the
 * default report folders, a scan's errors, and the option parsers of the
 * --db/--json commands and of the symbol-source commands. */
#include "kp_index.h"
#include "kp_jw.h"
#include "kp_sanitize.h"
#include "kpc_common.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int kpc_open_index(const char *db_opt, unsigned flags, kpi_db **db, char *path, size_t size)
{
	kp_error err;
	char target[4096];
	if (kpi_default_path(db_opt, target, sizeof target, &err) != KP_OK) {
		kp_report_error("--db", &err);
		return KP_EXIT_BAD;
	}
	kpi_target_display(target, path, size);
	kp_status st = kpi_open(target, (flags & (KPI_OPEN_CREATE | KPI_OPEN_INIT)) ? flags : flags | KPI_OPEN_READONLY, db, &err);
	memset(target, 0, sizeof target); /* the password, if any, goes no further */
	if (st != KP_OK) {
		char msg[512];
		kp_error_format(&err, msg, sizeof msg);
		fputs("kpbrowse: ", stderr);
		kp_sanitize_write(stderr, msg, strlen(msg), 0);
		fputc('\n', stderr);
		return KP_EXIT_BAD;
	}
	return KP_EXIT_OK;
}

const char *kpc_bad_id_reason(const char *arg)
{
	const char *p = arg[0] == '@' ? arg + 1 : arg;
	size_t n = strspn(p, "0123456789");
	if (n && !p[n])
		return "report id too large (report ids go up to @9223372036854775807)";
	return "not a report id (use @ID from 'kpbrowse list')";
}

void kpc_bad_id(const char *cmd, const char *arg)
{
	kp_error err;
	kp_error_set(&err, KP_ERR_USAGE, 0, -1, "%s: %s", cmd, kpc_bad_id_reason(arg));
	kp_report_error(arg, &err);
}

/* A store's message names the database already: no "DB: DB:". */
void kpc_report_db_error(const char *dbpath, const kp_error *err)
{
	size_t n = strlen(dbpath);
	if (strncmp(err->msg, dbpath, n) != 0 || err->msg[n] != ':') {
		kp_report_error(dbpath, err);
		return;
	}
	char msg[512];
	kp_error_format(err, msg, sizeof msg);
	fputs("kpbrowse: ", stderr);
	kp_sanitize_write(stderr, msg, strlen(msg), 0);
	fputc('\n', stderr);
}

void kpc_json_open(kp_jw *w)
{
	kp_jw_init(w, stdout);
}

bool kpc_json_close(kp_jw *w)
{
	kp_jw_raw(w, "\n", 1);
	bool ok = kp_jw_flush(w);
	kp_jw_free(w);
	return ok;   /* a failed write is main.c's to report, once (finish_stdout) */
}

/* Errors name their file (or @ID) on stderr, one line each, whatever the
 * output format: stdout carries only the summary. */
size_t kpc_default_folders(const char *folders[2], char *home_buf, size_t size)
{
	folders[0] = "/Library/Logs/DiagnosticReports";
	const char *home = getenv("HOME");
	if (!home || !*home)
		return 1;
	snprintf(home_buf, size, "%s/Library/Logs/DiagnosticReports", home);
	folders[1] = home_buf;
	return 2;
}

void kpc_print_scan_errors(const struct kpi_summary *s, const struct kpi_resign_summary *rs)
{
	for (size_t i = 0; i < s->nwarning_list; i++)
		kp_report_warning(s->warning_list[i].path, s->warning_list[i].msg, 0);
	for (size_t i = 0; i < s->nerror_list; i++) {
		kp_error e;
		kp_error_set(&e, KP_ERR_IO, 0, -1, "%s", s->error_list[i].msg);
		kp_report_error(s->error_list[i].path, &e);
	}
	for (size_t i = 0; rs && i < rs->nerror_list; i++) {
		kp_error e;
		kp_error_set(&e, KP_ERR_FORMAT, 0, -1, "not re-signed: %s", rs->error_list[i].msg);
		kp_report_error(rs->error_list[i].path, &e);
	}
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

static const struct option source_options[] = {
	{"dsym", required_argument, NULL, 'd'},
	{"kernelcache", required_argument, NULL, 'k'},
	{"signatures", required_argument, NULL, 'S'},
	/* what lldb passes a dsymForUUID (SymbolLocatorDebugSymbols) */
	{"ignoreNegativeCache", no_argument, NULL, 'n'},
	{"copyExecutable", no_argument, NULL, 'c'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_source_options(const char *cmd, int argc, char **argv, bool lldb_flags,
                       const char *paths[KPC_MAX_DSYM], size_t *npaths,
                       const char *kcs[KPC_MAX_DSYM], size_t *nkcs,
                       const char *sigs[KPC_MAX_DSYM], size_t *nsigs)
{
	int c;
	*npaths = *nkcs = 0;
	if (nsigs)
		*nsigs = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", source_options, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (*npaths == KPC_MAX_DSYM) {
				kp_usage_error("%s: at most %d --dsym", cmd, KPC_MAX_DSYM);
				return KP_EXIT_BAD;
			}
			paths[(*npaths)++] = optarg;
			break;
		case 'k':
			if (*nkcs == KPC_MAX_DSYM) {
				kp_usage_error("%s: at most %d --kernelcache", cmd, KPC_MAX_DSYM);
				return KP_EXIT_BAD;
			}
			kcs[(*nkcs)++] = optarg;
			break;
		case 'S':
			if (!sigs) {
				kp_usage_error("%s: unknown option '%s'", cmd, argv[optind - 1]);
				return KP_EXIT_BAD;
			}
			if (*nsigs == KPC_MAX_DSYM) {
				kp_usage_error("%s: at most %d --signatures", cmd, KPC_MAX_DSYM);
				return KP_EXIT_BAD;
			}
			sigs[(*nsigs)++] = optarg;
			break;
		case 'n':
		case 'c':
			if (lldb_flags)
				break;
			kp_usage_error("%s: unknown option '%s'", cmd, argv[optind - 1]);
			return KP_EXIT_BAD;
		case 'h': return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	return KP_EXIT_OK;
}
