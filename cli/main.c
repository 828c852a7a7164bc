/* main.c: kpbrowse's entry point: the subcommand table and the TUI launch. */
#include "kpt_cmd.h"
#include "kpt_sanitize.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KP_VERSION
#define KP_VERSION "0.0"
#endif

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} command;

static const command commands[] = {
	{"show", kpt_cmd_show, "show [--json] [--no-symbols] [--dsym PATH]... [--db PATH] FILE|@ID..."},
	{"lookup", kpt_cmd_lookup, "lookup --dsym FILE [--arch ARCH] [ADDR...]"},
	{"index", kpt_cmd_index, "index [--db PATH] [--json] [--resign] [PATH...]"},
	{"list", kpt_cmd_list, "list [--db PATH] [--groups] [--json]"},
	{"search", kpt_cmd_search, "search [--db PATH] [--json] (--uuid UUID | --kext BUNDLE_ID | TEXT)"},
	{"export", kpt_cmd_export, "export [--db PATH] @ID FILE"},
};

void kpt_report_error(const char *file, const kp_error *err)
{
	char msg[512];
	kp_error_format(err, msg, sizeof msg);
	fputs("kpbrowse: ", stderr);
	kpt_sanitize_write(stderr, file, strlen(file), 0);
	fputs(": ", stderr);
	kpt_sanitize_write(stderr, msg, strlen(msg), 0);
	fputc('\n', stderr);
}

void kpt_report_warning(const char *file, const char *msg, long line)
{
	fputs("kpbrowse: ", stderr);
	kpt_sanitize_write(stderr, file, strlen(file), 0);
	fputs(": warning: ", stderr);
	kpt_sanitize_write(stderr, msg, strlen(msg), 0);
	if (line > 0)
		fprintf(stderr, " (line %ld)", line);
	fputc('\n', stderr);
}

void kpt_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("kpbrowse: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'kpbrowse --help'.\n", stderr);
}

static void usage(FILE *fp)
{
	fprintf(fp, "kpbrowse %s: a terminal browser for macOS kernel panic reports\n\n"
	            "Usage:\n  kpbrowse [--demo] [--db PATH] [--dsym PATH]... [PATH...]   the TUI\n",
	        KP_VERSION);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(fp, "  kpbrowse %s\n", commands[i].usage);
	fprintf(fp, "  kpbrowse --help | --version\n\n"
	            "Exit status: 0 success, 1 nothing found, 2 bad input or usage.\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return KPT_EXIT_OK;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("kpbrowse %s\n", KP_VERSION);
		return KPT_EXIT_OK;
	}
	if (argc >= 2)
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			if (strcmp(argv[1], commands[i].name) == 0)
				return commands[i].run(argc - 1, argv + 1);
	/* The TUI: no arguments, an option other than --help/--version, or a
	 * path to browse. */
	if (argc < 2 || argv[1][0] == '-' || access(argv[1], F_OK) == 0)
		return kpt_tui_main(argc, argv);
	if (argc >= 2 && argv[1][0] != '-' ) {
		kpt_usage_error("unknown command '%s'", argv[1]);
		return KPT_EXIT_BAD;
	}
	usage(stderr);
	return KPT_EXIT_BAD;
}
