/* term.c: the terminal for the interactive browser (kpt_term.h): curses
 * setup, restore on every way out (normal return, exit() through atexit, and
 * fatal signals), and the self-pipe the signal handlers write to so that the
 * event loop in app.c sees SIGWINCH, SIGINT, SIGTERM, SIGHUP and SIGPIPE in
 * poll().  Signals that end the process at once (SIGQUIT, SIGXCPU, SIGXFSZ
 * and the crashes) write the restore sequence and reset the termios
 * themselves (async-signal-safe: write() and tcsetattr() of what was saved
 * at start, on an alternate stack so a stack overflow is covered too), then
 * die of the same signal with its default action (status and core kept).
 *
 * Quirk: we replace ncurses' own SIGWINCH handler, so a resize is applied
 * here with resizeterm() from TIOCGWINSZ. */
#include "kpt_pipe.h"
#include "kp_sanitize.h"
#include "kpt_term.h"

#include <curses.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>


static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t got_quit_signal;
static volatile sig_atomic_t curses_active;
static struct termios saved_termios;
static bool have_termios;
static char restore_seq[256];
static size_t restore_len;

/* Mouse tracking off, every mode ncurses may have asked for (X10/normal,
 * button-event, any-event, SGR and UTF-8 coordinates). */
#define KPT_MOUSE_OFF "\033[?1006l\033[?1005l\033[?1003l\033[?1002l\033[?1000l"

void kpt_term_restore(void)
{
	if (curses_active) {
		curses_active = 0;
		mousemask(0, NULL);
		fputs(KPT_MOUSE_OFF, stdout);
		fflush(stdout);
		endwin();
	}
}

static volatile sig_atomic_t ui_busy;

void kpt_term_busy(bool on)
{
	ui_busy = on;
}

/* Async-signal-safe: the terminal back as it was, with no curses. */
static void restore_now(void)
{
	if (curses_active) {
		(void)!write(STDOUT_FILENO, restore_seq, restore_len);
		if (have_termios)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	}
}

static void on_signal(int sig)
{
	int saved = errno;
	if (sig != SIGWINCH && ui_busy) {
		/* the UI thread is in one long piece of work: do not wait for it */
		restore_now();
		_exit(128 + sig);
	}
	char c = sig == SIGWINCH ? 'w' : 'q';
	if (sig != SIGWINCH)
		got_quit_signal = sig;
	if (sig_pipe[1] >= 0)
		(void)!write(sig_pipe[1], &c, 1);
	errno = saved;
}

/* Async-signal-safe: no curses here, only write() and tcsetattr(). */
static void on_fatal(int sig)
{
	restore_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void add_restore_seq(const char *s)
{
	size_t n = strlen(s);
	if (restore_len + n < sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void add_restore_cap(const char *cap)
{
	char *s = tigetstr((char *)cap);
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (restore_len + n < sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

/* An alternate signal stack for the calling thread, so a crash that is a
 * stack overflow still runs on_fatal (without one the kernel cannot push
 * the handler's frame and kills the process with the terminal raw).  One
 * per thread, freed by the key's destructor when the thread ends; the main
 * thread's lives as long as the process. */
static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;
static void *main_altstack;   /* kept reachable for leak checkers */

static void alt_free(void *p)
{
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	free(p);
}

static void alt_key_make(void)
{
	(void)pthread_key_create(&alt_key, alt_free);
}

void *kpt_term_altstack(void)
{
	pthread_once(&alt_once, alt_key_make);
	void *have = pthread_getspecific(alt_key);
	if (have)
		return have;
	size_t size = 64 * 1024;
	if ((size_t)SIGSTKSZ > size)   /* not a constant with newer glibc */
		size = (size_t)SIGSTKSZ;
	stack_t ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = malloc(size);
	ss.ss_size = size;
	if (!ss.ss_sp)
		return NULL;
	if (sigaltstack(&ss, NULL) != 0 || pthread_setspecific(alt_key, ss.ss_sp) != 0) {
		alt_free(ss.ss_sp);
		return NULL;
	}
	return ss.ss_sp;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* nothing in the TUI writes to a pipe it does not hold both ends of,
	 * so a SIGPIPE is sent by someone: quit as for SIGTERM (a write to a
	 * closed pipe still fails with EPIPE while the handler is installed) */
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
	int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT, SIGXCPU, SIGXFSZ, SIGSYS, SIGTRAP};
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
}

bool kpt_term_usable(char *why, size_t size)
{
	const char *term = getenv("TERM");
	char name[64];
	if (!term || !*term) {
		snprintf(why, size, "TERM is not set, so the browser cannot drive this terminal "
		                    "(set it, e.g. TERM=xterm-256color; the commands work without it: kpbrowse --help)");
		return false;
	}
	kp_sanitize(name, sizeof name, term, strlen(term), 0);
	int err = 0;
	/* ncurses' initscr() prints "Error opening terminal" and exits 1 on an
	 * unknown type: ask terminfo first, quietly (errret given) */
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
		snprintf(why, size, err == 0 ? "TERM=%s is a hardcopy terminal: the browser needs a screen"
		                             : "TERM=%s: no terminfo entry for this terminal type", name);
		return false;
	}
	char *cup = tigetstr((char *)"cup");
	bool ok = cup && cup != (char *)-1;
	del_curterm(cur_term);
	if (!ok) {
		snprintf(why, size, "TERM=%s cannot move the cursor: the browser needs a full-screen terminal "
		                    "(e.g. TERM=xterm-256color; the commands work here: kpbrowse --help)", name);
		return false;
	}
	return true;
}

bool kpt_term_pipe_open(void)
{
	return kpt_pipe_open(sig_pipe);
}

bool kpt_term_start(void)
{
	have_termios = tcgetattr(STDIN_FILENO, &saved_termios) == 0;
	atexit(kpt_term_restore);
#ifndef KP_HAVE_SET_ESCDELAY
	setenv("ESCDELAY", "25", 0); /* a curses without set_escdelay reads this at initscr */
#endif
	if (!initscr())
		return false;
	curses_active = 1;
	add_restore_seq(KPT_MOUSE_OFF);
	add_restore_cap("sgr0");
	add_restore_cap("cnorm");
	add_restore_cap("rmkx");
	add_restore_cap("rmcup");
	main_altstack = kpt_term_altstack();
	install_signals();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
#ifdef KP_HAVE_SET_ESCDELAY
	set_escdelay(25);
#endif
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	          | BUTTON5_PRESSED
#endif
	          , NULL);
	mouseinterval(0);
	/* Clicks and the wheel only: some terminfo entries (XM) or curses
	 * versions ask for any-motion (1003) or button-motion (1002) tracking,
	 * which takes text selection away from the terminal. */
	if (tigetstr((char *)"kmous") && tigetstr((char *)"kmous") != (char *)-1) {
		static const char clicks[] = "\033[?1003l\033[?1002l\033[?1000h";
		refresh();   /* curses sends its own mouse setup first */
		(void)!write(STDOUT_FILENO, clicks, sizeof clicks - 1);
	}
	return true;
}

int kpt_term_signal_fd(void)
{
	return sig_pipe[0];
}

int kpt_term_quit_signal(void)
{
	return got_quit_signal;
}

static void apply_resize(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clear();
}

bool kpt_term_drain_signals(void)
{
	bool resized = false;
	char buf[64];
	ssize_t k;
	while ((k = read(sig_pipe[0], buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < k; i++)
			if (buf[i] == 'w') {
				apply_resize();
				resized = true;
			}
	return resized;
}

void kpt_term_suspend(void)
{
	static const char off[] = "\033[?1000l";
	(void)!write(STDOUT_FILENO, off, sizeof off - 1);
	def_prog_mode();
	endwin();
}

void kpt_term_resume(void)
{
	static const char clicks[] = "\033[?1003l\033[?1002l\033[?1000h";
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	(void)!write(STDOUT_FILENO, clicks, sizeof clicks - 1);
}
