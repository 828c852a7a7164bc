/* report_text.c: a report as the text `kpbrowse show` prints
 * (kpt_report_text.h); the TUI's `w` writes the same. */
#include "kp_symbols.h"
#include "kpt_report_text.h"
#include "kpt_sanitize.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void field(FILE *out, const char *label, const char *value)
{
	fprintf(out, "%-18s ", label);
	if (value)
		kpt_sanitize_write(out, value, strlen(value), 0);
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
	kpt_sanitize_write(out, fn, strlen(fn), 0);
	if (f->file) {
		fputs(" (", out);
		kpt_sanitize_write(out, f->file, strlen(f->file), 0);
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
		if (res.source && strcmp(res.source, "symtab") == 0)
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
		kpt_sanitize_write(out, res.msg, strlen(res.msg), 0);
		fputs(")", out);
		break;
	default:
		break;
	}
}

static void print_frames(FILE *out, kp_symbols *sym, const kp_report *r, const kp_thread *t)
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
			kpt_sanitize_write(out, l, strlen(l), 0);
			if (f->has_offset)
				fprintf(out, " + 0x%" PRIx64, f->offset);
		} else {
			fputs("?", out);
		}
		if (f->symbol) {
			fputs("  [", out);
			kpt_sanitize_write(out, f->symbol, strlen(f->symbol), 0);
			fputs("]", out);
		}
		if (f->user)
			fputs("  (user)", out);
		print_symbols(out, sym, r, t, i);
		fputc('\n', out);
	}
}

void kpt_report_text(FILE *out, const kp_report *r, kp_symbols *sym)
{
	char buf[128];
	field(out, "File:", r->path);
	snprintf(buf, sizeof buf, "%s%s", kp_format_name(r->format),
	         r->has_bug_type ? "" : "");
	if (r->has_bug_type)
		snprintf(buf, sizeof buf, "%s (bug_type %d)", kp_format_name(r->format), r->bug_type);
	field(out, "Format:", buf);
	field(out, "Date:", r->timestamp);
	field(out, "OS version:", r->os_version);
	field(out, "Product:", r->product);
	field(out, "Kernel version:", r->kernel_version);
	field(out, "Kernel UUID:", r->kernel_uuid);
	field(out, "Architecture:", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	field(out, "Headline:", r->headline);

	fprintf(out, "%-18s ", "Panicked task:");
	if (r->has_panicked_pid)
		fprintf(out, "pid %" PRId64 " ", r->panicked_pid);
	if (r->panicked_process)
		kpt_sanitize_write(out, r->panicked_process, strlen(r->panicked_process), 0);
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
		nbt += r->images[i].in_backtrace;
	fprintf(out, "Kexts in backtrace: %s\n", nbt ? "" : "none");
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace)
			continue;
		fputs("  ", out);
		const char *n = im->name ? im->name : "?";
		kpt_sanitize_write(out, n, strlen(n), 0);
		if (im->version) {
			fputs(" (", out);
			kpt_sanitize_write(out, im->version, strlen(im->version), 0);
			fputs(")", out);
		}
		fprintf(out, " %s", im->uuid ? im->uuid : "(no UUID)");
		if (im->has_start)
			fprintf(out, " 0x%" PRIx64, im->start);
		if (im->has_end)
			fprintf(out, "->0x%" PRIx64, im->end);
		fputc('\n', out);
	}

	if (pt) {
		fprintf(out, "Panicked thread frames (%zu):\n", pt->nframes);
		print_frames(out, sym, r, pt);
	} else {
		fprintf(out, "%s\n", "Panicked thread frames: none in this report");
	}
	fprintf(out, "%s\n", "Panic string:");
	if (r->panic_string) {
		const char *s = r->panic_string;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);
			fputs("  ", out);
			kpt_sanitize_write(out, s, n, 0);
			fputc('\n', out);
			s += n + (nl != NULL);
		}
	}
	fputc('\n', out);
}
