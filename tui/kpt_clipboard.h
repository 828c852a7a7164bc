/* kpt_clipboard.h: copying text to the terminal's clipboard with OSC 52
 * (clipboard.c), which works over ssh and inside tmux (set-clipboard on).
 * UI thread only: it writes to the terminal between curses refreshes. */
#ifndef KPT_CLIPBOARD_H
#define KPT_CLIPBOARD_H

#include <stddef.h>

typedef struct kpt_app kpt_app;

/* The OSC 52 sequence that sets the clipboard to text (base64), into a
 * malloc'd string the caller frees. */
char *kpt_clipboard_osc52(const char *text, size_t len);
/* Sends text to the clipboard and says so on the message line ("copied:
 * WHAT"); what names it for people (e.g. "frame 2"). */
void kpt_clipboard_copy(kpt_app *app, const char *text, const char *what);

#endif
