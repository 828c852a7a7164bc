/* kpt_clipboard.h: copying text to the terminal's clipboard with OSC 52
 * (clipboard.c), which works over ssh and inside tmux (set-clipboard on).
 * UI thread only: it writes to the terminal between curses refreshes. */
#ifndef KPT_CLIPBOARD_H
#define KPT_CLIPBOARD_H

#include <stddef.h>

typedef struct kpt_app kpt_app;

#include <stdbool.h>

/* The most a copy puts on the clipboard (bytes of sanitised text). */
#define KPT_CLIPBOARD_MAX (1u << 20)

/* What a copy of report text puts on the clipboard: what the screen shows,
 * one line per line given.  Each line is sanitised as kpt_put draws it
 * (every control character, a newline or CR inside a field included, in
 * its visible escaped form; bidi and invisible characters as <U+XXXX>; a
 * tab as a space), and the lines are joined by '\n', so no raw control
 * byte reaches a paste.  At most KPT_CLIPBOARD_MAX bytes (*cut says it was
 * cut), malloc'd for the caller to free. */
char *kpt_clipboard_text(const char *const *lines, size_t n, bool *cut);
/* The OSC 52 sequence that sets the clipboard to text (base64), into a
 * malloc'd string the caller frees. */
char *kpt_clipboard_osc52(const char *text, size_t len);
/* Sends kpt_clipboard_text(lines) to the clipboard and says so on the
 * message line ("copied: WHAT"); what names it for people ("frame 2").
 * kpt_clipboard_copy copies one line. */
void kpt_clipboard_copy_lines(kpt_app *app, const char *const *lines, size_t n, const char *what);
void kpt_clipboard_copy(kpt_app *app, const char *line, const char *what);

#endif
