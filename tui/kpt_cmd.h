/* kpt_cmd.h: the kpbrowse subcommands.  Each takes its own argv (argv[0] is
 * the subcommand name) and returns the process exit status: 0 success,
 * 1 nothing found (search), 2 bad input or usage.
 * Ownership: commands own nothing beyond their call. */
#ifndef KPT_CMD_H
#define KPT_CMD_H

#include <stdio.h>

#include "kp_error.h"

#define KPT_EXIT_OK 0
#define KPT_EXIT_NONE 1
#define KPT_EXIT_BAD 2

int kpt_cmd_show(int argc, char **argv);
int kpt_cmd_lookup(int argc, char **argv);

/* "kpbrowse: FILE: message (line L, byte B)" on stderr, sanitised. */
void kpt_report_error(const char *file, const kp_error *err);
/* "kpbrowse: FILE: warning: message (line L)" on stderr, sanitised. */
void kpt_report_warning(const char *file, const char *msg, long line);
void kpt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
