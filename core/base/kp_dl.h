/* kp_dl.h: an optional library loaded at run time (dlopen) rather than
 * linked, so that a run which never needs it never maps it (Capstone,
 * libcurl): the first of a list of names or paths that loads, then a table
 * of the functions wanted from it.
 *
 * Ownership: a handle is never closed (the library stays for the life of
 * the process); names, strings and slots are the caller's.  Not
 * synchronised: callers load once (pthread_once) and keep the outcome. */
#ifndef KP_DL_H
#define KP_DL_H

#include <stddef.h>

/* One function wanted: its name, and where its address goes (a function
 * pointer's address, as void **: the POSIX-sanctioned way to store what
 * dlsym gives). */
typedef struct kp_dl_sym {
	const char *name;
	void **slot;
} kp_dl_sym;

/* The first of names[0..n) that dlopen(RTLD_NOW | RTLD_LOCAL) loads, in
 * order.  NULL when none does: then *tried is the last name tried (NULL
 * when n is 0) and *why what dlerror said, else "not found"; *why stays
 * valid until the next dl call. */
void *kp_dl_open(const char *const *names, size_t n, const char **tried, const char **why);

/* Fills each of syms[0..n) with its function's address in h: NULL when all
 * were found, else the name of the first one missing. */
const char *kp_dl_syms(void *h, const kp_dl_sym *syms, size_t n);

#endif
