/* demangle.c: Itanium C++ demangling through the C++ runtime.
 *
 * kpcore links with the C++ driver (LINKER_LANGUAGE CXX), so libc++abi /
 * libstdc++'s __cxa_demangle is available to C callers; its prototype is
 * declared here by hand because <cxxabi.h> is C++ only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_dwarf.h"

/* The Itanium C++ ABI entry point (extern "C" linkage).  Returns a malloc'd
 * string and sets *status to 0 on success; -2 means "not a mangled name". */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *kp_demangle(const char *name)
{
	if (!name)
		return NULL;
	/* Mach-O symbol tables prefix every C symbol with '_', so the Itanium
	 * "_Z" arrives as "__Z"; DWARF linkage names come without it. */
	if (name[0] == '_' && name[1] == '_' && name[2] == 'Z')
		name++;
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	int status = 0;
	char *out = __cxa_demangle(name, NULL, NULL, &status);
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
