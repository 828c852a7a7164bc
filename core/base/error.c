#include "kp_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

kp_status kp_error_set(kp_error *err, kp_status code, long line, long byte,
                       const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		err->line = line;
		err->byte = byte;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

void kp_error_clear(kp_error *err)
{
	if (err) {
		err->code = KP_OK;
		err->line = 0;
		err->byte = -1;
		err->msg[0] = '\0';
	}
}

char *kp_error_format(const kp_error *err, char *buf, size_t size)
{
	if (err->line > 0 && err->byte >= 0)
		snprintf(buf, size, "%s (line %ld, byte %ld)", err->msg, err->line, err->byte);
	else if (err->line > 0)
		snprintf(buf, size, "%s (line %ld)", err->msg, err->line);
	else if (err->byte >= 0)
		snprintf(buf, size, "%s (byte %ld)", err->msg, err->byte);
	else
		snprintf(buf, size, "%s", err->msg);
	return buf;
}
