/* ips_finish.c: what a JSON report's parse does once every member is read
 * and the panic text is parsed: the build the body names over the header's,
 * kernel images named and their UUID taken, the KernelCache slide added to
 * kernel frames, the panicked and blamed processes marked and moved to the
 * front.  Each step needs the whole report, so they run in this order, once. */
#include "report_build.h"

#include <string.h>

/* Marks the panicked thread named by the panic text and moves its process
 * to the front. */
static void mark_panicked(kp_report *r)
{
	if (!r->has_panicked_thread_id && !r->has_panicked_pid)
		return;
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		bool pid_match = r->has_panicked_pid && p->has_pid && p->pid == r->panicked_pid;
		bool found = false;
		for (size_t j = 0; j < p->nthreads; j++) {
			kp_thread *t = &p->threads[j];
			if (r->has_panicked_thread_id && t->has_id && t->id == r->panicked_thread_id &&
			    (pid_match || !r->has_panicked_pid)) {
				t->panicked = true;
				found = true;
			}
		}
		if (found || (pid_match && !r->has_panicked_thread_id)) {
			if (i > 0) {
				kp_process tmp = *p;
				memmove(&r->processes[1], &r->processes[0], i * sizeof tmp);
				r->processes[0] = tmp;
			}
			return;
		}
	}
}

/* For a panic the blamed process is the panicked one; for the rest it is
 * the report's pid, or the one process its procName names (moved to the
 * front when no thread panicked), and the frontmostPids mark their
 * processes. */
static void mark_blamed(kp_report *r)
{
	if (r->kind == KP_KIND_PANIC) {
		if (r->has_panicked_pid && !r->has_blamed_pid)
			r->has_blamed_pid = true, r->blamed_pid = r->panicked_pid;
		if (r->panicked_process && !r->blamed_process)
			r->blamed_process = r->panicked_process;
	}
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		for (size_t k = 0; p->has_pid && k < r->nfrontmost; k++)
			if (r->frontmost_pids[k] == p->pid)
				p->frontmost = true;
	}
	if (r->kind == KP_KIND_PANIC || kp_report_panicked_thread(r, NULL))
		return;
	/* named by procName only: its pid from the stackshot, when exactly one
	 * process there has that name (issue 31 item 8) */
	size_t named = 0, at = 0;
	for (size_t i = 0; !r->has_blamed_pid && r->blamed_process && i < r->nprocesses; i++)
		if (r->processes[i].has_pid && r->processes[i].name && !strcmp(r->processes[i].name, r->blamed_process))
			named++, at = i;
	if (named == 1)
		r->has_blamed_pid = true, r->blamed_pid = r->processes[at].pid;
	if (!r->has_blamed_pid)
		return;
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		if (p->has_pid && p->pid == r->blamed_pid) {
			if (!r->blamed_process)
				r->blamed_process = p->name;
			if (i > 0) {
				kp_process tmp = *p;
				memmove(&r->processes[1], &r->processes[0], i * sizeof tmp);
				r->processes[0] = tmp;
			}
			return;
		}
	}
}

/* The build in an OS version string: the last "(...)" token ("macOS 14.1
 * (23B74)" -> "23B74"), else the whole string when it is one word. */
static bool build_token(const char *s, const char **b, size_t *n)
{
	const char *open = strrchr(s, '('), *close = open ? strchr(open, ')') : NULL;
	if (open && close && close > open + 1) {
		*b = open + 1;
		*n = (size_t)(close - open - 1);
		return true;
	}
	if (!*s || strchr(s, ' '))
		return false;
	*b = s;
	*n = strlen(s);
	return true;
}

/* A report written after an OS update: the header line names the new OS,
 * the body the build that panicked.  The body is right: os_version becomes
 * the body's, and a warning names the header's claim.  An iPad's report
 * names its OS "iPhone OS" in both: its product tells it is iPadOS. */
static void check_build(kp_report *r)
{
	const char *a, *b;
	size_t an, bn;
	if (r->os_version && r->product && strncmp(r->product, "iPad", 4) == 0 &&
	    strncmp(r->os_version, "iPhone OS ", 10) == 0)
		r->os_version = kp__sprintf(r, "iPadOS %s", r->os_version + 10);
	if (!r->os_version || !r->build || !build_token(r->os_version, &a, &an) ||
	    !build_token(r->build, &b, &bn))
		return;
	if (an != bn || memcmp(a, b, an) != 0) {
		kp__warn(r, 1, "the header's OS version (%.*s) is not the body's build (%.*s): "
		         "written after an OS update? The body's is shown", (int)(an > 40 ? 40 : an), a,
		         (int)(bn > 40 ? 40 : bn), b);
		r->os_version = r->build;   /* "macOS 14.1 (23B74)", or a bare build */
	}
}

/* A stackshot's kernel frames point at its unnamed kernel ('K') or
 * kernelcache ('U') image: both are labelled "kernel", never "U:291AAED2".
 * Keys are unchanged: they hash an image's UUID, not its label. */
static void name_kernel_images(kp_report *r)
{
	for (size_t i = 0; i < r->nimages; i++)
		if (!r->images[i].name && (r->images[i].kind == 'K' || r->images[i].kind == 'U'))
			r->images[i].name = kp__strdup(r, "kernel");   /* NULL when out of memory: unnamed */
}

/* A report whose text names no Kernel UUID (a 288 has no panic string)
 * takes its kernel image's: the 'K' image, else in a stackshot the 'U' one
 * (the kernel there; in a 210 'U' is the kernelcache), upper case as the
 * panic text writes it. */
static void kernel_uuid_from_image(kp_report *r)
{
	if (r->kernel_uuid)
		return;
	const kp_image *k = NULL;
	for (size_t i = 0; i < r->nimages && !k; i++)
		if (r->images[i].kind == 'K' && r->images[i].uuid)
			k = &r->images[i];
	for (size_t i = 0; i < r->nimages && !k && r->kind == KP_KIND_STACKSHOT; i++)
		if (r->images[i].kind == 'U' && r->images[i].uuid)
			k = &r->images[i];
	char u[37];
	if (k && kp_uuid_canon(k->uuid, strlen(k->uuid), u) && strcmp(u, "00000000-0000-0000-0000-000000000000") != 0)
		r->kernel_uuid = kp__strdup(r, u);   /* NULL when out of memory: none */
}

/* A kernel frame's runtime address is base + offset + KernelCache slide
 * (checked on a real macOS 26.6.2 report against its lr: lines); the slide
 * is known only once the panic text is parsed. */
static void add_slide(kp_report *r)
{
	if (!(r->addr_flags & KP_HAS_KERNELCACHE_SLIDE))
		return;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++) {
			kp_thread *t = &r->processes[i].threads[j];
			for (size_t k = 0; k < t->nframes; k++)
				if (t->frames[k].has_address && !t->frames[k].user)
					t->frames[k].address += r->kernelcache_slide;
			if (t->has_continuation && t->continuation.has_address && !t->continuation.user)
				t->continuation.address += r->kernelcache_slide;
		}
}

void kp__ips_finish(kp_report *r)
{
	check_build(r);
	name_kernel_images(r);
	kernel_uuid_from_image(r);
	add_slide(r);
	mark_panicked(r);
	mark_blamed(r);
}
