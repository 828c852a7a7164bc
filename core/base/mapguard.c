/* mapguard.c: the SIGBUS guard of mapguard.h.  The handler only reads the
 * slot table (plain words written under a mutex, hi last on add and first
 * on remove) and calls mmap, which is safe in practice on Linux and macOS
 * though POSIX does not list it. */
#include "kp_mapguard.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_ANON
#define MAP_ANON MAP_ANONYMOUS
#endif

static struct slot {
	volatile uintptr_t lo, hi;   /* hi 0: free */
	volatile sig_atomic_t hit;
} slots[KP__MAPGUARD_SLOTS];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool installed;
static struct sigaction previous;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (size_t i = 0; i < KP__MAPGUARD_SLOTS; i++) {
		uintptr_t lo = slots[i].lo, hi = slots[i].hi;
		if (hi && a >= lo && a < hi) {
			uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
			void *page = (void *)(a & ~(pg - 1));
			if (mmap(page, pg, PROT_READ, MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0) !=
			    MAP_FAILED) {
				slots[i].hit = 1;
				return;   /* the read is retried and finds zeros */
			}
			break;
		}
	}
	/* not ours: whatever was there before the guard */
	if (previous.sa_flags & SA_SIGINFO) {
		if (previous.sa_sigaction) {
			previous.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);   /* the fault repeats on return and ends the process */
}

int kp__mapguard_add(const void *p, size_t len)
{
	if (!p || !len)
		return -1;
	int got = -1;
	pthread_mutex_lock(&mu);
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		installed = sigaction(SIGBUS, &sa, &previous) == 0;
	}
	for (int i = 0; installed && i < KP__MAPGUARD_SLOTS && got < 0; i++)
		if (!slots[i].hi) {
			slots[i].hit = 0;
			slots[i].lo = (uintptr_t)p;
			slots[i].hi = (uintptr_t)p + len;
			got = i;
		}
	pthread_mutex_unlock(&mu);
	return got;
}

void kp__mapguard_remove(int slot)
{
	if (slot < 0 || slot >= KP__MAPGUARD_SLOTS)
		return;
	pthread_mutex_lock(&mu);
	slots[slot].hi = 0;
	slots[slot].lo = 0;
	slots[slot].hit = 0;
	pthread_mutex_unlock(&mu);
}

bool kp__mapguard_hit(int slot)
{
	return slot >= 0 && slot < KP__MAPGUARD_SLOTS && slots[slot].hit;
}
