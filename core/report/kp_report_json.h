/* kp_report_json.h: a report as the JSON object `kpbrowse show --json`
 * prints, written through the one JSON writer (kp_jw.h: cJSON_Print's
 * layout, strings escaped and made safe), streamed straight from the model.
 *
 * Ownership: the caller owns the kp_jw (and flushes it); the report and
 * everything handed to the frame callback are borrowed for the call. */
#ifndef KP_REPORT_JSON_H
#define KP_REPORT_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "kp_jw.h"
#include "kp_report.h"

/* Called for each frame with the frame's object open in w after the
 * report's members of it, so a caller can add symbolication members
 * (kp_jw_key, then one value each); may be NULL.  A container it leaves
 * open is closed for it. */
typedef void (*kp_report_json_frame_fn)(void *ctx, const kp_report *r, const kp_process *p,
                                        const kp_thread *t, size_t frame, kp_jw *w);

/* The report as one JSON value written to w (after ", " when w is inside an
 * array), its closing brace depth tabs deep (0 alone, 1 inside an array),
 * its arrays in the report's flat layout (kp_jw.h); w's layout is as it was
 * afterwards.  Memory stays at w's buffer whatever the report's size.  Keys
 * and types are a stable contract for scripts: numbers that can exceed 2^53
 * are "0x..." strings, unknown values are null.  false when out of memory
 * or w failed (a write error: kp_jw_flush says so too). */
bool kp_report_json_write(kp_jw *w, const kp_report *r, kp_report_json_frame_fn fn, void *ctx,
                          int depth);

#endif
