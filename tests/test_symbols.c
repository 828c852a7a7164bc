/* test_symbols.c: dSYM discovery by UUID and its cache: a second launch
 * does not walk again; changes are noticed; strict UUID matching. */
#include "kt.h"
#include "kp_symbols.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEXT_ARM64 "4C4C44A3-5555-3144-A151-249D146ED38D"
#define KERNEL_X86 "4C4C44EF-5555-3144-A1CD-413F9846D32A"

static char tmp[256], root[300], cache[300];

static kp_symbols *open_syms(void)
{
	const char *paths[] = {root};
	kp_symbols_opts o = {.paths = paths, .npaths = 1, .no_env = true, .no_system = true,
	                     .cache_dir = cache};
	kp_symbols *s = NULL;
	kp_error err;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "kp_symbols_new");
	return s;
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	return system(cmd);
}

/* Steps of one story over one tree and cache folder, in this order. */
static void first_launch_finds_by_uuid(void)
{
	kp_symbols *s = open_syms();
	const char *p = kp_symbols_find(s, KEXT_ARM64);
	KT_CHECK(p && strstr(p, ".dSYM/Contents/Resources/DWARF/"), "kext found, a dSYM preferred (%s)", p ? p : "-");
	KT_CHECK(kp_symbols_find(s, "4c4c44a3555531 44a151249d146ed38d") == NULL, "a malformed UUID finds nothing");
	KT_CHECK(kp_symbols_find(s, "4c4c44a35555314 4a151249d146ed38d") == NULL, "spaces are not dashes");
	KT_CHECK(kp_symbols_find(s, "4c4c44a355553144a151249d146ed38d") != NULL, "lower case, no dashes");
	KT_CHECK(kp_symbols_find(s, "4C4C44A3-5555-3144-A151-249D146ED38E") == NULL, "a near-miss UUID is not accepted");
	kp_symbols_stats st = kp_symbols_get_stats(s);
	KT_CHECK(st.roots_walked == 1 && st.files_probed >= 8, "first launch walks the root (%zu probed)", st.files_probed);
	kp_symbols_free(&s);
}

static void second_launch_from_cache(void)
{
	kp_symbols *s = open_syms();
	KT_CHECK(kp_symbols_find(s, KERNEL_X86) != NULL, "second launch: found");
	kp_symbols_stats st = kp_symbols_get_stats(s);
	KT_CHECK(st.roots_walked == 0 && st.roots_from_cache == 1 && st.files_probed == 0,
	         "second launch answers from the cache without opening a file");
	kp_symbols_free(&s);
}

/* a new dSYM in the tree: the folder's mtime changed, so walk again,
 * reusing what the cache knew of unchanged files */
static void added_file_rewalks_only_it(void)
{
	sleep(1);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/new' && mv '%s/fakekext.symtab' '%s/new/relinked'", root, tmp, root);
	KT_CHECK(system(cmd) == 0, "a dSYM added to the tree");
	kp_symbols *s = open_syms();
	KT_CHECK(kp_symbols_find(s, "4C4C440D-5555-3144-A1F7-3CAE66CE75DF") != NULL, "a file added later is found");
	kp_symbols_stats st = kp_symbols_get_stats(s);
	KT_CHECK(st.roots_walked == 1 && st.files_probed == 1, "rewalk opens only the new file (%zu)", st.files_probed);
	kp_symbols_free(&s);
}

/* a file rewritten in place with other content: LC_UUID is confirmed */
static void changed_file_invalidates_root(void)
{
	sh("cp '%s/fakekext.x86_64' '%s/fakekext.arm64'", root, root);
	kp_symbols *s = open_syms();
	KT_CHECK(kp_symbols_find(s, KEXT_ARM64) != NULL, "kext still found (its dSYM)");
	kp_symbols_stats st = kp_symbols_get_stats(s);
	KT_CHECK(st.roots_walked == 1, "a file changed in place invalidates the cached root");
	kp_symbols_free(&s);
}

/* the cache file is a cache: garbage in it is ignored */
static void corrupt_cache_ignored(void)
{
	char cf[400];
	snprintf(cf, sizeof cf, "%s/dsym-cache-v1", cache);
	FILE *fp = fopen(cf, "w");
	if (!fp)
		return;
	fputs("kpbrowse-dsym-cache 1\nR\t/nonexistent\nF\tx\ty\nD\t\t\n", fp);
	fclose(fp);
	kp_symbols *s = open_syms();
	KT_CHECK(kp_symbols_find(s, KEXT_ARM64) != NULL, "a corrupt cache file is ignored");
	kp_symbols_free(&s);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/kp-test-symbols-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	snprintf(root, sizeof root, "%s/syms", tmp);
	snprintf(cache, sizeof cache, "%s/cache", tmp);
	sh("cp -R '%s' '%s'", KP_FIXTURES "/bin", root);
	/* kept aside, added to the tree later */
	sh("mv '%s/fakekext.symtab' '%s/'", root, tmp);

	first_launch_finds_by_uuid();
	second_launch_from_cache();
	added_file_rewalks_only_it();
	changed_file_invalidates_root();
	corrupt_cache_ignored();

	sh("rm -rf '%s'%s", tmp, "");
	return kt_done();
}
