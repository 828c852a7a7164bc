/* test_symsrc.c: the symbol-source table (core/symsrc/symsrc.c) through
 * kp_symbols_where: the sources are asked in their one order, each says
 * what it tried, the first that holds the UUID answers, and its file is
 * confirmed by LC_UUID.  Trees are copies of the fixture dSYMs and
 * binaries (tests/fixtures/bin) in a temporary folder. */
#include "kt.h"
#include "kp_symbols.h"
#include "symhttp.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEXT_ARM64 "4C4C44A3-5555-3144-A151-249D146ED38D"
#define KERNEL_ARM64 "4C4C44BD-5555-3144-A14B-0078EC5E31E1"
#define NOWHERE "01234567-89AB-CDEF-0123-456789ABCDEF"

static char tmp[256];

static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	return system(cmd);
}

static kp_symbols *open_syms(const char *dsym, bool no_env, const char *cache)
{
	const char *paths[] = {dsym};
	kp_symbols_opts o = {.paths = paths, .npaths = dsym != NULL, .no_env = no_env,
	                     .no_system = true, .cache_dir = cache ? cache : ""};
	kp_symbols *s = NULL;
	kp_error err;
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "kp_symbols_new");
	return s;
}

/* The step of source name, or NULL. */
static const kp_symwhere_step *step_of(const kp_symwhere *w, const char *name)
{
	for (size_t i = 0; i < w->nsteps; i++)
		if (strcmp(w->steps[i].source, name) == 0)
			return &w->steps[i];
	return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* --dsym names a binary: the dSYM beside it answers first, with the
 * binary as its executable */
static void beside_the_binary(void)
{
	char bin[400];
	snprintf(bin, sizeof bin, "%s/beside/fakekext.arm64", tmp);
	kp_symbols *s = open_syms(bin, true, NULL);
	kp_symwhere w;
	kp_error err;
	KT_CHECK(kp_symbols_where(s, KEXT_ARM64, &w, &err) == KP_OK, "beside: found");
	KT_STREQ(w.source, "next to the binary", "beside: the answering source");
	KT_CHECK(w.nsteps == 1 && w.steps[0].found, "beside: one step, the answer (%zu)", w.nsteps);
	KT_CHECK(w.is_dsym && ends_with(w.path, "fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64"),
	         "beside: the dSYM's DWARF file (%s)", w.path ? w.path : "-");
	KT_STREQ(w.arch, "arm64", "beside: arch");
	kp_symbols_free(&s);
}

/* a folder with a binary and its dSYM: the dSYM answers, the binary is
 * its executable */
static void dsym_folder_with_exec(void)
{
	char dir[400];
	snprintf(dir, sizeof dir, "%s/beside", tmp);
	kp_symbols *s = open_syms(dir, true, NULL);
	kp_symwhere w;
	kp_error err;
	KT_CHECK(kp_symbols_where(s, KEXT_ARM64, &w, &err) == KP_OK, "--dsym folder: found");
	KT_STREQ(w.source, "--dsym", "--dsym folder: the answering source");
	const kp_symwhere_step *b = step_of(&w, "next to the binary");
	KT_CHECK(b && !b->found && w.steps[0].source == b->source, "--dsym folder: next-to-binary asked first, found nothing");
	KT_CHECK(w.is_dsym && w.exec && ends_with(w.exec, "/beside/fakekext.arm64"),
	         "--dsym folder: the binary beside is the executable (%s)", w.exec ? w.exec : "-");
	KT_CHECK(kp_symbols_where(s, "not-a-uuid", &w, &err) == KP_ERR_USAGE, "a malformed UUID is a usage error");
	kp_symbols_free(&s);
}

/* nothing holds it: every source says so, in the table's order */
static void not_found_trail(void)
{
	char dir[400], cache[400], env[800];
	snprintf(dir, sizeof dir, "%s/empty", tmp);
	snprintf(cache, sizeof cache, "%s/cache", tmp);
	snprintf(env, sizeof env, "%s/local:%s/missing", tmp, tmp);
	setenv("KPBROWSE_DSYM_PATH", env, 1);
	kp_symbols *s = open_syms(dir, false, cache);
	kp_symwhere w;
	kp_error err;
	KT_CHECK(kp_symbols_where(s, NOWHERE, &w, &err) == KP_ERR_NOTFOUND, "nowhere: not found");
	KT_CHECK(w.path == NULL && w.source == NULL, "nowhere: no answer");
	static const char *order[] = {"next to the binary", "--dsym", "local folders", "file-mapped",
	                              "KDKs", "Spotlight", "dsymForUUID", "symbol servers", "kernelcaches"};
	size_t j = 0;
	for (size_t i = 0; i < w.nsteps && j < sizeof order / sizeof *order; i++)
		if (strcmp(w.steps[i].source, order[j]) == 0)
			j++;
	KT_CHECK(j == sizeof order / sizeof *order, "nowhere: every source asked, in order (%zu of %zu)", j,
	         sizeof order / sizeof *order);
	for (size_t i = 0; i < w.nsteps; i++)
		KT_CHECK(!w.steps[i].found && w.steps[i].said[0], "nowhere: %s says something: %s",
		         w.steps[i].source, w.steps[i].said);
	const kp_symwhere_step *l = step_of(&w, "local folders");
	KT_CHECK(l && strstr(l->tried, "/local") && strstr(l->tried, "/missing (missing)"),
	         "local folders: names each KPBROWSE_DSYM_PATH folder, a missing one so (%s)", l ? l->tried : "-");
	const kp_symwhere_step *k = step_of(&w, "KDKs");
	KT_CHECK(k && strstr(k->said, "turned off"), "KDKs: says it was turned off (%s)", k ? k->said : "-");
	/* the local folder holds the kernel: it answers, after --dsym */
	KT_CHECK(kp_symbols_where(s, KERNEL_ARM64, &w, &err) == KP_OK, "local folder: found");
	KT_STREQ(w.source, "local folders", "local folder: the answering source");
	KT_CHECK(w.nsteps == 3 && !w.steps[1].found && w.steps[2].found, "local folder: three steps, the last one answers");
	kp_symbols_free(&s);
	unsetenv("KPBROWSE_DSYM_PATH");

	/* no_env: the environment's folders are not searched, and the step says so */
	s = open_syms(dir, true, cache);
	KT_CHECK(kp_symbols_where(s, KERNEL_ARM64, &w, &err) == KP_ERR_NOTFOUND, "no_env: not found");
	l = step_of(&w, "local folders");
	KT_CHECK(l && strstr(l->said, "not searched"), "no_env: local folders not searched (%s)", l ? l->said : "-");
	kp_symbols_free(&s);
}

/* kept kernelcaches come last: a binary there answers only when nothing
 * before it does */
static void kernelcache_last(void)
{
	char cache[400], dir[400];
	snprintf(cache, sizeof cache, "%s/kc", tmp);
	snprintf(dir, sizeof dir, "%s/empty", tmp);
	sh("mkdir -p '%s/kernelcaches' && cp " KP_FIXTURES "/bin/fakekernel.arm64 '%s/kernelcaches/'", cache, cache);
	kp_symbols *s = open_syms(dir, true, cache);
	kp_symwhere w;
	kp_error err;
	KT_CHECK(kp_symbols_where(s, KERNEL_ARM64, &w, &err) == KP_OK, "kernelcaches: found");
	KT_STREQ(w.source, "kernelcaches", "kernelcaches: the answering source");
	KT_CHECK(!w.is_dsym, "kernelcaches: a binary, not a dSYM");
	KT_CHECK(kp_symbols_find(s, KERNEL_ARM64) && strcmp(kp_symbols_find(s, KERNEL_ARM64), w.path) == 0,
	         "kp_symbols_find gives the same file");
	kp_symbols_free(&s);
	/* with the same kernel in --dsym, --dsym wins */
	char bin[400];
	snprintf(bin, sizeof bin, "%s/local", tmp);
	s = open_syms(bin, true, cache);
	kp_status st = kp_symbols_where(s, KERNEL_ARM64, &w, &err);
	KT_CHECK(st == KP_OK && strcmp(w.source, "--dsym") == 0, "--dsym before kernelcaches (%s)",
	         w.source ? w.source : "-");
	kp_symbols_free(&s);
}

/* file-mapped UUID trees: a link to the DWARF file, a folder that is the
 * .dSYM bundle, a link to the wrong file (refused); the trees come from
 * KPBROWSE_FILE_MAPPED_PATHS and the config file's DBGFileMappedPaths,
 * which also gives a DBGSearchPaths folder */
static void file_mapped(void)
{
	char t1[400], t2[400], t3[400], conf[400], env[900], dir[400];
	snprintf(t1, sizeof t1, "%s/fm1", tmp);
	snprintf(t2, sizeof t2, "%s/fm2", tmp);
	snprintf(t3, sizeof t3, "%s/fm3", tmp);
	snprintf(conf, sizeof conf, "%s/config", tmp);
	snprintf(dir, sizeof dir, "%s/empty", tmp);
	/* the kext: a symlink to the DWARF file inside the fixture dSYM */
	sh("mkdir -p '%s/4C4C/44A3/5555/3144/A151' && ln -s " KP_FIXTURES
	   "/bin/fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64 '%s/4C4C/44A3/5555/3144/A151/249D146ED38D'",
	   t1, t1);
	/* the kernel: the last 12 digits name a folder that is the dSYM bundle */
	sh("mkdir -p '%s/4C4C/44BD/5555/3144/A14B' && cp -R " KP_FIXTURES
	   "/bin/fakekernel.arm64.dSYM '%s/4C4C/44BD/5555/3144/A14B/0078EC5E31E1'", t2, t2);
	/* the x86_64 kernel's entry links to the arm64 kernel's file: refused */
	sh("mkdir -p '%s/4C4C/44EF/5555/3144/A1CD' && ln -s " KP_FIXTURES
	   "/bin/fakekernel.arm64 '%s/4C4C/44EF/5555/3144/A1CD/413F9846D32A'", t3, t3);
	FILE *fp = fopen(conf, "w");
	if (fp) {
		fprintf(fp, "# kpbrowse config\n  DBGFileMappedPaths = %s  \nDBGSearchPaths=%s/beside\nunknown = x\n", t3, tmp);
		fclose(fp);
	}
	snprintf(env, sizeof env, "%s:%s", t1, t2);
	setenv("KPBROWSE_FILE_MAPPED_PATHS", env, 1);
	setenv("KPBROWSE_CONFIG", conf, 1);
	kp_symbols *s = open_syms(dir, false, NULL);
	kp_symwhere w;
	kp_error err;
	kp_status st = kp_symbols_where(s, KERNEL_ARM64, &w, &err);
	KT_CHECK(st == KP_OK, "file-mapped: the kernel found");
	KT_STREQ(w.source, "file-mapped", "file-mapped: the answering source");
	KT_CHECK(w.is_dsym && w.path && strstr(w.path, "/fm2/4C4C/44BD/5555/3144/A14B/0078EC5E31E1/Contents/Resources/DWARF/fakekernel.arm64"),
	         "file-mapped: a folder entry is the dSYM bundle (%s)", w.path ? w.path : "-");
	const kp_symwhere_step *m = step_of(&w, "file-mapped");
	KT_CHECK(m && strstr(m->tried, "/fm1/4C4C/44BD/5555/3144/A14B/0078EC5E31E1 (no entry)") &&
	         strstr(m->tried, "/fm3/"), "file-mapped: names each tree's entry, env then config (%s)", m ? m->tried : "-");
	const kp_symwhere_step *l = step_of(&w, "local folders");
	KT_CHECK(l && l < m && strstr(l->tried, "/beside") && !l->found,
	         "local folders (the config's DBGSearchPaths) asked before file-mapped (%s)", l ? l->tried : "-");
	KT_CHECK(kp_symbols_where(s, KEXT_ARM64, &w, &err) == KP_OK, "the kext found");
	KT_STREQ(w.source, "local folders", "the config's DBGSearchPaths folder answers before file-mapped");
	kp_symbols_free(&s);

	/* without the search path the kext's link answers */
	fp = fopen(conf, "w");
	if (fp) {
		fprintf(fp, "DBGFileMappedPaths = %s\n", t3);
		fclose(fp);
	}
	s = open_syms(dir, false, NULL);
	st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	KT_CHECK(st == KP_OK && strcmp(w.source, "file-mapped") == 0, "the kext: a symlink to the DWARF file (%s)",
	         w.source ? w.source : "-");
	KT_CHECK(w.path && strstr(w.path, "/fm1/4C4C/44A3/5555/3144/A151/249D146ED38D"), "the kext: the link's path");
	/* the wrong link is refused and the search goes on */
	st = kp_symbols_where(s, "4C4C44EF-5555-3144-A1CD-413F9846D32A", &w, &err);
	KT_CHECK(st == KP_ERR_NOTFOUND, "a link to another UUID's file: not used");
	bool refused = false;
	for (size_t i = 0; i < w.nsteps; i++)
		refused |= strcmp(w.steps[i].source, "file-mapped") == 0 && strstr(w.steps[i].said, "refused") &&
		           strstr(w.steps[i].tried, "/fm3/4C4C/44EF/5555/3144/A1CD/413F9846D32A");
	KT_CHECK(refused, "the wrong link: a step says it was refused");
	KT_CHECK(kp_symbols_find(s, "4C4C44EF-5555-3144-A1CD-413F9846D32A") != NULL,
	         "kp_symbols_find still offers it (callers confirm LC_UUID)");
	kp_symbols_free(&s);

	/* no_env: neither the trees nor the config */
	s = open_syms(dir, true, NULL);
	KT_CHECK(kp_symbols_where(s, KEXT_ARM64, &w, &err) == KP_ERR_NOTFOUND, "no_env: the trees are not searched");
	m = step_of(&w, "file-mapped");
	KT_CHECK(m && strstr(m->said, "not searched"), "no_env: file-mapped says so");
	kp_symbols_free(&s);
	unsetenv("KPBROWSE_FILE_MAPPED_PATHS");
	setenv("KPBROWSE_CONFIG", "/nonexistent/kpbrowse-config", 1);
}

/* A dsymForUUID stand-in: answers by UUID as lldb's scripts do, counting
 * its runs in tmp/runs. */
static void write_dsymforuuid(const char *path)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return;
	fprintf(fp,
	        "#!/bin/sh\n"
	        "echo run >>'%s/runs'\n"
	        "[ $# = 1 ] || { echo 'want one argument' >&2; exit 9; }\n"
	        "head='<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>'\n"
	        "case $1 in\n"
	        "4C4C44A3-5555-3144-A151-249D146ED38D) printf '%%s' \"$head\"; cat <<E\n"
	        "<key>4C4C44A3-5555-3144-A151-249D146ED38D</key><dict>\n"
	        "<key>DBGDSYMPath</key><string>" KP_FIXTURES "/bin/fakekext.arm64.dSYM</string>\n"
	        "<key>DBGSymbolRichExecutable</key><string>" KP_FIXTURES "/bin/fakekext.arm64</string>\n"
	        "<key>DBGArchitecture</key><string>arm64</string>\n"
	        "<key>DBGVersion</key><string>3</string>\n"
	        "<key>DBGSourcePath</key><string>/lab/src</string>\n"
	        "<key>DBGBuildSourcePath</key><string>/build/src</string>\n"
	        "<key>DBGSourcePathRemapping</key><dict><key>/build/kext</key><string>/lab/kext &amp; co</string></dict>\n"
	        "</dict></dict></plist>\n"
	        "E\n;;\n"
	        "4C4C44BD-5555-3144-A14B-0078EC5E31E1) printf '%%s' \"$head\"; cat <<E\n"
	        "<key>4c4c44bd55553144a14b0078ec5e31e1</key><dict>\n"
	        "<key>DBGDSYMPath</key><string>" KP_FIXTURES "/bin/fakekernel.arm64.dSYM/Contents/Resources/DWARF/fakekernel.arm64</string>\n"
	        "<key>DBGVersion</key><string>2</string>\n"
	        "<key>DBGSourcePathRemapping</key><dict><key>/a</key><string>/b</string></dict>\n"
	        "</dict></dict></plist>\n"
	        "E\n;;\n"
	        "4C4C44EF-5555-3144-A1CD-413F9846D32A) printf '%%s' \"$head\"; echo '<key>'$1'</key><dict><key>DBGError</key><string>no dSYM for this build</string></dict></dict></plist>';;\n"
	        "4C4C4449-5555-3144-A1F6-9DFF5C39A349) exit 3;;\n"
	        "4C4C440D-5555-3144-A1F7-3CAE66CE75DF) echo 'not a plist';;\n"
	        "*) sleep 5;;\n"
	        "esac\n",
	        tmp);
	fclose(fp);
	chmod(path, 0755);
}

static const kp_symwhere_step *shell_step(const kp_symwhere *w)
{
	return step_of(w, "dsymForUUID");
}

/* dsymForUUID: run with the UUID as its one argument, its plist read */
static void dsymforuuid(void)
{
	char cmd[400], dir[400], runs[400];
	snprintf(cmd, sizeof cmd, "%s/dsymForUUID", tmp);
	snprintf(dir, sizeof dir, "%s/empty", tmp);
	snprintf(runs, sizeof runs, "%s/runs", tmp);
	write_dsymforuuid(cmd);
	setenv("KPBROWSE_DSYMFORUUID", cmd, 1);
	setenv("KPBROWSE_DSYMFORUUID_TIMEOUT", "1", 1);
	unlink(runs);
	kp_symbols *s = open_syms(dir, false, NULL);
	kp_symwhere w;
	kp_error err;
	kp_status st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	KT_CHECK(st == KP_OK, "dsymForUUID: the kext found");
	KT_STREQ(w.source, "dsymForUUID", "dsymForUUID: the answering source");
	KT_CHECK(w.is_dsym && w.path && strstr(w.path, "fakekext.arm64.dSYM/Contents/Resources/DWARF/fakekext.arm64"),
	         "dsymForUUID: a .dSYM bundle stands for its DWARF file (%s)", w.path ? w.path : "-");
	KT_CHECK(w.exec && ends_with(w.exec, "/bin/fakekext.arm64"), "dsymForUUID: DBGSymbolRichExecutable is the executable");
	KT_STREQ(w.source_path, "/lab/src", "dsymForUUID: DBGSourcePath");
	KT_STREQ(w.build_source_path, "/build/src", "dsymForUUID: DBGBuildSourcePath");
	KT_CHECK(w.nremap == 1 && strcmp(w.remap[0], "/build/kext") == 0 && strcmp(w.remap[1], "/lab/kext & co") == 0,
	         "dsymForUUID: DBGSourcePathRemapping kept with DBGVersion 3 (XML entities decoded)");
	const kp_symwhere_step *sh_ = shell_step(&w);
	KT_CHECK(sh_ && strstr(sh_->tried, "/dsymForUUID " KEXT_ARM64), "dsymForUUID: the trail names the command and the UUID (%s)",
	         sh_ ? sh_->tried : "-");
	const kp_symwhere_step *fm = step_of(&w, "file-mapped"), *kdk = step_of(&w, "KDKs");
	KT_CHECK(fm && kdk && sh_ && fm < sh_ && kdk < sh_, "dsymForUUID: asked after file-mapped and KDKs");
	KT_CHECK(kp_symbols_find(s, KEXT_ARM64) && kp_symbols_where(s, KEXT_ARM64, &w, &err) == KP_OK,
	         "asked again");
	size_t n = 0;
	FILE *fp = fopen(runs, "r");
	for (int c; fp && (c = fgetc(fp)) != EOF;)
		n += c == '\n';
	if (fp)
		fclose(fp);
	KT_CHECK(n == 1, "the command ran once for that UUID (%zu)", n);

	/* a key in lower case without dashes; DBGVersion 2: no remapping */
	st = kp_symbols_where(s, KERNEL_ARM64, &w, &err);
	KT_CHECK(st == KP_OK && strcmp(w.source, "dsymForUUID") == 0, "the kernel: a UUID key in any spelling");
	KT_CHECK(w.nremap == 0, "DBGVersion 2: DBGSourcePathRemapping ignored");
	KT_CHECK(w.exec == NULL, "no DBGSymbolRichExecutable: no executable");

	static const struct {
		const char *uuid, *says;
	} bad[] = {
		{"4C4C44EF-5555-3144-A1CD-413F9846D32A", "DBGError: no dSYM for this build"},
		{"4C4C4449-5555-3144-A1F6-9DFF5C39A349", "exit status 3"},
		{"4C4C440D-5555-3144-A1F7-3CAE66CE75DF", "its output: not a property list"},
		{NOWHERE, "timed out after 1 s"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		st = kp_symbols_where(s, bad[i].uuid, &w, &err);
		sh_ = shell_step(&w);
		KT_CHECK(st == KP_ERR_NOTFOUND && sh_ && !sh_->found && strcmp(sh_->said, bad[i].says) == 0,
		         "dsymForUUID says '%s' (%s)", bad[i].says, sh_ ? sh_->said : "-");
	}
	kp_symbols_free(&s);

	/* no_shell (inside dsym-for-uuid): not run */
	kp_symbols_opts o = {.no_system = true, .no_shell = true, .cache_dir = ""};
	KT_CHECK(kp_symbols_new(&o, &s, &err) == KP_OK, "kp_symbols_new no_shell");
	st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	sh_ = shell_step(&w);
	KT_CHECK(st == KP_ERR_NOTFOUND && sh_ && strstr(sh_->said, "not run"), "no_shell: the command is not run");
	kp_symbols_free(&s);

	/* LLDB_APPLE_DSYMFORUUID_EXECUTABLE, as lldb: used when it exists */
	unsetenv("KPBROWSE_DSYMFORUUID");
	setenv("LLDB_APPLE_DSYMFORUUID_EXECUTABLE", cmd, 1);
	s = open_syms(dir, false, NULL);
	st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	KT_CHECK(st == KP_OK && strcmp(w.source, "dsymForUUID") == 0, "LLDB_APPLE_DSYMFORUUID_EXECUTABLE is run");
	kp_symbols_free(&s);
	setenv("LLDB_APPLE_DSYMFORUUID_EXECUTABLE", "/nonexistent/dsymForUUID", 1);
	s = open_syms(dir, false, NULL);
	st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	sh_ = shell_step(&w);
	KT_CHECK(st == KP_ERR_NOTFOUND && sh_ && strstr(sh_->said, "none set"), "a missing LLDB_APPLE_DSYMFORUUID_EXECUTABLE is passed over");
	kp_symbols_free(&s);
	unsetenv("LLDB_APPLE_DSYMFORUUID_EXECUTABLE");

	/* the config file's DBGShellCommands */
	char conf[400];
	snprintf(conf, sizeof conf, "%s/config-shell", tmp);
	fp = fopen(conf, "w");
	if (fp) {
		fprintf(fp, "DBGShellCommands = %s\n", cmd);
		fclose(fp);
	}
	setenv("KPBROWSE_CONFIG", conf, 1);
	s = open_syms(dir, false, NULL);
	st = kp_symbols_where(s, KEXT_ARM64, &w, &err);
	KT_CHECK(st == KP_OK && strcmp(w.source, "dsymForUUID") == 0, "the config's DBGShellCommands is run");
	kp_symbols_free(&s);
	setenv("KPBROWSE_CONFIG", "/nonexistent/kpbrowse-config", 1);
	unsetenv("KPBROWSE_DSYMFORUUID_TIMEOUT");
}

/* symbol servers: the three layouts' URLs (Sentry symbolicator's examples),
 * and the token and a URL's password masked in any text */
static void server_urls(void)
{
	static const char *const want[][2] = {
		{"native", "https://s.example/sym/67E9/247C/814E/392B/A027/DBDE6748FCBF"},
		{"unified", "https://s.example/sym/67/e9247c814e392ba027dbde6748fcbf/debuginfo"},
		{"symstore", "https://s.example/sym/_.dwarf/mach-uuid-sym-67e9247c814e392ba027dbde6748fcbf/_.dwarf"},
		{"lldb", "https://s.example/sym/67E9/247C/814E/392B/A027/DBDE6748FCBF"},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		kp__symhttp_layout l;
		kp__symhttp_server srv;
		char url[2100];
		KT_CHECK(kp__symhttp_layout_parse(want[i][0], &l), "layout %s known", want[i][0]);
		kp__symhttp_server_init(&srv, "https://s.example/sym//", l);
		kp__symhttp_url(&srv, "67E9247C-814E-392B-A027-DBDE6748FCBF", url, sizeof url);
		KT_CHECK(strcmp(url, want[i][1]) == 0, "layout %s: the URL (%s)", want[i][0], url);
	}
	kp__symhttp_layout l;
	KT_CHECK(!kp__symhttp_layout_parse("flat", &l), "an unknown layout refused");
	kp__symhttp_server srv;
	kp__symhttp_server_init(&srv, "https://u:Pw9@h/x", KP__SYMHTTP_NATIVE);
	snprintf(srv.token, sizeof srv.token, "tok3n");
	char out[200];
	kp__symhttp_mask(&srv, "GET https://u:Pw9@h/x/1 with tok3n; again tok3n", out, sizeof out);
	KT_STREQ(out, "GET https://u:***@h/x/1 with ***; again ***", "the token and the URL's password masked");
	kp__symhttp_mask(&srv, "https://h:8080/x@y", out, sizeof out);
	KT_STREQ(out, "https://h:8080/x@y", "a URL without user info unchanged");
	char tiny[8];
	kp__symhttp_mask(&srv, "tok3ntok3ntok3n", tiny, sizeof tiny);
	KT_CHECK(strlen(tiny) < sizeof tiny && !strstr(tiny, "tok3n"), "masking into a small buffer: %s", tiny);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/kp-test-symsrc-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	unsetenv("KPBROWSE_DSYM_PATH");
	unsetenv("KPBROWSE_FILE_MAPPED_PATHS");
	unsetenv("KPBROWSE_DSYMFORUUID");
	unsetenv("LLDB_APPLE_DSYMFORUUID_EXECUTABLE");
	setenv("KPBROWSE_CONFIG", "/nonexistent/kpbrowse-config", 1);
	sh("mkdir -p '%s/beside' '%s/empty'", tmp, tmp);
	sh("cp -R " KP_FIXTURES "/bin/fakekext.arm64 " KP_FIXTURES "/bin/fakekext.arm64.dSYM '%s/beside/'%s", tmp, "");
	sh("mkdir -p '%s/local' && cp -R " KP_FIXTURES "/bin/fakekernel.arm64.dSYM '%s/local/'", tmp, tmp);

	beside_the_binary();
	dsym_folder_with_exec();
	not_found_trail();
	kernelcache_last();
	file_mapped();
	dsymforuuid();
	server_urls();

	sh("rm -rf '%s'%s", tmp, "");
	return kt_done();
}
