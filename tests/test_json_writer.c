/* test_json_writer.c: the one JSON writer (core/base/kp_jw.h) on its own:
 * cJSON_Print's layout for every nesting (empty, nested, arrays of objects)
 * checked against cJSON_Print itself on the same values, the flat layout
 * and an explicit indent as show --json uses them, separators after raw
 * bytes, every escape (C0, quote, backslash, DEL, C1, bidi, U+2028, tags as
 * surrogate pairs, invalid and cut UTF-8 as \ufffd) and keys escaped alike,
 * integers at their limits, hex, doubles as cJSON's numbers were written,
 * the same bytes in memory and through a FILE across many buffers, memory
 * growth, and failures: a refused write, sticky; nesting past the limit. */
#include "kp_jw.h"
#include "kt.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What fn writes, in memory (NUL-terminated copy, caller frees). */
static char *mem_of(void (*fn)(kp_jw *w))
{
	kp_jw w;
	kp_jw_init(&w, NULL);
	fn(&w);
	size_t n = 0;
	const char *t = kp_jw_text(&w, &n);
	char *r = t ? strdup(t) : NULL;
	if (r && strlen(r) != n) {   /* no NUL inside */
		free(r);
		r = NULL;
	}
	kp_jw_free(&w);
	return r;
}

/* What fn writes through a FILE. */
static char *file_of(void (*fn)(kp_jw *w), bool *ok)
{
	FILE *f = tmpfile();
	kp_jw w;
	kp_jw_init(&w, f);
	fn(&w);
	*ok = kp_jw_flush(&w);
	kp_jw_free(&w);
	long n = ftell(f);
	char *r = malloc((size_t)n + 1);
	rewind(f);
	if (fread(r, 1, (size_t)n, f) != (size_t)n)
		*ok = false;
	r[n] = '\0';
	fclose(f);
	return r;
}

static bool same(const char *what, const char *got, const char *want)
{
	if (got && want && strcmp(got, want) == 0)
		return true;
	printf("# %s:\n# got:  [%s]\n# want: [%s]\n", what, got ? got : "(null)", want ? want : "(null)");
	return false;
}

/* ---- the layout, against cJSON_Print --------------------------------------- */

/* A document with every nesting; the same built as a cJSON tree. */
static void doc(kp_jw *w)
{
	kp_jw_obj(w);
	kp_jw_key(w, "name");
	kp_jw_str(w, "kpbrowse");
	kp_jw_key(w, "n");
	kp_jw_int(w, -42);
	kp_jw_key(w, "empty_obj");
	kp_jw_obj(w);
	kp_jw_end(w);
	kp_jw_key(w, "empty_arr");
	kp_jw_arr(w);
	kp_jw_end(w);
	kp_jw_key(w, "list");
	kp_jw_arr(w);
	kp_jw_int(w, 1);
	kp_jw_str(w, "two");
	kp_jw_null(w);
	kp_jw_bool(w, true);
	kp_jw_bool(w, false);
	kp_jw_obj(w);
	kp_jw_key(w, "a");
	kp_jw_arr(w);
	kp_jw_obj(w);
	kp_jw_key(w, "deep");
	kp_jw_obj(w);
	kp_jw_end(w);
	kp_jw_end(w);
	kp_jw_arr(w);
	kp_jw_end(w);
	kp_jw_end(w);
	kp_jw_end(w);
	kp_jw_obj(w);
	kp_jw_end(w);
	kp_jw_end(w);
	kp_jw_key(w, "last");
	kp_jw_str(w, "tab\there \"q\" back\\slash \x01");
	kp_jw_end(w);
}

static cJSON *doc_cjson(void)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "kpbrowse");
	cJSON_AddNumberToObject(o, "n", -42);
	cJSON_AddObjectToObject(o, "empty_obj");
	cJSON_AddArrayToObject(o, "empty_arr");
	cJSON *l = cJSON_AddArrayToObject(o, "list");
	cJSON_AddItemToArray(l, cJSON_CreateNumber(1));
	cJSON_AddItemToArray(l, cJSON_CreateString("two"));
	cJSON_AddItemToArray(l, cJSON_CreateNull());
	cJSON_AddItemToArray(l, cJSON_CreateTrue());
	cJSON_AddItemToArray(l, cJSON_CreateFalse());
	cJSON *e = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(e, "a");
	cJSON *d = cJSON_CreateObject();
	cJSON_AddObjectToObject(d, "deep");
	cJSON_AddItemToArray(a, d);
	cJSON_AddItemToArray(a, cJSON_CreateArray());
	cJSON_AddItemToArray(l, e);
	cJSON_AddItemToArray(l, cJSON_CreateObject());
	cJSON_AddStringToObject(o, "last", "tab\there \"q\" back\\slash \x01");
	return o;
}

static void test_layout(void)
{
	cJSON *ref = doc_cjson();
	char *want = cJSON_Print(ref);
	char *got = mem_of(doc);
	KT_CHECK(same("layout", got, want), "objects, arrays, empty ones, nesting and escapes as cJSON_Print lays them out");
	bool ok;
	char *viaf = file_of(doc, &ok);
	KT_CHECK(ok && same("FILE", viaf, want), "the same through a FILE");
	free(viaf);
	free(got);
	cJSON_free(want);
	cJSON_Delete(ref);
}

/* show --json's layout: flat arrays (an array's objects close at the
 * indent of the member holding it), the report at a given indent, after
 * raw bytes that open an array of its own. */
static void flat_doc(kp_jw *w)
{
	KP_JW_LIT(w, "[");
	for (int k = 0; k < 2; k++) {
		if (k)
			KP_JW_LIT(w, ", ");
		bool flat = w->flat;
		int tabs = w->tabs;
		w->flat = true;
		w->tabs = 1;
		kp_jw_obj(w);
		kp_jw_key(w, "frames");
		kp_jw_arr(w);
		kp_jw_obj(w);
		kp_jw_key(w, "i");
		kp_jw_int(w, k);
		kp_jw_end(w);
		kp_jw_obj(w);
		kp_jw_end(w);
		kp_jw_end(w);
		kp_jw_end(w);
		w->flat = flat;
		w->tabs = tabs;
	}
	KP_JW_LIT(w, "]\n");
}

static void test_flat(void)
{
	char *got = mem_of(flat_doc);
	KT_CHECK(same("flat", got,
	              "[{\n\t\t\"frames\":\t[{\n\t\t\t\"i\":\t0\n\t\t}, {\n\t\t}]\n\t}, "
	              "{\n\t\t\"frames\":\t[{\n\t\t\t\"i\":\t1\n\t\t}, {\n\t\t}]\n\t}]\n"),
	         "flat arrays at a set indent, between raw bytes (show --json of two reports)");
	free(got);
}

/* ---- strings and keys ------------------------------------------------------- */

static const char *str_in;
static size_t str_len;

static void one_str(kp_jw *w)
{
	kp_jw_strn(w, str_in, str_len);
}

static bool str_is(const char *in, size_t n, const char *want)
{
	str_in = in;
	str_len = n;
	char *got = mem_of(one_str);
	bool ok = same(in, got, want);
	free(got);
	return ok;
}

static void test_strings(void)
{
	bool ok = true;
	ok = str_is("", 0, "\"\"") && ok;
	ok = str_is("\b\f\n\r\t\v\x1b\x01\x1f", 9, "\"\\b\\f\\n\\r\\t\\u000b\\u001b\\u0001\\u001f\"") && ok;
	ok = str_is("a\0b", 3, "\"a\\u0000b\"") && ok;
	KT_CHECK(ok, "C0 controls: cJSON's short escapes, \\u00xx for the rest (a NUL inside a length too)");
	ok = str_is("\"\\/", 3, "\"\\\"\\\\/\"") && ok;
	KT_CHECK(ok, "quote and backslash escaped, the slash not (as cJSON)");
	ok = str_is("\x7f", 1, "\"\\u007f\"");
	ok = str_is("\xc2\x9b", 2, "\"\\u009b\"") && ok;                 /* C1 CSI */
	ok = str_is("\xe2\x80\xae", 3, "\"\\u202e\"") && ok;             /* RLO */
	ok = str_is("\xe2\x80\xa8", 3, "\"\\u2028\"") && ok;             /* LINE SEPARATOR */
	ok = str_is("\xef\xbb\xbf", 3, "\"\\ufeff\"") && ok;             /* BOM */
	ok = str_is("\xf3\xa0\x80\x81", 4, "\"\\udb40\\udc01\"") && ok;  /* TAG U+E0001: a pair */
	KT_CHECK(ok, "DEL, C1, bidi, U+2028, U+FEFF and tags escaped (tags as a surrogate pair)");
	ok = str_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	KT_CHECK(ok, "valid, safe UTF-8 as it is");
	ok = str_is("\xff", 1, "\"\\ufffd\"");
	ok = str_is("\xc3", 1, "\"\\ufffd\"") && ok;                      /* cut */
	ok = str_is("a\xe2\x82", 3, "\"a\\ufffd\\ufffd\"") && ok;         /* cut at the end */
	ok = str_is("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"") && ok;           /* overlong */
	ok = str_is("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"") && ok; /* a surrogate */
	ok = str_is("\xef\xbf\xbd", 3, "\"\xef\xbf\xbd\"") && ok;         /* a real U+FFFD stays */
	KT_CHECK(ok, "invalid UTF-8: each bad byte \\ufffd; a U+FFFD in the text stays as it is");
}

static void keys(kp_jw *w)
{
	kp_jw_obj(w);
	kp_jw_key(w, "\x1b[2J\xe2\x80\xae");
	kp_jw_int(w, 1);
	kp_jw_key(w, "");
	kp_jw_int(w, 2);
	/* longer than the short-key path (64) */
	kp_jw_key(w, "k123456789012345678901234567890123456789012345678901234567890123456789");
	kp_jw_int(w, 3);
	kp_jw_end(w);
}

static void test_keys(void)
{
	char *got = mem_of(keys);
	KT_CHECK(same("keys", got,
	              "{\n\t\"\\u001b[2J\\u202e\":\t1,\n\t\"\":\t2,\n"
	              "\t\"k123456789012345678901234567890123456789012345678901234567890123456789\":\t3\n}"),
	         "keys escaped and made safe as values are; empty and long keys");
	free(got);
}

/* ---- numbers -------------------------------------------------------------------- */

static void numbers(kp_jw *w)
{
	kp_jw_arr(w);
	kp_jw_int(w, 0);
	kp_jw_int(w, -1);
	kp_jw_int(w, INT64_MAX);
	kp_jw_int(w, INT64_MIN);
	kp_jw_hex(w, 0);
	kp_jw_hex(w, 0xfffffe0007004000ull);
	kp_jw_hex(w, UINT64_MAX);
	kp_jw_double(w, 7);
	kp_jw_double(w, -2.5);
	kp_jw_double(w, 123456789012345.0);
	kp_jw_double(w, 1e15);
	kp_jw_double(w, 0.1);
	kp_jw_double(w, NAN);
	kp_jw_double(w, -INFINITY);
	kp_jw_end(w);
}

static void test_numbers(void)
{
	char *got = mem_of(numbers);
	KT_CHECK(same("numbers", got,
	              "[0, -1, 9223372036854775807, -9223372036854775808, \"0x0\", \"0xfffffe0007004000\", "
	              "\"0xffffffffffffffff\", 7, -2.5, 123456789012345, 1000000000000000, 0.10000000000000001, null, null]"),
	         "integers exact at their limits, hex strings, doubles as the cJSON numbers were written");
	free(got);
}

/* ---- size: memory and FILE alike, across many buffers ------------------------ */

static void big(kp_jw *w)
{
	kp_jw_obj(w);
	kp_jw_key(w, "rows");
	kp_jw_arr(w);
	for (int i = 0; i < 20000; i++) {
		kp_jw_obj(w);
		kp_jw_key(w, "id");
		kp_jw_int(w, i);
		kp_jw_key(w, "text");
		kp_jw_str(w, i % 7 ? "plain text of a row" : "\xe2\x80\xae hostile \x1b row \xff");
		kp_jw_end(w);
	}
	kp_jw_end(w);
	static char run[3 * KP_JW_BUFSIZE + 5];   /* one string longer than the buffer */
	memset(run, 'x', sizeof run - 1);
	kp_jw_key(w, "long");
	kp_jw_str(w, run);
	kp_jw_end(w);
}

static void test_big(void)
{
	bool ok;
	char *m = mem_of(big), *f = file_of(big, &ok);
	KT_CHECK(m && ok && strlen(m) > 20 * KP_JW_BUFSIZE && strcmp(m, f) == 0,
	         "a %zu-byte document: the same bytes grown in memory and through a FILE",
	         m ? strlen(m) : 0);
	cJSON *p = m ? cJSON_Parse(m) : NULL;
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(p, "rows");
	KT_CHECK(cJSON_GetArraySize(rows) == 20000 &&
	         strlen(cJSON_GetObjectItemCaseSensitive(p, "long")->valuestring) == 3 * KP_JW_BUFSIZE + 4,
	         "and it parses back: every row, the long string whole");
	cJSON_Delete(p);
	free(m);
	free(f);
}

/* ---- failures -------------------------------------------------------------------- */

static void deep(kp_jw *w)
{
	for (int i = 0; i <= KP_JW_MAX_NEST; i++)
		kp_jw_arr(w);
	for (int i = 0; i <= KP_JW_MAX_NEST; i++)
		kp_jw_end(w);
}

static void test_failures(void)
{
	FILE *ro = fopen(KP_TESTS_DIR "/golden/json/values.json", "r");   /* writes refused */
	if (!ro) {
		KT_SKIP("no file to open read-only");
		return;
	}
	kp_jw w;
	kp_jw_init(&w, ro);
	big(&w);   /* many buffers: the first drain fails */
	KT_CHECK(w.failed, "a refused write fails the writer at once");
	kp_jw_str(&w, "after");
	KT_CHECK(!kp_jw_flush(&w) && !kp_jw_flush(&w), "the failure is sticky: every flush says so");
	kp_jw_free(&w);
	fclose(ro);

	kp_jw m;
	kp_jw_init(&m, NULL);
	deep(&m);
	KT_CHECK(kp_jw_text(&m, NULL) == NULL && m.failed, "nesting past %d containers fails the writer",
	         KP_JW_MAX_NEST);
	kp_jw_free(&m);
	kp_jw_init(&m, NULL);
	for (int i = 0; i < KP_JW_MAX_NEST; i++)
		kp_jw_arr(&m);
	for (int i = 0; i < KP_JW_MAX_NEST; i++)
		kp_jw_end(&m);
	const char *t = kp_jw_text(&m, NULL);
	KT_CHECK(t && strlen(t) == 2 * KP_JW_MAX_NEST && t[0] == '[' && t[2 * KP_JW_MAX_NEST - 1] == ']',
	         "%d containers deep is within the limit", KP_JW_MAX_NEST);
	kp_jw_free(&m);
}

int main(void)
{
	test_layout();
	test_flat();
	test_strings();
	test_keys();
	test_numbers();
	test_big();
	test_failures();
	return kt_done();
}
