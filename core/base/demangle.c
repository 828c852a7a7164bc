/* demangle.c: Itanium C++ demangling with LLVM's demangler, the spelling
 * llvm-symbolizer and every macOS tool print (`>>`, `'lambda'(void*)`,
 * "invocation function for block in f()"), on every platform.
 *
 * libc++abi's __cxa_demangle is LLVM's demangler; it is loaded at run time
 * through kp_dl (kpbrowse is C and links no C++ runtime): the system's on
 * macOS, Debian's libc++abi1-19 on Linux.  Without it names stay mangled and
 * kp_demangle_missed() says whether one did and why, for a front end's
 * one-line notice. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_dl.h"
#include "kp_demangle.h"

/* The Itanium C++ ABI entry point: a malloc'd string and *status 0 on
 * success; -2 when the name is not mangled. */
typedef char *cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn *cxa_demangle;
static pthread_once_t dm_once = PTHREAD_ONCE_INIT;
static char dm_why[300];
static atomic_bool dm_missed;   /* a mangled name stayed so: no libc++abi */

/* KPBROWSE_LIBCXXABI when set (a test's way to make it absent), else LLVM
 * 19's (its spelling is the oracle's), then the system's. */
static const char *const dm_names[] = {
#ifdef __APPLE__
	"/usr/lib/libc++abi.dylib", "libc++abi.dylib",
#else
	"/usr/lib/llvm-19/lib/libc++abi.so.1", "libc++abi.so.1",
#endif
};

static void dm_load_once(void)
{
	const char *env = getenv("KPBROWSE_LIBCXXABI"), *tried, *e;
	(void)tried;   /* dlerror's message names the file */
	const char *const only[] = {env};
	void *h = env && env[0] ? kp_dl_open(only, 1, &tried, &e)
	                        : kp_dl_open(dm_names, sizeof dm_names / sizeof *dm_names, &tried, &e);
	if (!h) {
		snprintf(dm_why, sizeof dm_why,
		         "C++ names left mangled: cannot load libc++abi: %.200s "
		         "(Debian: apt install libc++abi1-19)", e);
		return;
	}
	const kp_dl_sym syms[] = {{"__cxa_demangle", (void **)&cxa_demangle}};
	const char *missing = kp_dl_syms(h, syms, 1);
	if (missing) {
		cxa_demangle = NULL;
		snprintf(dm_why, sizeof dm_why, "C++ names left mangled: libc++abi has no %s", missing);
	}
}

bool kp_demangle_available(const char **why)
{
	pthread_once(&dm_once, dm_load_once);
	if (why)
		*why = cxa_demangle ? NULL : dm_why;
	return cxa_demangle != NULL;
}

bool kp_demangle_missed(const char **why)
{
	bool missed = atomic_load(&dm_missed);
	if (why)
		*why = missed ? dm_why : NULL;
	return missed;
}

/* What llvm::nonMicrosoftDemangle takes as Itanium: "_Z..." or a block's
 * "___Z..._block_invoke" (one or three underscores before the Z). */
bool kp_demangle_itanium(const char *s)
{
	return s && ((s[0] == '_' && s[1] == 'Z') ||
	             (s[0] == '_' && s[1] == '_' && s[2] == '_' && s[3] == 'Z'));
}

char *kp_demangle(const char *name)
{
	if (!name)
		return NULL;
	/* Mach-O symbol tables prefix every C symbol with '_', so "_Z" arrives
	 * as "__Z" and "___Z" (a block) as "____Z"; DWARF names come without it. */
	if (name[0] == '_' && !kp_demangle_itanium(name) && kp_demangle_itanium(name + 1))
		name++;
	if (!kp_demangle_itanium(name))
		return NULL;
	if (!kp_demangle_available(NULL)) {
		atomic_store(&dm_missed, true);
		return NULL;
	}
	int status = 0;
	char *out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

const char *kp_demangle_label(const char *label, char *buf, size_t size)
{
	if (!label)
		return NULL;
	const char *bang = strchr(label, '!');
	const char *name = bang ? bang + 1 : label;
	size_t n = strcspn(name, " +");   /* the name ends where an offset begins */
	if (n < 2 || n > 4096 || name[0] != '_' || (name[1] != 'Z' && name[1] != '_'))
		return label;
	char tmp[4097];
	memcpy(tmp, name, n);
	tmp[n] = '\0';
	char *dm = kp_demangle(tmp);
	if (!dm)
		return label;
	snprintf(buf, size, "%.*s%s%s", (int)(name - label), label, dm, name + n);
	free(dm);
	return buf;
}
