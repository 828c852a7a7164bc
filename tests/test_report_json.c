/* test_report_json.c: the buffered JSON writer prints byte for byte what the
 * cJSON-built writer before it printed (report_json_ref.h), for every
 * fixture report, every real corpus report, the committed hostile corpus
 * and the generated one (tests/hostile/gen.py, when python3 runs), with and
 * without a frame callback; strings with every kind of byte and run across
 * the buffer's edge; and a failed write is reported. */
#include "kp_report_json.h"
#include "kt.h"
#include "report_json_ref.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Like show's callback: --no-symbols keys on every frame, and on some
 * frames symbol entries made of the report's own (maybe hostile) text. */
static void frame_cb(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                     size_t i, cJSON *obj)
{
	(void)ctx;
	(void)r;
	cJSON *syms = cJSON_CreateArray();
	bool rich = i % 3 == 1;
	if (rich) {
		cJSON *e = cJSON_CreateObject();
		const char *fn = t->frames[i].symbol ? t->frames[i].symbol : t->name;
		cJSON_AddItemToObject(e, "function", fn ? cJSON_CreateString(fn) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "file", p->name ? cJSON_CreateString(p->name) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "line", cJSON_CreateNumber((double)(i * 7 + 1)));
		cJSON_AddItemToObject(e, "column", cJSON_CreateNull());
		cJSON_AddItemToArray(syms, e);
		cJSON_AddItemToArray(syms, cJSON_CreateObject());
	}
	cJSON_AddItemToObject(obj, "lookup_address",
	                      rich ? ref_hex(t->frames[i].address) : cJSON_CreateNull());
	cJSON_AddItemToObject(obj, "symbols", syms);
	cJSON_AddItemToObject(obj, "symbol_source", rich ? cJSON_CreateString("dsym") : cJSON_CreateNull());
}

/* Compares two files' contents; on a difference prints where. */
static bool same_files(FILE *a, FILE *b, const char *what)
{
	rewind(a);
	rewind(b);
	static char x[1 << 16], y[1 << 16];
	long off = 0;
	for (;;) {
		size_t na = fread(x, 1, sizeof x, a), nb = fread(y, 1, sizeof y, b);
		size_t n = na < nb ? na : nb;
		if (memcmp(x, y, n) != 0 || na != nb) {
			size_t k = 0;
			while (k < n && x[k] == y[k])
				k++;
			printf("# %s: outputs differ at byte %ld\n", what, off + (long)k);
			return false;
		}
		if (na == 0)
			return true;
		off += (long)na;
	}
}

static int nreports, ndiff, nbig_skipped;

/* Under ASan the hostile corpus's 100 MB and million-frame reports take
 * minutes through both writers: there, files past 4 MiB are left out. */
#if defined(__SANITIZE_ADDRESS__)
#define KP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KP_ASAN 1
#endif
#endif
#ifdef KP_ASAN
#define BIG_SKIP (4 << 20)
#else
#define BIG_SKIP 0
#endif

static void compare_report(const char *path, bool variants)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(path, &r, &err) != KP_OK)
		return;   /* not a report: show prints an error, no JSON */
	nreports++;
	for (int v = 0; v < (variants ? 3 : 1); v++) {
		kp_report_json_frame_fn fn = v == 1 ? NULL : frame_cb;
		int depth = v == 2 ? 1 : 0;
		FILE *a = tmpfile(), *b = tmpfile();
		bool ok_ref = ref_write_stream(a, r, fn, NULL, depth);
		bool ok_new = kp_report_json_write(b, r, fn, NULL, depth);
		char what[4200];
		snprintf(what, sizeof what, "%s (callback %s, depth %d)", path, fn ? "on" : "off", depth);
		if (!ok_ref || !ok_new || !same_files(a, b, what)) {
			ndiff++;
			KT_CHECK(false, "%s: same JSON as the cJSON-built writer", what);
		}
		fclose(a);
		fclose(b);
	}
	kp_report_free(&r);
}

/* Every regular file under dir, recursively. */
static void compare_dir(const char *dir, bool variants)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		struct stat sb;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (stat(p, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			compare_dir(p, variants);
		else if (BIG_SKIP && sb.st_size > BIG_SKIP)
			nbig_skipped++;
		else if (S_ISREG(sb.st_mode))
			compare_report(p, variants && sb.st_size < (1 << 20));
	}
	closedir(d);
}

static void test_corpora(void)
{
	nreports = ndiff = 0;
	compare_dir(KP_FIXTURES "/reports", true);
	compare_dir(KP_FIXTURES "/stackshots", true);
	compare_dir(KP_FIXTURES "/spindump", true);   /* issue 24: samples, duration, failure code */
	compare_dir(KP_FIXTURES "/extlog", true);     /* issue 24: ExtensiblePanicLog */
	compare_dir(KP_TESTS_DIR "/hostile", true);
	KT_CHECK(nreports >= 5 && ndiff == 0, "fixtures and committed hostile corpus: %d reports, %d differ",
	         nreports, ndiff);

	nreports = ndiff = 0;
	compare_dir(KP_SHARED_DIR "/corpus/real", true);
	if (nreports == 0)
		KT_SKIP("no real corpus in " KP_SHARED_DIR);
	else
		KT_CHECK(ndiff == 0, "real corpus: %d reports, %d differ", nreports, ndiff);

	char tmp[] = "/tmp/kp-json-XXXXXX";
	if (!mkdtemp(tmp)) {
		KT_SKIP("no temp dir for the generated hostile corpus");
		return;
	}
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "python3 '%s/hostile/gen.py' '%s' '%s' '%s/corpus/real' 2>/dev/null",
	         KP_TESTS_DIR, KP_FIXTURES, tmp, KP_SHARED_DIR);
	if (system(cmd) != 0) {
		KT_SKIP("python3 cannot generate the hostile corpus");
	} else {
		nreports = ndiff = 0;
		compare_dir(tmp, true);
		KT_CHECK(nreports > 100 && ndiff == 0, "generated hostile corpus: %d reports, %d differ, %d big ones left out",
		         nreports, ndiff, nbig_skipped);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	(void)!system(cmd);
}

/* s[0..n) as a string value: the writer against cJSON_Print + old fputs_safe. */
static bool string_same(const char *s, size_t n)
{
	char *z = malloc(n + 1);
	memcpy(z, s, n);
	z[n] = '\0';
	size_t zn = strlen(z);   /* C strings end at a NUL, as the model's do */
	cJSON *j = cJSON_CreateString(z);
	char *txt = cJSON_PrintUnformatted(j);
	FILE *a = tmpfile(), *b = tmpfile();
	ref_fputs_safe(a, txt);
	kp_report_json_out *o = malloc(sizeof *o);
	kp_report_json_init(o, b);
	kp_report_json_string(o, z, zn);
	bool ok = kp_report_json_flush(o);
	ok = ok && same_files(a, b, "string");
	/* and fputs_safe on the whole printed text */
	FILE *c = tmpfile();
	ok = kp_report_json_fputs_safe(c, txt) && same_files(a, c, "fputs_safe") && ok;
	fclose(a);
	fclose(b);
	fclose(c);
	free(o);
	cJSON_free(txt);
	cJSON_Delete(j);
	free(z);
	return ok;
}

static void test_strings(void)
{
	bool all = true;
	for (int c = 1; c < 256; c++) {   /* every byte alone, and before a quote */
		char s[3] = {(char)c, '"', 0};
		all = string_same(s, 1) && string_same(s, 2) && all;
	}
	KT_CHECK(all, "every single byte, alone and before a quote");

	static const char *cases[] = {
		"plain ascii", "tab\there\nnew\rline\bback\fform\x0bvt\x1b[31mred\x07",
		"quote \" and back\\slash", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",   /* é € 😀 */
		"\xc2\x9b" "CSI \xc2\x9d" "OSC \x7f" "DEL",                                 /* C1, DEL */
		"\xe2\x80\xae" "rlo \xe2\x81\xa6" "lri \xd8\x9c" "alm \xe2\x80\x8e" "lrm",  /* bidi */
		"\xe2\x80\xa8" "ls \xe2\x80\xa9" "ps \xef\xbb\xbf" "bom \xef\xbf\xb9" "ann",
		"\xf3\xa0\x80\x81" "tag \xf3\xa0\x81\xbf" "end",                             /* U+E0001, U+E007F */
		"\xef\xbf\xbd" "literal fffd", "\xc3" "cut", "\xe2\x82" "cut", "\xf0\x9f\x98" "cut",
		"\xc0\xaf" "overlong \xed\xa0\x80" "surrogate \xf4\x90\x80\x80" "past \xff\xfe",
		"end cut \xe2\x82",
	};
	all = true;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		all = string_same(cases[i], strlen(cases[i])) && all;
	KT_CHECK(all, "escapes, unsafe code points, invalid and cut UTF-8");

	/* long strings: runs and escapes across the 32 KiB buffer's edge */
	static const char *const pats[][3] = {
		{"x", "x", "x"},                       /* one run three buffers long */
		{"abcdef", "\"", "g"},                 /* escapes among runs */
		{"ab", "\xe2\x80\xae", "\xc3\xa9"},     /* unsafe and safe sequences */
		{"\x01", "\xff", "\xf3\xa0\x80\x81"},   /* nothing but escapes */
	};
	size_t cap = 3 * KP_REPORT_JSON_BUFSIZE + 17;
	char *big = malloc(cap + 8);
	all = true;
	for (size_t pat = 0; pat < sizeof pats / sizeof *pats; pat++) {
		size_t n = 0;
		for (size_t k = 0; n < cap; k++) {
			const char *u = pats[pat][k % 3];
			memcpy(big + n, u, strlen(u));
			n += strlen(u);
		}
		all = string_same(big, n) && all;
	}
	free(big);
	KT_CHECK(all, "strings three buffers long: runs, escapes and sequences across the edge");
}

/* Generic cJSON values (a callback's additions, list/search output). */
static void test_values(void)
{
	cJSON *root = cJSON_Parse("{\"a\":[1,-2,0.5,123456789012345,\"x\\u001b\",true,false,null,"
	                          "{},[],{\"k\":{\"z\":[{\"q\":1}]}}],\"\":\"\\u202e\",\"e\":{}}");
	FILE *a = tmpfile(), *b = tmpfile();
	char *txt = cJSON_Print(root);
	ref_fputs_safe(a, txt);
	kp_report_json_out *o = malloc(sizeof *o);
	kp_report_json_init(o, b);
	kp_report_json_value(o, root, 0);
	KT_CHECK(kp_report_json_flush(o) && same_files(a, b, "values"),
	         "a cJSON tree as cJSON_Print lays it out, made safe");
	fclose(a);
	fclose(b);
	free(o);
	cJSON_free(txt);
	cJSON_Delete(root);
}

/* A FILE that refuses writes: opened for reading. */
static void test_write_error(void)
{
	char path[] = "/tmp/kp-json-ro-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		KT_SKIP("no temp file");
		return;
	}
	close(fd);
	FILE *ro = fopen(path, "r");
	kp_report *r = NULL;
	kp_error err;
	kp_status st = kp_report_load(KP_FIXTURES "/reports/panic-full-2026-11-20-101500.0001.ips", &r, &err);
	KT_CHECK(st == KP_OK, "fixture loads");
	if (st == KP_OK)
		KT_CHECK(!kp_report_json_write(ro, r, frame_cb, NULL, 0), "a failed write is reported");
	kp_report_free(&r);
	clearerr(ro);
	KT_CHECK(!kp_report_json_fputs_safe(ro, "{\"a\":\t\"b\"}"), "fputs_safe reports a failed write");
	kp_report_json_out *o = malloc(sizeof *o);
	kp_report_json_init(o, ro);
	kp_report_json_str(o, "x");
	KT_CHECK(!kp_report_json_flush(o) && !kp_report_json_flush(o), "a failure is sticky");
	free(o);
	fclose(ro);
	unlink(path);
}

int main(void)
{
	test_strings();
	test_values();
	test_write_error();
	test_corpora();
	return kt_done();
}
