/* kpt_list.h: the list widget (list.c): cursor, scrolling and the
 * incremental filter over a view's rows.  The widget keeps row numbers
 * only; the view draws rows and supplies their text through its ops
 * (draw_row, row_text).  Embedded in every kpt_view; freed by the stack. */
#ifndef KPT_LIST_H
#define KPT_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "kpt_request.h"

typedef struct kpt_view kpt_view;

typedef struct kpt_list {
	size_t n;            /* rows of the view */
	size_t *map;         /* visible row -> view row when filtered */
	size_t nmap, mapcap;
	bool filtered;
	size_t cur, top;     /* in visible rows */
	int y0, height;      /* screen rows of the last draw */
	char filter[128];    /* UTF-8, case-insensitive substring */
	char filter_before[128];  /* the filter when `/` was pressed (Esc restores it) */
	bool search_only;    /* `/` jumps to matches instead of hiding rows */
} kpt_list;

void kpt_list_reset(kpt_list *l, size_t n);   /* keeps filter, cursor clamped */
size_t kpt_list_visible(const kpt_list *l);
bool kpt_list_current(const kpt_list *l, size_t *row);   /* view row under the cursor */
void kpt_list_select_row(kpt_list *l, size_t row);      /* cursor to view row if visible */
void kpt_list_refilter(kpt_view *v);
void kpt_list_draw(kpt_view *v, int y0, int h, int cols);
/* motion, filter, n/N; KPT_HANDLED|KPT_REDRAW when it used req */
unsigned kpt_list_request(kpt_view *v, kpt_request req);
void kpt_list_free(kpt_list *l);

#endif
