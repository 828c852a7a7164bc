/* view_thread.c: the frames of one thread: image, offset, function and
 * file:line, with inlined calls as indented rows under their frame.
 *
 * Frames show at once as the report has them; on every draw the frames on
 * screen that nobody asked for yet go to the worker as a "visible" request,
 * and once the rest of the thread as a background request.  Results land in
 * the document's symbol cache (worker.c) and update() re-lays the rows. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"
#include "kp_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct trow {
	size_t frame, sub;   /* sub 0: the frame; k: the k-th inlined-into line */
} trow;

typedef struct thread_priv {
	kpt_process_arg at;
	trow *rows;
	size_t nrows, cap;
	bool *asked;          /* per frame: sent as a visible request */
	bool bg_sent;
	size_t done_seen;
	kpt_source_arg push;
	char push_file[1024], push_func[512];
	kpt_process_arg owner;   /* o: the thread this one waits for */
} thread_priv;

static const kp_thread *thr(kpt_view *v)
{
	thread_priv *p = v->priv;
	return &p->at.doc->r->processes[p->at.proc].threads[p->at.thread];
}

static kpt_sym *syms(kpt_view *v)
{
	thread_priv *p = v->priv;
	return kpt_doc_syms(p->at.doc, p->at.proc, p->at.thread);
}

static void relayout(kpt_view *v)
{
	thread_priv *p = v->priv;
	const kp_thread *t = thr(v);
	kpt_sym *s = syms(v);
	size_t keep_f = 0, keep_s = 0, cur;
	bool had = kpt_list_current(&v->list, &cur) && cur < p->nrows;
	if (had) {
		keep_f = p->rows[cur].frame;
		keep_s = p->rows[cur].sub;
	}
	size_t top_frame = v->list.top < p->nrows && !v->list.filtered ? p->rows[v->list.top].frame : 0;
	p->nrows = 0;
	p->done_seen = 0;
	for (size_t f = 0; f < t->nframes; f++) {
		size_t extra = s[f].state == KPT_SYM_DONE && s[f].nlines > 1 ? s[f].nlines - 1 : 0;
		p->done_seen += s[f].state == KPT_SYM_DONE;
		for (size_t k = 0; k <= extra; k++) {
			if (p->nrows == p->cap) {
				p->cap = p->cap ? p->cap * 2 : 64;
				p->rows = kpt_xrealloc(p->rows, p->cap * sizeof *p->rows);
			}
			p->rows[p->nrows++] = (trow){f, k};
		}
	}
	kpt_list_reset(&v->list, p->nrows);
	if (v->list.filter[0])
		kpt_list_refilter(v);
	for (size_t i = 0; i < p->nrows; i++) {
		if (!v->list.filtered && p->rows[i].frame == top_frame && p->rows[i].sub == 0)
			v->list.top = i;
		if (had && p->rows[i].frame == keep_f && p->rows[i].sub == keep_s)
			kpt_list_select_row(&v->list, i);
	}
}

static int thread_open(kpt_view *v, void *arg)
{
	const kpt_process_arg *a = arg;
	thread_priv *p = v->priv;
	p->at = *a;
	kpt_doc_retain(p->at.doc);
	const kp_thread *t = thr(v);
	p->asked = kpt_xcalloc(t->nframes, sizeof *p->asked);
	if (t->has_id)
		snprintf(v->title, sizeof v->title, "thread %" PRIu64, t->id);
	else if (t->cpu >= 0)
		snprintf(v->title, sizeof v->title, "thread (CPU %d)", t->cpu);
	else
		snprintf(v->title, sizeof v->title, "thread %zu", p->at.thread);
	relayout(v);
	return 0;
}

static void thread_close(kpt_view *v)
{
	thread_priv *p = v->priv;
	free(p->rows);
	free(p->asked);
	kpt_doc_release(&v->app->docs, &p->at.doc);
}

static const char *image_name(const kp_report *r, int idx, char *buf, size_t size)
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

/* frame number, image, offset, function (the rest), file:line */
enum { TC_NUM, TC_IMAGE, TC_OFFSET, TC_FUNC, TC_FILE, TC_N };
static const kpt_col thread_cols[TC_N] = {
	[TC_NUM] = {.width = 4},
	[TC_IMAGE] = {.width = 22, .wide = 30, .wide_at = 140, .narrow = 14, .gap = 1},
	[TC_OFFSET] = {.width = 10, .gap = 1},
	[TC_FUNC] = {.min = 16, .gap = 1},
	[TC_FILE] = {.width = 22, .wide = 36, .wide_at = 140},
};

static void layout(kpt_col *c, int width)
{
	memcpy(c, thread_cols, sizeof thread_cols);
	kpt_cols_layout(c, TC_N, width);
}

static void thread_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	thread_priv *p = v->priv;
	const kp_report *r = p->at.doc->r;
	const kp_thread *t = thr(v);
	const trow *tr = &p->rows[row];
	const kp_frame *f = &t->frames[tr->frame];
	const kpt_sym *s = &syms(v)[tr->frame];
	kpt_col c[TC_N];
	layout(c, width);
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	kpt_put(y, 0, width, "", st, true);
	int x = c[TC_FUNC].x;
	if (tr->sub > 0) {
		const kpt_symline *l = &s->lines[tr->sub];
		int used = kpt_put(y, x, c[TC_FUNC].w, "  inlined into ", sel ? st : KPT_ST_DIM, false);
		kpt_put(y, x + used, c[TC_FUNC].w - used, l->function ? l->function : "??", sel ? st : KPT_ST_FUNC, true);
		if (l->file)
			kpt_putf(y, c[TC_FILE].x, c[TC_FILE].w, sel ? st : KPT_ST_FILE, true, "%s:%u", base(l->file), l->line);
		return;
	}
	char buf[64];
	kpt_putf(y, c[TC_NUM].x, c[TC_NUM].w, st, true, "%3zu", tr->frame);
	kpt_put(y, c[TC_IMAGE].x, c[TC_IMAGE].w, image_name(r, f->image, buf, sizeof buf), st, true);
	if (f->has_offset)
		kpt_putf(y, c[TC_OFFSET].x, c[TC_OFFSET].w, st, true, "+0x%" PRIx64, f->offset);
	else if (f->has_address)
		kpt_putf(y, c[TC_OFFSET].x, c[TC_OFFSET].w, st, true, "%" PRIx64, f->address);
	if (s->state == KPT_SYM_DONE && s->status == KP_SYM_OK && s->nlines > 0) {
		const kpt_symline *l = &s->lines[0];
		kpt_put(y, x, c[TC_FUNC].w, l->function ? l->function : "??", sel ? st : KPT_ST_FUNC, true);
		if (l->file)
			kpt_putf(y, c[TC_FILE].x, c[TC_FILE].w, sel ? st : KPT_ST_FILE, true, "%s:%u", base(l->file), l->line);
		else if (s->note)
			kpt_put(y, c[TC_FILE].x, c[TC_FILE].w, s->note, sel ? st : KPT_ST_DIM, true);
	} else if (s->state == KPT_SYM_DONE) {
		if (f->symbol)
			kpt_put(y, x, c[TC_FUNC].w, f->symbol, sel ? st : KPT_ST_FUNC, true);
		kpt_put(y, f->symbol ? c[TC_FILE].x : x, f->symbol ? c[TC_FILE].w : c[TC_FUNC].w + c[TC_FILE].w,
		        s->note ? s->note : (f->image < 0 ? "(no image)" : "(no symbols)"), sel ? st : KPT_ST_DIM, true);
	} else {
		kpt_put(y, x, c[TC_FUNC].w, f->symbol ? f->symbol : "...", sel ? st : KPT_ST_DIM, true);
	}
}

/* Asks the worker for the frames on screen first, then for the rest. */
static void request_visible(kpt_view *v)
{
	thread_priv *p = v->priv;
	kpt_sym *s = syms(v);
	const kp_thread *t = thr(v);
	size_t vis = kpt_list_visible(&v->list);
	size_t lo = (size_t)-1, hi = 0;
	for (size_t i = v->list.top; i < vis && i < v->list.top + (size_t)v->list.height; i++) {
		size_t row = v->list.filtered ? v->list.map[i] : i;
		size_t f = p->rows[row].frame;
		if (s[f].state != KPT_SYM_DONE && !p->asked[f]) {
			p->asked[f] = true;
			if (s[f].state == KPT_SYM_NONE)
				s[f].state = KPT_SYM_PENDING;
			if (lo == (size_t)-1)
				lo = f;
			if (f + 1 > hi)
				hi = f + 1;
		}
	}
	if (lo != (size_t)-1)
		kpt_worker_request(v->app, p->at.doc, p->at.proc, p->at.thread, lo, hi, true);
	if (!p->bg_sent) {
		p->bg_sent = true;
		size_t first = (size_t)-1;
		for (size_t f = 0; f < t->nframes; f++)
			if (s[f].state == KPT_SYM_NONE && first == (size_t)-1)
				first = f;
		if (first != (size_t)-1)
			kpt_worker_request(v->app, p->at.doc, p->at.proc, p->at.thread, first, t->nframes, false);
	}
}

static void thread_draw(kpt_view *v, int y0, int h, int width)
{
	thread_priv *p = v->priv;
	const kp_thread *t = thr(v);
	kpt_col c[TC_N];
	layout(c, width);
	kpt_put(y0, 0, width, "", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_NUM].x, c[TC_NUM].w, "  #", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_IMAGE].x, c[TC_IMAGE].w, "image", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_OFFSET].x, c[TC_OFFSET].w, "offset", KPT_ST_HEADER, true);
	char fh[64];
	if (p->done_seen < t->nframes)
		snprintf(fh, sizeof fh, "function  (%zu/%zu symbolicated)", p->done_seen, t->nframes);
	else
		snprintf(fh, sizeof fh, "function");
	kpt_put(y0, c[TC_FUNC].x, c[TC_FUNC].w, fh, KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_FILE].x, c[TC_FILE].w, "file:line", KPT_ST_HEADER, true);
	if (t->nframes == 0) {
		kpt_put(y0 + 2, 2, width - 4, "This thread has no frames in the report.", KPT_ST_DIM, false);
		return;
	}
	kpt_list_draw(v, y0 + 1, h - 1, width);
	request_visible(v);
}

static const char *thread_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	thread_priv *p = v->priv;
	const trow *tr = &p->rows[row];
	const kpt_sym *s = &syms(v)[tr->frame];
	const kp_frame *f = &thr(v)->frames[tr->frame];
	char ib[64];
	const char *fn = s->nlines > tr->sub ? s->lines[tr->sub].function : f->symbol;
	const char *file = s->nlines > tr->sub ? s->lines[tr->sub].file : NULL;
	snprintf(buf, size, "%s %s %s", tr->sub ? "" : image_name(p->at.doc->r, f->image, ib, sizeof ib),
	         fn ? fn : "", file ? base(file) : "");
	return buf;
}

static unsigned thread_request(kpt_view *v, kpt_request req)
{
	thread_priv *p = v->priv;
	size_t row;
	if (req == KPT_REQ_OWNER) {
		const kp_thread *t = thr(v);
		if (t->blocked_proc < 0) {
			kpt_set_msg(v->app, "%s", t->has_blocked_pid ? "it waits for a process, not a thread"
			                                            : "no owner thread known for this thread");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->owner = p->at;
		p->owner.proc = (size_t)t->blocked_proc;
		p->owner.thread = (size_t)t->blocked_thread;
		return kpt_push_later(v->app, &kpt_view_thread, &p->owner);
	}
	if (req != KPT_REQ_ENTER)
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const trow *tr = &p->rows[row];
	const kpt_sym *s = &syms(v)[tr->frame];
	if (s->state != KPT_SYM_DONE) {
		kpt_set_msg(v->app, "frame %zu is not symbolicated yet", tr->frame);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (s->nlines <= tr->sub || !s->lines[tr->sub].file) {
		kpt_set_msg(v->app, "no source position for frame %zu%s%s", tr->frame, s->note ? ": " : "",
		            s->note ? s->note : "");
		return KPT_HANDLED | KPT_REDRAW;
	}
	const kpt_symline *l = &s->lines[tr->sub];
	snprintf(p->push_file, sizeof p->push_file, "%s", l->file);
	snprintf(p->push_func, sizeof p->push_func, "%s", l->function ? l->function : "");
	p->push = (kpt_source_arg){p->push_file, l->line, p->push_func};
	return kpt_push_later(v->app, &kpt_view_source, &p->push);
}

static const char *thread_hint(kpt_view *v)
{
	(void)v;
	return "Enter source  o owner  Esc back  / filter";
}

static unsigned thread_update(kpt_view *v)
{
	relayout(v);
	return KPT_REDRAW;
}

const kpt_view_ops kpt_view_thread = {
	.name = "thread",
	.private_size = sizeof(thread_priv),
	.open = thread_open,
	.close = thread_close,
	.draw = thread_draw,
	.draw_row = thread_draw_row,
	.row_text = thread_row_text,
	.request = thread_request,
	.hint = thread_hint,
	.update = thread_update,
};
