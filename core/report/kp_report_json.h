/* kp_report_json.h: a report as the JSON object `kpbrowse show --json`
 * prints, and the buffered JSON writer it is printed with.
 *
 * Layout: exactly cJSON_Print's (an object member on its own line, indented
 * by tabs, "key":<TAB>value; array elements joined by ", "), so output stays
 * byte-identical to the cJSON-built output scripts already parse.  Every
 * string is escaped as cJSON does (\" \\ \b \f \n \r \t, other C0 controls
 * \u00xx) and then held to the one text-safety rule (kp_text_cp_unsafe in
 * kp_utf8.h: DEL, C1 and bidi controls, U+2028/2029, U+FEFF, tag
 * characters...): such a code point becomes a \uXXXX escape (a surrogate pair
 * above U+FFFF) and each byte of invalid UTF-8 becomes \ufffd.  The output is
 * therefore valid UTF-8 and inert on a terminal.
 *
 * Ownership: a kp_report_json_out lives where the caller puts it (it holds
 * its buffer, ~32 KiB) and borrows its FILE; nothing reaches the FILE until
 * the buffer fills or kp_report_json_flush.  Call order: _init, any writes,
 * _flush (once, or after each record).  A failed write is sticky: later
 * writes do nothing and _flush returns false. */
#ifndef KP_REPORT_JSON_H
#define KP_REPORT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "kp_report.h"

#define KP_REPORT_JSON_BUFSIZE 32768

typedef struct kp_report_json_out {
	FILE *fp;
	size_t n;                 /* bytes waiting in buf */
	bool failed;              /* a write to fp failed (sticky) */
	char buf[KP_REPORT_JSON_BUFSIZE];
} kp_report_json_out;

/* An object being written: from _begin to _end, a _key before each value. */
typedef struct kp_report_json_obj {
	kp_report_json_out *out;
	int depth;                /* tabs before the closing brace */
	bool any;                 /* a member was written */
} kp_report_json_obj;

void kp_report_json_init(kp_report_json_out *o, FILE *fp);
/* Writes what is buffered to the FILE (not fflush); false when any write of
 * this out failed, now or before. */
bool kp_report_json_flush(kp_report_json_out *o);

/* Bytes as they are: JSON punctuation the caller vouches for. */
void kp_report_json_raw(kp_report_json_out *o, const char *s, size_t n);
/* s[0..n) as a JSON string, escaped and made safe as above. */
void kp_report_json_string(kp_report_json_out *o, const char *s, size_t n);
/* A NUL-terminated string, or null for NULL. */
void kp_report_json_str(kp_report_json_out *o, const char *s);
void kp_report_json_int(kp_report_json_out *o, int64_t v);
/* "0x%llx" as a JSON string. */
void kp_report_json_hexstr(kp_report_json_out *o, uint64_t v);
void kp_report_json_bool(kp_report_json_out *o, bool v);
void kp_report_json_null(kp_report_json_out *o);
/* Any cJSON value as cJSON_Print lays it out, nested depth deep (0 for a
 * whole document); a Raw item is written as a string, integers below 1e15 as
 * integers, other numbers with %1.17g. */
void kp_report_json_value(kp_report_json_out *o, const cJSON *v, int depth);

/* "{" ... "}" with members: _key writes the separator, the indent and
 * "key":<TAB>; the caller then writes exactly one value at depth + 1. */
kp_report_json_obj kp_report_json_begin(kp_report_json_out *o, int depth);
void kp_report_json_key(kp_report_json_obj *ob, const char *key);
void kp_report_json_end(kp_report_json_obj *ob);

/* Writes JSON text (as cJSON_Print makes it) to fp with every string made
 * safe as above; the JSON value is unchanged except for invalid bytes.
 * false on a write error. */
bool kp_report_json_fputs_safe(FILE *fp, const char *json);

/* Called for each frame object after its report members are written, so a
 * caller can add symbolication keys to obj (an empty object; its members
 * are written after the report's, then it is deleted); may be NULL. */
typedef void (*kp_report_json_frame_fn)(void *ctx, const kp_report *r, const kp_process *p,
                                        const kp_thread *t, size_t frame, cJSON *obj);

/* The report as one JSON object whose closing brace is depth tabs deep (0
 * alone, 1 inside an array), written straight from the model: memory stays
 * at the buffer and one frame's callback object whatever the report's size.
 * Keys and types are a stable contract for scripts: numbers that can exceed
 * 2^53 are "0x..." strings, unknown values are null.  false when out of
 * memory or on a write error (everything is flushed to fp either way). */
bool kp_report_json_write(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, void *ctx,
                          int depth);

/* "0x%llx" as a cJSON string (for frame callbacks). */
cJSON *kp_report_json_hex(uint64_t v);

#endif
