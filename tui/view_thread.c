/* view_thread.c: the frames of one thread: image, offset, function and
 * file:line, with inlined calls as indented rows under their frame; the
 * selected row in full in two detail lines at the bottom, and one line per
 * image without a dSYM at the top.
 *
 * Frames show at once as the report has them; on every draw the frames on
 * screen that nobody asked for yet go to the worker as a "visible" request,
 * and once the rest of the thread as a background request.  Results land in
 * the document's symbol cache (worker.c) and update() re-lays the rows. */
#include "kpt_app.h"
#include "kpt_columns.h"
#include "kpt_clipboard.h"
#include "kpt_editor.h"
#include "kpt_frame.h"
#include "kpt_options.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"
#include "kp_sanitize.h"
#include "kp_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct trow {
	size_t frame, sub;   /* sub 0: the frame; k: the k-th inlined-into line */
} trow;

/* The row above the frames of a thread that waits: whom it waits for and
 * on what; Enter on it opens the owner thread as o does. */
#define OWNER_ROW ((size_t)-1)
/* A parked thread's wait event, below its continuation: shown, never
 * symbolicated (an event is a kernel address or a hashed value). */
#define WAIT_ROW ((size_t)-2)

static bool waits(const kp_thread *t)
{
	return t->waits_on || t->has_blocked_tid || t->has_blocked_pid;
}

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
	kpt_disasm_arg disasm;   /* d: the selected frame */
	int off_need, img_need;  /* the widest offset and image label */
	int func_need;           /* the widest text of the function column */
	bool named;              /* some frame has (or may yet get) a name */
	bool filed;              /* some frame has (or may yet get) a file:line */
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

/* The frames a thread shows: its own, then its continuation (frame
 * nframes, where a parked thread resumes) when the report has one. */
static size_t nshown(const kp_thread *t)
{
	return t->nframes + (t->has_continuation ? 1 : 0);
}

static const kp_frame *frame_at(const kp_thread *t, size_t f)
{
	return f == t->nframes ? &t->continuation : &t->frames[f];
}

static bool not_frame(size_t f)
{
	return f == OWNER_ROW || f == WAIT_ROW;
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
	if (waits(t)) {
		p->cap = p->cap ? p->cap : 64;
		p->rows = kpt_xrealloc(p->rows, p->cap * sizeof *p->rows);
		p->rows[p->nrows++] = (trow){OWNER_ROW, 0};
	}
	p->off_need = p->img_need = p->func_need = 0;
	p->named = p->filed = false;
	for (size_t f = 0; f < nshown(t); f++) {
		const kp_frame *fr = frame_at(t, f);
		char ob[40], ib[64];
		int ow = fr->has_offset ? snprintf(ob, sizeof ob, "+0x%" PRIx64, fr->offset)
		         : fr->has_address ? snprintf(ob, sizeof ob, "%" PRIx64, fr->address) : 0;
		int iw = kpt_text_width(kpt_image_label(p->at.doc->r, fr->image, ib, sizeof ib));
		p->off_need = ow > p->off_need ? ow : p->off_need;
		p->img_need = iw > p->img_need ? iw : p->img_need;
		char rsbuf[512];
		const char *rs = kpt_report_symbol(fr, rsbuf, sizeof rsbuf);
		for (size_t k = 0; k < (s[f].state == KPT_SYM_DONE ? s[f].nlines : 0); k++) {
			const char *fn = s[f].lines[k].function;
			int fw = (k ? 15 : 0) + kpt_text_width(fn ? fn : "??");   /* "  inlined into " */
			p->func_need = fw > p->func_need ? fw : p->func_need;
		}
		int rw = rs ? kpt_text_width(rs) : 9;   /* "(no dSYM)", "..." */
		if (s[f].state != KPT_SYM_DONE || s[f].status != KP_SYM_OK || s[f].nlines == 0)
			p->func_need = rw > p->func_need ? rw : p->func_need;
		p->named |= fr->symbol || s[f].state != KPT_SYM_DONE || (s[f].status == KP_SYM_OK && s[f].nlines > 0);
		p->filed |= s[f].state != KPT_SYM_DONE || (s[f].status == KP_SYM_OK && s[f].nlines > 0 && s[f].lines[0].file);
	}
	for (size_t f = 0; f < nshown(t); f++) {
		size_t extra = s[f].state == KPT_SYM_DONE && s[f].nlines > 1 ? s[f].nlines - 1 : 0;
		p->done_seen += s[f].state == KPT_SYM_DONE;
		for (size_t k = 0; k <= extra; k++) {
			trow *r = kpt_xpush((void **)&p->rows, &p->nrows, &p->cap, sizeof *p->rows);
			*r = (trow){f, k};
		}
	}
	if (t->has_wait_event) {
		trow *r = kpt_xpush((void **)&p->rows, &p->nrows, &p->cap, sizeof *p->rows);
		*r = (trow){WAIT_ROW, 0};
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
	p->asked = kpt_xcalloc(nshown(t) + 1, sizeof *p->asked);
	if (t->has_id)
		snprintf(v->title, sizeof v->title, "thread %" PRIu64, t->id);
	else if (t->cpu >= 0)
		snprintf(v->title, sizeof v->title, "thread (CPU %d)", t->cpu);
	else
		snprintf(v->title, sizeof v->title, "thread %zu", p->at.thread);
	relayout(v);
	for (size_t i = 0; a->at_frame && i < p->nrows; i++)
		if (p->rows[i].frame == a->frame && p->rows[i].sub == 0) {
			kpt_list_select_row(&v->list, i);
			break;
		}
	return 0;
}

static void thread_close(kpt_view *v)
{
	thread_priv *p = v->priv;
	free(p->rows);
	free(p->asked);
	kpt_doc_release(&v->app->docs, &p->at.doc);
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* frame number, image, offset, function (the rest), file:line */
enum { TC_NUM, TC_IMAGE, TC_OFFSET, TC_FUNC, TC_FILE, TC_N };
_Static_assert(TC_N == KPT_THREAD_COLS, "kpt_columns.h");
#define FUNC_MIN 26   /* the function is what matters: the others give way first */
#define IMG_MAX 40    /* an image label grows to its need up to this */

/* Column priority: the function keeps FUNC_MIN columns while the image
 * shrinks, then the offset goes, then file:line shrinks and goes, then the
 * image goes; what is dropped is still in the detail lines. */
void kpt_thread_layout(kpt_col *c, int width)
{
	int img = width >= 140 ? 30 : 22, off = 10, file = width >= 140 ? 36 : 22;
	for (int step = 0;; step++) {
		int fixed = 4 + (img ? img + 1 : 0) + (off ? off + 1 : 0) + (file ? file + 1 : 0);
		if (width - fixed >= FUNC_MIN || step == 5)
			break;
		switch (step) {
		case 0: img = 14; break;
		case 1: off = 0; break;
		case 2: file = 16; break;
		case 3: file = 0; break;
		case 4: img = 0; break;
		}
	}
	int x = 0;
	memset(c, 0, TC_N * sizeof *c);
	c[TC_NUM] = (kpt_col){.x = 0, .w = 4};
	x = 4;
	c[TC_IMAGE] = (kpt_col){.x = x, .w = img};
	x += img ? img + 1 : 0;
	c[TC_OFFSET] = (kpt_col){.x = x, .w = off};
	x += off ? off + 1 : 0;
	int fw = width - x - (file ? file + 1 : 0);
	c[TC_FUNC] = (kpt_col){.x = x, .w = fw > 0 ? fw : 0};
	c[TC_FILE] = (kpt_col){.x = x + (fw > 0 ? fw : 0) + 1, .w = file};
}

/* The layout fitted to this thread: when no frame has a name, the image's
 * name and the whole offset come first and the function column keeps what
 * is left ("(no dSYM)"); when no frame has a file:line, the function takes
 * that column too, but for what the widest image label needs; and an offset
 * is never cut while the function column has room to give (it keeps
 * FUNC_MIN). */
static void fit_columns(const thread_priv *p, kpt_col *c, int width)
{
	if (!p->named) {
		int off = p->off_need, rest = width - c[TC_IMAGE].x;
		off = off > rest - 1 ? rest - 1 : off;
		rest -= off + 1;
		int img = p->img_need;
		if (img > rest - 11)   /* "(no dSYM)" keeps its room while the image keeps 12 */
			img = rest - 11 >= 12 ? rest - 11 : img < rest - 1 ? img : rest - 1;
		img = img < 0 ? 0 : img;
		c[TC_IMAGE].w = img;
		c[TC_OFFSET] = (kpt_col){.x = c[TC_IMAGE].x + (img ? img + 1 : 0), .w = off > 0 ? off : 0};
		c[TC_FUNC].x = c[TC_OFFSET].x + c[TC_OFFSET].w + 1;
		c[TC_FUNC].w = width - c[TC_FUNC].x > 0 ? width - c[TC_FUNC].x : 0;
		c[TC_FILE] = (kpt_col){.x = width, .w = 0};
		return;
	}
	int freed = 0;   /* the file column's room, which mattered less */
	if (!p->filed && c[TC_FILE].w) {
		freed = c[TC_FILE].w + 1;
		c[TC_FUNC].w += freed;
		c[TC_FILE] = (kpt_col){.x = width, .w = 0};
	}
	/* a bundle id is not cut while the freed file column or what the
	 * widest function leaves unused has room (the function keeps FUNC_MIN) */
	int img_want = (p->img_need < IMG_MAX ? p->img_need : IMG_MAX) - c[TC_IMAGE].w;
	if (c[TC_IMAGE].w && img_want > 0) {
		int slack = c[TC_FUNC].w - p->func_need, room = slack > freed ? slack : freed;
		room = room > c[TC_FUNC].w - FUNC_MIN ? c[TC_FUNC].w - FUNC_MIN : room;
		int g = img_want < room ? img_want : room;
		if (g > 0) {
			c[TC_IMAGE].w += g;
			c[TC_OFFSET].x += g;
			c[TC_FUNC].x += g;
			c[TC_FUNC].w -= g;
		}
	}
	if (!c[TC_OFFSET].w || !c[TC_FUNC].w)
		return;
	int give = c[TC_FUNC].w - FUNC_MIN;
	if (give <= 0)
		return;
	int more_off = p->off_need - c[TC_OFFSET].w;
	more_off = more_off < 0 ? 0 : more_off > give ? give : more_off;
	c[TC_OFFSET].w += more_off;
	c[TC_FUNC].x += more_off;
	c[TC_FUNC].w -= more_off;
}

/* "waits for thread 5001 (fakedaemon): kernel mutex 0x... owned by thread
 * 5001" (or pid N, or only what it waits on). */
static void owner_text(kpt_view *v, char *out, size_t size)
{
	thread_priv *p = v->priv;
	const kp_report *r = p->at.doc->r;
	const kp_thread *t = thr(v);
	int k = 0;
	if (t->blocked_proc >= 0 && (size_t)t->blocked_proc < r->nprocesses) {
		const kp_process *op = &r->processes[t->blocked_proc];
		k = snprintf(out, size, "waits for thread %" PRIu64 " (%s)", t->blocked_tid, op->name ? op->name : "?");
	} else if (t->has_blocked_tid) {
		k = snprintf(out, size, "waits for thread %" PRIu64 " (not in this report)", t->blocked_tid);
	} else if (t->has_blocked_pid) {
		k = snprintf(out, size, "waits for pid %" PRId64, t->blocked_pid);
	} else {
		k = snprintf(out, size, "waits");
	}
	if (k >= 0 && (size_t)k < size && t->waits_on)
		snprintf(out + k, size - (size_t)k, ": %s", t->waits_on);
}

/* "wait event: kernel +0x7029938eefffdd1b" */
static void wait_text(kpt_view *v, char *out, size_t size)
{
	const kp_report *r = ((thread_priv *)v->priv)->at.doc->r;
	const kp_frame *e = &thr(v)->wait_event;
	char ib[64];
	bool absolute = e->image < 0 || (size_t)e->image >= r->nimages || r->images[e->image].kind == 'A';
	if (e->has_offset && !absolute)
		snprintf(out, size, "wait event: %s +0x%" PRIx64, kpt_image_label(r, e->image, ib, sizeof ib), e->offset);
	else   /* an 'A' image is absolute: the offset is the value itself */
		snprintf(out, size, "wait event: 0x%" PRIx64, e->has_offset ? e->offset : e->address);
}

static void thread_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	thread_priv *p = v->priv;
	const kp_report *r = p->at.doc->r;
	if (not_frame(p->rows[row].frame)) {
		char text[700];
		if (p->rows[row].frame == OWNER_ROW)
			owner_text(v, text, sizeof text);
		else
			wait_text(v, text, sizeof text);
		kpt_put(y, 0, width, "", sel ? KPT_ST_CURSOR : KPT_ST_NORMAL, true);
		kpt_put(y, 4, width - 4, text, sel ? KPT_ST_CURSOR : KPT_ST_MARK, true);
		return;
	}
	const kp_thread *t = thr(v);
	const trow *tr = &p->rows[row];
	const kp_frame *f = frame_at(t, tr->frame);
	const kpt_sym *s = &syms(v)[tr->frame];
	kpt_col c[TC_N];
	kpt_thread_layout(c, width);
	fit_columns(p, c, width);
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
	char buf[64], rsbuf[512];
	const char *rs = kpt_report_symbol(f, rsbuf, sizeof rsbuf);   /* the report's own, + 0x.. kept */
	if (tr->frame == t->nframes)   /* the continuation: where it resumes */
		kpt_put(y, c[TC_NUM].x, c[TC_NUM].w, " ->", st, true);
	else
		kpt_putf(y, c[TC_NUM].x, c[TC_NUM].w, st, true, "%3zu", tr->frame);
	kpt_put_id(y, c[TC_IMAGE].x, c[TC_IMAGE].w, kpt_image_label(r, f->image, buf, sizeof buf), st, true);
	if (f->has_offset)
		kpt_putf(y, c[TC_OFFSET].x, c[TC_OFFSET].w, st, true, "+0x%" PRIx64, f->offset);
	else if (f->has_address)
		kpt_putf(y, c[TC_OFFSET].x, c[TC_OFFSET].w, st, true, "%" PRIx64, f->address);
	if (s->state == KPT_SYM_DONE && s->status == KP_SYM_OK && s->nlines > 0) {
		const kpt_symline *l = &s->lines[0];
		int used = kpt_put(y, x, c[TC_FUNC].w, l->function ? l->function : "??", sel ? st : KPT_ST_FUNC, false);
		if (!l->file && s->note && !c[TC_FILE].w && used + 1 < c[TC_FUNC].w)   /* no file column: after the name */
			kpt_put(y, x + used + 1, c[TC_FUNC].w - used - 1, s->note, sel ? st : KPT_ST_DIM, true);
		if (l->file)
			kpt_putf(y, c[TC_FILE].x, c[TC_FILE].w, sel ? st : KPT_ST_FILE, true, "%s:%u", base(l->file), l->line);
		else if (s->note)
			kpt_put(y, c[TC_FILE].x, c[TC_FILE].w, s->note, sel ? st : KPT_ST_DIM, true);
	} else if (s->state == KPT_SYM_DONE && s->status == KP_SYM_NO_DSYM) {
		/* said once per image above the frames, not on every row */
		kpt_put(y, x, c[TC_FUNC].w, rs ? rs : "(no dSYM)", sel ? st : rs ? KPT_ST_FUNC : KPT_ST_DIM, true);
	} else if (s->state == KPT_SYM_DONE) {
		if (rs)
			kpt_put(y, x, c[TC_FUNC].w, rs, sel ? st : KPT_ST_FUNC, true);
		kpt_put(y, rs ? c[TC_FILE].x : x, rs ? c[TC_FILE].w : c[TC_FUNC].w + c[TC_FILE].w,
		        s->note ? s->note : (f->image < 0 ? "(no image)" : "(no symbols)"), sel ? st : KPT_ST_DIM, true);
	} else {
		kpt_put(y, x, c[TC_FUNC].w, rs ? rs : "...", sel ? st : KPT_ST_DIM, true);
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
		if (not_frame(f))
			continue;
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
		for (size_t f = 0; f < nshown(t); f++)
			if (s[f].state == KPT_SYM_NONE && first == (size_t)-1)
				first = f;
		if (first != (size_t)-1)
			kpt_worker_request(v->app, p->at.doc, p->at.proc, p->at.thread, first, nshown(t), false);
	}
}

/* One line per image whose dSYM was not found (at most max): name, UUID
 * and where it was looked for; when more images miss one than there are
 * lines, the last line names the rest.  Returns the rows used. */
static int draw_no_dsym(kpt_view *v, int y, int max, int width)
{
	const kp_report *r = ((thread_priv *)v->priv)->at.doc->r;
	const kp_thread *t = thr(v);
	const kpt_sym *s = syms(v);
	int ims[64], n = 0;   /* the images, in frame order (64 lines are more than any screen) */
	size_t at[64];        /* the first frame of each: its note says where it was looked for */
	for (size_t f = 0; f < nshown(t) && n < 64; f++) {
		int im = frame_at(t, f)->image;
		if (s[f].state != KPT_SYM_DONE || s[f].status != KP_SYM_NO_DSYM)
			continue;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = ims[k] == im;
		if (!seen) {
			at[n] = f;
			ims[n++] = im;
		}
	}
	if (max <= 0 || n == 0)
		return 0;
	int whole = n <= max ? n : max - 1, used = 0;
	char ib[64];
	for (; used < whole; used++) {
		/* the worker's note: "no dSYM for UUID: looked in ..." */
		const char *note = s[at[used]].note ? s[at[used]].note : "no dSYM";
		const char *rest = strncmp(note, "no dSYM for ", 12) == 0 ? note + 12 : note;
		kpt_putf(y + used, 0, width, KPT_ST_ERROR, true, "no dSYM for %s %s",
		         kpt_image_label(r, ims[used], ib, sizeof ib), rest);
	}
	if (whole < n) {
		char names[600];
		int k = snprintf(names, sizeof names, "no dSYM for %d %simages: ", n - whole, whole ? "more " : "");
		for (int i = whole; i < n && k >= 0 && (size_t)k < sizeof names; i++)
			k += snprintf(names + k, sizeof names - (size_t)k, "%s%s", i > whole ? ", " : "",
			              kpt_image_label(r, ims[i], ib, sizeof ib));
		kpt_put(y + used++, 0, width, names, KPT_ST_ERROR, true);
	}
	return used;
}

static int put_wrapped(int y, int rows, int width, const char *text, kpt_style st)
{
	return kpt_wrap(y, 0, rows, width, text, st, true);
}

/* the lines put_wrapped would use for all of text */
static int wrapped_lines(int width, const char *text)
{
	return kpt_wrap(0, 0, 64, width, text, KPT_ST_NORMAL, false);
}

/* The selected row's detail texts: the function line, where it is (file:line,
 * image+offset, address) and the call it was inlined into ("" if none); for
 * the owner row, its action and whom it waits for.  False: no row. */
typedef struct detail {
	bool owner;
	char line[1600], where[1600], in[1600];
} detail;

static bool detail_text(kpt_view *v, detail *d)
{
	thread_priv *p = v->priv;
	size_t row;
	if (!kpt_list_current(&v->list, &row) || row >= p->nrows)
		return false;
	const kp_report *r = p->at.doc->r;
	const trow *tr = &p->rows[row];
	d->owner = not_frame(tr->frame);
	d->in[0] = '\0';
	if (tr->frame == OWNER_ROW) {
		snprintf(d->line, sizeof d->line, "%s", thr(v)->blocked_proc >= 0 ? "Enter or o: open the thread it waits for"
		                                                                 : "no owner thread known");
		owner_text(v, d->where, sizeof d->where);
		return true;
	}
	if (tr->frame == WAIT_ROW) {
		snprintf(d->line, sizeof d->line, "what the parked thread waits for (the event, as the report has it)");
		wait_text(v, d->where, sizeof d->where);
		return true;
	}
	bool cont = tr->frame == thr(v)->nframes;
	const kp_frame *f = frame_at(thr(v), tr->frame);
	const kpt_sym *s = &syms(v)[tr->frame];
	const kpt_symline *l = s->state == KPT_SYM_DONE && s->nlines > tr->sub ? &s->lines[tr->sub] : NULL;
	char rsbuf[1100], ib[64];
	const char *rs = kpt_report_symbol(f, rsbuf, sizeof rsbuf);   /* demangled, as on the row */
	const char *fn = l && l->function ? l->function : rs ? rs
	               : s->state == KPT_SYM_DONE ? (s->note ? s->note : "(no symbols)") : "(symbolicating...)";
	const kpt_symline *caller = s->state == KPT_SYM_DONE && s->nlines > tr->sub + 1
	                                    ? &s->lines[tr->sub + 1] : NULL;
	if (cont)   /* no frames to come back to: it resumes in a function of its own */
		snprintf(d->line, sizeof d->line, "continuation (resumes in) %s%s", tr->sub ? "inlined into " : "", fn);
	else
		snprintf(d->line, sizeof d->line, "#%zu %s%s", tr->frame, tr->sub ? "inlined into " : "", fn);
	size_t k = 0, wsize = sizeof d->where;
	char *where = d->where;
	where[0] = '\0';
	if (l && l->file)   /* where the source is now, when its dsymForUUID remaps it */
		k += (size_t)snprintf(where + k, wsize - k, "%s:%u  ", l->source ? l->source : l->file, l->line);
	if (k < wsize)
		k += (size_t)snprintf(where + k, wsize - k, "%s", kpt_image_label(r, f->image, ib, sizeof ib));
	if (f->has_offset && k < wsize)
		k += (size_t)snprintf(where + k, wsize - k, " +0x%" PRIx64, f->offset);
	if (f->has_address && k < wsize)
		snprintf(where + k, wsize - k, "  0x%016" PRIx64, f->address);
	if (rs && s->state == KPT_SYM_DONE && s->status == KP_SYM_NO_DSYM && s->note)   /* where it was looked for */
		snprintf(d->in, sizeof d->in, "%s", s->note);
	else if (caller && caller->function) {
		if (caller->file)
			snprintf(d->in, sizeof d->in, "inlined into %s (%s:%u)", caller->function,
			         base(caller->file), caller->line);
		else
			snprintf(d->in, sizeof d->in, "inlined into %s", caller->function);
	}
	return true;
}

/* The rows the whole detail takes at this width. */
static int detail_need(kpt_view *v, int width)
{
	detail *d = kpt_xmalloc(sizeof *d);
	int need = 0;
	if (detail_text(v, d))
		need = d->owner ? 1 + wrapped_lines(width, d->where)
		                : wrapped_lines(width, d->line) + 1 + (d->in[0] ? wrapped_lines(width, d->in) : 0);
	free(d);
	return need;
}

/* The selected row in full, below the list: the whole function (wrapped),
 * then file:line, image+offset and address, then the call it was inlined
 * into with its file:line, as many of these as rows allow. */
static void draw_detail(kpt_view *v, int y, int rows, int width)
{
	for (int i = 0; i < rows; i++)
		kpt_put(y + i, 0, width, "", i ? KPT_ST_NORMAL : KPT_ST_STATUS, true);
	detail *d = kpt_xmalloc(sizeof *d);
	if (!detail_text(v, d)) {
		free(d);
		return;
	}
	if (d->owner) {
		kpt_put(y, 0, width, d->line, KPT_ST_STATUS, true);
		if (rows > 1)
			put_wrapped(y + 1, rows - 1, width, d->where, KPT_ST_DIM);
		free(d);
		return;
	}
	/* the function gets the lines it needs of those the other two leave
	 * (one each), the inlined-into line the rest */
	int rest = rows - 1 - (d->in[0] && rows > 2);
	int need = wrapped_lines(width, d->line);
	int used = put_wrapped(y, rest < need ? (rest > 1 ? rest : 1) : need, width, d->line, KPT_ST_STATUS);
	if (used < rows)
		kpt_put(y + used++, 0, width, d->where, KPT_ST_DIM, true);
	if (used < rows && d->in[0])
		put_wrapped(y + used, rows - used, width, d->in, KPT_ST_DIM);
	free(d);
}

static void thread_draw(kpt_view *v, int y0, int h, int width)
{
	thread_priv *p = v->priv;
	const kp_thread *t = thr(v);
	kpt_col c[TC_N];
	kpt_thread_layout(c, width);
	fit_columns(p, c, width);
	kpt_put(y0, 0, width, "", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_NUM].x, c[TC_NUM].w, "  #", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_IMAGE].x, c[TC_IMAGE].w, "image", KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_OFFSET].x, c[TC_OFFSET].w, "offset", KPT_ST_HEADER, true);
	char fh[64];
	if (p->done_seen < nshown(t))
		snprintf(fh, sizeof fh, "function  (%zu/%zu symbolicated)", p->done_seen, nshown(t));
	else
		snprintf(fh, sizeof fh, "function");
	kpt_put(y0, c[TC_FUNC].x, c[TC_FUNC].w, fh, KPT_ST_HEADER, true);
	kpt_put(y0, c[TC_FILE].x, c[TC_FILE].w, "file:line", KPT_ST_HEADER, true);
	if (p->nrows == 0) {
		kpt_put(y0 + 2, 2, width - 4, "This thread has no frames in the report.", KPT_ST_DIM, false);
		return;
	}
	int detail = h >= 18 ? 4 : h >= 14 ? 3 : h >= 8 ? 2 : h >= 5 ? 1 : 0;
	int notes = draw_no_dsym(v, y0 + 1, h >= 12 ? 2 : h >= 8 ? 1 : 0, width);
	int spare = h - 1 - notes - detail - (int)kpt_list_visible(&v->list);
	if (detail && spare > 0) {   /* rows the list does not need: a long name wraps whole */
		int more = detail_need(v, width) - detail;
		more = more > spare ? spare : more;
		detail += more > 0 ? more : 0;
	}
	kpt_list_draw(v, y0 + 1 + notes, h - 1 - notes - detail, width);
	if (nshown(t) == 0 && !t->has_wait_event && h - detail > 4)   /* only the owner row above */
		kpt_put(y0 + 3 + notes, 2, width - 4, "This thread has no frames in the report.", KPT_ST_DIM, false);
	if (detail)
		draw_detail(v, y0 + h - detail, detail, width);
	request_visible(v);
}

static const char *thread_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	thread_priv *p = v->priv;
	const trow *tr = &p->rows[row];
	if (tr->frame == OWNER_ROW) {
		owner_text(v, buf, size);
		return buf;
	}
	if (tr->frame == WAIT_ROW) {
		wait_text(v, buf, size);
		return buf;
	}
	const kpt_sym *s = &syms(v)[tr->frame];
	const kp_frame *f = frame_at(thr(v), tr->frame);
	char ib[64];
	const char *fn = s->nlines > tr->sub ? s->lines[tr->sub].function : f->symbol;
	const char *file = s->nlines > tr->sub ? s->lines[tr->sub].file : NULL;
	snprintf(buf, size, "%s %s %s", tr->sub ? "" : kpt_image_label(p->at.doc->r, f->image, ib, sizeof ib),
	         fn ? fn : "", file ? base(file) : "");
	return buf;
}

/* y: the selected row as "function (file:line)" (an inlined row: its
 * call); Y: the whole thread as text */
static unsigned thread_copy(kpt_view *v, bool all)
{
	thread_priv *p = v->priv;
	const kp_thread *t = thr(v);
	size_t row;
	if (all) {
		size_t n;
		char **lines = kpt_thread_lines(p->at.doc->r, t, syms(v), &n);
		kpt_clipboard_copy_lines(v->app, (const char *const *)lines, n, "the backtrace");
		kpt_lines_free(lines, n);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const trow *tr = &p->rows[row];
	char text[1200], what[32];
	if (not_frame(tr->frame)) {
		if (tr->frame == OWNER_ROW)
			owner_text(v, text, sizeof text);
		else
			wait_text(v, text, sizeof text);
		kpt_clipboard_copy(v->app, text, "what it waits for");
		return KPT_HANDLED | KPT_REDRAW;
	}
	const kpt_sym *s = &syms(v)[tr->frame];
	if (tr->sub > 0 && tr->sub < s->nlines) {
		const kpt_symline *l = &s->lines[tr->sub];
		if (l->file)
			snprintf(text, sizeof text, "%s (%s:%u)", l->function ? l->function : "??", base(l->file), l->line);
		else
			snprintf(text, sizeof text, "%s", l->function ? l->function : "??");
	} else if (tr->frame == t->nframes) {   /* the continuation, frame 0 of a thread of its own */
		kp_thread parked = *t;
		kp_frame cont = t->continuation;
		parked.frames = &cont;
		parked.nframes = 1;
		kpt_frame_text(p->at.doc->r, &parked, s, 0, text, sizeof text);
	} else {
		kpt_frame_text(p->at.doc->r, t, s, tr->frame, text, sizeof text);
	}
	if (tr->frame == t->nframes)
		snprintf(what, sizeof what, "the continuation");
	else
		snprintf(what, sizeof what, "frame %zu", tr->frame);
	kpt_clipboard_copy(v->app, text, what);
	return KPT_HANDLED | KPT_REDRAW;
}

static unsigned thread_request(kpt_view *v, kpt_request req)
{
	thread_priv *p = v->priv;
	size_t row;
	/* Enter on the owner row follows it, as o does */
	if (req == KPT_REQ_ENTER && kpt_list_current(&v->list, &row) && p->rows[row].frame == OWNER_ROW)
		req = KPT_REQ_OWNER;
	if ((req == KPT_REQ_EDIT || req == KPT_REQ_DISASM) && kpt_list_current(&v->list, &row) && p->rows[row].frame == OWNER_ROW) {
		kpt_set_msg(v->app, "not a frame: Enter opens the thread it waits for");
		return KPT_HANDLED | KPT_REDRAW;
	}
	if ((req == KPT_REQ_ENTER || req == KPT_REQ_EDIT || req == KPT_REQ_DISASM) && kpt_list_current(&v->list, &row) &&
	    p->rows[row].frame == WAIT_ROW) {
		kpt_set_msg(v->app, "not a frame: the event the thread waits for");
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_DISASM && kpt_list_current(&v->list, &row) && p->rows[row].frame == thr(v)->nframes) {
		kpt_set_msg(v->app, "the continuation is where the thread resumes: no call to disassemble around");
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_OWNER) {
		const kp_thread *t = thr(v);
		if (t->blocked_proc < 0) {
			kpt_set_msg(v->app, "%s", t->has_blocked_pid ? "it waits for a process, not a thread"
			                                            : "no owner thread known for this thread");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->owner = p->at;
		p->owner.at_frame = false;
		p->owner.proc = (size_t)t->blocked_proc;
		p->owner.thread = (size_t)t->blocked_thread;
		return kpt_push_later(v->app, &kpt_view_thread, &p->owner);
	}
	if (req == KPT_REQ_COPY || req == KPT_REQ_COPYALL)
		return thread_copy(v, req == KPT_REQ_COPYALL);
	if (req == KPT_REQ_DISASM && kpt_list_current(&v->list, &row)) {
		p->disasm = (kpt_disasm_arg){p->at.doc, p->at.proc, p->at.thread, p->rows[row].frame};
		return kpt_push_later(v->app, &kpt_view_disasm, &p->disasm);
	}
	if (req != KPT_REQ_ENTER && req != KPT_REQ_EDIT)
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
	const char *file = l->source ? l->source : l->file;   /* remapped by its dsymForUUID */
	if (req == KPT_REQ_EDIT) {
		kpt_editor_open(v->app, file, l->line);
		return KPT_HANDLED | KPT_REDRAW;
	}
	snprintf(p->push_file, sizeof p->push_file, "%s", file);
	snprintf(p->push_func, sizeof p->push_func, "%s", l->function ? l->function : "");
	p->push = (kpt_source_arg){p->push_file, l->line, p->push_func};
	return kpt_push_later(v->app, &kpt_view_source, &p->push);
}

static const char *thread_hint(kpt_view *v)
{
	(void)v;
	return "Enter source  e edit  y/Y copy  o owner  Esc back";
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
