/* test_model.c: the report model: arena, growth, free, format sniffing;
 * the summary every renderer for people walks (kp_summary.h). */
#include "kp_summary.h"
#include "kt.h"
#include "report_build.h"

#include <string.h>

static void arena_holds_strings(void)
{
	kp_report *r = kp__report_new("x");
	KT_CHECK(r != NULL, "report allocated");
	int ok = 1;
	for (int i = 0; i < 100000; i++)
		ok &= kp__sprintf(r, "%d", i) != NULL;
	KT_CHECK(ok, "arena holds 100000 strings");
	kp_report_free(&r);
}

static void frames_grow(void)
{
	kp_report *r = kp__report_new("x");
	kp_process *p = kp__add_process(r);
	kp_thread *t = kp__add_thread(r, p);
	for (int i = 0; i < 1000; i++)
		kp__add_frame(r, t)->offset = (uint64_t)i;
	KT_CHECK(t->nframes == 1000 && t->frames[999].offset == 999 && t->frames[0].image == -1,
	         "frames grow");
	kp_report_free(&r);
	KT_CHECK(r == NULL, "free clears pointer");
}

static void sniff(void)
{
	KT_CHECK(kp_report_sniff("{\"bug_type\":\"210\"}", 18) == KP_FORMAT_IPS, "JSON sniffs as IPS");
	KT_CHECK(kp_report_sniff("\xEF\xBB\xBF \n{}", 7) == KP_FORMAT_IPS, "BOM and blanks before '{'");
	KT_CHECK(kp_report_sniff("panic(cpu 0 caller 0x1)", 23) == KP_FORMAT_TEXT, "text");
	KT_CHECK(kp_report_sniff("", 0) == KP_FORMAT_UNKNOWN, "empty is unknown");
	KT_CHECK(kp_report_sniff("panic\0\1\2", 8) == KP_FORMAT_UNKNOWN, "a NUL byte: binary");
}

/* The nth line saying key, or NULL. */
static const kp_sum_line *sum_line(const kp_summary *s, kp_sum_key key, size_t nth)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->lines[i].key == key && nth-- == 0)
			return &s->lines[i];
	return NULL;
}

/* What the TUI's hang summary once dropped (issue 21): the model says it,
 * so show and the screen both do. */
static void summary_says_it_all(void)
{
	kp_report *r = kp__report_new("x");
	static int64_t pids[10] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	static char *notes[2] = {"first note", "second note"};
	r->kind = KP_KIND_STACKSHOT;
	r->frontmost_pids = pids;
	r->nfrontmost = 10;
	r->notes = (kp_strs){notes, 2};
	r->reason = "the reason";
	r->zone.name = "kalloc.1024";
	r->zone.has_elements = r->zone.has_bytes = true;
	r->zone.elements = 100535;
	r->zone.bytes = 102948864;
	kp_summary s;
	kp_error err;
	KT_CHECK(kp_summary_build(r, &s, &err) == KP_OK, "summary built");
	KT_CHECK(s.n > 0 && strcmp(s.lines[0].label, "Headline:") == 0, "the headline first");
	const kp_sum_line *l = sum_line(&s, KP_SUM_ZONE, 0);
	KT_STREQ(l ? l->value : NULL, "zone kalloc.1024, 100535 elements, 102948864 bytes", "zone: elements and bytes");
	l = sum_line(&s, KP_SUM_REASON, 0);
	KT_STREQ(l ? l->value : NULL, "the reason", "the reason");
	l = sum_line(&s, KP_SUM_NOTES, 1);
	KT_STREQ(l ? l->value : NULL, "second note", "every note");
	KT_STREQ(l ? l->label : NULL, "", "  a note after the first under the same label");
	l = sum_line(&s, KP_SUM_FRONTMOST, 9);
	KT_STREQ(l ? l->value : NULL, "20", "every frontmost process (the tenth too)");
	l = sum_line(&s, KP_SUM_BLAMED, 0);
	KT_STREQ(l ? l->value : NULL, "nobody", "blames nobody");
	size_t none = 0;
	for (size_t i = 0; i < s.n; i++)
		none += s.lines[i].value == NULL;
	KT_CHECK(none == 0, "every line has a value (%zu without)", none);
	kp_summary_free(&s);
	KT_CHECK(s.n == 0 && s.lines == NULL, "kp_summary_free empties it");
	kp_report_free(&r);
}

/* Issue 31 item 9: one OS label for every view, by the name Apple gave
 * the release; one ISO 8601 date form, an offset only when the report
 * states one. */
static void labels(void)
{
	static const struct { const char *in, *want; } os[] = {
		{"macOS 14.2 (23C64)", "macOS 14.2 (23C64)"},
		{"Mac OS X 10.15.7 (19H2)", "macOS 10.15.7 (19H2)"},
		{"Mac OS X 10.12.6 (16G29)", "macOS 10.12.6 (16G29)"},
		{"Mac OS X 10.9.3 (13E28)", "OS X 10.9.3 (13E28)"},   /* OS X Mavericks */
		{"OS X 10.11.6 (15G31)", "OS X 10.11.6 (15G31)"},
		{"Mac OS X 10.6.8 (10K549)", "Mac OS X 10.6.8 (10K549)"},
		{"iPhone OS 26.1 (23B85)", "iOS 26.1 (23B85)"},
		{"Bridge OS 6.2 (19P744)", "bridgeOS 6.2 (19P744)"},
		{"17E199", "17E199"},   /* the build alone: all the file says */
		{NULL, "-"},
	};
	for (size_t i = 0; i < sizeof os / sizeof *os; i++) {
		char out[64];
		kp_os_label(os[i].in, out, sizeof out);
		KT_CHECK(strcmp(out, os[i].want) == 0, "OS label of %s: %s (got %s)", os[i].in ? os[i].in : "NULL",
		         os[i].want, out);
	}
	static const struct { const char *in, *want; } ts[] = {
		{"2026-01-13 12:23:35.00 -0500", "2026-01-13T12:23:35-05:00"},
		{"2022-03-22 06:25:28 +0000", "2022-03-22T06:25:28+00:00"},
		{"Sat Aug 18 13:08:26 2018", "2018-08-18T13:08:26"},   /* no zone: no offset, never Z */
		{"Mon Aug  3 09:45:12 2020", "2020-08-03T09:45:12"},
		{"2024-05-01T10:00:00Z", "2024-05-01T10:00:00+00:00"},
		{"2024-05-01 10:00:00.000 +0530", "2024-05-01T10:00:00+05:30"},
	};
	for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
		char out[32];
		KT_CHECK(kp_timestamp_iso(ts[i].in, out, sizeof out) && strcmp(out, ts[i].want) == 0,
		         "ISO 8601 of %s: %s (got %s)", ts[i].in, ts[i].want, out);
	}
	char out[32];
	KT_CHECK(!kp_timestamp_iso("yesterday", out, sizeof out) && !out[0] && !kp_timestamp_iso(NULL, out, sizeof out),
	         "ISO 8601 of an unreadable date: none");
	kp_timestamp a, b;
	KT_CHECK(kp_timestamp_parse("2026-01-13 12:23:35.00 -0500", &a) && kp_timestamp_parse("2026-01-13T17:23:35Z", &b) &&
	             kp_timestamp_seconds(&a) == kp_timestamp_seconds(&b) && a.zoned,
	         "one instant written with two offsets: the same seconds");
}

int main(void)
{
	labels();
	arena_holds_strings();
	frames_grow();
	sniff();
	summary_says_it_all();
	return kt_done();
}
