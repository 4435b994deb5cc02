/* controller_report.c — see controller_report.h. */
#include "output/controller_report.h"

#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static void add_ms(struct strbuf *sb, int64_t ms)
{
	if (ms % 1000 || !ms)
		strbuf_addf(sb, "%lldms", (long long)ms);
	else
		strbuf_addf(sb, "%llds", (long long)(ms / 1000));
}

void controller_unseen_text(const struct ctl_unseen *u, size_t n, bool at_end,
			    struct strbuf *sb)
{
	bool *done = xcalloc(n + 1, sizeof(*done));

	for (size_t i = 0; i < n; i++) {
		size_t count = 0, said = 0;
		if (done[i])
			continue;
		for (size_t j = i; j < n; j++)
			count += !done[j] && !strcmp(u[j].reason, u[i].reason);
		strbuf_adds(sb, i ? "; rv " : "rv ");
		for (size_t j = i; j < n; j++) {
			if (done[j] || strcmp(u[j].reason, u[i].reason))
				continue;
			done[j] = true;
			said++;
			if (said > 1)
				strbuf_adds(sb, said == count ? " and " : ", ");
			strbuf_adds(sb, u[j].rv);
		}
		if (at_end)
			strbuf_addf(sb, " never reconciled: %s", u[i].reason);
		else
			strbuf_addf(sb, " %s never seen by a Reconcile (%s)",
				    count > 1 ? "were" : "was", u[i].reason);
	}
	free(done);
}

/* The event, as controller-runtime names it: "Create (initial list)", "Update". */
static const char *event_text(const struct ctl_record *r)
{
	if (!r->event)
		return r->delta;
	return r->initial ? "Create (initial list)" : r->event;
}

/*
 * Each record's line: what goes in the RV column (rv) and after it
 * (text).  The time, the record's type and its key have columns of
 * their own (printer.c).
 */
static void line_filtered(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_adds(rv, r->rv);
	strbuf_addf(sb, "%s dropped by %s", event_text(r), r->predicate);
}

static void line_enqueued(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_adds(sb, wq_add_name(r->how));
	if (r->how == WQ_WAITING) {
		strbuf_addch(sb, ' ');
		add_ms(sb, r->after_ms);
		strbuf_addf(sb, " (%s)", r->cause);
	} else if (r->delta) {
		strbuf_adds(rv, r->rv);
		strbuf_addf(sb, " (%s%s)", event_text(r),
			    r->state_unknown ? ", DeleteStateUnknown" : "");
	} else {
		strbuf_addf(sb, " (%s)", r->cause);
	}
	if (r->delta && r->object && strcmp(r->object, r->key))
		strbuf_addf(sb, " for %s", r->object);
	if (r->priority_queue && r->priority)
		strbuf_addf(sb, " priority %d", r->priority);
	if (r->how == WQ_DIRTY)
		strbuf_adds(sb, ": a Reconcile runs; it runs again after");
	else if (r->how == WQ_EARLY)
		strbuf_adds(sb, ": it waited; ready now, its timer gone");
}

static void line_start(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_addf(sb, "#%u read ", r->number);
	if (r->read_rv) {
		strbuf_adds(rv, r->read_rv);
		strbuf_adds(sb, "it");
	} else {
		strbuf_adds(sb, "nothing (not in the cache)");
	}
	strbuf_addf(sb, " (worker %u, %zu delta%s", r->worker, r->deltas, r->deltas == 1 ? "" : "s");
	if (r->priority_queue && r->priority)
		strbuf_addf(sb, ", priority %d", r->priority);
	strbuf_addch(sb, ')');
	if (r->nr_unseen) {
		strbuf_adds(sb, "; ");
		controller_unseen_text(r->unseen, r->nr_unseen, false, sb);
	}
}

static void line_done(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_addf(sb, "#%u %s after ", r->number, r->result);
	add_ms(sb, r->took_ms);
	strbuf_addf(sb, " (worker %u)", r->worker);
	if (r->error)
		strbuf_addf(sb, ": %s", r->error);
	if (r->requeue_ms >= 0) {
		strbuf_adds(sb, "; requeued after ");
		add_ms(sb, r->requeue_ms);
		strbuf_addf(sb, " (%u requeues)", r->requeues);
	}
	if (r->dirty)
		strbuf_adds(sb, "; dirty: queued again");
}

static void line_never(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	controller_unseen_text(r->unseen, r->nr_unseen, true, sb);
}

/* rv 108 still queued at exit */
static void line_queued(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_adds(sb, "rv ");
	for (size_t i = 0; i < r->nr_unseen; i++) {
		if (i)
			strbuf_adds(sb, i + 1 == r->nr_unseen ? " and " : ", ");
		strbuf_adds(sb, r->unseen[i].rv);
	}
	strbuf_adds(sb, " still queued at exit");
}

/* stale: the server has rv 1333, the cache 1050; lost: ... */
static void line_diverged(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb)
{
	strbuf_adds(rv, r->server_rv ? r->server_rv : "");
	strbuf_addf(sb, "%s: ", r->verify_class);
	if (r->server_rv)
		strbuf_addf(sb, "the server has rv %s, ", r->server_rv);
	else
		strbuf_adds(sb, "the server has it no more, ");
	if (r->cache_rv)
		strbuf_addf(sb, "the cache rv %s", r->cache_rv);
	else
		strbuf_adds(sb, "the cache not");
	strbuf_adds(sb, r->lost ? "; lost: the informer is past it, no Reconcile will read it"
				: "; the informer has not caught up yet");
}

typedef void line_fn(const struct ctl_record *r, struct strbuf *rv, struct strbuf *sb);

static line_fn *const line_body[CTL__TYPES] = {
	[CTL_FILTERED] = line_filtered,
	[CTL_ENQUEUED] = line_enqueued,
	[CTL_RECONCILE_START] = line_start,
	[CTL_RECONCILE_DONE] = line_done,
	[CTL_NEVER_RECONCILED] = line_never,
	[CTL_STILL_QUEUED] = line_queued,
	[CTL_DIVERGED] = line_diverged,
};

void controller_record_cells(const struct ctl_record *r, int64_t base_ms,
			     struct strbuf *time, struct strbuf *rv, struct strbuf *text)
{
	char clock[16];

	format_clock(base_ms + r->clock_ms, clock);
	strbuf_adds(time, clock);
	if ((unsigned)r->type < CTL__TYPES)
		line_body[r->type](r, rv, text);
}

typedef void record_fn(const struct ctl_record *r, struct strbuf *sb);

static void json_unseen(struct strbuf *sb, const struct ctl_unseen *u, size_t n)
{
	strbuf_adds(sb, ",\"unseen\":[");
	for (size_t i = 0; i < n; i++) {
		strbuf_adds(sb, i ? ",{\"resourceVersion\":" : "{\"resourceVersion\":");
		strbuf_add_json_string(sb, u[i].rv);
		strbuf_add_json_member(sb, "reason", u[i].reason);
		strbuf_addch(sb, '}');
	}
	strbuf_addch(sb, ']');
}

/* An event's members: object, delta, event ("Create"), initialList, resourceVersion */
static void json_event(const struct ctl_record *r, struct strbuf *sb)
{
	strbuf_add_json_member(sb, "object", r->object);
	strbuf_add_json_member(sb, "delta", r->delta);
	strbuf_add_json_member(sb, "event", r->event);
	strbuf_addf(sb, ",\"initialList\":%s", r->initial ? "true" : "false");
	strbuf_add_json_member(sb, "resourceVersion", r->rv);
}

static void json_filtered(const struct ctl_record *r, struct strbuf *sb)
{
	json_event(r, sb);
	strbuf_add_json_member(sb, "predicate", r->predicate);
}

static void json_enqueued(const struct ctl_record *r, struct strbuf *sb)
{
	strbuf_add_json_member(sb, "how", wq_add_name(r->how));
	strbuf_add_json_member(sb, "cause", r->cause);
	if (r->priority_queue)
		strbuf_addf(sb, ",\"priority\":%d", r->priority);
	if (r->how == WQ_WAITING)
		strbuf_addf(sb, ",\"afterMs\":%lld", (long long)r->after_ms);
	if (r->delta) {
		json_event(r, sb);
		strbuf_addf(sb, ",\"deleteStateUnknown\":%s",
			    r->state_unknown ? "true" : "false");
	}
}

static void json_start(const struct ctl_record *r, struct strbuf *sb)
{
	strbuf_addf(sb, ",\"reconcile\":%u,\"worker\":%u", r->number, r->worker);
	strbuf_add_json_member(sb, "readResourceVersion", r->read_rv);
	strbuf_addf(sb, ",\"deltas\":%zu", r->deltas);
	if (r->priority_queue)
		strbuf_addf(sb, ",\"priority\":%d", r->priority);
	json_unseen(sb, r->unseen, r->nr_unseen);
}

static void json_done(const struct ctl_record *r, struct strbuf *sb)
{
	strbuf_addf(sb, ",\"reconcile\":%u,\"worker\":%u", r->number, r->worker);
	strbuf_add_json_member(sb, "result", r->result);
	strbuf_add_json_member(sb, "error", r->error);
	strbuf_addf(sb, ",\"durationMs\":%lld", (long long)r->took_ms);
	if (r->requeue_ms >= 0)
		strbuf_addf(sb, ",\"requeueAfterMs\":%lld", (long long)r->requeue_ms);
	else
		strbuf_adds(sb, ",\"requeueAfterMs\":null");
	strbuf_addf(sb, ",\"requeues\":%u,\"dirty\":%s", r->requeues,
		    r->dirty ? "true" : "false");
}

static void json_never(const struct ctl_record *r, struct strbuf *sb)
{
	json_unseen(sb, r->unseen, r->nr_unseen);
}

static void json_diverged(const struct ctl_record *r, struct strbuf *sb)
{
	strbuf_add_json_member(sb, "class", r->verify_class);
	strbuf_add_json_member(sb, "serverResourceVersion", r->server_rv);
	strbuf_add_json_member(sb, "cacheResourceVersion", r->cache_rv);
	strbuf_addf(sb, ",\"lost\":%s", r->lost ? "true" : "false");
}

static record_fn *const json_body[CTL__TYPES] = {
	[CTL_FILTERED] = json_filtered,
	[CTL_ENQUEUED] = json_enqueued,
	[CTL_RECONCILE_START] = json_start,
	[CTL_RECONCILE_DONE] = json_done,
	[CTL_NEVER_RECONCILED] = json_never,
	[CTL_STILL_QUEUED] = json_never,
	[CTL_DIVERGED] = json_diverged,
};

void controller_record_json(const struct ctl_record *r, int64_t base_ms, struct strbuf *sb)
{
	strbuf_add_json_record(sb, base_ms + r->clock_ms, ctl_record_name(r->type));
	if (r->kind)	/* several controllers: whose */
		strbuf_add_json_member(sb, "kind", r->kind);
	strbuf_add_json_member(sb, "key", r->key);
	if ((unsigned)r->type < CTL__TYPES)
		json_body[r->type](r, sb);
	strbuf_adds(sb, "}\n");
}

void controller_summary_text(const struct controller_stats *st, struct strbuf *sb)
{
	const struct workqueue_metrics *m = &st->wq;

	strbuf_adds(sb, "controller");
	if (st->kind) {	/* discovery's, or a recording's: the server's word */
		strbuf_adds(sb, " of ");
		strbuf_add_termsafe(sb, st->kind, strlen(st->kind), 0);
	}
	strbuf_addf(sb, " (controller-runtime v0.%u, %s queue): ", st->runtime_minor,
		    st->priority_queue ? "priority" : "rate-limiting");
	strbuf_addf(sb, "%llu deltas, %llu filtered, enqueued %llu new, "
		    "%llu coalesced, %llu dirty, %llu after; %llu reconciles "
		    "(%llu errors, %llu requeues); %zu keys with unseen states "
		    "(%llu states, %llu lost); workqueue depth %lld adds %llu retries %llu "
		    "queue_duration %.3fs max %.3fs work_duration %.3fs max %.3fs "
		    "longest_running_processor %.3fs",
		    (unsigned long long)st->deltas, (unsigned long long)st->filtered,
		    (unsigned long long)st->enqueued[WQ_NEW],
		    (unsigned long long)st->enqueued[WQ_COALESCED],
		    (unsigned long long)st->enqueued[WQ_DIRTY],
		    (unsigned long long)st->enqueued[WQ_WAITING],
		    (unsigned long long)st->reconciles, (unsigned long long)st->errors,
		    (unsigned long long)st->requeues, st->keys_unseen,
		    (unsigned long long)st->unseen, (unsigned long long)st->lost, (long long)m->depth,
		    (unsigned long long)m->adds, (unsigned long long)m->retries,
		    (double)m->queue_sum_ms / 1000, (double)m->queue_max_ms / 1000,
		    (double)m->work_sum_ms / 1000, (double)m->work_max_ms / 1000,
		    (double)m->longest_running_ms / 1000);
}

static void json_histogram(struct strbuf *sb, const char *name, uint64_t n,
			   int64_t sum_ms, int64_t max_ms)
{
	strbuf_addf(sb, ",\"%s\":{\"count\":%llu,\"sumSeconds\":%.3f,\"maxSeconds\":%.3f}",
		    name, (unsigned long long)n, (double)sum_ms / 1000, (double)max_ms / 1000);
}

void controller_summary_json(const struct controller_stats *st, int64_t base_ms,
			     struct strbuf *sb)
{
	const struct workqueue_metrics *m = &st->wq;

	strbuf_add_json_record(sb, base_ms + st->clock_ms, "ControllerSummary");
	if (st->kind)
		strbuf_add_json_member(sb, "kind", st->kind);
	strbuf_addf(sb, ",\"controllerRuntime\":\"v0.%u\",\"queue\":\"%s\"", st->runtime_minor,
		    st->priority_queue ? "priority" : "rate-limiting");
	strbuf_addf(sb, ",\"deltas\":%llu,\"filtered\":%llu,\"enqueued\":{\"new\":%llu,"
		    "\"coalesced\":%llu,\"dirty\":%llu,\"after\":%llu,\"early\":%llu},"
		    "\"reconciles\":%llu,"
		    "\"errors\":%llu,\"requeues\":%llu,\"keysWithUnseenStates\":%zu,"
		    "\"unseenStates\":%llu,\"lostStates\":%llu,\"running\":%u",
		    (unsigned long long)st->deltas, (unsigned long long)st->filtered,
		    (unsigned long long)st->enqueued[WQ_NEW],
		    (unsigned long long)st->enqueued[WQ_COALESCED],
		    (unsigned long long)st->enqueued[WQ_DIRTY],
		    (unsigned long long)st->enqueued[WQ_WAITING],
		    (unsigned long long)st->enqueued[WQ_EARLY],
		    (unsigned long long)st->reconciles, (unsigned long long)st->errors,
		    (unsigned long long)st->requeues, st->keys_unseen,
		    (unsigned long long)st->unseen, (unsigned long long)st->lost, st->running);
	strbuf_addf(sb, ",\"workqueue\":{\"depth\":%lld,\"adds\":%llu,\"retries\":%llu",
		    (long long)m->depth, (unsigned long long)m->adds,
		    (unsigned long long)m->retries);
	json_histogram(sb, "queue_duration", m->queue_count, m->queue_sum_ms, m->queue_max_ms);
	json_histogram(sb, "work_duration", m->work_count, m->work_sum_ms, m->work_max_ms);
	strbuf_addf(sb, ",\"longest_running_processor\":%.3f,\"unfinished_work_seconds\":%.3f}}\n",
		    (double)m->longest_running_ms / 1000, (double)m->unfinished_ms / 1000);
}
