/* symsrc.c: the symbol-source table (symsrc.h).  Each row is a
 * source_ops: its name in the trail and the one call that answers "the
 * k-th file you hold for this UUID", saying at k == 0 what it tried. */
#include "symsrc.h"
#include "symconfig.h"
#include "symhttp.h"
#include "kp_fs.h"
#include "kp_lex.h"
#include "kp_macho.h"
#include "kp_proc.h"
#include "plist.h"
#include "kp_strbuf.h"
#include "kp_vec.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The table's order; README and the man page list it the same way. */
enum {
	SRC_BESIDE,       /* X.dSYM beside a binary or bundle named by --dsym */
	SRC_DSYM,         /* --dsym */
	SRC_LOCAL,        /* KPBROWSE_DSYM_PATH, DBGSearchPaths */
	SRC_MAPPED,       /* file-mapped UUID trees: DBGFileMappedPaths */
	SRC_KDK,          /* /Library/Developer/KDKs, /Volumes/KernelDebugKit */
	SRC_SPOTLIGHT,    /* mdfind (macOS) */
	SRC_SHELL,        /* dsymForUUID: DBGShellCommands */
	SRC_SERVER,       /* symbol servers over HTTP(S): SymbolServer */
	SRC_KERNELCACHE,  /* kept kernelcaches, this Mac's own */
	NSRC
};

/* What a source says at k == 0 (NULL at k > 0: it is asked again for the
 * next candidate and says nothing new). */
struct say {
	kp_sb tried, said;
};

/* What a source that is not a folder walk found for one UUID, kept until
 * the table is freed (paths handed out must outlive later lookups). */
struct memo {
	char uuid[37];
	char **paths;         /* candidates, in order */
	size_t n, cap;
	char *tried, *said;
	kp__dsym_answer ans;  /* the dsymForUUID answer the candidates came from */
};

struct source {
	char **roots;         /* folders and files it walks (folder sources); */
	size_t nroots, rcap;  /* file-mapped: its trees */
	struct memo *memos;
	size_t nmemos, mcap;
	bool ready;           /* setup ran */
	const char *off;      /* why it is not consulted, or NULL */
	char **asked;         /* Spotlight: UUIDs already asked of mdfind */
	size_t nasked, acap;
	char **only;          /* Spotlight: DBGSpotlightPaths (mdfind -onlyin each) */
	size_t nonly, ocap;
};

/* A symbol server from the config file; note: what the trail adds to
 * what it said (a setting that could not be used). */
struct server {
	kp__symhttp_server h;
	char note[200];
};

struct kp__symsrc {
	kp_dsym_index *dx;    /* borrowed */
	struct source src[NSRC];
	struct server *servers;   /* in the config file's order */
	size_t nservers, scap;
	kp__symhttp_opts http;    /* .dir: dl_dir; .cancel: &cancelled */
	atomic_bool cancelled;    /* kp__symsrc_cancel: set by any thread */
	char dl_dir[4200];        /* <cache dir>/downloads, "" : none */
	bool no_system;
	int shell_timeout_ms;
	long deadline_s;          /* KPBROWSE_SYMBOL_DEADLINE: one report's asks; 0 none */
	long deadline_at;         /* CLOCK_MONOTONIC ms it ends at while a prefetch runs, else 0 */
	char cache_dir[4096];
	char build[32];
	size_t nkc_cli, nkc_user;   /* kernelcache roots from --kernelcache, and from the user at all */
	char **sigdirs;       /* signature folders: --signatures, KPBROWSE_SIGNATURES, config */
	size_t nsigdirs, sigcap;
};

typedef struct source_ops {
	const char *name;
	const char *none;   /* what it says with nothing to search */
	void (*setup)(kp__symsrc *s, unsigned i);   /* on first use; may be NULL */
	bool (*nth)(kp__symsrc *s, unsigned i, const char *uuid, size_t k, kp__symsrc_hit *hit,
	            struct say *say);
	/* memo_nth's sources: finds uuid's candidates into m, once */
	void (*fill)(kp__symsrc *s, unsigned i, const char *uuid, struct memo *m, kp_sb *tried,
	             kp_sb *said);
} source_ops;

/* ---- trail ---- */

bool kp__symsrc_trail_add(kp__symsrc_trail *t, const char *source, const char *tried,
                          const char *said, bool found)
{
	kp__symsrc_step *st = kp_vec_push((void **)&t->v, &t->n, &t->cap, sizeof *t->v);
	if (!st)
		return false;
	st->source = source;
	st->tried = strdup(tried ? tried : "");
	st->said = strdup(said ? said : "");
	st->found = found;
	if (!st->tried || !st->said) {
		free(st->tried);
		free(st->said);
		t->n--;
		return false;
	}
	return true;
}

void kp__symsrc_trail_free(kp__symsrc_trail *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].tried);
		free(t->v[i].said);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

static const struct source_ops table[NSRC];
static bool roots_nth(kp__symsrc *s, unsigned i, const char *uuid, size_t k, kp__symsrc_hit *hit,
                      struct say *say);
static bool spotlight_nth(kp__symsrc *s, unsigned i, const char *uuid, size_t k,
                          kp__symsrc_hit *hit, struct say *say);
static void ready(kp__symsrc *s, unsigned i);
static void http_settings(kp__symsrc *s);

/* ---- folder sources: roots in the shared dSYM index, tagged ---- */

static void add_root(kp__symsrc *s, unsigned i, const char *path)
{
	struct source *src = &s->src[i];
	for (size_t j = 0; j < src->nroots; j++)
		if (strcmp(src->roots[j], path) == 0)
			return;
	char **slot = kp_vec_push((void **)&src->roots, &src->nroots, &src->rcap, sizeof *src->roots);
	if (!slot)
		return;
	*slot = strdup(path);
	if (!*slot) {
		src->nroots--;
		return;
	}
	if (table[i].nth == roots_nth || table[i].nth == spotlight_nth)
		kp__dsym_add_root(s->dx, path, i);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Roots as the trail shows them: "a, b (missing), c (walk cut short)". */
static void say_roots(const kp__symsrc *s, const struct source *src, struct say *say)
{
	for (size_t j = 0; j < src->nroots; j++) {
		struct stat st;
		if (j)
			kp_sb_str(&say->tried, ", ");
		kp_sb_str(&say->tried, src->roots[j]);
		if (stat(src->roots[j], &st) != 0)
			kp_sb_str(&say->tried, " (missing)");
		else if (kp__dsym_cut(s->dx, src->roots[j]))
			kp_sb_str(&say->tried, " (walk cut short: too deep or KPBROWSE_DSYM_WALK_MAX names)");
	}
}

/* A source turned off, or with nothing to search, says so: true then. */
static bool says_idle(const kp__symsrc *s, unsigned i, struct say *say)
{
	const struct source *src = &s->src[i];
	if (!src->off && src->nroots)
		return false;
	if (say)
		kp_sb_str(&say->said, src->off ? src->off : table[i].none);
	return true;
}

static bool roots_nth(kp__symsrc *s, unsigned i, const char *uuid, size_t k, kp__symsrc_hit *hit,
                      struct say *say)
{
	const struct source *src = &s->src[i];
	if (says_idle(s, i, say))
		return false;
	hit->path = kp__dsym_find(s->dx, uuid, i, k);
	if (say) {
		say_roots(s, src, say);
		kp_sb_str(&say->said, hit->path ? "found" : "no file with this UUID");
	}
	return hit->path != NULL;
}

/* ---- next to the binary: X.dSYM beside X, for each --dsym that names a
 * binary or a bundle (X.kext, and X.kext.dSYM for X.kext/Contents/MacOS/X) */

static void add_beside(kp__symsrc *s, const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	static const char ext[] = ".dSYM";
	if (n >= sizeof ext - 1 && strncmp(path + n - (sizeof ext - 1), ext, sizeof ext - 1) == 0)
		return;   /* a dSYM itself */
	char cand[4200];
	struct stat st;
	snprintf(cand, sizeof cand, "%.*s.dSYM", (int)n, path);
	if (stat(cand, &st) == 0)
		add_root(s, SRC_BESIDE, cand);
	/* .../X.kext/Contents/MacOS/X: the bundle's dSYM */
	static const char mac[] = "/Contents/MacOS/";
	const char *m = strstr(path, mac);
	if (m && m > path && !strchr(m + sizeof mac - 1, '/')) {
		snprintf(cand, sizeof cand, "%.*s.dSYM", (int)(m - path), path);
		if (stat(cand, &st) == 0)
			add_root(s, SRC_BESIDE, cand);
	}
}

/* ---- memos (file-mapped, shell) ---- */

static struct memo *memo_of(struct source *src, const char *uuid)
{
	for (size_t j = 0; j < src->nmemos; j++)
		if (strcmp(src->memos[j].uuid, uuid) == 0)
			return &src->memos[j];
	return NULL;
}

static struct memo *memo_new(struct source *src, const char *uuid)
{
	struct memo *m = kp_vec_push((void **)&src->memos, &src->nmemos, &src->mcap, sizeof *src->memos);
	if (m)
		snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
	return m;
}

static void memo_add(struct memo *m, const char *path)
{
	char **slot = kp_vec_push((void **)&m->paths, &m->n, &m->cap, sizeof *m->paths);
	if (slot && !(*slot = strdup(path)))
		m->n--;
}

/* Answers k from a memo, saying what it said when asked first. */
static bool memo_answer(const struct memo *m, size_t k, kp__symsrc_hit *hit, struct say *say)
{
	hit->path = m && k < m->n ? m->paths[k] : NULL;
	if (say && m) {
		kp_sb_str(&say->tried, m->tried ? m->tried : "");
		kp_sb_str(&say->said, m->said ? m->said : "");
	}
	return hit->path != NULL;
}

/* The nth of a source that finds once per UUID (its fill), from then on
 * from its memo; a dsymForUUID answer's executable, arch and source paths
 * ride along with each candidate. */
static bool memo_nth(kp__symsrc *s, unsigned i, const char *uuid, size_t k, kp__symsrc_hit *hit,
                     struct say *say)
{
	struct source *src = &s->src[i];
	if (says_idle(s, i, say))
		return false;
	struct memo *m = memo_of(src, uuid);
	if (!m && (m = memo_new(src, uuid)) != NULL) {
		kp_sb tried = {0}, said = {0};
		table[i].fill(s, i, uuid, m, &tried, &said);
		m->tried = kp_sb_take(&tried);
		m->said = kp_sb_take(&said);
	}
	if (!memo_answer(m, k, hit, say))
		return false;
	if (m->ans.exec && strcmp(hit->path, m->ans.exec) != 0)
		hit->exec = m->ans.exec;
	hit->arch = m->ans.arch;
	hit->answer = m->ans.dsym_path || m->ans.exec ? &m->ans : NULL;
	return true;
}

/* ---- file-mapped UUID trees (DebugSymbols' DBGFileMappedPaths) ----
 * TREE/2351/6BE4/29BE/350C/91C9/F36E7999F0F1 for 23516BE4-29BE-350C-91C9-
 * F36E7999F0F1: the first 20 hex digits (upper case) in 4-digit folders,
 * then the last 12 naming a symlink or a folder: the DWARF file (or any
 * Mach-O), or a .dSYM bundle, whose Contents/Resources/DWARF files are the
 * candidates.  Callers confirm LC_UUID, so a link to the wrong file is
 * refused, not used. */

static void mapped_path(char *out, size_t size, const char *tree, const char *uuid)
{
	char hex[33];
	size_t n = 0;
	for (const char *p = uuid; *p && n < 32; p++)
		if (*p != '-')
			hex[n++] = *p;
	hex[n] = '\0';
	snprintf(out, size, "%s/%.4s/%.4s/%.4s/%.4s/%.4s/%s", tree, hex, hex + 4, hex + 8, hex + 12,
	         hex + 16, hex + 20);
}

#define DWARF_FILES_MAX 64   /* of one bundle's DWARF folder (one per arch, as a rule) */

/* Mach-O files directly in dir, in name order (a bundle's DWARF folder),
 * the first DWARF_FILES_MAX. */
static size_t add_files_in(struct memo *m, const char *dir)
{
	char **names = NULL;
	size_t n = 0, added = 0;
	if (kp_fs_dir_names(dir, &names, &n, NULL) != KP_OK)
		return 0;
	for (size_t j = 0; j < n && added < DWARF_FILES_MAX; j++) {
		char p[4200];
		struct stat st;
		if (snprintf(p, sizeof p, "%s/%s", dir, names[j]) >= (int)sizeof p)
			continue;   /* too long: never a truncated path */
		if (names[j][0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			memo_add(m, p);
			added++;
		}
	}
	kp_fs_names_free(names, n);
	return added;
}

/* The candidates path stands for: itself (a file), else the files of its
 * Contents/Resources/DWARF (a .dSYM bundle); how many were added.  Any
 * other folder stands for nothing: a dsymForUUID answer naming one (or /)
 * never has every file in it opened. */
static size_t add_target(struct memo *m, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode)) {
		memo_add(m, path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	char dwarf[4300];
	snprintf(dwarf, sizeof dwarf, "%s/Contents/Resources/DWARF", path);
	return add_files_in(m, dwarf);
}

static void mapped_fill(kp__symsrc *s, unsigned i, const char *uuid, struct memo *m, kp_sb *tried,
                        kp_sb *said)
{
	const struct source *src = &s->src[i];
	for (size_t j = 0; j < src->nroots; j++) {
		char p[4200];
		struct stat st;
		mapped_path(p, sizeof p, src->roots[j], uuid);
		if (j)
			kp_sb_str(tried, ", ");
		kp_sb_str(tried, p);
		if (stat(p, &st) != 0)
			kp_sb_str(tried, " (no entry)");
		else if (!add_target(m, p))
			kp_sb_str(tried, " (no file in it)");
	}
	kp_sb_str(said, m->n ? "found" : "no entry for this UUID");
}

/* ---- dsymForUUID (DBGShellCommands): a program given the UUID as its
 * one argument (no shell) prints a plist keyed by UUID (lldb's keys); its
 * DBGDSYMPath (a DWARF file or a .dSYM), then DBGSymbolRichExecutable, are
 * the candidates.  Commands: KPBROWSE_DSYMFORUUID, else
 * LLDB_APPLE_DSYMFORUUID_EXECUTABLE (as lldb: when it exists), then the
 * config file's and the defaults' DBGShellCommands; each is asked in turn
 * until one names a file.  Killed after KPBROWSE_DSYMFORUUID_TIMEOUT
 * seconds (default 60).  What a command said is kept per UUID, so it runs
 * once per UUID and table. ---- */

#define SHELL_SAID_MAX 300   /* of a command's DBGError or failure, in a trail */

static void say_clipped(kp_sb *b, const char *what, const char *text)
{
	size_t n = strlen(text);
	kp_sb_str(b, what);
	kp_sb_add(b, text, n > SHELL_SAID_MAX ? SHELL_SAID_MAX : n);
	if (n > SHELL_SAID_MAX)
		kp_sb_str(b, "...");
}

static long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left of the report's deadline (at least 0), or -1 when
 * none runs. */
static long deadline_left(const kp__symsrc *s)
{
	if (!s->deadline_at)
		return -1;
	long left = s->deadline_at - mono_ms();
	return left > 0 ? left : 0;
}

static void say_deadline(const kp__symsrc *s, kp_sb *said, const char *what)
{
	char line[160];
	snprintf(line, sizeof line, "%sthe report's deadline passed (%ld s, KPBROWSE_SYMBOL_DEADLINE)",
	         what, s->deadline_s);
	kp_sb_str(said, line);
}

/* Runs cmd for uuid into m; appends what came of it to said.  Called by
 * the prefetch's threads at once: touches only m, said and what no
 * thread writes while they run. */
static void run_one(kp__symsrc *s, const char *cmd, const char *uuid, struct memo *m, kp_sb *said)
{
	char *argv[] = {(char *)cmd, (char *)uuid, NULL};
	char *out = NULL;
	size_t len = 0;
	int status = 0;
	kp_error err;
	char line[400];
	int ms = s->shell_timeout_ms;
	long left = deadline_left(s);
	bool by_deadline = left >= 0 && left < ms;
	if (by_deadline && left <= 0) {
		say_deadline(s, said, "not run: ");
		return;
	}
	if (by_deadline)
		ms = (int)left;
	kp_status st = kp_proc_run_cancel(argv, NULL, 0, KP_PLIST_MAX + 1, ms, &s->cancelled, &out,
	                                  &len, &status, &err);
	if (st == KP_ERR_LIMIT && atomic_load(&s->cancelled)) {
		kp_sb_str(said, "cancelled");
	} else if (st == KP_ERR_LIMIT && by_deadline) {
		say_deadline(s, said, "stopped: ");
	} else if (st == KP_ERR_LIMIT) {
		snprintf(line, sizeof line, "timed out after %d s", s->shell_timeout_ms / 1000);
		kp_sb_str(said, line);
	} else if (st != KP_OK) {
		say_clipped(said, "cannot run: ", err.msg);
	} else if (status != 0) {
		snprintf(line, sizeof line, "exit status %d", status);
		kp_sb_str(said, line);
	} else if (kp__dsym_answer_parse(out, len, uuid, &m->ans, &err) != KP_OK) {
		say_clipped(said, "its output: ", err.msg);
	} else {
		size_t n = m->ans.dsym_path ? add_target(m, m->ans.dsym_path) : 0;
		if (m->ans.exec)
			n += add_target(m, m->ans.exec);
		if (m->ans.error)
			say_clipped(said, "DBGError: ", m->ans.error);
		else if (!n && (m->ans.dsym_path || m->ans.exec))
			say_clipped(said, "names no file here: ", m->ans.dsym_path ? m->ans.dsym_path : m->ans.exec);
		else if (!n)
			kp_sb_str(said, "no DBGDSYMPath");
		if (n)
			kp_sb_str(said, m->ans.error ? "; found" : "found");
		if (!n)
			kp__dsym_answer_free(&m->ans);
	}
	free(out);
}

static void shell_fill(kp__symsrc *s, unsigned i, const char *uuid, struct memo *m, kp_sb *tried,
                       kp_sb *said)
{
	const struct source *src = &s->src[i];
	for (size_t j = 0; j < src->nroots && !m->n && !atomic_load(&s->cancelled); j++) {
		if (j) {
			kp_sb_str(tried, ", ");
			kp_sb_str(said, "; ");
		}
		kp_sb_str(tried, src->roots[j]);
		kp_sb_str(tried, " ");
		kp_sb_str(tried, uuid);
		if (src->nroots > 1) {
			kp_sb_str(said, src->roots[j]);
			kp_sb_str(said, ": ");
		}
		run_one(s, src->roots[j], uuid, m, said);
	}
}

/* ---- symbol servers over HTTP(S) (symhttp.h): the config file's
 * SymbolServer lines, each asked in turn until one gives a file that holds
 * the UUID; what one downloaded (<cache dir>/downloads/<UUID>) answers
 * without asking again.  Once per UUID and table, like dsymForUUID;
 * kp__symsrc_prefetch asks for many UUIDs at once. ---- */

/* What the servers said of one UUID, built up server by server. */
struct ask {
	char uuid[37];
	kp_sb tried, said;
	char path[4200];     /* the file, when one was found */
};

/* Asks the servers for a[0..n) (each server for those still missing, in
 * parallel), filling each one's trail text and path. */
static void server_ask(kp__symsrc *s, struct ask *a, size_t n)
{
	size_t left = 0;
	for (size_t k = 0; k < n; k++) {
		if (kp__symhttp_cached(s->dl_dir, a[k].uuid, a[k].path, sizeof a[k].path)) {
			kp_sb_str(&a[k].tried, a[k].path);
			kp_sb_str(&a[k].said, "found (downloaded before)");
		} else {
			a[k].path[0] = '\0';
			left++;
		}
	}
	/* within the report's deadline: a transfer ends with it */
	kp__symhttp_opts o = s->http;
	long ms = deadline_left(s);
	if (left && ms == 0) {
		for (size_t k = 0; k < n; k++)
			if (!a[k].path[0])
				say_deadline(s, &a[k].said, "not asked: ");
		return;
	}
	if (ms > 0 && (ms + 999) / 1000 < o.timeout_s) {
		o.timeout_s = (ms + 999) / 1000;
		o.deadline_s = s->deadline_s;
	}
	kp__symhttp_job *jobs = left ? calloc(left, sizeof *jobs) : NULL;
	size_t *of = left ? calloc(left, sizeof *of) : NULL;
	for (size_t j = 0; jobs && of && j < s->nservers; j++) {
		const struct server *sv = &s->servers[j];
		size_t nj = 0;
		for (size_t k = 0; k < n; k++)
			if (!a[k].path[0]) {
				jobs[nj] = (kp__symhttp_job){.uuid = a[k].uuid, .srv = &sv->h};
				of[nj++] = k;
			}
		if (!nj)
			break;
		kp__symhttp_fetch(&o, jobs, nj, NULL);
		for (size_t q = 0; q < nj; q++) {
			struct ask *x = &a[of[q]];
			if (j) {
				kp_sb_str(&x->tried, ", ");
				kp_sb_str(&x->said, "; ");
			}
			kp_sb_str(&x->tried, jobs[q].url);
			if (s->nservers > 1) {
				char label[32];
				snprintf(label, sizeof label, "server %zu: ", j + 1);
				kp_sb_str(&x->said, label);
			}
			kp_sb_str(&x->said, jobs[q].said);
			if (sv->note[0]) {
				kp_sb_str(&x->said, " (");
				kp_sb_str(&x->said, sv->note);
				kp_sb_str(&x->said, ")");
			}
			if (jobs[q].result == KP__FETCH_FOUND)
				snprintf(x->path, sizeof x->path, "%s", jobs[q].path);
		}
	}
	if (left && (!jobs || !of))
		for (size_t k = 0; k < n; k++)
			if (!a[k].path[0])
				kp_sb_str(&a[k].said, "out of memory");
	free(jobs);
	free(of);
}

/* Moves what an ask found into m. */
static void ask_to_memo(struct ask *a, struct memo *m, kp_sb *tried, kp_sb *said)
{
	if (a->path[0])
		memo_add(m, a->path);
	char *t = kp_sb_take(&a->tried), *d = kp_sb_take(&a->said);
	kp_sb_str(tried, t ? t : "");
	kp_sb_str(said, d ? d : "out of memory");
	free(t);
	free(d);
}

static void server_fill(kp__symsrc *s, unsigned i, const char *uuid, struct memo *m, kp_sb *tried,
                        kp_sb *said)
{
	(void)i;
	struct ask a = {0};
	snprintf(a.uuid, sizeof a.uuid, "%s", uuid);
	server_ask(s, &a, 1);
	ask_to_memo(&a, m, tried, said);
}

static void setup_server(kp__symsrc *s, unsigned i)
{
	if (s->src[i].off || !s->nservers)
		return;
	if (!s->cache_dir[0])
		s->src[i].off = "not asked (no cache folder to download into)";
}

/* ---- a report's UUIDs at once (kp__symsrc_prefetch): dsymForUUID runs
 * SHELL_PARALLEL at a time, then the servers' transfers in parallel, all
 * within one deadline (KPBROWSE_SYMBOL_DEADLINE): what came of each UUID,
 * a timeout or the deadline included, is its memo for the rest of the run,
 * so no later lookup waits for it again. ---- */

#define SHELL_PARALLEL 4

struct shell_job {
	const char *uuid;
	size_t memo;          /* index in the source's memos */
	kp_sb tried, said;
};

struct shell_pool {
	kp__symsrc *s;
	struct shell_job *jobs;
	size_t n;
	atomic_size_t next;
};

static void *shell_worker(void *arg)
{
	struct shell_pool *p = arg;
	struct source *src = &p->s->src[SRC_SHELL];
	for (size_t k; (k = atomic_fetch_add(&p->next, 1)) < p->n;) {
		struct shell_job *j = &p->jobs[k];
		shell_fill(p->s, SRC_SHELL, j->uuid, &src->memos[j->memo], &j->tried, &j->said);
	}
	return NULL;
}

/* Whether a source before `before` has a file for uuid (then it is not asked). */
static bool held_before(kp__symsrc *s, unsigned before, const char *uuid)
{
	for (unsigned e = 0; e < before; e++) {
		kp__symsrc_hit hit;
		ready(s, e);
		memset(&hit, 0, sizeof hit);
		if (table[e].nth(s, e, uuid, 0, &hit, NULL))
			return true;
	}
	return false;
}

static void shell_prefetch(kp__symsrc *s, char (*u)[37], size_t n)
{
	ready(s, SRC_SHELL);
	struct source *src = &s->src[SRC_SHELL];
	if (says_idle(s, SRC_SHELL, NULL) || !n)
		return;
	struct shell_job *jobs = calloc(n, sizeof *jobs);
	size_t nj = 0;
	for (size_t k = 0; jobs && k < n; k++) {
		if (memo_of(src, u[k]) || held_before(s, SRC_SHELL, u[k]) || !memo_new(src, u[k]))
			continue;
		jobs[nj++] = (struct shell_job){.uuid = u[k], .memo = src->nmemos - 1};
	}
	/* the memos are all made: their vector moves no more while threads fill them */
	struct shell_pool p = {.s = s, .jobs = jobs, .n = nj};
	atomic_init(&p.next, 0);
	pthread_t th[SHELL_PARALLEL];
	size_t nt = 0;
	for (; nt + 1 < SHELL_PARALLEL && nt + 1 < nj; nt++)
		if (pthread_create(&th[nt], NULL, shell_worker, &p) != 0)
			break;
	shell_worker(&p);   /* this thread is one of them */
	for (size_t t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	for (size_t k = 0; k < nj; k++) {
		struct memo *m = &src->memos[jobs[k].memo];
		m->tried = kp_sb_take(&jobs[k].tried);
		m->said = kp_sb_take(&jobs[k].said);
	}
	free(jobs);
}

static void server_prefetch(kp__symsrc *s, char (*u)[37], size_t n, size_t *got)
{
	ready(s, SRC_SERVER);
	struct source *src = &s->src[SRC_SERVER];
	if (says_idle(s, SRC_SERVER, NULL) || !n)
		return;
	struct ask *a = calloc(n, sizeof *a);
	if (!a)
		return;
	size_t na = 0;
	for (size_t k = 0; k < n; k++)
		if (!memo_of(src, u[k]) && !held_before(s, SRC_SERVER, u[k]))
			snprintf(a[na++].uuid, sizeof a->uuid, "%s", u[k]);
	server_ask(s, a, na);
	for (size_t k = 0; k < na; k++) {
		struct memo *m = memo_new(src, a[k].uuid);
		kp_sb tried = {0}, said = {0};
		if (m) {
			ask_to_memo(&a[k], m, &tried, &said);
			m->tried = kp_sb_take(&tried);
			m->said = kp_sb_take(&said);
			*got += m->n;
		} else {
			kp_sb_free(&a[k].tried);
			kp_sb_free(&a[k].said);
		}
	}
	free(a);
}

size_t kp__symsrc_prefetch(kp__symsrc *s, const char *const *uuids, size_t n)
{
	char (*u)[37] = n ? calloc(n, sizeof *u) : NULL;
	size_t nu = 0, got = 0;
	for (size_t k = 0; u && k < n; k++) {
		char uuid[37];
		if (!kp_uuid_canon(uuids[k], strlen(uuids[k]), uuid))
			continue;
		bool dup = false;
		for (size_t q = 0; q < nu && !dup; q++)
			dup = strcmp(u[q], uuid) == 0;
		if (!dup)
			memcpy(u[nu++], uuid, sizeof uuid);
	}
	if (nu) {
		s->deadline_at = s->deadline_s ? mono_ms() + s->deadline_s * 1000 : 0;
		shell_prefetch(s, u, nu);
		server_prefetch(s, u, nu, &got);
		s->deadline_at = 0;
	}
	free(u);
	return got;
}

void kp__symsrc_set_progress(kp__symsrc *s, kp__symhttp_progress_fn fn, void *ctx)
{
	s->http.progress = fn;
	s->http.ctx = ctx;
}

void kp__symsrc_cancel(kp__symsrc *s)
{
	atomic_store(&s->cancelled, true);
}

/* ---- what the config file and the DebugSymbols defaults say ----
 * (read by symconfig.c, which says where they are and their syntax) */

/* A SymbolServer* line; those after SymbolServer apply to the last one. */
static void server_value(kp__symsrc *s, const char *key, const char *val)
{
	struct server *sv = s->nservers ? &s->servers[s->nservers - 1] : NULL;
	if (strcmp(key, "SymbolServer") == 0) {
		sv = kp_vec_push((void **)&s->servers, &s->nservers, &s->scap, sizeof *s->servers);
		if (!sv)
			return;
		memset(sv, 0, sizeof *sv);
		kp__symhttp_server_init(&sv->h, val, KP__SYMHTTP_NATIVE);
		add_root(s, SRC_SERVER, sv->h.url);
	} else if (!sv) {
		return;   /* no server to apply it to */
	} else if (strcmp(key, "SymbolServerLayout") == 0) {
		if (!kp__symhttp_layout_parse(val, &sv->h.layout))
			snprintf(sv->note, sizeof sv->note,
			         "SymbolServerLayout '%.40s' is none of native, unified, symstore: native used", val);
	} else if (strcmp(key, "SymbolServerToken") == 0) {
		snprintf(sv->h.token, sizeof sv->h.token, "%s", val);
	} else if (strcmp(key, "SymbolServerTokenEnv") == 0) {
		const char *t = getenv(val);
		if (t && t[0])
			snprintf(sv->h.token, sizeof sv->h.token, "%s", t);
		else
			snprintf(sv->note, sizeof sv->note,
			         "SymbolServerTokenEnv: %.60s is not set: asked without a token", val);
	}
}

static void add_sigdir(kp__symsrc *s, const char *dir)
{
	for (size_t i = 0; i < s->nsigdirs; i++)
		if (strcmp(s->sigdirs[i], dir) == 0)
			return;
	char **slot = kp_vec_push((void **)&s->sigdirs, &s->nsigdirs, &s->sigcap, sizeof *s->sigdirs);
	if (slot && !(*slot = strdup(dir)))
		s->nsigdirs--;
}

const char *const *kp__symsrc_sigdirs(const kp__symsrc *s, size_t *n)
{
	*n = s->nsigdirs;
	return (const char *const *)s->sigdirs;
}

static void config_value(kp__symsrc *s, const char *key, const char *val)
{
	if (!val[0])
		return;
	if (strcmp(key, "Signatures") == 0)
		add_sigdir(s, val);
	if (strncmp(key, "SymbolServer", 12) == 0)
		server_value(s, key, val);
	if (strcmp(key, "DBGSearchPaths") == 0)
		add_root(s, SRC_LOCAL, val);
	else if (strcmp(key, "DBGFileMappedPaths") == 0)
		add_root(s, SRC_MAPPED, val);
	else if (strcmp(key, "DBGShellCommands") == 0)
		add_root(s, SRC_SHELL, val);
	else if (strcmp(key, "Kernelcache") == 0)
		add_root(s, SRC_KERNELCACHE, val);
	else if (strcmp(key, "DBGSpotlightPaths") == 0) {
		struct source *sp = &s->src[SRC_SPOTLIGHT];
		char **slot = kp_vec_push((void **)&sp->only, &sp->nonly, &sp->ocap, sizeof *sp->only);
		if (slot && !(*slot = strdup(val)))
			sp->nonly--;
	}
}

static void config_entry(void *ctx, const char *key, const char *val)
{
	config_value(ctx, key, val);
}

/* ---- KDKs, the one matching the report's build first ---- */

static void setup_kdk(kp__symsrc *s, unsigned i)
{
	if (s->no_system) {
		s->src[i].off = "not searched (system places turned off)";
		return;
	}
	static const char kdks[] = "/Library/Developer/KDKs";
	DIR *d = opendir(kdks);
	if (d) {
		struct dirent *de;
		char path[4096];
		for (int pass = 0; pass < 2; pass++) {
			rewinddir(d);
			while ((de = readdir(d)) != NULL) {
				if (de->d_name[0] == '.' || !strstr(de->d_name, ".kdk"))
					continue;
				bool match = s->build[0] && strstr(de->d_name, s->build);
				if (match != (pass == 0))
					continue;
				snprintf(path, sizeof path, "%s/%s", kdks, de->d_name);
				add_root(s, i, path);
			}
		}
		closedir(d);
	}
	if (is_dir("/Volumes/KernelDebugKit"))
		add_root(s, i, "/Volumes/KernelDebugKit");
	if (!s->src[i].nroots)
		s->src[i].off = "none installed (/Library/Developer/KDKs, /Volumes/KernelDebugKit)";
}

/* ---- Spotlight: every dSYM Xcode indexed (macOS) ---- */

static void setup_spotlight(kp__symsrc *s, unsigned i)
{
#ifdef __APPLE__
	if (s->no_system)
		s->src[i].off = "not asked (system places turned off)";
#else
	(void)s;
	s->src[i].off = "macOS only";
#endif
}

static bool spotlight_nth(kp__symsrc *s, unsigned i, const char *uuid, size_t k,
                          kp__symsrc_hit *hit, struct say *say)
{
	struct source *src = &s->src[i];
	if (src->off) {
		if (say)
			kp_sb_str(&say->said, src->off);
		return false;
	}
	bool asked = false;
	for (size_t j = 0; j < src->nasked && !asked; j++)
		asked = strcmp(src->asked[j], uuid) == 0;
	char query[96];
	snprintf(query, sizeof query, "com_apple_xcode_dsym_uuids == %s", uuid);
	if (!asked) {
		char **slot = kp_vec_push((void **)&src->asked, &src->nasked, &src->acap, sizeof *src->asked);
		if (slot)
			*slot = strdup(uuid);
		/* mdfind [-onlyin DIR]... QUERY: DBGSpotlightPaths keeps it to those
		 * folders, as DebugSymbols does */
		char **argv = calloc(2 * src->nonly + 3, sizeof *argv);
		size_t a = 0;
		if (argv) {
			argv[a++] = "mdfind";
			for (size_t j = 0; j < src->nonly; j++) {
				argv[a++] = "-onlyin";
				argv[a++] = src->only[j];
			}
			argv[a++] = query;
		}
		char *out = NULL;
		size_t len = 0;
		int status = 0;
		if (argv && kp_proc_run_cancel(argv, NULL, 0, 1u << 20, 10000, &s->cancelled, &out, &len,
		                              &status, NULL) == KP_OK) {
			for (char *line = out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				if (line[0] == '/')
					add_root(s, i, line);
			}
		}
		free(out);
		free(argv);
	}
	if (say) {
		kp_sb_str(&say->tried, "mdfind ");
		for (size_t j = 0; j < src->nonly; j++) {
			kp_sb_str(&say->tried, "-onlyin ");
			kp_sb_str(&say->tried, src->only[j]);
			kp_sb_str(&say->tried, " ");
		}
		kp_sb_str(&say->tried, query);
	}
	hit->path = kp__dsym_find(s->dx, uuid, i, k);
	if (say)
		kp_sb_str(&say->said, hit->path ? "found" : "no dSYM indexed with this UUID");
	return hit->path != NULL;
}

/* ---- kernelcaches: kept for this Mac's panics, then its running ones ---- */

/* Apple silicon keeps them IM4P-wrapped on the Preboot volume, under
 * <volume group UUID>/boot/<hash>/System/Library/Caches/com.apple.kernelcaches,
 * Intel in /System/Library/KernelCollections (*.kc). */
static void add_running_kernelcaches(kp__symsrc *s, unsigned i)
{
#ifdef __APPLE__
	static const char preboot[] = "/System/Volumes/Preboot";
	if (is_dir("/System/Library/KernelCollections"))
		add_root(s, i, "/System/Library/KernelCollections");
	DIR *top = opendir(preboot);
	if (!top)
		return;
	struct dirent *g;
	while ((g = readdir(top)) != NULL) {
		if (g->d_name[0] == '.')
			continue;
		char boot[1024];
		snprintf(boot, sizeof boot, "%s/%s/boot", preboot, g->d_name);
		DIR *b = opendir(boot);
		if (!b)
			continue;
		struct dirent *h;
		while ((h = readdir(b)) != NULL) {
			if (h->d_name[0] == '.')
				continue;
			char kc[2048];
			snprintf(kc, sizeof kc, "%s/%s/System/Library/Caches/com.apple.kernelcaches", boot,
			         h->d_name);
			if (is_dir(kc))
				add_root(s, i, kc);
		}
		closedir(b);
	}
	closedir(top);
#else
	(void)s, (void)i;
#endif
}

static void setup_kernelcache(kp__symsrc *s, unsigned i)
{
	/* kernelcaches kept for this Mac's panics (kp_kernelcache_keep) */
	char kept[4200];
	snprintf(kept, sizeof kept, "%s/kernelcaches", s->cache_dir);
	if (s->cache_dir[0] && is_dir(kept))
		add_root(s, i, kept);
	if (!s->no_system)
		add_running_kernelcaches(s, i);
}

static const source_ops table[NSRC] = {
	[SRC_BESIDE] = {.name = "next to the binary", .nth = roots_nth,
	                .none = "no X.dSYM beside a binary or bundle X named by --dsym"},
	[SRC_DSYM] = {.name = "--dsym", .nth = roots_nth, .none = "none given"},
	[SRC_LOCAL] = {.name = "local folders", .nth = roots_nth,
	               .none = "none set (KPBROWSE_DSYM_PATH, DBGSearchPaths)"},
	[SRC_MAPPED] = {.name = "file-mapped", .nth = memo_nth, .fill = mapped_fill,
	                .none = "none set (KPBROWSE_FILE_MAPPED_PATHS, DBGFileMappedPaths)"},
	[SRC_KDK] = {.name = "KDKs", .setup = setup_kdk, .nth = roots_nth, .none = "none installed"},
	[SRC_SPOTLIGHT] = {.name = "Spotlight", .setup = setup_spotlight, .nth = spotlight_nth},
	[SRC_SHELL] = {.name = "dsymForUUID", .nth = memo_nth, .fill = shell_fill,
	               .none = "none set (KPBROWSE_DSYMFORUUID, LLDB_APPLE_DSYMFORUUID_EXECUTABLE, "
	                       "DBGShellCommands)"},
	[SRC_SERVER] = {.name = "symbol servers", .setup = setup_server, .nth = memo_nth,
	                 .fill = server_fill, .none = "none set (SymbolServer in the config file)"},
	[SRC_KERNELCACHE] = {.name = "kernelcaches", .setup = setup_kernelcache, .nth = roots_nth,
	                     .none = "none set (--kernelcache, KPBROWSE_KERNELCACHE_PATH, Kernelcache), kept "
	                             "(<cache folder>/kernelcaches) or running"},
};

/* ---- the table ---- */

/* Each path of the colon-separated list (an environment variable's
 * value, or NULL): a search root of source src, or a signature folder when
 * src < 0. */
static void add_path_list(kp__symsrc *s, const char *list, int src)
{
	char *copy = list ? strdup(list) : NULL, *save = NULL;
	for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save)) {
		if (src < 0)
			add_sigdir(s, t);
		else
			add_root(s, (unsigned)src, t);
	}
	free(copy);
}

kp_status kp__symsrc_new(const kp__symsrc_cfg *cfg, kp_dsym_index *dx, kp__symsrc **out,
                         kp_error *err)
{
	*out = NULL;
	kp__symsrc *s = calloc(1, sizeof *s);
	if (!s)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	s->dx = dx;
	atomic_init(&s->cancelled, false);
	s->http.cancel = &s->cancelled;
	s->no_system = cfg->no_system;
	snprintf(s->cache_dir, sizeof s->cache_dir, "%s", cfg->cache_dir ? cfg->cache_dir : "");
	for (size_t i = 0; i < cfg->ndsym; i++)
		add_beside(s, cfg->dsym_paths[i]);
	for (size_t i = 0; i < cfg->ndsym; i++)
		add_root(s, SRC_DSYM, cfg->dsym_paths[i]);
	for (size_t i = 0; i < cfg->nkernelcache; i++)
		add_root(s, SRC_KERNELCACHE, cfg->kernelcache_paths[i]);
	for (size_t i = 0; i < cfg->nsig; i++)
		add_sigdir(s, cfg->sig_paths[i]);
	if (!cfg->no_env)
		add_path_list(s, getenv("KPBROWSE_DSYM_PATH"), SRC_LOCAL);
	const char *t = getenv("KPBROWSE_DSYMFORUUID_TIMEOUT");
	long secs = t ? strtol(t, NULL, 10) : 0;
	s->shell_timeout_ms = secs > 0 && secs <= 3600 ? (int)secs * 1000 : 60000;
	t = getenv("KPBROWSE_SYMBOL_DEADLINE");
	secs = t && t[0] ? strtol(t, NULL, 10) : 30;
	s->deadline_s = secs >= 0 && secs <= 86400 ? secs : 30;
	if (!cfg->no_env) {
		const char *cmd = getenv("KPBROWSE_DSYMFORUUID");
		struct stat st;
		if (cmd && cmd[0])
			add_root(s, SRC_SHELL, cmd);
		cmd = getenv("LLDB_APPLE_DSYMFORUUID_EXECUTABLE");
		if (cmd && cmd[0] && stat(cmd, &st) == 0)
			add_root(s, SRC_SHELL, cmd);
		add_path_list(s, getenv("KPBROWSE_FILE_MAPPED_PATHS"), SRC_MAPPED);
		/* kernelcaches the user keeps (files or folders of them), after
		 * --kernelcache's, before the kept and running ones
		 * setup_kernelcache adds */
		add_path_list(s, getenv("KPBROWSE_KERNELCACHE_PATH"), SRC_KERNELCACHE);
		add_path_list(s, getenv("KPBROWSE_SIGNATURES"), -1);
		kp__config_read(config_entry, s);
#ifdef __APPLE__
		kp__config_read_defaults(config_entry, s);
#endif
	} else {
		s->src[SRC_LOCAL].off = "not searched (environment and config turned off)";
		s->src[SRC_MAPPED].off = "not searched (environment and config turned off)";
		s->src[SRC_SHELL].off = "not run (environment and config turned off)";
		s->src[SRC_SERVER].off = "not asked (environment and config turned off)";
	}
	if (cfg->no_shell)
		s->src[SRC_SHELL].off = "not run (inside kpbrowse dsym-for-uuid)";
	s->nkc_cli = cfg->nkernelcache;
	s->nkc_user = s->src[SRC_KERNELCACHE].nroots;   /* setup adds kept and running ones later */
	http_settings(s);
	*out = s;
	return KP_OK;
}

static void http_settings(kp__symsrc *s)
{
	if (s->cache_dir[0])
		snprintf(s->dl_dir, sizeof s->dl_dir, "%s/downloads", s->cache_dir);
	kp__symhttp_opts *o = &s->http;
	o->dir = s->dl_dir;
	kp__symhttp_opts_env(o);
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void kp__symsrc_free(kp__symsrc **sp)
{
	if (!sp || !*sp)
		return;
	kp__symsrc *s = *sp;
	for (unsigned i = 0; i < NSRC; i++) {
		struct source *src = &s->src[i];
		free_strv(src->roots, src->nroots);
		free_strv(src->asked, src->nasked);
		free_strv(src->only, src->nonly);
		for (size_t j = 0; j < src->nmemos; j++) {
			free_strv(src->memos[j].paths, src->memos[j].n);
			free(src->memos[j].tried);
			free(src->memos[j].said);
			kp__dsym_answer_free(&src->memos[j].ans);
		}
		free(src->memos);
	}
	if (s->servers)
		memset(s->servers, 0, s->nservers * sizeof *s->servers);   /* tokens */
	free(s->servers);
	free_strv(s->sigdirs, s->nsigdirs);
	free(s);
	*sp = NULL;
}

bool kp__symsrc_named_root(const kp__symsrc *s, size_t k, const char **path, const char **what,
                           bool *outright)
{
	const struct source *d = &s->src[SRC_DSYM], *l = &s->src[SRC_LOCAL];
	if (k < d->nroots) {
		*path = d->roots[k], *what = "--dsym", *outright = true;
		return true;
	}
	k -= d->nroots;
	if (k < s->nkc_user) {
		*path = s->src[SRC_KERNELCACHE].roots[k];
		*outright = k < s->nkc_cli;
		*what = *outright ? "--kernelcache" : "kernelcache (KPBROWSE_KERNELCACHE_PATH, Kernelcache)";
		return true;
	}
	k -= s->nkc_user;
	if (k < l->nroots) {
		*path = l->roots[k], *what = "local folder (KPBROWSE_DSYM_PATH, DBGSearchPaths)";
		*outright = false;
		return true;
	}
	return false;
}

void kp__symsrc_set_build(kp__symsrc *s, const char *build)
{
	snprintf(s->build, sizeof s->build, "%s", build);
}

static void ready(kp__symsrc *s, unsigned i)
{
	if (s->src[i].ready)
		return;
	s->src[i].ready = true;
	if (table[i].setup)
		table[i].setup(s, i);
}

void kp__symsrc_add_all_roots(kp__symsrc *s)
{
	for (unsigned i = 0; i < NSRC; i++)
		if (table[i].nth == roots_nth)
			ready(s, i);
}

void kp__symsrc_iter_init(kp__symsrc_iter *it, const char *uuid)
{
	memset(it, 0, sizeof *it);
	snprintf(it->uuid, sizeof it->uuid, "%s", uuid);
}

bool kp__symsrc_next(kp__symsrc *s, kp__symsrc_iter *it, kp__symsrc_trail *t,
                     kp__symsrc_hit *hit)
{
	for (; it->src < NSRC; it->src++, it->k = 0) {
		unsigned i = it->src;
		ready(s, i);
		struct say say = {0};
		bool speak = t && it->k == 0;
		memset(hit, 0, sizeof *hit);
		bool got = table[i].nth(s, i, it->uuid, it->k, hit, speak ? &say : NULL);
		if (speak) {
			char *tried = kp_sb_take(&say.tried), *said = kp_sb_take(&say.said);
			kp__symsrc_trail_add(t, table[i].name, tried, said, got);
			free(tried);
			free(said);
		}
		if (got) {
			hit->source = i;
			hit->name = table[i].name;
			it->k++;
			return true;
		}
	}
	return false;
}

bool kp__symsrc_next_here(kp__symsrc *s, kp__symsrc_iter *it, kp__symsrc_hit *hit)
{
	if (it->src >= NSRC)
		return false;
	memset(hit, 0, sizeof *hit);
	if (!table[it->src].nth(s, it->src, it->uuid, it->k, hit, NULL))
		return false;
	hit->source = it->src;
	hit->name = table[it->src].name;
	it->k++;
	return true;
}
