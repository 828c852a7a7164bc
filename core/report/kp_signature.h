/* kp_signature.h: dedup signatures of a panic (panic-formats.md section 5).
 *
 * Ownership: a kp_sig owns every string in it (malloc'd copies, nothing
 * borrowed from the report), released by kp_sig_free(); strings returned by
 * the other functions belong to the caller (free()).
 *
 * Two keys per report, each the hex SHA-1 of its parts:
 *  - exact: kernel UUID, normalised headline, and every kernel frame of the
 *    panicked thread after the machinery frames as (image UUID, offset);
 *  - group: normalised headline plus the top KP_SIG_TOP_FRAMES frames after
 *    the machinery, each "image!function" when a symbol is known, else
 *    "image+0xOFFSET" (image = bundle id/name if known, else its UUID);
 *    directly repeated labels (recursion) count once.
 * The headline is part of the exact key too, so reports without frames do
 * not all collide on their kernel UUID.  A zone exhaustion panic's group
 * hashes the suspect zone's name as written instead of the headline (whose
 * counts differ in every report).
 *
 * Watchdogs, stackshots and resets (kp_report.kind) are keyed by what they
 * blame instead: watchdog group = namespace + blamed process + the blocking
 * frame's label (frames); stackshot group = normalised reason + the first
 * frontmost process; reset group = normalised reason; each key also hashes
 * the kind, and the culprit is the blamed (or frontmost) process.
 *
 * Machinery: frames whose function is a known panic/trap path function are
 * skipped.  Quirk: unsymbolicated leading kernel frames are skipped too when
 * a frame outside the kernel follows them, because their offsets are build
 * specific and are nearly always the panic path; a pure-kernel backtrace
 * keeps all its frames. */
#ifndef KP_SIGNATURE_H
#define KP_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"
#include "kp_report.h"

#define KP_SIG_TOP_FRAMES 5

/* The function name of frame `frame` of thread t, or NULL when unknown.
 * The string must stay valid until the next call or until kp_sig_compute
 * returns. */
typedef const char *(*kp_sig_symbol_fn)(void *ctx, const kp_report *r, const kp_thread *t,
                                        size_t frame);

typedef struct kp_sig {
	char exact_key[41];   /* lower-case hex SHA-1 */
	char group_key[41];
	char *headline;       /* normalised headline, never NULL after success */
	char *frames;         /* the group frames joined with " | ", maybe "" */
	char *culprit;        /* see kp_sig_compute; NULL when nothing qualifies */
	char *title;          /* the normalised headline's first line (the culprit
	                         is a column of its own), never NULL */
} kp_sig;

/* Computes both keys, culprit and title.  fn may be NULL: then a frame's
 * own keepsyms symbol (kp_frame.symbol) names it.  The culprit is the first
 * non-Apple kext (bundle id not starting "com.apple.") among the panicked
 * thread's frames, then among the images marked in_backtrace; else the
 * label of the first frame after the machinery.  On failure (only out of
 * memory) *out is zeroed. */
kp_status kp_sig_compute(const kp_report *r, kp_sig_symbol_fn fn, void *ctx, kp_sig *out,
                         kp_error *err);

void kp_sig_free(kp_sig *s);

/* The first frame of t (NULL: none) in a non-Apple kext, the culprit
 * kp_sig_compute names first: its index into *frame; false when no frame
 * of t is in one. */
bool kp_sig_culprit_frame(const kp_report *r, const kp_thread *t, size_t *frame);

/* The headline normalised: a "panic(cpu N caller 0x...): " wrapper dropped,
 * `@/path/file.c:123` -> `file.c`, hex numbers and long hex runs -> ADDR,
 * other numbers -> NUM (digits inside identifiers such as T8101 are kept),
 * double quotes dropped, white space collapsed, at most 240 bytes.  NULL
 * only when out of memory; NULL or empty input gives "". */
char *kp_sig_normalize_headline(const char *headline);

/* The headline as a person would title the panic: its first line (to a
 * newline or a written "\n"), a "panic(...): " wrapper and double quotes
 * dropped, "@/BuildRoot/.../file.cpp:123" -> "@file.cpp:123" (the call
 * site xnu appends to the last line is kept when the first line is
 * shown alone), white space collapsed.  Into out (size bytes, cut at a
 * character boundary); "" for NULL. */
void kp_headline_display(const char *headline, char *out, size_t size);
/* The buffer every view titles a report with (list, search, compare,
 * report view, show, JSON's "headline"): one size, so one string. */
#define KP_HEADLINE_DISPLAY_SIZE 512

/* True when function (with or without its leading '_', with or without a
 * " + 0x.." suffix) is a panic machinery frame. */
bool kp_sig_is_machinery(const char *function);

/* True for a bundle id of Apple's (starts with "com.apple."). */
bool kp_sig_is_apple(const char *bundle_id);

#endif
