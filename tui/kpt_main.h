/* kpt_main.h: the TUI's entry point and its usage text, for cli/main.c
 * (which runs the TUI when no subcommand is given).  No curses here. */
#ifndef KPT_MAIN_H
#define KPT_MAIN_H

/* argv[0] is the program name; returns the process exit status
 * (KP_EXIT_*, or 128 + signal when a signal ended it). */
int kpt_main(int argc, char **argv);

/* "[--demo] [--db PATH] ... [PATH...]": the TUI's synopsis after "kpbrowse " */
extern const char kpt_synopsis[];
/* one line per option, indented, newline-terminated */
extern const char kpt_options_help[];

#endif
