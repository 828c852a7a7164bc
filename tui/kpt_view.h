/* kpt_view.h: the view contract (tig's view ops) and the views.
 *
 * Ownership: the app's view stack (app.c) allocates each view and its
 * private state (ops->private_size bytes, zeroed, in v->priv) before open
 * and frees both after close; a view owns what it allocates into its
 * private state (freed by its close op).  Strings handed to draw code are
 * borrowed from the catalog or a document and stay valid until the catalog
 * is reloaded (kpt_catalog_reload bumps cat.generation) or the document is
 * released.  Views run on the UI thread.
 *
 * Order of calls on a view: open once (before any other op), then any
 * number of draw/request/hint/update, then close once when popped (close
 * also runs when open failed, so it must accept a half-opened view). */
#ifndef KPT_VIEW_H
#define KPT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kpt_catalog.h"
#include "kpt_doc.h"
#include "kpt_list.h"
#include "kpt_request.h"

typedef struct kpt_app kpt_app;

typedef struct kpt_view_ops {
	const char *name;
	size_t private_size;     /* bytes of v->priv the stack allocates */
	/* arg is what the pusher passed; non-zero return: the view did not open
	 * (it set app->msg) and is not pushed. */
	int (*open)(kpt_view *v, void *arg);
	void (*close)(kpt_view *v);
	/* draws rows y0..y0+h-1 of the screen, cols wide */
	void (*draw)(kpt_view *v, int y0, int h, int cols);
	/* one row of the list widget at screen row y */
	void (*draw_row)(kpt_view *v, size_t row, int y, int cols, bool selected);
	/* the text the filter matches for a row (into buf) */
	const char *(*row_text)(kpt_view *v, size_t row, char *buf, size_t size);
	unsigned (*request)(kpt_view *v, kpt_request req);
	/* keys worth knowing here, for the status bar */
	const char *(*hint)(kpt_view *v);
	/* something the view may show changed (symbols arrived, catalog
	 * reloaded); returns KPT_REDRAW when it matters */
	unsigned (*update)(kpt_view *v);
	/* deferred work of the top view (e.g. laying out a huge text), done by
	 * the loop between events in slices that must each take a few
	 * milliseconds at most; returns KPT_REDRAW when the screen changed
	 * and KPT_MORE while work remains.  NULL: none. */
	unsigned (*idle)(kpt_view *v);
} kpt_view_ops;

struct kpt_view {
	const kpt_view_ops *ops;
	kpt_app *app;
	kpt_list list;
	char title[160];     /* breadcrumb part */
	void *priv;          /* ops->private_size bytes, owned by the stack */
};

/* ---- the views (each file ends in one of these) ---- */
extern const kpt_view_ops kpt_view_panics;   /* arg: NULL, or kpt_group* (one group) */
extern const kpt_view_ops kpt_view_report;   /* arg: kpt_entry* */
extern const kpt_view_ops kpt_view_process;  /* arg: kpt_process_arg* */
extern const kpt_view_ops kpt_view_thread;   /* arg: kpt_process_arg* (thread set) */
extern const kpt_view_ops kpt_view_source;   /* arg: kpt_source_arg* */
extern const kpt_view_ops kpt_view_search;   /* arg: const char *uuid, or NULL to prompt */
extern const kpt_view_ops kpt_view_kext_search;   /* arg: const char *bundle id, or NULL to prompt */
extern const kpt_view_ops kpt_view_help;     /* arg: NULL */
extern const kpt_view_ops kpt_view_group;    /* arg: kpt_group* */
extern const kpt_view_ops kpt_view_compare;  /* arg: kpt_compare_arg* */
extern const kpt_view_ops kpt_view_disasm;   /* arg: kpt_disasm_arg* */

typedef struct kpt_process_arg {
	kpt_doc *doc;
	size_t proc, thread;
	bool at_frame;   /* the thread view opens on frame `frame` (else its first row) */
	size_t frame;
} kpt_process_arg;

/* Two reports of the index to compare (A, B), by id. */
typedef struct kpt_compare_arg {
	int64_t a, b;
} kpt_compare_arg;

/* The reports a list has marked for `c` (view_compare.c): m toggles one; a
 * third mark drops the oldest.  Label: '1' or '2' (its order), ' ' unmarked. */
typedef struct kpt_marks {
	int64_t id[2];
	int n;
} kpt_marks;
void kpt_marks_toggle(kpt_marks *m, int64_t id);
char kpt_marks_label(const kpt_marks *m, int64_t id);
/* `c` on a list: compares the two marked reports (A the first marked), or
 * the one marked with cur (-1: none); else says how in the message line.
 * out is the push's argument (it must live in the view's private state). */
unsigned kpt_compare_marked(kpt_app *app, const kpt_marks *m, int64_t cur, kpt_compare_arg *out);
/* `c` on a group: compares its first member (the oldest dated one) with its
 * last (the newest); a group of one says so instead. */
unsigned kpt_compare_group(kpt_app *app, const kpt_group *g, kpt_compare_arg *out);
typedef struct kpt_disasm_arg {
	kpt_doc *doc;
	size_t proc, thread, frame;
} kpt_disasm_arg;

typedef struct kpt_source_arg {
	const char *file;
	unsigned line;
	const char *function;
} kpt_source_arg;

#endif
