/* test_report_json.c: show --json's writer (kp_report_json_write through
 * kp_jw) against golden files in
 * tests/golden/json/ (written once by the cJSON-built writer it replaced,
 * then kept): every fixture report and the committed hostile corpus byte
 * for byte as whole files (SET/NAME.json: with a frame callback, as show
 * --json prints), their other two variants (no callback; depth 1) and every
 * real corpus and generated hostile corpus report (tests/hostile/gen.py,
 * when python3 runs) by the SHA-1 of the bytes (digests.txt); strings with
 * every kind of byte (strings.txt; to a FILE and in memory alike, the ASCII
 * ones as cJSON escapes them) and run across the buffer's edge; a parsed
 * tree written back in cJSON's layout (values.json); and a failed write is
 * reported.
 *
 * KP_GOLDEN_UPDATE=1 rewrites the golden files from the writer (a changed
 * output is then a reviewed diff in git); not under ASan, which leaves the
 * biggest generated reports out. */
#include "kp_fs.h"
#include "kp_report_json.h"
#include "kp_sha1.h"
#include <cjson/cJSON.h>
#include "kt.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Like show's callback: --no-symbols keys on every frame, and on some
 * frames symbol entries made of the report's own (maybe hostile) text. */
static void frame_cb(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                     size_t i, kp_jw *w)
{
	(void)ctx;
	(void)r;
	bool rich = i % 3 == 1;
	char hex[24];
	snprintf(hex, sizeof hex, "0x%" PRIx64, t->frames[i].address);
	kp_jw_key(w, "lookup_address");
	kp_jw_str(w, rich ? hex : NULL);
	kp_jw_key(w, "symbols");
	kp_jw_arr(w);
	if (rich) {
		const char *fn = t->frames[i].symbol ? t->frames[i].symbol : t->name;
		kp_jw_obj(w);
		kp_jw_key(w, "function");
		kp_jw_str(w, fn);
		kp_jw_key(w, "file");
		kp_jw_str(w, p->name);
		kp_jw_key(w, "line");
		kp_jw_int(w, (int64_t)(i * 7 + 1));
		kp_jw_key(w, "column");
		kp_jw_null(w);
		kp_jw_end(w);
		kp_jw_obj(w);
		kp_jw_end(w);
	}
	kp_jw_end(w);
	kp_jw_key(w, "symbol_source");
	kp_jw_str(w, rich ? "dsym" : NULL);
}

/* The report as JSON into fp, as show writes it: false on any failure. */
static bool write_report(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, int depth)
{
	kp_jw w;
	kp_jw_init(&w, fp);
	bool ok = kp_report_json_write(&w, r, fn, NULL, depth);
	ok = kp_jw_flush(&w) && ok;
	kp_jw_free(&w);
	return ok;
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

#define GOLDEN KP_TESTS_DIR "/golden/json"

static bool update;   /* KP_GOLDEN_UPDATE=1: write the golden files */

/* digests.txt: one "SHA1 KEY" line per output, KEY "VARIANT SET/PATH",
 * sorted by KEY. */
typedef struct digest {
	char sha1[41];
	char *key;
} digest;

static digest *dg;
static size_t ndg, dg_cap;

static int digest_cmp(const void *a, const void *b)
{
	return strcmp(((const digest *)a)->key, ((const digest *)b)->key);
}

static void digests_load(void)
{
	FILE *f = fopen(GOLDEN "/digests.txt", "r");
	char line[4800];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) < 42 || line[40] != ' ')
			continue;
		if (ndg == dg_cap && !(dg = realloc(dg, (dg_cap = dg_cap ? 2 * dg_cap : 1024) * sizeof *dg)))
			abort();
		memcpy(dg[ndg].sha1, line, 40);
		dg[ndg].sha1[40] = '\0';
		dg[ndg++].key = strdup(line + 41);
	}
	if (f)
		fclose(f);
	qsort(dg, ndg, sizeof *dg, digest_cmp);
}

static digest *digest_find(const char *key)
{
	digest k = {.key = (char *)key};
	return ndg ? bsearch(&k, dg, ndg, sizeof *dg, digest_cmp) : NULL;
}

/* Update mode: sets key's digest (sorted again when written). */
static void digest_set(const char *key, const char *sha1)
{
	digest *d = digest_find(key);
	if (!d) {
		if (ndg == dg_cap && !(dg = realloc(dg, (dg_cap = dg_cap ? 2 * dg_cap : 1024) * sizeof *dg)))
			abort();
		d = &dg[ndg++];
		d->key = strdup(key);
		/* keep bsearch working for the rest of the run */
		memcpy(d->sha1, sha1, 41);
		qsort(dg, ndg, sizeof *dg, digest_cmp);
		return;
	}
	memcpy(d->sha1, sha1, 41);
}

static bool digests_write(void)
{
	FILE *f = fopen(GOLDEN "/digests.txt", "w");
	if (!f)
		return false;
	for (size_t i = 0; i < ndg; i++)
		fprintf(f, "%s %s\n", dg[i].sha1, dg[i].key);
	return fclose(f) == 0;
}

/* The SHA-1 of what fp holds. */
static void file_sha1(FILE *fp, char hex[41])
{
	static char buf[1 << 16];
	kp_sha1 s;
	kp_sha1_init(&s);
	rewind(fp);
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		kp_sha1_update(&s, buf, n);
	uint8_t d[20];
	kp_sha1_final(&s, d);
	kp_sha1_to_hex(d, hex);
}

/* Copies what from holds into the file path (its folders made). */
static bool save_file(FILE *from, const char *path)
{
	kp_error err;
	if (kp_fs_mkdirs_for(path, 0755, &err) != KP_OK)
		return false;
	FILE *to = fopen(path, "wb");
	if (!to)
		return false;
	static char buf[1 << 16];
	rewind(from);
	size_t n;
	bool ok = true;
	while ((n = fread(buf, 1, sizeof buf, from)) > 0)
		ok = fwrite(buf, 1, n, to) == n && ok;
	return fclose(to) == 0 && ok;
}

/* out against its golden: the whole file golden (GOLDEN/NAME) or, without
 * one, the digest of key; written instead in update mode.  False (and a
 * line saying why) when they differ or the golden is missing. */
static bool golden_same(FILE *out, const char *name, const char *key)
{
	char path[5100];
	if (name) {
		snprintf(path, sizeof path, GOLDEN "/%s", name);
		if (update)
			return save_file(out, path);
		FILE *g = fopen(path, "rb");
		if (!g) {
			printf("# no golden file %s (KP_GOLDEN_UPDATE=1 writes it)\n", path);
			return false;
		}
		bool same = same_files(g, out, name);
		fclose(g);
		return same;
	}
	char hex[41];
	file_sha1(out, hex);
	if (update) {
		digest_set(key, hex);
		return true;
	}
	const digest *d = digest_find(key);
	if (!d)
		printf("# no golden digest for %s (KP_GOLDEN_UPDATE=1 writes it)\n", key);
	else if (strcmp(d->sha1, hex) != 0)
		printf("# %s: SHA-1 %s, golden %s\n", key, hex, d->sha1);
	return d && strcmp(d->sha1, hex) == 0;
}

static int nreports, ndiff, nbig_skipped;

/* Under ASan the hostile corpus's 100 MB and million-frame reports take
 * minutes: there, files past 4 MiB are left out. */
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

/* The report at path, known as SET/REL: with a frame callback (as whole
 * file SET/REL.json when whole, else by digest), and when variants without
 * a callback and at depth 1 (by digest). */
static void compare_report(const char *path, const char *set, const char *rel, bool variants,
                           bool whole)
{
	static const char *const vname[3] = {"callback", "plain", "depth1"};
	char name[4500], key[4600];
	snprintf(name, sizeof name, "%s/%s", set, rel);
	/* as kp_report_load, but named SET/REL: the JSON's "file" is the
	 * same in every checkout and temporary folder */
	kp_report *r = NULL;
	kp_error err;
	char *buf;
	size_t len;
	if (kp_fs_read_file(path, KP_REPORT_MAX_SIZE, &buf, &len, NULL, &err) != KP_OK)
		return;
	kp_status st = kp_report_parse(buf, len, name, &r, &err);
	free(buf);
	if (st != KP_OK)
		return;   /* not a report: show prints an error, no JSON */
	nreports++;
	for (int v = 0; v < (variants ? 3 : 1); v++) {
		kp_report_json_frame_fn fn = v == 1 ? NULL : frame_cb;
		int depth = v == 2 ? 1 : 0;
		FILE *out = tmpfile();
		char file[4700];
		snprintf(file, sizeof file, "%s.json", name);
		snprintf(key, sizeof key, "%s %s", vname[v], name);
		bool ok = write_report(out, r, fn, depth);
		if (!ok || !golden_same(out, whole && v == 0 ? file : NULL, key)) {
			ndiff++;
			KT_CHECK(false, "%s: the golden JSON", key);
		}
		fclose(out);
	}
	kp_report_free(&r);
}

/* Every regular file under root/rel, recursively. */
static void compare_dir(const char *root, const char *rel, const char *set, bool variants, bool whole)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4400], r[4400];
		struct stat sb;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (stat(p, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			compare_dir(root, r, set, variants, whole);
		else if (BIG_SKIP && sb.st_size > BIG_SKIP)
			nbig_skipped++;
		else if (S_ISREG(sb.st_mode))
			compare_report(p, set, r, variants && sb.st_size < (1 << 20), whole);
	}
	closedir(d);
}

static void test_corpora(void)
{
	nreports = ndiff = 0;
	compare_dir(KP_FIXTURES "/reports", "", "fixtures/reports", true, true);
	compare_dir(KP_FIXTURES "/stackshots", "", "fixtures/stackshots", true, true);
	compare_dir(KP_FIXTURES "/spindump", "", "fixtures/spindump", true, true);   /* issue 24: samples, duration, failure code */
	compare_dir(KP_FIXTURES "/extlog", "", "fixtures/extlog", true, true);       /* issue 24: ExtensiblePanicLog */
	compare_dir(KP_FIXTURES "/kcdata", "", "fixtures/kcdata", true, true);       /* issue 31 item 7: Intel kcdata stackshots */
	compare_dir(KP_TESTS_DIR "/hostile", "", "hostile", true, true);
	KT_CHECK(nreports >= 5 && ndiff == 0, "fixtures and committed hostile corpus: %d reports, %d differ",
	         nreports, ndiff);

	nreports = ndiff = 0;
	compare_dir(KP_REAL_DIR, "", "real", true, false);
	if (nreports == 0)
		KT_SKIP("no real corpus in " KP_REAL_DIR);
	else
		KT_CHECK(ndiff == 0, "real corpus: %d reports, %d differ", nreports, ndiff);

	char tmp[] = "/tmp/kp-json-XXXXXX";
	if (!mkdtemp(tmp)) {
		KT_SKIP("no temp dir for the generated hostile corpus");
		return;
	}
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "python3 '%s/hostile/gen.py' '%s' '%s' '%s' 2>/dev/null",
	         KP_TESTS_DIR, KP_FIXTURES, tmp, KP_REAL_DIR);
	if (system(cmd) != 0) {
		KT_SKIP("python3 cannot generate the hostile corpus");
	} else {
		nreports = ndiff = 0;
		compare_dir(tmp, "", "generated", true, false);
		KT_CHECK(nreports > 100 && ndiff == 0, "generated hostile corpus: %d reports, %d differ, %d big ones left out",
		         nreports, ndiff, nbig_skipped);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	(void)!system(cmd);
}

/* strings.txt: the small strings' outputs, one a line, in the order
 * test_strings writes them (update mode collects them here). */
static char **str_lines;
static size_t nstr_lines, str_cap, str_at;

static void strings_load(void)
{
	FILE *f = fopen(GOLDEN "/strings.txt", "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (f && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (nstr_lines == str_cap && !(str_lines = realloc(str_lines, (str_cap = str_cap ? 2 * str_cap : 256) * sizeof *str_lines)))
			abort();
		str_lines[nstr_lines++] = strdup(line);
	}
	free(line);
	if (f)
		fclose(f);
}

/* out (one string's output) against line str_at of strings.txt. */
static bool string_line_same(FILE *out)
{
	long len = ftell(out);
	char *got = malloc((size_t)len + 1);
	rewind(out);
	bool ok = got && fread(got, 1, (size_t)len, out) == (size_t)len;
	if (ok)
		got[len] = '\0';
	size_t i = str_at++;
	if (update) {
		if (nstr_lines == str_cap && !(str_lines = realloc(str_lines, (str_cap = str_cap ? 2 * str_cap : 256) * sizeof *str_lines)))
			abort();
		str_lines[nstr_lines++] = got;
		return ok;
	}
	ok = ok && i < nstr_lines && strcmp(got, str_lines[i]) == 0;
	if (!ok)
		printf("# string %zu: not line %zu of " GOLDEN "/strings.txt\n", i, i + 1);
	free(got);
	return ok;
}

/* s[0..n) as a string value (kp_jw_strn, through a FILE), against its
 * golden (line str_at of strings.txt, or the digest of key for a long one)
 * and, when s is ASCII without DEL (nothing the safety rule changes),
 * against cJSON_PrintUnformatted byte for byte; the same bytes written in
 * memory (kp_jw_text) too. */
static bool string_same(const char *s, size_t n, const char *key)
{
	char *z = malloc(n + 1);
	memcpy(z, s, n);
	z[n] = '\0';
	size_t zn = strlen(z);   /* C strings end at a NUL, as the model's do */
	FILE *b = tmpfile();
	kp_jw w;
	kp_jw_init(&w, b);
	kp_jw_strn(&w, z, zn);
	bool ok = kp_jw_flush(&w);
	kp_jw_free(&w);
	ok = ok && (key ? golden_same(b, NULL, key) : string_line_same(b));
	long len = ftell(b);
	char *got = malloc((size_t)len + 1);
	rewind(b);
	ok = got && fread(got, 1, (size_t)len, b) == (size_t)len && ok;
	if (got)
		got[len] = '\0';
	kp_jw m;
	kp_jw_init(&m, NULL);
	kp_jw_strn(&m, z, zn);
	size_t mlen = 0;
	const char *mem = kp_jw_text(&m, &mlen);
	ok = got && mem && mlen == (size_t)len && memcmp(mem, got, mlen) == 0 && ok;
	kp_jw_free(&m);
	bool ascii = true;
	for (size_t i = 0; i < zn; i++)
		ascii = ascii && (unsigned char)z[i] < 0x7f;
	if (ascii && got) {
		cJSON *j = cJSON_CreateString(z);
		char *txt = cJSON_PrintUnformatted(j);
		if (!txt || strcmp(txt, got) != 0) {
			printf("# %s: not as cJSON escapes it\n", key ? key : "a short string");
			ok = false;
		}
		cJSON_free(txt);
		cJSON_Delete(j);
	}
	free(got);
	fclose(b);
	free(z);
	return ok;
}

static void test_strings(void)
{
	str_at = 0;
	if (!update)
		strings_load();
	bool all = true;
	for (int c = 1; c < 256; c++) {   /* every byte alone, and before a quote */
		char s[3] = {(char)c, '"', 0};
		bool alone = string_same(s, 1, NULL);   /* both run: each takes its line */
		all = string_same(s, 2, NULL) && alone && all;
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
		all = string_same(cases[i], strlen(cases[i]), NULL) && all;
	KT_CHECK(all, "escapes, unsafe code points, invalid and cut UTF-8");
	if (update) {
		FILE *f = fopen(GOLDEN "/strings.txt", "w");
		for (size_t i = 0; f && i < nstr_lines; i++)
			fprintf(f, "%s\n", str_lines[i]);
		KT_CHECK(f && fclose(f) == 0, "wrote " GOLDEN "/strings.txt");
	}

	/* long strings: runs and escapes across the 32 KiB buffer's edge */
	static const char *const pats[][3] = {
		{"x", "x", "x"},                       /* one run three buffers long */
		{"abcdef", "\"", "g"},                 /* escapes among runs */
		{"ab", "\xe2\x80\xae", "\xc3\xa9"},     /* unsafe and safe sequences */
		{"\x01", "\xff", "\xf3\xa0\x80\x81"},   /* nothing but escapes */
	};
	size_t cap = 3 * KP_JW_BUFSIZE + 17;
	char *big = malloc(cap + 8);
	all = true;
	for (size_t pat = 0; pat < sizeof pats / sizeof *pats; pat++) {
		size_t n = 0;
		for (size_t k = 0; n < cap; k++) {
			const char *u = pats[pat][k % 3];
			memcpy(big + n, u, strlen(u));
			n += strlen(u);
		}
		char key[32];
		snprintf(key, sizeof key, "string long-%zu", pat + 1);
		all = string_same(big, n, key) && all;
	}
	free(big);
	KT_CHECK(all, "strings three buffers long: runs, escapes and sequences across the edge");
	for (size_t i = 0; i < nstr_lines; i++)
		free(str_lines[i]);
	free(str_lines);
}

/* A parsed cJSON tree written back through the writer's calls. */
static void write_tree(kp_jw *w, const cJSON *v)
{
	if (cJSON_IsObject(v)) {
		kp_jw_obj(w);
		for (const cJSON *c = v->child; c; c = c->next) {
			kp_jw_key(w, c->string ? c->string : "");
			write_tree(w, c);
		}
		kp_jw_end(w);
	} else if (cJSON_IsArray(v)) {
		kp_jw_arr(w);
		for (const cJSON *c = v->child; c; c = c->next)
			write_tree(w, c);
		kp_jw_end(w);
	} else if (cJSON_IsString(v)) {
		kp_jw_str(w, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		kp_jw_double(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		kp_jw_bool(w, cJSON_IsTrue(v));
	} else {
		kp_jw_null(w);
	}
}

/* Generic values in cJSON's layout (list/search output, the index's
 * summary): nesting, empty containers, numbers, a hostile key. */
static void test_values(void)
{
	cJSON *root = cJSON_Parse("{\"a\":[1,-2,0.5,123456789012345,\"x\\u001b\",true,false,null,"
	                          "{},[],{\"k\":{\"z\":[{\"q\":1}]}}],\"\":\"\\u202e\",\"e\":{}}");
	FILE *b = tmpfile();
	kp_jw w;
	kp_jw_init(&w, b);
	write_tree(&w, root);
	KT_CHECK(kp_jw_flush(&w) && golden_same(b, "values.json", NULL),
	         "a JSON tree as cJSON_Print lays it out, made safe (values.json)");
	kp_jw_free(&w);
	fclose(b);
	cJSON_Delete(root);
}

/* A callback that opens containers and leaves them open, and one that
 * closes the same ones. */
static void frame_open(kp_jw *w, bool close)
{
	kp_jw_key(w, "extra");
	kp_jw_arr(w);
	kp_jw_obj(w);
	kp_jw_key(w, "k");
	kp_jw_int(w, 1);
	if (close) {
		kp_jw_end(w);
		kp_jw_end(w);
	}
}

static void frame_left_open(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                            size_t i, kp_jw *w)
{
	(void)ctx, (void)r, (void)p, (void)t, (void)i;
	frame_open(w, false);
}

static void frame_closed(void *ctx, const kp_report *r, const kp_process *p, const kp_thread *t,
                         size_t i, kp_jw *w)
{
	(void)ctx, (void)r, (void)p, (void)t, (void)i;
	frame_open(w, true);
}

/* The frame callback's contract: what it leaves open is closed for it. */
static void test_callback_left_open(void)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(KP_FIXTURES "/reports/panic-full-2026-11-20-101500.0001.ips", &r, &err) != KP_OK) {
		KT_CHECK(false, "fixture loads");
		return;
	}
	FILE *a = tmpfile(), *b = tmpfile();
	bool ok = write_report(a, r, frame_left_open, 0) && write_report(b, r, frame_closed, 0);
	KT_CHECK(ok && same_files(a, b, "left open"), "containers a frame callback leaves open are closed for it");
	fclose(a);
	fclose(b);
	kp_report_free(&r);
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
		KT_CHECK(!write_report(ro, r, frame_cb, 0), "a failed write is reported");
	kp_report_free(&r);
	clearerr(ro);
	kp_jw w;
	kp_jw_init(&w, ro);
	kp_jw_str(&w, "x");
	KT_CHECK(!kp_jw_flush(&w) && !kp_jw_flush(&w), "a failure is sticky");
	kp_jw_free(&w);
	fclose(ro);
	unlink(path);
}

int main(void)
{
	const char *u = getenv("KP_GOLDEN_UPDATE");
	update = u && strcmp(u, "1") == 0;
	digests_load();
	test_strings();
	test_values();
	test_write_error();
	test_callback_left_open();
	test_corpora();
	if (update)
		KT_CHECK(digests_write(), "wrote " GOLDEN "/digests.txt");
	return kt_done();
}
