/* kt_slurp.h: the one home of the tests' and benchmarks' whole reads: a
 * file (through core's one reader, kp_fs_read_file, without its size
 * limit), an open stream, and what a command prints (popen).
 * Ownership: the caller frees every returned buffer (NUL-terminated, the
 * NUL not counted in *len); NULL when it cannot be read. */
#ifndef KT_SLURP_H
#define KT_SLURP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_fs.h"
#include "kp_strbuf.h"

/* noinline: inlined, gcc -O2 takes the returned buffer for a pointer to the
 * local that received it (-Wdangling-pointer) */
static void *kt_slurp(const char *path, size_t *len) __attribute__((unused, noinline));
static void *kt_slurp(const char *path, size_t *len)
{
	char *b;
	if (kp_fs_read_file(path, SIZE_MAX, &b, len, NULL, NULL) != KP_OK)
		return NULL;
	return b;
}

/* The rest of stream f, read to its end ("" when nothing is left); *len
 * (may be NULL) its length; NULL when out of memory. */
static char *kt_slurp_stream(FILE *f, size_t *len) __attribute__((unused));
static char *kt_slurp_stream(FILE *f, size_t *len)
{
	kp_sb sb = {0};
	char buf[1 << 16];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		kp_sb_add(&sb, buf, k);
	if (len)
		*len = sb.n;
	return kp_sb_take(&sb);
}

/* What the shell command cmd writes on its stdout, whole (*len may be
 * NULL); NULL when it cannot be started, or exits other than 0 (what it
 * wrote is dropped then). */
static char *kt_capture(const char *cmd, size_t *len) __attribute__((unused));
static char *kt_capture(const char *cmd, size_t *len)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	char *out = kt_slurp_stream(p, len);
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The first line cmd prints (without its newline) in line[0..size): false,
 * line "", when it prints none or fails (kt_capture). */
static bool kt_capture_line(const char *cmd, char *line, size_t size) __attribute__((unused));
static bool kt_capture_line(const char *cmd, char *line, size_t size)
{
	char *out = kt_capture(cmd, NULL);
	size_t n = out ? strcspn(out, "\n") : 0;
	snprintf(line, size, "%.*s", (int)n, out ? out : "");
	free(out);
	return n > 0;
}

#endif
