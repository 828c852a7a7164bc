/* kp_summary.h: what a report says, said once (summary.c).
 *
 * A report's summary is a list of lines in one order with one set of
 * labels, built once from a kp_report: what a person asks first (Headline,
 * Kind, Class (kp_triage.h: the cause class and the line that decided), Date, OS version, Product, the panicked task and thread), then the
 * kernel, the report's format and file, the kexts in the backtrace, and
 * what a watchdog or stackshot says before any frame (leak suspect, panic
 * flags, reason, blame, frontmost processes, notes, wait chains).  Every
 * renderer for people walks the same list: kp_report_text() (show, the
 * TUI's w, export) prints each line, the TUI's report view draws each as a
 * row.  A fact added here reaches both.  The frames are each medium's own:
 * show prints every frame after the summary, the screen a short backtrace
 * (kp_summary_frames) under the Panicked thread line, the answer on its
 * first screen; then show prints the panic string, the screen the
 * processes and the panic string wrapped.  show --json writes the whole
 * model instead (kp_report_json.h): its keys are a contract of their own.
 *
 * Ownership: a kp_summary owns its lines and their values (malloc'd) and
 * borrows nothing from the report, so it may outlive it; labels are static
 * strings.  Values are the report's own text, unsanitised: pass them through
 * kp_sanitize*() (or the TUI's kpt_put helpers) before a terminal.
 * Call order: kp_summary_build, read lines[0..n), kp_summary_free. */
#ifndef KP_SUMMARY_H
#define KP_SUMMARY_H

#include <stddef.h>

#include "kp_error.h"
#include "kp_report.h"

/* Which fact a line says (a renderer may draw one specially: the screen
 * writes the date in UTC beside the report's own). */
typedef enum kp_sum_key {
	KP_SUM_HEADLINE, KP_SUM_KIND, KP_SUM_CLASS, KP_SUM_DATE, KP_SUM_OS, KP_SUM_PRODUCT, KP_SUM_ARCH,
	KP_SUM_PANICKED_TASK, KP_SUM_PANICKED_THREAD, KP_SUM_KERNEL_VERSION, KP_SUM_KERNEL_UUID,
	KP_SUM_LAST_STARTED, KP_SUM_FORMAT, KP_SUM_FILE, KP_SUM_COUNTS, KP_SUM_KEXTS, KP_SUM_KEXT,
	KP_SUM_ZONE, KP_SUM_PANIC_FLAGS, KP_SUM_REASON, KP_SUM_FAILURE_CODE, KP_SUM_PHASE,
	KP_SUM_DURATION, KP_SUM_STEPS, KP_SUM_BLAMED, KP_SUM_FRONTMOST, KP_SUM_BLAMED_THREAD,
	KP_SUM_NOTES, KP_SUM_CHAINS, KP_SUM_CHAIN, KP_SUM_CHAIN_WAITS,
} kp_sum_key;

/* kp_sum_line.flags */
enum {
	KP_SUM_HEADING = 1u << 0,      /* a section's title ("Wait chains (3)"); no label */
	KP_SUM_ITEM = 1u << 1,         /* a line under a heading or a field, indented 2; no label */
	KP_SUM_SUB = 1u << 2,          /* a line under an item, indented 6; no label */
	KP_SUM_DETAIL = 1u << 3,       /* the screen shows it elsewhere (its Images tab, its
	                                  Processes heading), show prints it here */
	KP_SUM_LINK_PROCESS = 1u << 4, /* ref names the process (and the thread to select) */
	KP_SUM_LINK_THREAD = 1u << 5,  /* ref names the thread */
};

/* What follows a name (process, thread, bundle id) that holds an invisible
 * or control character (kp_text_has_unsafe): shown escaped, it still is not
 * the name it looks like. */
#define KP_SUM_HIDDEN_NOTE " (holds an invisible character)"

/* Field labels are padded to this width and a space (label and value line
 * up in every renderer); a longer label is followed by one space. */
#define KP_SUM_LABEL_WIDTH 16

typedef struct kp_sum_line {
	kp_sum_key key;
	unsigned flags;
	const char *label;   /* "Date:"; "" for a field's next line (Notes, Frontmost);
	                        NULL for headings, items and sub-lines */
	char *value;         /* never NULL; "-" for a fact the report does not state */
	kp_thread_ref ref;   /* with a KP_SUM_LINK_* flag */
} kp_sum_line;

typedef struct kp_summary {
	kp_sum_line *lines;
	size_t n, cap;
} kp_summary;

/* The summary of r into *out (zeroed first).  Only out of memory fails:
 * then *out is empty and err says so. */
kp_status kp_summary_build(const kp_report *r, kp_summary *out, kp_error *err);
void kp_summary_free(kp_summary *s);

/* The frames of t a short backtrace shows, at most max (at least 2) of
 * them, as indices into idx (max entries): the first max, or, when the
 * culprit kext's first frame (kp_sig_culprit_frame) lies beyond them, the
 * first max - 1 and then that frame (the renderer marks the gap before it).
 * Returns how many. */
size_t kp_summary_frames(const kp_report *r, const kp_thread *t, size_t max, size_t *idx);

/* Image idx of r as people read it: its name, else "KIND:UUID" (the UUID
 * cut to uuid_chars characters when uuid_chars is not 0), else "image#N";
 * "?" for an index that is no image.  The name is borrowed from the
 * report; anything else is written into buf. */
const char *kp_summary_image_label(const kp_report *r, int idx, size_t uuid_chars, char *buf, size_t size);

#endif
