/* probe.h: kpdisasm's header for kpsignatures: one instruction decoded by Capstone
 * (disasm.c; kpsignatures' sigmatch.c is its one caller) and reduced to what the
 * signature matcher (sigmatch.c) confirms its bit-pattern candidates with:
 * an address formed into a register (arm64 adrp/adr, x86_64 rip-relative
 * lea), an add of an immediate (the low half of an adrp pair), a call.
 *
 * Without Capstone kp__probe_open fails with kp_disasm_missing()'s message.
 * Ownership: a kp__probe is the caller's until kp__probe_close, which
 * clears the pointer; one per thread. */
#ifndef KP_PROBE_H
#define KP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

typedef struct kp__probe kp__probe;

typedef enum kp__pkind {
	KP_PI_OTHER,   /* anything else */
	KP_PI_ADDR,    /* reg <- value: adrp (value the page), adr, lea [rip + disp] */
	KP_PI_ADDI,    /* reg <- reg2 + value: add (immediate, 64-bit) */
	KP_PI_CALL,    /* bl / call to value */
} kp__pkind;

typedef struct kp__pinsn {
	kp__pkind kind;
	unsigned size;   /* bytes; 0 when nothing decodes */
	int reg, reg2;   /* Capstone register ids */
	uint64_t value;
} kp__pinsn;

kp_status kp__probe_open(bool arm64, kp__probe **out, kp_error *err);
/* Decodes the instruction at code[0..len) whose address is addr: false
 * when the bytes decode to nothing. */
bool kp__probe_decode(kp__probe *p, const unsigned char *code, size_t len, uint64_t addr,
                      kp__pinsn *out);
void kp__probe_close(kp__probe **p);

#endif
