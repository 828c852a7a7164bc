/* kp_summary.h: what a report says, said once (summary.c).
 *
 * The names people read for a report's parts, for every renderer for
 * people: kp_report_text() (show, the TUI's w, export) and the TUI's views.
 *
 * Ownership: pure functions; what they return is the report's (borrowed)
 * or the caller's buffer.  Text is the report's own, unsanitised: pass it
 * through kp_sanitize*() (or the TUI's kpt_put helpers) before a terminal. */
#ifndef KP_SUMMARY_H
#define KP_SUMMARY_H

#include <stddef.h>

#include "kp_report.h"

/* Image idx of r as people read it: its name, else "KIND:UUID" (the UUID
 * cut to uuid_chars characters when uuid_chars is not 0), else "image#N";
 * "?" for an index that is no image.  The name is borrowed from the
 * report; anything else is written into buf. */
const char *kp_summary_image_label(const kp_report *r, int idx, size_t uuid_chars, char *buf, size_t size);

#endif
