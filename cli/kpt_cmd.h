/* kpt_cmd.h: the kpbrowse subcommands.  Each takes its own argv (argv[0] is
 * the subcommand name) and returns the process exit status: 0 success,
 * 1 nothing found (search), 2 bad input or usage.
 * Ownership: commands own nothing beyond their call. */
#ifndef KPT_CMD_H
#define KPT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kp_error.h"

#define KPT_EXIT_OK 0
#define KPT_EXIT_NONE 1
#define KPT_EXIT_BAD 2

int kpt_cmd_show(int argc, char **argv);
int kpt_cmd_lookup(int argc, char **argv);
/* The interactive browser (tui.c); argv[0] is the program name. */
int kpt_tui_main(int argc, char **argv);
int kpt_cmd_index(int argc, char **argv);
int kpt_cmd_list(int argc, char **argv);
int kpt_cmd_search(int argc, char **argv);
int kpt_cmd_export(int argc, char **argv);

/* "kpbrowse: FILE: message (line L, byte B)" on stderr, sanitised. */
void kpt_report_error(const char *file, const kp_error *err);
/* "kpbrowse: FILE: warning: message (line L)" on stderr, sanitised. */
void kpt_report_warning(const char *file, const char *msg, long line);
void kpt_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Index commands' shared pieces (cmd_index.c, cmd_list.c). */
struct kpi_db;
struct kpi_report_row;
struct cJSON;
/* Resolves --db (see kpi_default_path) into path and opens it; prints the
 * error and returns KPT_EXIT_BAD on failure. */
int kpt_open_index(const char *db_opt, bool create, struct kpi_db **db, char *path, size_t size);
/* A report row as text (header first) or as its JSON object (caller owns it). */
void kpt_report_row_header(void);
void kpt_report_row_print(const struct kpi_report_row *r);
struct cJSON *kpt_report_row_json(const struct kpi_report_row *r);
/* kpi_report_fn: ctx is a cJSON array to append to, or NULL to print text. */
int kpt_row_sink(void *ctx, const struct kpi_report_row *row);
/* Prints j pretty and deletes it. */
void kpt_print_json(struct cJSON *j);

#endif
