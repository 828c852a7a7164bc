/* term.c: the terminal for the interactive browser (kpt_term.h): curses
 * setup, restore on every way out (normal return, exit() through atexit, and
 * fatal signals), and the self-pipe the signal handlers write to so that the
 * event loop in app.c sees SIGWINCH, SIGINT, SIGTERM and SIGHUP in poll().
 *
 * Quirk: we replace ncurses' own SIGWINCH handler, so a resize is applied
 * here with resizeterm() from TIOCGWINSZ. */
#include "kpt_pipe.h"
#include "kpt_term.h"

#include <curses.h>
#include <errno.h>
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
static char restore_seq[128];
static size_t restore_len;

void kpt_term_restore(void)
{
	if (curses_active) {
		curses_active = 0;
		printf("\033[?1000l");
		fflush(stdout);
		endwin();
	}
}

static void on_signal(int sig)
{
	int saved = errno;
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
	if (curses_active) {
		(void)!write(STDOUT_FILENO, restore_seq, restore_len);
		if (have_termios)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
	}
	signal(sig, SIG_DFL);
	raise(sig);
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
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
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
	add_restore_cap("sgr0");
	add_restore_cap("cnorm");
	add_restore_cap("rmkx");
	add_restore_cap("rmcup");
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
