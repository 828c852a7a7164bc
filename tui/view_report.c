/* view_report.c: one report: a summary tab (the report's summary as show
 * prints it, kp_summary.h, with the panicked thread's first frames under its
 * line, the processes, the panic string wrapped to the screen) and an
 * images tab (every binary image and loaded kext with its UUID, below the
 * symbol sources' warnings (kpt_worker_warning); Enter lists
 * every panic with that UUID).  Rows are rebuilt when the width changes.
 *
 * The panic string may be tens of megabytes on one line: its rows are laid
 * out lazily, in one linear pass, as (offset, length) slices of the
 * report's own string; opening and drawing lay out only what the screen
 * shows, and the idle op lays out the rest in slices of a few milliseconds,
 * so keys and signals are answered meanwhile. */
#include "kp_signature.h"
#include "kpt_app.h"
#include "kpt_clipboard.h"
#include "kpt_frame.h"
#include "kpt_options.h"
#include "kpt_worker.h"
#include "kpt_write.h"
#include "kp_symbols.h"
#include "kpt_draw.h"
#include "kpt_loader.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"
#include "kp_sanitize.h"
#include "kp_summary.h"
#include "kp_utf8.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ROW_TASK: the "Panicked task" line, whose Enter opens that process */
/* A name holding an invisible or control character: its row is marked
 * "!" (the images tab's legend and the processes heading say why). */
static bool name_hidden(const char *name)
{
	return name && kp_text_has_unsafe(name, strlen(name));
}

enum row_kind { ROW_TEXT, ROW_HEADER, ROW_PROCESS, ROW_TASK, ROW_THREAD, ROW_IMAGE, ROW_KEXT, ROW_PANIC, ROW_FRAME, ROW_DSYM };

typedef struct rrow {
	int kind;
	size_t idx;        /* process, image or kext index; ROW_PANIC: byte offset */
	size_t len;        /* ROW_PANIC: bytes of the panic string (untrusted) */
	char *text;        /* ROW_TEXT / ROW_HEADER, sanitised */
} rrow;

#define PANIC_INDENT 2

typedef struct report_priv {
	kpt_doc *doc;
	bool images;
	int width;         /* rows were built for this width */
	rrow *rows;
	size_t nrows, cap;
	const char *panic; /* the panic string being laid out (the report's) */
	size_t panic_len;
	char *joined;      /* owned: the preamble, a newline, the panic string */
	size_t split;      /* where the panic string starts in panic (0: no preamble) */
	size_t wrap_off;   /* next byte of it to lay out */
	bool wrapping;     /* rows of it are still to come */
	bool follow_end;   /* End was asked while wrapping: stay on the last row */
	kpt_process_arg push;
	kpt_disasm_arg push_disasm;   /* d on a frame row */
	char push_uuid[256];
	bool has_bt;       /* the summary shows the panicked thread's first frames */
	size_t bt_proc, bt_thread;
	size_t bt_culprit; /* the culprit kext's frame shown after a gap, else SIZE_MAX */
	bool bt_asked;     /* they went to the worker */
	int psort;         /* processes: 0 as the report lists them, else by PSORT_* count */
	int name_need, ver_need;   /* images tab: the widest name and version */
	size_t warns_shown;        /* images tab: the symbol sources' warnings listed */
} report_priv;

/* s cycles the process order: as listed, then most running, waiting,
 * blocked (waiting on a known owner) threads first. */
enum { PSORT_LISTED, PSORT_RUN, PSORT_WAIT, PSORT_BLOCKED, PSORT_N };
static const char *const psort_name[PSORT_N] = {"", "running", "waiting", "blocked"};

/* A process's thread state counts: running, waiting, and waiting on a
 * known owner (thread or process). */
static void proc_counts(const kp_process *pr, size_t n[PSORT_N])
{
	memset(n, 0, PSORT_N * sizeof *n);
	for (size_t t = 0; t < pr->nthreads; t++) {
		const kp_thread *th = &pr->threads[t];
		n[PSORT_RUN] += th->state && strstr(th->state, "TH_RUN") != NULL;
		n[PSORT_WAIT] += th->state && strstr(th->state, "TH_WAIT") != NULL;
		n[PSORT_BLOCKED] += th->has_blocked_tid || th->has_blocked_pid;
	}
}

typedef struct psort_item {
	size_t idx, count;
} psort_item;

static int psort_cmp(const void *a, const void *b)
{
	const psort_item *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;   /* most first */
	return x->idx < y->idx ? -1 : x->idx > y->idx;   /* then as listed */
}

/* frames of the panicked thread on the summary: with the Class line, a
 * culprit kext after a gap still shows at 80x24 */
#define BT_FRAMES 9

static void add_row(report_priv *p, int kind, size_t idx, const char *text)
{
	rrow *r = kpt_xpush((void **)&p->rows, &p->nrows, &p->cap, sizeof *p->rows);
	*r = (rrow){kind, idx, 0, kpt_xstrdup(text)};
}

static void add_text(report_priv *p, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_text(report_priv *p, int kind, const char *fmt, ...)
{
	char raw[1024], clean[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	kp_sanitize(clean, sizeof clean, raw, strlen(raw), 0);
	add_row(p, kind, 0, clean);
}

/* Lays out up to max_rows more rows of the panic string, wrapped to the
 * width at a space in the second half of a row when there is one; linear
 * in the bytes laid out.  The rows after the panic string (one blank) are
 * added when it is done. */
static void wrap_more(report_priv *p, size_t max_rows)
{
	const char *s = p->panic;
	size_t n = p->panic_len;
	int avail = p->width - PANIC_INDENT - 1;
	if (avail < 10)
		avail = 10;   /* wider than any one unit's sanitised form ("<U+10FFFF>") */
	for (size_t rows = 0; p->wrap_off < n && rows < max_rows; rows++) {
		size_t off = p->wrap_off, i = off, brk = 0;
		if (p->split && off == p->split) {   /* the text before the panic line is done */
			add_row(p, ROW_TEXT, 0, "");
			add_row(p, ROW_HEADER, 0, "Panic string");
		}
		int w = 0;
		while (i < n && s[i] != '\n') {
			size_t k = 1;
			int cw = 1;
			unsigned char c = (unsigned char)s[i];
			if (c < 0x20 || c >= 0x7F)
				cw = kp_sanitize_next(s + i, n - i, &k);
			if (w + cw > avail)
				break;
			w += cw;
			i += k;
			if (c == ' ' && w > avail / 2)
				brk = i;
		}
		size_t end = i < n && s[i] != '\n' && brk > 0 ? brk : i;
		add_row(p, ROW_PANIC, off, NULL);
		p->rows[p->nrows - 1].len = end - off;
		p->wrap_off = end < n && s[end] == '\n' ? end + 1 : end;
	}
	if (p->wrap_off >= n && p->wrapping) {
		p->wrapping = false;
		add_row(p, ROW_TEXT, 0, "");
	}
}

/* Lays out the panic string's rows at least down to what the screen can
 * show from the list's top. */
static void wrap_visible(kpt_view *v)
{
	report_priv *p = v->priv;
	size_t want = v->list.top + (size_t)(v->list.height > 0 ? v->list.height : 50) + 1;
	if (p->wrapping && p->nrows < want) {
		wrap_more(p, want - p->nrows);
		if (!v->list.filtered)
			v->list.n = p->nrows;
	}
}

static void free_rows(report_priv *p)
{
	p->wrapping = false;
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].text);
	p->nrows = 0;
}

/* The panicked thread's first frames (and the culprit kext's after a gap,
 * kp_summary_frames) under its line: the answer on the first screen. */
static void add_backtrace(report_priv *p, const kp_report *r)
{
	const kp_process *pp = NULL;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	if (pt && pp) {
		p->has_bt = true;
		p->bt_proc = (size_t)(pp - r->processes);
		p->bt_thread = (size_t)(pt - pp->threads);
	}
	p->bt_culprit = SIZE_MAX;
	if (pt && pp && pt->nframes > 0) {
		size_t idx[BT_FRAMES];
		size_t n = kp_summary_frames(r, pt, BT_FRAMES, idx);
		bool gap = n && idx[n - 1] != n - 1;
		add_row(p, ROW_TEXT, 0, "");
		char bh[128];
		if (gap)
			snprintf(bh, sizeof bh, "Backtrace of the panicked thread (frames 0-%d and the culprit's; Enter: all)",
			         BT_FRAMES - 2);
		else if (pt->nframes > BT_FRAMES)
			snprintf(bh, sizeof bh, "Backtrace of the panicked thread (first %d frames; Enter: all)", BT_FRAMES);
		else
			snprintf(bh, sizeof bh, "Backtrace of the panicked thread (Enter: the thread)");
		add_row(p, ROW_HEADER, 0, bh);
		for (size_t f = 0; f < n; f++) {
			if (gap && f == n - 1)
				p->bt_culprit = idx[f];   /* drawn as "…13": the gap before it */
			add_row(p, ROW_FRAME, idx[f], NULL);
		}
		add_row(p, ROW_TEXT, 0, "");
	}
}

/* The summary (kp_summary.h), a row each but the lines the screen shows
 * elsewhere (KP_SUM_DETAIL: the Processes heading, the Images tab): fields
 * as "Label:" padded, the date with its UTC beside it (a date without a
 * zone says it is the Mac's clock instead, kp_summary); a heading after a
 * blank row; a line naming a process or thread is a row whose Enter opens
 * it; the short backtrace under the Panicked thread line. */
static void add_summary(report_priv *p, const kp_report *r)
{
	kp_summary s;
	kp_error err;
	if (kp_summary_build(r, &s, &err) != KP_OK) {
		add_text(p, ROW_TEXT, "(summary: %s)", err.msg);
		return;
	}
	for (size_t i = 0; i < s.n; i++) {
		const kp_sum_line *l = &s.lines[i];
		if (l->flags & KP_SUM_DETAIL)
			continue;
		if (l->flags & KP_SUM_HEADING) {
			add_row(p, ROW_TEXT, 0, "");
			add_text(p, ROW_HEADER, "%s", l->value);
			continue;
		}
		int kind = l->flags & KP_SUM_LINK_PROCESS ? ROW_TASK : l->flags & KP_SUM_LINK_THREAD ? ROW_THREAD : ROW_TEXT;
		char utc[64] = "";
		kpi_date_kind dk = l->key == KP_SUM_DATE ? kpi_date_label(r->timestamp, utc, sizeof utc) : KPI_DATE_NONE;
		if (dk == KPI_DATE_UTC)
			snprintf(utc + strlen(utc), sizeof utc - strlen(utc), "%s", kpi_date_zone(dk));
		else   /* a date without a zone is already the Mac's, as the line gives it */
			utc[0] = '\0';
		if (l->flags & (KP_SUM_ITEM | KP_SUM_SUB))
			add_text(p, kind, "%s%s", l->flags & KP_SUM_ITEM ? "  " : "      ", l->value);
		else
			add_text(p, kind, "%-*s %s%s%s%s", KP_SUM_LABEL_WIDTH, l->label, l->value, utc[0] ? "  (" : "", utc,
			         utc[0] ? ")" : "");
		if (kind != ROW_TEXT)
			p->rows[p->nrows - 1].idx = (size_t)l->ref.proc * 100000 + (size_t)l->ref.thread;
		if (l->key == KP_SUM_PANICKED_THREAD)
			add_backtrace(p, r);
	}
	kp_summary_free(&s);
}

static void build_summary(kpt_view *v, int width)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	p->bt_culprit = SIZE_MAX;
	add_summary(p, r);
	add_row(p, ROW_TEXT, 0, "");
	char h[96];
	if (p->psort)
		snprintf(h, sizeof h, "Processes (%zu), most %s threads first (s: next order)", r->nprocesses,
		         psort_name[p->psort]);
	else
		snprintf(h, sizeof h, "Processes (%zu)", r->nprocesses);
	add_row(p, ROW_HEADER, 0, h);
	for (size_t i = 0; i < r->nprocesses; i++)
		if (name_hidden(r->processes[i].name)) {
			add_row(p, ROW_TEXT, 0, "  ! the name holds an invisible character: it is not the name it looks like");
			break;
		}
	psort_item *order = kpt_xmalloc((r->nprocesses ? r->nprocesses : 1) * sizeof *order);
	for (size_t i = 0; i < r->nprocesses; i++) {
		size_t n[PSORT_N];
		proc_counts(&r->processes[i], n);
		order[i] = (psort_item){i, p->psort ? n[p->psort] : 0};
	}
	if (p->psort)
		qsort(order, r->nprocesses, sizeof *order, psort_cmp);
	for (size_t i = 0; i < r->nprocesses; i++)
		add_row(p, ROW_PROCESS, order[i].idx, NULL);
	free(order);
	/* no heading over nothing: a stackshot without a panic string has none */
	bool has_panic = r->panic_string && r->panic_string[0];
	bool has_pre = r->preamble && r->preamble[0];
	free(p->joined);
	p->joined = NULL;
	p->split = 0;
	if (has_pre) {   /* machine-check state, halt chatter: above the panic string */
		size_t a = strlen(r->preamble), b = has_panic ? strlen(r->panic_string) : 0;
		p->joined = kpt_xmalloc(a + 1 + b + 1);
		memcpy(p->joined, r->preamble, a);
		p->joined[a] = '\n';
		memcpy(p->joined + a + 1, has_panic ? r->panic_string : "", b + 1);
		p->split = has_panic ? a + 1 : 0;
		add_row(p, ROW_TEXT, 0, "");
		add_row(p, ROW_HEADER, 0, "Before the panic line");
	} else if (has_panic) {
		add_row(p, ROW_TEXT, 0, "");
		add_row(p, ROW_HEADER, 0, "Panic string");
	}
	p->panic = p->joined ? p->joined : has_panic ? r->panic_string : "";
	p->panic_len = strlen(p->panic);
	p->wrap_off = 0;
	p->wrapping = true;
	(void)width;
	wrap_more(p, (size_t)(v->list.top + 200));
}

static void build_images(kpt_view *v)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	char h[64];
	snprintf(h, sizeof h, "Binary images (%zu)", r->nimages);
	add_row(p, ROW_HEADER, 0, h);
	/* the legend names every letter the rows use, and only those, in as
	 * many rows as the width needs */
	static const struct { char k; const char *what; } kinds[] = {
		{'K', "kernel"}, {'U', "kernelcache"}, {'M', "kernelcache"}, {'T', "kernel or kext text segment"},
		{'X', "kext named by the text only"}, {'A', "absolute"}, {'P', "process binary"},
		{'S', "shared cache"}, {'C', "shared-cache library"}, {'?', "unknown"},
	};
	bool seen[256] = {false}, named[256] = {false};
	for (size_t i = 0; i < r->nimages; i++)
		seen[(unsigned char)r->images[i].kind] = true;
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		named[(unsigned char)kinds[k].k] = true;
	char line[512] = "  kind:";
	size_t n = strlen(line), items = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < (pass ? 256 : sizeof kinds / sizeof *kinds); k++) {
			char one[64];
			if (!pass && seen[(unsigned char)kinds[k].k])
				snprintf(one, sizeof one, " %c %s", kinds[k].k, kinds[k].what);
			else if (pass && seen[k] && !named[k] && k >= 0x21 && k < 0x7f)
				snprintf(one, sizeof one, " %c", (int)k);   /* a letter not known: as itself */
			else
				continue;
			size_t m = strlen(one);
			if (items && n + 1 + m >= (size_t)(p->width > 20 ? p->width : 80)) {
				add_row(p, ROW_TEXT, 0, line);
				snprintf(line, sizeof line, "       ");
				n = strlen(line);
			} else if (items) {
				line[n++] = ',';
			}
			snprintf(line + n, sizeof line - n, "%s", one);
			n = strlen(line);
			items++;
		}
	add_row(p, ROW_TEXT, 0, line);
	bool hidden = false;
	for (size_t i = 0; i < r->nimages; i++)
		hidden |= name_hidden(r->images[i].name);
	for (size_t i = 0; i < r->nkexts; i++)
		hidden |= name_hidden(r->kexts[i].name);
	if (hidden)
		add_row(p, ROW_TEXT, 0, "  ! the name holds an invisible character: it is not the name it looks like");
	add_row(p, ROW_TEXT, 0, "  under each image: its dSYM, or where it was looked for");
	/* what is wrong with a symbol source the user named (a --dsym of
	 * another build, one that cannot be read), as `symbols where` says it:
	 * one row each, as the worker learns them */
	const char *warn;
	for (p->warns_shown = 0; (warn = kpt_worker_warning(v->app, p->warns_shown)) != NULL; p->warns_shown++)
		add_text(p, ROW_TEXT, "  ! %s", warn);
	p->name_need = p->ver_need = 0;
	for (size_t i = 0; i < r->nimages + r->nkexts; i++) {
		const char *nm = i < r->nimages ? r->images[i].name : r->kexts[i - r->nimages].name;
		const char *ver = i < r->nimages ? r->images[i].version : r->kexts[i - r->nimages].version;
		int nw = kpt_text_width(nm ? nm : "?"), vw = kpt_text_width(ver ? ver : "");
		p->name_need = nw > p->name_need ? nw : p->name_need;
		p->ver_need = vw > p->ver_need ? vw : p->ver_need;
	}
	for (size_t i = 0; i < r->nimages; i++) {
		add_row(p, ROW_IMAGE, i, NULL);
		add_row(p, ROW_DSYM, i, NULL);
	}
	add_row(p, ROW_TEXT, 0, "");
	snprintf(h, sizeof h, "Loaded kexts (%zu)%s", r->nkexts, r->kexts_skipped ? " - skipped by the report" : "");
	add_row(p, ROW_HEADER, 0, h);
	for (size_t i = 0; i < r->nkexts; i++)
		add_row(p, ROW_KEXT, i, NULL);
}

/* rows an 80x24 screen shows under the report's title and tabs */
#define FIRST_SCREEN_ROWS 20

static void rebuild(kpt_view *v, int width)
{
	report_priv *p = v->priv;
	size_t keep_kind = 0, keep_idx = 0, cur;
	bool had = kpt_list_current(&v->list, &cur) && cur < p->nrows;
	if (had) {
		keep_kind = (size_t)p->rows[cur].kind;
		keep_idx = p->rows[cur].idx;
	}
	free_rows(p);
	p->width = width;
	if (p->images)
		build_images(v);
	else
		build_summary(v, width);
	kpt_list_reset(&v->list, p->nrows);
	if (v->list.filter[0])
		kpt_list_refilter(v);
	/* Opened, the report shows its top (Panic:, Date, OS, Product) with the
	 * cursor on the panicked task's row (Enter: the process, as from its
	 * row below), else the panicked thread's, else the first process or
	 * image when that is on the first screen, else the top row. */
	size_t first = (size_t)-1, thread = (size_t)-1;
	for (size_t i = 0; i < p->nrows; i++) {
		if (had && (size_t)p->rows[i].kind == keep_kind && p->rows[i].idx == keep_idx && keep_kind != ROW_TEXT &&
		    keep_kind != ROW_PANIC) {
			kpt_list_select_row(&v->list, i);
			return;
		}
		if (first == (size_t)-1 && (p->rows[i].kind == ROW_PROCESS || p->rows[i].kind == ROW_IMAGE))
			first = i;
		if ((thread == (size_t)-1 || p->rows[thread].kind != ROW_TASK) &&
		    (p->rows[i].kind == ROW_TASK || (thread == (size_t)-1 && p->rows[i].kind == ROW_THREAD)))
			thread = i;
	}
	if (had)
		return;
	v->list.top = 0;
	if (thread != (size_t)-1)
		kpt_list_select_row(&v->list, thread);
	else if (first != (size_t)-1 && first < FIRST_SCREEN_ROWS)
		kpt_list_select_row(&v->list, first);
	else
		kpt_list_select_row(&v->list, 0);
}

static int report_open(kpt_view *v, void *arg)
{
	const kpt_entry *e = arg;
	kp_error err;
	kpt_doc *d = kpt_doc_open(v->app, e->id, e->path, &err);
	if (!d) {
		kpt_set_msg(v->app, "cannot open report %" PRId64 ": %s", e->id, err.msg);
		return -1;
	}
	report_priv *p = v->priv;
	p->doc = d;
	snprintf(v->title, sizeof v->title, "Report %" PRId64, e->id);
	return 0;
}

static void report_close(kpt_view *v)
{
	report_priv *p = v->priv;
	free_rows(p);
	free(p->rows);
	free(p->joined);
	kpt_doc_release(&v->app->docs, &p->doc);
}

/* The images tab's columns from column 3: name (cut from the left),
 * version (cut with "…") and UUID.  The UUID is whole while the name keeps
 * NAME_KEEP columns (or all it needs), else as many of its first digits as
 * fit (8 at least) and "…", the whole of it then on the detail line at the
 * bottom; the version is as wide as the widest (12 at most). */
#define NAME_KEEP 24
#define UUID_LEN 36
typedef struct ident_cols {
	int nw, vw, uw;
	bool cut;   /* some name or UUID does not show whole: the detail line */
} ident_cols;

static ident_cols ident_layout(const report_priv *p, int width)
{
	ident_cols c;
	c.vw = p->ver_need < 12 ? p->ver_need : 12;
	int rest = width - 3 - (c.vw ? c.vw + 1 : 0) - 1;   /* name, a gap, UUID */
	int keep = p->name_need < NAME_KEEP ? p->name_need : NAME_KEEP;
	c.uw = rest - keep >= UUID_LEN ? UUID_LEN : rest - keep > 9 ? rest - keep : 9;
	c.nw = rest - c.uw;
	if (c.nw < 8)
		c.nw = 8;
	c.cut = c.uw < UUID_LEN || p->name_need > c.nw || p->ver_need > c.vw;
	return c;
}

static void put_ident(int y, int width, const ident_cols *c, const char *name, const char *version,
                      const char *uuid, kpt_style name_st, kpt_style st)
{
	if (name_hidden(name))
		kpt_put(y, 2, 1, "!", KPT_ST_ERROR, false);
	kpt_put_id(y, 3, c->nw, name ? name : "?", name_st, true);
	if (c->vw)
		kpt_put(y, 3 + c->nw + 1, c->vw, version ? version : "", st, true);
	kpt_put(y, width - c->uw, c->uw, uuid ? uuid : "-", st, true);   /* cut: its first digits and "…" */
}

/* The detail line of the images tab: the selected image or kext whole. */
static void draw_ident_detail(kpt_view *v, int y, int width)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	size_t row;
	kpt_put(y, 0, width, "", KPT_ST_STATUS, true);
	if (!kpt_list_current(&v->list, &row) || row >= p->nrows)
		return;
	const rrow *rr = &p->rows[row];
	const char *name, *ver, *uuid;
	if (rr->kind == ROW_IMAGE || rr->kind == ROW_DSYM) {
		name = r->images[rr->idx].name;
		ver = r->images[rr->idx].version;
		uuid = r->images[rr->idx].uuid;
	} else if (rr->kind == ROW_KEXT) {
		name = r->kexts[rr->idx].name;
		ver = r->kexts[rr->idx].version;
		uuid = r->kexts[rr->idx].uuid;
	} else {
		kpt_put(y, 0, width, "the selected image in full here (y copies its UUID)", KPT_ST_STATUS, true);
		return;
	}
	char line[1024];
	/* the UUID first: it is what a narrow row cuts */
	snprintf(line, sizeof line, "%s  %s%s%s", uuid ? uuid : "(no UUID)", name ? name : "?", ver ? " " : "",
	         ver ? ver : "");
	kpt_put(y, 0, width, line, KPT_ST_STATUS, true);
}

static void report_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	const rrow *rr = &p->rows[row];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	switch (rr->kind) {
	case ROW_TEXT:
	case ROW_TASK:
	case ROW_THREAD:
		kpt_put(y, 0, width, rr->text, st, true);
		break;
	case ROW_PANIC: {
		char raw[PANIC_INDENT + 600 + 1];   /* kpt_put shows at most 600 bytes */
		size_t n = rr->len < 600 ? rr->len : 600;
		memset(raw, ' ', PANIC_INDENT);
		memcpy(raw + PANIC_INDENT, p->panic + rr->idx, n);
		raw[PANIC_INDENT + n] = '\0';
		kpt_put(y, 0, width, raw, st, true);
		break;
	}
	case ROW_HEADER:
		kpt_put(y, 0, width, rr->text, sel ? st : KPT_ST_HEADER, true);
		break;
	case ROW_DSYM: {
		const char *found = p->doc->dsyms ? p->doc->dsyms[rr->idx] : NULL;
		char line[1200];
		if (!r->images[rr->idx].uuid)
			snprintf(line, sizeof line, "     no UUID in the report: nothing to look for");
		else if (!found)
			snprintf(line, sizeof line, "     dSYM: looking...");
		else if (found[0])
			snprintf(line, sizeof line, "     dSYM (%s): %s", kp_arch_name(r->arch), found);
		else {
			const char *said = p->doc->dsym_said ? p->doc->dsym_said[rr->idx] : NULL;
			snprintf(line, sizeof line, "     no dSYM: %s", said ? said : "not found");
		}
		kpt_put(y, 0, width, line, sel ? st : found && found[0] ? KPT_ST_FILE : KPT_ST_DIM, true);
		break;
	}
	case ROW_FRAME: {
		const kp_thread *t = &r->processes[p->bt_proc].threads[p->bt_thread];
		const kpt_sym *s = &kpt_doc_syms(p->doc, p->bt_proc, p->bt_thread)[rr->idx];
		char text[1200];
		kpt_frame_text(r, t, s, rr->idx, text, sizeof text);
		kpt_put(y, 0, width, "", st, true);
		int x = rr->idx == p->bt_culprit ? kpt_putf(y, 0, 5, st, true, " \u2026%2zu ", rr->idx)
		                                 : kpt_putf(y, 0, 5, st, true, "  %2zu ", rr->idx);
		bool done = s->state == KPT_SYM_DONE && s->status == KP_SYM_OK;
		x += kpt_put(y, x, width - x, text, sel ? st : done ? KPT_ST_FUNC : KPT_ST_DIM, false);
		if (s->state != KPT_SYM_DONE)
			kpt_put(y, x, width - x, "  ...", sel ? st : KPT_ST_DIM, false);
		break;
	}
	case ROW_PROCESS: {
		const kp_process *pr = &r->processes[rr->idx];
		bool panicked = false;
		for (size_t t = 0; t < pr->nthreads; t++)
			panicked |= pr->threads[t].panicked;
		char pid[24] = "-";
		if (pr->has_pid)
			snprintf(pid, sizeof pid, "%" PRId64, pr->pid);
		kpt_put(y, 0, width, "", st, true);
		kpt_put(y, 0, 2, panicked ? "* " : "  ", sel ? st : KPT_ST_MARK, true);
		if (name_hidden(pr->name))
			kpt_put(y, 1, 1, "!", KPT_ST_ERROR, false);
		kpt_putf(y, 2, 9, st, true, "%7s", pid);
		int used = kpt_put(y, 11, width - 40 > 20 ? width - 40 : 20, pr->name ? pr->name : "(unnamed)", sel ? st : KPT_ST_FUNC, false);
		size_t n[PSORT_N];
		proc_counts(pr, n);
		char counts[96] = "";
		if (n[PSORT_RUN] || n[PSORT_WAIT])
			snprintf(counts, sizeof counts, "  %zu run %zu wait %zu blocked", n[PSORT_RUN], n[PSORT_WAIT],
			         n[PSORT_BLOCKED]);
		kpt_putf(y, 11 + used + 2, width - 13 - used, st, false, "%zu thread%s%s%s%s", pr->nthreads,
		         pr->nthreads == 1 ? "" : "s", counts, pr->frontmost ? "   frontmost" : "",
		         panicked ? "   panicked" : "");
		break;
	}
	case ROW_IMAGE: {
		const kp_image *im = &r->images[rr->idx];
		kpt_put(y, 0, width, "", st, true);
		kpt_putf(y, 0, 3, st, true, " %c", im->kind);
		ident_cols ic = ident_layout(p, width);
		put_ident(y, width, &ic, im->name, im->version, im->uuid, sel ? st : KPT_ST_FUNC, st);
		break;
	}
	case ROW_KEXT: {
		const kp_kext *k = &r->kexts[rr->idx];
		kpt_put(y, 0, width, "", st, true);
		ident_cols ic = ident_layout(p, width);
		put_ident(y, width, &ic, k->name, k->version, k->uuid, st, st);
		break;
	}
	}
}

static void report_draw(kpt_view *v, int y0, int h, int width)
{
	report_priv *p = v->priv;
	if (!p->doc->r) {   /* loading off the UI thread (kpt_loader.h) */
		if (p->doc->load_error)
			kpt_putf(y0 + 1, 2, width - 4, KPT_ST_ERROR, false, "cannot open this report: %s", p->doc->load_error);
		else
			kpt_put(y0 + 1, 2, width - 4, "Loading the report...", KPT_ST_DIM, false);
		return;
	}
	if (p->width != width || (p->images && p->warns_shown != kpt_worker_nwarnings(v->app)))
		rebuild(v, width);   /* a new warning: its row, the cursor kept on its image */
	if (p->images)
		kpt_worker_find_dsyms(v->app, p->doc);
	if (p->has_bt && !p->bt_asked) {   /* symbols for the summary's backtrace, first */
		p->bt_asked = true;
		kpt_sym *s = kpt_doc_syms(p->doc, p->bt_proc, p->bt_thread);
		size_t n = p->doc->r->processes[p->bt_proc].threads[p->bt_thread].nframes;
		n = n < BT_FRAMES ? n : BT_FRAMES;
		bool any = false;
		for (size_t f = 0; f < n; f++)
			if (s[f].state == KPT_SYM_NONE) {
				s[f].state = KPT_SYM_PENDING;
				any = true;
			}
		if (any)
			kpt_worker_request(v->app, p->doc, p->bt_proc, p->bt_thread, 0, n, true);
		size_t c = p->bt_culprit;
		if (c != SIZE_MAX && s[c].state == KPT_SYM_NONE) {
			s[c].state = KPT_SYM_PENDING;
			kpt_worker_request(v->app, p->doc, p->bt_proc, p->bt_thread, c, c + 1, true);
		}
	}
	/* the images tab: a detail line with the selected row whole when some
	 * name or UUID is cut at this width */
	int detail = p->images && h > 6 && ident_layout(p, width).cut ? 1 : 0;
	v->list.height = h - 1 - detail;
	wrap_visible(v);
	int x = kpt_put(y0, 0, width, " Summary ", p->images ? KPT_ST_DIM : KPT_ST_CURSOR, false);
	x += kpt_put(y0, x, width - x, " ", KPT_ST_NORMAL, false);
	x += kpt_put(y0, x, width - x, " Images ", p->images ? KPT_ST_CURSOR : KPT_ST_DIM, false);
	kpt_put(y0, x, width - x, "   (Tab switches)", KPT_ST_DIM, false);
	kpt_list_draw(v, y0 + 1, h - 1 - detail, width);
	if (detail)
		draw_ident_detail(v, y0 + h - 1, width);
}

static const char *report_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	const rrow *rr = &p->rows[row];
	switch (rr->kind) {
	case ROW_PROCESS:
		snprintf(buf, size, "%s", r->processes[rr->idx].name ? r->processes[rr->idx].name : "");
		return buf;
	case ROW_FRAME:
		kpt_frame_text(r, &r->processes[p->bt_proc].threads[p->bt_thread],
		               &kpt_doc_syms(p->doc, p->bt_proc, p->bt_thread)[rr->idx], rr->idx, buf, size);
		return buf;
	case ROW_IMAGE: {
		const kp_image *im = &r->images[rr->idx];
		snprintf(buf, size, "%s %s %s", im->name ? im->name : "", im->version ? im->version : "",
		         im->uuid ? im->uuid : "");
		return buf;
	}
	case ROW_KEXT: {
		const kp_kext *k = &r->kexts[rr->idx];
		snprintf(buf, size, "%s %s %s", k->name ? k->name : "", k->version ? k->version : "",
		         k->uuid ? k->uuid : "");
		return buf;
	}
	case ROW_PANIC:
		kp_sanitize(buf, size, p->panic + rr->idx, rr->len, 0);
		return buf;
	default:
		return rr->text;
	}
}

/* The rest of the panic string, about 5 ms at a time. */
/* The document arrived (or failed): the next draw builds the rows. */
static unsigned report_update(kpt_view *v)
{
	report_priv *p = v->priv;
	return p->width == 0 ? KPT_REDRAW : 0;
}

static unsigned report_idle(kpt_view *v)
{
	report_priv *p = v->priv;
	if (!p->wrapping)
		return 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		wrap_more(p, 512);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (p->wrapping && (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 5000000L);
	if (!v->list.filtered) {
		v->list.n = p->nrows;
		if (p->follow_end)
			v->list.cur = p->nrows ? p->nrows - 1 : 0;
	} else if (!p->wrapping) {   /* filtered: match the new rows once, at the end */
		v->list.n = p->nrows;
		kpt_list_refilter(v);
	}
	return KPT_REDRAW | (p->wrapping ? KPT_MORE : 0);
}

/* y: a frame row as "function (file:line)", an image or kext row its UUID,
 * a text row as shown; Y: the panicked thread's whole backtrace */
static unsigned report_copy(kpt_view *v, bool all)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	size_t row;
	if (all) {
		if (!p->has_bt) {
			kpt_set_msg(v->app, "this report names no panicked thread");
			return KPT_HANDLED | KPT_REDRAW;
		}
		size_t n;
		char **lines = kpt_thread_lines(r, &r->processes[p->bt_proc].threads[p->bt_thread],
		                                kpt_doc_syms(p->doc, p->bt_proc, p->bt_thread), &n);
		kpt_clipboard_copy_lines(v->app, (const char *const *)lines, n, "the backtrace");
		kpt_lines_free(lines, n);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const rrow *rr = &p->rows[row];
	char buf[1200], what[48] = "the row";
	const char *text = NULL;
	switch (rr->kind) {
	case ROW_FRAME:
		text = report_row_text(v, row, buf, sizeof buf);
		snprintf(what, sizeof what, "frame %zu", rr->idx);
		break;
	case ROW_IMAGE: text = r->images[rr->idx].uuid; snprintf(what, sizeof what, "the UUID"); break;
	case ROW_KEXT: text = r->kexts[rr->idx].uuid; snprintf(what, sizeof what, "the UUID"); break;
	default: text = report_row_text(v, row, buf, sizeof buf); break;
	}
	if (!text || !*text) {
		kpt_set_msg(v->app, "nothing to copy on this row");
		return KPT_HANDLED | KPT_REDRAW;
	}
	kpt_clipboard_copy(v->app, text, what);
	return KPT_HANDLED | KPT_REDRAW;
}

static unsigned write_done(kpt_app *app, kpt_view *v, const char *text, bool final)
{
	report_priv *p = v->priv;
	if (text && final && text[0])
		kpt_write_report(app, p->doc, text);
	return KPT_REDRAW;
}

static unsigned bug_done(kpt_app *app, kpt_view *v, const char *text, bool final)
{
	report_priv *p = v->priv;
	if (text && final && text[0])
		kpt_write_bug_report(app, p->doc, text);
	return KPT_REDRAW;
}

static unsigned report_request(kpt_view *v, kpt_request req)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	size_t row;
	if (!r)
		return req == KPT_REQ_TAB || req == KPT_REQ_ENTER ? KPT_HANDLED : 0;
	if (req == KPT_REQ_TAB) {
		p->images = !p->images;
		v->list.cur = v->list.top = 0;
		v->list.filter[0] = '\0';
		free_rows(p);
		kpt_list_reset(&v->list, 0);
		rebuild(v, p->width ? p->width : v->app->cols);
		return KPT_HANDLED | KPT_REDRAW;
	}
	/* End while the panic string is still being laid out goes to the last
	 * row laid out and keeps following it until the layout is done; any
	 * other move stops following. */
	if (req != KPT_REQ_ENTER && req != KPT_REQ_COPY && req != KPT_REQ_COPYALL)
		p->follow_end = req == KPT_REQ_END && p->wrapping;
	if (req == KPT_REQ_COPY || req == KPT_REQ_COPYALL)
		return report_copy(v, req == KPT_REQ_COPYALL);
	if (req == KPT_REQ_SORT) {
		if (p->images)
			return 0;
		p->psort = (p->psort + 1) % PSORT_N;
		rebuild(v, p->width ? p->width : v->app->cols);   /* the cursor stays on its process */
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_DISASM) {   /* on a panicked-thread frame row */
		if (!kpt_list_current(&v->list, &row) || p->rows[row].kind != ROW_FRAME) {
			kpt_set_msg(v->app, "d disassembles a frame: select one of the backtrace's rows");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->push_disasm = (kpt_disasm_arg){p->doc, p->bt_proc, p->bt_thread, p->rows[row].idx};
		return kpt_push_later(v->app, &kpt_view_disasm, &p->push_disasm);
	}
	if (req == KPT_REQ_WRITE) {
		char path[512];
		kpt_write_default_path(p->doc, path, sizeof path);
		kpt_prompt_start(v->app, v, "write the report to: ", path, write_done);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req == KPT_REQ_BUGREPORT) {
		char path[512];
		kpt_write_bug_default_path(p->doc, path, sizeof path);
		kpt_prompt_start(v->app, v, "write the Markdown bug report to: ", path, bug_done);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req != KPT_REQ_ENTER)
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const rrow *rr = &p->rows[row];
	const char *uuid = NULL;
	switch (rr->kind) {
	case ROW_PROCESS:
		p->push = (kpt_process_arg){.doc = p->doc, .proc = rr->idx};
		return kpt_push_later(v->app, &kpt_view_process, &p->push);
	case ROW_TASK:
		p->push = (kpt_process_arg){.doc = p->doc, .proc = rr->idx / 100000, .thread = rr->idx % 100000};
		return kpt_push_later(v->app, &kpt_view_process, &p->push);
	case ROW_THREAD:
		p->push = (kpt_process_arg){.doc = p->doc, .proc = rr->idx / 100000, .thread = rr->idx % 100000};
		return kpt_push_later(v->app, &kpt_view_thread, &p->push);
	case ROW_FRAME:   /* the thread, at this frame */
		p->push = (kpt_process_arg){.doc = p->doc, .proc = p->bt_proc, .thread = p->bt_thread, .at_frame = true, .frame = rr->idx};
		return kpt_push_later(v->app, &kpt_view_thread, &p->push);
	case ROW_IMAGE: uuid = r->images[rr->idx].uuid; break;
	case ROW_KEXT:   /* its bundle id finds it in more panics than a UUID */
		uuid = r->kexts[rr->idx].name ? r->kexts[rr->idx].name : r->kexts[rr->idx].uuid;
		break;
	default: return KPT_HANDLED;
	}
	if (!uuid) {
		kpt_set_msg(v->app, "this image has no UUID");
		return KPT_HANDLED | KPT_REDRAW;
	}
	snprintf(p->push_uuid, sizeof p->push_uuid, "%s", uuid);
	return kpt_push_later(v->app, v->app->views.search, p->push_uuid);
}

static const char *report_hint(kpt_view *v)
{
	report_priv *p = v->priv;
	return p->images ? "Enter panics with this UUID  Tab summary  Esc back"
	                 : "Enter open  Tab images  w write  Esc back";
}

const kpt_view_ops kpt_view_report = {
	.name = "report",
	.private_size = sizeof(report_priv),
	.open = report_open,
	.close = report_close,
	.draw = report_draw,
	.draw_row = report_draw_row,
	.row_text = report_row_text,
	.request = report_request,
	.hint = report_hint,
	.idle = report_idle,
	.update = report_update,
};
