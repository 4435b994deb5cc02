/*
 * outcome.h — what a simulated Reconcile returns, when a script says:
 * `--reconcile-outcome TARGET=OUTCOMES`, given any number of times.
 *
 *   TARGET    '*' (every key), NS/NAME (one key), or NS/NAME@RV (a
 *             Reconcile of that key that read resourceVersion RV)
 *   OUTCOMES  OUTCOME[*N] (',' OUTCOME[*N])...: *N repeats it N times, a
 *             bare '*' (the last only) for ever
 *   OUTCOME   success | error | terminal | requeue | requeue-after:DURATION
 *             | status-write
 *
 * Each Reconcile takes the next outcome of the first rule that applies
 * and has one left, trying NS/NAME@RV, then NS/NAME, then '*'; a '*'
 * rule is counted per key, the others per rule.  When none applies the
 * Reconcile is not scripted (controller.h then draws --error-rate and
 * applies --requeue-after).  In controller-runtime's words: error is an
 * error (AddRateLimited), terminal a reconcile.TerminalError (not
 * requeued), requeue Result{Requeue: true} (AddRateLimited),
 * requeue-after Result{RequeueAfter: d} (Forget, AddAfter), success
 * Result{} (Forget); status-write is a success that wrote the object's
 * status, whose event comes back (controller.h simulates it).
 *
 * Single-threaded: the owner serialises.  Ownership: the script copies
 * what it parses.
 */
#ifndef KINF_OUTCOME_H
#define KINF_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"
#include "lib/util.h"

enum outcome_kind {
	OUTCOME_NONE,		/* not scripted */
	OUTCOME_SUCCESS,
	OUTCOME_ERROR,
	OUTCOME_TERMINAL,
	OUTCOME_REQUEUE,
	OUTCOME_REQUEUE_AFTER,
	OUTCOME_STATUS_WRITE,
	OUTCOME__COUNT
};
/* "success", "error", "terminal", "requeue", "requeue-after", "status-write" */
const char *outcome_name(enum outcome_kind kind);

struct outcome {
	enum outcome_kind kind;
	int64_t after_ms;	/* OUTCOME_REQUEUE_AFTER */
};

struct outcome_script {
	struct outcome_rule *rules;
	size_t nr, alloc;
	struct hashmap used;	/* "RULE/KEY" of a '*' rule -> outcomes taken, as a pointer */
};

/* A zeroed script is empty; released, it is empty again. */
void outcome_script_release(struct outcome_script *s);
/*
 * Adds the rules of spec: one TARGET=OUTCOMES, or several joined by ','
 * (an item with a '=' starts the next rule), as a repeated flag gives
 * them; -1 and err naming what is wrong.
 */
int outcome_script_add(struct outcome_script *s, const char *spec, struct errbuf *err);
/* Whether any rule may return kind. */
bool outcome_script_has(const struct outcome_script *s, enum outcome_kind kind);
/* The outcome of a Reconcile of key that read rv (NULL: nothing), taken. */
struct outcome outcome_next(struct outcome_script *s, const char *key, const char *rv);

#endif
