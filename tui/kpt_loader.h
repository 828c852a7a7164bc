/* kpt_loader.h: reports loaded off the UI thread (loader.c), so that
 * opening a report of tens of megabytes never keeps the event loop from
 * keys and signals.  Call order: kpt_loader_start once (entry.c registers
 * kpt_loader_fd / kpt_loader_poll as an event source of the loop), then
 * kpt_doc_open and kpt_loader_poll on the UI thread, then kpt_loader_stop
 * once.  Each load runs on a thread of its own with its own connection to
 * the index, so it shares nothing with the UI but the result it posts;
 * stop does not wait for loads under way (a parse cannot be interrupted):
 * their results are dropped with the process.  Without a loader (the
 * tests and bench drive views with none) kpt_doc_open loads at once. */
#ifndef KPT_LOADER_H
#define KPT_LOADER_H

#include <stdint.h>

#include "kp_error.h"
#include "kpt_doc.h"

typedef struct kpt_app kpt_app;
typedef struct kpt_loader kpt_loader;

kp_status kpt_loader_start(kpt_app *app, kp_error *err);
void kpt_loader_stop(kpt_app *app);
int kpt_loader_fd(const kpt_app *app);   /* -1 when none */
/* Applies finished loads to their documents; KPT_REDRAW when any. */
unsigned kpt_loader_poll(kpt_app *app);
/* The document for report id of the index (or the file path when id < 0)
 * with one reference for the caller: the open one when there is one, else
 * a new one, loading (d->r NULL until kpt_loader_poll fills it in, or
 * d->load_error), or loaded at once when the app has no loader.  NULL with
 * err set only when a load at once fails. */
kpt_doc *kpt_doc_open(kpt_app *app, int64_t id, const char *path, kp_error *err);

#endif
