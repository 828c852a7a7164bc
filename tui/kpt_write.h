/* kpt_write.h: the TUI's `w` (write.c): the current report written to a
 * file as `kpbrowse show` prints it (kp_report_text.h), symbolicated by a
 * symboliser of its own (the worker's is not shared), the same options, on
 * a thread of its own: the symbol sources' waits end at their deadline,
 * and q, Q, Esc or Ctrl-C cancel the write at once (no file left). */
#ifndef KPT_WRITE_H
#define KPT_WRITE_H

#include <stddef.h>

#include "kpt_doc.h"

typedef struct kpt_app kpt_app;

/* The path `w` offers: kpbrowse-report-ID.txt in the current directory. */
void kpt_write_default_path(const kpt_doc *d, char *out, size_t size);
/* Writes d's report to path (a new file) and says so on the message line;
 * returns when written or cancelled. */
void kpt_write_report(kpt_app *app, const kpt_doc *d, const char *path);

/* B (issue 34 item 3): the Markdown bug report (kp_report_md.h, as
 * `export --markdown` writes it) of d's report, with its group's count,
 * dates and builds from the catalog, to path (a new file, never in the
 * report's own folder), the same way: kpbrowse-bug-ID.md by default. */
void kpt_write_bug_default_path(const kpt_doc *d, char *out, size_t size);
void kpt_write_bug_report(kpt_app *app, const kpt_doc *d, const char *path);

#endif
