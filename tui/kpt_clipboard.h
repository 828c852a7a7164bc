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

/* What a copy of report text puts on the clipboard: text sanitised as on
 * screen (ESC, CR, C0/C1 controls, bidi and invisible characters shown
 * inert; newlines and tabs kept), at most KPT_CLIPBOARD_MAX bytes (*cut
 * says it was cut), malloc'd for the caller to free. */
char *kpt_clipboard_text(const char *text, size_t len, bool *cut);
/* The OSC 52 sequence that sets the clipboard to text (base64), into a
 * malloc'd string the caller frees. */
char *kpt_clipboard_osc52(const char *text, size_t len);
/* Sends kpt_clipboard_text(text) to the clipboard and says so on the
 * message line ("copied: WHAT"); what names it for people ("frame 2"). */
void kpt_clipboard_copy(kpt_app *app, const char *text, const char *what);

#endif
