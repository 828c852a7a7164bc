/* kpt_pipe.h: the wake-up pipes between the TUI's threads (and signal
 * handlers) and its event loop: both ends non-blocking and close-on-exec,
 * so a full pipe never blocks a writer (a pending byte already wakes the
 * loop) and an editor or pager started later inherits neither end. */
#ifndef KPT_PIPE_H
#define KPT_PIPE_H

#include <stdbool.h>

/* false with errno set when pipe() fails */
bool kpt_pipe_open(int fd[2]);
void kpt_pipe_close(int fd[2]);
/* Runs fn(arg) on a detached thread: a job that hands its result to the
 * loop through a pipe and is never joined.  false when no thread could be
 * made (arg is still the caller's). */
bool kpt_pipe_job(void *(*fn)(void *), void *arg);

#endif
