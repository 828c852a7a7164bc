/* index_corpus.h: for tests and benchmarks: generated panic reports of known structure, shaped like
 * the real Intel text reports (Monterey layout with a legacy date header).
 *
 * A report is a bug (headline, kext, kext frame offsets) on a build
 * (kernel UUID, OS build, machinery frame offsets) in one incident (slide,
 * date, anonymous UUID): the same bug must group across incidents and
 * builds, and differ from other bugs in the same kext. */
#ifndef KP_INDEX_CORPUS_H
#define KP_INDEX_CORPUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gen_bug {
	const char *msg;        /* the panic message */
	const char *file;       /* source file in the @path */
	int line;
	const char *kext;       /* bundle id */
	const char *kext_uuid;
	int nframes;
	uint32_t kext_off[8];   /* kext frame offsets, innermost first */
} gen_bug;

typedef struct gen_build {
	const char *build;      /* "21E258" */
	const char *kernel_uuid;
	uint32_t machinery[4];  /* panic path offsets in this kernel */
	uint32_t tail[3];       /* kernel frames below the kext */
} gen_build;

extern const gen_bug gen_bugs[3];
extern const gen_build gen_builds[2];
/* The IOPCIFamily dependency UUID every generated report carries. */
extern const char gen_dep_uuid[];

/* Writes the report of bug (0..2) on build (0..1) in incident into buf
 * (>= 8 KB); returns its length. */
size_t gen_report(char *buf, size_t size, int bug, int build, int incident);

/* Writes dir/name; 0 or -1. */
int gen_write(const char *dir, const char *name, const char *data, size_t len);

/* The known corpus under dir (which must exist):
 *   bugA-1.panic bugA-2.panic  bug 0, build 0, incidents 1 and 2
 *   bugA-3.panic               bug 0, build 1, incident 3
 *   Retired/bugA-1.panic       byte copy of bugA-1
 *   bugB-1.panic               bug 1 (same kext as A), build 0, incident 4
 *   copy-of-bugB.panic         byte copy of bugB-1
 *   gadget-1.panic             bug 2 (another kext), build 1, incident 5
 *   Preview-2022.ips           bug_type 309: skipped
 *   notes.txt                  not a report: skipped
 * Expected: 9 files, 5 new, 2 duplicates, 2 skipped; 3 groups (A x3, B, C).
 * 0 or -1. */
int gen_corpus(const char *dir);

/* count reports spread over several bugs, builds and incidents, in
 * subfolders of 500 under dir.  0 or -1. */
int gen_large(const char *dir, int count);

#endif
