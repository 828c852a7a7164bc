/* frame.c: frames and threads as text (kpt_frame.h). */
#include "kpt_frame.h"
#include "kp_summary.h"
#include "kp_symbols.h"
#include "kpt_xalloc.h"
#include "kp_demangle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kpt_image_label(const kp_report *r, int idx, char *buf, size_t size)
{
	return kp_summary_image_label(r, idx, 8, buf, size);
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* "image +0xOFF" or "0xADDR" */
static void frame_place(const kp_report *r, const kp_frame *f, char *out, size_t size)
{
	char ib[64];
	if (f->has_offset)
		snprintf(out, size, "%s +0x%" PRIx64, kpt_image_label(r, f->image, ib, sizeof ib), f->offset);
	else if (f->has_address)
		snprintf(out, size, "0x%016" PRIx64, f->address);
	else
		snprintf(out, size, "%s", kpt_image_label(r, f->image, ib, sizeof ib));
}

static void line_text(const kpt_symline *l, char *out, size_t size)
{
	if (l->file)
		snprintf(out, size, "%s (%s:%u)", l->function ? l->function : "??", base(l->file), l->line);
	else
		snprintf(out, size, "%s", l->function ? l->function : "??");
}

const char *kpt_report_symbol(const kp_frame *f, char *buf, size_t size)
{
	if (!f->symbol)
		return NULL;
	char dm[1024];
	const char *name = kp_demangle_label(f->symbol, dm, sizeof dm);   /* as DWARF names are */
	if (f->has_symbol_offset)
		snprintf(buf, size, "%s + 0x%" PRIx64, name, f->symbol_offset);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

void kpt_frame_text(const kp_report *r, const kp_thread *t, const kpt_sym *s, size_t f,
                    char *out, size_t size)
{
	const kp_frame *fr = &t->frames[f];
	if (s && s->state == KPT_SYM_DONE && s->status == KP_SYM_OK && s->nlines > 0)
		line_text(&s->lines[0], out, size);
	else if (fr->symbol)
		kpt_report_symbol(fr, out, size);
	else
		frame_place(r, fr, out, size);
}

char **kpt_thread_lines(const kp_report *r, const kp_thread *t, const kpt_sym *syms, size_t *nlines)
{
	char **out = NULL;
	size_t n = 0, cap = 0;
	for (size_t f = 0; f < t->nframes; f++) {
		const kpt_sym *s = syms ? &syms[f] : NULL;
		char place[128], fn[1200];
		frame_place(r, &t->frames[f], place, sizeof place);
		bool sym = s && s->state == KPT_SYM_DONE && s->status == KP_SYM_OK && s->nlines > 0;
		if (sym || t->frames[f].symbol)
			kpt_frame_text(r, t, s, f, fn, sizeof fn);
		else
			fn[0] = '\0';
		size_t lines = sym ? s->nlines : 1;
		for (size_t k = 0; k < lines; k++) {
			char in[1200], line[1400];
			if (k == 0) {
				snprintf(line, sizeof line, "#%-3zu %-40s %s", f, place, fn);
			} else {
				line_text(&s->lines[k], in, sizeof in);
				snprintf(line, sizeof line, "     %-40s   inlined into %s", "", in);
			}
			*(char **)kpt_xpush((void **)&out, &n, &cap, sizeof *out) = kpt_xstrdup(line);
		}
	}
	*nlines = n;
	return out;
}

void kpt_lines_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}
