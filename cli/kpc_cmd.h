/* kpc_cmd.h: the kpbrowse subcommands (git's builtin/ shape).  Each
 * kpc_cmd_NAME takes its own argv (argv[0] is the subcommand name) and
 * returns the process exit status (KP_EXIT_* of kp_exit.h), or one of
 * the two requests below.  main.c holds the one commands[] table: names,
 * synopses and help text live there only, and main.c prints them when a
 * command asks (so commands never call back into main.c).
 * Ownership: commands own nothing beyond their call. */
#ifndef KPC_CMD_H
#define KPC_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kp_error.h"
#include "kp_exit.h"

int kpc_cmd_show(int argc, char **argv);
int kpc_cmd_lookup(int argc, char **argv);
int kpc_cmd_index(int argc, char **argv);
int kpc_cmd_list(int argc, char **argv);
int kpc_cmd_search(int argc, char **argv);
int kpc_cmd_export(int argc, char **argv);
int kpc_cmd_cache(int argc, char **argv);
int kpc_cmd_hosts(int argc, char **argv);
int kpc_cmd_db(int argc, char **argv);
int kpc_cmd_nvram(int argc, char **argv);
int kpc_cmd_symbols(int argc, char **argv);
int kpc_cmd_dsym_for_uuid(int argc, char **argv);

/* The options of the commands that ask the symbol sources (symbols where,
 * dsym-for-uuid; cmd_symbols.c): --dsym PATH (at most KPC_MAX_DSYM) into
 * paths, --kernelcache FILE|FOLDER (as many) into kcs, with sigs
 * --signatures DIR (as many) into sigs (without: an unknown option), --help,
 * and with lldb_flags the --ignoreNegativeCache and
 * --copyExecutable lldb gives a dsymForUUID, accepted and ignored.
 * KP_EXIT_OK to go on (optind at the first operand), KPC_HELP, or
 * KP_EXIT_BAD (the error printed). */
#define KPC_MAX_DSYM 64
int kpc_source_options(const char *cmd, int argc, char **argv, bool lldb_flags,
                       const char *paths[KPC_MAX_DSYM], size_t *npaths,
                       const char *kcs[KPC_MAX_DSYM], size_t *nkcs,
                       const char *sigs[KPC_MAX_DSYM], size_t *nsigs);

/* Returned by a command: print its help ("usage: kpbrowse SYNOPSIS" and
 * the help text) to stdout and exit 0 (--help anywhere in its options). */
#define KPC_HELP (-1)
/* Returned by a command: print "kpbrowse: CMD: usage: kpbrowse SYNOPSIS"
 * and the --help hint to stderr and exit KP_EXIT_BAD. */
#define KPC_USAGE (-2)

/* Index commands' shared pieces (cmd_index.c, cmd_list.c). */
struct kpi_db;
struct kpi_report_row;
/* Resolves --db (see kpi_default_path) and opens it with flags (KPI_OPEN_*);
 * path gets the target as messages and JSON show it (a password masked).
 * Prints the error and returns KP_EXIT_BAD on failure. */
int kpc_open_index(const char *db_opt, unsigned flags, struct kpi_db **db, char *path, size_t size);
/* "kpbrowse: MSG" for an index error, with dbpath in front only when the
 * message does not already start with it. */
void kpc_report_db_error(const char *dbpath, const kp_error *err);
/* Why arg is not a report id: "too large ..." for @ and digits beyond
 * INT64_MAX, else "not a report id ..." (static text). */
const char *kpc_bad_id_reason(const char *arg);
/* "kpbrowse: CMD: ARG: reason" on stderr. */
void kpc_bad_id(const char *cmd, const char *arg);
/* Prints o as cJSON_Print does (strings made safe: kp_report_json.h) and a
 * newline to stdout, then deletes o (NULL: nothing printed). */
struct cJSON;
void kpc_print_json(struct cJSON *o);
/* A report row as text (header first). */
void kpc_report_row_header(void);
void kpc_report_row_print(const struct kpi_report_row *r);
/* Rows as one JSON array streamed to stdout as they come (cJSON_Print's
 * layout, strings made safe: kp_report_json.h): kpc_rows_open (NULL when out
 * of memory), kpc_row_sink with it as ctx for each row, then kpc_rows_close
 * (NULL is a no-op), which ends the array ("[]" when empty; nothing at all
 * when failed and no row came, as before streaming), flushes, frees and
 * returns false when a write to stdout failed (main.c reports that, once). */
typedef struct kpc_json_rows kpc_json_rows;
kpc_json_rows *kpc_rows_open(void);
bool kpc_rows_close(kpc_json_rows *j, bool failed);
/* kpi_report_fn: ctx is a kpc_json_rows to write to, or NULL to print text. */
int kpc_row_sink(void *ctx, const struct kpi_report_row *row);
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
/* The options of a command that takes only --db PATH, --json and --help
 * (hosts, db): KP_EXIT_OK to go on (optind at the first operand), KPC_HELP,
 * or KP_EXIT_BAD (getopt printed why). */
int kpc_db_json_options(int argc, char **argv, const char **db_opt, bool *json);

#endif
