/* kpt_bench.h: the app without a terminal, for bench/bench_tui.c and the
 * headless tests (tests/test_tui_core.c): curses draws into /dev/null at a
 * fixed size, so views, the list widget, the catalog and the worker run as
 * in the program.  kpt_bench_open returns a zeroed app (no index, worker
 * or scanner: the caller opens what it needs and stops it before
 * kpt_bench_close, which closes the views and frees the app). */
#ifndef KPT_BENCH_H
#define KPT_BENCH_H

#include "kpt_app.h"

kpt_app *kpt_bench_open(int rows, int cols);
void kpt_bench_close(kpt_app *app);
/* Waits for the catalog's background load (kpt_catalog_open) and takes
 * it in as the loop would; the or-ed kpt_catalog_poll results. */
unsigned kpt_bench_rest(kpt_app *app);
/* The groups screen's first paint from the index at target (what launch
 * and Tab do: open it, the catalog's first load with the groups' trends,
 * the panic view turned to its groups, drawn at rows x cols into
 * /dev/null), in seconds; trends false leaves the trends out (the screen
 * as it was before them).  *groups gets the groups listed; the rest of
 * the list is waited for after the clock stops.  -1 when the index cannot
 * be read (err says why). */
double kpt_bench_groups_paint(const char *target, bool trends, int rows, int cols, size_t *groups,
                              kp_error *err);

#endif
