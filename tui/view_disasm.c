/* view_disasm.c: `d` on a frame: the instructions around its address
 * (kp_disasm.h), the frame's own (faulting or return address) marked and
 * selected, branch and call targets named.  The worker decodes (it owns
 * the kp_symbols that finds the binary); the view asks once on open and
 * lays the rows out when update() sees the job done.  Without Capstone the
 * view does not open and the message line says how to get it. */
#include "kpt_app.h"
#include "kpt_clipboard.h"
#include "kpt_draw.h"
#include "kp_report_text.h"
#include "kpt_view.h"
#include "kpt_worker.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define DISASM_COUNT 41   /* 20 before the frame's address, 20 after */
#define BYTES_FROM 72     /* screen width from which the bytes are shown */

typedef struct disasm_priv {
	kpt_disasm_arg at;
	kpt_disasm_job *job;
	bool laid_out, centred;
} disasm_priv;

static int disasm_open(kpt_view *v, void *arg)
{
	disasm_priv *p = v->priv;
	if (!kp_disasm_available()) {
		kpt_set_msg(v->app, "d: %s", kp_disasm_missing());
		return 1;
	}
	p->at = *(const kpt_disasm_arg *)arg;
	kpt_doc_retain(p->at.doc);
	snprintf(v->title, sizeof v->title, "disassembly of frame %zu", p->at.frame);
	p->job = kpt_worker_disasm(v->app, p->at.doc, p->at.proc, p->at.thread, p->at.frame,
	                           DISASM_COUNT);
	kpt_list_reset(&v->list, 0);
	return 0;
}

static void disasm_close(kpt_view *v)
{
	disasm_priv *p = v->priv;
	kpt_disasm_job_release(&p->job);
	kpt_doc_release(&v->app->docs, &p->at.doc);
}

static bool ready(const disasm_priv *p)
{
	return p->job && p->job->done && p->job->status == KP_OK;
}

static unsigned disasm_update(kpt_view *v)
{
	disasm_priv *p = v->priv;
	if (p->laid_out || !p->job || !p->job->done)
		return 0;
	p->laid_out = true;
	if (ready(p)) {
		kpt_list_reset(&v->list, p->job->d.n);
		for (size_t i = 0; i < p->job->d.n; i++)
			if (p->job->d.insns[i].marked)
				kpt_list_select_row(&v->list, i);
	}
	return KPT_REDRAW;
}

static void disasm_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	disasm_priv *p = v->priv;
	if (!ready(p) || row >= p->job->d.n)
		return;
	const kp_disasm_insn *in = &p->job->d.insns[row];
	char line[600];
	if (width >= BYTES_FROM) {
		kp_report_text_disasm_line(in, line, sizeof line);
	} else {   /* narrow: the instruction matters more than its bytes */
		char text[400];
		kp_disasm_format(in, text, sizeof text);
		snprintf(line, sizeof line, "%s 0x%" PRIx64 ": %s", in->marked ? "->" : "  ", in->address, text);
	}
	kpt_put(y, 0, width, line, sel ? KPT_ST_CURSOR : in->marked ? KPT_ST_MATCH : KPT_ST_NORMAL, true);
}

static void disasm_draw(kpt_view *v, int y0, int h, int width)
{
	disasm_priv *p = v->priv;
	disasm_update(v);   /* the job may have finished since the last update */
	if (!p->job || !p->job->done) {
		kpt_putf(y0, 2, width - 2, KPT_ST_DIM, true, "disassembling frame %zu…", p->at.frame);
		return;
	}
	if (p->job->status != KP_OK) {
		kpt_putf(y0, 2, width - 2, KPT_ST_ERROR, true, "frame %zu: no disassembly", p->at.frame);
		kpt_put(y0 + 1, 2, width - 2, p->job->err.msg, KPT_ST_NORMAL, true);
		return;
	}
	const kp_disasm *d = &p->job->d;
	kpt_putf(y0, 0, width, KPT_ST_HEADER, true, "  frame %zu at 0x%" PRIx64 " (%s)  %s", p->at.frame,
	         d->address, d->arch, d->path);
	if (!p->centred && h > 2) {   /* first draw: the frame's address in the middle */
		p->centred = true;
		size_t mid = (size_t)(h - 1) / 2;
		v->list.height = h - 1;
		v->list.top = v->list.cur > mid ? v->list.cur - mid : 0;
	}
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

static const char *disasm_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	disasm_priv *p = v->priv;
	if (!ready(p) || row >= p->job->d.n)
		return NULL;
	kp_report_text_disasm_line(&p->job->d.insns[row], buf, size);
	return buf;
}

static unsigned disasm_request(kpt_view *v, kpt_request req)
{
	disasm_priv *p = v->priv;
	size_t row;
	if (req == KPT_REQ_DISASM)
		return KPT_HANDLED | KPT_POP | KPT_REDRAW;   /* d again: back to the frames */
	if (req == KPT_REQ_COPY && ready(p) && kpt_list_current(&v->list, &row) && row < p->job->d.n) {
		char text[400];
		kp_disasm_format(&p->job->d.insns[row], text, sizeof text);
		kpt_clipboard_copy(v->app, text, "instruction");
		return KPT_HANDLED | KPT_REDRAW;
	}
	return 0;
}

static const char *disasm_hint(kpt_view *v)
{
	(void)v;
	return "y copy  / filter  Esc back";
}

const kpt_view_ops kpt_view_disasm = {
	.name = "disasm",
	.private_size = sizeof(disasm_priv),
	.open = disasm_open,
	.close = disasm_close,
	.draw = disasm_draw,
	.draw_row = disasm_draw_row,
	.row_text = disasm_row_text,
	.request = disasm_request,
	.hint = disasm_hint,
	.update = disasm_update,
};
