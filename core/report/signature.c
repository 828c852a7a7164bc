/* signature.c: dedup keys, culprit and title of a panic report. */
#include "kp_signature.h"
#include "kp_sha1.h"
#include "kp_strbuf.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- headline normalisation ----------------------------------------- */

#define HEADLINE_MAX 240

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_';
}

/* Length of a "panic(...): " wrapper at s, or 0. */
static size_t wrapper_len(const char *s)
{
	if (strncmp(s, "panic(", 6) != 0)
		return 0;
	const char *close = strstr(s, "):");
	if (!close || memchr(s, '\n', (size_t)(close - s)))
		return 0;
	const char *p = close + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	return (size_t)(p - s);
}

char *kp_sig_normalize_headline(const char *h)
{
	kp_sb b = {0};
	if (!h)
		return kp_sb_take(&b);
	while (*h == ' ' || *h == '\t')
		h++;
	h += wrapper_len(h);
	const char *p = h;
	while (*p && *p != '\n' && *p != '\r' && b.n < HEADLINE_MAX) {
		unsigned char c = (unsigned char)*p;
		bool word_before = p > h && is_word((unsigned char)p[-1]);
		if (c == '@' && p[1] == '/') {
			/* @/path/to/file.c:123 -> file.c */
			const char *q = p + 1, *base = q;
			while (*q && !isspace((unsigned char)*q) && *q != '"' && *q != ')' && *q != ',') {
				if (*q == '/')
					base = q + 1;
				q++;
			}
			const char *e = q;
			const char *colon = memchr(base, ':', (size_t)(e - base));
			if (colon)
				e = colon;
			if (b.n && b.s[b.n - 1] != ' ')
				kp_sb_add(&b, " ", 1);
			kp_sb_add(&b, base, (size_t)(e - base));
			p = q;
			continue;
		}
		if (c == '"') {
			p++;
			continue;
		}
		if (isspace(c)) {
			if (b.n && b.s[b.n - 1] != ' ')
				kp_sb_add(&b, " ", 1);
			p++;
			continue;
		}
		if (!word_before && c == '0' && (p[1] == 'x' || p[1] == 'X') &&
		    isxdigit((unsigned char)p[2])) {
			p += 2;
			while (isxdigit((unsigned char)*p))
				p++;
			kp_sb_str(&b, "ADDR");
			continue;
		}
		if (!word_before && isxdigit(c)) {
			/* a bare hex run of 8+ digits holding a digit: an address */
			size_t n = 0;
			bool digit = false;
			while (isxdigit((unsigned char)p[n])) {
				digit |= isdigit((unsigned char)p[n]) != 0;
				n++;
			}
			if (n >= 8 && digit && !is_word((unsigned char)p[n])) {
				kp_sb_str(&b, "ADDR");
				p += n;
				continue;
			}
		}
		if (!word_before && isdigit(c)) {
			size_t n = 0;
			while (isdigit((unsigned char)p[n]))
				n++;
			if (!isalpha((unsigned char)p[n]) && p[n] != '_') {
				kp_sb_str(&b, "NUM");
				p += n;
				continue;
			}
		}
		kp_sb_add(&b, p, 1);
		p++;
	}
	if (b.n > HEADLINE_MAX) {
		size_t n = HEADLINE_MAX;
		while (n && ((unsigned char)b.s[n] & 0xC0) == 0x80)
			n--;
		b.n = n;
		b.s[n] = '\0';
	}
	while (b.n && b.s[b.n - 1] == ' ')
		b.s[--b.n] = '\0';
	return kp_sb_take(&b);
}

/* A call site at p (p[0] '@'): "@/BuildRoot/.../file.cpp:123" or, as
 * modern drivers write it, "@file.cpp:123" (a base name with a dot, then
 * ":" and digits).  The base name and line ("file.cpp:123") in *b and *n,
 * the end of the whole in *end; false when p is no call site. */
static bool at_path(const char *p, const char **b, size_t *n, const char **end)
{
	if (p[0] != '@')
		return false;
	if (p[1] != '/') {
		const char *q = p + 1;
		bool dot = false;
		while (is_word((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+')
			dot |= *q++ == '.';
		if (!dot || q == p + 1 || *q != ':' || !isdigit((unsigned char)q[1]))
			return false;
		q++;
		while (isdigit((unsigned char)*q))
			q++;
		if (is_word((unsigned char)*q))
			return false;
		*b = p + 1;
		*n = (size_t)(q - *b);
		*end = q;
		return true;
	}
	const char *q = p + 1, *base = q;
	while (*q && !isspace((unsigned char)*q) && *q != '"' && *q != ')' && *q != ',' && *q != '\\') {
		if (*q == '/')
			base = q + 1;
		q++;
	}
	if (!*base || base == q)
		return false;
	*b = base;
	*n = (size_t)(q - base);
	*end = q;
	return true;
}

/* A written newline at p: backslash-n, or two backslashes and n where a
 * paste escaped it twice
 * (its backslashes are no part of the message); 0 when none, else its
 * length. */
static size_t written_newline(const char *p)
{
	size_t k = 0;
	while (p[k] == '\\' && k < 2)
		k++;
	return k && p[k] == 'n' ? k + 1 : 0;
}

void kp_headline_display(const char *h, char *out, size_t size)
{
	if (!size)
		return;
	out[0] = '\0';
	if (!h)
		return;
	while (*h == ' ' || *h == '\t')
		h++;
	h += wrapper_len(h);
	size_t o = 0;
	bool cut = false;   /* stopped at the end of the first line */
	const char *site = NULL;   /* a "@/path/file.c:N" met on the way */
	size_t site_n = 0;
	const char *p = h;
	for (; *p && o + 1 < size; p++) {
		if (*p == '\n' || *p == '\r' || written_newline(p)) {
			cut = true;
			break;
		}
		const char *b, *end;
		size_t n;
		if (at_path(p, &b, &n, &end)) {
			site = b, site_n = n;
			int k = snprintf(out + o, size - o, "%s@%.*s", o && out[o - 1] != ' ' ? " " : "", (int)n, b);
			o = k < 0 ? o : o + (size_t)k >= size ? size - 1 : o + (size_t)k;
			p = end - 1;
			continue;
		}
		if (*p == '"')
			continue;
		if (isspace((unsigned char)*p)) {
			if (o && out[o - 1] != ' ')
				out[o++] = ' ';
			continue;
		}
		out[o++] = *p;
	}
	out[o] = '\0';
	/* xnu appends the panic's call site to its last line: a title of the
	 * first line keeps it */
	if (cut && !site) {
		const char *at = NULL;
		for (const char *q = strchr(p, '@'); q; q = strchr(q + 1, '@'))
			at = q;
		const char *b, *end;
		size_t n;
		if (at && at_path(at, &b, &n, &end) && strspn(end, "\"\\n\r ") == strlen(end))
			site = b, site_n = n;
		while (o && (out[o - 1] == ' ' || out[o - 1] == ':' || out[o - 1] == ','))
			out[--o] = '\0';
		if (o >= 11 && strcmp(out + o - 11, ", registers") == 0)
			out[o -= 11] = '\0';
		if (site && o + 2 + site_n < size) {
			snprintf(out + o, size - o, " @%.*s", (int)site_n, site);
			o += 2 + site_n;
		}
	}
	while (o && out[o - 1] == ' ')
		out[--o] = '\0';
	if (o + 1 >= size && o) {   /* full: never half a character at the end */
		size_t l = o - 1;
		while (l && ((unsigned char)out[l] & 0xC0) == 0x80)
			l--;
		unsigned char c = (unsigned char)out[l];
		size_t want = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
		if (l + want > o)
			out[l] = '\0';
	}
}

/* ---- machinery ------------------------------------------------------ */

static const char *const machinery_exact[] = {
	"panic", "panic_trap_to_debugger", "DebuggerTrapWithState", "handle_debugger_trap",
	"debugger_collect_diagnostics", "kdp_i386_trap", "kernel_trap", "return_from_trap",
	"trap_from_kernel", "sleh_synchronous", "fleh_synchronous", "assfail",
	"handle_kernel_abort", "Call_continuation",
	/* likely ones */
	"panic_64", "panic_double_fault64", "panic_machine_check64", "ml_panic_trap_to_debugger",
	"handle_abort", "sleh_abort", "fleh_synchronous_sp1", "fleh_dispatch64", "kdp_trap",
	"kdp_raise_exception", "kdp_debugger_trap", "kdp_callouts", "hndl_alltraps",
	"hndl_double_fault", "hndl_machine_check", "panic_kernel", "panic_display_system_configuration",
	"os_reason_panic", "__abort_with_payload", "abort_with_payload",
};

static const char *const machinery_prefix[] = {
	"panic_with_", "Debugger", "panic_trap", "panic_print", "handle_debugger", "kdp_panic",
};

bool kp_sig_is_machinery(const char *fn)
{
	if (!fn)
		return false;
	while (*fn == ' ')
		fn++;
	if (*fn == '_')
		fn++;
	size_t n = 0;
	while (fn[n] && fn[n] != ' ' && fn[n] != '+' && fn[n] != '(')
		n++;
	for (size_t i = 0; i < sizeof machinery_exact / sizeof *machinery_exact; i++)
		if (strlen(machinery_exact[i]) == n && memcmp(machinery_exact[i], fn, n) == 0)
			return true;
	for (size_t i = 0; i < sizeof machinery_prefix / sizeof *machinery_prefix; i++) {
		size_t m = strlen(machinery_prefix[i]);
		if (m <= n && memcmp(machinery_prefix[i], fn, m) == 0)
			return true;
	}
	return false;
}

bool kp_sig_is_apple(const char *bundle_id)
{
	return bundle_id && strncmp(bundle_id, "com.apple.", 10) == 0;
}

/* ---- frames --------------------------------------------------------- */

static const kp_image *frame_image(const kp_report *r, const kp_frame *f)
{
	if (f->image < 0 || (size_t)f->image >= r->nimages)
		return NULL;
	return &r->images[f->image];
}

static bool image_is_kernel(const kp_report *r, const kp_image *im)
{
	if (!im)
		return false;
	if (im->kind == 'K' || (im->name && strcmp(im->name, "kernel") == 0))
		return true;
	return im->uuid && r->kernel_uuid && strcmp(im->uuid, r->kernel_uuid) == 0;
}

/* An image as the group key hashes it (name, else UUID): part of every
 * stored group key, so never a label for people (kp_summary_image_label is
 * that); changing it would move every report to a new group. */
static const char *image_key_name(const kp_image *im)
{
	if (!im)
		return "?";
	if (im->name)
		return im->name;
	return im->uuid ? im->uuid : "?";
}

/* The function part of a symbol: " + 0x1c" / "+0x1c" offsets and
 * surrounding spaces cut.  Writes into buf, returns NULL when empty. */
static const char *clean_function(const char *sym, char *buf, size_t size)
{
	if (!sym)
		return NULL;
	while (*sym == ' ' || *sym == '\t')
		sym++;
	size_t n = strlen(sym);
	const char *plus = strstr(sym, " + ");
	if (!plus)
		plus = strstr(sym, "+0x");
	if (plus)
		n = (size_t)(plus - sym);
	while (n && (sym[n - 1] == ' ' || sym[n - 1] == '\t'))
		n--;
	if (n == 0)
		return NULL;
	if (n >= size)
		n = size - 1;
	memcpy(buf, sym, n);
	buf[n] = '\0';
	return buf;
}

typedef struct frame_ctx {
	const kp_report *r;
	const kp_thread *t;
	kp_sig_symbol_fn fn;
	void *ctx;
} frame_ctx;

static const char *frame_function(const frame_ctx *c, size_t i, char *buf, size_t size)
{
	const char *s = c->fn ? c->fn(c->ctx, c->r, c->t, i) : NULL;
	if (!s)
		s = c->t->frames[i].symbol;
	return clean_function(s, buf, size);
}

static void frame_label(const frame_ctx *c, size_t i, char *buf, size_t size)
{
	char fbuf[256];
	const kp_frame *f = &c->t->frames[i];
	const kp_image *im = frame_image(c->r, f);
	const char *fn = frame_function(c, i, fbuf, sizeof fbuf);
	if (fn)
		snprintf(buf, size, "%s!%s", image_key_name(im), fn);
	else if (im && f->has_offset)
		snprintf(buf, size, "%s+0x%" PRIx64, image_key_name(im), f->offset);
	else
		snprintf(buf, size, "%s", image_key_name(im));
}

/* Index of the first frame after the machinery (see header). */
static size_t first_relevant(const frame_ctx *c, size_t nkernel)
{
	char fbuf[256];
	size_t s = 0;
	while (s < nkernel) {
		const char *fn = frame_function(c, s, fbuf, sizeof fbuf);
		if (!fn || !kp_sig_is_machinery(fn))
			break;
		s++;
	}
	size_t k = s;
	while (k < nkernel && !frame_function(c, k, fbuf, sizeof fbuf) &&
	       image_is_kernel(c->r, frame_image(c->r, &c->t->frames[k])))
		k++;
	if (k > s && k < nkernel)
		s = k;
	return s;
}

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

bool kp_sig_culprit_frame(const kp_report *r, const kp_thread *t, size_t *frame)
{
	for (size_t i = 0; t && i < t->nframes; i++) {
		const kp_image *im = frame_image(r, &t->frames[i]);
		if (!t->frames[i].user && im && im->name && !image_is_kernel(r, im) && !kp_sig_is_apple(im->name) &&
		    im->kind != 'P' && im->kind != 'S' && im->kind != 'C') {
			*frame = i;
			return true;
		}
	}
	return false;
}

static const char *culprit_kext(const kp_report *r, const kp_thread *t)
{
	size_t k;
	if (kp_sig_culprit_frame(r, t, &k))
		return r->images[t->frames[k].image].name;
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (im->in_backtrace && im->name && !image_is_kernel(r, im) && !kp_sig_is_apple(im->name))
			return im->name;
	}
	return NULL;
}

void kp_sig_free(kp_sig *s)
{
	if (!s)
		return;
	free(s->headline);
	free(s->frames);
	free(s->culprit);
	free(s->title);
	memset(s, 0, sizeof *s);
}

static void hash_part(kp_sha1 *h, const char *s)
{
	kp_sha1_update(h, s, strlen(s));
	kp_sha1_update(h, "\n", 1);
}

/* A frame in the exact key: its image's UUID (or label) and offset. */
static void hash_frame(kp_sha1 *h, const kp_report *r, const kp_frame *f)
{
	const kp_image *im = frame_image(r, f);
	char part[96];
	snprintf(part, sizeof part, "%s+0x%" PRIx64, im && im->uuid ? im->uuid : image_key_name(im),
	         f->has_offset ? f->offset : 0);
	hash_part(h, part);
}

/* The group's title: the normalised headline's first line (to a written
 * "\n" as well: a machine check's register dump is not its title) and the
 * call site's file when the message ends in one, or none.  The culprit is
 * a column of its own beside it, never repeated. */
static char *make_title(const char *headline, const char *none)
{
	kp_sb title = {0};
	const char *h = headline ? headline : "";
	size_t n = strlen(h);
	const char *tail = NULL;   /* after the last written newline */
	for (const char *q = h; *q; q++) {
		size_t k = written_newline(q);
		if (!k)
			continue;
		if (!tail)
			n = (size_t)(q - h);
		tail = q + k;
		q += k - 1;
	}
	while (n && strchr(" ,:", h[n - 1]))
		n--;
	if (n >= 10 && strncmp(h + n - 10, " registers", 10) == 0)
		n -= 10;
	while (n && strchr(" ,", h[n - 1]))
		n--;
	if (!n)
		h = none, n = strlen(none);
	kp_sb_add(&title, h, n);
	/* the call site xnu appends to the message's last line, as the
	 * normalised headline writes it ("file.cpp" from "@/.../file.cpp:N",
	 * "@file.cpp:NUM" from "@file.cpp:N"), stays in a title cut short */
	if (tail) {
		tail += strspn(tail, " ");
		size_t t = strcspn(tail, " ");
		bool at = tail[0] == '@';
		const char *colon = memchr(tail, ':', t);
		size_t b = colon ? (size_t)(colon - tail) : t;
		const char *dot = memchr(tail, '.', b);
		if (!tail[t] && dot && dot > tail + at && dot + 1 < tail + b &&
		    (at ? colon && t - b == 4 && !strncmp(colon, ":NUM", 4) : !colon)) {
			kp_sb_str(&title, " @");
			kp_sb_add(&title, tail + at, b - at);
		}
	}
	return kp_sb_take(&title);
}

/* Watchdogs, stackshots and resets (issue 14): the group is what the report
 * blames, never its counts or addresses:
 *  - watchdog: namespace + blamed process + the blocking frame's label (the
 *    first frame of the blamed thread after the machinery that names
 *    something);
 *  - stackshot: normalised reason + the first frontmost process;
 *  - reset: normalised reason.
 * The exact key adds the kernel UUID and the blamed thread's frames as
 * (image UUID, offset).  The culprit is the blamed or frontmost process. */
static kp_status sig_hang(const kp_report *r, kp_sig_symbol_fn fn, void *ctx, kp_sig *out,
                          kp_error *err)
{
	/* a spindump's headline names whom it blames and the kext (issue 24);
	 * its reason (the Event line) is the same for every one */
	bool spin = r->kind == KP_KIND_HANG || r->kind == KP_KIND_STALL || r->kind == KP_KIND_SLEEPWAKE;
	out->headline = kp_sig_normalize_headline(r->reason && !(spin && r->headline) ? r->reason : r->headline);
	const kp_process *bp = NULL;
	const kp_thread *t = kp_report_blamed_thread(r, &bp);
	/* the first of frontmostPids, else the first process marked frontmost */
	const char *front = NULL;
	for (size_t k = 0; k < r->nfrontmost && !front; k++)
		for (size_t i = 0; i < r->nprocesses && !front; i++)
			if (r->processes[i].has_pid && r->processes[i].pid == r->frontmost_pids[k])
				front = r->processes[i].name ? r->processes[i].name : "?";
	for (size_t i = 0; i < r->nprocesses && !front; i++)
		if (r->processes[i].frontmost)
			front = r->processes[i].name ? r->processes[i].name : "?";
	const char *culprit = r->kind == KP_KIND_WATCHDOG ? r->blamed_process
	                      : r->kind == KP_KIND_STACKSHOT ? (r->blamed_process ? r->blamed_process : front)
	                      /* issue 24: a spindump's kext, else its blamed process */
	                      : spin ? (culprit_kext(r, t) ? culprit_kext(r, t) : r->blamed_process)
	                                                     : NULL;
	kp_sha1 ex, gr;
	kp_sha1_init(&ex);
	kp_sha1_init(&gr);
	hash_part(&gr, kp_kind_name(r->kind));
	hash_part(&ex, kp_kind_name(r->kind));
	hash_part(&ex, r->kernel_uuid ? r->kernel_uuid : "?");
	hash_part(&ex, out->headline ? out->headline : "");
	char label[512] = "";
	if (r->kind == KP_KIND_WATCHDOG) {
		hash_part(&gr, r->term_namespace ? r->term_namespace : "");
		hash_part(&gr, r->blamed_process ? r->blamed_process : "");
		if (t && t->nframes) {
			frame_ctx c = {r, t, fn, ctx};
			for (size_t i = first_relevant(&c, t->nframes); i < t->nframes && !label[0]; i++) {
				frame_label(&c, i, label, sizeof label);
				if (strcmp(label, "?") == 0)
					label[0] = '\0';
			}
		}
		hash_part(&gr, label);
	} else {
		hash_part(&gr, out->headline ? out->headline : "");
		if (r->kind == KP_KIND_STACKSHOT)
			hash_part(&gr, front ? front : "");
	}
	for (size_t i = 0; t && i < t->nframes; i++)
		hash_frame(&ex, r, &t->frames[i]);
	uint8_t d[20];
	kp_sha1_final(&ex, d);
	kp_sha1_to_hex(d, out->exact_key);
	kp_sha1_final(&gr, d);
	kp_sha1_to_hex(d, out->group_key);
	out->frames = xstrdup(label);
	out->culprit = xstrdup(culprit);
	out->title = make_title(out->headline, kp_kind_name(r->kind));
	if (!out->headline || !out->frames || !out->title || (culprit && !out->culprit)) {
		kp_sig_free(out);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	return KP_OK;
}

kp_status kp_sig_compute(const kp_report *r, kp_sig_symbol_fn fn, void *ctx, kp_sig *out,
                         kp_error *err)
{
	memset(out, 0, sizeof *out);
	if (r->kind != KP_KIND_PANIC)
		return sig_hang(r, fn, ctx, out, err);
	const char *hl = r->headline;
	char *first_line = NULL;
	if (!hl && r->panic_string) {
		const char *nl = strchr(r->panic_string, '\n');
		size_t n = nl ? (size_t)(nl - r->panic_string) : strlen(r->panic_string);
		if ((first_line = malloc(n + 1))) {
			memcpy(first_line, r->panic_string, n);
			first_line[n] = '\0';
		}
		hl = first_line;
	}
	out->headline = kp_sig_normalize_headline(hl);
	free(first_line);

	const kp_thread *t = kp_report_panicked_thread(r, NULL);
	frame_ctx c = {r, t, fn, ctx};
	size_t nkernel = 0, start = 0;
	if (t) {
		while (nkernel < t->nframes && !t->frames[nkernel].user)
			nkernel++;
		start = first_relevant(&c, nkernel);
	}

	kp_sha1 ex, gr;
	kp_sha1_init(&ex);
	kp_sha1_init(&gr);
	hash_part(&ex, r->kernel_uuid ? r->kernel_uuid : "?");
	hash_part(&ex, out->headline ? out->headline : "");
	if (r->zone.name) {
		/* zone exhaustion: the zone's name as written (kalloc.48 is not
		 * kalloc.1024) stands for the headline and its counts */
		hash_part(&gr, "zone exhaustion");
		hash_part(&gr, r->zone.name);
	} else {
		hash_part(&gr, out->headline ? out->headline : "");
	}

	kp_sb frames = {0};
	char label[512], prev[512] = "";
	size_t ntop = 0;
	for (size_t i = start; i < nkernel; i++) {
		const kp_frame *f = &t->frames[i];
		hash_frame(&ex, r, f);
		if (ntop < KP_SIG_TOP_FRAMES) {
			frame_label(&c, i, label, sizeof label);
			if (strcmp(label, prev) == 0)
				continue;
			memcpy(prev, label, sizeof prev);
			hash_part(&gr, label);
			if (ntop)
				kp_sb_str(&frames, " | ");
			kp_sb_str(&frames, label);
			ntop++;
		}
	}
	uint8_t d[20];
	kp_sha1_final(&ex, d);
	kp_sha1_to_hex(d, out->exact_key);
	kp_sha1_final(&gr, d);
	kp_sha1_to_hex(d, out->group_key);
	out->frames = kp_sb_take(&frames);

	const char *k = culprit_kext(r, t);
	if (k) {
		out->culprit = xstrdup(k);
	} else if (t) {
		/* the first frame after the machinery that names something */
		for (size_t i = start; i < nkernel && !out->culprit; i++) {
			frame_label(&c, i, label, sizeof label);
			if (strcmp(label, "?") != 0 && !(out->culprit = xstrdup(label)))
				break;
		}
	}

	if (r->zone.name) {
		/* the group is the zone: name it as written (the normalised
		 * headline says kalloc.NUM for every kalloc zone) */
		kp_sb zt = {0};
		kp_sb_str(&zt, "zone exhaustion: leak suspect zone ");
		kp_sb_str(&zt, r->zone.name);
		char *zh = kp_sb_take(&zt);
		out->title = zh ? make_title(zh, "") : NULL;
		free(zh);
	} else {
		out->title = make_title(out->headline, "(no panic message)");
	}

	if (!out->headline || !out->frames || !out->title || (k && !out->culprit)) {
		kp_sig_free(out);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	return KP_OK;
}
