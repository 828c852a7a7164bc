/* disasm.c: kp_disasm.h, the one file that includes Capstone.
 *
 * arm64 instructions are 4 bytes, so the window before an address is a
 * plain step back.  x86_64 cannot be decoded backwards: the window starts
 * at the enclosing symbol (decoded forward to the address, the last count/2
 * instructions kept), else at the furthest of the 64 bytes before the
 * address from which a forward decode lands exactly on it.  Bytes that
 * decode to nothing become one "(bad)" unit (4 bytes arm64, 1 x86_64), as
 * llvm-objdump goes on past them. */
#include "kp_disasm.h"
#include "kp_lex.h"
#include "kp_macho.h"
#include "probe.h"
#include "kp_demangle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef KP_HAVE_CAPSTONE
#if defined(__has_include)
#if __has_include(<capstone/capstone.h>)
#include <capstone/capstone.h>
#else
#include <capstone.h>
#endif
#else
#include <capstone/capstone.h>
#endif
/* Capstone 6 renamed ARM64 to AArch64 */
#if CS_API_MAJOR >= 6
#define KP_CS_ARCH_ARM64 CS_ARCH_AARCH64
#else
#define KP_CS_ARCH_ARM64 CS_ARCH_ARM64
#endif

/* Capstone is loaded (dlopen) when the first disassembly is asked for, so
 * no other run of kpbrowse pays for it at start-up: the cs_* names below
 * call through kp_cs, filled by cs_load.  A cs_* function used here must be
 * listed in CS_FUNCS (and #defined after it); Capstone is not linked. */
#include "kp_dl.h"
#include <pthread.h>

#define CS_FUNCS(X) \
	X(cs_open) X(cs_close) X(cs_option) X(cs_strerror) X(cs_malloc) X(cs_free) \
	X(cs_disasm_iter) X(cs_insn_group)
#define CS_MEMBER(f) __typeof__(f) *f;
static struct { CS_FUNCS(CS_MEMBER) } kp_cs;
#undef CS_MEMBER

static pthread_once_t cs_once = PTHREAD_ONCE_INIT;
static bool cs_loaded;
static char cs_why[300];

/* The library the build found (KP_CAPSTONE_PATH, from pkg-config), then
 * the run-time names of Capstone 5 and 4. */
static const char *const cs_names[] = {
#ifdef KP_CAPSTONE_PATH
	KP_CAPSTONE_PATH,
#endif
#ifdef __APPLE__
	"libcapstone.5.dylib", "libcapstone.4.dylib", "libcapstone.dylib",
#else
	"libcapstone.so.5", "libcapstone.so.4",
#endif
};

#define CS_ENTRY(f) {#f, (void **)&kp_cs.f},
static const kp_dl_sym cs_syms[] = {CS_FUNCS(CS_ENTRY)};
#undef CS_ENTRY

static void cs_load_once(void)
{
	const char *tried, *e;
	void *h = kp_dl_open(cs_names, sizeof cs_names / sizeof cs_names[0], &tried, &e);
	if (!h) {
		snprintf(cs_why, sizeof cs_why, "cannot load Capstone (%s): %s", tried, e);
		return;
	}
	const char *missing = kp_dl_syms(h, cs_syms, sizeof cs_syms / sizeof cs_syms[0]);
	if (missing) {
		snprintf(cs_why, sizeof cs_why, "cannot load Capstone: %s is missing", missing);
		return;
	}
	cs_loaded = true;
}

static kp_status cs_load(kp_error *err)
{
	pthread_once(&cs_once, cs_load_once);
	if (!cs_loaded)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "%s",
		                    cs_why[0] ? cs_why : "cannot load Capstone");
	return KP_OK;
}

#define cs_open (kp_cs.cs_open)
#define cs_close (kp_cs.cs_close)
#define cs_option (kp_cs.cs_option)
#define cs_strerror (kp_cs.cs_strerror)
#define cs_malloc (kp_cs.cs_malloc)
#define cs_free (kp_cs.cs_free)
#define cs_disasm_iter (kp_cs.cs_disasm_iter)
#define cs_insn_group (kp_cs.cs_insn_group)
#endif

#define X86_SYNC_BYTES 64u        /* how far back a symbol-less x86_64 window may start */
#define X86_SYMBOL_REACH (1u << 20) /* decode from the symbol only when it is this close */

const char *kp_disasm_missing(void)
{
	return "this kpbrowse was built without Capstone: install it (Debian: apt install "
	       "libcapstone-dev; macOS: brew install capstone; or scripts/install-deps.sh) and rebuild";
}

void kp_disasm_free(kp_disasm *d)
{
	if (!d)
		return;
	free(d->insns);
	memset(d, 0, sizeof *d);
}

void kp_disasm_format(const kp_disasm_insn *in, char *buf, size_t size)
{
	char ops[sizeof in->operands];
	snprintf(ops, sizeof ops, "%s", in->operands);
	if (in->has_target) {
		/* the target is the last operand: Capstone writes it "#0x..." on arm64 */
		char *last = strrchr(ops, ' ');
		last = last ? last + 1 : ops;
		if (last[0] == '#')
			memmove(last, last + 1, strlen(last));
	}
	int n = snprintf(buf, size, "%s%s%s", in->mnemonic, ops[0] ? " " : "", ops);
	if (in->has_target && in->target_name[0] && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " <%s>", in->target_name);
}

/* Where branch targets get their names: the decoded file's symbol table,
 * then the dSYM's (its copy of the same nlist entries, when the binary
 * was stripped). */
typedef struct namer {
	kp_macho *m[2];
	const kp_macho_slice *sl[2];
} namer;

#ifdef KP_HAVE_CAPSTONE

static void name_target(const namer *nm, uint64_t addr, char *out, size_t size)
{
	out[0] = '\0';
	for (int k = 0; k < 2; k++) {
		const char *name;
		uint64_t off;
		bool stub = false;
		if (!nm->m[k])
			continue;
		if (!kp_macho_symbol(nm->m[k], nm->sl[k], addr, &name, &off)) {
			if (!kp_macho_stub_symbol(nm->sl[k], addr, &name))
				continue;
			stub = true;
		}
		char *dm = kp_demangle(name);
		const char *shown = dm ? dm : name[0] == '_' ? name + 1 : name;
		if (stub)
			snprintf(out, size, "stub for %s", shown);
		else if (off)
			snprintf(out, size, "%s+0x%" PRIx64, shown, off);
		else
			snprintf(out, size, "%s", shown);
		free(dm);
		return;
	}
}

typedef struct decoder {
	csh h;
	cs_insn *insn;
	bool arm;
	const unsigned char *data;   /* the section's bytes */
	uint64_t start, size;        /* its addresses */
} decoder;

/* Decodes one instruction at addr into in (when non-NULL); returns its
 * size, 0 at the section's end.  Undecodable bytes are one "(bad)" unit. */
static unsigned decode_one(decoder *d, uint64_t addr, kp_disasm_insn *in)
{
	if (addr < d->start || addr - d->start >= d->size)
		return 0;
	const uint8_t *code = d->data + (addr - d->start);
	size_t left = (size_t)(d->size - (addr - d->start));
	uint64_t a = addr;
	if (cs_disasm_iter(d->h, &code, &left, &a, d->insn)) {
		const cs_insn *c = d->insn;
		if (in) {
			memset(in, 0, sizeof *in);
			in->address = addr;
			in->nbytes = c->size < sizeof in->bytes ? c->size : sizeof in->bytes;
			memcpy(in->bytes, c->bytes, in->nbytes);
			snprintf(in->mnemonic, sizeof in->mnemonic, "%s", c->mnemonic);
			snprintf(in->operands, sizeof in->operands, "%s", c->op_str);
			if (c->detail && cs_insn_group(d->h, c, CS_GRP_BRANCH_RELATIVE)) {
				/* the target is the last immediate operand */
#if CS_API_MAJOR >= 6
				if (d->arm)
					for (int k = 0; k < c->detail->aarch64.op_count; k++)
						if (c->detail->aarch64.operands[k].type == AARCH64_OP_IMM)
							in->has_target = true,
							in->target = (uint64_t)c->detail->aarch64.operands[k].imm;
#else
				if (d->arm)
					for (int k = 0; k < c->detail->arm64.op_count; k++)
						if (c->detail->arm64.operands[k].type == ARM64_OP_IMM)
							in->has_target = true,
							in->target = (uint64_t)c->detail->arm64.operands[k].imm;
#endif
				if (!d->arm)
					for (int k = 0; k < c->detail->x86.op_count; k++)
						if (c->detail->x86.operands[k].type == X86_OP_IMM)
							in->has_target = true,
							in->target = (uint64_t)c->detail->x86.operands[k].imm;
			}
		}
		return c->size;
	}
	unsigned unit = d->arm ? 4 : 1;
	if (unit > left)
		unit = (unsigned)left;
	if (in) {
		memset(in, 0, sizeof *in);
		in->address = addr;
		in->nbytes = unit;
		memcpy(in->bytes, d->data + (addr - d->start), unit);
		snprintf(in->mnemonic, sizeof in->mnemonic, "(bad)");
	}
	return unit;
}

/* Whether a forward decode from `from` lands on addr exactly. */
static bool lands_on(decoder *d, uint64_t from, uint64_t addr)
{
	while (from < addr) {
		unsigned n = decode_one(d, from, NULL);
		if (n == 0)
			return false;
		from += n;
	}
	return from == addr;
}

/* The first address of the window: before instructions before addr. */
static uint64_t window_start(decoder *d, kp_macho *m, const kp_macho_slice *sl, uint64_t addr,
                             size_t before)
{
	if (d->arm) {
		uint64_t back = (addr - d->start) / 4;
		return addr - 4 * (back < before ? back : before);
	}
	uint64_t from = addr;
	const char *name;
	uint64_t off;
	if (kp_macho_symbol(m, sl, addr, &name, &off) && off <= X86_SYMBOL_REACH &&
	    addr - off >= d->start) {
		from = addr - off;
	} else {
		from = addr;
		for (uint64_t k = X86_SYNC_BYTES; k > 0; k--)
			if (addr - d->start >= k && lands_on(d, addr - k, addr)) {
				from = addr - k;
				break;
			}
	}
	/* forward to addr, remembering the last `before` starts */
	uint64_t *ring = before ? calloc(before, sizeof *ring) : NULL;
	size_t seen = 0;
	uint64_t a = from;
	while (a < addr) {
		unsigned n = decode_one(d, a, NULL);
		if (n == 0 || a + n > addr)
			break;   /* the last instruction holds addr */
		if (ring)
			ring[seen % before] = a;
		seen++;
		a += n;
	}
	uint64_t start = a;
	if (ring && seen)
		start = seen >= before ? ring[seen % before] : ring[0];
	free(ring);
	return start;
}

/* Decodes count instructions around addr in section [start, start+size). */
static kp_status decode(const namer *nm, kp_macho *m, const kp_macho_slice *sl, bool arm,
                        const unsigned char *data, uint64_t start, uint64_t size, uint64_t addr,
                        size_t count, kp_disasm *out, kp_error *err)
{
	decoder d = {.arm = arm, .data = data, .start = start, .size = size};
	kp_status st = cs_load(err);
	if (st != KP_OK)
		return st;
	cs_err ce = arm ? cs_open(KP_CS_ARCH_ARM64, CS_MODE_ARM, &d.h) : cs_open(CS_ARCH_X86, CS_MODE_64, &d.h);
	if (ce != CS_ERR_OK)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "Capstone cannot decode %s: %s", sl->arch,
		                    cs_strerror(ce));
	cs_option(d.h, CS_OPT_DETAIL, CS_OPT_ON);
	d.insn = cs_malloc(d.h);
	out->insns = d.insn ? calloc(count, sizeof *out->insns) : NULL;
	if (!out->insns) {
		if (d.insn)
			cs_free(d.insn, 1);
		cs_close(&d.h);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	size_t before = count / 2;
	uint64_t a = window_start(&d, m, sl, addr, before);
	while (out->n < count) {
		kp_disasm_insn *in = &out->insns[out->n];
		unsigned k = decode_one(&d, a, in);
		if (k == 0)
			break;   /* the section ends */
		in->marked = addr >= a && addr - a < k;
		if (in->has_target)
			name_target(nm, in->target, in->target_name, sizeof in->target_name);
		out->n++;
		a += k;
	}
	cs_free(d.insn, 1);
	cs_close(&d.h);
	out->address = addr;
	snprintf(out->arch, sizeof out->arch, "%s", sl->arch);
	return KP_OK;
}

bool kp_disasm_available(void)
{
	return true;
}

/* ---- probe.h: one instruction for the signature matcher ---- */

#if CS_API_MAJOR >= 6
#define KP_A64(c) ((c)->detail->aarch64)
#define KP_A64_REG AARCH64_OP_REG
#define KP_A64_IMM AARCH64_OP_IMM
#define KP_A64_LSL AARCH64_SFT_LSL
#else
#define KP_A64(c) ((c)->detail->arm64)
#define KP_A64_REG ARM64_OP_REG
#define KP_A64_IMM ARM64_OP_IMM
#define KP_A64_LSL ARM64_SFT_LSL
#endif

struct kp__probe {
	csh h;
	cs_insn *insn;
	bool arm;
};

kp_status kp__probe_open(bool arm64, kp__probe **out, kp_error *err)
{
	*out = NULL;
	kp_status st = cs_load(err);
	if (st != KP_OK)
		return st;
	kp__probe *p = calloc(1, sizeof *p);
	if (!p)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	p->arm = arm64;
	cs_err ce = arm64 ? cs_open(KP_CS_ARCH_ARM64, CS_MODE_ARM, &p->h) : cs_open(CS_ARCH_X86, CS_MODE_64, &p->h);
	if (ce != CS_ERR_OK) {
		free(p);
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "Capstone cannot decode %s: %s",
		                    arm64 ? "arm64" : "x86_64", cs_strerror(ce));
	}
	cs_option(p->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(p->insn = cs_malloc(p->h))) {
		cs_close(&p->h);
		free(p);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	*out = p;
	return KP_OK;
}

void kp__probe_close(kp__probe **pp)
{
	if (!pp || !*pp)
		return;
	cs_free((*pp)->insn, 1);
	cs_close(&(*pp)->h);
	free(*pp);
	*pp = NULL;
}

static void probe_arm(const cs_insn *c, kp__pinsn *out)
{
	const char *mn = c->mnemonic;
	int n = KP_A64(c).op_count;
	__typeof__(KP_A64(c).operands[0]) *o = KP_A64(c).operands;
	if ((strcmp(mn, "adrp") == 0 || strcmp(mn, "adr") == 0) && n == 2 && o[0].type == KP_A64_REG &&
	    o[1].type == KP_A64_IMM) {
		out->kind = KP_PI_ADDR;
		out->reg = (int)o[0].reg;
		out->value = (uint64_t)o[1].imm;
	} else if (strcmp(mn, "add") == 0 && n == 3 && o[0].type == KP_A64_REG &&
	           o[1].type == KP_A64_REG && o[2].type == KP_A64_IMM) {
		out->kind = KP_PI_ADDI;
		out->reg = (int)o[0].reg;
		out->reg2 = (int)o[1].reg;
		out->value = (uint64_t)o[2].imm;
		if (o[2].shift.type == KP_A64_LSL)
			out->value <<= o[2].shift.value;
	} else if (strcmp(mn, "bl") == 0 && n == 1 && o[0].type == KP_A64_IMM) {
		out->kind = KP_PI_CALL;
		out->value = (uint64_t)o[0].imm;
	}
}

static void probe_x86(const cs_insn *c, uint64_t addr, kp__pinsn *out)
{
	const cs_x86 *x = &c->detail->x86;
	if (strcmp(c->mnemonic, "lea") == 0 && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	    x->operands[1].type == X86_OP_MEM && x->operands[1].mem.base == X86_REG_RIP &&
	    x->operands[1].mem.index == X86_REG_INVALID) {
		out->kind = KP_PI_ADDR;
		out->reg = (int)x->operands[0].reg;
		out->value = addr + c->size + (uint64_t)x->operands[1].mem.disp;
	} else if (strcmp(c->mnemonic, "call") == 0 && x->op_count == 1 &&
	           x->operands[0].type == X86_OP_IMM) {
		out->kind = KP_PI_CALL;
		out->value = (uint64_t)x->operands[0].imm;
	}
}

bool kp__probe_decode(kp__probe *p, const unsigned char *code, size_t len, uint64_t addr,
                      kp__pinsn *out)
{
	memset(out, 0, sizeof *out);
	const uint8_t *c = code;
	uint64_t a = addr;
	if (!cs_disasm_iter(p->h, &c, &len, &a, p->insn))
		return false;
	out->size = p->insn->size;
	if (p->insn->detail) {
		if (p->arm)
			probe_arm(p->insn, out);
		else
			probe_x86(p->insn, addr, out);
	}
	return true;
}

#else /* no Capstone */

struct kp__probe {
	int unused;
};

kp_status kp__probe_open(bool arm64, kp__probe **out, kp_error *err)
{
	(void)arm64;
	*out = NULL;
	return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kp_disasm_missing());
}

bool kp__probe_decode(kp__probe *p, const unsigned char *code, size_t len, uint64_t addr,
                      kp__pinsn *out)
{
	(void)p, (void)code, (void)len, (void)addr;
	memset(out, 0, sizeof *out);
	return false;
}

void kp__probe_close(kp__probe **pp)
{
	if (pp)
		*pp = NULL;
}

bool kp_disasm_available(void)
{
	return false;
}

static kp_status decode(const namer *nm, kp_macho *m, const kp_macho_slice *sl, bool arm,
                        const unsigned char *data, uint64_t start, uint64_t size, uint64_t addr,
                        size_t count, kp_disasm *out, kp_error *err)
{
	(void)nm, (void)m, (void)sl, (void)arm, (void)data, (void)start, (void)size, (void)addr;
	(void)count, (void)out;
	return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kp_disasm_missing());
}

#endif

/* What one file could do for addr. */
enum fit { FIT_CODE, FIT_NO_BYTES, FIT_OUTSIDE };

static enum fit section_for(const kp_macho_slice *sl, uint64_t addr, const unsigned char **data,
                            uint64_t *start, uint64_t *size)
{
	const char *seg, *sect;
	if (!kp_macho_section_at(sl, addr, &seg, &sect, data, size, start))
		return FIT_OUTSIDE;
	return *data ? FIT_CODE : FIT_NO_BYTES;
}

static kp_status arch_check(const kp_macho_slice *sl, bool *arm, kp_error *err)
{
	*arm = strncmp(sl->arch, "arm64", 5) == 0;
	if (!*arm && strcmp(sl->arch, "x86_64") != 0)
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1,
		                    "cannot disassemble %s code: arm64 and x86_64 only", sl->arch);
	return KP_OK;
}

static kp_status finish(kp_macho *m, const char *path, kp_status st, kp_disasm *out, kp_error *err)
{
	if (st == KP_OK && kp_macho_damaged(m)) {
		kp_disasm_free(out);
		return kp_error_set(err, KP_ERR_FORMAT, 0, -1, "%s changed while read (truncated)", path);
	}
	if (st == KP_OK) {
		size_t n = strlen(path);
		n = n < sizeof out->path ? n : sizeof out->path - 1;   /* a long path is cut */
		memcpy(out->path, path, n);
		out->path[n] = '\0';
	}
	return st;
}

static size_t clamp_count(size_t count)
{
	return count == 0 ? 1 : count > KP_DISASM_MAX ? KP_DISASM_MAX : count;
}

kp_status kp_disasm_file(const char *path, const char *arch, uint64_t addr, size_t count,
                         kp_disasm *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	if (!kp_disasm_available())
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kp_disasm_missing());
	kp_macho *m = NULL;
	kp_status st = kp_macho_open(path, &m, err);
	if (st != KP_OK)
		return st;
	const kp_macho_slice *sl = kp_macho_find_arch(m, arch);
	bool arm = false;
	const unsigned char *data = NULL;
	uint64_t start = 0, size = 0;
	if (!sl)
		st = arch ? kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no %s slice in %s", arch, path)
		          : kp_error_set(err, KP_ERR_USAGE, 0, -1, "a universal file: choose a slice");
	else if ((st = arch_check(sl, &arm, err)) != KP_OK)
		;
	else if (section_for(sl, addr, &data, &start, &size) == FIT_OUTSIDE)
		st = kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "0x%" PRIx64 " is outside every section of %s",
		                  addr, path);
	else if (!data)
		st = kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no code bytes at 0x%" PRIx64 " in %s", addr,
		                  path);
	else {
		namer nm = {{m, NULL}, {sl, NULL}};
		st = decode(&nm, m, sl, arm, data, start, size, addr, clamp_count(count), out, err);
	}
	st = finish(m, path, st, out, err);
	kp_macho_close(&m);
	return st;
}

/* The binaries a dSYM stands for: Foo.kext.dSYM/Contents/Resources/DWARF/Foo
 * -> Foo.kext/Contents/MacOS/Foo, Foo.kext/Foo; kernel.dSYM/... -> kernel. */
static size_t siblings(const char *dsym, char out[][1024], size_t max)
{
	const char *b = strstr(dsym, ".dSYM/");
	if (!b || max < 2)
		return 0;
	const char *name = strrchr(dsym, '/') + 1;
	int base = (int)(b - dsym);
	size_t n = 0;
	struct stat st;
	if (snprintf(out[n], sizeof out[n], "%.*s", base, dsym) >= (int)sizeof out[n])
		return 0;
	if (stat(out[n], &st) == 0 && S_ISDIR(st.st_mode)) {
		int a = snprintf(out[n], sizeof out[n], "%.*s/Contents/MacOS/%s", base, dsym, name);
		int b = snprintf(out[n + 1], sizeof out[n + 1], "%.*s/%s", base, dsym, name);
		return a < (int)sizeof out[n] && b < (int)sizeof out[n] ? 2 : 0;
	}
	return 1;
}

/* Tries path as the file holding uuid's code at addr: KP_OK (out filled),
 * KP_ERR_NOTFOUND with *fit saying why not, or another error to report. */
static kp_status try_file(const char *path, const char *uuid, const char *dsym, uint64_t addr,
                          size_t count, enum fit *fit, kp_disasm *out, kp_error *err)
{
	kp_macho *m = NULL, *dm = NULL;
	*fit = FIT_NO_BYTES;
	if (kp_macho_open(path, &m, NULL) != KP_OK)
		return KP_ERR_NOTFOUND;
	const kp_macho_slice *sl = kp_macho_find_uuid(m, uuid);
	const unsigned char *data = NULL;
	uint64_t start = 0, size = 0;
	bool arm = false;
	kp_status st = KP_ERR_NOTFOUND;
	if (sl && (*fit = section_for(sl, addr, &data, &start, &size)) == FIT_CODE &&
	    (st = arch_check(sl, &arm, err)) == KP_OK) {
		namer nm = {{m, NULL}, {sl, NULL}};
		if (dsym && strcmp(dsym, path) != 0 && kp_macho_open(dsym, &dm, NULL) == KP_OK) {
			nm.m[1] = dm;
			nm.sl[1] = kp_macho_find_uuid(dm, uuid);
			if (!nm.sl[1])
				nm.m[1] = NULL;
		}
		st = finish(m, path, decode(&nm, m, sl, arm, data, start, size, addr, count, out, err), out,
		            err);
	}
	kp_macho_close(&dm);
	kp_macho_close(&m);
	return st;
}

kp_status kp_disasm_image(const char *uuid, const char *dsym, uint64_t addr, size_t count,
                          kp_disasm_find_fn *find, void *ctx, kp_disasm *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	if (!kp_disasm_available())
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kp_disasm_missing());
	count = clamp_count(count);
	/* the candidates in order, each tried once */
	char cand[3][1024];
	size_t nc = 0;
	snprintf(cand[nc++], sizeof cand[0], "%s", dsym);
	nc += siblings(cand[0], cand + nc, 3 - nc);
	char looked[200] = "";
	bool outside = false;
	kp_status st;
	enum fit fit;
	for (size_t k = 0;; k++) {
		const char *path = NULL;
		if (k < nc) {
			path = cand[k];
		} else {
			path = find ? find(ctx, uuid, k - nc) : NULL;
			if (!path)
				break;
			bool dup = false;
			for (size_t j = 0; j < nc; j++)
				dup |= strcmp(cand[j], path) == 0;
			if (dup)
				continue;
		}
		st = try_file(path, uuid, cand[0], addr, count, &fit, out, err);
		if (st != KP_ERR_NOTFOUND)
			return st;
		outside |= fit == FIT_OUTSIDE;
		if (k > 0 && strlen(looked) + strlen(path) + 3 + sizeof ", …" < sizeof looked)
			snprintf(looked + strlen(looked), sizeof looked - strlen(looked), "%s%s",
			         looked[0] ? ", " : "", path);
		else if (k > 0 && !strstr(looked, "…"))
			snprintf(looked + strlen(looked), sizeof looked - strlen(looked), "%s…",
			         looked[0] ? ", " : "");   /* the message has room for a few paths */
	}
	if (outside)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1,
		                    "0x%" PRIx64 " is outside every section of the image %s", addr, uuid);
	return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1,
	                    "no code bytes: the binary with UUID %s was not found (looked in %s%sthe "
	                    "dSYM search folders)",
	                    uuid, looked, looked[0] ? ", " : "");
}
