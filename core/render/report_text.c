/* report_text.c: a report as the text `kpbrowse show` prints
 * (kp_report_text.h); the TUI's `w` writes the same. */
#include "kp_strbuf.h"
#include "kp_signature.h"
#include "kp_symbols.h"
#include "kp_waitchain.h"
#include "kp_report_text.h"
#include "kp_sanitize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel (or the kernelcache holding it) is no kext. */
static bool kernel_image(const kp_image *im)
{
	return im->kind == 'K' || im->kind == 'U' || (im->name && strcmp(im->name, "kernel") == 0);
}

static void field(FILE *out, const char *label, const char *value)
{
	fprintf(out, "%-18s ", label);
	if (value)
		kp_sanitize_write(out, value, strlen(value), 0);
	else
		fputs("-", out);
	fputc('\n', out);
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
		if (kp_symresult_approximate(&res))
			fprintf(out, " %s", res.msg);
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

void kpt_disasm_line(const kp_disasm_insn *in, char *buf, size_t size)
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
		kpt_disasm_line(&d.insns[k], line, sizeof line);
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
			const char *l = image_label(r, f->image, buf, sizeof buf);
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

/* Kind, blame, reason, frontmost processes, notes and the wait chains: what
 * a watchdog or stackshot says before any frame. */
static void print_hang(FILE *out, const kp_report *r)
{
	if (r->zone.name) {
		fprintf(out, "%-18s zone ", "Leak suspect:");
		put_safe(out, r->zone.name);
		if (r->zone.has_elements)
			fprintf(out, ", %" PRIu64 " elements", r->zone.elements);
		if (r->zone.has_bytes)
			fprintf(out, ", %" PRIu64 " bytes", r->zone.bytes);
		fputc('\n', out);
	}
	const char *flags[16];
	size_t nf = kp_report_panic_flag_names(r, flags, 16);
	if (nf) {
		fprintf(out, "%-18s", "Panic flags:");
		for (size_t i = 0; i < nf && i < 16; i++)
			fprintf(out, " %s", flags[i]);
		fputc('\n', out);
	}
	if (r->kind != KP_KIND_PANIC || r->reason)
		field(out, "Reason:", r->reason);
	if (r->sleep_failure_code) {
		field(out, "Failure code:", r->sleep_failure_code);
		const char *ph = r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL;
		if (r->has_sleep_phase)
			fprintf(out, "%-18s 0x%02x %s\n", "Phase:", r->sleep_phase, ph ? ph : "(unknown)");
	}
	if (r->duration)
		field(out, "Duration:", r->duration);
	if (r->steps)
		field(out, "Steps:", r->steps);
	if (r->kind != KP_KIND_PANIC) {
		fprintf(out, "%-18s ", "Blamed:");
		if (r->has_blamed_pid)
			fprintf(out, "pid %" PRId64 " ", r->blamed_pid);
		if (r->blamed_process)
			put_safe(out, r->blamed_process);
		if (!r->has_blamed_pid && !r->blamed_process)
			fputs("nobody", out);
		fputc('\n', out);
	}
	if (r->nfrontmost) {
		fprintf(out, "%-18s", "Frontmost:");
		for (size_t i = 0; i < r->nfrontmost; i++) {
			fprintf(out, " %" PRId64, r->frontmost_pids[i]);
			for (size_t k = 0; k < r->nprocesses; k++)
				if (r->processes[k].has_pid && r->processes[k].pid == r->frontmost_pids[i] &&
				    r->processes[k].name) {
					fputs(" (", out);
					put_safe(out, r->processes[k].name);
					fputs(")", out);
				}
		}
		fputc('\n', out);
	}
	for (size_t i = 0; r->kind != KP_KIND_PANIC && i < r->notes.n; i++) {
		fprintf(out, "%-18s ", i ? "" : "Notes:");
		put_safe(out, r->notes.v[i]);
		fputc('\n', out);
	}
	if (!r->nchains)
		return;
	fprintf(out, "Wait chains (%zu):\n", r->nchains);
	kp_sb sb = {0};
	for (size_t i = 0; i < r->nchains; i++) {
		kp_sb_reset(&sb);
		const kp_chain *c = &r->chains[i];
		const kp_thread *t = &r->processes[c->links[0].proc].threads[c->links[0].thread];
		if (!kp_waitchain_format(r, c, &sb))
			break;
		fputs("  ", out);
		put_safe(out, sb.s);
		if (c->nsame)
			fprintf(out, ", and %zu more thread%s waiting the same way", c->nsame, c->nsame > 1 ? "s" : "");
		fputc('\n', out);
		if (t->waits_on) {
			fputs("      waits on: ", out);
			put_safe(out, t->waits_on);
			fputc('\n', out);
		}
	}
	kp_sb_free(&sb);
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

void kp_report_text(FILE *out, const kp_report *r, kp_symbols *sym)
{
	kp_report_text_disasm(out, r, sym, 0);
}

void kp_report_text_disasm(FILE *out, const kp_report *r, kp_symbols *sym, size_t ndisasm)
{
	char buf[128];
	field(out, "File:", r->path);
	snprintf(buf, sizeof buf, "%s", kp_format_name(r->format));
	if (r->has_bug_type)
		snprintf(buf, sizeof buf, "%s (bug_type %d)", kp_format_name(r->format), r->bug_type);
	field(out, "Format:", buf);
	field(out, "Kind:", kp_kind_name(r->kind));
	field(out, "Date:", r->timestamp);
	char os[128];   /* as its maker names it today: "iOS", not "iPhone OS" */
	kp_os_label(r->os_version, false, os, sizeof os);
	field(out, "OS version:", r->os_version ? os : NULL);
	field(out, "Product:", r->product);
	field(out, "Kernel version:", r->kernel_version);
	field(out, "Kernel UUID:", r->kernel_uuid);
	field(out, "Architecture:", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	char title[512];   /* the whole panic string follows */
	kp_headline_display(r->headline, title, sizeof title);
	field(out, "Headline:", title[0] ? title : NULL);

	fprintf(out, "%-18s ", "Panicked task:");
	if (r->has_panicked_pid)
		fprintf(out, "pid %" PRId64 " ", r->panicked_pid);
	if (r->panicked_process)
		kp_sanitize_write(out, r->panicked_process, strlen(r->panicked_process), 0);
	if (!r->has_panicked_pid && !r->panicked_process)
		fputs("-", out);
	fputc('\n', out);
	const kp_process *pp;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	fprintf(out, "%-18s ", "Panicked thread:");
	if (r->has_panicked_thread_id)
		fprintf(out, "tid %" PRIu64 "\n", r->panicked_thread_id);
	else if (pt && pt->cpu >= 0)
		fprintf(out, "CPU %d\n", pt->cpu);
	else
		fprintf(out, "%s\n", "-");

	size_t nthreads = 0, nbt = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads += r->processes[i].nthreads;
	fprintf(out, "%-18s %zu processes, %zu threads, %zu images\n", "Counts:", r->nprocesses, nthreads,
	       r->nimages);

	for (size_t i = 0; i < r->nimages; i++)
		nbt += r->images[i].in_backtrace && !kernel_image(&r->images[i]);
	fprintf(out, "Kexts in backtrace: %s\n", nbt ? "" : "none");
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace || kernel_image(im))
			continue;
		fputs("  ", out);
		const char *n = im->name ? im->name : "?";
		kp_sanitize_write(out, n, strlen(n), 0);
		if (im->version) {
			fputs(" (", out);
			kp_sanitize_write(out, im->version, strlen(im->version), 0);
			fputs(")", out);
		}
		fprintf(out, " %s", im->uuid ? im->uuid : "(no UUID)");
		if (im->has_start)
			fprintf(out, " 0x%" PRIx64, im->start);
		if (im->has_end)
			fprintf(out, "->0x%" PRIx64, im->end);
		fputc('\n', out);
	}

	print_extlogs(out, r);
	print_hang(out, r);
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
	if (r->panic_string && r->panic_string[0]) {   /* no heading over nothing */
		fprintf(out, "%s\n", "Panic string:");
		const char *s = r->panic_string;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);
			fputs("  ", out);
			kp_sanitize_write(out, s, n, 0);
			fputc('\n', out);
			s += n + (nl != NULL);
		}
	}
	fputc('\n', out);
}
