/* test_rows_json.c: `list --json` and `search --json` rows (cli/cmd_list.c's
 * streamed writer) print byte for byte what the cJSON tree printed whole
 * did (cJSON_Print, then made safe by kp_report_json_fputs_safe, whose
 * output test_report_json pins to golden files), for rows
 * of hostile text, NULLs, big ids, with and without a search match (one
 * difference: integers from 1e15 up, which cJSON rounded to 15 digits, are
 * exact); no rows is "[]"; a failed write to stdout is reported. */
#include "kp_utf8.h"
#include "kp_index.h"
#include "kpc_cmd.h"
#include "kp_report_json.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* The row object as cmd_list.c built it before streaming. */
static cJSON *ref_str(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *ref_row(const kpi_report_row *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddItemToObject(o, "path", ref_str(r->path));
	/* issue 31 item 9: one date form, the OS and headline as every view
	 * shows them, each beside what the report wrote */
	char iso[32], os[128], title[KP_HEADLINE_DISPLAY_SIZE];
	cJSON_AddItemToObject(o, "timestamp", ref_str(kp_timestamp_iso(r->timestamp, iso, sizeof iso) ? iso : NULL));
	cJSON_AddItemToObject(o, "timestamp_raw", ref_str(r->timestamp));
	cJSON_AddItemToObject(o, "os_version", ref_str(r->os_version));
	kp_os_label(r->os_version, os, sizeof os);
	cJSON_AddItemToObject(o, "os", ref_str(r->os_version ? os : NULL));
	kp_headline_display(r->headline, title, sizeof title);
	cJSON_AddItemToObject(o, "headline", ref_str(r->headline ? title : NULL));
	cJSON_AddItemToObject(o, "headline_raw", ref_str(r->headline));
	cJSON_AddNumberToObject(o, "group_id", (double)r->group_id);
	cJSON_AddNumberToObject(o, "group_count", (double)r->group_count);
	cJSON_AddBoolToObject(o, "archived", r->archived);
	cJSON_AddItemToObject(o, "host", ref_str(r->host));          /* issue 16 */
	cJSON_AddItemToObject(o, "host_key", ref_str(r->host_key));
	cJSON_AddItemToObject(o, "kind", ref_str(r->kind));
	cJSON_AddItemToObject(o, "class", ref_str(r->cls));          /* issue 34 */
	if (r->match) {
		cJSON *m = cJSON_AddObjectToObject(o, "match");
		cJSON_AddItemToObject(m, "uuid", ref_str(r->match->uuid));
		cJSON_AddItemToObject(m, "name", ref_str(r->match->name));
		cJSON_AddItemToObject(m, "role", ref_str(r->match->role));
		if (r->match->name && kp_text_has_unsafe(r->match->name, strlen(r->match->name)))
			cJSON_AddTrueToObject(m, "invisible");   /* a look-alike name (issue 32) */
	}
	return o;
}

static char *slurp_file(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	char *b = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	rewind(f);
	if (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n)
		b[0] = '\0';
	return b;
}

/* What the streamed writer prints for rows[0..n), via stdout. */
static char *streamed(const kpi_report_row *rows, size_t n, bool *ok)
{
	char path[] = "/tmp/kp-rows-XXXXXX";
	int fd = mkstemp(path);
	fflush(stdout);
	int saved = dup(1);
	dup2(fd, 1);
	kpc_json_rows *j = kpc_rows_open();
	for (size_t i = 0; i < n; i++)
		kpc_row_sink(j, &rows[i]);
	*ok = kpc_rows_close(j, false);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	FILE *f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	char *txt = slurp_file(f);
	fclose(f);
	unlink(path);
	return txt;
}

static char *reference(const kpi_report_row *rows, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, ref_row(&rows[i]));
	char *s = cJSON_Print(arr);
	FILE *f = tmpfile();
	kp_report_json_fputs_safe(f, s);
	fputc('\n', f);
	char *txt = slurp_file(f);
	fclose(f);
	cJSON_free(s);
	cJSON_Delete(arr);
	return txt;
}

static void test_rows(void)
{
	static const kpi_match m1 = {"7C461EDE-B045-324B-B329-721BED992270", "com.apple.\x1b[2Jevil", "backtrace"};
	static const kpi_match m2 = {NULL, NULL, NULL};
#define ROW(ID, P, T, O, H, G, GC, A, M)                                                     \
	{.id = (ID), .path = (P), .timestamp = (T), .os_version = (O), .headline = (H),       \
	 .group_id = (G), .group_count = (GC), .archived = (A), .match = (M)}
	const kpi_report_row rows[] = {
		ROW(1, "/tmp/a.ips", "2024-05-01 10:00:00.00 +0000", "macOS 14.5 (23F79)", "panic(cpu 0): x", 1, 3,
		    true, NULL),
		ROW(2, NULL, NULL, NULL, NULL, 0, 0, false, NULL),
		ROW(3, "/tmp/\xe2\x80\xae" "gpj.ips", "\xff\xfe bad", "caf\xc3\xa9 \"q\" \\ \t\n", "\xc2\x9b" "31m \x7f",
		    123456789012345, 2147483648, true, &m1),
		ROW(4, "p", "t", "o", "h", 5, 1, false, &m2),
		/* a Mac's name and key as a hostile pusher sent them (issue 16) */
		{.id = 5, .path = "q", .host = "evil\x1b]0;pwned\x07mac", .host_key = "\xe2\x80\xae" "KEY", .kind = "watchdog", .cls = "watchdog", .group_id = 6,
		 .group_count = 1, .archived = true},
	};
	size_t n = sizeof rows / sizeof *rows;
	bool ok;
	char *got = streamed(rows, n, &ok), *want = reference(rows, n);
	KT_CHECK(ok && strcmp(got, want) == 0, "rows with hostile text, NULLs, big ids and matches as cJSON printed them");
	if (strcmp(got, want) != 0)
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
	free(want);

	/* from 1e15 up cJSON printed 15 significant digits ("9.00719925474099e+15");
	 * the writer prints the integer */
	const kpi_report_row big = ROW(9007199254740991, "p", "t", "o", "h", -1, 1, true, NULL);
	got = streamed(&big, 1, &ok);
	KT_CHECK(ok && strstr(got, "\"id\":\t9007199254740991,") && strstr(got, "\"group_id\":\t-1,"),
	         "ids of 16 digits and negative numbers print exactly");
	free(got);

	got = streamed(rows, 0, &ok);
	KT_CHECK(ok && strcmp(got, "[]\n") == 0, "no rows: []");
	free(got);
}

static void test_write_error(void)
{
	char path[] = "/tmp/kp-rows-ro-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	int ro = open(path, O_RDONLY);
	fflush(stdout);
	int saved = dup(1);
	dup2(ro, 1);
	const kpi_report_row row = {.id = 1, .path = "p", .archived = true};
	kpc_json_rows *j = kpc_rows_open();
	kpc_row_sink(j, &row);
	bool ok = kpc_rows_close(j, false);
	clearerr(stdout);
	dup2(saved, 1);
	close(saved);
	close(ro);
	unlink(path);
	KT_CHECK(!ok, "a failed write to stdout is reported");
}

int main(void)
{
	test_rows();
	test_write_error();
	return kt_done();
}
