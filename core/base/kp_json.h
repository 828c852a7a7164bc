/* kp_json.h: a non-recursive skimmer over JSON text: values are found as
 * spans of the caller's buffer, member by member and element by element,
 * and only the pieces wanted are decoded (a whole cJSON tree costs about
 * 12x to 40x the input).  The report parsers hand each span to cJSON
 * (core/report/json_scan.h); the symbol files decode strings in place.
 *
 * Ownership: spans point into the caller's buffer; nothing is allocated. */
#ifndef KP_JSON_H
#define KP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_JSON_MAX_DEPTH 512

typedef struct kp_jerr {
	const char *pos;   /* where the problem is, inside the scanned buffer */
	const char *msg;   /* static text */
	bool truncated;    /* the text ended inside a value */
} kp_jerr;

/* Skips whitespace. */
const char *kp_json_ws(const char *p, const char *end);

/* Returns the end of the value starting at p (after leading whitespace), or
 * NULL with *e filled when it is malformed, too deep, or cut off. */
const char *kp_json_skip(const char *p, const char *end, kp_jerr *e);

/* The ends of the big containers of a text, so that readers walking into a
 * value do not scan it again at every level (an iterator skips each member
 * whole, so without it a frame of an .ips is scanned once per level above
 * it, six times).  kp_json_skip_memo answers a container it has recorded
 * without reading it, and otherwise is kp_json_skip that records the
 * containers of KP_JSON_MEMO_MIN bytes or more it closes (those past every
 * recorded one: the walk goes forward).  A recorded end is the one
 * kp_json_skip finds from the same '{' or '[' (bracket matching from there
 * reads the same bytes whatever encloses it), so the answers are the same
 * as kp_json_skip's, errors included.  An iterator with it->memo set skips
 * its values through it.
 *
 * Ownership: the caller's struct, zeroed with base set to the start of the
 * text (offsets are from there; a text past 4 GiB is not recorded);
 * kp_json_memo_free releases what it holds.  Spans stay in the caller's
 * buffer. */
#define KP_JSON_MEMO_MIN 64
typedef struct kp_jmemo {
	const char *base;
	struct kp_jmemo_ent {
		uint32_t open, close;   /* offsets of the brackets; close 0: never closed */
	} *v;
	size_t n, cap;
	size_t next;   /* where the next lookup starts: lookups mostly go forward */
} kp_jmemo;
const char *kp_json_skip_memo(const char *p, const char *end, kp_jmemo *memo, kp_jerr *e);
void kp_json_memo_free(kp_jmemo *memo);

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
	kp_jmemo *memo;   /* NULL after begin; set it to skip values through a memo */
} kp_jiter;
bool kp_json_obj_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e);
bool kp_json_obj_next(kp_jiter *it, kp_jmember *m, kp_jerr *e);

/* Iterates the elements of the array whose '[' is at p (after leading
 * whitespace); begin returns false with e->msg set when there is none.  Each
 * next sets the element's span [*val, *val_end) and returns true; it returns
 * false at the end (']'), at the end of the text, or on a malformed element
 * (the last two with e->msg non-NULL).  Lenient like the readers it serves:
 * one ',' after an element is taken when present but not required, and a
 * stray ',' or ':' where an element should be is a one-byte element of its
 * own.  Non-recursive (kp_json_skip); every element is at least one byte,
 * so the walk is bounded by the text. */
bool kp_json_arr_begin(kp_jiter *it, const char *p, const char *end, kp_jerr *e);
bool kp_json_arr_next(kp_jiter *it, const char **val, const char **val_end, kp_jerr *e);

/* The code unit of a \\uXXXX escape at p (6 bytes readable), or 0x10000
 * when p is not one. */
unsigned kp_json_esc_u(const char *p);

/* Decodes the string value [s, end) (s at its opening quote, end past the
 * closing one, as kp_json_skip gives) into out, which may be s itself (the
 * text is decoded in place: it only shrinks), and NUL-terminates it;
 * returns its length, or (size_t)-1 when [s, end) is no string or holds a
 * bad escape.  \\u0000 is a NUL byte (a C string ends there, as cJSON's
 * did); a surrogate without its pair is U+FFFD. */
size_t kp_json_str(const char *s, const char *end, char *out);

#endif
