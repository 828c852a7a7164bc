/* report_text.c: a report as the text `kpbrowse show` prints
 * (kp_report_text.h); the TUI's `w` writes the same. */
#include "kp_strbuf.h"
#include "kp_signature.h"
#include "kp_symbols.h"
#include "kp_waitchain.h"
#include "kp_report_text.h"
#include "kp_summary.h"
#include "kp_sanitize.h"
#include "kp_demangle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_sym(FILE *out, const kp_symframe *f)
{
	const char *fn = f->function ? f->function : "??";
	kp_sanitize_write(out, fn, strlen(fn), 0);
	if (f->file) {
		fputs(" (", out);
		kp_sanitize_write(out, f->file, strlen(f->file), 0);
		fprintf(out, ":%u)", f->line);
	}
}

/* function (file:line) of the innermost frame, then the functions it was
 * inlined into, indented. */
static void print_symbols(FILE *out, kp_symbols *sym, const kp_report *r, const kp_thread *t, size_t i)
{
	kp_symresult res;
	if (!sym)
		return;
	switch (kp_symbols_frame(sym, r, t, i, &res)) {
	case KP_SYM_OK:
		fputs("  ", out);
		put_sym(out, &res.frames[0]);
		if (kp_symresult_approximate(&res)) {   /* the offset into it, and where the name came from */
			const char *from = kp_symresult_source_label(&res);
			fprintf(out, from ? " %s (%s)" : " %s", res.msg, from);
		}
		for (size_t k = 1; k < res.nframes; k++) {
			fputs("\n         inlined into ", out);
			put_sym(out, &res.frames[k]);
		}
		break;
	case KP_SYM_NO_DSYM:
		fprintf(out, "  (no dSYM for %s)", res.uuid);
		break;
	case KP_SYM_NOT_FOUND:
	case KP_SYM_ERROR:
		fputs("  (", out);
		kp_sanitize_write(out, res.msg, strlen(res.msg), 0);
		fputs(")", out);
		break;
	default:
		break;
	}
}

void kp_report_text_disasm_line(const kp_disasm_insn *in, char *buf, size_t size)
{
	char hex[3 * sizeof in->bytes + 1] = "";
	for (unsigned k = 0; k < in->nbytes; k++)
		snprintf(hex + 3 * k, sizeof hex - 3 * k, "%02x ", in->bytes[k]);
	char text[400];
	kp_disasm_format(in, text, sizeof text);
	snprintf(buf, size, "%s 0x%" PRIx64 ":  %-24s %s", in->marked ? "->" : "  ", in->address, hex,
	         text);
}

/* The instructions around frame i, indented under it, or why there are none. */
static void print_disasm(FILE *out, kp_symbols *sym, const kp_report *r, const kp_thread *t,
                         size_t i, size_t n)
{
	kp_symresult res;
	if (kp_symbols_frame(sym, r, t, i, &res) != KP_SYM_OK)
		return;
	kp_disasm d;
	kp_error err;
	if (kp_disasm_frame(sym, r, t, i, n, &d, &err) != KP_OK) {
		fputs("         (", out);
		kp_sanitize_write(out, err.msg, strlen(err.msg), 0);
		fputs(")\n", out);
		return;
	}
	char line[600];
	for (size_t k = 0; k < d.n; k++) {
		kp_report_text_disasm_line(&d.insns[k], line, sizeof line);
		fputs("       ", out);
		kp_sanitize_write(out, line, strlen(line), 0);
		fputc('\n', out);
	}
	kp_disasm_free(&d);
}

static void print_frames(FILE *out, kp_symbols *sym, const kp_report *r, const kp_thread *t,
                         size_t ndisasm)
{
	char buf[64];
	for (size_t i = 0; i < t->nframes; i++) {
		const kp_frame *f = &t->frames[i];
		fprintf(out, "  %3zu  ", i);
		if (f->has_address)
			fprintf(out, "0x%016" PRIx64 "  ", f->address);
		else
			fprintf(out, "%-18s  ", "");
		if (f->image >= 0) {
			const char *l = kp_summary_image_label(r, f->image, 0, buf, sizeof buf);
			kp_sanitize_write(out, l, strlen(l), 0);
			if (f->has_offset)
				fprintf(out, " + 0x%" PRIx64, f->offset);
		} else {
			fputs("?", out);
		}
		if (f->symbol) {
			fputs("  [", out);
			char dm[1024];
			const char *name = kp_demangle_label(f->symbol, dm, sizeof dm);
			kp_sanitize_write(out, name, strlen(name), 0);
			if (f->has_symbol_offset)
				fprintf(out, " + 0x%" PRIx64, f->symbol_offset);
			fputs("]", out);
		}
		if (f->user)
			fputs("  (user)", out);
		if (f->has_samples)
			fprintf(out, "  %" PRIu64 " sample%s", f->samples, f->samples == 1 ? "" : "s");
		print_symbols(out, sym, r, t, i);
		fputc('\n', out);
		if (sym && ndisasm)
			print_disasm(out, sym, r, t, i, ndisasm);
	}
}

static void put_safe(FILE *out, const char *s)
{
	kp_sanitize_write(out, s, strlen(s), 0);
}

/* Bytes shown per ExtensiblePanicLog entry; JSON has them all. */
#define EXTLOG_SHOW 4096

static kp_extlog_decoder decoder;
static void *decoder_ctx;

void kp_report_text_set_decoder(kp_extlog_decoder fn, void *ctx)
{
	decoder = fn;
	decoder_ctx = ctx;
}

/* text[0..n) indented, a line at a time, sanitised. */
static void put_lines(FILE *out, const char *s, size_t n)
{
	const char *e = s + n;
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(e - s);
		fputs("      ", out);
		kp_sanitize_write(out, s, k, 0);
		fputc('\n', out);
		s += k + (nl != NULL);
	}
}

/* The ExtensiblePanicLog entries under their owners: what the owner's
 * decoder makes of them, else text (sanitised, each line indented) or a
 * hex dump with an ASCII column. */
static void print_extlogs(FILE *out, const kp_report *r)
{
	if (!r->nextlogs)
		return;
	fprintf(out, "Extensible panic log (%zu):\n", r->nextlogs);
	for (size_t i = 0; i < r->nextlogs; i++) {
		const kp_extlog *x = &r->extlogs[i];
		const char *name = kp_report_owner_name(r, x->owner_uuid);
		fputs("  ", out);
		put_safe(out, name ? name : "(unknown image)");
		fputs(" ", out);
		put_safe(out, x->owner_uuid);
		if (x->data_id) {
			fputs(" DataID ", out);
			put_safe(out, x->data_id);
		}
		fprintf(out, ": %zu byte%s%s\n", x->len, x->len == 1 ? "" : "s", x->text ? ", text" : "");
		char why[200] = "";
		char *dec = decoder ? decoder(decoder_ctx, x, why, sizeof why) : NULL;
		if (dec) {
			fputs("      (decoded by its --panic-data-decoder)\n", out);
			put_lines(out, dec, strlen(dec));
			free(dec);
			continue;
		}
		if (why[0]) {
			fputs("      (--panic-data-decoder: ", out);
			put_safe(out, why);
			fputs(")\n", out);
		}
		size_t n = x->len < EXTLOG_SHOW ? x->len : EXTLOG_SHOW;
		if (x->text) {
			put_lines(out, (const char *)x->data, n);
		} else {
			for (size_t o = 0; o < n; o += 16) {
				fprintf(out, "      %04zx ", o);
				for (size_t k = 0; k < 16; k++)
					if (o + k < n)
						fprintf(out, " %02x", x->data[o + k]);
					else
						fputs("   ", out);
				fputs("  |", out);
				for (size_t k = 0; k < 16 && o + k < n; k++) {
					unsigned char c = x->data[o + k];
					fputc(c >= 0x20 && c < 0x7f ? c : '.', out);
				}
				fputs("|\n", out);
			}
		}
		if (n < x->len)
			fprintf(out, "      ... %zu more bytes (show --json has them all)\n", x->len - n);
	}
}

/* The summary (kp_summary.h), a line each: fields as "Label:" padded, then
 * the value; headings with a colon; items and their sub-lines indented. */
static void print_summary(FILE *out, const kp_report *r)
{
	kp_summary s;
	kp_error err;
	if (kp_summary_build(r, &s, &err) != KP_OK) {
		fprintf(out, "(summary: %s)\n", err.msg);
		return;
	}
	for (size_t i = 0; i < s.n; i++) {
		const kp_sum_line *l = &s.lines[i];
		if (l->flags & KP_SUM_ITEM)
			fputs("  ", out);
		else if (l->flags & KP_SUM_SUB)
			fputs("      ", out);
		else if (l->label)
			fprintf(out, "%-*s ", KP_SUM_LABEL_WIDTH, l->label);
		put_safe(out, l->value);
		fputs(l->flags & KP_SUM_HEADING ? ":\n" : "\n", out);
	}
	kp_summary_free(&s);
}

/* "LABEL (N): proc[pid] tid, state": a thread of a watchdog or stackshot,
 * then its frames. */
static void print_thread(FILE *out, kp_symbols *sym, const kp_report *r, kp_thread_ref ref,
                         const char *label, size_t ndisasm)
{
	const kp_thread *t = &r->processes[ref.proc].threads[ref.thread];
	kp_sb sb = {0};
	kp_waitchain_thread(r, ref, &sb);
	fprintf(out, "%s (%zu): ", label, t->nframes);
	if (sb.s)
		put_safe(out, sb.s);
	kp_sb_reset(&sb);
	kp_waitchain_state(t, &sb);
	fputs(", ", out);
	if (sb.s)
		put_safe(out, sb.s);
	if (t->has_samples)
		fprintf(out, ", %" PRIu64 " sample%s", t->samples, t->samples == 1 ? "" : "s");
	if (t->notice) {
		fputs(" (", out);
		put_safe(out, t->notice);
		fputc(')', out);
	}
	fputc('\n', out);
	kp_sb_free(&sb);
	print_frames(out, sym, r, t, ndisasm);
}

/* A `stackshot -i` text blames nobody: every thread. */
static void print_all_threads(FILE *out, kp_symbols *sym, const kp_report *r, size_t ndisasm)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		n += r->processes[i].nthreads;
	fprintf(out, "Threads (%zu):\n", n);
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++)
			print_thread(out, sym, r, (kp_thread_ref){(int)i, (int)j}, "Thread frames", ndisasm);
}

void kp_report_text_frames(FILE *out, const kp_report *r, kp_symbols *sym, const kp_thread *t)
{
	print_frames(out, sym, r, t, 0);
}

void kp_report_text(FILE *out, const kp_report *r, kp_symbols *sym)
{
	kp_report_text_disasm(out, r, sym, 0);
}

/* A heading, then every line of s indented by two, sanitised. */
static void print_indented(FILE *out, const char *heading, const char *s)
{
	fprintf(out, "%s\n", heading);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		fputs("  ", out);
		kp_sanitize_write(out, s, n, 0);
		fputc('\n', out);
		s += n + (nl != NULL);
	}
}

void kp_report_text_disasm(FILE *out, const kp_report *r, kp_symbols *sym, size_t ndisasm)
{
	const kp_process *pp;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	print_summary(out, r);
	print_extlogs(out, r);
	if (pt) {
		fprintf(out, "Panicked thread frames (%zu):\n", pt->nframes);
		print_frames(out, sym, r, pt, ndisasm);
	} else if (r->kind != KP_KIND_PANIC && (pt = kp_report_blamed_thread(r, &pp)) != NULL) {
		/* blaming no one, the thread shown is the frontmost process's:
		 * said so, never "Blamed: nobody" beside a "Blamed thread" */
		bool blamed = r->has_blamed_pid || r->blamed_process;
		print_thread(out, sym, r, (kp_thread_ref){(int)(pp - r->processes), (int)(pt - pp->threads)},
		             blamed ? "Blamed thread frames" : "Frontmost thread frames", ndisasm);
	} else if ((r->kind == KP_KIND_STACKSHOT && r->format == KP_FORMAT_TEXT) || r->kind == KP_KIND_HANG ||
	           r->kind == KP_KIND_STALL || r->kind == KP_KIND_SLEEPWAKE) {
		print_all_threads(out, sym, r, ndisasm);
	} else {
		fprintf(out, "%s\n", "Panicked thread frames: none in this report");
	}
	/* no heading over nothing */
	if (r->preamble && r->preamble[0])
		print_indented(out, "Before the panic line:", r->preamble);
	if (r->panic_string && r->panic_string[0])
		print_indented(out, "Panic string:", r->panic_string);
	fputc('\n', out);
}
