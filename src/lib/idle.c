/*
 * idle.c — the hook called once the bursts of work are over; see idle.h.
 *
 * DESIGN (threads): any thread works and any thread polls; the state is
 * three atomics of the process, no lock.  A poll that finds the hook due
 * takes the bytes counted with one exchange, so of two pollers at once
 * only one runs it.  A worker that begins between a poller's check and
 * its call only makes the call a little early: the hook is a policy,
 * never a correctness matter.
 */
#include "lib/idle.h"

#include <stdatomic.h>

#include "lib/util.h"

static struct idle_hook hook;
static atomic_size_t unreported;	/* bytes worked since the hook last ran */
static atomic_int working;		/* workers between begin and end */
static _Atomic int64_t last_end_ms;	/* mono_ms() of the last idle_work_end() */

void idle_set_hook(const struct idle_hook *h)
{
	hook = h ? *h : (struct idle_hook){ 0 };
}

void idle_work_begin(void)
{
	atomic_fetch_add(&working, 1);
}

void idle_work_end(size_t bytes)
{
	atomic_fetch_add(&unreported, bytes);
	atomic_store(&last_end_ms, mono_ms());
	atomic_fetch_sub(&working, 1);
}

int64_t idle_due_ms(void)
{
	if (!hook.fn || atomic_load(&unreported) < hook.min_bytes)
		return 0;
	/* Someone works: whenever it ends, the hook is idle_ms later at least. */
	if (atomic_load(&working))
		return mono_ms() + hook.idle_ms;
	return atomic_load(&last_end_ms) + hook.idle_ms;
}

void idle_poll(void)
{
	int64_t due = idle_due_ms();

	if (!due || mono_ms() < due)	/* (while someone works, it is never due) */
		return;
	if (atomic_exchange(&unreported, 0) >= hook.min_bytes)
		hook.fn();
}
