/* view_help.c: the `?` screen, generated from the KPT_KEYS table that the
 * dispatcher uses, so the two cannot disagree. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kpt_xalloc.h"

#include <stdio.h>

typedef struct help_row {
	const char *label, *help;
} help_row;

static const help_row help_rows[] = {
#define KPT_HELP_ROW(name, label, help, ...) {label, help},
	KPT_KEYS(KPT_HELP_ROW)
#undef KPT_HELP_ROW
};
#define NHELP (sizeof help_rows / sizeof help_rows[0])

static const char *const help_notes[] = {
	"",
	"Mouse: the wheel scrolls, a click selects, a click on the selected row opens it,",
	"a click on the top bar goes back.  Only clicks are reported (no motion), so the",
	"terminal's own selection works by dragging (Shift-drag in some terminals).",
	"Views: Panics -> Report (Tab: images) -> Process -> Thread -> Source.",
	"",
	"Legend",
	"  *            new since the last launch, or arrived while running",
	"  dups, count  copies of the same panic (1.2k = 1,200 or more)",
	"  culprit      the first non-Apple kext in the backtrace, else IMAGE!function",
	"               of the first frame after the panic machinery (? no image known)",
	"  T:2899AE9D   an image the report does not name: its kind letter and UUID start",
	"               (K kernel, U kernelcache, T kext text, A absolute, P process,",
	"               S shared cache, X kext named by the backtrace text only)",
	"  dates        UTC everywhere; - when the report has none (listed last)",
	"  *1 *2        reports marked with m for c (compare), in the order marked",
	"  = ! < >      compare: the same function, a different one, only in A, only in B",
	"Thread frames fill in with function and file:line as the dSYMs load.",
};
#define NNOTES (sizeof help_notes / sizeof help_notes[0])

static int help_open(kpt_view *v, void *arg)
{
	(void)arg;
	snprintf(v->title, sizeof v->title, "Help");
	kpt_list_reset(&v->list, NHELP + NNOTES);
	return 0;
}

static void help_draw_row(kpt_view *v, size_t row, int y, int width, bool sel)
{
	(void)v;
	kpt_style st = sel ? KPT_ST_CURSOR : KPT_ST_NORMAL;
	kpt_put(y, 0, width, "", st, true);
	if (row < NHELP) {
		kpt_put(y, 2, 18, help_rows[row].label, sel ? st : KPT_ST_FUNC, true);
		kpt_put(y, 20, width - 20, help_rows[row].help, st, true);
	} else {
		kpt_put(y, 2, width - 2, help_notes[row - NHELP], sel ? st : KPT_ST_DIM, true);
	}
}

static void help_draw(kpt_view *v, int y0, int h, int width)
{
	kpt_put(y0, 0, width, "  key               does", KPT_ST_HEADER, true);
	kpt_list_draw(v, y0 + 1, h - 1, width);
}

static const char *help_row_text(kpt_view *v, size_t row, char *buf, size_t size)
{
	(void)v;
	if (row < NHELP)
		snprintf(buf, size, "%s %s", help_rows[row].label, help_rows[row].help);
	else
		snprintf(buf, size, "%s", help_notes[row - NHELP]);
	return buf;
}

static unsigned help_request(kpt_view *v, kpt_request req)
{
	(void)v;
	if (req == KPT_REQ_HELP || req == KPT_REQ_ENTER)
		return KPT_HANDLED | KPT_POP | KPT_REDRAW;
	return 0;
}

static const char *help_hint(kpt_view *v)
{
	(void)v;
	return "Esc back";
}

const kpt_view_ops kpt_view_help = {
	.name = "help",
	.open = help_open,
	.draw = help_draw,
	.draw_row = help_draw_row,
	.row_text = help_row_text,
	.request = help_request,
	.hint = help_hint,
};
