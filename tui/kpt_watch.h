/* kpt_watch.h: live report folders (watch.c): a thread that wakes the
 * event loop when a watched folder changes, through the platform's
 * notification (inotify on Linux, kqueue on macOS and the BSDs) with a
 * portable fallback that compares the folders' modification times every
 * second (and backs the native ones up).  Call order: kpt_watch_start once
 * (after the scanner), kpt_watch_poll on the UI thread whenever
 * kpt_watch_fd is readable (it asks the scanner for a rescan),
 * kpt_watch_stop on the way out. */
#ifndef KPT_WATCH_H
#define KPT_WATCH_H

typedef struct kpt_app kpt_app;

/* Watches app->cfg.paths that are folders; does nothing when none is. */
void kpt_watch_start(kpt_app *app);
int kpt_watch_fd(const kpt_app *app);   /* -1 when not watching */
unsigned kpt_watch_poll(kpt_app *app);
void kpt_watch_stop(kpt_app *app);
/* Which notification is in use: "inotify", "kqueue", "polling" or NULL. */
const char *kpt_watch_kind(const kpt_app *app);

#endif
