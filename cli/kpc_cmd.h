/* kpc_cmd.h: the kpbrowse subcommands (git's builtin/ shape).  Each
 * kpc_cmd_NAME takes its own argv (argv[0] is the subcommand name) and
 * returns the process exit status (KP_EXIT_* of kp_exit.h), or one of
 * the two requests below.  main.c holds the one commands[] table: names,
 * synopses and help text live there only, and main.c prints them when a
 * command asks (so commands never call back into main.c).  What several
 * commands share is the CLI library (kpcli): kpc_common.h and kpc_rows.h.
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

/* Returned by a command: print its help ("usage: kpbrowse SYNOPSIS" and
 * the help text) to stdout and exit 0 (--help anywhere in its options). */
#define KPC_HELP (-1)
/* Returned by a command: print "kpbrowse: CMD: usage: kpbrowse SYNOPSIS"
 * and the --help hint to stderr and exit KP_EXIT_BAD. */
#define KPC_USAGE (-2)

#endif
