/* kp_dl.h: the one loader of kpbrowse's optional libraries (Capstone,
 * libcurl, libpq, libc++abi): loaded at run time (dlopen)
 * rather than linked, so that a run which never needs one never maps it,
 * and a machine without one still runs everything else.  docs/style.md
 * ("Optional libraries") gives the whole pattern: the build switch, the one
 * file that includes the library's header, and this.
 *
 * A library is one static kp_dl_lib in that file: what it is called, the
 * file names to try, the table of functions wanted and, when it needs one,
 * a start-up call.  kp_dl_load loads it on first use and keeps the outcome.
 *
 * Ownership: a library, once loaded, is never closed (it stays for the life
 * of the process); the kp_dl_lib and everything it points to are the
 * caller's, static.  kp_dl_load is thread-safe: the first call loads, every
 * other waits for it and then returns the same outcome. */
#ifndef KP_DL_H
#define KP_DL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* One function wanted: its name, and where its address goes (a function
 * pointer's address, as void **: the POSIX-sanctioned way to store what
 * dlsym gives). */
typedef struct kp_dl_sym {
	const char *name;
	void **slot;
} kp_dl_sym;

typedef struct kp_dl_lib {
	const char *what;          /* its name in messages: "libcurl" */
	const char *env;           /* when this variable is set, the one file tried
	                            * (a test's way to make the library absent); or NULL */
	const char *const *names;  /* else these, in order: the build's file first */
	size_t n_names;
	const kp_dl_sym *syms;     /* every function called through it */
	size_t n_syms;
	const char *hint;          /* how to get it, said after why: "Debian: apt
	                            * install libcurl4"; or NULL */
	/* After every function is found, or NULL: NULL when it started, else
	 * why not ("curl_global_init failed"). */
	const char *(*start)(void);
	/* kp_dl_load's: zero before the first call */
	atomic_int state;          /* 0 not tried, 1 loaded, -1 not */
	char why[400];
} kp_dl_lib;

/* Loads lib on the first call (then returns what that call did): true when
 * every function in lib->syms is filled.  Else false and *why (when
 * non-NULL) says so for a user, valid for the life of the process:
 * "cannot load libcurl (libcurl.so.4): DLERROR; install it (HINT)",
 * "cannot load libcurl: curl_easy_init is missing", or "WHAT would not
 * start: START'S REASON".  On success *why is NULL. */
bool kp_dl_load(kp_dl_lib *lib, const char **why);

/* The number of elements of a static array (kp_dl_lib's names and syms). */
#define KP_DL_COUNT(a) (sizeof(a) / sizeof *(a))

/* A kp_dl_lib's initializer from its static arrays names[] and syms[]:
 * static kp_dl_lib libpq = KP_DL_LIB("libpq", "KPBROWSE_LIBPQ", names,
 * syms, "Debian: apt install libpq5", NULL); */
#define KP_DL_LIB(what_, env_, names_, syms_, hint_, start_)                                   \
	{.what = (what_), .env = (env_), .names = (names_), .n_names = KP_DL_COUNT(names_),     \
	 .syms = (syms_), .n_syms = KP_DL_COUNT(syms_), .hint = (hint_), .start = (start_)}

#endif
