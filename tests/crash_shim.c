/* crash_shim.c: preloaded into kpbrowse by test_tui_signals.sh
 * (LD_PRELOAD) so that it crashes for real on the UI thread, not by a
 * signal sent from outside: SIGUSR1 writes through a null pointer (the
 * fault raises SIGSEGV), SIGUSR2 recurses until the stack overflows (the
 * SIGSEGV handler can only run on an alternate stack).  A signal that
 * lands on another thread is passed on to the main one.  Tests only. */
#include <pthread.h>
#include <signal.h>
#include <string.h>

static pthread_t main_thread;
static volatile int *volatile nowhere;
static volatile int stop;   /* never set: keeps the recursion from looking endless */

static int deep(int n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	if (stop)
		return 0;
	return deep(n + 1) + pad[0];
}

static void on_usr(int sig)
{
	if (!pthread_equal(pthread_self(), main_thread)) {
		pthread_kill(main_thread, sig);
		return;
	}
	if (sig == SIGUSR1)
		*nowhere = 1;
	else
		deep(0);
}

__attribute__((constructor)) static void shim_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr;
	main_thread = pthread_self();
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}
