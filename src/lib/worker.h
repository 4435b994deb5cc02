/*
 * worker.h — one thread that runs slow jobs (a LIST, discovery) for a
 * thread that must never block, such as the terminal's: one job at a
 * time, its result handed back through a locked slot and a wake-up fd, as
 * cmus and redis hand results back to their main loops.
 *
 * The owner submits a job; the worker thread calls job->run(job, stop);
 * when it returns, the job waits in the slot and worker_fd() becomes
 * readable; the owner's poll loop then takes it with worker_take() and
 * frees it with job->free().  worker_cancel() gives up on the job under
 * way: its stop is requested (a job that passes the stop on, to
 * kclient_set_thread_stop() say, ends its transfer at once) and, once it
 * returns, worker_take() frees it instead of handing it back.
 *
 * Threads: run() is called on the worker's thread, and must touch nothing
 * the owner uses meanwhile; every function here is for the owner's thread
 * alone.
 */
#ifndef KINF_WORKER_H
#define KINF_WORKER_H

#include <stdbool.h>

struct stop;

struct worker_job {
	/* On the worker's thread; stop is requested when the job is cancelled. */
	void (*run)(struct worker_job *job, struct stop *stop);
	/* Frees the job (and whatever its result holds), on the owner's thread. */
	void (*free)(struct worker_job *job);
};

struct worker;

/* Starts the thread.  Dies if it cannot. */
struct worker *worker_new(void);
/* Cancels the job under way, waits for it to return, joins the thread. */
void worker_free(struct worker *w);
/* Readable while a finished job waits in the slot (for poll()). */
int worker_fd(const struct worker *w);
/* A job was submitted and not yet taken (cancelled ones included). */
bool worker_busy(const struct worker *w);
/* Hands job over (the worker owns it until worker_take()); -1 when busy. */
int worker_submit(struct worker *w, struct worker_job *job);
/*
 * The finished job, now the caller's, or NULL: none finished yet, or the
 * one that did was cancelled (then freed here).
 */
struct worker_job *worker_take(struct worker *w);
/* Gives up on the job under way, if any (see above); never blocks. */
void worker_cancel(struct worker *w);

#endif
