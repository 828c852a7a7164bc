/* kp_triage.h: the cause class of a report (issue 34 item 1): what kind of
 * failure it is (hardware or our driver?) and the line that says so.
 *
 * The classes, most specific first: when the rules of two classes match,
 * the earlier one wins.  Every rule is a row of one table in triage.c
 * ({class, field, pattern, guard}), tried in class order; the first that
 * matches decides.  docs/classes.md explains each class for users and
 * names the real report each rule was tested on (or says it has none).
 *
 * Ownership: kp_triage_classify fills a caller's kp_triage, which copies
 * its evidence (nothing borrowed from the report); names are static.
 * Call it on a parsed report at any time; it never fails. */
#ifndef KP_TRIAGE_H
#define KP_TRIAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_report.h"

typedef enum kp_class {
	KP_CLASS_HARDWARE = 0,   /* machine check, AMCC/PMGR/platform errors, PCIe link down, ECC, thermal */
	KP_CLASS_FIRMWARE,       /* a coprocessor or its firmware crashed: RTKit, DCP, ANS, SEP, AOP, SMC */
	KP_CLASS_HEAP,           /* modified after free, zone_require, double free, bad queue links */
	KP_CLASS_RESOURCE,       /* zone map exhausted, allocation failures, stack overflow */
	KP_CLASS_LOCK,           /* spinlock timeouts, misused mutexes, preemption level */
	KP_CLASS_NULLDEREF,      /* a fault at an address near zero */
	KP_CLASS_BADPTR,         /* a fault at a wild address, pointer authentication */
	KP_CLASS_GPU,            /* graphics driver hangs, restarts and faults */
	KP_CLASS_STORAGE,        /* NVMe/AHCI/USB storage timeouts and controller faults */
	KP_CLASS_SLEEPWAKE,      /* sleep/wake and hibernation transitions */
	KP_CLASS_WATCHDOG,       /* watchdog timeouts with no more specific cause */
	KP_CLASS_ASSERTION,      /* an explicit panic message that fits nothing above */
	KP_CLASS_OTHER,          /* anything else, non-panic reports among them */
	KP_CLASS_COUNT
} kp_class;

/* The field of the report a rule reads; kp_triage.field names it. */
typedef enum kp_triage_field {
	KP_TF_NONE = 0,          /* nothing matched: the class is the default */
	KP_TF_MESSAGE,           /* the panic message (headline), else the reason */
	KP_TF_PREAMBLE,          /* the text before panic( (machine-check banks) */
	KP_TF_PANIC,             /* a line of the whole panic string (registers) */
	KP_TF_FAULT_LOW,         /* pattern then a hex address below KP_TRIAGE_NEAR_ZERO */
	KP_TF_KIND,              /* the report kind's name, whole (kp_kind_name) */
} kp_triage_field;

/* A fault address below this is a null dereference (a member of a NULL
 * struct pointer: xnu never maps the first pages). */
#define KP_TRIAGE_NEAR_ZERO 0x10000u

#define KP_TRIAGE_EVIDENCE_MAX 256

typedef struct kp_triage {
	kp_class cls;
	/* the field that decided as JSON names it: "headline", "reason",
	 * "preamble", "panic_string", "kind"; NULL for the default */
	const char *field;
	int rule;                /* index into the table, -1 for the default */
	/* The line that decided, as the report wrote it (leading blanks
	 * dropped; cut at a newline, a written "\n" or KP_TRIAGE_EVIDENCE_MAX-1
	 * bytes at a character boundary); "" when none.  Untrusted text: print
	 * it only through kp_sanitize*() or the JSON writer. */
	char evidence[KP_TRIAGE_EVIDENCE_MAX];
} kp_triage;

/* Classifies r: the first rule that matches, else assertion for a panic
 * with a message, else other. */
void kp_triage_classify(const kp_report *r, kp_triage *out);

/* "hardware", "firmware", "heap-corruption", "resource-exhaustion",
 * "lock", "null-deref", "bad-pointer", "gpu", "storage-io", "sleep-wake",
 * "watchdog", "assertion", "other": the ids of JSON, the index and
 * list --class. */
const char *kp_class_name(kp_class c);
/* At most 5 columns, for the panic list: "hw", "fw", "heap", "exh", "lock",
 * "null", "ptr", "gpu", "io", "sleep", "wdog", "assrt", "other". */
const char *kp_class_short(kp_class c);
/* The class of an id (as kp_class_name spells it); false when none. */
bool kp_class_parse(const char *name, kp_class *out);

/* The rule table, read only (tests and docs walk it). */
typedef struct kp_triage_rule {
	kp_class cls;
	kp_triage_field field;
	const char *pattern;     /* case-sensitive, as xnu and drivers write it; "" any text */
	const char *guard;       /* NULL, or a text the message must hold too */
} kp_triage_rule;
const kp_triage_rule *kp_triage_rules(size_t *n);

#endif
