/* store_pg_lib.c: libpq loaded on first use (store_pg_lib.h). */
#define KPI__PQ_LIB_IMPL
#include "store_pg_lib.h"

#include "kp_dl.h"

struct kpi__pq kpi__pq;

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

static kp_dl_lib libpq = KP_DL_LIB("libpq", "KPBROWSE_LIBPQ", names, syms,
	"Debian: apt install libpq5; macOS: brew install libpq", NULL);

kp_status kpi__pq_load(kp_error *err)
{
	const char *why;
	if (!kp_dl_load(&libpq, &why))
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s", why);
	return KP_OK;
}
