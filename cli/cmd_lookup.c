/* cmd_lookup.c: `kpbrowse lookup`: addresses in one dSYM or binary, printed
 * exactly as `llvm-symbolizer --inlining` prints them so the two can be
 * compared byte for byte.  Addresses are looked up as given. */
#include "kp_report.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kp_sanitize.h"

#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put(const char *s)
{
	kp_sanitize_write(stdout, s, strlen(s), 0);
}

/* An address as llvm-symbolizer reads it: hex with or without 0x, blanks
 * around it ignored; false when text is not one. */
static bool parse_addr(const char *text, uint64_t *addr)
{
	size_t n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\r' || text[n - 1] == '\t'))
		n--;
	while (n && (*text == ' ' || *text == '\t'))
		text++, n--;
	char hex[40];
	if (n == 0 || n > 36)
		return false;
	if (n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		snprintf(hex, sizeof hex, "%.*s", (int)n, text);
	else
		snprintf(hex, sizeof hex, "0x%.*s", (int)n, text);
	return kp_parse_u64(hex, strlen(hex), addr);
}

static int one(kp_symbols *sym, const char *path, const char *arch, const char *text)
{
	uint64_t addr;
	if (!parse_addr(text, &addr)) { /* on stdin, as llvm-symbolizer answers it */
		fputs("??\n??:0:0\n\n", stdout);
		return 0;
	}
	kp_symresult res;
	kp_error err;
	if (kp_symbols_lookup_file(sym, path, arch, addr, &res, &err) != KP_OK) {
		kp_report_error(path, &err);
		return -1;
	}
	if (res.status != KP_SYM_OK || res.nframes == 0) {
		fputs("??\n??:0:0\n\n", stdout);
		return 0;
	}
	for (size_t i = 0; i < res.nframes; i++) {
		const kp_symframe *f = &res.frames[i];
		put(f->function ? f->function : "??");
		putchar('\n');
		put(f->file ? f->file : "??");
		printf(":%u:%u\n", f->line, f->column);
	}
	putchar('\n');
	return 0;
}

static const struct option lookup_options[] = {
	{"dsym", required_argument, NULL, 'd'},
	{"arch", required_argument, NULL, 'a'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_lookup(int argc, char **argv)
{
	const char *path = NULL, *arch = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:a:h", lookup_options, NULL)) != -1) {
		switch (c) {
		case 'd': path = optarg; break;
		case 'a': arch = optarg; break;
		case 'h':
			return KPC_HELP;
		default: return KP_EXIT_BAD;
		}
	}
	if (!path) {
		kp_usage_error("lookup: --dsym FILE is required");
		return KP_EXIT_BAD;
	}
	/* an address given as an argument is checked before anything prints */
	for (int i = optind; i < argc; i++) {
		uint64_t addr;
		if (!parse_addr(argv[i], &addr)) {
			kp_usage_error("lookup: '%s' is not an address (hex, with or without 0x)", argv[i]);
			return KP_EXIT_BAD;
		}
	}
	/* no search roots: the file is named; the symbol cache still serves */
	kp_symbols_opts so = {.no_env = true, .no_system = true, .batch = true};
	kp_symbols *sym = NULL;
	kp_error err;
	if (kp_symbols_new(&so, &sym, &err) != KP_OK) {
		kp_report_error(path, &err);
		return KP_EXIT_BAD;
	}
	int status = KP_EXIT_OK;
	if (optind < argc) {
		for (int i = optind; i < argc && status == KP_EXIT_OK; i++)
			if (one(sym, path, arch, argv[i]) != 0)
				status = KP_EXIT_BAD;
	} else {
		char *line = NULL;
		size_t cap = 0;
		while (status == KP_EXIT_OK && getline(&line, &cap, stdin) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if (one(sym, path, arch, line) != 0)
				status = KP_EXIT_BAD;
			if (fflush(stdout) == EOF || ferror(stdout))
				break; /* main reports the failed write */
		}
		free(line);
	}
	kp_symbols_free(&sym);
	return status;
}
