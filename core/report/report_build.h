/* report_build.h: private to core/report/: how parsers build a kp_report.
 *
 * Ownership: everything these functions return belongs to the report.  The
 * kp__add_* functions return a zeroed element or NULL when out of memory;
 * a returned pointer is invalidated by the next add to the same array, so
 * keep indices, not pointers, across adds. */
#ifndef KP_REPORT_BUILD_H
#define KP_REPORT_BUILD_H

#include "kp_json.h"
#include "kp_report.h"

#include <cjson/cJSON.h>

kp_report *kp__report_new(const char *path);

/* Bounds on what one report's stackshot makes of the model (.ips
 * processByPid and the Intel kcdata stackshot alike), so a hostile file of
 * tiny members cannot make it many times its size: a real report has < 100
 * processes, < 10,000 threads, < 200 frames a thread and < 2,000 images.
 * What is past them is dropped with a warning. */
#define KP_IPS_MAX_PROCESSES ((size_t)1 << 16)
#define KP_IPS_MAX_THREADS ((size_t)1 << 18)    /* in all */
#define KP_IPS_MAX_FRAMES ((size_t)1 << 22)     /* a thread */
#define KP_IPS_MAX_IMAGES ((size_t)1 << 16)

/* Arena copies; NULL only when out of memory (or s is NULL). */
char *kp__strndup(kp_report *r, const char *s, size_t n);
char *kp__strdup(kp_report *r, const char *s);
char *kp__sprintf(kp_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *kp__alloc(kp_report *r, size_t n);

kp_image *kp__add_image(kp_report *r);          /* sets index, kind '?' */
kp_process *kp__add_process(kp_report *r);
kp_thread *kp__add_thread(kp_report *r, kp_process *p);   /* cpu = -1 */
kp_frame *kp__add_frame(kp_report *r, kp_thread *t);      /* image = -1 */
kp_kext *kp__add_kext(kp_report *r);
bool kp__add_field(kp_report *r, const char *key, size_t keylen, const char *value, size_t vlen);
bool kp__warn(kp_report *r, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The image whose UUID equals uuid (canonical), or -1. */
int kp__image_by_uuid(const kp_report *r, const char *uuid);
/* What binary content b[0..n) is, for a message: "a binary property list
 * (bplist00)", "binary data (a binary spindump?)" or "empty". */
const char *kp__binary_what(const char *b, size_t n);
/* The image named name[0..n), or -1. */
int kp__image_by_name(const kp_report *r, const char *name, size_t n);

/* Derives arch and soc from kernel_version when they are not set yet; an
 * arch the version does not name is inferred from the kernel frames. */
void kp__derive_arch(kp_report *r);

/* The text parser: fills r from panic text (a legacy .panic file or the
 * panic string embedded in a JSON report).
 *  - Header fields already set (from JSON) are kept; empty ones are filled.
 *  - Kexts in backtrace are matched to existing images by UUID, else added
 *    with kind 'X'; a kernel image (kind 'K', name "kernel") is added when
 *    none carries the kernel UUID.
 *  - Backtrace blocks become threads of the panicked process only when r has
 *    no processes yet (the JSON forms bring their own).  Only then does it
 *    derive the arch (kp__derive_arch); otherwise the caller does, once its
 *    own threads' frames are read.
 *  - line0/byte0 place text inside the file for messages (1 and 0 for a
 *    whole text file).
 * Fails only when the text holds nothing recognisable as a panic. */
kp_status kp__text_parse(kp_report *r, const char *text, size_t len,
                         long line0, long byte0, kp_error *err);

/* Expands a kext id s[0..n) from the compact form of Catalina-era panic
 * texts (">!AHDA" -> "com.apple.driver.AppleHDA"); other ids are copied.
 * NULL only when out of memory. */
char *kp__kext_expand(kp_report *r, const char *s, size_t n);

/* A thread read for its id alone, its other members and frame arrays
 * stepped over, not decoded: where it is in r while the parse lasts
 * (processes, in the order read), its object [val, val_end) and its
 * kernelFrames / userFrames values (NULL when absent), in the parse's
 * buffer.  The list is malloc'd (free(v)). */
typedef struct {
	size_t proc, thread;
	const char *val, *val_end;
	const char *kf, *kfe, *uf, *ufe;
} kp__ips_deferred;
typedef struct {
	kp__ips_deferred *v;
	size_t n, cap;
	size_t nimages;   /* the body's images: a frame's index past them names none */
	kp_jmemo *memo;   /* the body's, to step over the members again */
} kp__ips_defer;

/* processByPid's value [val, end): processes, threads and frames; frames
 * refer to r->images, which must be filled first.  Sets *cut when the value
 * is cut off (the complete processes before the cut are kept).  memo: the
 * body's (kp_json.h), so that no level scans its members again.  defer:
 * NULL to decode every thread whole; else each thread gets its id only and
 * is listed there, its other members and frames for kp__ips_frames. */
kp_status kp__ips_processes(kp_report *r, const char *val, const char *end, kp_jmemo *memo,
                           kp__ips_defer *defer, bool *cut);

/* Decodes the deferred members and frames of the threads whose id is the
 * panic text's panicked thread id (every thread mark_panicked may mark; all
 * of them when all) and, unless all, sets r->frames_skipped.  Call after the panic text
 * is parsed and before kp__ips_finish (the slide, the process order), with
 * the buffer kp__ips_processes read still alive. */
kp_status kp__ips_frames(kp_report *r, kp__ips_defer *defer, bool all);

/* The arch a kernel version string names ("RELEASE_ARM64_T8112" ->
 * arm64), KP_ARCH_UNKNOWN when it names none (or kv is NULL): the first
 * step of kp__derive_arch, before it infers one from the frames. */
kp_arch kp__arch_of_version(const char *kv);

/* ips_finish.c: a JSON report's last steps once its body and panic text
 * are read (build check, kernel images and UUID, slide, panicked and blamed
 * processes to the front). */
void kp__ips_finish(kp_report *r);

/* waitchain.c: puts each process's waitInfo / turnstileInfo lines on their
 * threads, resolves the next hops (blocked_proc/thread) and fills r->chains.
 * Call once, after the processes are in their final order.  False only when
 * out of memory. */
bool kp__waitchain_build(kp_report *r);

/* zone.c: r->zone from the panic text (after the parsers). */
void kp__zone_parse(kp_report *r);

/* text_stackshot.c: the `stackshot -i` text (symstacks.rb's input).
 * sniff: a "PID:", a "Thread ID:" and a "Kernel stack:" line start within
 * the first 64 KiB.  parse: processes, threads and frames of the whole
 * text; kind stackshot, format text; fails when no thread is found. */
bool kp__text_stackshot_sniff(const char *data, size_t len);
kp_status kp__text_stackshot_parse(kp_report *r, const char *text, size_t len, kp_error *err);

/* text_spindump.c (issue 24): spin, hang and shutdown-stall reports.
 * sniff: a "Process: NAME [PID]" line, a "Thread 0x.. N samples" line and
 * a Steps / Duration / Num samples line within the first 64 KiB.
 * header_sniff: the first line is a JSON header whose bug_type is 11, 12,
 * 17, 28 or 29 (whatever follows, binary too).  parse: the header when
 * present, then the text; kind hang or shutdown-stall, format text; a body
 * that is no spindump text is named in a warning and the report marked
 * truncated; fails only on text that is no spindump without a header. */
bool kp__spindump_sniff(const char *data, size_t len);
bool kp__spindump_header_sniff(const char *data, size_t len);
kp_status kp__spindump_parse(kp_report *r, const char *data, size_t len, kp_error *err);

/* text_sleepwake.c (issue 24): a Sleep Wake Failure report's preamble
 * (reason, "Failure code::", a line of '='), before its spindump.
 * preamble: fills r->reason,
 * r->sleep_failure_code and the phase, and out (the suspected bundle and
 * thread the reason names; whether the stackshot is to be ignored);
 * returns the body's offset, 0 when there is no preamble. */
struct kp_sleepwake_pre {
	char *bundle;             /* in r's arena, NULL when none */
	bool has_tid;
	uint64_t tid;
	bool ignore_stackshot;    /* "Please IGNORE the below stackshot" */
};
size_t kp__sleepwake_preamble(kp_report *r, const char *data, size_t len, struct kp_sleepwake_pre *out);

/* ips_extlog.c (issue 24): the body's ExtensiblePanicLog value v into
 * r->extlogs; a malformed part is skipped with a warning.  Fails only when
 * out of memory. */
kp_status kp__ips_extlog(kp_report *r, const cJSON *v, kp_error *err);

/* text_notkernel.c (issue 24 item 6): what a text that is no kernel report
 * is ("an application crash report", "a resource report (wakeups)"), or
 * NULL; data may start with a JSON header line. */
const char *kp__notkernel_sniff(const char *data, size_t len);

/* kcdata.c (issue 31 item 7): an Intel JSON report's
 * macOSProcessedStackshotData (base64 text b64[0..len), line its place for
 * messages), decoded when it is a kcdata stackshot: its tasks, threads,
 * frames and images join r after the panic text is parsed.  Anything else
 * (a delta or compressed stackshot, other bytes) is named in a warning and
 * left as it is.  Fails only when out of memory. */
kp_status kp__kcdata_stackshot(kp_report *r, const char *b64, size_t len, long line);
/* The same on the decoded bytes b[0..n) (the fuzz target's entry). */
kp_status kp__kcdata_decode(kp_report *r, const unsigned char *b, size_t n, long line);

/* The JSON forms (.ips bug_type 210 and Intel JSON). */
kp_status kp__ips_parse(kp_report *r, const char *data, size_t len, unsigned flags, kp_error *err);

#endif
