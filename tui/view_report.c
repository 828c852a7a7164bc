/* view_report.c: one report: a summary tab (header facts, the panic string
 * wrapped to the screen, the processes with the panicked one first) and an
 * images tab (every binary image and loaded kext with its UUID; Enter lists
 * every panic with that UUID).  Rows are rebuilt when the width changes. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_xalloc.h"
#include "kpt_sanitize.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum row_kind { ROW_TEXT, ROW_HEADER, ROW_PROCESS, ROW_THREAD, ROW_IMAGE, ROW_KEXT };

typedef struct rrow {
	int kind;
	size_t idx;        /* process, image or kext index */
	char *text;        /* ROW_TEXT / ROW_HEADER, sanitised */
} rrow;

typedef struct report_priv {
	kpt_doc *doc;
	bool images;
	int width;         /* rows were built for this width */
	rrow *rows;
	size_t nrows, cap;
	kpt_process_arg push;
	char push_uuid[256];
} report_priv;

static void add_row(report_priv *p, int kind, size_t idx, const char *text)
{
	if (p->nrows == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->rows = kpt_xrealloc(p->rows, p->cap * sizeof *p->rows);
	}
	char *t = NULL;
	if (text) {
		t = kpt_xstrdup(text);
	}
	p->rows[p->nrows++] = (rrow){kind, idx, t};
}

static void add_text(report_priv *p, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_text(report_priv *p, int kind, const char *fmt, ...)
{
	char raw[1024], clean[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	kpt_sanitize(clean, sizeof clean, raw, strlen(raw), 0);
	add_row(p, kind, 0, clean);
}

/* Wraps one line of untrusted text to width columns, breaking at spaces
 * when a space is in the second half of the line. */
static void add_wrapped(report_priv *p, const char *s, size_t len, int width, int indent)
{
	char *clean = kpt_xmalloc(len * 4 + 16);
	kpt_sanitize(clean, len * 4 + 16, s, len, 0);
	const char *c = clean;
	int avail = width - indent - 1;
	if (avail < 10)
		avail = 10;
	char line[4096];
	do {
		mbstate_t ps;
		memset(&ps, 0, sizeof ps);
		size_t off = 0, brk = 0;
		int w = 0;
		size_t rest = strlen(c);
		while (off < rest) {
			wchar_t wc;
			size_t k = mbrtowc(&wc, c + off, rest - off, &ps);
			if (k == 0 || k == (size_t)-1 || k == (size_t)-2) {
				k = 1;
				memset(&ps, 0, sizeof ps);
				wc = L'?';
			}
			int cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
			if (w + cw > avail)
				break;
			w += cw;
			off += k;
			if (wc == L' ' && w > avail / 2)
				brk = off;
		}
		if (off < rest && brk > 0)
			off = brk;
		if (off == 0 && rest > 0)
			off = 1;
		snprintf(line, sizeof line, "%*s%.*s", indent, "", (int)(off < sizeof line - 64 ? off : sizeof line - 64), c);
		add_row(p, ROW_TEXT, 0, line);
		c += off;
	} while (*c);
	free(clean);
}

static void free_rows(report_priv *p)
{
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].text);
	p->nrows = 0;
}

static void build_summary(kpt_view *v, int width)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	add_text(p, ROW_TEXT, "Panic:           %s", r->headline ? r->headline : "-");
	add_text(p, ROW_TEXT, "Date:            %s", r->timestamp ? r->timestamp : "-");
	add_text(p, ROW_TEXT, "OS version:      %s", r->os_version ? r->os_version : "-");
	add_text(p, ROW_TEXT, "Product:         %s   (%s, %s)", r->product ? r->product : "-",
	         kp_arch_name(r->arch), kp_format_name(r->format));
	add_text(p, ROW_TEXT, "Kernel version:  %s", r->kernel_version ? r->kernel_version : "-");
	add_text(p, ROW_TEXT, "Kernel UUID:     %s", r->kernel_uuid ? r->kernel_uuid : "-");
	char pid[32] = "";
	if (r->has_panicked_pid)
		snprintf(pid, sizeof pid, "pid %" PRId64 " ", r->panicked_pid);
	add_text(p, ROW_TEXT, "Panicked task:   %s%s", pid, r->panicked_process ? r->panicked_process : (pid[0] ? "" : "-"));
	const kp_process *pp = NULL;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	if (pt && pp) {
		char tid[48] = "";
		if (pt->has_id)
			snprintf(tid, sizeof tid, "tid %" PRIu64, pt->id);
		else if (pt->cpu >= 0)
			snprintf(tid, sizeof tid, "CPU %d", pt->cpu);
		size_t pi = (size_t)(pp - r->processes), ti = (size_t)(pt - pp->threads);
		char txt[300];
		char clean[600];
		snprintf(txt, sizeof txt, "Panicked thread: %s  %zu frames  %s", tid, pt->nframes, pt->name ? pt->name : "");
		kpt_sanitize(clean, sizeof clean, txt, strlen(txt), 0);
		add_row(p, ROW_THREAD, pi * 100000 + ti, clean);
	} else if (r->has_panicked_thread_id) {
		add_text(p, ROW_TEXT, "Panicked thread: tid %" PRIu64, r->panicked_thread_id);
	}
	if (r->last_started_kext)
		add_text(p, ROW_TEXT, "Last started:    %s", r->last_started_kext);
	add_row(p, ROW_TEXT, 0, "");
	char h[64];
	snprintf(h, sizeof h, "Processes (%zu)", r->nprocesses);
	add_row(p, ROW_HEADER, 0, h);
	for (size_t i = 0; i < r->nprocesses; i++)
		add_row(p, ROW_PROCESS, i, NULL);
	add_row(p, ROW_TEXT, 0, "");
	add_row(p, ROW_HEADER, 0, "Panic string");
	const char *s = r->panic_string ? r->panic_string : "(none)";
	int nlines = 0;
	while (*s && nlines < 400) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		add_wrapped(p, s, len, width, 2);
		nlines++;
		s += len + (e ? 1 : 0);
	}
	add_row(p, ROW_TEXT, 0, "");
}

static void build_images(kpt_view *v)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	char h[64];
	snprintf(h, sizeof h, "Binary images (%zu)", r->nimages);
	add_row(p, ROW_HEADER, 0, h);
	for (size_t i = 0; i < r->nimages; i++)
		add_row(p, ROW_IMAGE, i, NULL);
	add_row(p, ROW_TEXT, 0, "");
	snprintf(h, sizeof h, "Loaded kexts (%zu)%s", r->nkexts, r->kexts_skipped ? " - skipped by the report" : "");
	add_row(p, ROW_HEADER, 0, h);
	for (size_t i = 0; i < r->nkexts; i++)
		add_row(p, ROW_KEXT, i, NULL);
}

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
	size_t first = (size_t)-1;
	for (size_t i = 0; i < p->nrows; i++) {
		if (had && (size_t)p->rows[i].kind == keep_kind && p->rows[i].idx == keep_idx && keep_kind != ROW_TEXT) {
			kpt_list_select_row(&v->list, i);
			return;
		}
		if (first == (size_t)-1 && (p->rows[i].kind == ROW_PROCESS || p->rows[i].kind == ROW_IMAGE))
			first = i;
	}
	if (!had && first != (size_t)-1)
		kpt_list_select_row(&v->list, first);
}

static int report_open(kpt_view *v, void *arg)
{
	const kpt_entry *e = arg;
	kp_error err;
	kpt_doc *d = kpt_doc_acquire(&v->app->docs, v->app->db, e->id, e->path, &err);
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
	kpt_doc_release(&v->app->docs, &p->doc);
}

static void report_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	const rrow *rr = &p->rows[row];
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	switch (rr->kind) {
	case ROW_TEXT:
	case ROW_THREAD:
		kpt_put(y, 0, width, rr->text, st, true);
		break;
	case ROW_HEADER:
		kpt_put(y, 0, width, rr->text, sel ? st : KPT_ST_HEADER, true);
		break;
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
		kpt_putf(y, 2, 9, st, true, "%7s", pid);
		int used = kpt_put(y, 11, width - 40 > 20 ? width - 40 : 20, pr->name ? pr->name : "(unnamed)", sel ? st : KPT_ST_FUNC, false);
		kpt_putf(y, 11 + used + 2, width - 13 - used, st, false, "%zu thread%s%s", pr->nthreads,
		         pr->nthreads == 1 ? "" : "s", panicked ? "   panicked" : "");
		break;
	}
	case ROW_IMAGE: {
		const kp_image *im = &r->images[rr->idx];
		kpt_put(y, 0, width, "", st, true);
		int uw = width >= 100 ? 37 : 0;
		kpt_putf(y, 0, 3, st, true, " %c", im->kind);
		int nw = width - 3 - uw - 12;
		kpt_put(y, 3, nw, im->name ? im->name : "?", sel ? st : KPT_ST_FUNC, true);
		kpt_put(y, 3 + nw, 12, im->version ? im->version : "", st, true);
		if (uw)
			kpt_put(y, width - uw, uw, im->uuid ? im->uuid : "-", st, true);
		else
			kpt_putf(y, width - 10, 10, st, true, " %.8s", im->uuid ? im->uuid : "-");
		break;
	}
	case ROW_KEXT: {
		const kp_kext *k = &r->kexts[rr->idx];
		kpt_put(y, 0, width, "", st, true);
		int uw = width >= 100 ? 37 : 0;
		int nw = width - 3 - uw - 12;
		kpt_put(y, 3, nw, k->name ? k->name : "?", st, true);
		kpt_put(y, 3 + nw, 12, k->version ? k->version : "", st, true);
		if (uw)
			kpt_put(y, width - uw, uw, k->uuid ? k->uuid : "-", st, true);
		else
			kpt_putf(y, width - 10, 10, st, true, " %.8s", k->uuid ? k->uuid : "-");
		break;
	}
	}
}

static void report_draw(kpt_view *v, int y0, int h, int width)
{
	report_priv *p = v->priv;
	if (p->width != width)
		rebuild(v, width);
	int x = kpt_put(y0, 0, width, " Summary ", p->images ? KPT_ST_DIM : KPT_ST_CURSOR, false);
	x += kpt_put(y0, x, width - x, " ", KPT_ST_NORMAL, false);
	x += kpt_put(y0, x, width - x, " Images ", p->images ? KPT_ST_CURSOR : KPT_ST_DIM, false);
	kpt_put(y0, x, width - x, "   (Tab switches)", KPT_ST_DIM, false);
	kpt_list_draw(v, y0 + 1, h - 1, width);
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
	default:
		return rr->text;
	}
}

static unsigned report_request(kpt_view *v, kpt_request req)
{
	report_priv *p = v->priv;
	const kp_report *r = p->doc->r;
	size_t row;
	if (req == KPT_REQ_TAB) {
		p->images = !p->images;
		v->list.cur = v->list.top = 0;
		v->list.filter[0] = '\0';
		free_rows(p);
		kpt_list_reset(&v->list, 0);
		rebuild(v, p->width ? p->width : v->app->cols);
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
		p->push = (kpt_process_arg){p->doc, rr->idx, 0};
		return kpt_push_later(v->app, &kpt_view_process, &p->push);
	case ROW_THREAD:
		p->push = (kpt_process_arg){p->doc, rr->idx / 100000, rr->idx % 100000};
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
	                 : "Enter process/thread  Tab images  Esc back";
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
};
