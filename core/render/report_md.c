/* report_md.c: a report as a Markdown bug report (kp_report_md.h). */
#include "kp_report_md.h"
#include "kp_report_text.h"
#include "kp_sanitize.h"
#include "kp_signature.h"
#include "kp_summary.h"
#include "kp_triage.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The longest run of backticks in s[0..n). */
static size_t tick_run(const char *s, size_t n)
{
	size_t best = 0, run = 0;
	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		best = run > best ? run : best;
	}
	return best;
}

static void ticks(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('`', out);
}

/* s sanitised (one line: a newline becomes its escape), as a code span
 * whose fence is longer than any backtick run inside; "-" for NULL. */
static void code(FILE *out, const char *s)
{
	if (!s || !*s) {
		fputc('-', out);
		return;
	}
	size_t len = strlen(s), cap = len * 10 + 1;
	char *buf = malloc(cap);
	if (!buf)
		return;
	size_t n = kp_sanitize(buf, cap, s, len, 0);
	size_t t = tick_run(buf, n) + 1;
	/* a span that starts or ends with a backtick needs a space inside */
	bool pad = buf[0] == '`' || buf[n - 1] == '`';
	ticks(out, t);
	if (pad)
		fputc(' ', out);
	fwrite(buf, 1, n, out);
	if (pad)
		fputc(' ', out);
	ticks(out, t);
	free(buf);
}

/* text (already sanitised lines) as a fenced block longer than any
 * backtick run inside. */
static void fence(FILE *out, const char *text, size_t n)
{
	size_t t = tick_run(text, n) + 1;
	t = t < 3 ? 3 : t;
	ticks(out, t);
	fputc('\n', out);
	fwrite(text, 1, n, out);
	if (n && text[n - 1] != '\n')
		fputc('\n', out);
	ticks(out, t);
	fputc('\n', out);
}

static void item(FILE *out, const char *label, const char *value)
{
	fprintf(out, "- **%s:** ", label);
	code(out, value);
	fputc('\n', out);
}

/* The kexts in the backtrace: bundle id, version, UUID (the loaded kext
 * list's version when the backtrace's own line has none). */
static void kexts(FILE *out, const kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace || im->kind == 'K' || im->kind == 'U' || (im->name && strcmp(im->name, "kernel") == 0))
			continue;
		if (!n++)
			fputs("\n## Kexts in the backtrace\n\n", out);
		const char *version = im->version;
		for (size_t k = 0; !version && im->name && k < r->nkexts; k++)
			if (r->kexts[k].name && strcmp(r->kexts[k].name, im->name) == 0)
				version = r->kexts[k].version;
		fputs("- ", out);
		code(out, im->name ? im->name : "(unnamed)");
		fputs(" version ", out);
		code(out, version);
		fputs(", UUID ", out);
		code(out, im->uuid);
		fputc('\n', out);
	}
}

/* The panicked (else blamed) thread's frames, symbolicated as show prints
 * them, in a fence. */
static void backtrace(FILE *out, const kp_report *r, kp_symbols *sym)
{
	const kp_process *p = NULL;
	const kp_thread *t = kp_report_panicked_thread(r, &p);
	const char *what = "Panicked thread";
	if (!t) {
		t = kp_report_blamed_thread(r, &p);
		what = "Blamed thread";
	}
	if (!t || !t->nframes)
		return;
	fprintf(out, "\n## %s (%zu frame%s", what, t->nframes, t->nframes == 1 ? "" : "s");
	if (p && p->name) {
		fputs(", ", out);
		code(out, p->name);
	}
	fputs(")\n\n", out);
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m)
		return;
	kp_report_text_frames(m, r, sym, t);
	if (fclose(m) == 0 && buf)
		fence(out, buf, n);
	free(buf);
}

bool kp_report_markdown(FILE *out, const kp_report *r, kp_symbols *sym, const kp_md_context *ctx)
{
	static const kp_md_context none;
	if (!ctx)
		ctx = &none;
	char title[KP_HEADLINE_DISPLAY_SIZE];
	kp_headline_display(r->headline, title, sizeof title);
	fputs("# Kernel panic: ", out);
	code(out, title[0] ? title : "(no panic string)");
	fputs("\n\n", out);

	kp_triage t;
	kp_triage_classify(r, &t);
	fprintf(out, "- **Class:** `%s`", kp_class_name(t.cls));
	if (t.evidence[0]) {
		fprintf(out, ", from the %s: ", t.field ? t.field : "report");
		code(out, t.evidence);
	}
	fputc('\n', out);
	item(out, "Kind", kp_kind_name(r->kind));
	item(out, "Date", r->timestamp);
	char os[128];
	kp_os_label(r->os_version, os, sizeof os);
	item(out, "OS", r->os_version ? os : NULL);
	item(out, "Product", r->product);
	item(out, "Kernel", r->kernel_version);
	item(out, "Kernel UUID", r->kernel_uuid);
	if (r->panicked_process || r->has_panicked_pid) {
		char pid[64];
		snprintf(pid, sizeof pid, "pid %" PRId64 " ", r->panicked_pid);
		fprintf(out, "- **Panicked task:** %s", r->has_panicked_pid ? pid : "");
		code(out, r->panicked_process);
		fputc('\n', out);
	}
	if (ctx->count > 0) {
		fprintf(out, "- **Occurrences:** %" PRId64 " report%s in group %" PRId64, ctx->count,
		        ctx->count == 1 ? "" : "s", ctx->group_id);
		if (ctx->first_seen || ctx->last_seen) {
			fputs(", first seen ", out);
			code(out, ctx->first_seen);
			fputs(", last seen ", out);
			code(out, ctx->last_seen);
		}
		fputc('\n', out);
	}
	if (ctx->nbuilds) {
		fputs("- **Builds:** ", out);
		for (size_t i = 0; i < ctx->nbuilds; i++) {
			if (i)
				fputs(", ", out);
			char b[128];
			kp_os_label(ctx->builds[i], b, sizeof b);
			code(out, b);
		}
		fputc('\n', out);
	}
	fputs("- **Raw report:** ", out);
	code(out, ctx->raw_path ? ctx->raw_path : r->path);
	if (ctx->id > 0)
		fprintf(out, " (`kpbrowse export @%" PRId64 " FILE` writes its original bytes)", ctx->id);
	fputc('\n', out);

	backtrace(out, r, sym);
	kexts(out, r);

	if (r->panic_string) {
		fputs("\n## Panic string\n\n<details><summary>the whole panic string</summary>\n\n", out);
		size_t len = strlen(r->panic_string), cap = len * 10 + 1;
		char *buf = malloc(cap);
		if (buf) {
			size_t n = kp_sanitize(buf, cap, r->panic_string, len, KP_SAN_KEEP_NEWLINES);
			fence(out, buf, n);
			free(buf);
		}
		fputs("\n</details>\n", out);
	}
	fputs("\n_Written by kpbrowse (export --markdown)._\n", out);
	return !ferror(out);
}
