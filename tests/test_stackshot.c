/* test_stackshot.c: the rest of the family (issue 14): bug_types 288, 409,
 * 509, 151 and unknown ones with processByPid, read from the fixtures that
 * make_stackshots.py writes around the Mach-O fixtures; the grown thread and
 * process model; wait chains (across processes, a cycle, an owner pid) and
 * the real iOS 26 panic-full's chain to its panicked thread. */
#include "kt.h"
#include "kp_report.h"
#include "kp_signature.h"
#include "kp_symbols.h"
#include "kt_slurp.h"

#include <stdlib.h>

#define SS KP_FIXTURES "/stackshots/"

static kp_report *load(const char *path)
{
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(path, &r, &err) != KP_OK)
		printf("# %s: %s\n", path, err.msg);
	return r;
}

static const kp_process *proc_by_pid(const kp_report *r, int64_t pid)
{
	for (size_t i = 0; i < r->nprocesses; i++)
		if (r->processes[i].has_pid && r->processes[i].pid == pid)
			return &r->processes[i];
	return NULL;
}

static const kp_thread *thread(const kp_report *r, uint64_t tid)
{
	return kp_report_thread_by_id(r, tid, NULL);
}

static bool has_warning(const kp_report *r, const char *needle)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i].msg, needle))
			return true;
	return false;
}

static const kp_thread *link_thread(const kp_report *r, const kp_chain *c, size_t k)
{
	return &r->processes[c->links[k].proc].threads[c->links[k].thread];
}

/* The fixture's processes as every kind holds them. */
static void check_model(const kp_report *r, const char *what)
{
	const kp_process *fc = proc_by_pid(r, 321), *kt = proc_by_pid(r, 0);
	KT_CHECK(r->nprocesses >= 4 && fc && kt, "%s: processes read (%zu)", what, r->nprocesses);
	if (!fc || !kt)
		return;
	/* process members */
	KT_CHECK(fc->flags.n == 2 && strcmp(fc->flags.v[1], "boostedByDonation") == 0, "%s: process flags", what);
	KT_CHECK(fc->wait_info.n == 5 && strcmp(fc->wait_info.v[4], "garbage without a thread prefix") == 0,
	         "%s: waitInfo kept verbatim, unreadable line too", what);
	KT_CHECK(fc->turnstile_info.n == 2, "%s: turnstileInfo", what);
	KT_CHECK(fc->has_resident_bytes && fc->resident_bytes == 52428800, "%s: resident bytes", what);
	KT_CHECK(fc->has_user_time && fc->user_time == 1.5 && fc->has_system_time && fc->system_time == 0.25,
	         "%s: task times", what);
	KT_CHECK(kt->has_user_time && kt->user_time > 19289.7 && kt->user_time < 19289.71, "%s: fractional time", what);
	/* threads */
	const kp_thread *t = thread(r, 4242);
	KT_CHECK(t && t->state && strcmp(t->state, "TH_WAIT TH_UNINT") == 0, "%s: state list", what);
	KT_STREQ(t ? t->qos_effective : NULL, "QOS_CLASS_USER_INTERACTIVE", "qos effective");
	KT_STREQ(t ? t->qos_requested : NULL, "QOS_CLASS_USER_INTERACTIVE", "qos requested");
	KT_STREQ(t ? t->dispatch_queue : NULL, "com.apple.main-thread", "dispatch queue");
	/* 1 kernel frame ([2,0] dropped), then 2 user frames ([2,0] dropped) */
	KT_CHECK(t && t->nframes == 3 && !t->frames[0].user && t->frames[1].user && t->frames[2].user,
	         "%s: kernel then user frames (%zu)", what, t ? t->nframes : 0);
	if (t && t->nframes == 3) {
		KT_U64EQ(t->frames[1].address, 0x100000000ull + t->frames[1].offset, "user frame = base + offset");
		KT_CHECK(t->frames[1].image == 1 && r->images[1].kind == 'P', "%s: user frame in a P image", what);
		KT_U64EQ(t->frames[0].address, 0xfffffe0007004000ull + t->frames[0].offset, "kernel frame = U base + offset");
	}
	const kp_thread *e = thread(r, 4243);
	KT_STREQ(e ? e->dispatch_queue : NULL, "", "empty dispatch queue label kept");
	const kp_thread *u = thread(r, 4244);
	KT_CHECK(u && strcmp(u->state, "TH_WAIT TH_FUTURE_STATE") == 0, "%s: unknown state passed through", what);
	KT_CHECK(u && u->sched_flags.n == 2 && strcmp(u->sched_flags.v[1], "TH_SFLAG_UNKNOWN_0x80000") == 0,
	         "%s: unknown sched flag passed through", what);
	KT_STREQ(u ? u->waits_on : NULL, "a future wait kind nobody parses yet", "unparsed waitInfo kept on its thread");
	KT_CHECK(u && !u->has_blocked_tid && !u->has_blocked_pid, "%s: ... and names nobody", what);
	const kp_thread *w = thread(r, 5002);
	KT_CHECK(w && w->has_sched_priority && w->sched_priority == 47 && w->base_priority == 31,
	         "%s: promoted 31 -> 47", what);
	KT_STREQ(w ? w->qos_override : NULL, "QOS_CLASS_USER_INTERACTIVE", "qos override");
	const kp_thread *c = thread(r, 101);
	KT_CHECK(c && c->nframes == 0 && c->has_continuation && c->continuation.image == 0 &&
	         !c->continuation.user && c->continuation.offset == 804,
	         "%s: a thread with only a continuation", what);
	KT_CHECK(c && c->has_wait_event && c->wait_event.offset == 8082153248414227739ull, "%s: wait event", what);
	const kp_thread *n = thread(r, 102);
	KT_CHECK(n && n->notice && strstr(n->notice, "truncated backtrace") && strstr(n->flags, "kThreadTruncatedBT"),
	         "%s: truncated backtrace notice and flag", what);
}

/* The fixture's wait graph (make_stackshots.py's docstring). */
static void check_chains(const kp_report *r, const char *what)
{
	const kp_thread *a = thread(r, 4242), *b = thread(r, 5001), *x = thread(r, 6001);
	const kp_thread *s = thread(r, 4243), *sv = thread(r, 4245);
	/* the waitInfo owner is the direct hop; the turnstile's hops are kept */
	KT_CHECK(a && a->has_blocked_tid && a->blocked_tid == 5001 && a->has_hops && a->hops == 2 &&
	         a->has_wait_priority && a->wait_priority == 47,
	         "%s: 4242 blocked by 5001 (mutex owner), turnstile hops 2 priority 47", what);
	KT_STREQ(a ? a->waits_on : NULL, "kernel mutex 0xfffffe1000aa0000 owned by thread 5001", "waits_on text");
	KT_STREQ(a ? a->turnstile : NULL, "blocked on 5002, hops: 2, priority: 47", "turnstile text");
	KT_CHECK(a && a->blocked_proc >= 0 && r->processes[a->blocked_proc].pid == 400,
	         "%s: the owner is resolved in another process", what);
	KT_CHECK(b && b->has_blocked_tid && b->blocked_tid == 5002, "%s: 5001 blocked by 5002", what);
	KT_CHECK(s && !s->has_blocked_tid && s->has_blocked_pid && s->blocked_pid == 400,
	         "%s: semaphore owned by pid 400", what);
	KT_STREQ(sv ? sv->service : NULL, "com.kpbrowse.fakeservice", "port service label");
	KT_CHECK(x && x->has_blocked_tid && x->blocked_tid == 6002, "%s: 6001 -> 6002", what);
	/* chains: the longest first, the cycle among them */
	KT_CHECK(r->nchains >= 3, "%s: chains (%zu)", what, r->nchains);
	if (r->nchains < 3)
		return;
	const kp_chain *c0 = &r->chains[0];
	KT_CHECK(c0->nlinks == 3 && link_thread(r, c0, 0)->id == 4242 && link_thread(r, c0, 1)->id == 5001 &&
	         link_thread(r, c0, 2)->id == 5002 && !c0->cycle,
	         "%s: longest chain 4242 -> 5001 -> 5002 (%zu links)", what, c0->nlinks);
	int cycles = 0, pid_end = 0;
	for (size_t i = 0; i < r->nchains; i++) {
		const kp_chain *c = &r->chains[i];
		if (c->cycle) {
			cycles++;
			KT_CHECK(c->nlinks == 2 && (link_thread(r, c, 0)->id == 6001 || link_thread(r, c, 0)->id == 6002),
			         "%s: the cycle 6001 <-> 6002", what);
		}
		if (c->has_end_pid && c->end_pid == 400 && link_thread(r, c, 0)->id == 4243)
			pid_end++;
	}
	KT_CHECK(cycles == 1, "%s: one cycle, shown once (%d)", what, cycles);
	KT_CHECK(pid_end == 1, "%s: a chain ending at pid 400", what);
}

static void stackshot_288(void)
{
	kp_report *r = load(SS "Stackshot-2026-11-21-090000.ips");
	KT_CHECK(r != NULL, "288 reads");
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_STACKSHOT && r->format == KP_FORMAT_IPS && r->bug_type == 288,
	         "288: a stackshot");
	KT_STREQ(kp_kind_name(r->kind), "stackshot", "kind name");
	KT_STREQ(r->reason, "fakeclient hang: main thread unresponsive for 10 seconds", "288: reason");
	KT_STREQ(r->headline, r->reason, "288: headline is the reason");
	KT_CHECK(!r->has_blamed_pid && !r->blamed_process, "288: blames nobody");
	KT_CHECK(r->nfrontmost == 1 && r->frontmost_pids[0] == 321, "288: frontmost pids");
	const kp_process *fc = proc_by_pid(r, 321);
	KT_CHECK(fc && fc->frontmost, "288: frontmost process marked");
	KT_CHECK(r->notes.n == 2 && strcmp(r->notes.v[1], "second note") == 0, "288: notes");
	KT_CHECK(r->nwarnings == 0 && !r->truncated, "288: no warnings (%zu)", r->nwarnings);
	check_model(r, "288");
	check_chains(r, "288");
	kp_report_free(&r);
}

static void watchdog_409(void)
{
	kp_report *r = load(SS "WatchdogCrash-2026-11-22-100000.ips");
	KT_CHECK(r != NULL, "409 reads");
	if (!r)
		return;
	KT_CHECK(r->kind == KP_KIND_WATCHDOG && r->bug_type == 409, "409: a watchdog");
	KT_STREQ(r->reason, "monitoring timed out for service", "409: reason from termination");
	KT_CHECK(r->has_blamed_pid && r->blamed_pid == 400, "409: blamed pid");
	KT_STREQ(r->blamed_process, "fakedaemon", "409: blamed process");
	KT_CHECK(r->nprocesses && r->processes[0].pid == 400, "409: blamed process first");
	KT_CHECK(r->notes.n == 1 && strstr(r->notes.v[0], "PC register"), "409: reportNotes");
	KT_CHECK(r->nimages == 4, "409: images from stackshot.binaryImages (%zu)", r->nimages);
	bool kept = false;
	for (size_t i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].key, "stackshot.snapshotVersion") == 0 && strcmp(r->fields[i].value, "3") == 0)
			kept = true;
	KT_CHECK(kept, "409: other stackshot members kept as fields");
	check_model(r, "409");
	check_chains(r, "409");
	kp_report_free(&r);
}

static void others(void)
{
	kp_report *r = load(SS "TerminatingStackshot-2026-11-23-110000.ips");
	KT_CHECK(r && r->kind == KP_KIND_STACKSHOT && r->bug_type == 509, "509: a stackshot");
	KT_CHECK(r && !r->has_blamed_pid, "509: pid -1 blames nobody");
	if (r)
		check_model(r, "509");
	kp_report_free(&r);
	r = load(SS "ForceReset-2026-11-24-120000.ips");
	KT_CHECK(r && r->kind == KP_KIND_RESET && r->nprocesses == 1, "151: a reset with its stackshot");
	KT_STREQ(r ? kp_kind_name(r->kind) : NULL, "reset", "reset name");
	kp_report_free(&r);
	r = load(SS "Future-2026-11-25-130000.ips");
	KT_CHECK(r && r->kind == KP_KIND_STACKSHOT && has_warning(r, "unknown bug_type 999"),
	         "unknown bug_type with processByPid: a stackshot, with a warning");
	KT_STREQ(r ? r->headline : NULL, "stackshot (bug_type 999)", "no reason: the headline says what it is");
	if (r)
		check_chains(r, "999");
	kp_report_free(&r);
}

/* Sniffed by content; refusals and cut-off stackshots. */
static void sniffing(void)
{
	kp_report *r = NULL;
	kp_error err;
	const char *nobt = "{\"termination\":{\"namespace\":\"WATCHDOG\",\"details\":[\"d0\"]},\"processByPid\":{}}";
	KT_CHECK(kp_report_parse(nobt, strlen(nobt), "x", &r, &err) == KP_OK && r->kind == KP_KIND_WATCHDOG &&
	         r->reason && strcmp(r->reason, "d0") == 0,
	         "no bug_type, a termination: a watchdog, reason from details");
	kp_report_free(&r);
	const char *app = "{\"bug_type\":\"309\"}\n{\"procName\":\"Safari\",\"pid\":12}";
	KT_CHECK(kp_report_parse(app, strlen(app), "x", &r, &err) == KP_ERR_NOTPANIC,
	         "309 without processByPid is still refused");
	const char *cut = "{\"bug_type\":\"409\"}\n{\"pid\":7,\"stackshot\":{\"binaryImages\":[],\"processByPid\":"
	                  "{\"7\":{\"pid\":7,\"procname\":\"a\",\"threadById\":{}},\"8\":{\"pid\":8,\"proc";
	KT_CHECK(kp_report_parse(cut, strlen(cut), "x", &r, &err) == KP_OK && r->truncated &&
	         r->nprocesses == 1 && r->processes[0].pid == 7,
	         "409 cut inside stackshot.processByPid keeps its complete processes");
	kp_report_free(&r);
	/* every prefix of a 288 parses or fails with one error */
	size_t len;
	char *buf = kt_slurp(SS "Stackshot-2026-11-21-090000.ips", &len);
	if (!buf)
		len = 0;
	else if (len > 1 << 16)
		len = 1 << 16;   /* the prefixes of its first 64 KiB */
	int ok = len > 0;
	for (size_t i = 1; i < len; i += 7) {
		kp_report *q = NULL;
		kp_status st = kp_report_parse(buf, i, "p", &q, &err);
		ok &= (st == KP_OK) == (q != NULL);
		kp_report_free(&q);
	}
	free(buf);
	KT_CHECK(ok, "every prefix of a 288 parses or fails cleanly");
}

/* Long chains and many cycles stay bounded. */
static void hostile_chains(void)
{
	enum { N = 5000 };
	size_t cap = (size_t)N * 160 + 1024;
	char *b = malloc(cap), *o = b;
	o += sprintf(o, "{\"bug_type\":\"288\"}\n{\"processByPid\":{\"1\":{\"pid\":1,\"waitInfo\":[");
	for (int i = 0; i < N; i++)   /* i waits for i+1; the last for 0: one cycle of N */
		o += sprintf(o, "%s\"thread %d: ulock 0x1 owned by thread %d\"", i ? "," : "", i + 1, (i + 1) % N + 1);
	o += sprintf(o, "],\"threadById\":{");
	for (int i = 0; i < N; i++)
		o += sprintf(o, "%s\"%d\":{\"id\":%d}", i ? "," : "", i + 1, i + 1);
	o += sprintf(o, "}}}}\n");
	kp_report *r = NULL;
	kp_error err;
	kp_status st = kp_report_parse(b, (size_t)(o - b), "x", &r, &err);
	KT_CHECK(st == KP_OK && r->nchains == 1 && r->chains[0].cycle && r->chains[0].nlinks == 256,
	         "a cycle of %d threads: one chain, cut at 256 links", N);
	kp_report_free(&r);
	free(b);
}

/* The real iOS 26 panic-full, values read off the file by hand: in the
 * panicked process (Test, pid 956) 16 threads wait on thread 51690, running
 * on a core (one says so in waitInfo, "unknown type 18 (owner 51690, ...)",
 * all in turnstileInfo, "blocked on 51690, hops: 1, priority: 31"); in
 * MobileSMS 5 wait on 24023, a suspended background thread.  (Section 6 of
 * the format doc says four threads wait on a kernel mutex owned by the
 * panicked thread: this file does not show that.) */
static void ios26_chain(void)
{
	kp_report *r = load(KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips");
	if (!r) {
		KT_SKIP("ips-full-ios26 absent");
		return;
	}
	KT_CHECK(r->kind == KP_KIND_PANIC, "ios26: a panic");
	KT_CHECK(r->has_blamed_pid && r->blamed_pid == 956, "ios26: blamed = panicked pid");
	KT_STREQ(r->blamed_process, "Test", "ios26: blamed process");
	int on_51690 = 0, on_24023 = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++) {
			const kp_thread *t = &r->processes[i].threads[j];
			if (t->has_blocked_tid && t->blocked_tid == 51690 && t->has_hops && t->hops == 1 &&
			    t->wait_priority == 31 && r->processes[t->blocked_proc].pid == 956)
				on_51690++;
			if (t->has_blocked_tid && t->blocked_tid == 24023)
				on_24023++;
		}
	KT_CHECK(on_51690 == 16, "ios26: 16 threads wait on 51690 (%d)", on_51690);
	KT_CHECK(on_24023 == 5, "ios26: 5 threads wait on 24023 (%d)", on_24023);
	const kp_thread *o = thread(r, 51681);
	KT_STREQ(o ? o->waits_on : NULL, "unknown type 18 (owner 51690, context 0)", "ios26: waits_on verbatim");
	const kp_thread *m = thread(r, 24023);
	KT_CHECK(m && m->notice && m->sched_flags.n == 1 && strcmp(m->sched_flags.v[0], "TH_SFLAG_THROTTLED") == 0 &&
	         m->has_continuation && m->qos_effective && strcmp(m->qos_effective, "QOS_CLASS_BACKGROUND") == 0,
	         "ios26: 24023's notice, sched flags, continuation, QoS");
	const kp_thread *rc = thread(r, 46345);
	KT_STREQ(rc ? rc->service : NULL, "com.apple.ReportCrash", "ios26: service label");
	KT_CHECK(r->nchains >= 2 && r->chains[0].nlinks == 2 && !r->chains[0].cycle,
	         "ios26: chains kept, the longest 2 links (%zu)", r->nchains);
	int lock16 = 0, lock5 = 0;
	for (size_t i = 0; i < r->nchains; i++) {
		const kp_chain *c = &r->chains[i];
		if (c->nlinks == 2 && link_thread(r, c, 1)->id == 51690)
			lock16 += c->nsame == 15;
		if (c->nlinks == 2 && link_thread(r, c, 1)->id == 24023)
			lock5 += c->nsame == 4;
	}
	KT_CHECK(lock16 == 1 && lock5 == 1, "ios26: one chain for the 16 waiters on 51690, one for the 5 on 24023");
	const kp_process *sms = proc_by_pid(r, 470);
	KT_CHECK(sms && sms->flags.n >= 1, "ios26: process flags");
	kp_report_free(&r);
}

/* User frames symbolicate by their image's UUID, the offset counted from
 * the Mach header (not __TEXT_EXEC as for kernel images): the answers of
 * llvm-symbolizer in stackshots/expected_user.tsv. */
static void user_symbols(void)
{
	kp_report *r = load(SS "Stackshot-2026-11-21-090000.ips");
	const char *paths[] = {KP_FIXTURES "/bin"};
	kp_symbols_opts o = {.paths = paths, .npaths = 1, .no_env = true, .no_system = true, .cache_dir = ""};
	kp_symbols *s = NULL;
	kp_error err;
	if (!r || kp_symbols_new(&o, &s, &err) != KP_OK) {
		KT_CHECK(0, "symbols open");
		kp_report_free(&r);
		return;
	}
	const kp_thread *t = thread(r, 4242);
	static const struct { size_t frame; uint64_t lookup; const char *fn; } want[] = {
		{1, 0xc1ec, "validateReport(ReportHeader const&, unsigned int, unsigned int)"},
		{2, 0xc2cc, "fakekext_interrupt"},
	};
	for (size_t i = 0; t && i < 2; i++) {
		kp_symresult res;
		kp_sym_status st = kp_symbols_frame(s, r, t, want[i].frame, &res);
		KT_CHECK(st == KP_SYM_OK && res.lookup_address == want[i].lookup && res.nframes &&
		         res.frames[0].function && strcmp(res.frames[0].function, want[i].fn) == 0,
		         "user frame %zu: %s at 0x%llx (%s)", want[i].frame, want[i].fn,
		         (unsigned long long)res.lookup_address, res.nframes ? res.frames[0].function : res.msg);
	}
	kp_symbols_free(&s);
	kp_report_free(&r);
}

/* f's text with each (from, to) replaced once. */
static char *variant(const char *f, const char *const *subs, size_t nsubs)
{
	size_t len;
	char *b = kt_slurp(f, &len);
	for (size_t i = 0; b && i < nsubs; i += 2) {
		char *p = strstr(b, subs[i]);
		if (!p)
			continue;
		size_t a = strlen(subs[i]), z = strlen(subs[i + 1]);
		char *n = malloc(strlen(b) - a + z + 1);
		memcpy(n, b, (size_t)(p - b));
		strcpy(n + (p - b), subs[i + 1]);
		strcat(n, p + a);
		free(b);
		b = n;
	}
	return b;
}

static bool sig_of(const char *text, kp_sig *sig)
{
	kp_report *r = NULL;
	kp_error err;
	bool ok = text && kp_report_parse(text, strlen(text), "v", &r, &err) == KP_OK &&
	          kp_sig_compute(r, NULL, NULL, sig, &err) == KP_OK;
	kp_report_free(&r);
	return ok;
}

/* Group keys: watchdogs by namespace + blamed process + blocking frame,
 * stackshots by reason + frontmost process; counts never split a group. */
static void signatures(void)
{
	kp_sig a, b, c, d;
	static const char *const wd_more[] = {"409A0000-0000-4000-8000-000000000409", "409B0000-0000-4000-8000-000000000409",
	                                      "2026-11-22 10:00", "2026-11-29 10:00"};
	static const char *const wd_other[] = {"\"procName\" : \"fakedaemon\"", "\"procName\" : \"otherd\""};
	char *t1 = variant(SS "WatchdogCrash-2026-11-22-100000.ips", NULL, 0);
	char *t2 = variant(SS "WatchdogCrash-2026-11-22-100000.ips", wd_more, 4);
	char *t3 = variant(SS "WatchdogCrash-2026-11-22-100000.ips", wd_other, 2);
	KT_CHECK(sig_of(t1, &a) && sig_of(t2, &b) && sig_of(t3, &c), "watchdog signatures");
	KT_CHECK(strcmp(a.group_key, b.group_key) == 0, "watchdog: another incident, same group");
	KT_CHECK(strcmp(a.group_key, c.group_key) != 0, "watchdog: another blamed process, another group");
	KT_STREQ(a.culprit, "fakedaemon", "watchdog culprit: the blamed process");
	KT_CHECK(a.frames && strstr(a.frames, "kernel_bootstrap_thread") == NULL && a.frames[0],
	         "watchdog: the blocking frame's label (%s)", a.frames ? a.frames : "");
	KT_STREQ(a.title, "monitoring timed out for service", "watchdog title: the reason (the culprit beside it)");
	kp_sig_free(&a), kp_sig_free(&b), kp_sig_free(&c);
	free(t1), free(t2), free(t3);
	static const char *const ss_secs[] = {"unresponsive for 10 seconds", "unresponsive for 12 seconds",
	                                      "288A0000", "288B0000"};
	static const char *const ss_front[] = {"\"frontmostPids\" : [321]", "\"frontmostPids\" : [400]"};
	t1 = variant(SS "Stackshot-2026-11-21-090000.ips", NULL, 0);
	t2 = variant(SS "Stackshot-2026-11-21-090000.ips", ss_secs, 4);
	t3 = variant(SS "Stackshot-2026-11-21-090000.ips", ss_front, 2);
	char *t4 = variant(SS "TerminatingStackshot-2026-11-23-110000.ips", NULL, 0);
	KT_CHECK(sig_of(t1, &a) && sig_of(t2, &b) && sig_of(t3, &c) && sig_of(t4, &d), "stackshot signatures");
	KT_CHECK(strcmp(a.group_key, b.group_key) == 0, "stackshot: another count in the reason, same group");
	KT_CHECK(strcmp(a.group_key, c.group_key) != 0, "stackshot: another frontmost process, another group");
	KT_CHECK(strcmp(a.group_key, d.group_key) != 0 && strcmp(a.exact_key, a.group_key) != 0,
	         "stackshot: another reason, another group; exact and group keys differ");
	KT_STREQ(a.culprit, "fakeclient", "stackshot culprit: the frontmost process");
	kp_sig_free(&a), kp_sig_free(&b), kp_sig_free(&c), kp_sig_free(&d);
	free(t1), free(t2), free(t3), free(t4);
}

static size_t flags_of(const char *json, const char **names, size_t max)
{
	kp_report *r = NULL;
	kp_error err;
	size_t n = 0;
	if (kp_report_parse(json, strlen(json), "f", &r, &err) == KP_OK)
		n = kp_report_panic_flag_names(r, names, max);
	kp_report_free(&r);
	return n;
}

/* panicFlags by architecture (panic-formats.md section 6's table); the
 * paniclog 15 header lines as images and fields. */
static void panic_flags_v15(void)
{
	const char *names[16];
	size_t n = flags_of("{\"bug_type\":\"210\"}\n{\"kernel\":\"x RELEASE_ARM64_T8112\",\"panicFlags\":\"0x300c0\","
	                    "\"panicString\":\"panic(cpu 0 caller 0x1): a\"}", names, 16);
	KT_CHECK(n == 4 && strcmp(names[0], "nested_panic") == 0 && strcmp(names[1], "button_reset") == 0 &&
	         strcmp(names[2], "exclave_panic") == 0 && strcmp(names[3], "userspace_initiated") == 0,
	         "Apple silicon 0x300c0: nested, button reset, exclave, userspace (%zu)", n);
	n = flags_of("{\"bug_type\":\"210\"}\n{\"kernel\":\"x RELEASE_X86_64\",\"panicFlags\":\"0x10445\","
	             "\"panicString\":\"panic(cpu 0 caller 0x1): a\"}", names, 16);
	KT_CHECK(n == 5 && strcmp(names[0], "nested_panic") == 0 && strcmp(names[1], "stackshot_succeeded") == 0 &&
	         strcmp(names[2], "stackshot_incomplete") == 0 && strcmp(names[3], "stackshot_kernel_only") == 0 &&
	         strcmp(names[4], "userspace_initiated") == 0,
	         "Intel 0x10445: nested, succeeded, incomplete, kernel-only, userspace (%zu)", n);
	kp_report *r = load(KP_REAL_DIR "/ips-full-ios26-iphone-sepkeystore-1.ips");
	if (r) {
		n = kp_report_panic_flag_names(r, names, 16);
		KT_CHECK(n == 2 && strcmp(names[0], "stackshot_succeeded") == 0 &&
		         strcmp(names[1], "stackshot_compressed") == 0, "ios26 0x802: succeeded, compressed");
		kp_report_free(&r);
	} else {
		KT_SKIP("ios26 absent");
	}
	r = load(KP_REAL_DIR "/panicstring-applesilicon-t8142-macos266-watchdog-kextsskipped-1.txt");
	if (!r) {
		KT_SKIP("macos266 absent");
		return;
	}
	const char *want[][3] = {{"SPTM", "EB28BBD0-9218-3B7B-95CF-BC53E21036D4", "0xfffffe001fa4c000"},
	                         {"TXM", "F022806D-8557-38F3-97B8-35BEF392F462", "0xfffffe002fa4c000"},
	                         {"kernelcache", "DC901C02-455A-8411-D941-42773EE435E4", "0xfffffe003fa4c000"}};
	for (size_t k = 0; k < 3; k++) {
		bool found = false;
		for (size_t i = 0; i < r->nimages; i++) {
			const kp_image *im = &r->images[i];
			char start[32];
			snprintf(start, sizeof start, "0x%016llx", (unsigned long long)im->start);
			if (im->kind == 'M' && im->name && strcmp(im->name, want[k][0]) == 0 && im->uuid &&
			    strcmp(im->uuid, want[k][1]) == 0 && im->has_start && strcmp(start, want[k][2]) == 0)
				found = true;
		}
		KT_CHECK(found, "paniclog 15: %s image with its UUID and load address", want[k][0]);
	}
	bool exclaves = false;
	for (size_t i = 0; i < r->nfields; i++)
		exclaves |= strcmp(r->fields[i].key, "text.Exclaves boot status") == 0 &&
		            strcmp(r->fields[i].value, "BOOTED_EXCLAVEKIT") == 0;
	KT_CHECK(exclaves, "paniclog 15: Exclaves boot status kept as a field");
	kp_report_free(&r);
}

static kp_report *text_report(const char *head)
{
	char buf[2048];
	snprintf(buf, sizeof buf, "panic(cpu 2 caller 0xffffff801d4ccb2b): %s\n"
	         "Backtrace (CPU 2), Frame : Return Address\n0xffffff80bf3bbc40 : 0xffffff8000220702 \n"
	         "Kernel version:\nDarwin Kernel Version 19.6.0: x; root:xnu-6153.141.1~1/RELEASE_X86_64\n", head);
	kp_report *r = NULL;
	kp_error err;
	kp_report_parse(buf, strlen(buf), "z.panic", &r, &err);
	return r;
}

/* Zone exhaustion: the suspect zone and its figures, in both forms; the
 * group keeps zones apart by name and counts together. */
static void zones(void)
{
	kp_report *a = text_report("\"zalloc: \"kalloc.1024\" (100535 elements) retry fail 3\"@/x/zalloc.c:2090");
	KT_CHECK(a && a->zone.name && strcmp(a->zone.name, "kalloc.1024") == 0 && a->zone.has_elements &&
	         a->zone.elements == 100535 && !a->zone.has_bytes, "zalloc retry fail: zone kalloc.1024, 100535 elements");
	kp_report *b = text_report("zalloc[3]: zone map exhausted while allocating from zone [default.kalloc.48], likely due to "
	                           "memory leak in zone [default.kalloc.48] (6586956000 total bytes, 137228250 elements allocated) @zalloc.c:3933");
	KT_CHECK(b && b->zone.name && strcmp(b->zone.name, "default.kalloc.48") == 0 && b->zone.elements == 137228250 &&
	         b->zone.has_bytes && b->zone.bytes == 6586956000ull, "zone map exhausted: the leak suspect and its figures");
	kp_report *c = text_report("zone map exhausted, likely due to memory leak in zone kalloc.48 (6G, 137228250 elements allocated)");
	KT_CHECK(c && c->zone.name && strcmp(c->zone.name, "kalloc.48") == 0 && c->zone.bytes == 6ull << 30,
	         "zone size with a G suffix");
	kp_report *d = text_report("zone map exhausted, likely due to memory leak in zone kalloc.48 (7G, 150000000 elements allocated)");
	kp_report *e = text_report("zone map exhausted, likely due to memory leak in zone kalloc.64 (6G, 137228250 elements allocated)");
	kp_sig sc, sd, se;
	kp_error err;
	KT_CHECK(c && d && e && kp_sig_compute(c, NULL, NULL, &sc, &err) == KP_OK &&
	         kp_sig_compute(d, NULL, NULL, &sd, &err) == KP_OK && kp_sig_compute(e, NULL, NULL, &se, &err) == KP_OK &&
	         strcmp(sc.group_key, sd.group_key) == 0 && strcmp(sc.group_key, se.group_key) != 0,
	         "zone groups: other counts together, another zone apart");
	if (c && d && e) {
		kp_sig_free(&sc), kp_sig_free(&sd), kp_sig_free(&se);
	}
	kp_report *n = text_report("Kernel data abort.");
	KT_CHECK(n && !n->zone.name, "no zone in other panics");
	kp_report_free(&a), kp_report_free(&b), kp_report_free(&c), kp_report_free(&d), kp_report_free(&e);
	kp_report_free(&n);
}

int main(void)
{
	zones();
	panic_flags_v15();
	signatures();
	user_symbols();
	stackshot_288();
	watchdog_409();
	others();
	sniffing();
	hostile_chains();
	ios26_chain();
	return kt_done();
}
