/* cmd_show.c: `kpbrowse show`: a summary of each report, or JSON. */
#include "kp_index.h"
#include "kp_report_json.h"
#include "kp_report.h"
#include "kp_symbols.h"
#include "kp_waitchain.h"
#include "kpc_cmd.h"
#include "kpt_sanitize.h"

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
	kp_symbols *sym;   /* NULL with --no-symbols */
} show_opts;

static void field(const char *label, const char *value)
{
	printf("%-18s ", label);
	if (value)
		kpt_sanitize_write(stdout, value, strlen(value), 0);
	else
		fputs("-", stdout);
	putchar('\n');
}

static const char *image_label(const kp_report *r, int idx, char *buf, size_t size)
{
	if (idx < 0 || (size_t)idx >= r->nimages)
		return "?";
	const kp_image *im = &r->images[idx];
	if (im->name)
		return im->name;
	if (im->uuid) {
		snprintf(buf, size, "%c:%s", im->kind, im->uuid);
		return buf;
	}
	snprintf(buf, size, "image#%d", idx);
	return buf;
}

static void put_sym(const kp_symframe *f)
{
	const char *fn = f->function ? f->function : "??";
	kpt_sanitize_write(stdout, fn, strlen(fn), 0);
	if (f->file) {
		fputs(" (", stdout);
		kpt_sanitize_write(stdout, f->file, strlen(f->file), 0);
		printf(":%u)", f->line);
	}
}

/* function (file:line) of the innermost frame, then the functions it was
 * inlined into, indented. */
static void print_symbols(show_opts *o, const kp_report *r, const kp_thread *t, size_t i)
{
	kp_symresult res;
	if (!o->sym)
		return;
	switch (kp_symbols_frame(o->sym, r, t, i, &res)) {
	case KP_SYM_OK:
		fputs("  ", stdout);
		put_sym(&res.frames[0]);
		if (res.source && strcmp(res.source, "symtab") == 0)
			printf(" %s", res.msg);
		for (size_t k = 1; k < res.nframes; k++) {
			fputs("\n         inlined into ", stdout);
			put_sym(&res.frames[k]);
		}
		break;
	case KP_SYM_NO_DSYM:
		printf("  (no dSYM for %s)", res.uuid);
		break;
	case KP_SYM_NOT_FOUND:
	case KP_SYM_ERROR:
		fputs("  (", stdout);
		kpt_sanitize_write(stdout, res.msg, strlen(res.msg), 0);
		fputs(")", stdout);
		break;
	default:
		break;
	}
}

static void print_frames(show_opts *o, const kp_report *r, const kp_thread *t)
{
	char buf[64];
	for (size_t i = 0; i < t->nframes; i++) {
		const kp_frame *f = &t->frames[i];
		printf("  %3zu  ", i);
		if (f->has_address)
			printf("0x%016" PRIx64 "  ", f->address);
		else
			printf("%-18s  ", "");
		if (f->image >= 0) {
			const char *l = image_label(r, f->image, buf, sizeof buf);
			kpt_sanitize_write(stdout, l, strlen(l), 0);
			if (f->has_offset)
				printf(" + 0x%" PRIx64, f->offset);
		} else {
			fputs("?", stdout);
		}
		if (f->symbol) {
			fputs("  [", stdout);
			kpt_sanitize_write(stdout, f->symbol, strlen(f->symbol), 0);
			fputs("]", stdout);
		}
		if (f->user)
			fputs("  (user)", stdout);
		print_symbols(o, r, t, i);
		putchar('\n');
	}
}

static void put_safe(const char *s)
{
	kpt_sanitize_write(stdout, s, strlen(s), 0);
}

/* Kind, blame, reason, frontmost processes, notes and the wait chains: what
 * a watchdog or stackshot says before any frame. */
static void print_hang(const kp_report *r)
{
	if (r->zone.name) {
		printf("%-18s zone ", "Leak suspect:");
		put_safe(r->zone.name);
		if (r->zone.has_elements)
			printf(", %" PRIu64 " elements", r->zone.elements);
		if (r->zone.has_bytes)
			printf(", %" PRIu64 " bytes", r->zone.bytes);
		putchar('\n');
	}
	const char *flags[16];
	size_t nf = kp_report_panic_flag_names(r, flags, 16);
	if (nf) {
		printf("%-18s", "Panic flags:");
		for (size_t i = 0; i < nf && i < 16; i++)
			printf(" %s", flags[i]);
		putchar('\n');
	}
	if (r->kind != KP_KIND_PANIC || r->reason)
		field("Reason:", r->reason);
	if (r->kind != KP_KIND_PANIC) {
		printf("%-18s ", "Blamed:");
		if (r->has_blamed_pid)
			printf("pid %" PRId64 " ", r->blamed_pid);
		if (r->blamed_process)
			put_safe(r->blamed_process);
		if (!r->has_blamed_pid && !r->blamed_process)
			fputs("nobody", stdout);
		putchar('\n');
	}
	if (r->nfrontmost) {
		printf("%-18s", "Frontmost:");
		for (size_t i = 0; i < r->nfrontmost; i++) {
			printf(" %" PRId64, r->frontmost_pids[i]);
			for (size_t k = 0; k < r->nprocesses; k++)
				if (r->processes[k].has_pid && r->processes[k].pid == r->frontmost_pids[i] &&
				    r->processes[k].name) {
					fputs(" (", stdout);
					put_safe(r->processes[k].name);
					fputs(")", stdout);
				}
		}
		putchar('\n');
	}
	for (size_t i = 0; r->kind != KP_KIND_PANIC && i < r->notes.n; i++) {
		printf("%-18s ", i ? "" : "Notes:");
		put_safe(r->notes.v[i]);
		putchar('\n');
	}
	if (!r->nchains)
		return;
	printf("Wait chains (%zu):\n", r->nchains);
	kp_sb sb = {0};
	for (size_t i = 0; i < r->nchains; i++) {
		kp_sb_reset(&sb);
		const kp_chain *c = &r->chains[i];
		const kp_thread *t = &r->processes[c->links[0].proc].threads[c->links[0].thread];
		if (!kp_waitchain_format(r, c, &sb))
			break;
		fputs("  ", stdout);
		put_safe(sb.s);
		if (c->nsame)
			printf(", and %zu more thread%s waiting the same way", c->nsame, c->nsame > 1 ? "s" : "");
		putchar('\n');
		if (t->waits_on) {
			fputs("      waits on: ", stdout);
			put_safe(t->waits_on);
			putchar('\n');
		}
	}
	kp_sb_free(&sb);
}

static void print_text(show_opts *o, const kp_report *r)
{
	char buf[128];
	field("File:", r->path);
	snprintf(buf, sizeof buf, "%s", kp_format_name(r->format));
	if (r->has_bug_type)
		snprintf(buf, sizeof buf, "%s (bug_type %d)", kp_format_name(r->format), r->bug_type);
	field("Format:", buf);
	field("Kind:", kp_kind_name(r->kind));
	field("Date:", r->timestamp);
	field("OS version:", r->os_version);
	field("Product:", r->product);
	field("Kernel version:", r->kernel_version);
	field("Kernel UUID:", r->kernel_uuid);
	field("Architecture:", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	field("Headline:", r->headline);

	printf("%-18s ", "Panicked task:");
	if (r->has_panicked_pid)
		printf("pid %" PRId64 " ", r->panicked_pid);
	if (r->panicked_process)
		kpt_sanitize_write(stdout, r->panicked_process, strlen(r->panicked_process), 0);
	if (!r->has_panicked_pid && !r->panicked_process)
		fputs("-", stdout);
	putchar('\n');
	const kp_process *pp;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	printf("%-18s ", "Panicked thread:");
	if (r->has_panicked_thread_id)
		printf("tid %" PRIu64 "\n", r->panicked_thread_id);
	else if (pt && pt->cpu >= 0)
		printf("CPU %d\n", pt->cpu);
	else
		puts("-");

	size_t nthreads = 0, nbt = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads += r->processes[i].nthreads;
	printf("%-18s %zu processes, %zu threads, %zu images\n", "Counts:", r->nprocesses, nthreads,
	       r->nimages);

	for (size_t i = 0; i < r->nimages; i++)
		nbt += r->images[i].in_backtrace;
	printf("Kexts in backtrace: %s\n", nbt ? "" : "none");
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace)
			continue;
		fputs("  ", stdout);
		const char *n = im->name ? im->name : "?";
		kpt_sanitize_write(stdout, n, strlen(n), 0);
		if (im->version) {
			fputs(" (", stdout);
			kpt_sanitize_write(stdout, im->version, strlen(im->version), 0);
			fputs(")", stdout);
		}
		printf(" %s", im->uuid ? im->uuid : "(no UUID)");
		if (im->has_start)
			printf(" 0x%" PRIx64, im->start);
		if (im->has_end)
			printf("->0x%" PRIx64, im->end);
		putchar('\n');
	}

	print_hang(r);
	if (pt) {
		printf("Panicked thread frames (%zu):\n", pt->nframes);
		print_frames(o, r, pt);
	} else if (r->kind != KP_KIND_PANIC && (pt = kp_report_blamed_thread(r, &pp)) != NULL) {
		kp_sb sb = {0};
		kp_waitchain_thread(r, (kp_thread_ref){(int)(pp - r->processes), (int)(pt - pp->threads)}, &sb);
		printf("Blamed thread frames (%zu): ", pt->nframes);
		if (sb.s)
			put_safe(sb.s);
		kp_sb_reset(&sb);
		kp_waitchain_state(pt, &sb);
		fputs(", ", stdout);
		if (sb.s)
			put_safe(sb.s);
		putchar('\n');
		kp_sb_free(&sb);
		print_frames(o, r, pt);
	} else {
		puts("Panicked thread frames: none in this report");
	}
	puts("Panic string:");
	if (r->panic_string) {
		const char *s = r->panic_string;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);
			fputs("  ", stdout);
			kpt_sanitize_write(stdout, s, n, 0);
			putchar('\n');
			s += n + (nl != NULL);
		}
	}
	putchar('\n');
}

static void json_frame(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                       size_t i, cJSON *obj)
{
	show_opts *o = ctx;
	(void)p;
	kp_symresult res;
	cJSON *syms = cJSON_CreateArray();
	const char *source = NULL;
	bool has_lookup = false;
	uint64_t lookup = 0;
	if (o->sym && kp_symbols_frame(o->sym, r, t, i, &res) == KP_SYM_OK) {
		source = res.source;
		for (size_t k = 0; k < res.nframes; k++) {
			cJSON *e = cJSON_CreateObject();
			const kp_symframe *f = &res.frames[k];
			cJSON_AddItemToObject(e, "function", f->function ? cJSON_CreateString(f->function) : cJSON_CreateNull());
			cJSON_AddItemToObject(e, "file", f->file ? cJSON_CreateString(f->file) : cJSON_CreateNull());
			cJSON_AddItemToObject(e, "line", f->line ? cJSON_CreateNumber(f->line) : cJSON_CreateNull());
			cJSON_AddItemToObject(e, "column", f->column ? cJSON_CreateNumber(f->column) : cJSON_CreateNull());
			cJSON_AddItemToArray(syms, e);
		}
	}
	if (o->sym && res.has_lookup) {
		has_lookup = true;
		lookup = res.lookup_address;
	}
	cJSON_AddItemToObject(obj, "lookup_address", has_lookup ? kp_report_json_hex(lookup) : cJSON_CreateNull());
	cJSON_AddItemToObject(obj, "symbols", syms);
	cJSON_AddItemToObject(obj, "symbol_source", source ? cJSON_CreateString(source) : cJSON_CreateNull());
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

static const struct option show_options[] = {
	{"db", required_argument, NULL, 'D'},
	{"no-symbols", no_argument, NULL, 'n'},
	{"dsym", required_argument, NULL, 'd'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_show(int argc, char **argv)
{
	show_opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jhnd:D:", show_options, NULL)) != -1) {
		switch (c) {
		case 'D': o.db_path = optarg; break;
		case 'j': o.json = true; break;
		case 'n': o.no_symbols = true; break;
		case 'd':
			if (o.ndsyms == MAX_DSYM_PATHS) {
				kpt_usage_error("show: at most %d --dsym paths", MAX_DSYM_PATHS);
				return KPT_EXIT_BAD;
			}
			o.dsyms[o.ndsyms++] = optarg;
			break;
		case 'h':
			return KPC_HELP;
		default: return KPT_EXIT_BAD;
		}
	}
	if (optind >= argc) {
		kpt_usage_error("show: no report given");
		return KPT_EXIT_BAD;
	}
	if (!o.no_symbols) {
		kp_symbols_opts so = {.paths = o.dsyms, .npaths = o.ndsyms};
		kp_error err;
		if (kp_symbols_new(&so, &o.sym, &err) != KP_OK) {
			char msg[300];
			kpt_usage_error("show: %s", kp_error_format(&err, msg, sizeof msg));
			return KPT_EXIT_BAD;
		}
	}
	int status = KPT_EXIT_OK;
	int nfiles = argc - optind;
	/* Several files: one JSON array, each report streamed as it is read. */
	bool arr = o.json && nfiles > 1;
	int nprinted = 0;
	if (arr)
		fputc('[', stdout);
	for (int i = optind; i < argc; i++) {
		kp_report *r = NULL;
		kp_error err;
		if (load(&o, argv[i], &r, &err) != KP_OK) {
			kpt_report_error(argv[i], &err);
			status = KPT_EXIT_BAD;
			continue;
		}
		if (o.sym)
			kp_symbols_set_report(o.sym, r);
		for (size_t w = 0; w < r->nwarnings; w++)
			kpt_report_warning(argv[i], r->warnings[w].msg, r->warnings[w].line);
		if (o.json) {
			if (arr && nprinted)
				fputs(", ", stdout);
			bool ok = kp_report_json_write(stdout, r, json_frame, &o, arr ? 1 : 0);
			if (!ok && ferror(stdout)) { /* main reports the failed write, once */
				kp_report_free(&r);
				break;
			}
			if (!ok) {
				kp_error werr;
				kp_error_set(&werr, KP_ERR_IO, 0, -1, "cannot write the JSON output");
				kpt_report_error(argv[i], &werr);
				status = KPT_EXIT_BAD;
			}
			if (!arr)
				putchar('\n');
			nprinted++;
		} else {
			print_text(&o, r);
		}
		kp_report_free(&r);
		if (ferror(stdout))
			break; /* main reports the failed write */
	}
	if (arr)
		fputs("]\n", stdout);
	kp_symbols_free(&o.sym);
	kpi_close(&o.db);
	return status;
}
