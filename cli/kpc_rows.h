/* kpc_rows.h: the rows of list, search and hosts (rows.c): each kind of
 * row as a text line (its table's header printed once first) or as an
 * element of one JSON array streamed to stdout as rows come (the one JSON
 * writer, kp_jw.h: cJSON_Print's layout, strings made safe).  The sinks are
 * kpi_report_fn / kpi_group_fn / kpi_host_fn callbacks whose ctx is a
 * kpc_json_rows to write to, or NULL to print text.
 * Ownership: a kpc_json_rows is made by kpc_rows_open (or kpc_rows_begin)
 * and freed by kpc_rows_close (or kpc_rows_end); rows are borrowed. */
#ifndef KPC_ROWS_H
#define KPC_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_error.h"

struct kpi_db;
struct kpi_report_row;
struct kpi_group_row;
struct kpi_host_row;
struct kpi_trends;
/* A report row as text (header first). */
void kpc_report_row_header(void);
void kpc_report_row_print(const struct kpi_report_row *r);
/* Rows as one JSON array streamed to stdout as they come (kp_jw.h):
 * kpc_rows_open (NULL when out
 * of memory), kpc_row_sink with it as ctx for each row, then kpc_rows_close
 * (NULL is a no-op), which ends the array ("[]" when empty; nothing at all
 * when failed and no row came, as before streaming), flushes, frees and
 * returns false when a write to stdout failed (main.c reports that, once). */
typedef struct kpc_json_rows kpc_json_rows;
kpc_json_rows *kpc_rows_open(void);
bool kpc_rows_close(kpc_json_rows *j, bool failed);
/* kpi_report_fn: ctx is a kpc_json_rows to write to, or NULL to print text. */
int kpc_row_sink(void *ctx, const struct kpi_report_row *row);
/* list --groups --json: each group's "trend" from t (kpi_group_trends;
 * borrowed until set again, NULL for none: then every trend is empty). */
void kpc_rows_set_trends(kpc_json_rows *j, const struct kpi_trends *t);
/* list --groups: the table's header, and kpi_group_fn as kpc_row_sink. */
void kpc_group_row_header(void);
int kpc_group_sink(void *ctx, const struct kpi_group_row *g);
/* hosts: the table's header, and kpi_host_fn as kpc_row_sink. */
void kpc_host_row_header(void);
int kpc_host_sink(void *ctx, const struct kpi_host_row *h);
/* The frame of a row-listing command (list, hosts, search): kpc_rows_begin
 * opens the index (flags 0) and, with json, the row array (*arr NULL
 * without); it returns KP_EXIT_OK, or the exit status with nothing left
 * open.  kpc_rows_end closes both, reports a failed st with
 * report(dbpath, err) and returns KP_EXIT_BAD when st failed or a write to
 * stdout did, else KP_EXIT_OK. */
int kpc_rows_begin(const char *db_opt, bool json, struct kpi_db **db, kpc_json_rows **arr,
                   char *dbpath, size_t size);
int kpc_rows_end(struct kpi_db **db, kpc_json_rows *arr, kp_status st, const char *dbpath,
                 const kp_error *err, void (*report)(const char *dbpath, const kp_error *err));

#endif
