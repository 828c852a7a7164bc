/* test_hostile_replay.c: every fuzz regression in tests/hostile/
 * (fuzz-TARGET-N, every target of fuzz/) replayed through the fuzz target's own entry point, and
 * every byte prefix of the fixture reports through kp_report_parse.  Under
 * the ASan+UBSan build (KP_SANITIZE=ON) a memory error fails the test; in
 * the plain build a crash or hang does. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kp_base64.h"
#include "kt.h"
#include "kt_slurp.h"

/* The fuzz targets, each under its own name. */
#define LLVMFuzzerTestOneInput fuzz_ips_one
#include "../fuzz/fuzz_ips.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_text_one
#include "../fuzz/fuzz_text.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_macho_one
#include "../fuzz/fuzz_macho.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dwarf_one
#include "../fuzz/fuzz_dwarf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_signature_one
#include "../fuzz/fuzz_signature.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dsymplist_one
#include "../fuzz/fuzz_dsymplist.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_nvram_one
#include "../fuzz/fuzz_nvram.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sanitize_one
#include "../fuzz/fuzz_sanitize.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_symcache_one
#include "../fuzz/fuzz_symcache.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_sigfile_one
#include "../fuzz/fuzz_sigfile.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_lzfse_one
#include "../fuzz/fuzz_lzfse.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kcdata_one
#include "../fuzz/fuzz_kcdata.c"
#undef LLVMFuzzerTestOneInput

static const struct {
	const char *prefix;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{"fuzz-ips-", fuzz_ips_one},       {"fuzz-text-", fuzz_text_one},
	{"fuzz-macho-", fuzz_macho_one},   {"fuzz-dwarf-", fuzz_dwarf_one},
	{"fuzz-signature-", fuzz_signature_one}, {"fuzz-dsymplist-", fuzz_dsymplist_one},
	{"fuzz-nvram-", fuzz_nvram_one},   {"fuzz-sanitize-", fuzz_sanitize_one},
	{"fuzz-symcache-", fuzz_symcache_one}, {"fuzz-sigfile-", fuzz_sigfile_one},
	{"fuzz-lzfse-", fuzz_lzfse_one},   {"fuzz-kcdata-", fuzz_kcdata_one},
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void replay(void)
{
	const char *dir = KP_TESTS_DIR "/hostile";
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
			/* fuzz-TARGET-N; other .ips/.panic files go through the report targets */
			const char *dot = strrchr(e->d_name, '.');
			bool mine = strncmp(e->d_name, targets[t].prefix, strlen(targets[t].prefix)) == 0 ||
			            (strncmp(e->d_name, "fuzz-", 5) != 0 && dot &&
			             ((t == 0 && strcmp(dot, ".ips") == 0) ||
			              (t == 1 && strcmp(dot, ".panic") == 0)));
			if (!mine)
				continue;
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			size_t len;
			unsigned char *b = kt_slurp(path, &len);
			if (!b) {
				KT_CHECK(0, "read %s", path);
				continue;
			}
			double t0 = now();
			targets[t].fn(b, len);
			/* the fuzzers' -timeout is 10 s; a fixed input takes milliseconds */
			KT_CHECK(now() - t0 < 5, "replay %s (%.3f s)", e->d_name, now() - t0);
			free(b);
			n++;
		}
	}
	if (d)
		closedir(d);
	if (n == 0)
		KT_SKIP("no fuzz regressions in tests/hostile");
	else
		printf("# %d fuzz regressions replayed\n", n);
}

/* Every byte prefix of a fixture report: OK (partial) or a clear error. */
static void prefixes(const char *path)
{
	size_t len;
	unsigned char *b = kt_slurp(path, &len);
	if (!b) {
		KT_CHECK(0, "read %s", path);
		return;
	}
	size_t bad = 0, ok = 0, errs = 0;
	double t0 = now();
	for (size_t n = 0; n <= len; n++) {
		char *copy = malloc(n ? n : 1);   /* exactly n bytes, no NUL after */
		memcpy(copy, b, n);
		kp_report *r = NULL;
		kp_error err;
		kp_status st = kp_report_parse(copy, n, path, &r, &err);
		if (st == KP_OK) {
			ok++;
			if (!r)
				bad++;
		} else {
			errs++;
			if (r || !err.msg[0] || err.byte > (long)n)
				bad++;
		}
		kp_report_free(&r);
		free(copy);
	}
	free(b);
	const char *base = strrchr(path, '/');
	KT_CHECK(bad == 0, "%s: %zu prefixes: %zu parse, %zu clear errors, %zu bad (%.2f s)",
	         base ? base + 1 : path, len + 1, ok, errs, bad, now() - t0);
}

/* Issue 31 item 7: every byte prefix of the fixture's decoded kcdata
 * stackshot through the kcdata target (a JSON prefix never completes the
 * base64 member, so prefixes() cannot reach the decoder's cuts). */
static void kcdata_prefixes(const char *path)
{
	size_t len = 0;
	unsigned char *f = kt_slurp(path, &len);
	char *b = f ? malloc(len + 1) : NULL;   /* NUL-terminated for strstr */
	if (b) {
		memcpy(b, f, len);
		b[len] = '\0';
	}
	free(f);
	static const char key[] = "\"macOSProcessedStackshotData\":\"";
	char *s = b ? strstr(b, key) : NULL;
	char *e = s ? strchr(s + sizeof key - 1, '"') : NULL;
	KT_CHECK(e != NULL, "%s: has a stackshot member", path);
	if (!e) {
		free(b);
		return;
	}
	s += sizeof key - 1;
	unsigned char *raw = malloc(kp_base64_max((size_t)(e - s)));
	size_t n = 0;
	bool decoded = raw && kp_base64_decode(s, (size_t)(e - s), true, raw, &n);
	KT_CHECK(decoded && n > 1000, "%s: %zu stackshot bytes", path, n);
	double t0 = now();
	for (size_t i = 0; raw && i <= n; i++)
		fuzz_kcdata_one(raw, i);
	KT_CHECK(true, "kcdata.panic: its stackshot cut at each of %zu bytes, no crash (%.2f s)", n + 1, now() - t0);
	free(raw);
	free(b);
}

/* Every fuzz/fuzz_TARGET.c has an entry above, so its crashes replay here
 * (issue 32 item 0: four targets had none). */
static void every_target(void)
{
	DIR *d = opendir(KP_TESTS_DIR "/../fuzz");
	struct dirent *e;
	int n = 0, missing = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "fuzz_", 5) != 0 || len < 8 || strcmp(e->d_name + len - 2, ".c") != 0)
			continue;
		char prefix[128];
		snprintf(prefix, sizeof prefix, "fuzz-%.*s-", (int)(len - 7), e->d_name + 5);
		bool found = false;
		for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
			found |= strcmp(targets[t].prefix, prefix) == 0;
		KT_CHECK(found, "fuzz/%s is replayed (%s*)", e->d_name, prefix);
		missing += !found;
		n++;
	}
	if (d)
		closedir(d);
	KT_CHECK(n >= 10 && missing == 0, "%d fuzz targets, %d without a replay entry", n, missing);
}

int main(void)
{
	every_target();
	replay();
	prefixes(KP_FIXTURES "/reports/panic-full-2026-11-20-101500.0001.ips");
	prefixes(KP_FIXTURES "/reports/Kernel-2020-09-14-201744.panic");
	prefixes(KP_FIXTURES "/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic");
	kcdata_prefixes(KP_FIXTURES "/kcdata/kcdata.panic");
	return kt_done();
}
