/* kp_proc.h: running a helper program a user named (a panic-data decoder),
 * never through a shell: argv as given, input on its stdin, its stdout
 * read up to a limit, killed after a timeout.
 *
 * Ownership: *out is malloc'd (NUL-terminated), the caller's to free. */
#ifndef KP_PROC_H
#define KP_PROC_H

#include <stdatomic.h>
#include <stddef.h>

#include "kp_error.h"

/* Runs argv[0] (searched in PATH when it has no '/') with argv, feeding
 * input[0..len) to its stdin and collecting at most max bytes of its
 * stdout (the rest is read and dropped); stderr is discarded.  KP_OK with
 * *status its exit status (0..255, or 128 + signal); KP_ERR_LIMIT when it
 * ran past timeout_ms (it is killed); KP_ERR_IO when it cannot start. */
kp_status kp_proc_run(char *const argv[], const void *input, size_t len, size_t max,
                      int timeout_ms, char **out, size_t *outlen, int *status, kp_error *err);
/* kp_proc_run that also stops (the program and its group killed) within
 * 50 ms of *cancel turning true, set by another thread: KP_ERR_LIMIT with
 * "cancelled" in the message.  cancel NULL: kp_proc_run. */
kp_status kp_proc_run_cancel(char *const argv[], const void *input, size_t len, size_t max,
                             int timeout_ms, const atomic_bool *cancel, char **out, size_t *outlen,
                             int *status, kp_error *err);

#endif
