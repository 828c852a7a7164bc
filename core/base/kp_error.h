/* kp_error.h: errors as values for every kpbrowse library.
 *
 * Ownership: a kp_error is a plain value owned by the caller; functions that
 * fail fill it (when non-NULL) and return the same non-zero status code. */
#ifndef KP_ERROR_H
#define KP_ERROR_H

#include <stddef.h>

typedef enum kp_status {
	KP_OK = 0,
	KP_ERR_IO,        /* cannot open, read or stat a file */
	KP_ERR_FORMAT,    /* the content is not what it claims or is broken */
	KP_ERR_NOTPANIC,  /* a well-formed file that is not a kernel panic */
	KP_ERR_NOMEM,
	KP_ERR_NOTFOUND,  /* a lookup found nothing (no dSYM, no record) */
	KP_ERR_LIMIT,     /* input exceeds a documented size/depth limit */
	KP_ERR_DB,        /* sqlite reported a failure */
	KP_ERR_USAGE,     /* the caller passed something invalid */
	KP_ERR_CUT,       /* the file stops before its report begins (a header
	                     only): still being written, or cut */
} kp_status;

typedef struct kp_error {
	kp_status code;
	long line;        /* 1-based line of the problem, 0 when unknown */
	long byte;        /* 0-based byte offset of the problem, -1 when unknown */
	char msg[256];    /* what is wrong, without file name or position */
} kp_error;

/* Fills err (if non-NULL) and returns code.  line 0 / byte -1 mean unknown. */
kp_status kp_error_set(kp_error *err, kp_status code, long line, long byte,
                       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

void kp_error_clear(kp_error *err);

/* Formats "what is wrong (line L, byte B)" into buf; position parts are
 * omitted when unknown.  Returns buf. */
char *kp_error_format(const kp_error *err, char *buf, size_t size);

#endif
