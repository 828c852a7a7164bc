/* kpt_prompt.h: the bottom lines' input and messages (prompt.c): the
 * message line (app->msg, cleared on the next key) and the one-line prompt
 * on the status bar.  Their state lives on the app (app->msg,
 * app->prompt); at most one prompt is active.
 * The prompt belongs to the view that started it: popping that view
 * cancels it without calling fn. */
#ifndef KPT_PROMPT_H
#define KPT_PROMPT_H

#include <stdbool.h>

typedef struct kpt_app kpt_app;
typedef struct kpt_view kpt_view;

/* Shows a message on the message line until the next key. */
void kpt_set_msg(kpt_app *app, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Returns KPT_* flags for the loop to apply. */
typedef unsigned (*kpt_prompt_fn)(kpt_app *app, kpt_view *v, const char *text, bool final);

typedef struct kpt_prompt {
	bool active;
	kpt_view *view;
	kpt_prompt_fn fn;
	char label[64];
	char text[256];
} kpt_prompt;

/* Starts a prompt: fn runs on every edit (final false) and on Enter (final
 * true); Esc calls it with text NULL. */
void kpt_prompt_start(kpt_app *app, kpt_view *v, const char *label, const char *initial,
                      kpt_prompt_fn fn);
/* One key from get_wch (ret, ch) while active; returns KPT_* flags. */
unsigned kpt_prompt_key(kpt_app *app, int ret, unsigned ch);
/* Draws the prompt on screen row y, cols wide, and places the cursor. */
void kpt_prompt_draw(const kpt_prompt *p, int y, int cols);
/* Cancels the prompt when it belongs to v (v is being closed). */
void kpt_prompt_forget(kpt_prompt *p, const kpt_view *v);

#endif
