/* kp_report_text.h: a report as text for people (report_text.c): what
 * `kpbrowse show` prints and the TUI's `w` writes, so the two cannot
 * differ.  Report text goes through the sanitiser (inert escapes). */
#ifndef KP_REPORT_TEXT_H
#define KP_REPORT_TEXT_H

#include <stdio.h>

#include "kp_disasm.h"
#include "kp_report.h"
#include "kp_symbols.h"

/* The summary (kp_summary.h: headline, date, OS, kernel, panicked task and
 * thread, kexts in the backtrace, blame and wait chains), the Extensible
 * panic log entries, the panicked (else the blamed) thread's frames
 * (symbolicated with sym, which may be NULL, after kp_symbols_set_report)
 * and the panic string. */
void kp_report_text(FILE *out, const kp_report *r, kp_symbols *sym);

/* The frames of t as show prints them, a line each (index, address, image
 * + offset, the report's own symbol, then function (file:line) and the
 * functions it was inlined into), sanitised: the Markdown bug report's
 * backtrace (kp_report_md.h). */
void kp_report_text_frames(FILE *out, const kp_report *r, kp_symbols *sym, const kp_thread *t);

/* The same with about ndisasm instructions around every symbolicated frame
 * (kp_disasm.h) under it, indented, or why not; 0: none (kp_report_text). */
void kp_report_text_disasm(FILE *out, const kp_report *r, kp_symbols *sym, size_t ndisasm);

/* A kext team's decoder of its ExtensiblePanicLog entries (show
 * --panic-data-decoder): the entry as text (malloc'd; NULL and why set when
 * it has none for this entry or failed, then the entry is dumped as usual).
 * Set once before printing; NULL: none. */
typedef char *(*kp_extlog_decoder)(void *ctx, const kp_extlog *x, char *why, size_t wsize);
void kp_report_text_set_decoder(kp_extlog_decoder fn, void *ctx);

/* One decoded instruction as a line without the newline: marker ("->" on
 * the frame's address), address, bytes, "mnemonic operands <target>"
 * (shared by `show --disasm` and the TUI's disassembly view). */
void kp_report_text_disasm_line(const kp_disasm_insn *in, char *buf, size_t size);

#endif
