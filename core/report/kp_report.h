/* kp_report.h: the report model and the parsers that fill it.
 *
 * Ownership: a kp_report owns every string and array reachable from it
 * (strings live in its arena); callers borrow them until kp_report_free(),
 * which frees everything and clears the caller's pointer.
 *
 * Conventions:
 *  - a string field is NULL when the report does not say it;
 *  - a number with a has_* flag (or KP_HAS_* bit) is valid only when set;
 *  - UUIDs are canonical: upper case, 8-4-4-4-12 with dashes;
 *  - a frame's lookup address is seg(dSYM of its image) + offset (see
 *    panic-formats.md section 3); image is -1 for a frame no image claims,
 *    and then only address is meaningful. */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"
#include "kp_lex.h"   /* kp_uuid_canon, kp_parse_u64: the report fields' lexing */

typedef enum kp_format {
	KP_FORMAT_UNKNOWN = 0,
	KP_FORMAT_IPS,        /* .ips: a JSON header line + JSON body (any bug_type) */
	KP_FORMAT_INTEL_JSON, /* body with macOSPanicString, header optional */
	KP_FORMAT_TEXT,       /* legacy .panic text or a bare panic string */
} kp_format;

/* What a report is (issue 14): a panic (bug_type 210 and the text forms),
 * a watchdog (409 SystemWatchdogCrash), a stackshot (288 Stackshot, 509
 * TerminatingStackshot, and any other bug_type that carries processByPid)
 * or a reset (151 ForceReset). */
typedef enum kp_kind {
	KP_KIND_PANIC = 0,
	KP_KIND_WATCHDOG,
	KP_KIND_STACKSHOT,
	KP_KIND_RESET,
	/* issue 24: what a stuck Mac leaves (text_spindump.c) */
	KP_KIND_HANG,         /* .spin 11, .hang 12, watchdog_timeout.spin 28 / 29, a spindump */
	KP_KIND_STALL,        /* .shutdownStall 17 */
	KP_KIND_SLEEPWAKE,    /* Sleep Wake Failure .diag 24 (text_sleepwake.c) */
} kp_kind;

typedef enum kp_arch {
	KP_ARCH_UNKNOWN = 0,
	KP_ARCH_ARM64,
	KP_ARCH_X86_64,
	KP_ARCH_I386,
	KP_ARCH_PPC,
} kp_arch;

/* Image kinds: the .ips letters (K kernel, U kernelcache, T text-exec
 * segment, A absolute, P process, S shared cache, C shared-cache library),
 * plus 'X' for a kext named only by the text "Kernel Extensions in
 * backtrace" section or by an Intel kcdata stackshot's kernel load infos
 * (UUID and unslid base, no name), 'M' for what a paniclog 15 header line names (name
 * "SPTM", "TXM" or "kernelcache", load address as start) and '?' when
 * unknown. */
typedef struct kp_image {
	int index;            /* position in kp_report.images */
	char *uuid;           /* canonical, NULL when unknown */
	char kind;
	char *name;           /* bundle id or "kernel", NULL when unknown */
	char *version;
	bool has_base, has_start, has_end;
	uint64_t base;        /* .ips base (unslid kernelcache address) */
	uint64_t start, end;  /* runtime range from the text, inclusive */
	bool in_backtrace;    /* named in "Kernel Extensions in backtrace" or a panicked frame */
	bool is_dependency;   /* listed only as a "dependency:" line */
	bool user_load;       /* start given by the user (kp_report_set_load) */
} kp_image;

typedef struct kp_frame {
	int image;            /* index into kp_report.images, -1 when none */
	bool has_offset, has_address;
	uint64_t offset;      /* from the image's segment (see header comment) */
	uint64_t address;     /* runtime address as the report printed it */
	char *symbol;         /* symbol the report itself printed (keepsyms), or NULL */
	bool user;            /* from .ips userFrames (after the kernel frames) */
	/* the report's own "+ 0x.." after symbol (text "module : _sym + 0x.."
	 * frames), kept as written: show and the TUI print it */
	bool has_symbol_offset;
	uint64_t symbol_offset;
	/* text: the report named the frame's module mach_kernel, so the frame
	 * is the kernel's even without a slide or text base to place it */
	bool report_kernel;
	/* text: the report named the frame's module ("(in BUNDLE)" of the
	 * stackshot -i text): image is that one even before it has a start */
	bool report_image;
	/* spindump: samples in this frame and below (issue 24) */
	bool has_samples;
	uint64_t samples;
} kp_frame;

/* An array of strings in the report's arena. */
typedef struct kp_strs {
	char **v;
	size_t n;
} kp_strs;

typedef struct kp_thread {
	bool has_id;
	uint64_t id;
	char *name;
	char *state;          /* states joined with ' ', e.g. "TH_WAIT TH_UNINT" */
	bool has_sched_priority, has_base_priority;
	int sched_priority, base_priority;
	char *flags;          /* snapshotFlags joined with ' ' */
	bool panicked;
	int cpu;              /* "Backtrace (CPU n)" number, -1 when not from text */
	kp_frame *frames;     /* innermost first */
	size_t nframes;
	size_t frames_cap;

	/* What explains a hang (stackshot threads; NULL/false when absent). */
	char *qos_effective, *qos_requested, *qos_override;   /* QOS_CLASS_* */
	kp_strs sched_flags;  /* as written, unknown ones (TH_SFLAG_UNKNOWN_0x80000) too */
	char *dispatch_queue; /* dispatch_queue_label, may be "" */
	char *notice;         /* e.g. "Unmapped pages caused truncated backtrace; ..." */
	bool has_continuation, has_wait_event;
	kp_frame continuation, wait_event;   /* not part of frames */
	/* Its process's waitInfo / turnstileInfo line for it: the text after
	 * "thread <tid>: " (waitchain.c). */
	char *waits_on;
	char *turnstile;
	char *service;        /* the port's service label, "(NAME)" in either line */
	/* The direct next hop it waits for: a thread (blocked_tid) or, when only
	 * a pid is named, a process; hops as the turnstile counts them. */
	bool has_blocked_tid, has_blocked_pid, has_hops, has_wait_priority;
	uint64_t blocked_tid;
	int64_t blocked_pid;
	int hops, wait_priority;
	int blocked_proc, blocked_thread;   /* blocked_tid resolved: indices, -1 when absent */
	/* spindump: the thread's samples; its frames are its heaviest stack */
	bool has_samples;
	uint64_t samples;
} kp_thread;

/* A thread by position: processes[proc].threads[thread]. */
typedef struct kp_thread_ref {
	int proc, thread;
} kp_thread_ref;

/* A wait chain: the waiting thread, then each thread it waits for in turn.
 * cycle: the last link waits for a thread earlier in the chain (a deadlock);
 * end_pid: the chain ends at a process named by pid only (has_end_pid);
 * nsame: how many other waiting threads have the same next hop (their
 * chains are this one with another first link, not kept). */
typedef struct kp_chain {
	kp_thread_ref *links;
	size_t nlinks;
	size_t nsame;
	bool cycle;
	bool has_end_pid;
	int64_t end_pid;
} kp_chain;

typedef struct kp_process {
	bool has_pid;
	int64_t pid;
	char *name;
	kp_thread *threads;
	size_t nthreads;
	size_t threads_cap;

	/* stackshot process members (absent: empty / false) */
	kp_strs flags;            /* darwinBG, dirty, ... */
	kp_strs wait_info;        /* waitInfo lines, verbatim ("thread N: ...") */
	kp_strs turnstile_info;   /* turnstileInfo lines, verbatim */
	bool frontmost;
	bool has_resident_bytes, has_user_time, has_system_time, has_suspend_count;
	uint64_t resident_bytes;
	double user_time, system_time;   /* userTimeTask, systemTimeTask (seconds) */
	int suspend_count;
} kp_process;

/* One line of the loaded kext list (names expanded from the Catalina-era
 * abbreviations). */
typedef struct kp_kext {
	char *name;
	char *version;        /* NULL in a "Post-boot loaded kexts:" list (macOS 26) */
	char *uuid;
	bool has_address;
	uint64_t address;
	/* "Post-boot loaded kexts:" entries say "[loaded at 0x6ab7d161]": when
	 * it was loaded, in the seconds of the report's Epoch Time lines */
	bool has_loaded_at;
	uint64_t loaded_at;
} kp_kext;

enum {
	KP_HAS_KERNEL_SLIDE = 1u << 0,
	KP_HAS_KERNEL_TEXT_BASE = 1u << 1,
	KP_HAS_KERNEL_TEXT_EXEC_BASE = 1u << 2,
	KP_HAS_KERNEL_TEXT_EXEC_SLIDE = 1u << 3,
	KP_HAS_KERNELCACHE_BASE = 1u << 4,
	KP_HAS_KERNELCACHE_SLIDE = 1u << 5,
};

/* A report member kpbrowse does not model, kept so nothing is lost: key is
 * "header.NAME" for the .ips header line, else the body member name; value
 * is the string itself for JSON strings, else compact JSON text. */
typedef struct kp_field {
	char *key;
	char *value;
} kp_field;

/* One ExtensiblePanicLog entry of an .ips body (issue 24): the state a
 * kext or dext left for the panic log (IOExtensiblePaniclog), under its
 * owner's UUID (kp_report_owner_name names it). */
typedef struct kp_extlog {
	char *owner_uuid;         /* canonical; the key as written when it is no UUID */
	char *data_id;            /* DataID as written (a number's digits); NULL when absent */
	unsigned char *data;      /* the bytes (strict base64 strings decoded), len of them */
	size_t len;
	bool text;                /* UTF-8 without controls but \n \r \t: shown as text, else as hex */
} kp_extlog;

typedef struct kp_warning {
	long line;            /* 0 when unknown */
	char *msg;
} kp_warning;

typedef struct kp_report {
	kp_format format;
	kp_arch arch;
	char *path;

	kp_kind kind;

	/* header */
	bool has_bug_type;
	int bug_type;
	char *timestamp;
	char *os_version;
	char *incident_id;
	char *product;        /* product (ips) or "System model name" (text) */
	char *kernel_version; /* the "Darwin Kernel Version ..." string */
	char *kernel_uuid;
	char *build;
	char *soc;            /* e.g. "T8112" from RELEASE_ARM64_T8112, else NULL */

	char *panic_string;   /* the whole panic text as the report holds it */
	char *headline;       /* one line: panic message without the panic(...) wrapper */
	/* The text before the panic( line, as written, past the report's own
	 * header (Anonymous UUID, date, "*** Panic Report ***", blank lines):
	 * machine-check state, "Attempting to forcibly halt cpu N", console
	 * lines.  NULL when none, and in JSON reports, whose panic_string
	 * holds it (it is the string as written, from its first line). */
	char *preamble;

	/* panicked task and thread */
	bool has_panicked_pid, has_panicked_thread_id, has_panicked_task;
	int64_t panicked_pid;
	uint64_t panicked_thread_id;
	uint64_t panicked_task;   /* task pointer from "Panicked task 0x..." */
	char *panicked_process;

	/* watchdogs and stackshots: why it was taken and whom it blames (for a
	 * panic, blamed is the panicked process) */
	char *reason;
	char *term_namespace;     /* a watchdog's termination.namespace, e.g. "WATCHDOG" */
	bool has_blamed_pid;
	int64_t blamed_pid;
	char *blamed_process;
	int64_t *frontmost_pids;
	size_t nfrontmost;
	kp_strs notes;            /* notes / reportNotes */
	char *duration;           /* spindump "Duration:" as written, e.g. "10.33s" */
	char *steps;              /* spindump "Steps:" as written, e.g. "34 (100ms sampling interval)" */
	/* Sleep Wake Failure: "Failure code::" as written ("0x00000040 00000027")
	 * and its phase, the low byte of the second word (kp_sleepwake_phase_name) */
	char *sleep_failure_code;
	bool has_sleep_phase;
	unsigned sleep_phase;
	bool has_panic_flags;
	uint64_t panic_flags;     /* panicFlags; kp_report_panic_flag_names decodes it */

	/* a zone exhaustion panic's suspect zone (zone.c): name NULL when none */
	struct {
		char *name;
		bool has_elements, has_bytes;
		uint64_t elements, bytes;
	} zone;

	/* wait chains (waitchain.c): the longest first, each start thread once;
	 * every chain with a cycle is among them */
	kp_chain *chains;
	size_t nchains;

	unsigned addr_flags;      /* KP_HAS_* bits for the fields below */
	uint64_t kernel_slide, kernel_text_base;
	uint64_t kernel_text_exec_base, kernel_text_exec_slide;
	uint64_t kernelcache_base, kernelcache_slide;

	char *last_started_kext;  /* the whole line after "last started/loaded kext at N: " */
	char *last_unloaded_kext;
	bool kexts_skipped;       /* "loaded kexts: (skipped, see boot kernelcache)" */
	kp_kext *kexts;
	size_t nkexts, kexts_cap;

	kp_image *images;
	size_t nimages, images_cap;

	kp_process *processes;    /* the panicked process first when known */
	size_t nprocesses, processes_cap;

	/* Intel JSON: macOSProcessedStackshotData as written (base64 kcdata,
	 * decoded into the processes when it is a stackshot: kcdata.c). */
	char *stackshot_b64;
	size_t stackshot_len;

	kp_extlog *extlogs;       /* ExtensiblePanicLog entries, in report order */
	size_t nextlogs;

	kp_field *fields;         /* unmodelled members, in report order */
	size_t nfields, fields_cap;

	bool truncated;           /* the report ends before its natural end */
	/* parsed with KP_PARSE_SKIM_FRAMES and frames were left out: only the
	 * panicked thread (and any other of its id) has its frames */
	bool frames_skipped;
	kp_warning *warnings;
	size_t nwarnings, warnings_cap;

	struct kp_arena *arena;   /* private */
} kp_report;

/* Parses a report held in memory; path is only recorded and used in
 * messages.  The format is sniffed from the content.  On failure *out is
 * NULL and err says what is wrong and where. */
kp_status kp_report_parse(const char *data, size_t len, const char *path,
                          kp_report **out, kp_error *err);

/* What a parse may leave out, for a caller that reads only part of the
 * model (the index).  KP_PARSE_SKIM_FRAMES: in a panic (.ips or Intel JSON
 * processByPid), the threads other than the one the panic text names
 * panicked keep their id and nothing else (no name, state, priorities,
 * frames...: their members are stepped over, never decoded), and
 * r->frames_skipped says so; nor are wait chains made (r->chains NULL;
 * each process keeps its waitInfo and turnstileInfo lines, but no thread
 * gets its waits_on, turnstile or blocked_* from them).  Every other field
 * is as kp_report_parse makes it: the panicked thread whole, processes,
 * images, kexts, texts, ids.  Other kinds (stackshots, watchdogs, resets,
 * text forms) are parsed whole; a panic whose arch only the frames can
 * tell gets every thread whole (but no wait chains). */
#define KP_PARSE_SKIM_FRAMES 1u
kp_status kp_report_parse_flags(const char *data, size_t len, const char *path, unsigned flags,
                                kp_report **out, kp_error *err);

/* Which parser content goes to, without parsing it: KP_FORMAT_IPS for JSON
 * (a '{' after an optional BOM and blanks; whether it is IPS or Intel JSON,
 * or a panic at all, only kp_report_parse can tell), KP_FORMAT_TEXT for
 * other text, KP_FORMAT_UNKNOWN for empty or binary content (a NUL byte in
 * the first 4 KiB), which no report holds. */
kp_format kp_report_sniff(const char *data, size_t len);

/* Reads path read-only (never modifies it; at most KP_REPORT_MAX_SIZE
 * bytes, one regular file: kp_fs_read_file) and parses it. */
kp_status kp_report_load(const char *path, kp_report **out, kp_error *err);

void kp_report_free(kp_report **r);

const char *kp_format_name(kp_format f);   /* "ips", "intel-json", "text", "unknown" */
const char *kp_arch_name(kp_arch a);       /* "arm64", "x86_64", "i386", "ppc", "unknown" */
/* "panic", "watchdog", "stackshot", "reset", "hang", "shutdown-stall", "sleep-wake" */
const char *kp_kind_name(kp_kind k);
/* An OS as its maker names that release: "iPhone OS" -> "iOS", "Bridge OS"
 * -> "bridgeOS", "Mac OS X" / "OS X" -> "macOS" from 10.12 ("Mac OS X
 * 10.9.3 (13E28)" -> "OS X 10.9.3 (13E28)", 10.6 stays "Mac OS X"); the one
 * label of every view (list, hosts, report view, show, JSON's "os"), whole:
 * "iOS 26.1 (23B85)".  A text naming no OS it knows comes back as written
 * (a bare build "19H2": all the report says); NULL gives "-". */
void kp_os_label(const char *os, char *out, size_t size);

/* A report's date as its timestamp states it: "2024-05-01 10:00:00.00
 * -0700" (.ips, spindump's Date/Time, the Calendar clock's +0000), ISO 8601
 * ("2024-05-01T10:00:00Z", "...-07:00") or ctime's "Wed May  1 10:00:00
 * 2024" (legacy .panic files: the Mac's local time, no zone).  zoned:
 * the text gave an offset (offset_min east of UTC); a date without one is
 * the Mac's wall clock and never UTC. */
typedef struct kp_timestamp {
	int year, month, day, hour, min, sec;   /* as written (fractions dropped) */
	bool zoned;
	int offset_min;
} kp_timestamp;
/* false (out untouched) when ts is NULL or none of these forms. */
bool kp_timestamp_parse(const char *ts, kp_timestamp *out);
/* Seconds since the epoch: UTC when zoned, else the wall clock read as if
 * it were UTC (good for ordering, not for display). */
int64_t kp_timestamp_seconds(const kp_timestamp *t);
/* The one date form of every JSON output: ISO 8601 with the offset the
 * report states ("2026-01-13T12:23:35-05:00", "+00:00" for +0000), or no
 * offset at all when it states none ("2018-08-18T13:08:26"); "" and false
 * when ts cannot be read.  size 32 always suffices. */
bool kp_timestamp_iso(const char *ts, char *out, size_t size);

/* The name of a sleep/wake phase (an xnu PM trace point, e.g. 0x27 "wake:
 * power plane drivers", 0x1f "system sleep (firmware / EFI)"); NULL when
 * unknown.  Static strings. */
const char *kp_sleepwake_phase_name(unsigned phase);

/* The name of the image (or loaded kext) with UUID uuid, NULL when the
 * report names none: an ExtensiblePanicLog entry's owner. */
const char *kp_report_owner_name(const kp_report *r, const char *uuid);

/* The thread marked panicked (or NULL) and the process holding it. */
const kp_thread *kp_report_panicked_thread(const kp_report *r, const kp_process **proc);

/* The thread whose frames explain the report: the panicked one; for the
 * other kinds the first thread of the blamed process, else of the first
 * frontmost one; NULL when none. */
const kp_thread *kp_report_blamed_thread(const kp_report *r, const kp_process **proc);

/* The names of the panicFlags bits set (xnu debug.h; the bits differ
 * between Apple silicon and Intel, so r->arch picks the table; none for an
 * unknown arch): "nested_panic", "companion_panic", "stackshot_succeeded",
 * "stackshot_incomplete", "stackshot_kernel_only", "button_reset",
 * "stackshot_compressed", "exclave_panic", "userspace_initiated"; unknown
 * bits are not named.  Writes at most max static strings; returns how many
 * are set. */
size_t kp_report_panic_flag_names(const kp_report *r, const char **names, size_t max);

/* The thread with id tid (ids are unique system-wide), or NULL. */
const kp_thread *kp_report_thread_by_id(const kp_report *r, uint64_t tid, kp_thread_ref *ref);

/* Places kext bundle at load address addr, as `kextstat` prints it (the
 * start of its __TEXT), for a report that does not say where kexts were
 * loaded (the `stackshot -i` text): the image named bundle (added with kind
 * 'X' when none) gets start addr and user_load, and uuid (canonical) when
 * given and it has none.  Then every kernel frame with an address but no
 * offset, or one placed by an earlier call, is placed again: in the image
 * its text names when that one has a start at or below it, else in the
 * user_load image starting nearest below it (within 16 MiB, the kernel's
 * frames named "mach_kernel" excepted); offset = address - start.  Call
 * once per kext, in any order.  False only when out of memory. */
bool kp_report_set_load(kp_report *r, const char *bundle, uint64_t addr, const char *uuid);

/* Maximum size kp_report_load accepts. */
#define KP_REPORT_MAX_SIZE ((size_t)256 << 20)

#endif
