/* dl.c: optional libraries loaded at run time (kp_dl.h). */
#include "kp_dl.h"

#include <dlfcn.h>

void *kp_dl_open(const char *const *names, size_t n, const char **tried, const char **why)
{
	void *h = NULL;
	*tried = NULL;
	for (size_t i = 0; i < n && !h; i++)
		h = dlopen(*tried = names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*why = e ? e : "not found";
	}
	return h;
}

const char *kp_dl_syms(void *h, const kp_dl_sym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(*syms[i].slot = dlsym(h, syms[i].name)))
			return syms[i].name;
	return NULL;
}
