/* triage.c: the cause class of a report, from one table of rules
 * (kp_triage.h).  docs/classes.md is this table in words: change both. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_triage.h"

#define R(c, f, p) {KP_CLASS_##c, KP_TF_##f, p, NULL}
#define RG(c, f, p, g) {KP_CLASS_##c, KP_TF_##f, p, g}

/* In class order (the first match wins, so an earlier class is the more
 * specific).  Patterns are case-sensitive and spelled as xnu and the
 * drivers write them; a MESSAGE row reads the panic message only (never
 * the kext lists or backtraces of the panic string, which name every
 * driver loaded).  The rows of "other" sit just before the defaults:
 * panics that are no failure of a class (a forced reset), or that hide
 * theirs (a nested panic). */
static const kp_triage_rule rules[] = {
	/* hardware: the machine reported an error of its own */
	R(HARDWARE, MESSAGE, "Machine Check"),
	R(HARDWARE, MESSAGE, "machine check"),
	R(HARDWARE, PREAMBLE, "IA32_MC"),
	R(HARDWARE, PANIC, "IA32_MCG_STATUS"),
	R(HARDWARE, MESSAGE, "CATERR"),
	R(HARDWARE, MESSAGE, "AMCC"),
	R(HARDWARE, MESSAGE, "PlatformErrorHandler"),
	R(HARDWARE, MESSAGE, "PMGR"),
	R(HARDWARE, MESSAGE, "fabric"),
	R(HARDWARE, MESSAGE, "Fabric"),
	R(HARDWARE, MESSAGE, "link down"),
	R(HARDWARE, MESSAGE, "Link down"),
	R(HARDWARE, MESSAGE, "linkDown"),
	R(HARDWARE, MESSAGE, "MMIO"),
	R(HARDWARE, MESSAGE, "ECC error"),
	R(HARDWARE, MESSAGE, "uncorrectable"),
	R(HARDWARE, MESSAGE, "Uncorrectable"),
	R(HARDWARE, MESSAGE, "thermal"),
	R(HARDWARE, MESSAGE, "Thermal"),
	R(HARDWARE, MESSAGE, "brownout"),
	R(HARDWARE, MESSAGE, "BROWNOUT"),
	R(HARDWARE, MESSAGE, "power fault"),
	/* firmware: a coprocessor or its firmware crashed */
	R(FIRMWARE, MESSAGE, "RTKit"),
	R(FIRMWARE, MESSAGE, "DCP"),
	R(FIRMWARE, MESSAGE, "ANS2"),
	R(FIRMWARE, MESSAGE, "AppleANS"),
	R(FIRMWARE, MESSAGE, "SEP panic"),
	R(FIRMWARE, MESSAGE, "SEP Panic"),
	R(FIRMWARE, MESSAGE, "SEP PANIC"),
	R(FIRMWARE, MESSAGE, "AOP"),
	R(FIRMWARE, MESSAGE, "AppleAVE"),
	R(FIRMWARE, MESSAGE, "AppleAVD"),
	R(FIRMWARE, MESSAGE, "SMC PANIC"),
	R(FIRMWARE, MESSAGE, "SMC panic"),
	R(FIRMWARE, MESSAGE, "firmware crash"),
	/* heap-corruption: the allocator found memory it did not hand out so */
	R(HEAP, MESSAGE, "modified after free"),
	R(HEAP, MESSAGE, "zone_require"),
	R(HEAP, MESSAGE, "zone validation"),
	R(HEAP, MESSAGE, "double free"),
	R(HEAP, MESSAGE, "Double free"),
	R(HEAP, MESSAGE, "size mismatch"),
	R(HEAP, MESSAGE, "Bad tailq"),
	R(HEAP, MESSAGE, "Bad link elm"),
	R(HEAP, MESSAGE, "memory corruption"),
	R(HEAP, MESSAGE, "was not allocated"),
	/* resource-exhaustion: a kernel limit was reached */
	R(RESOURCE, MESSAGE, "exhausted"),
	R(RESOURCE, MESSAGE, "allocation failed"),
	R(RESOURCE, MESSAGE, "failed to allocate"),
	R(RESOURCE, MESSAGE, "cannot allocate"),
	R(RESOURCE, MESSAGE, "out of memory"),
	R(RESOURCE, MESSAGE, "too many"),
	R(RESOURCE, MESSAGE, "stack overflow"),
	R(RESOURCE, MESSAGE, "Double fault"),
	R(RESOURCE, MESSAGE, "double fault"),
	/* lock: a lock held too long, or used against its rules */
	R(LOCK, MESSAGE, "Spinlock"),
	R(LOCK, MESSAGE, "spinlock"),
	R(LOCK, MESSAGE, "lck_"),
	R(LOCK, MESSAGE, "mutex"),
	R(LOCK, MESSAGE, "Mutex"),
	R(LOCK, MESSAGE, "preemption_level"),
	R(LOCK, MESSAGE, "preemption level"),
	R(LOCK, MESSAGE, "Preemption level"),
	R(LOCK, MESSAGE, "acquisition timed out"),
	R(LOCK, MESSAGE, "lock timeout"),
	R(LOCK, MESSAGE, "interrupts disabled"),
	R(LOCK, MESSAGE, "Interrupts disabled"),
	/* null-deref: a fault whose address is near zero */
	RG(NULLDEREF, FAULT_LOW, "far:", "data abort"),
	RG(NULLDEREF, FAULT_LOW, "far:", "instruction fetch abort"),
	RG(NULLDEREF, FAULT_LOW, "CR2:", "page fault"),
	/* bad-pointer: the same anywhere else, and pointer authentication */
	R(BADPTR, MESSAGE, "ptrauth"),
	R(BADPTR, MESSAGE, "Ptrauth"),
	R(BADPTR, MESSAGE, "pointer authentication"),
	R(BADPTR, MESSAGE, "PAC failure"),
	R(BADPTR, MESSAGE, "data abort"),
	R(BADPTR, MESSAGE, "instruction fetch abort"),
	R(BADPTR, MESSAGE, "page fault"),
	R(BADPTR, MESSAGE, "general protection"),
	R(BADPTR, MESSAGE, "invalid opcode"),
	R(BADPTR, MESSAGE, "non-canonical"),
	/* gpu */
	R(GPU, MESSAGE, "IOAccel"),
	R(GPU, MESSAGE, "IOGPU"),
	R(GPU, MESSAGE, "AGX"),
	R(GPU, MESSAGE, "NVDA"),
	R(GPU, MESSAGE, "NVIDIA"),
	R(GPU, MESSAGE, "nvidia"),
	R(GPU, MESSAGE, "AMDRadeon"),
	R(GPU, MESSAGE, "AMDFramebuffer"),
	R(GPU, MESSAGE, "AppleIntelFramebuffer"),
	R(GPU, MESSAGE, "IntelAccelerator"),
	R(GPU, MESSAGE, "Failed to wake the ME"),
	R(GPU, MESSAGE, "forcewake"),
	R(GPU, MESSAGE, "GPU"),
	/* storage-io */
	R(STORAGE, MESSAGE, "nvme"),
	R(STORAGE, MESSAGE, "NVMe"),
	R(STORAGE, MESSAGE, "AHCI"),
	R(STORAGE, MESSAGE, "ahci"),
	R(STORAGE, MESSAGE, "MassStorage"),
	R(STORAGE, MESSAGE, "IOBlockStorage"),
	/* sleep-wake */
	R(SLEEPWAKE, MESSAGE, "Sleep transition"),
	R(SLEEPWAKE, MESSAGE, "Wake transition"),
	R(SLEEPWAKE, MESSAGE, "sleep/wake"),
	R(SLEEPWAKE, MESSAGE, "Sleep/Wake"),
	R(SLEEPWAKE, MESSAGE, "hibernat"),
	R(SLEEPWAKE, KIND, "sleep-wake"),
	/* watchdog */
	R(WATCHDOG, MESSAGE, "watchdog"),
	R(WATCHDOG, MESSAGE, "Watchdog"),
	R(WATCHDOG, MESSAGE, "WDT"),
	R(WATCHDOG, KIND, "watchdog"),
	/* other, before the defaults */
	R(OTHER, MESSAGE, "btn_rst"),
	R(OTHER, MESSAGE, "Nested panic"),
};

const kp_triage_rule *kp_triage_rules(size_t *n)
{
	*n = sizeof rules / sizeof rules[0];
	return rules;
}

static const char *const names[KP_CLASS_COUNT] = {
	"hardware", "firmware", "heap-corruption", "resource-exhaustion", "lock", "null-deref", "bad-pointer",
	"gpu",      "storage-io", "sleep-wake",    "watchdog",            "assertion", "other",
};
static const char *const shorts[KP_CLASS_COUNT] = {
	"hw", "fw", "heap", "exh", "lock", "null", "ptr", "gpu", "io", "sleep", "wdog", "assrt", "other",
};

const char *kp_class_name(kp_class c)
{
	return (unsigned)c < KP_CLASS_COUNT ? names[c] : "other";
}

const char *kp_class_short(kp_class c)
{
	return (unsigned)c < KP_CLASS_COUNT ? shorts[c] : "other";
}

bool kp_class_parse(const char *name, kp_class *out)
{
	for (int c = 0; name && c < KP_CLASS_COUNT; c++)
		if (strcmp(name, names[c]) == 0) {
			*out = (kp_class)c;
			return true;
		}
	return false;
}

/* A line ends at a newline, and at a newline xnu wrote as "\n" (the
 * quoted messages of text reports). */
static bool line_end(const char *p)
{
	return *p == '\n' || *p == '\r' || (p[0] == '\\' && p[1] == 'n');
}

/* The line of s holding s[at], into t->evidence (see kp_triage.h). */
static void evidence(kp_triage *t, const char *s, size_t at)
{
	size_t b = at;
	while (b > 0 && s[b - 1] != '\n' && s[b - 1] != '\r' && !(b >= 2 && s[b - 2] == '\\' && s[b - 1] == 'n'))
		b--;
	while (s[b] == ' ' || s[b] == '\t')
		b++;
	size_t e = b;
	while (s[e] && !line_end(s + e) && e - b < sizeof t->evidence - 1)
		e++;
	if (s[e] && !line_end(s + e))   /* cut: not inside a UTF-8 sequence */
		while (e > b && ((unsigned char)s[e] & 0xC0) == 0x80)
			e--;
	while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
		e--;
	memcpy(t->evidence, s + b, e - b);
	t->evidence[e - b] = '\0';
}

/* The report's message: the headline of a panic, else the reason. */
static const char *message(const kp_report *r, const char **field)
{
	if (r->headline && *r->headline) {
		*field = "headline";
		return r->headline;
	}
	*field = "reason";
	return r->reason && *r->reason ? r->reason : NULL;
}

/* pattern in s followed (after blanks) by a hex address below
 * KP_TRIAGE_NEAR_ZERO: its offset, else -1. */
static long fault_low(const char *s, const char *pattern)
{
	size_t pl = strlen(pattern);
	for (const char *p = strstr(s, pattern); p; p = strstr(p + pl, pattern)) {
		const char *q = p + pl;
		while (*q == ' ' || *q == '\t')
			q++;
		if (q[0] != '0' || (q[1] != 'x' && q[1] != 'X'))
			continue;
		char *end;
		unsigned long long v = strtoull(q + 2, &end, 16);
		if (end != q + 2 && v < KP_TRIAGE_NEAR_ZERO)
			return (long)(p - s);
	}
	return -1;
}

static bool try_rule(const kp_report *r, const kp_triage_rule *rule, kp_triage *t)
{
	const char *mfield, *msg = message(r, &mfield);
	if (rule->guard && (!msg || !strstr(msg, rule->guard)))
		return false;
	const char *s = NULL;
	switch (rule->field) {
	case KP_TF_MESSAGE:
		s = msg;
		t->field = mfield;
		break;
	case KP_TF_PREAMBLE:
		s = r->preamble;
		t->field = "preamble";
		break;
	case KP_TF_PANIC:
	case KP_TF_FAULT_LOW:
		s = r->panic_string;
		t->field = "panic_string";
		break;
	case KP_TF_KIND: {
		const char *k = kp_kind_name(r->kind);
		if (strcmp(k, rule->pattern) != 0)
			return false;
		t->field = "kind";
		snprintf(t->evidence, sizeof t->evidence, "%s", k);
		return true;
	}
	case KP_TF_NONE:
		return false;
	}
	if (!s)
		return false;
	long at;
	if (rule->field == KP_TF_FAULT_LOW) {
		at = fault_low(s, rule->pattern);
	} else {
		const char *p = strstr(s, rule->pattern);
		at = p ? (long)(p - s) : -1;
	}
	if (at < 0)
		return false;
	evidence(t, s, (size_t)at);
	return true;
}

void kp_triage_classify(const kp_report *r, kp_triage *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (try_rule(r, &rules[i], out)) {
			out->cls = rules[i].cls;
			out->rule = (int)i;
			return;
		}
	out->rule = -1;
	const char *field, *msg = message(r, &field);
	if (r->kind == KP_KIND_PANIC && msg) {
		out->cls = KP_CLASS_ASSERTION;
		out->field = field;
		evidence(out, msg, 0);
		return;
	}
	out->cls = KP_CLASS_OTHER;
	out->field = NULL;
	out->evidence[0] = '\0';
}
