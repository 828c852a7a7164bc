/* test_rows_json.c: `list --json` and `search --json` rows (the CLI library's
 * streamed writer) print byte for byte what the cJSON tree printed whole
 * did (cJSON_Print, then made safe), kept in tests/golden/json/rows.json
 * (KP_GOLDEN_UPDATE=1 rewrites it; written when this test still built the
 * cJSON tree beside and compared), for rows of hostile text, NULLs, big
 * ids, with and without a search match (one difference: integers from 1e15
 * up, which cJSON rounded to 15 digits, are exact); no rows is "[]"; a
 * failed write to stdout is reported. */
#include "kp_utf8.h"
#include "kp_index.h"
#include "kpc_rows.h"
#include "kt.h"
#include "kt_slurp.h"

#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

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
	rewind(f);
	char *txt = kt_slurp_stream(f, NULL);
	fclose(f);
	unlink(path);
	return txt;
}

#define GOLDEN KP_TESTS_DIR "/golden/json/rows.json"

/* got against GOLDEN (written instead under KP_GOLDEN_UPDATE=1). */
static bool golden_same(const char *got)
{
	const char *u = getenv("KP_GOLDEN_UPDATE");
	if (u && strcmp(u, "1") == 0) {
		FILE *f = fopen(GOLDEN, "wb");
		bool ok = f && fputs(got, f) >= 0;
		return (f && fclose(f) == 0) && ok;
	}
	size_t wlen;
	char *want = kt_slurp(GOLDEN, &wlen);
	if (!want) {
		printf("# no golden file " GOLDEN " (KP_GOLDEN_UPDATE=1 writes it)\n");
		return false;
	}
	bool same = strcmp(got, want) == 0;
	if (!same)
		printf("# got:\n%s# want:\n%s", got, want);
	free(want);
	return same;
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
	char *got = streamed(rows, n, &ok);
	KT_CHECK(ok && golden_same(got), "rows with hostile text, NULLs, big ids and matches as cJSON printed them "
	         "(golden/json/rows.json)");
	free(got);

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
