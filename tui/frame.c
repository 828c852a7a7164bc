/* frame.c: frames and threads as text (kpt_frame.h). */
#include "kpt_frame.h"
#include "kp_symbols.h"
#include "kpt_xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *kpt_image_label(const kp_report *r, int idx, char *buf, size_t size)
{
	if (idx < 0 || (size_t)idx >= r->nimages)
		return "?";
	const kp_image *im = &r->images[idx];
	if (im->name)
		return im->name;
	snprintf(buf, size, "%c:%.8s", im->kind, im->uuid ? im->uuid : "?");
	return buf;
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

char *kpt_thread_text(const kp_report *r, const kp_thread *t, const kpt_sym *syms)
{
	size_t cap = 256 + t->nframes * 160, n = 0;
	char *out = kpt_xmalloc(cap);
	out[0] = '\0';
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
			char in[1200];
			if (k > 0)
				line_text(&s->lines[k], in, sizeof in);
			size_t need = strlen(place) + strlen(fn) + strlen(k ? in : "") + 64;
			if (n + need >= cap) {
				cap = (cap + need) * 2;
				out = kpt_xrealloc(out, cap);
			}
			if (k == 0)
				n += (size_t)snprintf(out + n, cap - n, "#%-3zu %-40s %s\n", f, place, fn);
			else
				n += (size_t)snprintf(out + n, cap - n, "     %-40s   inlined into %s\n", "", in);
		}
	}
	return out;
}
