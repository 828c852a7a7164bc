/* kp_exit.h: the program's exit statuses and its stderr error reports,
 * shared by the TUI and the subcommands (cli/ includes this; tui/ never
 * includes cli/).  The functions write to stderr, sanitised, and own
 * nothing beyond the call. */
#ifndef KP_EXIT_H
#define KP_EXIT_H

#include "kp_error.h"

#define KP_EXIT_OK 0    /* success */
#define KP_EXIT_NONE 1  /* nothing found (search) */
#define KP_EXIT_BAD 2   /* bad input or usage */

/* "kpbrowse: FILE: message (line L, byte B)" on stderr, sanitised. */
void kp_report_error(const char *file, const kp_error *err);
/* "kpbrowse: FILE: warning: message (line L)" on stderr, sanitised. */
void kp_report_warning(const char *file, const char *msg, long line);
/* "kpbrowse: message" then "Try 'kpbrowse --help'." on stderr. */
void kp_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
