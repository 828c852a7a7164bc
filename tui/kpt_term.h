/* kpt_term.h: private to the TUI: the terminal (term.c) as the event loop
 * in app.c drives it.  Call order: kpt_term_usable, kpt_term_pipe_open,
 * kpt_term_start, then the loop polls kpt_term_signal_fd, and
 * kpt_term_restore runs on the way out (it is also registered with atexit,
 * and fatal signals restore the terminal themselves); every thread the TUI
 * starts calls kpt_term_altstack first. */
#ifndef KPT_TERM_H
#define KPT_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Whether curses can run here: TERM set, known to terminfo, and able to
 * address the cursor (TERM=dumb cannot).  False with a one-line reason in
 * why (no "kpbrowse: " prefix).  Call before kpt_term_start. */
bool kpt_term_usable(char *why, size_t size);
/* Creates the non-blocking, close-on-exec self-pipe the signal handlers
 * write to; false with errno set when pipe() fails. */
bool kpt_term_pipe_open(void);
/* Saves the termios, registers kpt_term_restore with atexit, starts curses
 * (cbreak, no echo, keypad, non-blocking input, mouse) and installs the
 * signal handlers; false when initscr() fails. */
bool kpt_term_start(void);
/* Gives the calling thread an alternate signal stack (once; freed when
 * the thread ends), so a stack overflow in it still restores the terminal;
 * kpt_term_start does it for the UI thread, each TUI thread calls it as
 * it starts.  NULL when it could not (the crash handler then runs on the
 * thread's own stack, as before). */
void *kpt_term_altstack(void);
/* Ends curses when it is active; safe to call more than once. */
void kpt_term_restore(void);
/* Marks the UI thread busy in one long piece of work (on) or back to the
 * loop (off): a quit signal while busy restores the terminal and exits
 * 128 + signal at once, skipping the orderly shutdown. */
void kpt_term_busy(bool on);
/* Hands the terminal to a child program (the editor) and takes it back:
 * suspend leaves curses and mouse reporting, resume restores them and
 * repaints every cell. */
void kpt_term_suspend(void);
void kpt_term_resume(void);
/* The self-pipe's read end, for poll(). */
int kpt_term_signal_fd(void);
/* Drains the self-pipe, applying each resize it holds; true when any. */
bool kpt_term_drain_signals(void);
/* The SIGINT, SIGTERM, SIGHUP or SIGPIPE that asked the loop to quit,
 * else 0. */
int kpt_term_quit_signal(void);

#endif
