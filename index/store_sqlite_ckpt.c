/* store_sqlite_ckpt.c: the sqlite store's checkpoints (copying the WAL
 * into the database file), on a thread of their own with a connection of
 * their own, so that a commit does not wait for them.  A checkpoint
 * writes every page the WAL holds again and syncs both files: done by the
 * committing thread, as sqlite does by default, it was as long as a cold
 * scan's commits themselves (issue 25).  Durability is sqlite's own: the
 * same PASSIVE checkpoint, from another connection; nothing of a commit
 * depends on it.  The WAL starts over only when a transaction begins with
 * all of it copied, which a writer committing every few seconds never
 * meets while the thread copies behind it: once it holds RESTART_PAGES,
 * the committing thread waits for the thread and copies the rest itself
 * (the last batch or so), and the next transaction writes the WAL from
 * its start again (a cold index of 100k reports grew it to 2 GB). */
#include "store_sqlite.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* 32 MB of WAL: eight times sqlite's own threshold (wal_autocheckpoint).
 * Each checkpoint copies again every page written since the last one, so
 * one after every commit copied an index's pages once per batch. */
#define CKPT_PAGES 8192
#define RESTART_PAGES 32768

struct kpi__sq_ckpt {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool wanted, busy, stop, started, failed;
	pthread_t th;
	char *path;
	sqlite3 *conn;            /* the thread's own */
};

static void *ckpt_thread(void *arg)
{
	kpi__sq_ckpt *c = arg;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->wanted && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->stop)
			break;
		c->wanted = false;
		c->busy = true;
		pthread_mutex_unlock(&c->mu);
		/* PASSIVE: copies what no reader still needs, waits for nobody;
		 * busy (another process checkpointing) is left to the next one */
		sqlite3_wal_checkpoint_v2(c->conn, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&c->mu);
		c->busy = false;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* The thread and its connection, started on the first large WAL; false
 * when either cannot be had (then the committing thread checkpoints). */
static bool ckpt_start(kpi__sq_ckpt *c)
{
	if (c->started || c->failed)
		return c->started;
	c->failed = true;
	if (sqlite3_open_v2(c->path, &c->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	        SQLITE_OK ||
	    /* a connection knows the file is in WAL mode once it has read it:
	     * until then its checkpoints do nothing (and say -1 frames) */
	    sqlite3_exec(c->conn, "PRAGMA journal_mode", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(c->conn);
		c->conn = NULL;
		return false;
	}
	/* signals stay with the caller's threads (the TUI's handlers) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool ok = pthread_create(&c->th, NULL, ckpt_thread, c) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ok) {
		sqlite3_close(c->conn);
		c->conn = NULL;
		return false;
	}
	c->failed = false;
	c->started = true;
	return true;
}

/* sqlite's WAL hook: called on the committing thread after each commit. */
static int on_commit(void *arg, sqlite3 *h, const char *dbname, int pages)
{
	kpi__sq_ckpt *c = arg;
	if (pages < CKPT_PAGES)
		return SQLITE_OK;
	if (!ckpt_start(c)) {
		sqlite3_wal_checkpoint_v2(h, dbname, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		return SQLITE_OK;
	}
	pthread_mutex_lock(&c->mu);
	if (pages < RESTART_PAGES) {
		c->wanted = true;
		pthread_cond_broadcast(&c->cv);
	} else {
		while (c->busy || c->wanted)
			pthread_cond_wait(&c->cv, &c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	if (pages >= RESTART_PAGES)
		sqlite3_wal_checkpoint_v2(h, dbname, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

void kpi__sq_ckpt_install(kpi__sq *db)
{
	kpi__sq_ckpt *c = calloc(1, sizeof *c);
	if (!c || !(c->path = strdup(db->path)) || pthread_mutex_init(&c->mu, NULL) != 0) {
		if (c)
			free(c->path);
		free(c);
		return; /* sqlite's own checkpoints stay */
	}
	pthread_cond_init(&c->cv, NULL);
	db->ckpt = c;
	sqlite3_wal_hook(db->db, on_commit, c);
}

void kpi__sq_ckpt_stop(kpi__sq *db)
{
	kpi__sq_ckpt *c = db->ckpt;
	if (!c)
		return;
	db->ckpt = NULL;
	if (db->db)
		sqlite3_wal_hook(db->db, NULL, NULL);
	if (c->started) {
		pthread_mutex_lock(&c->mu);
		c->stop = true;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->th, NULL);
	}
	sqlite3_close(c->conn);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c->path);
	free(c);
}
