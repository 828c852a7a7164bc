/* store_pg_lib.c: libpq loaded on first use (store_pg_lib.h). */
#define KPI__PQ_LIB_IMPL
#include "store_pg_lib.h"

#include "kp_dl.h"

#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>

struct kpi__pq kpi__pq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[300];   /* why not, when not loaded */

/* The library the build found (KP_LIBPQ_PATH, from pkg-config: a Homebrew
 * keg on macOS, which no default search path holds), then the platform's
 * run-time name. */
static const char *const names[] = {
#ifdef KP_LIBPQ_PATH
	KP_LIBPQ_PATH,
#endif
#ifdef __APPLE__
	"libpq.5.dylib",
#else
	"libpq.so.5",
#endif
};

/* dlsym's void * to a function pointer: the POSIX-sanctioned way */
#define KPI__PQ_SYM(f) {#f, (void **)&kpi__pq.f},
static const kp_dl_sym syms[] = {KPI__PQ_FUNCS(KPI__PQ_SYM)};
#undef KPI__PQ_SYM

static void load(void)
{
	const char *tried, *e;
	void *h = kp_dl_open(names, sizeof names / sizeof names[0], &tried, &e);
	if (!h) {
		snprintf(why, sizeof why, "cannot load libpq (%s): %s", tried, e);
		return;
	}
	const char *missing = kp_dl_syms(h, syms, sizeof syms / sizeof syms[0]);
	if (missing) {
		snprintf(why, sizeof why, "cannot load libpq: %s is missing", missing);
		return;
	}
	loaded = true;
}

kp_status kpi__pq_load(kp_error *err)
{
	pthread_once(&once, load);
	if (!loaded)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s", why[0] ? why : "cannot load libpq");
	return KP_OK;
}
