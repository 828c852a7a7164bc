/* main.c: kpbrowse's entry point.  The one commands[] table dispatches the
 * subcommands and holds their synopses and help: `kpbrowse --help`,
 * `kpbrowse CMD --help` and the commands' usage errors all print from it.
 * With no subcommand the TUI runs (kpt_main); its own synopsis and option
 * help live with its options (kpt_main.h).  Built without it (KP_TUI=OFF),
 * the program is the subcommands alone and links no curses. */
#include "kp_demangle.h"
#include "kp_exit.h"
#include "kp_sanitize.h"
#include "kpc_cmd.h"
/* The browser (tui/, kpt_main.h), or what stands for it without one. */
#ifdef KP_HAVE_TUI
#include "kpt_main.h"
#define KPC_BROWSER_MAIN kpt_main
#define KPC_BROWSER_SYNOPSIS kpt_synopsis
#define KPC_BROWSER_OPTIONS_HELP kpt_options_help
#else
#define KPC_BROWSER_SYNOPSIS "COMMAND ..."
#define KPC_BROWSER_OPTIONS_HELP "  (this kpbrowse was built without the browser: -DKP_TUI=OFF)\n"
#define KPC_BROWSER_MAIN no_browser
static int no_browser(int argc, char **argv)
{
	(void)argc, (void)argv;
	fputs("kpbrowse: built without the browser (cmake -DKP_TUI=ON); "
	      "use a subcommand (kpbrowse --help)\n", stderr);
	return KP_EXIT_BAD;
}
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef KP_VERSION
#define KP_VERSION "0.0"
#endif

/* After a command or the browser: one line when a C++ name it met stayed
 * mangled because libc++abi (LLVM's demangler) could not be loaded. */
static int demangle_notice(int rc)
{
	const char *why;
	if (kp_demangle_missed(&why))
		fprintf(stderr, "kpbrowse: notice: %s\n", why);
	return rc;
}

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;    /* after "kpbrowse " */
	const char *help;        /* printed after the synopsis by CMD --help */
} command;

static const command commands[] = {
	{"show", kpc_cmd_show,
	 "show [--json] [--no-symbols] [--dsym PATH]... [--kernelcache FILE|FOLDER]... [--signatures DIR]... [--disasm N] [--load BUNDLE_ID=0xADDR]... [--panic-data-decoder UUID=COMMAND]... [--db PATH] FILE|@ID...",
	 "Prints each report (a file, or @ID from the index) with its frames symbolicated.\n"
	 "--disasm N: N instructions around every symbolicated frame (Capstone), read\n"
	 "from the binary next to its dSYM.\n"
	 "--signatures: a folder of symbolicator signature files (kernel/<darwin>/...):\n"
	 "names a stripped kernelcache's functions by the strings they reference.\n"
	 "--load: where a kext was loaded, as kextstat prints it, for reports that do not\n"
	 "say (stackshot -i text); its dSYM is found by bundle id.  Repeatable.\n"
	 "--panic-data-decoder: a kext team's decoder of its ExtensiblePanicLog entries,\n"
	 "run without a shell (words split at spaces, the DataID appended), the entry's\n"
	 "bytes on its stdin, what it prints shown; stopped after 5 s.  Repeatable.\n"},
	{"nvram", kpc_cmd_nvram,
	 "nvram [--json] [--no-symbols] [--dsym PATH]... [--kernelcache FILE|FOLDER]... [--index [--db PATH] [--unsaved-dir DIR]] FILE|-",
	 "Decodes a panic that was never saved as a report: the output of\n"
	 "nvram -x aapl,panic-info or nvram -p (Intel: 7-bit packed text), or a dump\n"
	 "of the panic region (FUNK or DEED header), and prints it as show does.\n"
	 "--index: saves the text as DIR/aapl,panic-info-HASH.panic (DIR: --unsaved-dir,\n"
	 "else unsaved/ beside the index) and indexes it.  --json: not symbolicated.\n"},
	{"lookup", kpc_cmd_lookup,
	 "lookup (--dsym FILE | --kernelcache FILE) [--arch ARCH] [--signatures DIR]... [ADDR...]",
	 "Reads addresses (hex) from the arguments, or one per line from stdin.\n"
	 "--kernelcache: the file looked in is a kernelcache (the same as --dsym).\n"
	 "--signatures: symbolicator signature files naming a stripped kernel's functions.\n"},
	{"index", kpc_cmd_index,
	 "index [--db PATH] [--host NAME] [--json] [-v] [--resign] [--dsym PATH]... [--kernelcache FILE|FOLDER]... [--no-symbols] [PATH...]",
	 "Default folders: /Library/Logs/DiagnosticReports and\n"
	 "~/Library/Logs/DiagnosticReports (their Retired/ folders included).\n"
	 "--host: the Mac the reports come from (else $KPBROWSE_HOST; a Mac's own\n"
	 "default folders are its own; other reports without a key name no Mac).\n"
	 "-v: also name every file skipped and why.  A PATH given that does not exist,\n"
	 "or is a FIFO or device, is a usage error; a file that is moved or removed\n"
	 "while the scan runs is skipped, not an error.  Errors go to stderr.\n"},
	{"list", kpc_cmd_list,
	 "list [--db PATH] [--groups | --host HOST] [--kind KIND] [--class CLASS] [--json]",
	 "--host: only the reports of one Mac (its host name or host key).\n"
	 "--kind: panic, watchdog, stackshot, reset, hang, shutdown-stall, sleep-wake\n"
	 "or all (the default).\n"
	 "--class: the cause class: hardware, firmware, heap-corruption,\n"
	 "resource-exhaustion, lock, null-deref, bad-pointer, gpu, storage-io,\n"
	 "sleep-wake, watchdog, assertion, other or all (the default).\n"
	 "Newest first by the reports' own dates; undated reports last.\n"},
	{"hosts", kpc_cmd_hosts,
	 "hosts [--db PATH] [--json]",
	 "The Macs the reports came from: host name, host key, model, OS builds,\n"
	 "report count, last report.\n"},
	{"search", kpc_cmd_search,
	 "search [--db PATH] [--json] [--limit N] (--uuid UUID | --kext BUNDLE_ID | --zone NAME | TEXT...)",
	 "--zone: zone exhaustion panics whose leak suspect is zone NAME.\n"},
	{"export", kpc_cmd_export,
	 "export [--db PATH] (@ID FILE|- | --markdown [--no-symbols] [--dsym PATH]... @ID|gGROUP [FILE|-])",
	 "Writes report ID's original bytes to FILE, which must not exist, or to\n"
	 "standard output for -.\n"
	 "--markdown: a bug report to paste into an issue or Feedback Assistant: headline,\n"
	 "cause class and evidence, the group's count and builds, the panicked thread\n"
	 "symbolicated with file:line, the kexts in the backtrace with versions and\n"
	 "UUIDs, where the raw report is, the panic string; every field sanitised and\n"
	 "set as code.  gGROUP: a group's newest report (list --groups names them).\n"
	 "To FILE (new; never in a report folder), else standard output.\n"},
	{"cache", kpc_cmd_cache,
	 "cache build PATH... | cache list | cache clear [UUID...]",
	 "The symbol cache (KPBROWSE_CACHE_DIR, else the platform cache folder):\n"
	 "build writes one for every Mach-O with DWARF under each PATH (a .dSYM, a\n"
	 "DWARF file, a folder or a KDK), one line per UUID with its size and build\n"
	 "time; list shows UUID, arch, size, when built, fresh or stale, and the\n"
	 "DWARF file; clear removes those of the UUIDs given, or all.  Lookups\n"
	 "never wait for a cache: they answer from the DWARF until one exists.\n"},
	{"symbols", kpc_cmd_symbols,
	 "symbols where [--dsym PATH]... [--kernelcache FILE|FOLDER]... [--signatures DIR]... UUID",
	 "Asks every symbol source for UUID in their order (next to a --dsym binary,\n"
	 "--dsym, local folders, file-mapped trees, KDKs, Spotlight, dsymForUUID,\n"
	 "symbol servers, kernelcaches) until one holds a file with it, and prints\n"
	 "what each tried and said, then the file (its LC_UUID confirmed), the source\n"
	 "it came from, dSYM or binary, its architecture, a binary with the UUID beside\n"
	 "it, and what a dsymForUUID program said of the sources.  With signature\n"
	 "folders (--signatures, KPBROWSE_SIGNATURES, the config's Signatures), a last\n"
	 "step names them and the signature files that apply to the kernelcache entry\n"
	 "or kernel found.\n"
	 "Exit status 1: not found.\n"},
	{"dsym-for-uuid", kpc_cmd_dsym_for_uuid,
	 "dsym-for-uuid [--dsym PATH]... [--kernelcache FILE|FOLDER]... UUID...",
	 "kpbrowse as a dsymForUUID for lldb, atos and Xcode (DBGShellCommands,\n"
	 "LLDB_APPLE_DSYMFORUUID_EXECUTABLE): prints the XML plist lldb reads, a\n"
	 "dictionary keyed by each UUID with DBGArchitecture, DBGDSYMPath (the dSYM's\n"
	 "DWARF file), DBGSymbolRichExecutable (the binary) and the source paths a\n"
	 "dsymForUUID program said, or DBGError when no symbol source holds it.  Exit\n"
	 "status 0 whenever the plist is printed (lldb reads it only then).  lldb's\n"
	 "--ignoreNegativeCache and --copyExecutable are accepted and ignored.\n"},
	{"db", kpc_cmd_db,
	 "db init [--db PATH|URI] [--json] | db rebuild [--db PATH] [--json] [PATH...]",
	 "init: creates or migrates the index's schema.  On a PostgreSQL server\n"
	 "(--db postgresql://..., postgres://... or a libpq key=value string)\n"
	 "this is the only command that changes the schema; run\n"
	 "packaging/postgresql/roles.sql with psql -f after it.\n"
	 "rebuild: a damaged sqlite index made anew from the report folders (PATH...,\n"
	 "else index's) and every report its archive still holds, then renamed over\n"
	 "it; a damaged old file is kept as INDEX.damaged (exit 2).\n"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

static int help(const command *c)
{
	printf("usage: kpbrowse %s\n%s", c->synopsis, c->help);
	return KP_EXIT_OK;
}

/* A command's output must have reached stdout: a write that failed (a full
 * disk, /dev/full) is exit 2 with one line on stderr; a reader that went
 * away (EPIPE, `| head`, when SIGPIPE is ignored) ends quietly. */
static int finish_stdout(int rc)
{
	errno = 0;
	int e = fflush(stdout) == EOF ? errno : 0;
	if (!ferror(stdout))
		return rc;
	if (e == EPIPE)
		return rc;
	fprintf(stderr, "kpbrowse: cannot write to standard output: %s\n",
	        e ? strerror(e) : "write error");
	return KP_EXIT_BAD;
}

/* Runs c, and prints its help or usage when it asks (kpc_cmd.h). */
static int run(const command *c, int argc, char **argv)
{
	int rc = c->run(argc, argv);
	if (rc == KPC_HELP)
		rc = help(c);
	if (rc == KPC_USAGE) {
		kp_usage_error("%s: usage: kpbrowse %s", c->name, c->synopsis);
		return KP_EXIT_BAD;
	}
	return demangle_notice(finish_stdout(rc));
}

/* README.md's Usage block is these synopsis lines without their indent
 * (tests/test_usage.sh compares them). */
static void usage(FILE *fp)
{
	fprintf(fp, "kpbrowse %s: a terminal browser for macOS kernel panic reports\n\n"
	            "Usage:\n  kpbrowse %s\n",
	        KP_VERSION, KPC_BROWSER_SYNOPSIS);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(fp, "  kpbrowse %s\n", commands[i].synopsis);
	fprintf(fp, "  kpbrowse --help | --version\n\n"
	            "With no command: the TUI.\n%s\n"
	            "Each command: kpbrowse COMMAND --help.\n"
	            "Exit status: 0 success, 1 nothing found, 2 bad input or usage.\n",
	        KPC_BROWSER_OPTIONS_HELP);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return KP_EXIT_OK;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("kpbrowse %s\n", KP_VERSION);
		return KP_EXIT_OK;
	}
	/* getopt names the program by argv[0]: "kpbrowse list" for a
	 * subcommand's options (the TUI says its own, tui/options.c) */
	static char sub[64];
	const command *c = argc >= 2 ? find_command(argv[1]) : NULL;
	if (c) {
		if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))
			return help(c);
		snprintf(sub, sizeof sub, "kpbrowse: %s", c->name);
		argv[1] = sub;
		return run(c, argc - 1, argv + 1);
	}
	/* The TUI: no arguments, an option other than --help/--version, or a
	 * path to browse. */
	if (argc < 2 || argv[1][0] == '-' || access(argv[1], F_OK) == 0)
		return demangle_notice(KPC_BROWSER_MAIN(argc, argv));
	int e = errno;
	/* a path (it has a slash) is not a command: say what is wrong with it */
	if (strchr(argv[1], '/')) {
		fputs("kpbrowse: ", stderr);
		kp_sanitize_write(stderr, argv[1], strlen(argv[1]), 0);
		fprintf(stderr, ": %s\n", e == ENOENT ? "no such file or folder" : strerror(e));
		return KP_EXIT_BAD;
	}
	kp_usage_error("unknown command '%s' (and no file or folder of that name)", argv[1]);
	return KP_EXIT_BAD;
}
