/* kpt_view.h: the TUI's views, the view stack and the shared pieces they
 * use (list widget, catalog of panics, open report documents, worker).
 *
 * Ownership: the app owns the view stack, the catalog and every document;
 * a view owns its private state (freed by its close op).  Strings handed
 * to draw code are borrowed from the catalog or a document and stay valid
 * until the catalog is reloaded (kpt_catalog_reload bumps cat.generation)
 * or the document is released.  Everything here runs on the UI thread
 * except the worker's and scanner's own internals.
 *
 * Order of calls on a view: open once (before any other op), then any
 * number of draw/request/hint/sym_update, then close once when popped. */
#ifndef KPT_VIEW_H
#define KPT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_index.h"
#include "kp_report.h"
#include "keys.h"

/* ---- flags returned by request handlers ---- */
enum {
	KPT_HANDLED = 1u << 0,
	KPT_REDRAW = 1u << 1,
	KPT_POP = 1u << 2,
	KPT_PUSH = 1u << 3,   /* push app->push_ops with app->push_arg (see kpt_push_later) */
	KPT_QUIT = 1u << 4,
};

/* ---- colours / attributes (monochrome and NO_COLOR fall back to attrs) ---- */
typedef enum kpt_style {
	KPT_ST_NORMAL,
	KPT_ST_TITLE,     /* top bar */
	KPT_ST_STATUS,    /* bottom bar */
	KPT_ST_CURSOR,    /* selected row */
	KPT_ST_HEADER,    /* column headers, section labels */
	KPT_ST_DIM,       /* unsymbolicated / pending */
	KPT_ST_FUNC,      /* function names */
	KPT_ST_FILE,      /* file:line */
	KPT_ST_MARK,      /* panicked / new markers */
	KPT_ST_MATCH,     /* filter match, highlighted source line */
	KPT_ST_ERROR,
	KPT_ST_COUNT
} kpt_style;

/* ---- list widget: cursor, scrolling and the incremental filter ---- */
typedef struct kpt_list {
	size_t n;            /* rows of the view */
	size_t *map;         /* visible row -> view row when filtered */
	size_t nmap, mapcap;
	bool filtered;
	size_t cur, top;     /* in visible rows */
	int y0, height;      /* screen rows of the last draw */
	char filter[128];    /* UTF-8, case-insensitive substring */
	bool search_only;    /* `/` jumps to matches instead of hiding rows */
} kpt_list;

typedef struct kpt_view kpt_view;
typedef struct kpt_app kpt_app;

typedef struct kpt_view_ops {
	const char *name;
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
} kpt_view_ops;

struct kpt_view {
	const kpt_view_ops *ops;
	kpt_app *app;
	kpt_list list;
	char title[160];     /* breadcrumb part */
	void *priv;
};

/* ---- open reports and their symbol cache ---- */
typedef struct kpt_symline {
	char *function, *file;   /* malloc'd, NULL when unknown */
	unsigned line;
} kpt_symline;

enum { KPT_SYM_NONE = 0, KPT_SYM_PENDING, KPT_SYM_DONE };

typedef struct kpt_sym {
	int state;               /* KPT_SYM_* */
	int status;              /* kp_sym_status when DONE */
	kpt_symline *lines;      /* innermost first */
	size_t nlines;
	char *note;              /* "no dSYM for ...", symtab note */
} kpt_sym;

typedef struct kpt_doc {
	unsigned serial;         /* unique per open; worker results name it */
	int64_t id;              /* index id, -1 when loaded from a file */
	char *path;
	kp_report *r;
	kpt_sym ***syms;         /* [process][thread] -> frame array, lazily */
	int refs;
} kpt_doc;

/* ---- the catalog: the panic list as the index has it ---- */
typedef struct kpt_entry {
	int64_t id;
	const char *path, *date, *os, *headline, *culprit;
	int64_t group_id, count;
	bool is_new;
} kpt_entry;

typedef struct kpt_group {
	int64_t id;
	const char *title, *culprit, *last_seen;
	int64_t count;
	int64_t *ids;
	size_t nids;
} kpt_group;

typedef struct kpt_catalog {
	kpt_entry *e;
	size_t n, cap;
	kpt_group *g;
	size_t ng, gcap;
	struct kpt_strpool *pool;
	unsigned generation;     /* bumped by every reload */
	int64_t seen_seq;        /* report seqs above it are "new since last launch" */
	int64_t max_seq;         /* the largest seq loaded, saved at quit */
	bool state_read;
	bool scanning;
	size_t scan_files, scan_new;
	char scan_path[256];
} kpt_catalog;

/* ---- configuration from the command line ---- */
#define KPT_MAX_PATHS 64
typedef struct kpt_config {
	bool demo;
	char db_path[1024];
	const char *dsyms[KPT_MAX_PATHS];
	size_t ndsyms;
	const char *map_from[KPT_MAX_PATHS], *map_to[KPT_MAX_PATHS];
	size_t nmaps;
	const char *paths[KPT_MAX_PATHS];  /* folders/files to index */
	size_t npaths;
	bool default_paths;                /* paths are the platform's defaults */
	bool no_system;                    /* demo: skip KDKs/Spotlight */
} kpt_config;

struct kpt_worker;
struct kpt_scanner;

struct kpt_app {
	kpt_config cfg;
	kpi_db *db;
	kpt_catalog cat;
	struct kpt_worker *worker;
	struct kpt_scanner *scanner;
	kpt_view *stack[16];
	int depth;
	const kpt_view_ops *push_ops;
	void *push_arg;
	char msg[512];           /* message line; cleared on the next key */
	char work[512];          /* worker status (dSYM loading) */
	kpt_doc **docs;
	size_t ndocs;
	unsigned next_serial;
	bool color;
	bool no_reports_folder;  /* no default folder exists on this machine */
	int rows, cols;
};

/* ---- views (each file ends in one of these) ---- */
extern const kpt_view_ops kpt_view_panics;   /* arg: NULL, or kpt_group* (one group) */
extern const kpt_view_ops kpt_view_report;   /* arg: kpt_entry* */
extern const kpt_view_ops kpt_view_process;  /* arg: kpt_process_arg* */
extern const kpt_view_ops kpt_view_thread;   /* arg: kpt_process_arg* (thread set) */
extern const kpt_view_ops kpt_view_source;   /* arg: kpt_source_arg* */
extern const kpt_view_ops kpt_view_search;   /* arg: const char *uuid, or NULL to prompt */
extern const kpt_view_ops kpt_view_help;     /* arg: NULL */

typedef struct kpt_process_arg {
	kpt_doc *doc;
	size_t proc, thread;
} kpt_process_arg;

typedef struct kpt_source_arg {
	const char *file;
	unsigned line;
	const char *function;
} kpt_source_arg;

/* ---- tui.c: stack, drawing helpers, prompt ---- */
/* Records ops/arg for the loop to push after the handler returns; returns
 * KPT_PUSH.  arg must stay valid until the push (the open op copies). */
unsigned kpt_push_later(kpt_app *app, const kpt_view_ops *ops, void *arg);
void kpt_set_msg(kpt_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Puts s (untrusted: sanitised here) at y,x, clipped to width columns and
 * padded with spaces to width when pad; returns the columns used. */
int kpt_put(int y, int x, int width, const char *s, kpt_style st, bool pad);
/* Like kpt_put for trusted text built by the TUI itself (still clipped). */
int kpt_putf(int y, int x, int width, kpt_style st, bool pad, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void kpt_attr_on(kpt_style st);
void kpt_attr_off(kpt_style st);
/* display width of UTF-8 s after sanitising */
int kpt_text_width(const char *s);

/* Returns KPT_* flags for the loop to apply. */
typedef unsigned (*kpt_prompt_fn)(kpt_app *app, kpt_view *v, const char *text, bool final);
/* Starts a one-line prompt on the status bar: fn runs on every edit
 * (final false) and on Enter (final true); Esc calls it with text NULL. */
void kpt_prompt(kpt_app *app, kpt_view *v, const char *label, const char *initial,
                kpt_prompt_fn fn);

/* ---- list widget (list.c) ---- */
void kpt_list_reset(kpt_list *l, size_t n);   /* keeps filter, cursor clamped */
size_t kpt_list_visible(const kpt_list *l);
bool kpt_list_current(const kpt_list *l, size_t *row);   /* view row under the cursor */
void kpt_list_select_row(kpt_list *l, size_t row);      /* cursor to view row if visible */
void kpt_list_refilter(kpt_view *v);
void kpt_list_draw(kpt_view *v, int y0, int h, int cols);
/* motion, filter, n/N; KPT_HANDLED|KPT_REDRAW when it used req */
unsigned kpt_list_request(kpt_view *v, kpt_request req);
void kpt_list_free(kpt_list *l);

/* ---- catalog.c ---- */
/* strdup that aborts on out of memory (the TUI's policy); NULL stays NULL. */
char *kpt_xstrdup(const char *s);
kp_status kpt_catalog_reload(kpt_app *app, kp_error *err);
void kpt_catalog_free(kpt_catalog *c);
const kpt_entry *kpt_catalog_find(const kpt_catalog *c, int64_t id);
/* starts the background scan of cfg.paths with its own db connection */
kp_status kpt_scanner_start(kpt_app *app, kp_error *err);
int kpt_scanner_fd(const kpt_app *app);            /* -1 when none */
/* drains scanner news; KPT_REDRAW when the list changed */
unsigned kpt_scanner_poll(kpt_app *app);
void kpt_scanner_stop(kpt_app *app);
void kpt_catalog_save_state(kpt_app *app);

/* open documents: acquire loads (or shares) report id/path; release drops a ref */
kpt_doc *kpt_doc_acquire(kpt_app *app, int64_t id, const char *path, kp_error *err);
void kpt_doc_release(kpt_app *app, kpt_doc **doc);
kpt_doc *kpt_doc_by_serial(kpt_app *app, unsigned serial);
kpt_sym *kpt_doc_syms(kpt_doc *d, size_t proc, size_t thread);

/* ---- worker.c ---- */
typedef struct kpt_worker kpt_worker;
kp_status kpt_worker_start(kpt_app *app, kp_error *err);
void kpt_worker_stop(kpt_app *app);
int kpt_worker_fd(const kpt_app *app);
/* Queues frames [lo,hi) of a thread; visible requests go first.  Frames
 * must be marked PENDING by the caller. */
void kpt_worker_request(kpt_app *app, kpt_doc *d, size_t proc, size_t thread,
                        size_t lo, size_t hi, bool visible);
/* drains results into the documents; KPT_REDRAW when anything arrived */
unsigned kpt_worker_poll(kpt_app *app);

/* ---- for bench/bench_tui.c: the loop's pieces without a terminal ---- */
/* Sets up curses on /dev/null at rows x cols; the app is zeroed. */
kpt_app *kpt_bench_open(int rows, int cols);
void kpt_bench_close(kpt_app *app);
void kpt_app_push(kpt_app *app, const kpt_view_ops *ops, void *arg);
/* dispatches req, applies the flags and redraws (what one key costs) */
void kpt_app_key(kpt_app *app, kpt_request req);
void kpt_app_draw(kpt_app *app);

/* the TUI's entry point (kpt_cmd.h declares it too) */
int kpt_tui_main(int argc, char **argv);

#endif
