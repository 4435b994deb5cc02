/*
 * worker.c — see worker.h.
 *
 * DESIGN (threads): two threads meet here, the owner and the worker.
 * w->lock guards job, done, cancelled and quit; the worker sleeps on
 * w->cond until a job or quit arrives, runs the job without the lock (the
 * owner's calls never wait for a job), then sets done and writes a byte
 * to the pipe.  The owner reads the pipe empty in worker_take() before it
 * looks at done, so a byte always means a finished job is in the slot or
 * was just taken.  Each job has its own stop, made at submission and
 * destroyed once the job is taken: a stop cannot be reset.
 */
#include "lib/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/stop.h"
#include "lib/util.h"

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct worker_job *job;	/* submitted, not yet taken */
	struct stop stop;	/* the job's; valid while job is set */
	bool done;		/* job returned */
	bool cancelled;		/* the owner gave up on job */
	bool quit;
	int pipe[2];		/* [0] readable once a job is done */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	thread_name("kinf-worker");
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->quit && (!w->job || w->done))
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit)
			break;
		struct worker_job *job = w->job;
		pthread_mutex_unlock(&w->lock);
		job->run(job, &w->stop);
		pthread_mutex_lock(&w->lock);
		w->done = true;
		if (write(w->pipe[1], "", 1) < 0) {
			/* A full pipe is readable already. */
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct worker *worker_new(void)
{
	struct worker *w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pipe2(w->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));
	int rc = pthread_create(&w->thread, NULL, worker_main, w);
	if (rc)
		die("cannot start a thread: %s", strerror(rc));
	return w;
}

/* The slot emptied; the job's stop goes with it.  Under w->lock. */
static struct worker_job *slot_empty(struct worker *w)
{
	struct worker_job *job = w->job;

	w->job = NULL;
	w->done = false;
	w->cancelled = false;
	stop_destroy(&w->stop);
	return job;
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	if (w->job && !w->done)
		stop_request(&w->stop);
	w->quit = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	/* A job under way returns first: the thread looks at quit after it. */
	pthread_join(w->thread, NULL);
	if (w->job) {
		struct worker_job *job = slot_empty(w);
		job->free(job);
	}
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int worker_fd(const struct worker *w)
{
	return w->pipe[0];
}

bool worker_busy(const struct worker *w)
{
	/* Only the owner sets job: its own read needs no lock. */
	return w->job != NULL;
}

int worker_submit(struct worker *w, struct worker_job *job)
{
	if (w->job)
		return -1;
	stop_init(&w->stop);
	pthread_mutex_lock(&w->lock);
	w->job = job;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

struct worker_job *worker_take(struct worker *w)
{
	char buf[16];
	struct worker_job *job = NULL;
	bool dropped = false;

	while (read(w->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&w->lock);
	if (w->job && w->done) {
		dropped = w->cancelled;
		job = slot_empty(w);
	}
	pthread_mutex_unlock(&w->lock);
	if (job && dropped) {
		job->free(job);
		job = NULL;
	}
	return job;
}

void worker_cancel(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	if (w->job && !w->cancelled) {
		w->cancelled = true;
		if (!w->done)
			stop_request(&w->stop);
	}
	pthread_mutex_unlock(&w->lock);
}
