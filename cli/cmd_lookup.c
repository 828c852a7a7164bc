/* cmd_lookup.c: `kpbrowse lookup`: addresses in one dSYM or binary, printed
 * exactly as `llvm-symbolizer --inlining` prints them so the two can be
 * compared byte for byte.  Addresses are looked up as given. */
#include "kp_report.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kp_sanitize.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One address's answer, gathered and written at once (a cached lookup
 * costs less than a stdio call per string). */
struct answer {
	char b[8192];
	size_t n;
};

static void flush_answer(struct answer *a)
{
	fwrite(a->b, 1, a->n, stdout);
	a->n = 0;
}

/* Whether s[0..n) is all printable ASCII, eight bytes at a time: no byte
 * with its top bit set, none below 0x20, none 0x7f (each test exact for
 * "any byte": a borrow only follows a byte that already matched). */
static bool plain(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		uint64_t del = w ^ (0x7f * ones);
		if ((w | ((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & high)
			return false;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* s as a terminal may see it: printable ASCII (nearly every name and path)
 * as it is, anything else through kp_sanitize_write. */
static void put(struct answer *a, const char *s)
{
	size_t n = strlen(s);
	if (n <= sizeof a->b - a->n && plain(s, n)) {
		memcpy(a->b + a->n, s, n);
		a->n += n;
		return;
	}
	flush_answer(a);
	kp_sanitize_write(stdout, s, n, 0);
}

static void put_newline(struct answer *a)
{
	if (a->n == sizeof a->b)
		flush_answer(a);
	a->b[a->n++] = '\n';
}

/* ":LINE:COLUMN\n" (printf's cost was most of a cached lookup's). */
static void put_pos(struct answer *a, unsigned line, unsigned column)
{
	char b[32], *p = b + sizeof b;
	*--p = '\n';
	do
		*--p = (char)('0' + column % 10);
	while (column /= 10);
	*--p = ':';
	do
		*--p = (char)('0' + line % 10);
	while (line /= 10);
	*--p = ':';
	size_t n = (size_t)(b + sizeof b - p);
	if (n > sizeof a->b - a->n)
		flush_answer(a);
	memcpy(a->b + a->n, p, n);
	a->n += n;
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
		return kp_parse_u64(text, n, addr);
	memcpy(hex, "0x", 2);
	memcpy(hex + 2, text, n);
	return kp_parse_u64(hex, n + 2, addr);
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
	kp_status st = kp_symbols_lookup_file(sym, path, arch, addr, &res, &err);
	static size_t warned;   /* each warning once, as it comes */
	const char *wfile, *w;
	while ((w = kp_symbols_warning_at(sym, warned, &wfile)) != NULL) {
		warned++;
		kp_report_warning(wfile, w, 0);
	}
	if (st != KP_OK) {
		kp_report_error(path, &err);
		return -1;
	}
	if (res.status != KP_SYM_OK || res.nframes == 0) {
		fputs("??\n??:0:0\n\n", stdout);
		return 0;
	}
	struct answer a;
	a.n = 0;
	for (size_t i = 0; i < res.nframes; i++) {
		const kp_symframe *f = &res.frames[i];
		put(&a, f->function ? f->function : "??");
		put_newline(&a);
		put(&a, f->file ? f->file : "??");
		put_pos(&a, f->line, f->column);
	}
	put_newline(&a);
	flush_answer(&a);
	return 0;
}

/* Standard input a line at a time, read as it comes: stdout is flushed
 * only before a read that may block, when every line read so far is
 * answered, so a user typing addresses is answered at once and a pipe of
 * 100,000 is answered in blocks (one write per block, not per address). */
typedef struct lines {
	char *buf;
	size_t off, len, cap;
	bool eof, failed;   /* failed: stdout could not be written */
} lines;

#define LINE_MAX_BYTES (1u << 20)   /* a longer line is answered in pieces */

static char *next_line(lines *l)
{
	for (;;) {
		char *nl = l->off < l->len ? memchr(l->buf + l->off, '\n', l->len - l->off) : NULL;
		if (nl || (l->len - l->off >= LINE_MAX_BYTES) || (l->eof && l->off < l->len)) {
			char *line = l->buf + l->off;
			char *stop = nl ? nl : l->buf + l->len;
			*stop = '\0';   /* buf always has a byte past len */
			l->off = (size_t)(stop - l->buf) + (nl != NULL);
			return line;
		}
		if (l->eof)
			return NULL;
		if (fflush(stdout) == EOF || ferror(stdout)) {
			l->failed = true;
			return NULL;
		}
		if (l->off) {
			memmove(l->buf, l->buf + l->off, l->len - l->off);
			l->len -= l->off;
			l->off = 0;
		}
		if (l->cap - l->len < 4096 + 1) {
			size_t cap = l->cap ? l->cap * 2 : 65536;
			char *b = realloc(l->buf, cap);
			if (!b) {
				l->eof = true;
				continue;
			}
			l->buf = b;
			l->cap = cap;
		}
		ssize_t n = read(STDIN_FILENO, l->buf + l->len, l->cap - l->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			l->eof = true;
		else
			l->len += (size_t)n;
	}
}

static const struct option lookup_options[] = {
	{"dsym", required_argument, NULL, 'd'},
	{"kernelcache", required_argument, NULL, 'k'},
	{"arch", required_argument, NULL, 'a'},
	{"signatures", required_argument, NULL, 'S'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpc_cmd_lookup(int argc, char **argv)
{
	const char *path = NULL, *arch = NULL, *sigs[64];
	size_t nsigs = 0;
	int c, nfiles = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:k:a:hS:", lookup_options, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'k': path = optarg; nfiles++; break;
		case 'a': arch = optarg; break;
		case 'S':
			if (nsigs == sizeof sigs / sizeof sigs[0]) {
				kp_usage_error("lookup: at most %zu --signatures folders", nsigs);
				return KP_EXIT_BAD;
			}
			sigs[nsigs++] = optarg;
			break;
		case 'h':
			return KPC_HELP;
		default: return KPC_USAGE;   /* getopt said what was wrong */
		}
	}
	if (nfiles != 1) {
		kp_usage_error("lookup: one --dsym FILE or --kernelcache FILE is required");
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
	kp_symbols_opts so = {.no_env = true, .no_system = true, .batch = true, .signatures = sigs,
	                      .nsignatures = nsigs};
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
		lines in = {0};
		char *line;
		while (status == KP_EXIT_OK && (line = next_line(&in)) != NULL) {
			if (one(sym, path, arch, line) != 0)
				status = KP_EXIT_BAD;
			if (ferror(stdout))
				break; /* main reports the failed write */
		}
		free(in.buf);
	}
	kp_symbols_free(&sym);
	return status;
}
