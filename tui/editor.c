/* editor.c: $VISUAL/$EDITOR at a line (kpt_editor.h).
 * Quirk: the editor shares our terminal and process group, so Ctrl-C in it
 * reaches us too: SIGINT and SIGQUIT are ignored here while it runs, and
 * the child puts every signal we catch back to its default before exec. */
#include "kpt_app.h"
#include "kpt_editor.h"
#include "kpt_options.h"
#include "kpt_prompt.h"
#include "kpt_term.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *editor(void)
{
	const char *e = getenv("VISUAL");
	if (!e || !*e)
		e = getenv("EDITOR");
	return e && *e ? e : "vi";
}

void kpt_editor_open(kpt_app *app, const char *file, unsigned line)
{
	char path[4096], arg[32];
	struct stat st;
	kpt_options_map_source(&app->cfg, file, path, sizeof path);
	if (stat(path, &st) != 0) {
		kpt_set_msg(app, "source not on this machine: %s (--source-map FROM=TO)", path);
		return;
	}
	snprintf(arg, sizeof arg, "+%u", line ? line : 1);
	const char *ed = editor();
	char script[4200];
	snprintf(script, sizeof script, "%s \"$@\"", ed);
	struct sigaction ign, old_int, old_quit;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	kpt_term_suspend();
	pid_t pid = fork();
	if (pid == 0) {
		int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE, SIGTSTP};
		for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			signal(sigs[i], SIG_DFL);
		execl("/bin/sh", "sh", "-c", script, "sh", arg, path, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	kpt_term_resume();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (pid < 0)
		kpt_set_msg(app, "cannot start the editor: %s", strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		kpt_set_msg(app, "cannot run the editor '%s' (set VISUAL or EDITOR)", ed);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		kpt_set_msg(app, "the editor '%s' failed", ed);
	else
		kpt_set_msg(app, "edited %s:%u", path, line);
}
