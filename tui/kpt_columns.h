/* kpt_columns.h: the column layouts of the views that draw tables, one
 * function each, defined in the view that draws with it and exposed so that
 * tests/test_tui_core.c checks the real layouts at every width.  Each fills
 * x and w of c[0..KPT_*_COLS) for a screen width columns wide (w 0: the
 * column is dropped), left to right in the order the view draws them. */
#ifndef KPT_COLUMNS_H
#define KPT_COLUMNS_H

#include "kpt_catalog.h"
#include "kpt_draw.h"

#define KPT_PANICS_COLS 8    /* mark, date, OS, dups, class, panic, culprit, Mac */
#define KPT_GROUPS_COLS 6    /* count, flags, trend, last seen, title, culprit */
#define KPT_PROCESS_COLS 6   /* mark, thread, name, state, frames, waits on */
#define KPT_SEARCH_COLS 4    /* date, role, image name, headline */
#define KPT_THREAD_COLS 5    /* frame, image, offset, function, file:line */

/* The flat list (view_panics.c): the Mac column only when cat holds
 * reports from more than one; returns how many columns are in use. */
int kpt_panics_layout(const kpt_catalog *cat, kpt_col *c, int width);
void kpt_groups_layout(kpt_col *c, int width);    /* view_panics.c */
void kpt_process_layout(kpt_col *c, int width);   /* view_process.c */
void kpt_search_layout(kpt_col *c, int width);    /* view_search.c */
void kpt_thread_layout(kpt_col *c, int width);    /* view_thread.c */

#endif
