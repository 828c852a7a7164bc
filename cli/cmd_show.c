/* cmd_show.c: `kpbrowse show`: a summary of each report, or JSON. */
#include "kp_disasm.h"
#include "kp_index.h"
#include "kp_report_json.h"
#include "kp_report.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"
#include "kp_proc.h"
#include "kp_report_text.h"
#include "kp_sanitize.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DSYM_PATHS 64

typedef struct show_opts {
	bool json, no_symbols;
	const char *db_path;
	kpi_db *db;        /* opened on the first @ID */
	const char *dsyms[MAX_DSYM_PATHS];
	size_t ndsyms;
	const char *kcs[MAX_DSYM_PATHS];   /* --kernelcache */
	size_t nkcs;
	const char *sigs[MAX_DSYM_PATHS];   /* --signatures DIR */
	size_t nsigs;
	kp_symbols *sym;   /* NULL with --no-symbols */
	size_t disasm;     /* --disasm N: instructions around each frame */
	const char *loads[MAX_DSYM_PATHS];   /* --load BUNDLE_ID=0xADDR */
	size_t nloads;
	const char *decoders[MAX_DSYM_PATHS];   /* --panic-data-decoder UUID=COMMAND */
	bool decoder_hung[MAX_DSYM_PATHS];      /* stopped once: not run again */
	size_t ndecoders;
} show_opts;

#define DECODER_TIMEOUT_MS 5000
#define DECODER_MAX_OUT (256u << 10)

/* Whether a report's DataID may be a decoder's argument: a letter or digit,
 * then letters, digits and "._+:", at most 63 bytes.  Never a leading '-'
 * (an option: "-o/path" made sort write where the report chose), a '/', a
 * space or a control.  Ending options with "--" instead would move the
 * argument decoders already read. */
static bool plain_data_id(const char *id)
{
	static const char ok[] = "._+:0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t n = strlen(id);
	return n && n <= 63 && strchr(ok + 4, id[0]) && strspn(id, ok) == n;   /* ok + 4: alnum */
}

/* --panic-data-decoder UUID=COMMAND: the entries of that owner through
 * COMMAND, run without a shell (its words split at spaces, the entry's
 * DataID, or "-", appended as the last argument), the bytes on its stdin,
 * what it prints shown (sanitised), stopped after 5 s, and then not run
 * again in this process (a hung decoder costs its 5 s once, not per entry).
 * A DataID that is not plain_data_id is not passed: the decoder is not run
 * for that entry, which is dumped as usual with the reason. */
static char *run_decoder(void *ctx, const kp_extlog *x, char *why, size_t wsize)
{
	show_opts *o = ctx;
	for (size_t i = 0; i < o->ndecoders; i++) {
		const char *spec = o->decoders[i], *eq = strchr(spec, '=');
		char want[37];
		if (!eq || !kp_uuid_canon(spec, (size_t)(eq - spec), want) || strcmp(want, x->owner_uuid) != 0)
			continue;
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "%s", eq + 1);
		if (x->data_id && !plain_data_id(x->data_id)) {
			snprintf(why, wsize, "its DataID is not a plain number or word: not passed, the decoder not run");
			return NULL;
		}
		if (o->decoder_hung[i]) {
			snprintf(why, wsize, "%.900s: not run again: it gave no answer before", cmd);
			return NULL;
		}
		char *argv[34];
		size_t argc = 0;
		for (char *save = NULL, *w = strtok_r(cmd, " ", &save); w && argc < 32; w = strtok_r(NULL, " ", &save))
			argv[argc++] = w;
		char id[64];
		snprintf(id, sizeof id, "%s", x->data_id ? x->data_id : "-");
		argv[argc++] = id;
		argv[argc] = NULL;
		char *out = NULL;
		size_t n = 0;
		int status = 0;
		kp_error err;
		if (kp_proc_run(argv, x->data, x->len, DECODER_MAX_OUT, DECODER_TIMEOUT_MS, &out, &n, &status,
		                &err) != KP_OK) {
			o->decoder_hung[i] = err.code == KP_ERR_LIMIT;
			snprintf(why, wsize, "%s", err.msg);
			return NULL;
		}
		if (status != 0) {
			snprintf(why, wsize, "%s exited %d", argv[0], status);
			free(out);
			return NULL;
		}
		return out;
	}
	return NULL;
}

static void put_str_or_null(kp_jw *w, const char *key, const char *s)
{
	kp_jw_key(w, key);
	kp_jw_str(w, s);
}

/* --disasm: the instructions around frame i as a "disasm" array (null and
 * "disasm_error" when there are none); frames without symbols get nulls. */
static void json_disasm(show_opts *o, const kp_report *r, const kp_thread *t, size_t i,
                        bool symbolicated, kp_jw *w)
{
	kp_disasm d;
	kp_error err;
	if (!symbolicated || kp_disasm_frame(o->sym, r, t, i, o->disasm, &d, &err) != KP_OK) {
		kp_jw_key(w, "disasm");
		kp_jw_null(w);
		put_str_or_null(w, "disasm_error", symbolicated ? err.msg : NULL);
		return;
	}
	kp_jw_key(w, "disasm");
	kp_jw_arr(w);
	for (size_t k = 0; k < d.n; k++) {
		const kp_disasm_insn *in = &d.insns[k];
		char hex[2 * sizeof in->bytes + 1] = "";
		for (unsigned b = 0; b < in->nbytes; b++)
			snprintf(hex + 2 * b, sizeof hex - 2 * b, "%02x", in->bytes[b]);
		kp_jw_obj(w);
		kp_jw_key(w, "address");
		kp_jw_hex(w, in->address);
		put_str_or_null(w, "bytes", hex);
		put_str_or_null(w, "mnemonic", in->mnemonic);
		put_str_or_null(w, "operands", in->operands);
		kp_jw_key(w, "target");
		if (in->has_target) {
			kp_jw_obj(w);
			kp_jw_key(w, "address");
			kp_jw_hex(w, in->target);
			put_str_or_null(w, "symbol", in->target_name[0] ? in->target_name : NULL);
			kp_jw_end(w);
		} else {
			kp_jw_null(w);
		}
		kp_jw_key(w, "marked");
		kp_jw_bool(w, in->marked);
		kp_jw_end(w);
	}
	kp_jw_end(w);
	kp_jw_key(w, "disasm_error");
	kp_jw_null(w);
	kp_disasm_free(&d);
}

/* A number, or null for 0 (a line or column DWARF does not give). */
static void put_count(kp_jw *w, const char *key, uint64_t v)
{
	kp_jw_key(w, key);
	if (v)
		kp_jw_int(w, (int64_t)v);
	else
		kp_jw_null(w);
}

static void json_frame(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                       size_t i, kp_jw *w)
{
	show_opts *o = ctx;
	(void)p;
	kp_symresult res;
	bool found = o->sym && kp_symbols_frame(o->sym, r, t, i, &res) == KP_SYM_OK;
	const char *source = found ? res.source : NULL;
	kp_jw_key(w, "lookup_address");
	if (o->sym && res.has_lookup)
		kp_jw_hex(w, res.lookup_address);
	else
		kp_jw_null(w);
	kp_jw_key(w, "symbols");
	kp_jw_arr(w);
	for (size_t k = 0; found && k < res.nframes; k++) {
		const kp_symframe *f = &res.frames[k];
		kp_jw_obj(w);
		put_str_or_null(w, "function", f->function);
		put_str_or_null(w, "file", f->file);
		put_count(w, "line", f->line);
		put_count(w, "column", f->column);
		kp_jw_end(w);
	}
	kp_jw_end(w);
	put_str_or_null(w, "symbol_source", source);
	if (o->disasm)
		json_disasm(o, r, t, i, source != NULL, w);
}

/* FILE, or @ID from the index (the archived original, so it works after the
 * file is gone). */
static kp_status load(show_opts *o, const char *arg, kp_report **r, kp_error *err)
{
	int64_t id;
	if (arg[0] != '@')
		return kp_report_load(arg, r, err);
	if (!kpi_parse_id(arg, &id))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kpc_bad_id_reason(arg));
	if (!o->db) {
		char path[4096];
		kp_status st = kpi_default_path(o->db_path, path, sizeof path, err);
		if (st == KP_OK)
			st = kpi_open(path, KPI_OPEN_READONLY, &o->db, err);
		if (st != KP_OK)
			return st;
	}
	return kpi_load(o->db, id, r, err);
}

/* --load: each kext placed, with the UUID of its dSYM when one is found
 * (a warning names the kexts without one, unless --no-symbols). */
static kp_status apply_loads(show_opts *o, const char *file, kp_report *r)
{
	for (size_t i = 0; i < o->nloads; i++) {
		kp_error err;
		bool found;
		if (kp_symbols_apply_load(o->sym, r, o->loads[i], &found, &err) != KP_OK) {
			kp_report_error(file, &err);
			return err.code;
		}
		if (o->sym && !found) {
			char msg[320];
			snprintf(msg, sizeof msg, "--load %s: no dSYM found for that bundle id", o->loads[i]);
			kp_report_warning(file, msg, 0);
		}
	}
	return KP_OK;
}

static const struct option show_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"no-symbols", no_argument, NULL, 'n'},
	{"dsym", required_argument, NULL, 'd'},
	{"kernelcache", required_argument, NULL, 'k'},
	{"signatures", required_argument, NULL, 'S'},
	{"json", no_argument, NULL, 'j'},
	{"disasm", required_argument, NULL, 'A'},
	{"load", required_argument, NULL, 'L'},
	{"panic-data-decoder", required_argument, NULL, 'P'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_show(int argc, char **argv)
{
	show_opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jhnd:k:D:A:L:P:S:", show_options, NULL)) != -1) {
		switch (c) {
		case 'D': o.db_path = optarg; break;
		case 'j': o.json = true; break;
		case 'n': o.no_symbols = true; break;
		case 'd':
			if (o.ndsyms == MAX_DSYM_PATHS) {
				kp_usage_error("show: at most %d --dsym paths", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			o.dsyms[o.ndsyms++] = optarg;
			break;
		case 'k':
			if (o.nkcs == MAX_DSYM_PATHS) {
				kp_usage_error("show: at most %d --kernelcache paths", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			o.kcs[o.nkcs++] = optarg;
			break;
		case 'S':
			if (o.nsigs == MAX_DSYM_PATHS) {
				kp_usage_error("show: at most %d --signatures folders", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			o.sigs[o.nsigs++] = optarg;
			break;
		case 'A': {
			uint64_t n;
			if (!kp_parse_u64(optarg, strlen(optarg), &n) || n == 0 || n > KP_DISASM_MAX) {
				kp_usage_error("show: --disasm wants a count of instructions, 1 to %d", KP_DISASM_MAX);
				return KP_EXIT_BAD;
			}
			o.disasm = (size_t)n;
			break;
		}
		case 'L': {
			char b[256];
			uint64_t a;
			if (!kp_symbols_parse_load(optarg, b, sizeof b, &a)) {
				kp_usage_error("show: --load %s: not BUNDLE_ID=0xADDR (as kextstat prints them)", optarg);
				return KP_EXIT_BAD;
			}
			if (o.nloads == MAX_DSYM_PATHS) {
				kp_usage_error("show: at most %d --load kexts", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			o.loads[o.nloads++] = optarg;
			break;
		}
		case 'P': {
			const char *eq = strchr(optarg, '=');
			char u[37];
			if (!eq || !eq[1] || !kp_uuid_canon(optarg, (size_t)(eq - optarg), u)) {
				kp_usage_error("show: --panic-data-decoder %s: not UUID=COMMAND", optarg);
				return KP_EXIT_BAD;
			}
			if (o.ndecoders == MAX_DSYM_PATHS) {
				kp_usage_error("show: at most %d --panic-data-decoder", MAX_DSYM_PATHS);
				return KP_EXIT_BAD;
			}
			o.decoders[o.ndecoders++] = optarg;
			break;
		}
		case 'h':
			return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (o.ndecoders)
		kp_report_text_set_decoder(run_decoder, &o);
	if (optind >= argc) {
		kp_usage_error("show: no report given");
		return KP_EXIT_BAD;
	}
	if (o.disasm && o.no_symbols) {
		kp_usage_error("show: --disasm needs symbols (it cannot go with --no-symbols)");
		return KP_EXIT_BAD;
	}
	if (o.disasm && !kp_disasm_available()) {
		kp_usage_error("show: --disasm: %s", kp_disasm_missing());
		return KP_EXIT_BAD;
	}
	if (!o.no_symbols) {
		kp_symbols_opts so = {.paths = o.dsyms, .npaths = o.ndsyms, .kernelcaches = o.kcs,
		                      .nkernelcaches = o.nkcs, .batch = true, .signatures = o.sigs,
		                      .nsignatures = o.nsigs};
		kp_error err;
		if (kp_symbols_new(&so, &o.sym, &err) != KP_OK) {
			char msg[300];
			kp_usage_error("show: %s", kp_error_format(&err, msg, sizeof msg));
			return KP_EXIT_BAD;
		}
	}
	int status = KP_EXIT_OK;
	int nfiles = argc - optind;
	/* Several files: one JSON array, each report streamed as it is read. */
	bool arr = o.json && nfiles > 1;
	int nprinted = 0;
	kp_jw out = {0};
	if (o.json)
		kp_jw_init(&out, stdout);
	if (arr)
		kp_jw_raw(&out, "[", 1);
	for (int i = optind; i < argc; i++) {
		kp_report *r = NULL;
		kp_error err;
		if (load(&o, argv[i], &r, &err) != KP_OK) {
			kp_report_error(argv[i], &err);
			status = KP_EXIT_BAD;
			continue;
		}
		if (o.sym) {
			kp_symbols_set_report(o.sym, r);
			kp_symbols_check_named(o.sym, r, true);
		}
		if (apply_loads(&o, argv[i], r) != KP_OK) {
			kp_report_free(&r);
			status = KP_EXIT_BAD;
			continue;
		}
		for (size_t w = 0; w < r->nwarnings; w++)
			kp_report_warning(argv[i], r->warnings[w].msg, r->warnings[w].line);
		/* symbol servers: the files of every frame's image at once */
		if (o.sym)
			kp_symbols_prefetch_report(o.sym, r);
		if (o.json) {
			if (arr && nprinted)
				kp_jw_raw(&out, ", ", 2);
			bool ok = kp_report_json_write(&out, r, json_frame, &o, arr ? 1 : 0);
			ok = kp_jw_flush(&out) && ok;   /* each report out as it is done */
			if (!ok && ferror(stdout)) { /* main reports the failed write, once */
				kp_report_free(&r);
				break;
			}
			if (!ok) {
				kp_error werr;
				kp_error_set(&werr, KP_ERR_IO, 0, -1, "cannot write the JSON output");
				kp_report_error(argv[i], &werr);
				status = KP_EXIT_BAD;
			}
			if (!arr)
				kp_jw_raw(&out, "\n", 1);
			nprinted++;
		} else {
			kp_report_text_disasm(stdout, r, o.sym, o.disasm);
		}
		kp_report_free(&r);
		if (ferror(stdout))
			break; /* main reports the failed write */
	}
	if (arr)
		kp_jw_raw(&out, "]\n", 2);
	if (o.json) {
		kp_jw_flush(&out);   /* a failed write is main's to report, once */
		kp_jw_free(&out);
	}
	const char *wfile, *w;
	for (size_t i = 0; (w = kp_symbols_warning_at(o.sym, i, &wfile)) != NULL; i++)
		kp_report_warning(wfile, w, 0);
	kp_symbols_free(&o.sym);
	kpi_close(&o.db);
	return status;
}
