/* kpt_editor.h: opening a source file in the user's editor (editor.c):
 * $VISUAL, else $EDITOR, else vi, run by /bin/sh as `EDITOR +LINE FILE`
 * (the variable may carry its own arguments, as git allows).  The TUI is
 * suspended while it runs and repainted after.  UI thread only. */
#ifndef KPT_EDITOR_H
#define KPT_EDITOR_H

typedef struct kpt_app kpt_app;

/* Maps file through --source-map, runs the editor on it at line and
 * waits; says on the message line what went wrong, if anything. */
void kpt_editor_open(kpt_app *app, const char *file, unsigned line);

#endif
