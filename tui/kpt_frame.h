/* kpt_frame.h: a frame and a thread as text for people (frame.c), the one
 * place the summary's backtrace, the copy keys and the report writer spell
 * them.  Strings are untrusted report text: sanitise before drawing (the
 * kpt_put helpers do).  UI thread (reads the document's symbol results). */
#ifndef KPT_FRAME_H
#define KPT_FRAME_H

#include <stddef.h>

#include "kpt_doc.h"

/* kp_summary_image_label with the UUID cut to its first 8 characters, as
 * the TUI's columns show it ("KIND:UUID8"). */
const char *kpt_image_label(const kp_report *r, int idx, char *buf, size_t size);
/* The report's own symbol of f with its own "+ 0x.." when it wrote one,
 * in buf; NULL when the report printed no symbol. */
const char *kpt_report_symbol(const kp_frame *f, char *buf, size_t size);
/* "function (file:line)" when symbolicated (function alone without a
 * line), else the report's own symbol, else "image +0xOFF" or the address. */
void kpt_frame_text(const kp_report *r, const kp_thread *t, const kpt_sym *s, size_t f,
                    char *out, size_t size);
/* Every frame of t, one line each ("#N  image +0xOFF  function (file:line)"),
 * inlined-into calls indented below, as *nlines malloc'd strings of report
 * text (a field may hold a newline: each is one line as the screen shows
 * it, never split); the caller frees them with kpt_lines_free.  syms may
 * be NULL (no symbols yet). */
char **kpt_thread_lines(const kp_report *r, const kp_thread *t, const kpt_sym *syms, size_t *nlines);
void kpt_lines_free(char **lines, size_t n);

#endif
