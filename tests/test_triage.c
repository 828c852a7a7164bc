/* test_triage.c: cause classes (issue 34 item 1) against the hand labels
 * of every real report (tests/data/real-classes.tsv, written before the
 * rules), and every rule of the table alive (no earlier rule shadows it).
 * Prints the agreement the README states. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "kp_report.h"
#include "kp_triage.h"
#include "kt.h"
#include "kt_slurp.h"

#define NREAL_MAX 256

typedef struct label {
	char file[256];
	char cls[32];
} label;

static size_t read_labels(label *v, size_t max)
{
	size_t len;
	char *b = kt_slurp(KP_TESTS_DIR "/data/real-classes.tsv", &len);
	KT_CHECK(b != NULL, "real-classes.tsv reads");
	if (!b)
		return 0;
	size_t n = 0;
	char *save = NULL;
	for (char *line = strtok_r(b, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "file\t", 5) == 0)
			continue;
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t1 || !t2 || n == max)
			continue;
		snprintf(v[n].file, sizeof v[n].file, "%.*s", (int)(t1 - line), line);
		snprintf(v[n].cls, sizeof v[n].cls, "%.*s", (int)(t2 - t1 - 1), t1 + 1);
		n++;
	}
	free(b);
	return n;
}

static kp_report *load(const char *path)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(path, &r, &err) != KP_OK)
		return NULL;
	return r;
}

static int decided[256][4];   /* per rule: how many real reports it decided (first few kept) */

static void real_agreement(void)
{
	static label labels[NREAL_MAX];
	size_t n = read_labels(labels, NREAL_MAX);
	KT_CHECK(n >= 23, "every real report is labelled (%zu labels)", n);
	size_t agree = 0, per[KP_CLASS_COUNT] = {0}, per_ok[KP_CLASS_COUNT] = {0};
	size_t nrules;
	kp_triage_rules(&nrules);
	for (size_t i = 0; i < n; i++) {
		char path[1024];
		snprintf(path, sizeof path, KP_REAL_DIR "/%.255s", labels[i].file);
		kp_report *r = load(path);
		KT_CHECK(r != NULL, "%s parses", labels[i].file);
		if (!r)
			continue;
		kp_triage t;
		kp_triage_classify(r, &t);
		kp_class want;
		bool known = kp_class_parse(labels[i].cls, &want);
		KT_CHECK(known, "%s: label '%s' is a class", labels[i].file, labels[i].cls);
		bool ok = known && t.cls == want;
		KT_CHECK(ok, "%s: %s (hand: %s) by %s: %s", labels[i].file, kp_class_name(t.cls), labels[i].cls,
		         t.field ? t.field : "default", t.evidence);
		if (known) {
			per[want]++;
			per_ok[want] += ok;
		}
		agree += ok;
		if (t.rule >= 0 && (size_t)t.rule < nrules && t.rule < 256)
			decided[t.rule][0]++;
		kp_report_free(&r);
	}
	printf("# agreement with the hand labels: %zu of %zu real reports (%.0f%%)\n", agree, n,
	       n ? 100.0 * (double)agree / (double)n : 0.0);
	for (int c = 0; c < KP_CLASS_COUNT; c++)
		printf("#   %-20s %zu of %zu\n", kp_class_name((kp_class)c), per_ok[c], per[c]);

	/* every report of tests/real has its label: a new one must be labelled */
	DIR *d = opendir(KP_REAL_DIR);
	KT_CHECK(d != NULL, "tests/real lists");
	size_t files = 0, unlabelled = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "MANIFEST.tsv") == 0)
			continue;
		files++;
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(labels[i].file, e->d_name) == 0;
		if (!found) {
			unlabelled++;
			printf("# no hand label: %s\n", e->d_name);
		}
	}
	if (d)
		closedir(d);
	KT_CHECK(files == n && unlabelled == 0, "each of the %zu reports of tests/real has one label", files);
}

/* A report whose message is text (and, for a fault rule, whose register
 * line is reg): what a rule's pattern alone gives. */
static kp_report *synthetic(const char *text)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_parse(text, strlen(text), "synthetic", &r, &err) != KP_OK)
		return NULL;
	return r;
}

static void rules_alive(void)
{
	size_t n;
	const kp_triage_rule *rules = kp_triage_rules(&n);
	size_t real = 0;
	for (size_t i = 0; i < n; i++) {
		const kp_triage_rule *ru = &rules[i];
		char text[512];
		switch (ru->field) {
		case KP_TF_MESSAGE:
		case KP_TF_PANIC:
			snprintf(text, sizeof text, "panic(cpu 0 caller 0xfffffe0012067e78): x %s y\n", ru->pattern);
			break;
		case KP_TF_PREAMBLE:
			snprintf(text, sizeof text, "%s: 0x1\npanic(cpu 0 caller 0xfffffe0012067e78): x\n", ru->pattern);
			break;
		case KP_TF_FAULT_LOW:
			snprintf(text, sizeof text,
			         "panic(cpu 0 caller 0xfffffe0012067e78): Kernel %s at pc 0x1\n"
			         "\t  pc:  0xfffffe001197caec %s 0x0000000000000010\n",
			         ru->guard, ru->pattern);
			break;
		default:
			text[0] = '\0';
		}
		if (decided[i][0]) {
			real++;
			printf("# rule %zu (%s, \"%s\"): decided %d real report(s)\n", i, kp_class_name(ru->cls),
			       ru->pattern, decided[i][0]);
		} else {
			printf("# rule %zu (%s, \"%s\"): no real report\n", i, kp_class_name(ru->cls), ru->pattern);
		}
		if (!text[0])
			continue;   /* a kind: the real sleep/wake and watchdog reports cover none */
		kp_report *r = synthetic(text);
		KT_CHECK(r != NULL, "rule %zu: its synthetic report parses", i);
		if (!r)
			continue;
		kp_triage t;
		kp_triage_classify(r, &t);
		KT_CHECK(t.rule == (int)i && t.cls == ru->cls, "rule %zu (%s, \"%s\") decides its own text (got rule %d, %s)",
		         i, kp_class_name(ru->cls), ru->pattern, t.rule, kp_class_name(t.cls));
		kp_report_free(&r);
	}
	printf("# %zu of %zu rules decided a real report\n", real, n);
}

/* The evidence is the line that decided, as written. */
static void evidence(void)
{
	kp_report *r = load(KP_REAL_DIR "/text-m1-macos12-usbhost-dataabort-1.txt");
	kp_triage t;
	if (r) {
		kp_triage_classify(r, &t);
		KT_STREQ(t.evidence, "pc:  0xfffffe001197caec cpsr: 0x60401208         esr: 0x96000004          far: 0x000000000000000b",
		         "data abort: the register line with far");
		KT_STREQ(t.field, "panic_string", "data abort: from the panic string");
		kp_report_free(&r);
	}
	r = load(KP_REAL_DIR "/legacy-intel-1012-mbp121-machinecheck-mcapreamble-1.panic");
	if (r) {
		kp_triage_classify(r, &t);
		KT_STREQ(t.evidence, "Machine Check at 0x00007fff7dd40e93, registers:", "machine check: to the written \\n");
		KT_STREQ(t.field, "headline", "machine check: the headline");
		kp_report_free(&r);
	}
	/* a far above the near-zero bound is a bad pointer, not null */
	r = synthetic("panic(cpu 0 caller 0xfffffe0012067e78): Kernel data abort. at pc 0x1\n"
	              "\t  far: 0xdeadbeefdeadbeef\n");
	if (r) {
		kp_triage_classify(r, &t);
		KT_STREQ(kp_class_name(t.cls), "bad-pointer", "a wild far is bad-pointer");
		kp_report_free(&r);
	}
	/* an unmatched panic message is an assertion; the evidence is cut at
	 * a character boundary */
	char big[700];
	int o = snprintf(big, sizeof big, "panic(cpu 0 caller 0x1): my_driver: state %s", "");
	while (o < 600)
		o += snprintf(big + o, sizeof big - (size_t)o, "\xc3\xa9");
	snprintf(big + o, sizeof big - (size_t)o, "\n");
	r = synthetic(big);
	if (r) {
		kp_triage_classify(r, &t);
		KT_STREQ(kp_class_name(t.cls), "assertion", "an unknown message is an assertion");
		size_t el = strlen(t.evidence);
		KT_CHECK(el < KP_TRIAGE_EVIDENCE_MAX && ((unsigned char)t.evidence[el - 1] & 0xC0) != 0xC0,
		         "the evidence is cut whole characters (%zu bytes)", el);
		kp_report_free(&r);
	}
	kp_class c;
	KT_CHECK(kp_class_parse("null-deref", &c) && c == KP_CLASS_NULLDEREF && !kp_class_parse("null", &c),
	         "class ids parse, short names do not");
}

int main(void)
{
	real_agreement();
	rules_alive();
	evidence();
	return kt_done();
}
