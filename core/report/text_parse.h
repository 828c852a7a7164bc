/* text_parse.h: private to the text parser (kp__text_parse in
 * report_build.h), shared by its four files.
 *
 * Who owns what: text_parse.c owns the tp context, the line loop and what
 * follows the pass (headline, panic_string, truncation), text_header.c the
 * header and section-start lines, text_backtrace.c the backtrace blocks,
 * their frames, the panicked process and the frame-to-image mapping,
 * text_kexts.c every kext line (in backtrace, dependency, loaded list) and
 * text_lex.c the helpers all of them use.  Calls run one way:
 * text_parse -> text_header -> text_kexts, text_backtrace -> text_lex. */
#ifndef KP_TEXT_PARSE_H
#define KP_TEXT_PARSE_H

#include "report_build.h"
#include "kp_strbuf.h"

#include <string.h>

#define MAX_BT_IMAGES 4096

enum sect { S_NONE, S_X86_BT, S_ARM_BT, S_KEXT_BT, S_LOADED, S_PPC_BT };

typedef struct tp {
	kp_report *r;
	const char *text;
	size_t len;
	long line0, byte0;

	kp_sb line;            /* current line: NULs dropped, trailing blanks cut */
	long lineno;          /* absolute line number of the current line */
	size_t off;           /* offset of the current line in text */
	bool oom;

	enum sect sect;
	bool want_kv, want_osv;     /* the value is on the next line */
	bool loaded_blank;          /* a blank line was seen inside the list */
	bool build_threads, add_kexts;
	int proc;                   /* panicked process we build, -1 */
	int thread;                 /* thread of the current block, -1 */
	int block_cpu;
	bool block_named;           /* the block names itself the panicked thread */
	int named_thread;           /* first thread so named, -1 */
	bool arm_frames, x86_frames, ppc_frames;
	size_t nbt_images, bt_images_dropped;
	/* frames naming a module other than mach_kernel ("com.apple.x : _sym"):
	 * mapped to that image by name once the kext lists are read */
	struct tp_mod { size_t thread, frame; char *name; } *mods;
	size_t nmods, mods_cap;

	bool saw_panic, saw_bt, saw_kv, saw_marker, saw_loaded, ending, kext_last;
	int panic_cpu;
	size_t panic_off;           /* where panic_string starts */
	bool have_first;
	size_t first_off;
	kp_sb first;                 /* first meaningful line, for the headline */
	bool have_pre;
	size_t pre_off;             /* the preamble's first line (r->preamble) */
	long content_line;          /* first non-blank line, for errors */
	size_t content_off;
	bool have_content;
	long last_line;

	kp_sb head;                  /* panic message so far */
	bool head_open;
	bool head_next;             /* the panic line had no message: the next line is it */
	bool first_is_panic;        /* first is the panic line itself */
	int head_lines;
	char *timestamp;            /* set only on success */
	bool has_calendar;          /* "Epoch Time: ... Calendar: 0xSEC 0xUSEC" */
	uint64_t calendar_sec;      /* the panic's wall clock, dates a report with no Date line */
} tp;

/* Lexical helpers of every part (inline: they sit in every loop). */

static inline const char *after(const char *s, const char *pre)
{
	size_t n = strlen(pre);
	return strncmp(s, pre, n) == 0 ? s + n : NULL;
}

static inline const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static inline bool is_hex(char ch)
{
	return kp_hex_digit((unsigned char)ch) >= 0;
}

static inline bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A 0x-prefixed hex number at s; false when there is none or it overflows. */
static inline bool hex_at(const char *s, uint64_t *v, const char **end)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !is_hex(s[2]))
		return false;
	size_t n = 2;
	while (is_hex(s[n]))
		n++;
	if (!kp_parse_u64(s, n, v))
		return false;
	if (end)
		*end = s + n;
	return true;
}

static inline bool dec_at(const char *s, uint64_t *v, const char **end)
{
	size_t n = 0;
	while (is_digit(s[n]))
		n++;
	if (!n || !kp_parse_u64(s, n, v))
		return false;
	if (end)
		*end = s + n;
	return true;
}

/* ---- text_lex.c ---- */

/* Appends s[0..n) to b, which stays NUL-terminated; false, with c->oom
 * set, when out of memory. */
bool kp__text_sb_put(tp *c, kp_sb *b, const char *s, size_t n);
/* An arena copy of s without its leading and trailing blanks (c->oom set
 * when out of memory). */
char *kp__text_dup_trim(tp *c, const char *s);
/* Fills *field from v (trimmed) unless it is already set or v is blank. */
void kp__text_set_str(tp *c, char **field, const char *v);
/* Whether s leaves a quoted string open ('\"' does not count). */
bool kp__text_quotes_open(const char *s);

/* ---- text_header.c ---- */

/* A line that starts a new part of the report, never a message line. */
bool kp__text_section_start(const char *t);
/* A line that says nothing about the panic (blank, pasted artefact, date). */
bool kp__text_is_noise(const char *t);
/* A line of the report's own header before its panic line (blank,
 * Anonymous UUID, date, "*** Panic Report ***", a pasted artefact): never
 * part of the preamble. */
bool kp__text_is_header(const char *t);
/* Header and section lines that may appear anywhere. */
void kp__text_general_line(tp *c, const char *t);

/* ---- text_paniclog15.c ---- */

/* A paniclog 15 header line (SPTM, TXM, kernelcache images; Debug Header,
 * Exclaves, iBoot Stage 2 fields); false when t is not one. */
bool kp__text_v15_line(tp *c, const char *t);

/* ---- text_backtrace.c ---- */

/* Opens a backtrace block of section s; its thread is made at its first
 * frame. */
void kp__text_start_block(tp *c, enum sect s, int cpu, bool named);
/* A frame line of an x86 / arm64 block; false when t is not one. */
bool kp__text_x86_frame(tp *c, const char *t);
bool kp__text_arm_frame(tp *c, const char *t);
/* A PowerPC "Backtrace:" line's rest or one of its continuation lines:
 * blank-separated 0x words only (a zero word ends a backtrace and is no
 * frame); false when t is not that. */
bool kp__text_ppc_frames(tp *c, const char *t);
/* After the pass: names the kernel image and maps every frame to an image. */
void kp__text_map_frames(tp *c);
/* After map_frames: names the panicked process and marks its thread. */
void kp__text_finish_process(tp *c);

/* ---- text_kexts.c ---- */

/* A "Kernel Extensions in backtrace" or "dependency:" line; false when t is
 * not one. */
bool kp__text_bt_image(tp *c, const char *t);
/* An entry of the loaded kext list; false when t is not one. */
bool kp__text_loaded_kext(tp *c, const char *t, bool need_tab);
/* A "last started/unloaded kext at" line, from p (after "at "). */
void kp__text_last_kext(tp *c, const char *p, char **field);

#endif
