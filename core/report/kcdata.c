/* kcdata.c: the stackshot of an Intel JSON report (macOSProcessedStackshotData,
 * macOS 10.15 .. 15), a base64 kcdata buffer, into the report model
 * (contract: kp__kcdata_stackshot in report_build.h).
 *
 * The format (xnu osfmk/kern/kcdata.h and kern/stack_snapshot.h, public):
 * a run of items, each {u32 type, u32 size, u64 flags} then size payload
 * bytes, little-endian; writers pad payloads to 16 bytes and count the
 * padding in size.  The first item's type says what the buffer is
 * (KC_BEGIN_*), the last is KC_BUFFER_END.  CONTAINER_BEGIN / END (payload:
 * the container's type, flags: its id) bracket a task (TASK: a
 * task_snapshot with pid and p_comm, the task's image load infos, then its
 * threads) or a thread (THREAD: a thread_snapshot with id, state and
 * priorities, a name, kernel then user return addresses).  An array item
 * (type 0x11, or 0x20 + n with n padding bytes at its end) holds its element
 * type in the high 32 bits of its flags and its count in the low 32.
 *
 * What is read: tasks (pid, name), threads (id, state, base and scheduled
 * priority, name, dispatch queue label, continuation), return addresses in
 * the 32- and 64-bit LR and frame forms, load infos (32/64-bit and the
 * kernelcache's) and the shared cache's.  Other item types are skipped
 * silently (xnu adds new ones every release); malformed ones are named in
 * warnings with their byte in the decoded stackshot.
 *
 * Addresses: xnu writes kernel return addresses and kernel image load
 * addresses unslid (VM_KERNEL_UNSLIDE), so a kernel frame's offset is taken
 * from the unslid image base and its address is made runtime by adding the
 * text's "Kernel slide" (when it has one).  A load info gives an image's
 * start, not its end: a frame belongs to the image starting nearest below
 * it, within KC_IMAGE_SPAN (KC_CACHE_SPAN for the shared cache), among the
 * kernel's images for kernel frames and its task's for user frames.
 *
 * The panic text is parsed first and keeps its panicked process and thread
 * in front: the task with its pid (or, when the text names no pid, its
 * name) fills that process, and the thread with the text's panicked thread
 * id fills in the text thread's state and priorities but keeps its frames
 * (mapped to the kexts the text lists).
 *
 * Bounds: the item walk is linear in the buffer, nesting is at most
 * KC_MAX_DEPTH, arrays must fit their item, and the model caps of
 * report_build.h hold; a structural error (an item past the end, an end
 * that closes no open container, nesting too deep) ends the walk, keeping
 * what was read before it. */
#include "kp_base64.h"
#include "kp_bytes.h"
#include "report_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KC_BEGIN_STACKSHOT 0x59a25807u
#define KC_BEGIN_DELTA 0xde17a59au
#define KC_BEGIN_COMPRESSED 0x434f4d50u   /* "COMP" */
#define KC_BUFFER_END 0xf19158edu
#define KC_ARRAY 0x11u                    /* legacy array: no padding in the type */
#define KC_CONTAINER_BEGIN 0x13u
#define KC_CONTAINER_END 0x14u
#define KC_ARRAY_PAD0 0x20u               /* .. 0x2f */
#define KC_LOADINFO 0x30u                 /* {u32 address; uuid} */
#define KC_LOADINFO64 0x31u               /* {u64 address; uuid; ...} */
#define SS_TASK 0x903u                    /* container */
#define SS_THREAD 0x904u                  /* container */
#define SS_TASK_SNAPSHOT 0x905u
#define SS_THREAD_SNAPSHOT 0x906u
#define SS_SHAREDCACHE_LOADINFO 0x908u    /* {u64 slide; uuid; u64 slid base} */
#define SS_THREAD_NAME 0x909u
#define SS_KERN_STACKFRAME 0x90au         /* {u32 lr; u32 sp} */
#define SS_KERN_STACKFRAME64 0x90bu       /* {u64 lr; u64 sp} */
#define SS_USER_STACKFRAME 0x90cu
#define SS_USER_STACKFRAME64 0x90du
#define SS_KERN_STACKLR 0x913u            /* u32 */
#define SS_KERN_STACKLR64 0x914u          /* u64 */
#define SS_USER_STACKLR 0x915u
#define SS_USER_STACKLR64 0x916u
#define SS_KERNELCACHE_LOADINFO 0x91cu
#define SS_DISPATCH_QUEUE_LABEL 0x928u

/* task_snapshot_v2: pid (i32) at 84, p_comm[32] at 88. */
#define TASK_SNAP_MIN 120
/* thread_snapshot_v2..v4: id at 0, continuation at 16, state (u32) at 88,
 * base and sched priority (i16) at 96 and 98. */
#define THREAD_SNAP_MIN 104

#define KC_MAX_DEPTH 8                    /* a real stackshot nests 2 deep */
#define KC_IMAGE_SPAN ((uint64_t)256 << 20)
#define KC_CACHE_SPAN ((uint64_t)4 << 30)
#define KC_MAX_WARNINGS 8                 /* malformed items named one by one */
/* frames of all threads: a real stackshot has < 200,000 (1,500 threads of
 * < 100 frames) */
#define KC_MAX_FRAMES_ALL ((size_t)1 << 21)

typedef struct img_ent {
	uint64_t base;
	int proc;             /* -1: the kernel's (kernel frames) */
	int image;
	char kind;
} img_ent;

typedef struct kc {
	kp_report *r;
	const unsigned char *b;
	size_t len;
	long line;
	bool oom;
	struct {
		uint32_t type;
		uint64_t id;
		size_t at;
	} open[KC_MAX_DEPTH];
	int depth;
	int proc, thread;     /* the current task's process and thread, -1 */
	bool proc_new;        /* proc was made by this task (not the text's) */
	bool kernel_task;     /* pid 0: its load infos are the kernel's images */
	bool text_thread;     /* thread is the text's panicked one: frames kept */
	int drop_depth;       /* > 0: inside a task or thread past the caps */
	int text_proc;        /* the text's panicked process, -1 */
	size_t text_threads;  /* its threads from the text */
	size_t base_images;   /* images before the stackshot (from the text) */
	size_t nthreads;
	img_ent *imgs;
	size_t nimgs, imgs_cap;
	unsigned nbad;
	bool warned_procs, warned_threads, warned_frames, warned_images;
	size_t nframes;       /* frames made, all threads */
} kc;

static void bad(kc *c, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A malformed item, named with its byte in the decoded stackshot (the
 * first KC_MAX_WARNINGS; the rest are counted). */
static void bad(kc *c, size_t at, const char *fmt, ...)
{
	if (c->nbad++ < KC_MAX_WARNINGS) {
		char msg[200];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		kp__warn(c->r, c->line, "stackshot (kcdata) byte %zu: %s", at, msg);
	}
}

static kp_process *cur_proc(kc *c)
{
	return c->proc >= 0 ? &c->r->processes[c->proc] : NULL;
}

static kp_thread *cur_thread(kc *c)
{
	kp_process *p = cur_proc(c);
	return p && c->thread >= 0 ? &p->threads[c->thread] : NULL;
}

/* A NUL-terminated (or full) string of at most n bytes at s, into the arena. */
static char *str_at(kc *c, const unsigned char *s, size_t n)
{
	const unsigned char *z = memchr(s, 0, n);
	size_t len = z ? (size_t)(z - s) : n;
	if (!len)
		return NULL;
	char *d = kp__strndup(c->r, (const char *)s, len);
	if (!d)
		c->oom = true;
	return d;
}

static void begin_task(kc *c)
{
	kp_report *r = c->r;
	if (r->nprocesses >= KP_IPS_MAX_PROCESSES) {
		if (!c->warned_procs)
			kp__warn(r, c->line, "stackshot (kcdata): more than %zu processes: the rest are dropped",
			         KP_IPS_MAX_PROCESSES);
		c->warned_procs = true;
		c->drop_depth = c->depth;
		return;
	}
	if (!kp__add_process(r)) {
		c->oom = true;
		return;
	}
	c->proc = (int)r->nprocesses - 1;
	c->proc_new = true;
	c->kernel_task = false;
}

/* The task's pid and name; the text's panicked process takes the task over
 * when they name the same one and the task has no threads yet. */
static void task_snapshot(kc *c, const unsigned char *p, size_t n, size_t at)
{
	kp_process *pr = cur_proc(c);
	if (!pr || !c->proc_new)
		return;
	if (n < TASK_SNAP_MIN) {
		bad(c, at, "task_snapshot of %zu bytes (at least %d): skipped", n, TASK_SNAP_MIN);
		return;
	}
	int32_t pid = (int32_t)kp_le32(p + 84);
	char *name = str_at(c, p + 88, 32);
	pr->has_pid = true;
	pr->pid = pid;
	pr->name = name;
	c->kernel_task = pid == 0;
	if (c->text_proc < 0 || pr->nthreads)
		return;
	kp_process *tp = &c->r->processes[c->text_proc];
	bool same = tp->has_pid ? tp->pid == pid
	                        : tp->name && name && strcmp(tp->name, name) == 0;
	if (!same)
		return;
	c->r->nprocesses--;   /* the empty one just made (its arena strings stay) */
	c->proc = c->text_proc;
	c->proc_new = false;
	tp = &c->r->processes[c->text_proc];
	if (!tp->has_pid)
		tp->has_pid = true, tp->pid = pid;
	if (!tp->name)
		tp->name = name;
}

static void begin_thread(kc *c, size_t at)
{
	kp_report *r = c->r;
	kp_process *p = cur_proc(c);
	if (!p) {
		bad(c, at, "a thread outside any task: skipped");
		c->drop_depth = c->depth;
		return;
	}
	if (c->nthreads >= KP_IPS_MAX_THREADS) {
		if (!c->warned_threads)
			kp__warn(r, c->line, "stackshot (kcdata): more than %zu threads: the rest are dropped",
			         KP_IPS_MAX_THREADS);
		c->warned_threads = true;
		c->drop_depth = c->depth;
		return;
	}
	if (!kp__add_thread(r, p)) {
		c->oom = true;
		return;
	}
	c->nthreads++;
	c->thread = (int)p->nthreads - 1;
	c->text_thread = false;
}

static char *state_names(kc *c, uint32_t st)
{
	static const char *const names[] = {"TH_WAIT", "TH_SUSP", "TH_RUN", "TH_UNINT",
	                                    "TH_TERMINATE", "TH_TERMINATE2", "TH_WAIT_REPORT", "TH_IDLE"};
	char buf[160] = "";
	size_t n = 0;
	for (unsigned i = 0; i < 32; i++) {
		if (!(st & (1u << i)))
			continue;
		int w = i < 8 ? snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", names[i])
		              : snprintf(buf + n, sizeof buf - n, "%sTH_UNKNOWN_0x%x", n ? " " : "", 1u << i);
		if (w < 0 || (size_t)w >= sizeof buf - n)
			break;
		n += (size_t)w;
	}
	char *d = kp__strdup(c->r, buf);
	if (!d)
		c->oom = true;
	return d;
}

/* The thread's id, state and priorities; the text's panicked thread takes
 * over a thread of its process with its id (the one just begun goes). */
static void thread_snapshot(kc *c, const unsigned char *p, size_t n, size_t at)
{
	kp_thread *t = cur_thread(c);
	if (!t)
		return;
	if (n < THREAD_SNAP_MIN) {
		bad(c, at, "thread_snapshot of %zu bytes (at least %d): skipped", n, THREAD_SNAP_MIN);
		return;
	}
	uint64_t id = kp_le64(p);
	kp_report *r = c->r;
	if (c->proc == c->text_proc && !c->text_thread && !t->nframes) {
		kp_process *pr = &r->processes[c->proc];
		for (size_t i = 0; i < c->text_threads; i++) {
			kp_thread *tt = &pr->threads[i];
			bool match = tt->has_id ? tt->id == id
			                        : tt->panicked && r->has_panicked_thread_id && r->panicked_thread_id == id;
			if (match) {
				pr->nthreads--;
				c->nthreads--;
				c->thread = (int)i;
				c->text_thread = true;
				t = tt;
				break;
			}
		}
	}
	if (!t->has_id)
		t->has_id = true, t->id = id;
	if (!t->state)
		t->state = state_names(c, kp_le32(p + 88));
	if (!t->has_base_priority)
		t->has_base_priority = true, t->base_priority = (int16_t)(kp_le32(p + 96) & 0xffff);
	if (!t->has_sched_priority)
		t->has_sched_priority = true, t->sched_priority = (int16_t)(kp_le32(p + 98) & 0xffff);
	uint64_t cont = kp_le64(p + 16);
	if (cont && !t->has_continuation) {
		memset(&t->continuation, 0, sizeof t->continuation);
		t->continuation.image = -1;
		t->continuation.has_address = true;
		t->continuation.address = cont;   /* unslid: the slide is added at the end */
		t->has_continuation = true;
	}
}

static void add_frame(kc *c, uint64_t lr, bool user)
{
	kp_thread *t = cur_thread(c);
	/* the text's panicked thread keeps its kernel frames; the user ones,
	 * which no panic text lists, follow them */
	if (!t || (c->text_thread && !user) || !lr)
		return;
	/* a thread's cap, and one for the whole stackshot: 4 bytes of a
	 * 32-bit LR array make a ~70-byte frame, so a 256 MiB report of nothing
	 * else would otherwise make gigabytes */
	if (t->nframes >= KP_IPS_MAX_FRAMES || c->nframes >= KC_MAX_FRAMES_ALL) {
		if (!c->warned_frames)
			kp__warn(c->r, c->line, "stackshot (kcdata): more than %zu frames in a thread or %zu in all: "
			         "the rest are dropped", KP_IPS_MAX_FRAMES, KC_MAX_FRAMES_ALL);
		c->warned_frames = true;
		return;
	}
	c->nframes++;
	kp_frame *f = kp__add_frame(c->r, t);
	if (!f) {
		c->oom = true;
		return;
	}
	f->has_address = true;
	f->address = lr;
	f->user = user;
}

/* One image load info: the kernel's images (proc -1) are matched by UUID
 * to those the text named (which keep their runtime start) and get their
 * unslid base; a task's are its own ('P'), the shared cache 'S'. */
static void add_image(kc *c, uint64_t base, const unsigned char *uuid, char kind, int proc)
{
	kp_report *r = c->r;
	static const unsigned char zero[16];
	if (!memcmp(uuid, zero, 16) && !base)
		return;
	char u[37];
	snprintf(u, sizeof u, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
	         uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8], uuid[9],
	         uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15]);
	if (kind == 'P' && c->kernel_task) {
		kind = r->kernel_uuid && strcmp(r->kernel_uuid, u) == 0 ? 'K' : 'X';
		proc = -1;
	}
	int idx = -1;
	for (size_t i = 0; proc < 0 && i < c->base_images && i < r->nimages; i++)
		if (r->images[i].uuid && strcmp(r->images[i].uuid, u) == 0)
			idx = (int)i;
	if (idx < 0) {
		if (r->nimages >= KP_IPS_MAX_IMAGES) {
			if (!c->warned_images)
				kp__warn(r, c->line, "stackshot (kcdata): more than %zu images: the rest are ignored",
				         KP_IPS_MAX_IMAGES);
			c->warned_images = true;
			return;
		}
		kp_image *im = kp__add_image(r);
		if (!im || !(im->uuid = kp__strdup(r, u))) {
			c->oom = true;
			return;
		}
		im->kind = kind;
		if (kind == 'K')
			im->name = kp__strdup(r, "kernel");
		idx = im->index;
	}
	kp_image *im = &r->images[idx];
	if (!im->has_base)
		im->has_base = true, im->base = base;
	if (c->nimgs == c->imgs_cap) {
		size_t ncap = c->imgs_cap ? c->imgs_cap * 2 : 64;
		img_ent *n = realloc(c->imgs, ncap * sizeof *n);
		if (!n) {
			c->oom = true;
			return;
		}
		c->imgs = n;
		c->imgs_cap = ncap;
	}
	c->imgs[c->nimgs++] = (img_ent){base, proc, idx, kind};
}

/* Element sizes: the least a known element type needs. */
static size_t elem_min(uint32_t et)
{
	switch (et) {
	case SS_KERN_STACKLR: case SS_USER_STACKLR: return 4;
	case SS_KERN_STACKLR64: case SS_USER_STACKLR64: return 8;
	case SS_KERN_STACKFRAME: case SS_USER_STACKFRAME: return 8;
	case SS_KERN_STACKFRAME64: case SS_USER_STACKFRAME64: return 16;
	case KC_LOADINFO: return 20;
	case KC_LOADINFO64: case SS_KERNELCACHE_LOADINFO: return 24;
	default: return 0;
	}
}

/* One element e (esize bytes) of type et. */
static void element(kc *c, uint32_t et, const unsigned char *e)
{
	switch (et) {
	case SS_KERN_STACKLR: add_frame(c, kp_le32(e), false); break;
	case SS_USER_STACKLR: add_frame(c, kp_le32(e), true); break;
	case SS_KERN_STACKFRAME: add_frame(c, kp_le32(e), false); break;
	case SS_USER_STACKFRAME: add_frame(c, kp_le32(e), true); break;
	case SS_KERN_STACKLR64: case SS_KERN_STACKFRAME64: add_frame(c, kp_le64(e), false); break;
	case SS_USER_STACKLR64: case SS_USER_STACKFRAME64: add_frame(c, kp_le64(e), true); break;
	case KC_LOADINFO: if (c->proc >= 0) add_image(c, kp_le32(e), e + 4, 'P', c->proc); break;
	case KC_LOADINFO64: if (c->proc >= 0) add_image(c, kp_le64(e), e + 8, 'P', c->proc); break;
	case SS_KERNELCACHE_LOADINFO: add_image(c, kp_le64(e), e + 8, 'K', -1); break;
	default: break;
	}
}

static bool in(const kc *c, uint32_t type)
{
	return c->depth > 0 && c->open[c->depth - 1].type == type;
}

/* Frames and load infos belong to the innermost container only. */
static bool applies(const kc *c, uint32_t et)
{
	switch (et) {
	case KC_LOADINFO: case KC_LOADINFO64: return in(c, SS_TASK);
	case SS_KERNELCACHE_LOADINFO: return true;
	default: return in(c, SS_THREAD) && c->thread >= 0;
	}
}

static void array_item(kc *c, uint32_t type, uint64_t flags, const unsigned char *p, size_t n, size_t at)
{
	uint32_t et = (uint32_t)(flags >> 32), count = (uint32_t)flags;
	size_t pad = type == KC_ARRAY ? 0 : (type & 0xf);
	size_t min = elem_min(et);
	if (!min || !count || !applies(c, et))
		return;
	if (pad > n) {
		bad(c, at, "array padding %zu exceeds its %zu bytes: skipped", pad, n);
		return;
	}
	size_t data = n - pad, esize = data / count;
	if (esize < min) {
		bad(c, at, "array of %u elements of type 0x%x does not fit its %zu bytes: skipped", count, et, data);
		return;
	}
	for (uint32_t i = 0; i < count && !c->oom; i++)
		element(c, et, p + (size_t)i * esize);
}

/* One item at byte at; false ends the walk. */
static bool item(kc *c, uint32_t type, uint64_t flags, const unsigned char *p, size_t n, size_t at)
{
	if (type == KC_CONTAINER_BEGIN) {
		uint32_t ct = n >= 4 ? kp_le32(p) : 0;
		if (c->depth >= KC_MAX_DEPTH) {
			bad(c, at, "containers nested deeper than %d: the rest is not read", KC_MAX_DEPTH);
			return false;
		}
		c->open[c->depth].type = ct;
		c->open[c->depth].id = flags;
		c->open[c->depth].at = at;
		c->depth++;
		if (c->drop_depth)
			return true;
		if (ct == SS_TASK && c->depth == 1)
			begin_task(c);
		else if (ct == SS_THREAD)
			begin_thread(c, at);
		return true;
	}
	if (type == KC_CONTAINER_END) {
		uint32_t ct = n >= 4 ? kp_le32(p) : 0;
		if (!c->depth || c->open[c->depth - 1].type != ct) {
			bad(c, at, "container end (type 0x%x) closes no open container of its type: the rest is not read", ct);
			return false;
		}
		c->depth--;
		if (c->drop_depth > c->depth)
			c->drop_depth = 0;
		else if (c->drop_depth)
			return true;
		if (ct == SS_THREAD)
			c->thread = -1, c->text_thread = false;
		else if (ct == SS_TASK && c->depth == 0)
			c->proc = -1, c->thread = -1, c->kernel_task = false;
		return true;
	}
	if (c->drop_depth)
		return true;
	if (type == KC_ARRAY || (type & ~0xfu) == KC_ARRAY_PAD0) {
		array_item(c, type, flags, p, n, at);
		return true;
	}
	kp_thread *t;
	switch (type) {
	case SS_TASK_SNAPSHOT:
		if (in(c, SS_TASK))
			task_snapshot(c, p, n, at);
		break;
	case SS_THREAD_SNAPSHOT:
		if (in(c, SS_THREAD))
			thread_snapshot(c, p, n, at);
		break;
	case SS_THREAD_NAME:
		if (in(c, SS_THREAD) && (t = cur_thread(c)) && !t->name)
			t->name = str_at(c, p, n < 64 ? n : 64);
		break;
	case SS_DISPATCH_QUEUE_LABEL:
		if (in(c, SS_THREAD) && (t = cur_thread(c)) && !t->dispatch_queue)
			t->dispatch_queue = str_at(c, p, n < 64 ? n : 64);
		break;
	case SS_SHAREDCACHE_LOADINFO:
		if (in(c, SS_TASK) && c->proc >= 0 && n >= 24) {
			/* the slid base when written (>= 10.14), else the slide */
			uint64_t base = n >= 32 && kp_le64(p + 24) ? kp_le64(p + 24) : kp_le64(p);
			add_image(c, base, p + 8, 'S', c->proc);
		}
		break;
	case KC_LOADINFO64: case SS_KERNELCACHE_LOADINFO: case KC_LOADINFO:
		if (n >= elem_min(type) && applies(c, type))
			element(c, type, p);
		break;
	case SS_KERN_STACKLR64: case SS_USER_STACKLR64: case SS_KERN_STACKLR: case SS_USER_STACKLR:
		/* a single frame written as a plain item */
		if (n >= elem_min(type) && applies(c, type))
			element(c, type, p);
		break;
	default:
		break;
	}
	return true;
}

static int img_cmp(const void *a, const void *b)
{
	const img_ent *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* The image entry of proc starting nearest at or below addr, or NULL. */
static const img_ent *img_below(const kc *c, int proc, uint64_t addr)
{
	size_t lo = 0, hi = c->nimgs;
	while (lo < hi) {   /* first entry > (proc, addr) */
		size_t mid = lo + (hi - lo) / 2;
		const img_ent *m = &c->imgs[mid];
		if (m->proc < proc || (m->proc == proc && m->base <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || c->imgs[lo - 1].proc != proc)
		return NULL;
	const img_ent *e = &c->imgs[lo - 1];
	return addr - e->base < (e->kind == 'S' ? KC_CACHE_SPAN : KC_IMAGE_SPAN) ? e : NULL;
}

static void map_thread(kc *c, int proc, kp_thread *t, uint64_t slide, bool user_only, bool cont)
{
	for (size_t k = 0; k < t->nframes; k++) {
		kp_frame *f = &t->frames[k];
		if (user_only && !f->user)
			continue;
		const img_ent *e = img_below(c, f->user ? proc : -1, f->address);
		if (e) {
			f->image = e->image;
			f->has_offset = true;
			f->offset = f->address - e->base;
		}
		if (!f->user)
			f->address += slide;
	}
	if (t->has_continuation && cont) {
		const img_ent *e = img_below(c, -1, t->continuation.address);
		if (e) {
			t->continuation.image = e->image;
			t->continuation.has_offset = true;
			t->continuation.offset = t->continuation.address - e->base;
		}
		t->continuation.address += slide;
	}
}

/* Frames get their images once every load info is read. */
static void map_frames(kc *c, size_t first_proc)
{
	kp_report *r = c->r;
	uint64_t slide = r->addr_flags & KP_HAS_KERNEL_SLIDE ? r->kernel_slide : 0;
	if (c->nimgs)
		qsort(c->imgs, c->nimgs, sizeof *c->imgs, img_cmp);
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		/* the text's threads: only the user frames and continuation the
		 * stackshot added (a panic text has neither) */
		size_t text = (int)i == c->text_proc ? c->text_threads : i >= first_proc ? 0 : p->nthreads;
		for (size_t j = 0; j < p->nthreads; j++)
			map_thread(c, (int)i, &p->threads[j], slide, j < text, j >= text || (int)i == c->text_proc);
	}
}

static kp_status decode(kp_report *r, const unsigned char *b, size_t len, long line)
{
	kc c = {.r = r, .b = b, .len = len, .line = line, .proc = -1, .thread = -1, .text_proc = -1};
	if (r->nprocesses) {
		c.text_proc = 0;
		c.text_threads = r->processes[0].nthreads;
	}
	c.base_images = r->nimages;
	size_t first_proc = r->nprocesses;
	size_t nthreads_before = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads_before += r->processes[i].nthreads;
	c.nthreads = nthreads_before;
	size_t at = 0;
	bool ended = false, cut = false, stopped = false;
	while (at < len && !c.oom) {
		if (len - at < 16) {
			/* zero bytes short of an item header: the buffer's slack */
			for (size_t i = at; i < len; i++)
				if (b[i])
					cut = true;
			if (cut)
				bad(&c, at, "%zu bytes after the last item are no item", len - at);
			break;
		}
		uint32_t type = kp_le32(b + at), size = kp_le32(b + at + 4);
		uint64_t flags = kp_le64(b + at + 8);
		if (size > len - at - 16) {
			bad(&c, at, "item of type 0x%x claims %u bytes, past the end of the stackshot: the rest is not read", type, size);
			cut = true;
			break;
		}
		if (at == 0) {
			at += 16 + (size_t)size;   /* the begin marker (checked by the caller) */
			continue;
		}
		if (type == KC_BUFFER_END) {
			ended = true;
			break;
		}
		if (!item(&c, type, flags, b + at + 16, size, at)) {
			stopped = true;
			break;
		}
		at += 16 + (size_t)size;
	}
	if (c.oom) {
		free(c.imgs);
		return KP_ERR_NOMEM;
	}
	if (c.depth && !stopped) {
		/* the outermost one (a task, where it is one) is what lost its end */
		uint32_t ot = c.open[0].type;
		const char *what = ot == SS_TASK ? "a task" : ot == SS_THREAD ? "a thread" : "one";
		if (c.depth == 1)
			bad(&c, c.open[0].at, "%s container (type 0x%x) never closed", what, ot);
		else
			bad(&c, c.open[0].at, "%d containers never closed, the outermost %s (type 0x%x)", c.depth, what, ot);
	}
	if (c.nbad > KC_MAX_WARNINGS)
		kp__warn(r, line, "stackshot (kcdata): %u more malformed items", c.nbad - KC_MAX_WARNINGS);
	/* cut off: an item past the end, or the end reached with containers
	 * open (a malformed item that stopped the walk is no cut) */
	if (cut || (c.depth && !ended && !stopped))
		r->truncated = true;
	map_frames(&c, first_proc);
	free(c.imgs);
	return KP_OK;
}

kp_status kp__kcdata_decode(kp_report *r, const unsigned char *b, size_t n, long line)
{
	uint32_t magic = n >= 16 ? kp_le32(b) : 0;
	if (magic == KC_BEGIN_STACKSHOT)
		return decode(r, b, n, line);
	if (magic == KC_BEGIN_DELTA) {
		kp__warn(r, line, "macOSProcessedStackshotData is a delta stackshot (kcdata 0x%08x): not supported, "
		         "only the panic text's threads are shown", magic);
	} else if (magic == KC_BEGIN_COMPRESSED) {
		kp__warn(r, line, "macOSProcessedStackshotData is a compressed kcdata buffer: not supported, "
		         "only the panic text's threads are shown");
	} else {
		/* printable words are said by ips_parse.c's notice; other bytes here */
		bool words = n > 0;
		for (size_t i = 0; i < n && words; i++)
			words = b[i] >= 0x20 && b[i] <= 0x7e;
		if (!words && n)
			kp__warn(r, line, "macOSProcessedStackshotData is no kcdata stackshot (it begins 0x%08x): not read",
			         n >= 4 ? kp_le32(b) : 0);
	}
	return KP_OK;
}

kp_status kp__kcdata_stackshot(kp_report *r, const char *b64, size_t len, long line)
{
	unsigned char *b = malloc(kp_base64_max(len) + 1);
	size_t n = 0;
	if (!b)
		return KP_ERR_NOMEM;
	kp_status st = KP_OK;
	if (!kp_base64_decode(b64, len, false, b, &n))
		kp__warn(r, line, "macOSProcessedStackshotData is not base64: the stackshot is not read");
	else
		st = kp__kcdata_decode(r, b, n, line);
	free(b);
	return st;
}
