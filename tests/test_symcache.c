/* test_symcache.c: the per-UUID symbol cache answers every address exactly
 * as the DWARF does; lookups never build it (kp_symbols_cache_step does,
 * and can be cancelled); a second launch does not open the DWARF; a
 * truncated, bit-flipped, foreign or stale cache file is ignored and
 * rebuilt. */
#include "kt.h"
#include "kp_macho.h"
#include "kp_symbols.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define KERNEL_ARM64 "4C4C44BD-5555-3144-A14B-0078EC5E31E1"
#define KEXT_ARM64 "4C4C44A3-5555-3144-A151-249D146ED38D"

static char tmp[256], cache[300];

static kp_symbols *syms(const char *mode, const char *cache_dir)
{
	setenv("KPBROWSE_SYMCACHE", mode, 1);
	kp_symbols_opts o = {.no_env = true, .no_system = true, .cache_dir = cache_dir};
	kp_symbols *s = NULL;
	kp_error err;
	if (kp_symbols_new(&o, &s, &err) != KP_OK)
		return NULL;
	return s;
}

static bool same_str(const char *a, const char *b)
{
	return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

static bool same_result(const kp_symresult *a, const kp_symresult *b)
{
	if (a->status != b->status || a->nframes != b->nframes || !same_str(a->source, b->source) ||
	    strcmp(a->msg, b->msg) != 0)
		return false;
	for (size_t i = 0; i < a->nframes; i++)
		if (!same_str(a->frames[i].function, b->frames[i].function) ||
		    !same_str(a->frames[i].file, b->frames[i].file) ||
		    a->frames[i].line != b->frames[i].line || a->frames[i].column != b->frames[i].column)
			return false;
	return true;
}

/* __text of the slice, every byte of it plus a margin on each side. */
static bool text_range(const char *dwarf, const char *arch, uint64_t *lo, uint64_t *hi)
{
	kp_macho *m = NULL;
	kp_error err;
	if (kp_macho_open(dwarf, &m, &err) != KP_OK)
		return false;
	const kp_macho_slice *sl = kp_macho_find_arch(m, arch);
	const unsigned char *data;
	uint64_t size = 0, addr = 0;
	bool ok = sl && kp_macho_section(sl, NULL, "__text", &data, &size, &addr) && size;
	kp_macho_close(&m);
	*lo = addr >= 64 ? addr - 64 : 0;
	*hi = addr + size + 64;
	return ok;
}

/* Every address of dwarf's __text answered by s as by the DWARF path. */
static size_t compare_all(kp_symbols *s, const char *dwarf, const char *arch, size_t *nsym)
{
	uint64_t lo, hi;
	if (!text_range(dwarf, arch, &lo, &hi))
		return SIZE_MAX;
	kp_symbols *ref = syms("never", "");
	size_t bad = 0;
	*nsym = 0;
	for (uint64_t a = lo; a < hi; a++) {
		kp_symresult want, got;
		kp_error e1, e2;
		kp_status s1 = kp_symbols_lookup_file(ref, dwarf, arch, a, &want, &e1);
		kp_status s2 = kp_symbols_lookup_file(s, dwarf, arch, a, &got, &e2);
		if (s1 != s2 || !same_result(&want, &got)) {
			if (bad++ < 3)
				printf("# 0x%llx: %s vs %s\n", (unsigned long long)a,
				       want.nframes ? want.frames[0].function : "-",
				       got.nframes ? got.frames[0].function : "-");
		}
		*nsym += want.status == KP_SYM_OK && want.nframes;
	}
	kp_symbols_free(&ref);
	return bad;
}

static void dwarf_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/bin/%s.dSYM/Contents/Resources/DWARF/%s", tmp, name, name);
}

/* One lookup through a fresh kp_symbols (mode "always"), then the idle
 * step that builds a wanted cache, for its stats. */
static kp_symbols_stats one_launch(const char *dwarf, const char *arch)
{
	kp_symbols *s = syms("always", cache);
	kp_symresult r;
	kp_error err;
	kp_symbols_lookup_file(s, dwarf, arch, 0x4000, &r, &err);
	kp_symbols_cache_step(s, NULL, &err);
	kp_symbols_stats st = kp_symbols_get_stats(s);
	kp_symbols_free(&s);
	return st;
}

static size_t progress_calls, progress_final, cancel_after;

static void on_progress(void *ctx, size_t done, size_t total)
{
	(void)ctx;
	progress_calls++;
	if (total == 1000 && done == 1000)
		progress_final++;
}

static bool on_cancel(void *ctx)
{
	(void)ctx;
	return progress_calls >= cancel_after;
}

static void rewrite(const char *file, long at, int xor_mask, long truncate_to)
{
	FILE *fp = fopen(file, "r+b");
	if (!fp)
		return;
	if (at >= 0) {
		fseek(fp, at, SEEK_SET);
		int c = fgetc(fp);
		fseek(fp, at, SEEK_SET);
		fputc(c ^ xor_mask, fp);
	}
	fclose(fp);
	if (truncate_to >= 0 && truncate(file, truncate_to) != 0)
		perror("truncate");
}

static long file_size(const char *file)
{
	struct stat st;
	return stat(file, &st) == 0 ? (long)st.st_size : -1;
}

/* every fixture: built on first use, then read back without DWARF */
static void built_and_read_back(void)
{
	static const struct { const char *name, *arch; } fx[] = {
		{"fakekernel.arm64", NULL}, {"fakekernel.x86_64", NULL}, {"fakekext.arm64", NULL},
		{"fakekext.x86_64", NULL},  {"fakekext.universal", "arm64"},
		{"fakekext.universal", "x86_64"},
	};
	char dw[600];
	for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
		dwarf_path(dw, sizeof dw, fx[i].name);
		const char *what = fx[i].arch ? fx[i].arch : fx[i].name;
		size_t nsym = 0;
		kp_symbols *s = syms("always", cache);
		size_t bad = compare_all(s, dw, fx[i].arch, &nsym);
		kp_symbols_stats st = kp_symbols_get_stats(s);
		KT_CHECK(bad == 0 && nsym > 100 && st.symcaches_built == 0 && st.dwarf_opened == 1,
		         "%s: first answers straight from DWARF, no cache built (%zu symbolicated)",
		         what, nsym);
		KT_CHECK(kp_symbols_cache_pending(s) != NULL, "%s: a cache is wanted", what);
		/* cancelled at its first progress report: nothing written, still wanted */
		kp_error err;
		progress_calls = progress_final = 0;
		cancel_after = 1;
		kp_symbols_cache_cb cb = {on_progress, on_cancel, NULL};
		kp_status cst = kp_symbols_cache_step(s, &cb, &err);
		KT_CHECK(cst != KP_OK && kp_symbols_cache_pending(s) &&
		         kp_symbols_get_stats(s).symcaches_built == 0,
		         "%s: a cancelled build writes and uses nothing", what);
		progress_calls = progress_final = 0;
		cancel_after = SIZE_MAX;
		KT_CHECK(kp_symbols_cache_step(s, &cb, &err) == KP_OK && !kp_symbols_cache_pending(s),
		         "%s: the idle step builds it", what);
		bad = compare_all(s, dw, fx[i].arch, &nsym);
		st = kp_symbols_get_stats(s);
		kp_symbols_free(&s);
		KT_CHECK(bad == 0 && nsym > 100, "%s: built cache answers every __text byte as DWARF (%zu symbolicated, %zu differ)",
		         what, nsym, bad);
		KT_CHECK(st.symcaches_built == 1 && st.dwarf_opened == 1, "%s: cache built once (%zu)", what,
		         st.symcaches_built);
		KT_CHECK(progress_calls >= 2 && progress_final == 1, "%s: build progress reported (%zu calls)",
		         what, progress_calls);
		s = syms("always", cache);
		bad = compare_all(s, dw, fx[i].arch, &nsym);
		st = kp_symbols_get_stats(s);
		kp_symbols_free(&s);
		KT_CHECK(bad == 0, "%s: cache file answers every __text byte as DWARF", what);
		KT_CHECK(st.symcaches_used == 1 && st.symcaches_built == 0 && st.dwarf_opened == 0,
		         "%s: second launch does not open DWARF (used %zu, dwarf %zu)", what,
		         st.symcaches_used, st.dwarf_opened);
	}
}

static char dw[600], cf[600], other[600];

/* damaged cache files are never trusted: ignored, rebuilt, then used */
static void damaged_file_rebuilt(void)
{
	kp_symbols_stats st = one_launch(dw, NULL);
	KT_CHECK(st.symcaches_used == 1, "fakekernel.arm64: its cache file is valid");
	long size = file_size(cf);
	static const struct { const char *what; long at, trunc; int mask; } dmg[] = {
		{"truncated to half", -1, -2, 0},
		{"truncated to its header", -1, 100, 0},
		{"empty", -1, 0, 0},
		{"one bit flipped in the address table", 200, -1, 0x10},
		{"one bit flipped in a count", 120, -1, 0x01},
		{"one bit flipped in the last byte", -3, -1, 0x80},
		{"magic changed", 0, -1, 0x20},
	};
	for (size_t i = 0; i < sizeof dmg / sizeof dmg[0]; i++) {
		long at = dmg[i].at == -3 ? size - 1 : dmg[i].at;
		long tr = dmg[i].trunc == -2 ? size / 2 : dmg[i].trunc;
		rewrite(cf, at, dmg[i].mask, tr);
		st = one_launch(dw, NULL);
		KT_CHECK(st.symcaches_used == 0 && st.symcaches_built == 1 && st.dwarf_opened == 1,
		         "%s: ignored and rebuilt", dmg[i].what);
		st = one_launch(dw, NULL);
		KT_CHECK(st.symcaches_used == 1 && st.dwarf_opened == 0, "%s: the rebuilt file is used",
		         dmg[i].what);
	}
	size_t nsym;
	kp_symbols *s = syms("always", cache);
	KT_CHECK(compare_all(s, dw, NULL, &nsym) == 0, "after the damage: still DWARF's answers");
	kp_symbols_free(&s);
}

/* another UUID's cache under this UUID's name */
static void foreign_file_rebuilt(void)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", other, cf);
	KT_CHECK(system(cmd) == 0, "a foreign cache file copied in");
	kp_symbols_stats st = one_launch(dw, NULL);
	KT_CHECK(st.symcaches_used == 0 && st.symcaches_built == 1, "wrong UUID: ignored and rebuilt");
}

/* the DWARF file changed (mtime): the cache is stale */
static void stale_file_rebuilt(void)
{
	struct timeval tv[2] = {{1000000000, 0}, {1000000000, 123}};
	KT_CHECK(utimes(dw, tv) == 0, "DWARF mtime changed");
	kp_symbols_stats st = one_launch(dw, NULL);
	KT_CHECK(st.symcaches_used == 0 && st.symcaches_built == 1, "stale (mtime): ignored and rebuilt");
	st = one_launch(dw, NULL);
	KT_CHECK(st.symcaches_used == 1, "stale: the rebuilt file is used");
}

static kp_symbols_stats lookup_once(const char *mode, const char *cache_dir)
{
	kp_symbols *s = syms(mode, cache_dir);
	kp_symresult r;
	kp_error err;
	kp_symbols_lookup_file(s, dw, NULL, 0x4000, &r, &err);
	kp_symbols_stats st = kp_symbols_get_stats(s);
	kp_symbols_free(&s);
	return st;
}

/* small files are not cached unless forced; "never" and no cache dir disable it */
static void when_not_cached(void)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
	KT_CHECK(system(cmd) == 0, "cache emptied");
	kp_symbols_stats st = lookup_once("", cache);
	KT_CHECK(st.symcaches_built == 0 && st.dwarf_opened == 1, "below %u bytes: no cache by default",
	         KP_SYMCACHE_MIN_SIZE);
	kp_symbols *s = syms("", cache);
	kp_symresult r;
	kp_error err;
	kp_symbols_lookup_file(s, dw, NULL, 0x4000, &r, &err);
	KT_CHECK(kp_symbols_cache_pending(s) == NULL, "below the size: no cache wanted");
	kp_symbols_free(&s);
	st = lookup_once("never", cache);
	KT_CHECK(st.symcaches_built == 0 && st.symcaches_used == 0, "KPBROWSE_SYMCACHE=never: no cache");
	st = lookup_once("always", "");
	KT_CHECK(st.symcaches_built == 0 && file_size(cf) < 0, "cache dir \"\": no cache written");
}

/* What a lookup at addr answers through a fresh reference (DWARF only). */
static bool same_as_dwarf(kp_symbols *s, const char *dwarf, uint64_t addr)
{
	kp_symbols *ref = syms("never", "");
	kp_symresult want, got;
	kp_error e1, e2;
	kp_symbols_lookup_file(ref, dwarf, NULL, addr, &want, &e1);
	kp_symbols_lookup_file(s, dwarf, NULL, addr, &got, &e2);
	bool same = same_result(&want, &got);
	kp_symbols_free(&ref);
	return same;
}

/* issue 11 item 6: a mapped cache truncated in place is dropped for the
 * DWARF; a mapped DWARF truncated in place is a named error; no SIGBUS */
static void truncated_in_place(void)
{
	kp_symbols_stats st = one_launch(dw, NULL);
	kp_symbols *s = syms("always", cache);
	uint64_t lo, hi;
	KT_CHECK(text_range(dw, NULL, &lo, &hi), "text range");
	KT_CHECK(same_as_dwarf(s, dw, lo + 64), "the cache answers");
	st = kp_symbols_get_stats(s);
	KT_CHECK(st.symcaches_used == 1 && st.dwarf_opened == 0, "from the mapped cache file");
	KT_CHECK(truncate(cf, 0) == 0, "cache file truncated in place while mapped");
	size_t bad = 0;
	for (uint64_t a = lo + 64; a < hi - 64; a += 16)
		bad += !same_as_dwarf(s, dw, a);
	st = kp_symbols_get_stats(s);
	KT_CHECK(bad == 0 && st.dwarf_opened == 1,
	         "truncated cache: no SIGBUS, dropped, the DWARF answers (%zu differ)", bad);
	KT_CHECK(kp_symbols_cache_pending(s) != NULL, "the dropped cache is wanted again");
	kp_symbols_free(&s);

	char copy[700];
	snprintf(copy, sizeof copy, "%s/victim.dwarf", tmp);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", dw, copy);
	KT_CHECK(system(cmd) == 0, "a DWARF file to truncate");
	s = syms("never", "");
	kp_symresult r;
	kp_error err;
	kp_symbols_lookup_file(s, copy, NULL, lo + 64, &r, &err);
	KT_CHECK(r.status == KP_SYM_OK, "the DWARF copy answers");
	KT_CHECK(truncate(copy, 0) == 0, "DWARF file truncated in place while mapped");
	/* answers decoded before the truncation stay right; from the first read
	 * of a vanished page on, every lookup names the damage */
	size_t named = 0, n = 0, first = SIZE_MAX;
	for (uint64_t a = lo + 64; a < hi - 64; a += 16, n++) {
		kp_symbols_lookup_file(s, copy, NULL, a, &r, &err);
		bool is_named = r.status == KP_SYM_ERROR && strstr(r.msg, "changed while in use");
		if (is_named && first == SIZE_MAX)
			first = n;
		named += is_named;
	}
	KT_CHECK(first != SIZE_MAX && named == n - first,
	         "truncated DWARF: no SIGBUS, a named error from the first vanished page on (%zu of %zu)",
	         named, n);
	kp_symbols_free(&s);
}

/* issue 11 item 5: a FIFO or a symlink planted as the cache file is
 * ignored, never waited on; a symlink at the temporary's name is not
 * followed */
static void planted_files(void)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "rm -f '%s' && mkfifo '%s'", cf, cf);
	KT_CHECK(system(cmd) == 0, "a FIFO named <UUID>.kpsym");
	kp_symbols *s = syms("always", cache);
	uint64_t lo, hi;
	text_range(dw, NULL, &lo, &hi);
	KT_CHECK(same_as_dwarf(s, dw, lo + 64), "FIFO as cache file: not waited on, the DWARF answers");
	kp_symbols_free(&s);
	char victim[300], tmpname[700];
	snprintf(victim, sizeof victim, "%s/victim", tmp);
	snprintf(tmpname, sizeof tmpname, "%s.%ld.0.tmp", cf, (long)getpid());
	snprintf(cmd, sizeof cmd, "rm -f '%s' && echo precious >'%s' && ln -s '%s' '%s' && ln -s '%s' '%s'",
	         cf, victim, victim, tmpname, victim, cf);
	KT_CHECK(system(cmd) == 0, "symlinks planted as the cache file and its temporary");
	s = syms("always", cache);
	KT_CHECK(same_as_dwarf(s, dw, lo + 64), "symlink as cache file: not followed");
	kp_error err;
	kp_symbols_cache_step(s, NULL, &err);
	kp_symbols_free(&s);
	KT_CHECK(file_size(victim) == 9, "the symlinks' target is untouched");
	struct stat sb;
	KT_CHECK(lstat(cf, &sb) == 0 && S_ISREG(sb.st_mode), "the cache was written as a new file");
	unlink(tmpname);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/kp-test-symcache-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	snprintf(cache, sizeof cache, "%s/cache", tmp);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "cp -R '%s' '%s/bin'", KP_FIXTURES "/bin", tmp);
	if (system(cmd) != 0)
		return 1;
	unsetenv("KPBROWSE_CACHE_DIR");

	built_and_read_back();
	dwarf_path(dw, sizeof dw, "fakekernel.arm64");
	snprintf(cf, sizeof cf, "%s/symcache/%s.kpsym", cache, KERNEL_ARM64);
	snprintf(other, sizeof other, "%s/symcache/%s.kpsym", cache, KEXT_ARM64);
	damaged_file_rebuilt();
	foreign_file_rebuilt();
	stale_file_rebuilt();
	truncated_in_place();
	planted_files();
	when_not_cached();

	unsetenv("KPBROWSE_SYMCACHE");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return 1;
	return kt_done();
}
