/* cmd_nvram.c: `kpbrowse nvram`: a panic that never became a report file
 * (issue 24 item 5), decoded from `nvram -x aapl,panic-info`, `nvram -p`
 * or a dump of the panic region (kp_nvram.h), read by the same parsers and
 * printed as `show` prints a report; --index saves the decoded text under
 * an "unsaved" folder and indexes it there, so it lists, groups and opens
 * like any report and its path says where it came from. */
#include "kp_fs.h"
#include "kp_index.h"
#include "kp_nvram.h"
#include "kp_report.h"
#include "kp_report_json.h"
#include "kp_report_text.h"
#include "kp_summary.h"
#include "kp_sanitize.h"
#include "kp_sha1.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DSYM_PATHS 64

static const struct option nvram_options[] = {
	{"json", no_argument, NULL, 'j'},
	{"no-symbols", no_argument, NULL, 'n'},
	{"dsym", required_argument, NULL, 's'},
	{"kernelcache", required_argument, NULL, 'k'},
	{"index", no_argument, NULL, 'i'},
	{"db", required_argument, NULL, 'd'},
	{"unsaved-dir", required_argument, NULL, 'u'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* FILE, or "-": stdin, at most KP_REPORT_MAX_SIZE bytes. */
static kp_status read_input(const char *arg, char **buf, size_t *len, kp_error *err)
{
	if (strcmp(arg, "-") != 0)
		return kp_fs_read_file(arg, KP_REPORT_MAX_SIZE, buf, len, NULL, err);
	size_t cap = 65536, n = 0;
	char *b = malloc(cap + 1);
	if (!b)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	for (;;) {
		if (n == cap) {
			if (cap >= KP_REPORT_MAX_SIZE) {
				free(b);
				return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "more than %zu bytes on stdin",
				                    (size_t)KP_REPORT_MAX_SIZE);
			}
			cap *= 2;
			char *nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n, stdin);
		n += got;
		if (got == 0) {
			if (ferror(stdin)) {
				free(b);
				return kp_error_set(err, KP_ERR_IO, 0, -1, "cannot read stdin");
			}
			break;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return KP_OK;
}

/* Where --index keeps decoded panics: --unsaved-dir, else "unsaved" beside
 * an sqlite index. */
static bool unsaved_dir(const char *db_opt, const char *opt, char *buf, size_t size)
{
	if (opt)
		return (size_t)snprintf(buf, size, "%s", opt) < size;
	kp_error err;
	char target[4096];
	if (kpi_default_path(db_opt, target, sizeof target, &err) != KP_OK || kpi_target_is_postgres(target))
		return false;
	char *slash = strrchr(target, '/');
	if (slash)
		*slash = '\0';
	return (size_t)snprintf(buf, size, "%s/unsaved", slash ? target : ".") < size;
}

/* The decoded text saved as DIR/aapl,panic-info-SHA1.panic (the same panic
 * twice is the same file); its path in path. */
static kp_status save_text(const char *dir, const kp_nvram *nv, char *path, size_t size, kp_error *err)
{
	char hex[41];
	kp_sha1_hex(nv->text, nv->len, hex);
	hex[16] = '\0';
	if ((size_t)snprintf(path, size, "%s/aapl,panic-info-%s.panic", dir, hex) >= size)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "--unsaved-dir: path too long");
	kp_status st = kp_fs_mkdirs(dir, 0700, err);
	if (st != KP_OK)
		return st;
	return kp_fs_write_atomic(path, nv->text, nv->len, err);
}

static void print_source(const kp_nvram *nv)
{
	printf("%-*s %s%s\n", KP_SUM_LABEL_WIDTH, "Unsaved panic:", nv->form, nv->packed ? " (7-bit packed, unpacked)" : "");
	if (nv->has_header)
		printf("%-*s version %" PRIu32 ", flags 0x%" PRIx64 ", panic log %zu bytes, stackshot %" PRIu32
		       " bytes at %" PRIu32 ", other log %" PRIu32 " bytes at %" PRIu32 "\n",
		       KP_SUM_LABEL_WIDTH, "Region header:", nv->version, nv->flags, nv->len, nv->stackshot_len, nv->stackshot_offset,
		       nv->other_log_len, nv->other_log_offset);
}

/* A compact line of its own before the report ({"unsaved": {...},\n
 * "report": ), as it has always been: punctuation raw, values the
 * writer's. */
static void json_source(kp_jw *w, const kp_nvram *nv)
{
	KP_JW_LIT(w, "{\"unsaved\": {\"form\": ");
	kp_jw_str(w, nv->form);
	KP_JW_LIT(w, ", \"packed\": ");
	kp_jw_bool(w, nv->packed);
	if (nv->has_header) {
		static const char *const keys[] = {", \"version\": ", ", \"stackshot_offset\": ",
		                                   ", \"stackshot_len\": ", ", \"other_log_offset\": ",
		                                   ", \"other_log_len\": "};
		const uint32_t vals[] = {nv->version, nv->stackshot_offset, nv->stackshot_len,
		                         nv->other_log_offset, nv->other_log_len};
		for (size_t i = 0; i < 5; i++) {
			kp_jw_raw(w, keys[i], strlen(keys[i]));
			kp_jw_int(w, vals[i]);
			if (i == 0) {
				KP_JW_LIT(w, ", \"flags\": ");
				kp_jw_hex(w, nv->flags);
			}
		}
	}
	KP_JW_LIT(w, "},\n \"report\": ");
}

int kpc_cmd_nvram(int argc, char **argv)
{
	const char *db_opt = NULL, *dir_opt = NULL, *dsyms[MAX_DSYM_PATHS], *kcs[MAX_DSYM_PATHS];
	size_t ndsyms = 0, nkcs = 0;
	bool json = false, no_symbols = false, index = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jns:k:id:u:h", nvram_options, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'n': no_symbols = true; break;
		case 'i': index = true; break;
		case 'd': db_opt = optarg; break;
		case 'u': dir_opt = optarg; break;
		case 's':
			if (ndsyms == MAX_DSYM_PATHS) {
				kp_usage_error("nvram: at most %d --dsym paths", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			dsyms[ndsyms++] = optarg;
			break;
		case 'k':
			if (nkcs == MAX_DSYM_PATHS) {
				kp_usage_error("nvram: at most %d --kernelcache paths", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			kcs[nkcs++] = optarg;
			break;
		case 'h': return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (optind != argc - 1) {
		kp_usage_error("nvram: one FILE (or - for stdin)");
		return KP_EXIT_BAD;
	}
	if ((db_opt || dir_opt) && !index) {
		kp_usage_error("nvram: --db and --unsaved-dir go with --index");
		return KP_EXIT_BAD;
	}
	const char *arg = argv[optind];
	char *buf = NULL;
	size_t len = 0;
	kp_error err;
	if (read_input(arg, &buf, &len, &err) != KP_OK) {
		kp_report_error(arg, &err);
		return KP_EXIT_BAD;
	}
	kp_nvram nv;
	kp_status st = kp_nvram_decode(buf, len, &nv, &err);
	free(buf);
	if (st != KP_OK) {
		kp_report_error(arg, &err);
		return KP_EXIT_BAD;
	}
	char shown[4200];
	snprintf(shown, sizeof shown, "%s (%s)", strcmp(arg, "-") == 0 ? "stdin" : arg, nv.form);
	char saved[4200] = "";
	if (index) {
		char dir[4096];
		if (!unsaved_dir(db_opt, dir_opt, dir, sizeof dir)) {
			kp_usage_error("nvram: --index with a PostgreSQL index needs --unsaved-dir DIR");
			kp_nvram_free(&nv);
			return KP_EXIT_BAD;
		}
		if (save_text(dir, &nv, saved, sizeof saved, &err) != KP_OK) {
			kp_report_error(dir, &err);
			kp_nvram_free(&nv);
			return KP_EXIT_BAD;
		}
	}
	kp_report *r = NULL;
	st = kp_report_parse(nv.text, nv.len, saved[0] ? saved : shown, &r, &err);
	if (st != KP_OK) {
		kp_report_error(arg, &err);
		kp_nvram_free(&nv);
		return KP_EXIT_BAD;
	}
	if (nv.warning[0])
		kp_report_warning(arg, nv.warning, 0);
	for (size_t w = 0; w < r->nwarnings; w++)
		kp_report_warning(arg, r->warnings[w].msg, r->warnings[w].line);
	int status = KP_EXIT_OK;
	if (index) {
		char dbpath[4096];
		kpi_db *db = NULL;
		if (kpc_open_index(db_opt, KPI_OPEN_CREATE, &db, dbpath, sizeof dbpath) != KP_EXIT_OK) {
			status = KP_EXIT_BAD;
		} else {
			kpi_summary sum;
			const char *paths[1] = {saved};
			if (kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &sum, &err) != KP_OK) {
				kpc_report_db_error(dbpath, &err);
				status = KP_EXIT_BAD;
			} else {
				fprintf(stderr, "kpbrowse: nvram: indexed as ");
				kp_sanitize_write(stderr, saved, strlen(saved), 0);
				fprintf(stderr, " (%zu new, %zu already indexed)\n", sum.new_reports,
				        sum.unchanged + sum.duplicates);
				if (sum.errors)
					status = KP_EXIT_BAD;
			}
			kpi_summary_free(&sum);
			kpi_close(&db);
		}
	}
	kp_symbols *sym = NULL;
	if (!no_symbols && !json) {
		kp_symbols_opts so = {.paths = dsyms, .npaths = ndsyms, .kernelcaches = kcs,
		                      .nkernelcaches = nkcs, .batch = true};
		if (kp_symbols_new(&so, &sym, &err) != KP_OK)
			sym = NULL;   /* printed without symbols */
		else
			kp_symbols_set_report(sym, r);
	}
	if (json) {
		kp_jw w;
		kp_jw_init(&w, stdout);
		json_source(&w, &nv);
		if (!kp_report_json_write(&w, r, NULL, NULL, 1))
			status = KP_EXIT_BAD;
		kp_jw_raw(&w, "}\n", 2);
		if (!kp_jw_flush(&w))
			status = KP_EXIT_BAD;
		kp_jw_free(&w);
	} else {
		print_source(&nv);
		kp_report_text(stdout, r, sym);
	}
	kp_symbols_free(&sym);
	kp_report_free(&r);
	kp_nvram_free(&nv);
	return status;
}
