/* waitchain.c: from a stackshot's waitInfo and turnstileInfo lines to who
 * waits for whom (panic-formats.md section 6).
 *
 * Both arrays are per process, each line "thread <tid>: TEXT".  TEXT is put
 * on its thread verbatim (waits_on, turnstile) and read for the next hop:
 *  - waitInfo "... owned by thread N", "unknown type T (owner N, ...)": the
 *    owner thread (the direct next hop); "... owned by pid N", "... to pid
 *    N": the owner process only;
 *  - turnstileInfo "blocked on N, hops: H, priority: P": the turnstile's
 *    inheritor, which may be H hops away (so a waitInfo owner wins as the
 *    direct hop) and may belong to another process;
 *  - a trailing "(NAME)" without blanks in either is the port's service.
 * Chains that differ only in their first link (16 threads on one lock) are
 * kept once, with the count of the others (nsame).
 * Text it does not understand stays on the thread (and in the process's
 * arrays) as it was.  A line naming a thread the process does not hold is
 * kept in the arrays only.
 *
 * Chains: each thread has at most one next hop, so the links form a graph of
 * out-degree one; chain lengths and cycles are found in one pass over it
 * (O(threads)), and only the longest chains (and one a cycle) are written
 * out, each capped, so a hostile report of 2^18 threads in one chain stays
 * linear. */
#include "kp_waitchain.h"
#include "report_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KP_MAX_CHAINS 16          /* the longest ones kept */
#define KP_MAX_CYCLE_CHAINS 16    /* and at most this many more, for cycles */
#define KP_MAX_CHAIN_LINKS 256    /* a longer chain is cut here */

typedef struct tid_ent {
	uint64_t tid;
	int proc, thread;
} tid_ent;

static int cmp_tid(const void *a, const void *b)
{
	const tid_ent *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The entry for tid, preferring one in process proc (ids are unique
 * system-wide, but a hostile report may repeat them). */
static const tid_ent *find_tid(const tid_ent *v, size_t n, uint64_t tid, int proc)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	const tid_ent *first = lo < n && v[lo].tid == tid ? &v[lo] : NULL;
	for (size_t i = lo; i < n && v[i].tid == tid; i++)
		if (v[i].proc == proc)
			return &v[i];
	return first;
}

static bool read_dec(const char *s, uint64_t *out, const char **after)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (n == 0 || !kp_parse_u64(s, n, out))
		return false;
	if (after)
		*after = s + n;
	return true;
}

/* The number after the first occurrence of pat in s. */
static bool num_after(const char *s, const char *pat, uint64_t *out)
{
	const char *p = strstr(s, pat);
	return p && read_dec(p + strlen(pat), out, NULL);
}

/* "thread <tid>: " -> tid and the text after it. */
static const char *split_line(const char *line, uint64_t *tid)
{
	if (strncmp(line, "thread ", 7) != 0)
		return NULL;
	const char *p;
	if (!read_dec(line + 7, tid, &p) || p[0] != ':')
		return NULL;
	return p[1] == ' ' ? p + 2 : p + 1;
}

/* A trailing "(NAME)" with no blank inside: the port's service label. */
static char *service_of(kp_report *r, const char *text)
{
	size_t n = strlen(text);
	if (n < 3 || text[n - 1] != ')')
		return NULL;
	const char *open = NULL;
	for (size_t i = n - 1; i-- > 0;) {
		if (text[i] == '(') {
			open = text + i;
			break;
		}
		if (text[i] == ' ' || text[i] == ')')
			return NULL;
	}
	if (!open || open + 1 == text + n - 1)
		return NULL;
	return kp__strndup(r, open + 1, (size_t)(text + n - 1 - (open + 1)));
}

static void read_wait_info(kp_report *r, kp_thread *t, const char *text)
{
	uint64_t v;
	t->waits_on = (char *)text;
	if (num_after(text, "owned by thread ", &v) || num_after(text, "(owner ", &v) ||
	    num_after(text, "inheritor thread ", &v)) {
		if (v != 0)   /* "owner 0": nobody */
			t->has_blocked_tid = true, t->blocked_tid = v;
	} else if ((num_after(text, "owned by pid ", &v) || num_after(text, " to pid ", &v)) &&
	           v <= INT64_MAX) {
		t->has_blocked_pid = true, t->blocked_pid = (int64_t)v;
	}
	if (!t->service)
		t->service = service_of(r, text);
}

static void read_turnstile(kp_report *r, kp_thread *t, const char *text)
{
	uint64_t v;
	t->turnstile = (char *)text;
	if (strncmp(text, "blocked on ", 11) == 0) {
		const char *s = text + 11;
		if (strncmp(s, "pid ", 4) == 0 || strncmp(s, "task pid ", 9) == 0) {
			if (num_after(s, "pid ", &v) && v <= INT64_MAX && !t->has_blocked_pid)
				t->has_blocked_pid = true, t->blocked_pid = (int64_t)v;
		} else if (read_dec(s, &v, NULL) && v != 0 && !t->has_blocked_tid) {
			t->has_blocked_tid = true, t->blocked_tid = v;
		}
	}
	if (num_after(text, "hops: ", &v) && v <= 0x7fffffff)
		t->has_hops = true, t->hops = (int)v;
	if (num_after(text, "priority: ", &v) && v <= 0x7fffffff)
		t->has_wait_priority = true, t->wait_priority = (int)v;
	if (!t->service)
		t->service = service_of(r, text);
}

/* Puts each line of lines on its thread of process pi. */
static void attach(kp_report *r, const tid_ent *ix, size_t n, int pi, const kp_strs *lines,
                   bool turnstile)
{
	for (size_t k = 0; k < lines->n; k++) {
		uint64_t tid;
		const char *text = split_line(lines->v[k], &tid);
		const tid_ent *e = text ? find_tid(ix, n, tid, pi) : NULL;
		if (!e || e->proc != pi)
			continue;   /* kept verbatim in the process's array only */
		kp_thread *t = &r->processes[pi].threads[e->thread];
		if (turnstile ? t->turnstile != NULL : t->waits_on != NULL)
			continue;   /* the first line for a thread wins */
		if (turnstile)
			read_turnstile(r, t, text);
		else
			read_wait_info(r, t, text);
	}
}

typedef struct node {
	int next;        /* flat index of the next hop, -1 when none in the report */
	int depth;       /* links in its chain, itself included */
	bool cycle;      /* its chain ends in a cycle */
	int cyc;         /* which cycle (numbered from 0), when cycle */
	bool head;       /* nobody waits for it */
	unsigned char state;   /* 0 new, 1 on the walk, 2 done */
} node;

typedef struct cand {
	int node, depth;
} cand;

static int cmp_cand(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* depth and cycle of every node, one walk per unvisited node; returns the
 * number of cycles, -1 when out of memory. */
static int measure(node *g, size_t n)
{
	int ncycles = 0;
	int *stack = malloc((n ? n : 1) * sizeof *stack);
	if (!stack)
		return -1;
	for (size_t s = 0; s < n; s++) {
		if (g[s].state)
			continue;
		size_t top = 0;
		int cur = (int)s;
		while (cur >= 0 && g[cur].state == 0) {
			g[cur].state = 1;
			stack[top++] = cur;
			cur = g[cur].next;
		}
		int base = 0, id = -1;
		bool cyc = false;
		if (cur >= 0 && g[cur].state == 1) {
			/* a new cycle: its members from cur to the top of the stack */
			size_t from = top;
			while (from > 0 && stack[from - 1] != cur)
				from--;
			from--;
			int len = (int)(top - from);
			id = ncycles++;
			for (size_t k = from; k < top; k++) {
				g[stack[k]].depth = len;
				g[stack[k]].cycle = true;
				g[stack[k]].cyc = id;
				g[stack[k]].state = 2;
			}
			top = from;
			base = len;
			cyc = true;
		} else if (cur >= 0) {
			base = g[cur].depth;
			cyc = g[cur].cycle;
			id = g[cur].cyc;
		}
		while (top > 0) {
			int k = stack[--top];
			g[k].depth = ++base;
			g[k].cycle = cyc;
			g[k].cyc = id;
			g[k].state = 2;
		}
	}
	free(stack);
	return ncycles;
}

static bool write_chain(kp_report *r, const node *g, const kp_thread_ref *refs, int start)
{
	kp_chain *c = &r->chains[r->nchains];
	size_t cap = (size_t)g[start].depth;
	if (cap > KP_MAX_CHAIN_LINKS)
		cap = KP_MAX_CHAIN_LINKS;
	c->links = kp__alloc(r, cap * sizeof *c->links);
	if (!c->links)
		return false;
	int cur = start;
	while (cur >= 0 && c->nlinks < cap) {
		for (size_t k = 0; k < c->nlinks; k++)
			if (c->links[k].proc == refs[cur].proc && c->links[k].thread == refs[cur].thread) {
				c->cycle = true;
				goto done;
			}
		c->links[c->nlinks++] = refs[cur];
		cur = g[cur].next;
	}
	if (cur >= 0 && g[start].cycle)
		c->cycle = true;   /* cut before the cycle closed, but it does */
done:;
	const kp_thread *last = &r->processes[c->links[c->nlinks - 1].proc]
	                                .threads[c->links[c->nlinks - 1].thread];
	if (!c->cycle && cur < 0 && !last->has_blocked_tid && last->has_blocked_pid)
		c->has_end_pid = true, c->end_pid = last->blocked_pid;
	r->nchains++;
	return true;
}

/* A written chain whose second link is next: counts one more waiter in it. */
static bool same_next(kp_report *r, const kp_thread_ref *refs, int next)
{
	for (size_t c = 0; c < r->nchains; c++) {
		kp_chain *ch = &r->chains[c];
		if (ch->nlinks > 1 && ch->links[1].proc == refs[next].proc &&
		    ch->links[1].thread == refs[next].thread) {
			ch->nsame++;
			return true;
		}
	}
	return false;
}

bool kp__waitchain_build(kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		n += r->processes[i].nthreads;
	if (n == 0 || n > 0x7fffffff)
		return true;
	bool ok = false;
	tid_ent *ix = malloc(n * sizeof *ix);
	kp_thread_ref *refs = malloc(n * sizeof *refs);
	node *g = calloc(n, sizeof *g);
	cand *cands = malloc(n * sizeof *cands);
	unsigned char *written = NULL;   /* cycles with a chain */
	if (!ix || !refs || !g || !cands)
		goto out;
	size_t m = 0, flat = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++, flat++) {
			refs[flat] = (kp_thread_ref){(int)i, (int)j};
			if (r->processes[i].threads[j].has_id)
				ix[m++] = (tid_ent){r->processes[i].threads[j].id, (int)flat, 0};
		}
	/* index by tid; proc holds the flat index for now */
	for (size_t k = 0; k < m; k++) {
		kp_thread_ref t = refs[ix[k].proc];
		ix[k].proc = t.proc;
		ix[k].thread = t.thread;
	}
	qsort(ix, m, sizeof *ix, cmp_tid);
	for (size_t i = 0; i < r->nprocesses; i++) {
		attach(r, ix, m, (int)i, &r->processes[i].wait_info, false);
		attach(r, ix, m, (int)i, &r->processes[i].turnstile_info, true);
	}
	/* resolve the next hops and build the graph */
	size_t *first = malloc((r->nprocesses + 1) * sizeof *first);
	if (!first)
		goto out;
	flat = 0;
	for (size_t i = 0; i < r->nprocesses; i++) {
		first[i] = flat;
		flat += r->processes[i].nthreads;
	}
	flat = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++, flat++) {
			kp_thread *t = &r->processes[i].threads[j];
			g[flat].next = -1;
			g[flat].head = true;
			if (!t->has_blocked_tid)
				continue;
			const tid_ent *e = find_tid(ix, m, t->blocked_tid, (int)i);
			if (!e)
				continue;
			t->blocked_proc = e->proc;
			t->blocked_thread = e->thread;
			g[flat].next = (int)(first[e->proc] + (size_t)e->thread);
		}
	free(first);
	for (size_t k = 0; k < n; k++)
		if (g[k].next >= 0)
			g[g[k].next].head = false;
	int ncycles = measure(g, n);
	if (ncycles < 0)
		goto out;
	written = calloc((size_t)ncycles + 1, 1);
	if (!written)
		goto out;
	/* candidates: every waiting chain head and cycle member, longest first */
	size_t nc = 0;
	for (size_t k = 0; k < n; k++) {
		const kp_thread *t = &r->processes[refs[k].proc].threads[refs[k].thread];
		const kp_process *p = &r->processes[refs[k].proc];
		/* "semaphore ... owned by pid SELF" names no one: not a chain */
		bool self = !t->has_blocked_tid && t->has_blocked_pid && p->has_pid && t->blocked_pid == p->pid;
		if ((g[k].head || g[k].cycle) && (t->has_blocked_tid || t->has_blocked_pid) && !self)
			cands[nc++] = (cand){(int)k, g[k].depth};
	}
	qsort(cands, nc, sizeof *cands, cmp_cand);
	size_t max = KP_MAX_CHAINS + KP_MAX_CYCLE_CHAINS;
	r->chains = kp__alloc(r, max * sizeof *r->chains);
	if (!r->chains)
		goto out;
	memset(r->chains, 0, max * sizeof *r->chains);
	/* the longest KP_MAX_CHAINS heads, then one chain for each cycle not
	 * shown yet; a cycle nobody outside it reaches is shown once */
	for (size_t k = 0; k < nc && r->nchains < max; k++) {
		const node *v = &g[cands[k].node];
		bool fresh_cycle = v->cycle && !written[v->cyc];
		if (!v->head && !fresh_cycle)
			continue;
		if (v->next >= 0 && v->head && same_next(r, refs, v->next))
			continue;
		if (r->nchains >= KP_MAX_CHAINS && !fresh_cycle)
			continue;
		if (v->cycle)
			written[v->cyc] = 1;
		if (!write_chain(r, g, refs, cands[k].node))
			goto out;
	}
	ok = true;
out:
	free(ix);
	free(refs);
	free(g);
	free(cands);
	free(written);
	return ok;
}

/* ---- describing chains (kp_waitchain.h) ---------------------------------- */

static void sb_fmt(kp_sb *b, const char *fmt, long long v)
{
	char num[64];
	int n = snprintf(num, sizeof num, fmt, v);
	if (n > 0)
		kp_sb_add(b, num, (size_t)n < sizeof num ? (size_t)n : sizeof num - 1);
}

static void sb_u64(kp_sb *b, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof num, "%llu", (unsigned long long)v);
	kp_sb_add(b, num, (size_t)n);
}

bool kp_waitchain_promoted(const kp_thread *t)
{
	return t->has_sched_priority && t->has_base_priority && t->sched_priority > t->base_priority;
}

bool kp_waitchain_thread(const kp_report *r, kp_thread_ref ref, kp_sb *out)
{
	const kp_process *p = &r->processes[ref.proc];
	const kp_thread *t = &p->threads[ref.thread];
	kp_sb_str(out, p->name ? p->name : "?");
	kp_sb_str(out, "[");
	if (p->has_pid)
		sb_fmt(out, "%lld", (long long)p->pid);
	else
		kp_sb_str(out, "?");
	kp_sb_str(out, "] ");
	if (t->has_id)
		sb_u64(out, t->id);
	else
		kp_sb_str(out, "?");
	return !out->oom;
}

bool kp_waitchain_state(const kp_thread *t, kp_sb *out)
{
	kp_sb_str(out, t->state && t->state[0] ? t->state : "state unknown");
	if (t->has_sched_priority)
		sb_fmt(out, ", priority %lld", t->sched_priority);
	if (kp_waitchain_promoted(t))
		sb_fmt(out, " (promoted from %lld)", t->base_priority);
	return !out->oom;
}

bool kp_waitchain_format(const kp_report *r, const kp_chain *c, kp_sb *out)
{
	for (size_t k = 0; k < c->nlinks; k++) {
		if (k)
			kp_sb_str(out, " -> ");
		kp_waitchain_thread(r, c->links[k], out);
	}
	if (!c->nlinks)
		return !out->oom;
	const kp_thread *last = &r->processes[c->links[c->nlinks - 1].proc]
	                                .threads[c->links[c->nlinks - 1].thread];
	if (c->cycle) {
		kp_sb_str(out, " -> back to ");
		if (last->blocked_proc >= 0)
			kp_waitchain_thread(r, (kp_thread_ref){last->blocked_proc, last->blocked_thread}, out);
		else
			kp_sb_str(out, "an earlier thread");
		kp_sb_str(out, ": a deadlock");
	} else if (c->has_end_pid) {
		const char *name = NULL;
		for (size_t i = 0; i < r->nprocesses; i++)
			if (r->processes[i].has_pid && r->processes[i].pid == c->end_pid)
				name = r->processes[i].name;
		sb_fmt(out, " -> pid %lld", (long long)c->end_pid);
		if (name) {
			kp_sb_str(out, " (");
			kp_sb_str(out, name);
			kp_sb_str(out, ")");
		}
	} else if (last->has_blocked_tid && last->blocked_proc < 0) {
		kp_sb_str(out, " -> thread ");
		sb_u64(out, last->blocked_tid);
		kp_sb_str(out, " (not in the report)");
	} else {
		kp_sb_str(out, " (");
		kp_waitchain_state(last, out);
		kp_sb_str(out, ")");
	}
	return !out->oom;
}
