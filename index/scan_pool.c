/* scan_pool.c: the scanner's workers: files read, hashed, parsed, signed
 * and packed (kpi__prep_parse) on threads of their own while the writer
 * records the ones before them, handed back in the order they were pushed,
 * so what is stored, and in which order, is what one thread would store.
 * The queue is bounded in files and bytes: a folder of large reports holds
 * a few of them in memory at a time, never the folder. */
#include "scan.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define POOL_MAX_WORKERS 16
/* Queued at most.  The writer records in walk order, so while a large
 * report at the head of the queue is being prepared it waits, and pushes
 * nothing: a worker that finds every queued file taken waits with it.  At
 * 32 files a 1 MB report among small ones (the bench's one in fifty), or
 * a commit, kept a worker waiting most of that time (the workers waited
 * 4.5-9 s in a cold scan of the 10k bench reports that took 2.7 s of
 * CPU, on a loaded machine); at 512, 0.5 s, for 40 MB more at the peak.
 * The bytes bound holds a folder of large reports to a few of them. */
#define POOL_FILES 512
#define POOL_BYTES ((size_t)128 << 20) /* what the queued files may hold, about */

struct kpi__pool {
	pthread_mutex_t mu;
	pthread_cond_t work;      /* a prep to take, or stop */
	pthread_cond_t done;      /* a prep prepared */
	kpi__prep *q[POOL_FILES]; /* a ring: q[head] is the oldest */
	bool ready[POOL_FILES];
	size_t head, n;           /* written by the writer's thread only (under mu) */
	size_t taken;             /* of the n from head, how many workers took */
	size_t bytes;             /* the writer's thread only */
	bool stop;
	pthread_t th[POOL_MAX_WORKERS];
	int nth;
};

/* What a prep may come to hold: its bytes, and about as much again parsed
 * and packed. */
static size_t cost(const kpi__prep *p)
{
	return 2 * (size_t)(p->lst.st_size > 0 ? p->lst.st_size : 0) + 4096;
}

static void *worker(void *arg)
{
	kpi__pool *pl = arg;
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->taken == pl->n)
			pthread_cond_wait(&pl->work, &pl->mu);
		if (pl->stop)
			break;
		size_t i = (pl->head + pl->taken++) % POOL_FILES;
		kpi__prep *p = pl->q[i];
		pthread_mutex_unlock(&pl->mu);
		kpi__prep_parse(p);
		pthread_mutex_lock(&pl->mu);
		pl->ready[i] = true;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* KPBROWSE_INDEX_THREADS, else the CPUs online. */
static int workers_wanted(void)
{
	const char *e = getenv("KPBROWSE_INDEX_THREADS");
	long n = -1;
	if (e && *e) {
		char *end;
		n = strtol(e, &end, 10);
		if (*end || n < 0)
			n = -1;
	}
	if (n < 0) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		if (n < 2) /* one CPU: the writer would only wait for its workers */
			n = 0;
	}
	return n > POOL_MAX_WORKERS ? POOL_MAX_WORKERS : (int)n;
}

kpi__pool *kpi__pool_new(void)
{
	int want = workers_wanted();
	if (want == 0)
		return NULL;
	kpi__pool *pl = calloc(1, sizeof *pl);
	if (!pl)
		return NULL;
	if (pthread_mutex_init(&pl->mu, NULL) != 0) {
		free(pl);
		return NULL;
	}
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->done, NULL);
	/* signals stay with the caller's threads (the TUI's handlers) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (pl->nth < want && pthread_create(&pl->th[pl->nth], NULL, worker, pl) == 0)
		pl->nth++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pl->nth == 0)
		kpi__pool_free(&pl);
	return pl;
}

bool kpi__pool_room(const kpi__pool *pl, const kpi__prep *p)
{
	return pl->n == 0 || (pl->n < POOL_FILES && pl->bytes + cost(p) <= POOL_BYTES);
}

void kpi__pool_push(kpi__pool *pl, kpi__prep *p)
{
	pthread_mutex_lock(&pl->mu);
	size_t i = (pl->head + pl->n) % POOL_FILES;
	pl->q[i] = p;
	pl->ready[i] = false;
	pl->n++;
	pl->bytes += cost(p);
	pthread_cond_signal(&pl->work);
	pthread_mutex_unlock(&pl->mu);
}

kpi__prep *kpi__pool_pop(kpi__pool *pl)
{
	if (pl->n == 0)
		return NULL;
	pthread_mutex_lock(&pl->mu);
	while (!pl->ready[pl->head])
		pthread_cond_wait(&pl->done, &pl->mu);
	kpi__prep *p = pl->q[pl->head];
	pl->q[pl->head] = NULL;
	pl->ready[pl->head] = false;
	pl->head = (pl->head + 1) % POOL_FILES;
	pl->n--;
	pl->taken--;
	pl->bytes -= cost(p);
	pthread_mutex_unlock(&pl->mu);
	return p;
}

void kpi__pool_free(kpi__pool **plp)
{
	kpi__pool *pl = *plp;
	if (!pl)
		return;
	*plp = NULL;
	pthread_mutex_lock(&pl->mu);
	pl->stop = true;
	pthread_cond_broadcast(&pl->work);
	pthread_mutex_unlock(&pl->mu);
	for (int i = 0; i < pl->nth; i++)
		pthread_join(pl->th[i], NULL);
	for (size_t k = 0; k < pl->n; k++)
		kpi__prep_free(&pl->q[(pl->head + k) % POOL_FILES]);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->done);
	pthread_mutex_destroy(&pl->mu);
	free(pl);
}
