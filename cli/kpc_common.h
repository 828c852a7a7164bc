/* kpc_common.h: the CLI library's helpers that several subcommands share
 * (common.c): the index opened as --db says and its errors printed, report
 * ids, one JSON document to stdout, the default report folders, a scan's
 * errors, and two option parsers.  They print to stdout/stderr (this is
 * the program's front end) and return exit statuses (kp_exit.h) or the
 * KPC_HELP/KPC_USAGE requests of kpc_cmd.h.
 * Ownership: the caller owns every buffer it passes; an opened kpi_db is
 * the caller's to kpi_close. */
#ifndef KPC_COMMON_H
#define KPC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kp_error.h"
#include "kp_exit.h"
#include "kp_jw.h"
#include "kpc_cmd.h"

/* The options of the commands that ask the symbol sources (symbols where,
 * dsym-for-uuid): --dsym PATH (at most KPC_MAX_DSYM) into
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

struct kpi_db;
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
/* One JSON document on stdout (index, db): kpc_json_open starts w (kp_jw.h)
 * on stdout, the caller writes one value, kpc_json_close ends it with a
 * newline, writes it out and frees w; false when a write failed (main.c
 * reports that, once). */
void kpc_json_open(kp_jw *w);
bool kpc_json_close(kp_jw *w);
/* The options of a command that takes only --db PATH, --json and --help
 * (hosts, db): KP_EXIT_OK to go on (optind at the first operand), KPC_HELP,
 * or KP_EXIT_BAD (getopt printed why). */
int kpc_db_json_options(int argc, char **argv, const char **db_opt, bool *json);
/* The folders index reads by default into folders (the one under $HOME
 * written into home_buf), and how many. */
size_t kpc_default_folders(const char *folders[2], char *home_buf, size_t size);
/* A scan's warnings and errors (and a re-sign's, rs may be NULL), one line
 * each on stderr, naming the file. */
struct kpi_summary;
struct kpi_resign_summary;
void kpc_print_scan_errors(const struct kpi_summary *s, const struct kpi_resign_summary *rs);

#endif
