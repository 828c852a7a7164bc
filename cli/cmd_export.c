/* cmd_export.c: `kpbrowse export @ID FILE`: the archived original bytes;
 * `export --markdown @ID|gGROUP [FILE|-]`: a bug report in Markdown
 * (kp_report_md.h) of the report, or of a group's newest report with the
 * group's counts and builds. */
#include "kp_fs.h"
#include "kp_index.h"
#include "kp_report_md.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct option export_options[] = {
	{"db", required_argument, NULL, 'd'},
	{"markdown", no_argument, NULL, 'm'},
	{"no-symbols", no_argument, NULL, 'n'},
	{"dsym", required_argument, NULL, 'D'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

/* What the index says of the report's group, gathered from its rows. */
typedef struct group_facts {
	int64_t want_id;        /* the report asked for (0: the group's newest) */
	int64_t want_group;     /* the group asked for (0: the report's) */
	int64_t id, group_id, count;
	char *path;             /* the report's path as the index has it */
	char **builds;          /* distinct OS versions of the group's reports */
	size_t nbuilds, builds_cap;
	char *first, *last;     /* the group's dates (kpi_group_row) */
	bool oom;
} group_facts;

/* First pass: the report (or the group's newest, rows come newest first). */
static int find_report(void *ctx, const kpi_report_row *row)
{
	group_facts *g = ctx;
	if ((g->want_id && row->id == g->want_id) || (!g->want_id && row->group_id == g->want_group)) {
		g->id = row->id;
		g->group_id = row->group_id;
		g->path = row->path ? strdup(row->path) : NULL;
		return 1;
	}
	return 0;
}

/* Second pass: the group's reports' builds. */
static int group_builds(void *ctx, const kpi_report_row *row)
{
	group_facts *g = ctx;
	if (row->group_id != g->group_id)
		return 0;
	g->count++;
	if (!row->os_version)
		return 0;
	for (size_t i = 0; i < g->nbuilds; i++)
		if (strcmp(g->builds[i], row->os_version) == 0)
			return 0;
	if (g->nbuilds == g->builds_cap) {
		size_t cap = g->builds_cap ? 2 * g->builds_cap : 8;
		char **v = realloc(g->builds, cap * sizeof *v);
		if (!v) {
			g->oom = true;
			return 1;
		}
		g->builds = v;
		g->builds_cap = cap;
	}
	if (!(g->builds[g->nbuilds] = strdup(row->os_version))) {
		g->oom = true;
		return 1;
	}
	g->nbuilds++;
	return 0;
}

static int group_dates(void *ctx, const kpi_group_row *row)
{
	group_facts *g = ctx;
	if (row->group_id != g->group_id)
		return 0;
	g->first = row->first_seen ? strdup(row->first_seen) : NULL;
	g->last = row->last_seen ? strdup(row->last_seen) : NULL;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void facts_free(group_facts *g)
{
	for (size_t i = 0; i < g->nbuilds; i++)
		free(g->builds[i]);
	free(g->builds);
	free(g->path);
	free(g->first);
	free(g->last);
}

/* The folder dest would be written in is a report folder: the report's own
 * (the folder a Mac's ReportCrash writes, or a copy a scan reads), or one
 * index reads by default.  A bug report never lands among the reports it
 * would then be indexed with. */
static bool report_folder(const char *dest, const char *report_path)
{
	char d[PATH_MAX], dcopy[PATH_MAX], rp[PATH_MAX], rcopy[PATH_MAX];
	snprintf(dcopy, sizeof dcopy, "%s", dest);
	if (!realpath(dirname(dcopy), d))
		return false;   /* no such folder: creating the file says so */
	if (report_path) {
		snprintf(rcopy, sizeof rcopy, "%s", report_path);
		if (realpath(dirname(rcopy), rp) && strcmp(rp, d) == 0)
			return true;
	}
	const char *folders[2];
	char home[PATH_MAX];
	size_t n = kpc_default_folders(folders, home, sizeof home);
	for (size_t i = 0; i < n; i++) {
		char f[PATH_MAX];
		if (!realpath(folders[i], f))
			continue;
		size_t fl = strlen(f);
		if (strncmp(d, f, fl) == 0 && (d[fl] == '\0' || d[fl] == '/'))
			return true;
	}
	return false;
}

static int export_markdown(const char *db_opt, bool no_symbols, const char **dsyms, size_t ndsyms,
                           const char *target, const char *dest)
{
	group_facts g = {0};
	if ((target[0] == 'g' || target[0] == 'G') && kpi_parse_id(target + 1, &g.want_group) && g.want_group > 0) {
		/* a group: its newest report */
	} else if (!kpi_parse_id(target, &g.want_id)) {
		kp_usage_error("export: '%s' is neither @ID nor gGROUP (list --groups prints group ids)", target);
		return KP_EXIT_BAD;
	}
	char dbpath[4096];
	kpi_db *db = NULL;
	int rc = kpc_open_index(db_opt, 0, &db, dbpath, sizeof dbpath);
	if (rc != KP_EXIT_OK)
		return rc;
	kp_error err;
	kp_status st = kpi_list_reports(db, find_report, &g, &err);
	if (st == KP_OK && !g.id)
		st = kp_error_set(&err, KP_ERR_NOTFOUND, 0, -1, g.want_id ? "no report @%" PRId64 " in the index"
		                                                          : "no group %" PRId64 " in the index",
		                  g.want_id ? g.want_id : g.want_group);
	if (st == KP_OK)
		st = kpi_list_reports(db, group_builds, &g, &err);
	if (st == KP_OK)
		st = kpi_list_group_counts(db, group_dates, &g, &err);
	if (st == KP_OK && g.oom)
		st = kp_error_set(&err, KP_ERR_NOMEM, 0, -1, "out of memory");
	kp_report *r = NULL;
	if (st == KP_OK)
		st = kpi_load(db, g.id, &r, &err);
	kpi_close(&db);
	if (st != KP_OK) {
		kp_report_error(target, &err);
		facts_free(&g);
		return KP_EXIT_BAD;
	}
	qsort(g.builds, g.nbuilds, sizeof *g.builds, cmp_str);
	kp_symbols *sym = NULL;
	if (!no_symbols) {
		kp_symbols_opts so = {.paths = dsyms, .npaths = ndsyms, .batch = true};
		if (kp_symbols_new(&so, &sym, &err) != KP_OK) {
			char msg[300];
			kp_usage_error("export: %s", kp_error_format(&err, msg, sizeof msg));
			kp_report_free(&r);
			facts_free(&g);
			return KP_EXIT_BAD;
		}
		kp_symbols_set_report(sym, r);
		kp_symbols_prefetch_report(sym, r);
	}
	kp_md_context ctx = {.id = g.id, .group_id = g.group_id, .count = g.count, .first_seen = g.first,
	                     .last_seen = g.last, .builds = (const char *const *)g.builds, .nbuilds = g.nbuilds,
	                     .raw_path = g.path};
	int status = KP_EXIT_OK;
	FILE *out = stdout;
	char used[4096] = "";
	if (dest && strcmp(dest, "-") != 0) {
		int fd = -1;
		if (report_folder(dest, g.path ? g.path : r->path)) {
			kp_usage_error("export: %s is in a report folder: write the bug report elsewhere", dest);
			status = KP_EXIT_BAD;
		} else if (kp_fs_create_new(dest, false, used, sizeof used, &fd, &err) != KP_OK) {
			kp_report_error(dest, &err);
			status = KP_EXIT_BAD;
		} else if (!(out = fdopen(fd, "w"))) {
			kp_error_set(&err, KP_ERR_IO, 0, -1, "%s", strerror(errno));
			kp_report_error(dest, &err);
			close(fd);
			unlink(dest);
			status = KP_EXIT_BAD;
		}
	}
	if (status == KP_EXIT_OK) {
		bool ok = kp_report_markdown(out, r, sym, &ctx);
		if (out != stdout) {
			ok = fclose(out) == 0 && ok;
			if (!ok) {
				kp_error_set(&err, KP_ERR_IO, 0, -1, "writing failed: %s", strerror(errno));
				kp_report_error(dest, &err);
				unlink(dest);
			}
		} else {
			ok = fflush(out) == 0 && ok;
		}
		status = ok ? KP_EXIT_OK : KP_EXIT_BAD;
	}
	kp_symbols_free(&sym);
	kp_report_free(&r);
	facts_free(&g);
	return status;
}

int kpc_cmd_export(int argc, char **argv)
{
	const char *db_opt = NULL;
	bool markdown = false, no_symbols = false;
	const char *dsyms[KPC_MAX_DSYM];
	size_t ndsyms = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", export_options, NULL)) != -1) {
		switch (c) {
		case 'd': db_opt = optarg; break;
		case 'm': markdown = true; break;
		case 'n': no_symbols = true; break;
		case 'D':
			if (ndsyms == KPC_MAX_DSYM) {
				kp_usage_error("export: at most %d --dsym paths", KPC_MAX_DSYM);
				return KP_EXIT_BAD;
			}
			dsyms[ndsyms++] = optarg;
			break;
		case 'h':
			return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (markdown) {
		if (argc - optind < 1 || argc - optind > 2)
			return KPC_USAGE;
		return export_markdown(db_opt, no_symbols, dsyms, ndsyms, argv[optind],
		                       argc - optind == 2 ? argv[optind + 1] : NULL);
	}
	if (no_symbols || ndsyms) {
		kp_usage_error("export: --no-symbols and --dsym go with --markdown (the original bytes are not symbolicated)");
		return KP_EXIT_BAD;
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
