/* json_scan.h: private to core/report/: a non-recursive skimmer over JSON text, so
 * the big .ips body can be taken apart member by member and each piece
 * handed to cJSON alone (a whole cJSON tree costs about 12x the input).
 *
 * Ownership: spans point into the caller's buffer; trees returned by
 * kp__json_parse_span belong to the caller (cJSON_Delete). */
#ifndef KP_JSON_SCAN_H
#define KP_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define KP_JSON_MAX_DEPTH 512

typedef struct kp_jerr {
	const char *pos;   /* where the problem is, inside the scanned buffer */
	const char *msg;   /* static text */
	bool truncated;    /* the text ended inside a value */
} kp_jerr;

/* Skips whitespace. */
const char *kp__json_ws(const char *p, const char *end);

/* Returns the end of the value starting at p (after leading whitespace), or
 * NULL with *e filled when it is malformed, too deep, or cut off. */
const char *kp__json_skip(const char *p, const char *end, kp_jerr *e);

/* Iterates the members of the object whose '{' is at *p.  First call with
 * *state == 0.  On each member sets the raw key (without quotes, escapes
 * untouched) and the value span; returns false at the end ('}') or on error
 * (then e->msg is non-NULL). */
typedef struct kp_jmember {
	const char *key;
	size_t keylen;
	const char *val, *val_end;
} kp_jmember;
typedef struct kp_jiter {
	const char *p, *end;
	int state;
} kp_jiter;
bool kp__json_obj_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e);
bool kp__json_obj_next(kp_jiter *it, kp_jmember *m, kp_jerr *e);

/* Iterates the elements of the array whose '[' is at p (after leading
 * whitespace); begin returns false with e->msg set when there is none.  Each
 * next sets the element's span [*val, *val_end) and returns true; it returns
 * false at the end (']'), at the end of the text, or on a malformed element
 * (the last two with e->msg non-NULL).  Lenient like the readers it serves:
 * one ',' after an element is taken when present but not required, and a
 * stray ',' or ':' where an element should be is a one-byte element of its
 * own.  Non-recursive (kp__json_skip); every element is at least one byte,
 * so the walk is bounded by the text. */
bool kp__json_arr_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e);
bool kp__json_arr_next(kp_jiter *it, const char **val, const char **val_end, kp_jerr *e);

/* Parses [s, end) with cJSON after turning every integer literal of 16 or
 * more digits into a string of its digits, so that no big base or offset goes
 * through a double (read them back with kp__json_u64).  NULL on error, with
 * e->pos mapped back into [s, end). */
cJSON *kp__json_parse_span(const char *s, const char *end, kp_jerr *e);

/* An unsigned integer from a number item (exact only, < 2^53) or from a
 * digit string (decimal or 0x hex); false for negatives, fractions, others. */
bool kp__json_u64(const cJSON *item, uint64_t *out);

#endif
