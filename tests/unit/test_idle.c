/*
 * test_idle.c — lib/idle: the hook runs once after a burst of enough
 * work and a quiet period, never while someone works, never for too
 * little work.
 */
#include <sched.h>

#include "lib/idle.h"
#include "lib/util.h"
#include "unit.h"

#define MIN_BYTES 100
#define IDLE_MS 30

static int calls;

static void count_call(void)
{
	calls++;
}

/* Waits (on the clock) until the hook is due, then polls once. */
static void poll_when_due(void)
{
	int64_t due = idle_due_ms();

	while (due && mono_ms() < due)
		sched_yield();
	idle_poll();
}

TEST(runs_once_after_enough_work_and_a_quiet_period)
{
	static const struct idle_hook hook = {
		.fn = count_call, .min_bytes = MIN_BYTES, .idle_ms = IDLE_MS,
	};

	idle_set_hook(&hook);
	calls = 0;
	CHECK_INT(idle_due_ms(), 0);
	idle_work_begin();
	idle_work_end(MIN_BYTES / 2);
	CHECK_INT(idle_due_ms(), 0);	/* too little */
	idle_poll();
	CHECK_INT(calls, 0);

	idle_work_begin();
	idle_work_end(MIN_BYTES / 2);	/* enough, together */
	int64_t due = idle_due_ms();
	CHECK(due > 0);
	idle_poll();			/* not quiet long enough yet */
	int64_t after = mono_ms();	/* (a loaded machine may be past it) */
	CHECKF(after >= due || calls == 0, "called %d times %lld ms before it was due",
	       calls, (long long)(due - after));
	poll_when_due();
	CHECK_INT(calls, 1);
	CHECK_INT(idle_due_ms(), 0);	/* reported: nothing left to do */
	idle_poll();
	CHECK_INT(calls, 1);
}

TEST(never_while_someone_works)
{
	calls = 0;
	idle_work_begin();
	idle_work_end(MIN_BYTES);
	idle_work_begin();		/* a second burst under way */
	int64_t due = idle_due_ms();
	while (mono_ms() < due + IDLE_MS)
		sched_yield();
	idle_poll();
	CHECK_INT(calls, 0);
	CHECK(idle_due_ms() > mono_ms());	/* a waiter looks again later */
	idle_work_end(1);
	poll_when_due();
	CHECK_INT(calls, 1);
}

TEST(no_hook_no_call)
{
	calls = 0;
	idle_set_hook(NULL);
	idle_work_begin();
	idle_work_end(MIN_BYTES * 10);
	CHECK_INT(idle_due_ms(), 0);
	idle_poll();
	CHECK_INT(calls, 0);
}

int main(void)
{
	RUN(runs_once_after_enough_work_and_a_quiet_period);
	RUN(never_while_someone_works);
	RUN(no_hook_no_call);
	return unit_done();
}
