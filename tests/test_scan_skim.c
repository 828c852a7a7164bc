/* test_scan_skim.c: the scanner parses with KP_PARSE_SKIM_FRAMES (a panic's
 * threads other than the panicked one keep no frames); what it records must
 * be what the whole parse records.  For every file under tests/ (real
 * reports, every one of the workplace's shared real corpus among them; fixtures, hostile
 * files), the index's generated corpus and the generated hostile
 * corpus (tests/hostile/gen.py; a counted skip without python3), two
 * kpi__prep (scan.h) are made from the same bytes, one skimming and one
 * whole, and every part kpi__scan_file stores is compared: the parse's
 * status and message, the signature (keys, headline, title, culprit,
 * frames), the archive, the images (roles) and their hash, the loaded kext
 * set, the search text, the host key, the facts and the report fields
 * record_make reads.  The skim must also have left frames out somewhere
 * (the real iOS report), or the comparison proves nothing. */
#include "scan.h"
#include "kp_fs.h"
#include "kt.h"
#include "index_corpus.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t nfiles, nreports, nskimmed, nmismatch;
static size_t frames_whole, frames_skim;

static bool str_eq(const char *a, const char *b)
{
	return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

static size_t count_frames(const kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++)
			n += r->processes[i].threads[j].nframes;
	return n;
}

static kpi__prep *prep_of(const char *path, const char *data, size_t len, unsigned flags)
{
	struct stat st = {0};
	st.st_size = (off_t)len;
	kpi__prep *p = kpi__prep_new(path, &st, true);
	if (!p || !(p->data = malloc(len + 1))) {
		kpi__prep_free(&p);
		return NULL;
	}
	memcpy(p->data, data, len);
	p->data[len] = '\0';
	p->len = len;
	p->read = true;
	p->st = st;
	p->fmt = kp_report_sniff(data, len);
	p->parse_flags = flags;
	kpi__prep_parse(p);
	return p;
}

/* The first part of the record that differs, or NULL. */
static const char *differs(const kpi__prep *a, const kpi__prep *b)
{
	if (a->parse_st != b->parse_st || !str_eq(a->parse_err.msg, b->parse_err.msg) ||
	    a->parse_err.line != b->parse_err.line || a->parse_err.byte != b->parse_err.byte)
		return "parse status or message";
	if (!a->r != !b->r)
		return "whether it parsed";
	if (a->parse_st != KP_OK || !a->r)   /* failed, or binary: never parsed */
		return NULL;
	if (a->rec_st != b->rec_st || a->have_sig != b->have_sig)
		return "record status";
	if (strcmp(a->sig.exact_key, b->sig.exact_key) || strcmp(a->sig.group_key, b->sig.group_key))
		return "signature keys";
	if (!str_eq(a->sig.headline, b->sig.headline) || !str_eq(a->sig.frames, b->sig.frames) ||
	    !str_eq(a->sig.culprit, b->sig.culprit) || !str_eq(a->sig.title, b->sig.title))
		return "signature headline, frames, culprit or title";
	if (a->zlen != b->zlen || (a->zlen && memcmp(a->z, b->z, a->zlen)))
		return "archive";
	if (a->nimages != b->nimages || strcmp(a->images_hash, b->images_hash))
		return "images";
	for (size_t i = 0; i < a->nimages; i++)
		if (strcmp(a->images[i].uuid_hex, b->images[i].uuid_hex) ||
		    strcmp(a->images[i].name, b->images[i].name) || a->images[i].rank != b->images[i].rank)
			return "images";
	if (a->kset.n != b->kset.n || strcmp(a->kset.hash, b->kset.hash))
		return "loaded kexts";
	for (size_t i = 0; i < a->kset.n; i++)
		if (strcmp(a->kset.kexts[i].uuid_hex, b->kset.kexts[i].uuid_hex) ||
		    strcmp(a->kset.kexts[i].name, b->kset.kexts[i].name))
			return "loaded kexts";
	if (!str_eq(a->body, b->body))
		return "search text";
	if (strcmp(a->key, b->key))
		return "host key";
	if (!str_eq(a->facts.kind, b->facts.kind) || !str_eq(a->facts.zone, b->facts.zone) ||
	    !str_eq(a->facts.cls, b->facts.cls) || a->facts.ts != b->facts.ts)
		return "facts";
	const kp_report *x = a->r, *y = b->r;
	if (x->format != y->format || !str_eq(x->timestamp, y->timestamp) ||
	    !str_eq(x->os_version, y->os_version) || !str_eq(x->kernel_uuid, y->kernel_uuid) ||
	    !str_eq(x->headline, y->headline) || !str_eq(x->incident_id, y->incident_id) ||
	    !str_eq(x->product, y->product) || x->truncated != y->truncated || x->kind != y->kind ||
	    x->arch != y->arch)
		return "report fields";
	return NULL;
}

static void one_file(const char *path)
{
	char *data;
	size_t len;
	kp_error err;
	if (kp_fs_read_file(path, KP_REPORT_MAX_SIZE, &data, &len, NULL, &err) != KP_OK)
		return;   /* too large or unreadable: the scanner skips it unparsed */
	nfiles++;
	kpi__prep *whole = prep_of(path, data, len, 0), *skim = prep_of(path, data, len, KP_PARSE_SKIM_FRAMES);
	free(data);
	if (!whole || !skim) {
		KT_CHECK(0, "out of memory preparing %s", path);
		kpi__prep_free(&whole);
		kpi__prep_free(&skim);
		return;
	}
	const char *what = differs(whole, skim);
	if (what) {
		nmismatch++;
		KT_CHECK(0, "%s: the skimming parse records another %s", path, what);
	}
	if (!what && whole->r) {
		nreports++;
		if (whole->r->frames_skipped)
			KT_CHECK(0, "%s: the whole parse says frames were skipped", path);
		if (skim->r->frames_skipped && skim->r->kind != KP_KIND_PANIC)
			KT_CHECK(0, "%s: a %s was skimmed", path, kp_kind_name(skim->r->kind));
		nskimmed += skim->r->frames_skipped;
		frames_whole += count_frames(whole->r);
		frames_skim += count_frames(skim->r);
	}
	kpi__prep_free(&whole);
	kpi__prep_free(&skim);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path);
		else if (S_ISREG(st.st_mode))
			one_file(path);
	}
	closedir(d);
}

int main(void)
{
	walk(KP_TESTS_DIR);
	size_t in_tests = nfiles;
	KT_CHECK(in_tests > 300, "every file under tests/ compared (%zu)", in_tests);

	const char *td = getenv("TMPDIR");
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s/kp-skim-XXXXXX", td && *td ? td : "/tmp");
	KT_CHECK(mkdtemp(tmp) != NULL, "a temporary folder");
	char gen[4200], cmd[9000];
	snprintf(gen, sizeof gen, "%s/corpus", tmp);
	if (mkdir(gen, 0700) == 0 && gen_corpus(gen) == 0 && gen_large(gen, 600) == 0) {
		size_t before = nfiles;
		walk(gen);
		KT_CHECK(nfiles - before > 600, "the index's generated corpus compared (%zu files)", nfiles - before);
	} else {
		KT_CHECK(0, "the index's generated corpus written");
	}
	snprintf(gen, sizeof gen, "%s/hostile", tmp);
	snprintf(cmd, sizeof cmd, "command -v python3 >/dev/null 2>&1 && python3 '%s/hostile/gen.py' '%s' '%s' '%s' 2>/dev/null",
	         KP_TESTS_DIR, KP_FIXTURES, gen, KP_REAL_DIR);
	if (system(cmd) == 0) {
		size_t before = nfiles;
		walk(gen);
		KT_CHECK(nfiles - before > 1000, "the generated hostile corpus compared (%zu files)", nfiles - before);
	} else {
		printf("ok %d - # SKIP python3 absent: the generated hostile corpus not built\n", ++kt_n);
		kt_skipped++;
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	KT_CHECK(system(cmd) == 0, "the temporary folder removed");

	KT_CHECK(nmismatch == 0, "%zu files, %zu reports: every record the same whole and skimmed", nfiles, nreports);
	/* the real iOS full report under tests/real is a panic with thousands
	 * of threads: a skim that skipped nothing would prove nothing */
	KT_CHECK(nskimmed > 0 && frames_skim < frames_whole,
	         "frames left out: %zu reports skimmed, %zu of %zu frames decoded", nskimmed, frames_skim,
	         frames_whole);
	return kt_done();
}
