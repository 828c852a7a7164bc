/* kp_jw.h: the one JSON writer: every JSON kpbrowse prints (show --json,
 * the index commands, nvram) is written through it, streaming, with no
 * allocation per value.  (Reading JSON is kp_json.h's skimmer or cJSON.)
 *
 * Layout: exactly cJSON_Print's, which scripts already parse: "{" and a
 * newline, each member on its own line indented by tabs, "key":<TAB>value,
 * members joined by ",\n", the closing brace on its own line one tab less
 * ("{\n}" when empty); array elements joined by ", " inside "[" "]".  An
 * array's elements are one level deeper than the array (cJSON's rule)
 * unless the writer is flat (the report's layout, show --json: the elements
 * of an array keep the indent of the member holding it).
 *
 * Strings: escaped as cJSON does (\" \\ \b \f \n \r \t, other C0 controls
 * \u00xx) and then held to the one text-safety rule (kp_text_cp_unsafe in
 * kp_utf8.h: DEL, C1 and bidi controls, U+2028/2029, U+FEFF, tag
 * characters...): such a code point becomes a \uXXXX escape (a surrogate
 * pair above U+FFFF) and each byte of invalid UTF-8 becomes \ufffd.  The
 * output is therefore valid UTF-8 and inert on a terminal.  Keys are
 * strings too.  Numbers: integers exactly (cJSON printed 15 significant
 * digits from 1e15 up), other doubles as kp_jw_double says.
 *
 * Ownership and call order: a kp_jw lives where the caller puts it (a few
 * hundred bytes; its buffer is allocated once by kp_jw_init).  With a FILE
 * (borrowed) the text goes out through a 32 KiB buffer, nothing reaching
 * the FILE before the buffer fills or kp_jw_flush; without one it grows in
 * memory (kp_jw_text).  kp_jw_init, values, kp_jw_flush (FILE: once at the
 * end or after each record), kp_jw_free.  Values: kp_jw_obj ... kp_jw_end
 * with kp_jw_key before each member's value; kp_jw_arr ... kp_jw_end with
 * the elements; separators and indents are the writer's.  At most
 * KP_JW_MAX_NEST containers open at once.  Any failure (a write to the
 * FILE, memory, nesting deeper than that) is sticky: later output is
 * dropped and kp_jw_flush returns false.  One writer per thread. */
#ifndef KP_JW_H
#define KP_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define KP_JW_BUFSIZE 32768
#define KP_JW_MAX_NEST 64

typedef struct kp_jw {
	char *buf;        /* the text not yet written out (FILE) or all of it */
	size_t n, cap;
	FILE *fp;         /* NULL: in memory */
	char *heap;       /* buf's allocation (NULL once failed) */
	bool failed;      /* sticky */
	/* The layout, which a caller may set between values: flat (arrays do
	 * not deepen) and tabs (the indent of the open container's members;
	 * an object opened now closes at this many tabs). */
	bool flat;
	int tabs;
	int level;        /* containers open */
	uint64_t arr;     /* per level: an array (bit level - 1) */
	uint64_t any;     /* per level: a member or element written */
	uint64_t deep;    /* per level: the container added a tab */
	char spare[256];  /* where output goes once failed (dropped) */
} kp_jw;

/* A writer to fp, or in memory for fp NULL. */
void kp_jw_init(kp_jw *w, FILE *fp);
/* To a FILE: writes out what is buffered (not fflush).  false when anything
 * failed, now or before. */
bool kp_jw_flush(kp_jw *w);
/* In memory: the text so far, NUL-terminated, its length in *len (may be
 * NULL); borrowed until the next write or kp_jw_free.  NULL once failed. */
const char *kp_jw_text(kp_jw *w, size_t *len);
/* Frees the buffer (without flushing); w may be initialised again. */
void kp_jw_free(kp_jw *w);

void kp_jw_obj(kp_jw *w);
void kp_jw_arr(kp_jw *w);
/* Closes the innermost object or array. */
void kp_jw_end(kp_jw *w);
/* The next member's key (a NUL-terminated string); its value follows. */
void kp_jw_key(kp_jw *w, const char *key);
/* The same for key[0..n), NUL-terminated, that the caller vouches is
 * printable ASCII without a quote or backslash (a literal: KP_JW_KEY),
 * copied without a look.  Inline, so a literal's length is a constant. */
static inline void kp_jw_key_plain(kp_jw *w, const char *key, size_t n);
#define KP_JW_KEY(w, lit) kp_jw_key_plain((w), "" lit, sizeof(lit) - 1)

/* s[0..n) as a string, escaped and made safe as above. */
void kp_jw_strn(kp_jw *w, const char *s, size_t n);
/* A NUL-terminated string, or null for NULL. */
void kp_jw_str(kp_jw *w, const char *s);
void kp_jw_int(kp_jw *w, int64_t v);
/* "0x%llx" as a string (addresses: scripts compare them as text). */
void kp_jw_hex(kp_jw *w, uint64_t v);
/* As the cJSON numbers of kpbrowse's output were written: an integer below
 * 1e15 in magnitude as an integer, NaN and infinities as null, anything
 * else with %1.17g. */
void kp_jw_double(kp_jw *w, double v);
void kp_jw_bool(kp_jw *w, bool v);
void kp_jw_null(kp_jw *w);
/* Bytes as they are, no separator: JSON the caller vouches for (a layout
 * of its own around the writer's values; separators are then its own). */
void kp_jw_raw(kp_jw *w, const char *s, size_t n);
/* kp_jw_raw of a string literal. */
#define KP_JW_LIT(w, lit) kp_jw_raw((w), "" lit, sizeof(lit) - 1)

/* ---- inline: the key of every member the report writes ------------------ */

void kp_jw_key_slow(kp_jw *w, const char *key, size_t n);   /* jw.c: the rest */

static inline void kp_jw_key_plain(kp_jw *w, const char *key, size_t n)
{
	static const char tabs[16] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	size_t d = (size_t)w->tabs;
	if (w->level < 1 || w->level > KP_JW_MAX_NEST || d > 16 || n > 64 || w->failed ||
	    w->cap - w->n < n + 16 + 6) {
		kp_jw_key_slow(w, key, n);
		return;
	}
	uint64_t b = 1ull << (w->level - 1);
	char *p = w->buf + w->n;
	if (w->any & b) {
		*p++ = ',';
		*p++ = '\n';
	}
	w->any |= b;
	memcpy(p, tabs, 16);   /* all sixteen (room was checked), d of them kept */
	p += d;
	*p++ = '"';
	memcpy(p, key, n);
	p += n;
	*p++ = '"';
	*p++ = ':';
	*p++ = '\t';
	w->n = (size_t)(p - w->buf);
}

#endif
