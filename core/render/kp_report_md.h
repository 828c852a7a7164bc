/* kp_report_md.h: a report as a Markdown bug report (issue 34 item 3), what
 * `kpbrowse export --markdown` and the TUI's B write: pasted into an issue
 * or Feedback Assistant as it is.  Headline, cause class and evidence,
 * kind, date, OS, product, kernel, how many reports its group holds and
 * on which builds, the panicked (else the blamed) thread symbolicated with
 * file:line, the kexts in the backtrace with versions and UUIDs, where
 * the raw report is, and the panic string folded in a <details>.
 *
 * Safety: every text from the report, a dSYM or the index is sanitised as
 * the clipboard sanitises it (kp_sanitize: a control character, a newline
 * inside a field, ESC, bidi controls in their visible escaped forms) and
 * then set in a code span or a code fence longer than any run of backticks
 * it holds, so it can neither act on a terminal nor open Markdown of its
 * own (a link, an image, an HTML tag, a heading).  Nothing is written that
 * the report does not hold or the caller does not pass: no index target,
 * no host key.
 *
 * Ownership: everything is borrowed for the call.  Call it after
 * kp_symbols_set_report(sym, r) (sym may be NULL: unsymbolicated). */
#ifndef KP_REPORT_MD_H
#define KP_REPORT_MD_H

#include <stdint.h>
#include <stdio.h>

#include "kp_report.h"
#include "kp_symbols.h"

/* What the index knows beside the report; zero it for none. */
typedef struct kp_md_context {
	int64_t id;                  /* the report's index id; 0: not indexed */
	int64_t group_id;            /* its group; 0: none */
	int64_t count;               /* reports in the group (0: unknown) */
	const char *first_seen;      /* the group's dates as the index says them, or NULL */
	const char *last_seen;
	const char *const *builds;   /* the OS versions of the group's reports, distinct */
	size_t nbuilds;
	const char *raw_path;        /* where the raw report is (else r->path) */
} kp_md_context;

/* Writes the Markdown to out; false when a write failed. */
bool kp_report_markdown(FILE *out, const kp_report *r, kp_symbols *sym, const kp_md_context *ctx);

#endif
