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
typedef void (*kp_report_json_frame_fn)(void *ctx, const kp_report *r, const kp_process *p,
                                 const kp_thread *t, size_t frame, cJSON *obj);

/* NULL only when out of memory.  Keys and types are a stable contract for
 * scripts: numbers that can exceed 2^53 are "0x..." strings, unknown values
 * are null. */
cJSON *kp_report_json(const kp_report *r, kp_report_json_frame_fn fn, void *ctx);

/* Writes JSON text (as cJSON_Print makes it) to fp so that it is safe on a
 * terminal and valid UTF-8: inside strings, every code point of the one
 * text-safety rule (kp_text_cp_unsafe in kp_utf8.h: DEL, C1 and bidi
 * controls, U+2028/2029, U+FEFF, tag characters...) becomes a \uXXXX escape
 * (a surrogate pair above U+FFFF), and each byte of invalid UTF-8 becomes
 * \ufffd.  The JSON value is unchanged except for the invalid bytes (cJSON
 * already escapes C0 controls such as ESC and BEL). */
void kp_report_json_fputs_safe(FILE *fp, const char *json);

/* The same JSON as kp_report_json, written to fp in cJSON_Print's layout
 * (nested depth tabs deep) through kp_report_json_fputs_safe, building one frame's
 * tree at a time: the memory needed stays near the report's own size
 * whatever its frame count (a whole tree costs ~1.5 KiB a frame).  false
 * when out of memory or on a write error. */
bool kp_report_json_write(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, void *ctx,
                          int depth);

/* "0x%llx" as a cJSON string. */
cJSON *kp_report_json_hex(uint64_t v);

#endif
