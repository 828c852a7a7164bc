/* cmd_index.c: `kpbrowse index`: scan report folders into the index. */
#include "kp_index.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kp_sanitize.h"

#include <getopt.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct progress {
	bool tty;
	struct timespec last;
	bool shown;
} progress;

static void on_progress(void *ctx, const kpi_progress *p)
{
	progress *pr = ctx;
	if (!pr->tty)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (now.tv_sec - pr->last.tv_sec) * 1000 + (now.tv_nsec - pr->last.tv_nsec) / 1000000;
	if (pr->shown && ms < 100)
		return;
	pr->last = now;
	pr->shown = true;
	char line[160];
	int n = snprintf(line, sizeof line, "\r\033[Kindexing: %zu files, %zu new  ", p->files_seen,
	                 p->new_reports);
	fwrite(line, 1, (size_t)n, stderr);
	/* the tail of the path, sanitised, so the line stays one row */
	size_t len = strlen(p->path);
	const char *tail = len > 50 ? p->path + len - 50 : p->path;
	kp_sanitize_write(stderr, tail, strlen(tail), 0);
	fflush(stderr);
}

/* This Mac's kernelcache, kept for its panics (kp_kernelcache_keep): when
 * a report just indexed has the running kernelcache's kernel UUID.  Only
 * after new reports (opening a kernelcache can mean decompressing it).
 * Quiet when there is none; a failure is a warning. */
static void keep_kernelcache(kpi_db *db, char *kept, size_t size)
{
	char kc[4096], uuid[37];
	kp_error err;
	kept[0] = '\0';
	if (kp_kernelcache_running(kc, sizeof kc, uuid, &err) != KP_OK)
		return;
	size_t n = 0;
	if (kpi_search_uuid(db, uuid, NULL, NULL, &n, &err) != KP_OK || n == 0)
		return;
	bool made = false;
	if (kp_kernelcache_keep(NULL, kc, uuid, &made, kept, size, &err) != KP_OK) {
		kp_report_warning(kc, err.msg, 0);
		kept[0] = '\0';
	} else if (!made) {
		kept[0] = '\0';   /* kept before */
	}
}

static void print_summary(const char *db, const kpi_summary *s, const kpi_resign_summary *rs,
                          bool verbose, const char *kept)
{
	fputs("Index ", stdout);
	kp_sanitize_write(stdout, db, strlen(db), 0);
	printf(": %zu files: %zu new, %zu unchanged, %zu duplicates, %zu skipped, %zu errors",
	       s->files, s->new_reports, s->unchanged, s->duplicates, s->skipped, s->errors);
	if (s->superseded)
		printf(", %zu completed (a cut record replaced)", s->superseded);
	if (s->changing)
		printf(", %zu being written (read again next time)", s->changing);
	putchar('\n');
	if (kept[0]) {
		fputs("Kept this Mac's kernelcache for its panics: ", stdout);
		kp_sanitize_write(stdout, kept, strlen(kept), 0);
		putchar('\n');
	}
	for (size_t i = 0; verbose && i < s->nskip_list; i++) {
		fputs("  skipped: ", stdout);
		kp_sanitize_write(stdout, s->skip_list[i].path, strlen(s->skip_list[i].path), 0);
		fputs(": ", stdout);
		kp_sanitize_write(stdout, s->skip_list[i].msg, strlen(s->skip_list[i].msg), 0);
		putchar('\n');
	}
	if (!rs)
		return;
	if (rs->resigned == rs->reports)
		printf("Re-signed every report (%zu): %zu changed group\n", rs->resigned, rs->changed);
	else
		printf("Re-signed %zu of %zu reports: %zu changed group, %zu skipped\n", rs->resigned,
		       rs->reports, rs->changed, rs->nerror_list);
}

/* name: [{path_key, msg_key}, ...], one object per entry of list. */
static void add_list(kp_jw *w, const char *name, const kpi_scan_error *list, size_t n,
                     const char *path_key, const char *msg_key)
{
	kp_jw_key(w, name);
	kp_jw_arr(w);
	for (size_t i = 0; i < n; i++) {
		kp_jw_obj(w);
		kp_jw_key(w, path_key);
		kp_jw_str(w, list[i].path);
		kp_jw_key(w, msg_key);
		kp_jw_str(w, list[i].msg);
		kp_jw_end(w);
	}
	kp_jw_end(w);
}

static void add_count(kp_jw *w, const char *key, size_t n)
{
	kp_jw_key(w, key);
	kp_jw_int(w, (int64_t)n);
}

static void print_json(const char *db, const kpi_summary *s, const kpi_resign_summary *rs,
                       bool verbose, const char *kept)
{
	kp_jw w;
	kpc_json_open(&w);
	kp_jw_obj(&w);
	kp_jw_key(&w, "db");
	kp_jw_str(&w, db);
	add_count(&w, "files", s->files);
	add_count(&w, "new", s->new_reports);
	add_count(&w, "unchanged", s->unchanged);
	add_count(&w, "duplicates", s->duplicates);
	add_count(&w, "skipped", s->skipped);
	add_count(&w, "superseded", s->superseded);
	add_count(&w, "changing", s->changing);
	add_list(&w, "errors", s->error_list, s->nerror_list, "path", "message");
	if (kept[0]) {
		kp_jw_key(&w, "kept_kernelcache");
		kp_jw_str(&w, kept);
	}
	add_list(&w, "warnings", s->warning_list, s->nwarning_list, "path", "message");
	if (verbose)
		add_list(&w, "skipped_files", s->skip_list, s->nskip_list, "path", "why");
	if (rs) {
		add_count(&w, "resign_changed", rs->changed);
		add_count(&w, "resigned", rs->resigned);
		add_count(&w, "reports", rs->reports);
		add_list(&w, "resign_skipped", rs->error_list, rs->nerror_list, "report", "message");
	}
	kp_jw_end(&w);
	kpc_json_close(&w);
}

static const struct option index_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"host", required_argument, NULL, 'H'},
	{"resign", no_argument, NULL, 'r'},
	{"dsym", required_argument, NULL, 'y'},
	{"kernelcache", required_argument, NULL, 'k'},
	{"no-symbols", no_argument, NULL, 'n'},
	{"json", no_argument, NULL, 'j'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

#define MAX_DSYMS 64

/* A PATH the user named must be a file or a folder: one that does not
 * exist, or is a FIFO, device or socket, is a usage error (a cron or
 * launchd job with a typo fails loudly; nothing blocks on a FIFO). */
static bool paths_ok(char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		const char *why = NULL;
		if (stat(paths[i], &st) != 0)
			why = errno == ENOENT ? "no such file or folder" : strerror(errno);
		else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			why = S_ISFIFO(st.st_mode) ? "a FIFO, not a file or folder"
			      : S_ISSOCK(st.st_mode) ? "a socket, not a file or folder"
			                             : "a device, not a file or folder";
		if (why) {
			char shown[600];
			kp_sanitize(shown, sizeof shown, paths[i], strlen(paths[i]), 0);
			kp_usage_error("index: %s: %s", shown, why);
			return false;
		}
	}
	return true;
}

int kpc_cmd_index(int argc, char **argv)
{
	const char *db_opt = NULL, *host_opt = NULL;
	bool resign = false, json = false, no_symbols = false, verbose = false;
	const char *dsyms[MAX_DSYMS], *kcs[MAX_DSYMS];
	size_t ndsyms = 0, nkcs = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:rjhnvy:k:", index_options, NULL)) != -1) {
		switch (c) {
		case 'v': verbose = true; break;
		case 'n': no_symbols = true; break;
		case 'y':
			if (ndsyms == MAX_DSYMS) {
				kp_usage_error("index: at most %d --dsym paths", MAX_DSYMS);
				return KP_EXIT_BAD;
			}
			dsyms[ndsyms++] = optarg;
			break;
		case 'k':
			if (nkcs == MAX_DSYMS) {
				kp_usage_error("index: at most %d --kernelcache paths", MAX_DSYMS);
				return KP_EXIT_BAD;
			}
			kcs[nkcs++] = optarg;
			break;
		case 'd': db_opt = optarg; break;
		case 'H': host_opt = optarg; break;
		case 'r': resign = true; break;
		case 'j': json = true; break;
		case 'h':
			return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (!paths_ok(argv + optind, (size_t)(argc - optind)))
		return KP_EXIT_BAD;
	/* symbols name the frames of the group keys (image!function) */
	kp_symbols *sym = NULL;
	if (!no_symbols) {
		kp_symbols_opts so = {.paths = dsyms, .npaths = ndsyms, .kernelcaches = kcs,
		                      .nkernelcaches = nkcs, .batch = true};
		kp_error serr;
		if (kp_symbols_new(&so, &sym, &serr) != KP_OK) {
			char msg[300];
			kp_usage_error("index: %s", kp_error_format(&serr, msg, sizeof msg));
			return KP_EXIT_BAD;
		}
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	int rc = kpc_open_index(db_opt, KPI_OPEN_CREATE, &db, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK) {
		kp_symbols_free(&sym);
		return rc;
	}

	char home_reports[4096];
	const char *defaults[2];
	size_t ndefaults = kpc_default_folders(defaults, home_reports, sizeof home_reports);
	const char *const *paths = (const char *const *)argv + optind;
	size_t npaths = (size_t)(argc - optind);
	if (npaths == 0 && !resign) {
		paths = defaults;
		npaths = ndefaults;
	}
	/* the reports' Mac: as the user says, or this Mac for its own folders;
	 * otherwise unknown (issue 31 item 4) */
	if (host_opt)
		kpi_set_report_host(db, host_opt);
	else if (argc == optind)
		kpi_set_report_host_own(db);

	kp_error err;
	kpi_summary sum = {0};
	progress pr = {.tty = isatty(STDERR_FILENO) == 1};
	kp_status st = KP_OK;
	if (npaths)
		st = kpi_scan(db, paths, npaths, sym ? kp_symbols_sig_name : NULL, sym, on_progress, &pr,
		              &sum, &err);
	if (pr.shown)
		fputs("\r\033[K", stderr);
	kpi_resign_summary rs = {0};
	bool resigned = false;
	if (st == KP_OK && resign) {
		st = kpi_resign(db, sym ? kp_symbols_sig_name : NULL, sym, &rs, &err);
		resigned = true;
	}
	if (st != KP_OK) /* once; the summary below counts what was stored */
		kpc_report_db_error(dbpath, &err);
	char kept[4300] = "";
	if (st == KP_OK && sum.new_reports)
		keep_kernelcache(db, kept, sizeof kept);
	kpc_print_scan_errors(&sum, resigned ? &rs : NULL);
	const char *wfile, *wmsg;   /* the symbol sources' (a --dsym left out) */
	for (size_t i = 0; sym && (wmsg = kp_symbols_warning_at(sym, i, &wfile)) != NULL; i++)
		kp_report_warning(wfile, wmsg, 0);
	if (json)
		print_json(dbpath, &sum, resigned ? &rs : NULL, verbose, kept);
	else
		print_summary(dbpath, &sum, resigned ? &rs : NULL, verbose, kept);
	bool errors = sum.errors > 0 || rs.nerror_list > 0;
	kpi_summary_free(&sum);
	kpi_resign_summary_free(&rs);
	kpi_close(&db);
	kp_symbols_free(&sym);
	return st != KP_OK || errors ? KP_EXIT_BAD : KP_EXIT_OK;
}
