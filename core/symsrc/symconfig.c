/* symconfig.c: kpbrowse's config file and the DebugSymbols defaults,
 * read as KEY = VALUE pairs (symconfig.h). */
#include "symconfig.h"
#include "kp_fs.h"
#include "plist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void config_path(char *out, size_t size)
{
	const char *env = getenv("KPBROWSE_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	out[0] = '\0';
	if (env)
		snprintf(out, size, "%s", env);
	else if (xdg && xdg[0] == '/')
		snprintf(out, size, "%s/kpbrowse/config", xdg);
	else if (home)
		snprintf(out, size, "%s/.config/kpbrowse/config", home);
}

static char *trim(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		p[--n] = '\0';
	return p;
}

void kp__config_read(kp__config_fn fn, void *ctx)
{
	char path[4096];
	config_path(path, sizeof path);
	char *buf = NULL;
	size_t len = 0;
	if (!path[0] || kp_fs_read_file(path, (size_t)1 << 20, &buf, &len, NULL, NULL) != KP_OK)
		return;
	for (char *line = buf, *nl; line && line < buf + len; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *eq = strchr(line, '=');
		line = trim(line);
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		fn(ctx, trim(line), trim(eq + 1));
	}
	free(buf);
}

#ifdef __APPLE__
struct defaults_ctx {
	kp__config_fn fn;
	void *ctx;
	const char *key;
};

static void defaults_value(void *ctx, const char *val)
{
	struct defaults_ctx *d = ctx;
	d->fn(d->ctx, d->key, val);
}

void kp__config_read_defaults(kp__config_fn fn, void *ctx)
{
	const char *home = getenv("HOME");
	char path[4096];
	char *buf = NULL;
	size_t len = 0;
	if (!home)
		return;
	snprintf(path, sizeof path, "%s/Library/Preferences/com.apple.DebugSymbols.plist", home);
	if (kp_fs_read_file(path, KP_PLIST_MAX, &buf, &len, NULL, NULL) != KP_OK)
		return;
	static const char *const keys[] = {"DBGSearchPaths", "DBGFileMappedPaths", "DBGShellCommands",
	                                   "DBGSpotlightPaths"};
	for (size_t j = 0; j < sizeof keys / sizeof *keys; j++) {
		struct defaults_ctx d = {fn, ctx, keys[j]};
		kp__plist_strings(buf, len, keys[j], defaults_value, &d, NULL);
	}
	free(buf);
}
#endif
