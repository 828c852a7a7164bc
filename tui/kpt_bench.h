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

#endif
