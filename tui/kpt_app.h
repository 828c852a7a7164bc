/* kpt_app.h: the app (app.c): the view stack, the event loop and the
 * message line, plus what every view may reach through v->app.
 *
 * Ownership: the app owns the view stack, the catalog, the documents, the
 * prompt and (through entry.c, which starts and stops them) the worker and
 * scanner.  The loop knows the worker and scanner only as event sources
 * (fd + poll) registered by entry.c, and the global views (help, search)
 * only as ops entry.c puts in app->views, so app.c depends on no view, and
 * views reach each other's global ones through app->views too.
 * UI thread only. */
#ifndef KPT_APP_H
#define KPT_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_index.h"
#include "kpt_catalog.h"
#include "kpt_doc.h"
#include "kpt_options.h"
#include "kpt_prompt.h"
#include "kpt_view.h"

/* Something besides the terminal the loop waits on. */
typedef struct kpt_source {
	int (*fd)(const kpt_app *app);      /* -1 when it has nothing to say */
	unsigned (*poll)(kpt_app *app);     /* KPT_REDRAW when views should update */
} kpt_source;

/* The views the global keys open (set by whoever sets up the app). */
typedef struct kpt_global_views {
	const kpt_view_ops *help;      /* ? */
	const kpt_view_ops *search;    /* u */
	const kpt_view_ops *kext;      /* K */
} kpt_global_views;

struct kpt_app {
	kpt_config cfg;
	kpi_db *db;
	kpt_catalog cat;
	kpt_docs docs;
	struct kpt_worker *worker;
	struct kpt_scanner *scanner;
	struct kpt_watch *watch;         /* live folders (kpt_watch.h), or NULL */
	void (*rescan)(kpt_app *app);    /* `r`: set by entry.c, or NULL */
	struct kpt_loader *loader;   /* NULL: reports load at once */
	kpt_view *stack[16];
	int depth;
	const kpt_view_ops *push_ops;
	void *push_arg;
	kpt_global_views views;
	kpt_source sources[6];
	int nsources;
	kpt_prompt prompt;
	char msg[512];           /* message line; cleared on the next key */
	char work[512];          /* worker status (dSYM loading) */
	bool color;
	int rows, cols;
};

/* Records ops/arg for the loop to push after the handler returns; returns
 * KPT_PUSH.  arg must stay valid until the push (the open op copies). */
unsigned kpt_push_later(kpt_app *app, const kpt_view_ops *ops, void *arg);

/* The stack: push opens a view on top (nothing when its open fails);
 * kpt_app_close_views closes and frees every view, top first. */
void kpt_app_push(kpt_app *app, const kpt_view_ops *ops, void *arg);
void kpt_app_close_views(kpt_app *app);
/* dispatches req, applies the flags and redraws (what one key costs) */
void kpt_app_key(kpt_app *app, kpt_request req);
void kpt_app_draw(kpt_app *app);
/* Runs until quit; returns the exit status (128 + signal on a signal). */
int kpt_app_loop(kpt_app *app);

/* The catalog (app->cat) as one of the loop's event sources, and its
 * refresh; what goes wrong is said in the status line. */
int kpt_app_catalog_fd(const kpt_app *app);
unsigned kpt_app_catalog_poll(kpt_app *app);
void kpt_app_catalog_refresh(kpt_app *app);

#endif
