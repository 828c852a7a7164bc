/* kp_report_json.h: a report as the JSON object `kpbrowse show --json` prints.
 *
 * Ownership: the returned cJSON tree belongs to the caller (cJSON_Delete);
 * it copies every string, so it outlives the report. */
#ifndef KP_REPORT_JSON_H
#define KP_REPORT_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "kp_report.h"

/* Called for each frame object after its report fields are set, so a caller
 * can add symbolication keys; may be NULL. */
typedef void (*kp_json_frame_fn)(void *ctx, const kp_report *r, const kp_process *p,
                                 const kp_thread *t, size_t frame, cJSON *obj);

/* NULL only when out of memory.  Keys and types are a stable contract for
 * scripts: numbers that can exceed 2^53 are "0x..." strings, unknown values
 * are null. */
cJSON *kp_json_report(const kp_report *r, kp_json_frame_fn fn, void *ctx);

/* Writes JSON text (as cJSON_Print makes it) to fp so that it is safe on a
 * terminal and valid UTF-8: inside strings, C1 controls (U+0080..U+009F),
 * DEL, bidi controls (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069)
 * and U+2028/U+2029 become \uXXXX escapes, and each byte of invalid UTF-8
 * becomes \ufffd.  The JSON value is unchanged except for the invalid
 * bytes (cJSON already escapes C0 controls such as ESC and BEL). */
void kp_json_fputs_safe(FILE *fp, const char *json);

/* The same JSON as kp_json_report, written to fp in cJSON_Print's layout
 * (nested depth tabs deep) through kp_json_fputs_safe, building one frame's
 * tree at a time: the memory needed stays near the report's own size
 * whatever its frame count (a whole tree costs ~1.5 KiB a frame).  false
 * when out of memory or on a write error. */
bool kp_json_report_write(FILE *fp, const kp_report *r, kp_json_frame_fn fn, void *ctx,
                          int depth);

/* "0x%llx" as a cJSON string. */
cJSON *kp_json_hex(uint64_t v);

#endif
