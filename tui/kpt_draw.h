/* kpt_draw.h: styles and the drawing helpers every view uses (draw.c).
 * Untrusted text is sanitised here, so views pass report strings as they
 * are.  Call kpt_draw_init_styles once per curses screen, after it is
 * set up; the style of each kpt_style then follows from the screen's own
 * colour state (no table of ours to keep in sync). */
#ifndef KPT_DRAW_H
#define KPT_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* colours / attributes (monochrome and NO_COLOR fall back to attrs) */
typedef enum kpt_style {
	KPT_ST_NORMAL,
	KPT_ST_TITLE,     /* top bar */
	KPT_ST_STATUS,    /* bottom bar */
	KPT_ST_CURSOR,    /* selected row */
	KPT_ST_HEADER,    /* column headers, section labels */
	KPT_ST_DIM,       /* unsymbolicated / pending */
	KPT_ST_FUNC,      /* function names */
	KPT_ST_FILE,      /* file:line */
	KPT_ST_MARK,      /* panicked / new markers */
	KPT_ST_MATCH,     /* filter match, highlighted source line */
	KPT_ST_ERROR,
	KPT_ST_COUNT
} kpt_style;

/* Starts colours unless NO_COLOR is set or the terminal has none; returns
 * whether colours are on. */
bool kpt_draw_init_styles(void);

/* Puts s (untrusted: sanitised here) at y,x, clipped to width columns and
 * padded with spaces to width when pad; returns the columns used.  A text
 * cut short ends in "…" (its last column), so no cut goes unmarked. */
int kpt_put(int y, int x, int width, const char *s, kpt_style st, bool pad);
/* Like kpt_put for an identifier with dotted parts (a bundle id, maybe
 * followed by " +0x1f0", "+0xe490" or "!symbol"): too wide, it loses whole
 * parts from the left ("…AppleSEPKeyStore+0xe490"), since the last part is
 * what tells one Apple kext from another; the suffix is cut last. */
int kpt_put_id(int y, int x, int width, const char *s, kpt_style st, bool pad);
/* The same for a path, at its slashes: "…/demo/reports". */
int kpt_put_path(int y, int x, int width, const char *s, kpt_style st, bool pad);
/* Like kpt_put for trusted text built by the TUI itself (still clipped). */
int kpt_putf(int y, int x, int width, kpt_style st, bool pad, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void kpt_attr_on(kpt_style st);
void kpt_attr_off(kpt_style st);
/* text (untrusted) over up to rows lines of width columns from y,x, broken
 * after a space in a full line's second half, else where it is full (a long
 * function name has no better place), spaces at a break dropped; the last line used is cut with "…"
 * if text goes on.  Draws only when draw; returns the lines used. */
int kpt_wrap(int y, int x, int rows, int width, const char *text, kpt_style st, bool draw);
/* display width of UTF-8 s after sanitising */
int kpt_text_width(const char *s);
/* "x" and n in at most 4 columns (a dups column): exact up to 999, then
 * with a unit so that nothing is cut silently: 2500 -> "2.5k", 25000 ->
 * "x25k", 250000 -> "250k", then M and G the same way. */
void kpt_count_label(long long n, char *out, size_t size);
/* A sparkline of v[0..n) into out: one column per value, scaled to their
 * largest, a blank for 0, else one of 8 levels (the least non-zero value
 * is never blank): U+2581..U+2588 where the locale is UTF-8 (MB_CUR_MAX >
 * 1), else the ASCII ramp ".:-=+*#@".  Made here from numbers only, so it
 * is trusted text of exactly n columns (cut to what out holds). */
void kpt_sparkline(const int64_t *v, int n, char *out, size_t size);

/* ---- column tables: a row's columns left to right ---- */
#define KPT_COL_WIDE 120   /* default screen width from which kpt_col.wide applies */
#define KPT_COL_MIN 10     /* default least width of the flexible column */
typedef struct kpt_col {
	int width, wide;   /* fixed width (wide: on wide screens, 0 same);
	                      width 0: the one flexible column, which takes the rest */
	int wide_at;       /* screen width from which wide applies (0: KPT_COL_WIDE) */
	int gap;           /* blank columns after it (not after the last shown) */
	int min;           /* flexible column: least width (0: KPT_COL_MIN) before
	                      the others give way; when none can, an explicit min
	                      is kept (the row then runs off the screen) */
	bool optional;     /* ... by being dropped */
	int narrow;        /* ... or by shrinking to this width */
	int x, w;          /* out: position and width; w 0 when dropped */
} kpt_col;
/* Fills x and w of the n columns of c for a screen width columns wide. */
void kpt_cols_layout(kpt_col *c, int n, int width);

#endif
