/* kpt_scanner.h: the background index scan (scanner.c): its own thread
 * and its own index connection, as kp_index.h requires.  Call order:
 * kpt_scanner_start once, kpt_scanner_poll on the UI thread whenever
 * kpt_scanner_fd is readable (it reloads the catalog as reports arrive and
 * when the scan ends), kpt_scanner_stop on the way out. */
#ifndef KPT_SCANNER_H
#define KPT_SCANNER_H

#include <stdbool.h>

#include "kp_error.h"

typedef struct kpt_app kpt_app;
typedef struct kpt_scanner kpt_scanner;

/* starts the scan of app->cfg.paths; KP_OK and no thread when nothing to scan */
kp_status kpt_scanner_start(kpt_app *app, kp_error *err);
int kpt_scanner_fd(const kpt_app *app);            /* -1 when none */
/* drains scanner news; KPT_REDRAW when the list changed */
unsigned kpt_scanner_poll(kpt_app *app);
/* Joins the scan thread: waits for the scan to end (kpi_scan has no
 * cancel hook). */
void kpt_scanner_stop(kpt_app *app);
/* Scans app->cfg.paths again: now when no scan runs, else once the
 * running one ends (what a folder change and `r` ask for). */
void kpt_scanner_rescan(kpt_app *app);
/* Whether a scan thread is still at work (so stop would wait). */
bool kpt_scanner_busy(const kpt_app *app);

#endif
