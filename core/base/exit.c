/* exit.c: the error reports of kp_exit.h. */
#include "kp_exit.h"
#include "kp_sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kp_report_error(const char *file, const kp_error *err)
{
	char msg[512];
	kp_error_format(err, msg, sizeof msg);
	fputs("kpbrowse: ", stderr);
	kp_sanitize_write(stderr, file, strlen(file), 0);
	fputs(": ", stderr);
	kp_sanitize_write(stderr, msg, strlen(msg), 0);
	fputc('\n', stderr);
}

void kp_report_warning(const char *file, const char *msg, long line)
{
	fputs("kpbrowse: ", stderr);
	kp_sanitize_write(stderr, file, strlen(file), 0);
	fputs(": warning: ", stderr);
	kp_sanitize_write(stderr, msg, strlen(msg), 0);
	if (line > 0)
		fprintf(stderr, " (line %ld)", line);
	fputc('\n', stderr);
}

void kp_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("kpbrowse: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'kpbrowse --help'.\n", stderr);
}
