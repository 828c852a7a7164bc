/* view_process.c: the threads of one process: id, name, state, frame
 * count and the panicked marker; Enter opens the thread's frames. */
#include "kpt_app.h"
#include "kpt_columns.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kp_waitchain.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s cycles the order: as the report lists them, by state (running, then
 * waiting, then the rest), by priority (highest first), by name */
enum { TSORT_LISTED, TSORT_STATE, TSORT_PRIO, TSORT_NAME, TSORT_N };
static const char *const tsort_name[TSORT_N] = {"as listed", "by state", "by priority", "by name"};

typedef struct process_priv {
	kpt_process_arg at;
	kpt_process_arg push;
	int sort;
	size_t *order;   /* row -> thread index */
} process_priv;

static const kp_process *proc_of(kpt_view *v)
{
	process_priv *p = v->priv;
	return &p->at.doc->r->processes[p->at.proc];
}

static int state_rank(const kp_thread *t)
{
	if (!t->state)
		return 3;
	return strstr(t->state, "TH_RUN") ? 0 : strstr(t->state, "TH_WAIT") ? 1 : 2;
}

static const kp_process *sort_proc;   /* qsort's context: one sort at a time, on the UI thread */
static int sort_key;

static int thread_cmp(const void *a, const void *b)
{
	const kp_thread *x = &sort_proc->threads[*(const size_t *)a], *y = &sort_proc->threads[*(const size_t *)b];
	int d = 0;
	if (sort_key == TSORT_STATE)
		d = state_rank(x) - state_rank(y);
	else if (sort_key == TSORT_PRIO)
		d = (y->has_sched_priority ? y->sched_priority : -1) - (x->has_sched_priority ? x->sched_priority : -1);
	else if (sort_key == TSORT_NAME)   /* unnamed threads last */
		d = !x->name || !y->name ? !x->name - !y->name : strcmp(x->name, y->name);
	if (d)
		return d;
	/* ties keep the report's order */
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return i < j ? -1 : i > j;
}

static void sort_rows(process_priv *p, const kp_process *pr)
{
	for (size_t i = 0; i < pr->nthreads; i++)
		p->order[i] = i;
	if (p->sort != TSORT_LISTED && pr->nthreads > 1) {
		sort_proc = pr, sort_key = p->sort;
		qsort(p->order, pr->nthreads, sizeof *p->order, thread_cmp);
	}
}

/* The thread a row shows. */
static const kp_thread *row_thread(kpt_view *v, size_t row, size_t *index)
{
	process_priv *p = v->priv;
	size_t t = p->order[row];
	if (index)
		*index = t;
	return &proc_of(v)->threads[t];
}

static int process_open(kpt_view *v, void *arg)
{
	const kpt_process_arg *a = arg;
	process_priv *p = v->priv;
	p->at = *a;
	kpt_doc_retain(p->at.doc);
	const kp_process *pr = proc_of(v);
	snprintf(v->title, sizeof v->title, "%.100s", pr->name ? pr->name : "process");
	p->order = kpt_xmalloc((pr->nthreads ? pr->nthreads : 1) * sizeof *p->order);
	sort_rows(p, pr);
	kpt_list_reset(&v->list, pr->nthreads);
	for (size_t t = 0; t < pr->nthreads; t++)
		if (pr->threads[t].panicked) {
			kpt_list_select_row(&v->list, t);
			break;
		}
	return 0;
}

static void process_close(kpt_view *v)
{
	process_priv *p = v->priv;
	free(p->order);
	kpt_doc_release(&v->app->docs, &p->at.doc);
}

/* panicked mark, thread id, name, state and priority, frames, then
 * "panicked" or what it waits on (the rest) */
enum { PR_MARK, PR_ID, PR_NAME, PR_STATE, PR_FRAMES, PR_TAG, PR_N };
static const kpt_col process_cols[PR_N] = {
	[PR_MARK] = {.width = 2},
	[PR_ID] = {.width = 13},
	[PR_NAME] = {.width = 18, .wide = 28, .wide_at = 140, .narrow = 8, .gap = 1},
	[PR_STATE] = {.width = 22, .wide = 28, .wide_at = 100},
	[PR_FRAMES] = {.width = 8},
	[PR_TAG] = {.min = 10},
};

_Static_assert(PR_N == KPT_PROCESS_COLS, "kpt_columns.h");

void kpt_process_layout(kpt_col *c, int width)
{
	memcpy(c, process_cols, sizeof process_cols);
	kpt_cols_layout(c, PR_N, width);
}

#define PRIO_W 7   /* " 47^31 " at the state column's end */

static void process_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	const kp_thread *t = row_thread(v, row, NULL);
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	char id[32] = "-";
	if (t->has_id)
		snprintf(id, sizeof id, "%" PRIu64, t->id);
	else if (t->cpu >= 0)
		snprintf(id, sizeof id, "cpu %d", t->cpu);
	kpt_col c[PR_N];
	kpt_process_layout(c, width);
	kpt_put(y, 0, width, "", st, true);
	kpt_put(y, c[PR_MARK].x, c[PR_MARK].w, t->panicked ? "* " : "  ", sel ? st : KPT_ST_MARK, true);
	kpt_put(y, c[PR_ID].x, c[PR_ID].w, id, st, true);
	kpt_put(y, c[PR_NAME].x, c[PR_NAME].w, t->name ? t->name : "", sel ? st : KPT_ST_FUNC, true);
	/* the state, then the priority right-aligned at the column's end
	 * ("47^31" when promoted from base 31), so priorities line up */
	char prio[32] = "";
	if (t->has_sched_priority)
		snprintf(prio, sizeof prio, kp_waitchain_promoted(t) ? "%d^%d" : "%d", t->sched_priority,
		         t->base_priority);
	int pw = c[PR_STATE].w >= PRIO_W + 4 ? PRIO_W : 0;
	kpt_put(y, c[PR_STATE].x, c[PR_STATE].w - pw, t->state ? t->state : "", st, true);
	if (pw)
		kpt_putf(y, c[PR_STATE].x + c[PR_STATE].w - pw, pw, st, true, "%*s ", pw - 1, prio);
	kpt_putf(y, c[PR_FRAMES].x, c[PR_FRAMES].w, st, true, "%6zu", t->nframes);
	/* the tag runs to the screen edge, which a kept-minimum name may pass:
	 * "panicked", or what the thread waits on ("-> TID " first when known) */
	char tag[600] = "";
	if (t->panicked)
		snprintf(tag, sizeof tag, "panicked");
	else if (t->waits_on || t->has_blocked_tid || t->has_blocked_pid) {
		int k = 0;
		if (t->has_blocked_tid)
			k = snprintf(tag, sizeof tag, "-> %" PRIu64 " ", t->blocked_tid);
		else if (t->has_blocked_pid)
			k = snprintf(tag, sizeof tag, "-> pid %" PRId64 " ", t->blocked_pid);
		if (k >= 0 && (size_t)k < sizeof tag && t->waits_on)
			snprintf(tag + k, sizeof tag - (size_t)k, "%s", t->waits_on);
	}
	kpt_put(y, c[PR_TAG].x, width - c[PR_TAG].x, tag, sel ? st : KPT_ST_MARK, true);
}

static void process_draw(kpt_view *v, int y0, int h, int width)
{
	const kp_process *pr = proc_of(v);
	char pid[32] = "";
	if (pr->has_pid)
		snprintf(pid, sizeof pid, "pid %" PRId64 "  ", pr->pid);
	kpt_col c[PR_N];
	kpt_process_layout(c, width);
	static const char *const head[PR_N] = {"", "thread", "name", "state", "frames", "waits on"};
	kpt_put(y0, 0, width, "", KPT_ST_HEADER, true);
	for (int i = PR_ID; i < PR_TAG; i++)
		kpt_put(y0, c[i].x, c[i].w, head[i], KPT_ST_HEADER, true);
	if (c[PR_STATE].w >= PRIO_W + 4)
		kpt_put(y0, c[PR_STATE].x + c[PR_STATE].w - PRIO_W, PRIO_W, "  prio ", KPT_ST_HEADER, true);
	kpt_put(y0, c[PR_TAG].x, width - c[PR_TAG].x, head[PR_TAG], KPT_ST_HEADER, true);
	(void)pid;
	if (pr->nthreads == 0) {
		kpt_put(y0 + 2, 2, width - 4, "This process has no threads in the report.", KPT_ST_DIM, false);
		return;
	}
	process_priv *p = v->priv;
	if (p->sort != TSORT_LISTED && c[PR_TAG].w > 0)   /* the order said where the header has room */
		kpt_putf(y0, c[PR_TAG].x + 9, width - c[PR_TAG].x - 9, KPT_ST_DIM, true, "(%s; s: next)",
		         tsort_name[p->sort]);
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

static const char *process_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	const kp_thread *t = row_thread(v, row, NULL);
	/* the / filter sees the state (TH_RUN, TH_WAIT: only running or only
	 * blocked threads) and what a thread waits on */
	snprintf(buf, size, "%" PRIu64 " %s %s %s", t->has_id ? t->id : 0, t->name ? t->name : "",
	         t->state ? t->state : "", t->waits_on ? t->waits_on : "");
	return buf;
}

static unsigned process_request(kpt_view *v, kpt_request req)
{
	process_priv *p = v->priv;
	size_t row, ti;
	if (req == KPT_REQ_SORT) {
		/* the same thread stays under the cursor */
		bool had = kpt_list_current(&v->list, &row);
		size_t keep = had ? p->order[row] : 0;
		p->sort = (p->sort + 1) % TSORT_N;
		sort_rows(p, proc_of(v));
		for (size_t i = 0; had && i < proc_of(v)->nthreads; i++)
			if (p->order[i] == keep)
				kpt_list_select_row(&v->list, i);
		kpt_set_msg(v->app, "threads %s", tsort_name[p->sort]);
		return KPT_HANDLED | KPT_REDRAW;
	}
	if (req != KPT_REQ_ENTER && req != KPT_REQ_OWNER)
		return 0;
	if (!kpt_list_current(&v->list, &row))
		return KPT_HANDLED;
	const kp_thread *t = row_thread(v, row, &ti);
	p->push = p->at;
	p->push.thread = ti;
	if (req == KPT_REQ_OWNER) {
		/* the thread it waits for, in whichever process holds it */
		if (t->blocked_proc < 0) {
			kpt_set_msg(v->app, "%s", t->has_blocked_pid ? "it waits for a process, not a thread"
			                                            : "no owner thread known for this thread");
			return KPT_HANDLED | KPT_REDRAW;
		}
		p->push.proc = (size_t)t->blocked_proc;
		p->push.thread = (size_t)t->blocked_thread;
	}
	return kpt_push_later(v->app, &kpt_view_thread, &p->push);
}

static const char *process_hint(kpt_view *v)
{
	(void)v;
	return "Enter frames  o owner  s sort  Esc back  / filter";
}

const kpt_view_ops kpt_view_process = {
	.name = "process",
	.private_size = sizeof(process_priv),
	.open = process_open,
	.close = process_close,
	.draw = process_draw,
	.draw_row = process_draw_row,
	.row_text = process_row_text,
	.request = process_request,
	.hint = process_hint,
};
