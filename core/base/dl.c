/* dl.c: optional libraries loaded at run time (kp_dl.h). */
#include "kp_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* One lock for every library: a load happens once per library and process. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static bool load(kp_dl_lib *lib)
{
	const char *env = lib->env ? getenv(lib->env) : NULL, *tried = "", *e = NULL;
	const char *const only[] = {env};
	const char *const *names = env && env[0] ? only : lib->names;
	size_t n = env && env[0] ? 1 : lib->n_names;
	void *h = NULL;
	for (size_t i = 0; i < n && !h; i++)
		h = dlopen(tried = names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(lib->why, sizeof lib->why, "cannot load %s (%.100s): %.200s%s%s%s", lib->what,
		         tried, e ? e : "not found", lib->hint ? "; install it (" : "",
		         lib->hint ? lib->hint : "", lib->hint ? ")" : "");
		return false;
	}
	for (size_t i = 0; i < lib->n_syms; i++)
		if (!(*lib->syms[i].slot = dlsym(h, lib->syms[i].name))) {
			snprintf(lib->why, sizeof lib->why, "cannot load %s: %s is missing", lib->what,
			         lib->syms[i].name);
			return false;
		}
	if (lib->start && (e = lib->start()) != NULL) {
		snprintf(lib->why, sizeof lib->why, "%s would not start: %s", lib->what, e);
		return false;
	}
	return true;
}

bool kp_dl_load(kp_dl_lib *lib, const char **why)
{
	int s = atomic_load_explicit(&lib->state, memory_order_acquire);
	if (!s) {
		pthread_mutex_lock(&load_lock);
		if (!(s = atomic_load_explicit(&lib->state, memory_order_relaxed))) {
			s = load(lib) ? 1 : -1;
			atomic_store_explicit(&lib->state, s, memory_order_release);
		}
		pthread_mutex_unlock(&load_lock);
	}
	if (why)
		*why = s > 0 ? NULL : lib->why;
	return s > 0;
}
