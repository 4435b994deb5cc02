/* controller_flags.c — see controller_flags.h. */
#include "cli/controller_flags.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/informer_flags.h"
#include "cluster/discovery.h"
#include "informer/flight.h"
#include "informer/profile.h"
#include "informer/session.h"
#include "informer/verify.h"
#include "informer/metrics.h"
#include "controller/controller.h"
#include "controller/handler.h"
#include "output/controller_timeline.h"
#include "output/printer.h"
#include "lib/util.h"

struct controller_flags controller_flags = { .seed = 1, .outcomes = STRBUF_INIT };

/* --reconcile-outcome's rules, parsed once: the process's (borrowed by every run). */
static struct outcome_script outcomes;

const struct option controller_flag_options[] = {
	OPT_BOOL(0, "controller", &controller_flags.enabled,
		 "simulate a controller-runtime controller on the deltas: "
		 "predicates, workqueue, Reconciles (see CONTROLLER VIEW)"),
	OPT_INT(0, "workers", &controller_flags.workers, "N",
		"with --controller: concurrent Reconciles (MaxConcurrentReconciles, default 1)"),
	OPT_STRING(0, "reconcile-time", &controller_flags.reconcile_time, "D[..D]",
		   "with --controller: how long a Reconcile takes, or a range drawn "
		   "from --seed (default 0)", COMPLETE_NONE),
	OPT_DURATION(0, "requeue-after", &controller_flags.requeue_after_ms,
		     "with --controller: every Reconcile returns RequeueAfter this long"),
	OPT_STRING(0, "error-rate", &controller_flags.error_rate, "P",
		   "with --controller: the share of Reconciles that fail (0..1), "
		   "requeued rate-limited", COMPLETE_NONE),
	OPT_INT(0, "seed", &controller_flags.seed, "N",
		"with --controller: the seed of the Reconcile times and failures (default 1)"),
	OPT_STRING(0, "controller-runtime", &controller_flags.runtime, "VERSION",
		   "with --controller: the controller-runtime to imitate, v0.15 to v0.24 "
		   "(default: the one on --client-go's release; v0.23+: the priority queue)",
		   COMPLETE_CONTROLLER_RUNTIME),
	OPT_STRING(0, "predicate", &controller_flags.predicate, "LIST",
		   "with --controller: filter the controller's own kind's updates (For): "
		   "generation, resource-version, labels, annotations; a,b ANDs them, "
		   "a|b ORs them", COMPLETE_PREDICATES),
	OPT_STRING(0, "owns-predicate", &controller_flags.owns_predicate, "LIST",
		   "with --controller --enqueue-owner: filter the owned kinds' updates (Owns)",
		   COMPLETE_PREDICATES),
	OPT_STRING(0, "event-filter", &controller_flags.event_filter, "LIST",
		   "with --controller: filter every kind's updates (WithEventFilter)",
		   COMPLETE_PREDICATES),
	OPT_STRING(0, "timeline", &controller_flags.timeline, "FILE",
		   "with --controller: every state's story into FILE: arrived, filtered or "
		   "enqueued, read or unseen by Reconcile #n; NDJSON, or a Chrome/Perfetto "
		   "trace when FILE ends in .json", COMPLETE_FILE),
	OPT_LIST(0, "reconcile-outcome", &controller_flags.outcomes, "TARGET=OUTCOMES",
		 "with --controller: script what Reconciles return: TARGET '*', NS/NAME or "
		 "NS/NAME@RV; OUTCOMES success, error, terminal, requeue, "
		 "requeue-after:D, status-write, each *N times", COMPLETE_NONE),
	OPT_STRING(0, "enqueue-owner", &controller_flags.enqueue_owner, "KIND[.GROUP]",
		   "with --controller: enqueue the controller owner of this kind "
		   "(EnqueueRequestForOwner, OnlyControllerOwner)", COMPLETE_NONE),
	OPT_END(),
};

/*
 * One controller per resource, each its For(): a controller-runtime
 * controller's queue takes keys of its own kind.  With --enqueue-owner,
 * or one resource, a single one: c[0], whose sources are all of them.
 */
struct controller_run {
	struct controller **c;
	size_t nc;
	struct watch_loop *loop;	/* its session, printer, flight recorder, ... */
	struct watch_hook hook;		/* loop's */
	size_t owner_slot;		/* the single one's resource (its metrics') */
	int64_t base_ms;
	bool live;
	int64_t summary_every_ms, summary_at;
	int64_t metrics_at;
	struct timeline *timeline;	/* --timeline, or NULL */
};

/*
 * A Reconcile read past states of its key: the flight recorder's trigger,
 * controller-coalesced for any (a level-triggered controller coalesces
 * as a matter of course), controller-unseen only when it found the
 * object gone, so that what it missed is lost to it for good.
 */
static void flight_unseen(struct controller_run *run, const struct ctl_record *r)
{
	unsigned dump_on = run->loop->dump_on;

	if (!run->loop->flight || r->type != CTL_RECONCILE_START || !r->nr_unseen)
		return;
	const char *reason = !r->read_rv && (dump_on & DUMP_ON_CONTROLLER_UNSEEN)
		? "controller-unseen" : (dump_on & DUMP_ON_CONTROLLER_COALESCED)
		? "controller-coalesced" : NULL;
	if (!reason)
		return;
	struct json_object *keys = json_object_new_array(), *k = json_object_new_object();
	json_object_object_add(k, "key", json_object_new_string(r->key));
	json_object_object_add(k, "class", json_object_new_string("unseen"));
	json_object_array_add(keys, k);
	flight_trigger(run->loop->flight, reason, keys);
}

static void on_record(void *ctx, const struct ctl_record *r)
{
	struct controller_run *run = ctx;
	const char *key = run->loop->key;

	flight_unseen(run, r);
	if (run->timeline)
		timeline_record(run->timeline, r);
	if (key && strcmp(r->key, key) && (!r->object || strcmp(r->object, key)))
		return;
	/* A failed write stays in the stream's error for the loop's flush. */
	printer_controller(run->loop->printer, r, run->base_ms);
}

static void print_summary(struct controller_run *run)
{
	struct controller_stats st;
	for (size_t i = 0; i < run->nc; i++) {
		controller_get_stats(run->c[i], &st);
		printer_controller_summary(run->loop->printer, &st, run->base_ms);
	}
}

/* The controller informer i's deltas go to. */
static struct controller *controller_of(struct controller_run *run, size_t i)
{
	return run->c[run->nc == 1 || i >= run->nc ? 0 : i];
}

static void hook_note(void *ctx, const struct notification *n)
{
	struct controller_run *run = ctx;
	const struct session *s = run->loop->session;
	size_t i = 0;

	while (run->nc > 1 && i < s->nr && strcmp(s->resources[i]->name, n->resource))
		i++;
	controller_note(controller_of(run, i), n);
}

/* rv passed by the informer's (a key it will never bring): verify_check's rule. */
static bool passed(const char *informer_rv, const char *rv)
{
	int cmp;
	return informer_rv && rv && verify_rv_compare(informer_rv, rv, &cmp) == 0 && cmp >= 0;
}

/* A check's divergent keys, into the controller's story. */
static void hook_verified(void *ctx, size_t i, const struct verify_report *r)
{
	struct controller_run *run = ctx;
	const struct { const char *name; const struct verify_diff *v; size_t n; } classes[] = {
		{ "missing", r->missing, r->nmissing }, { "extra", r->extra, r->nextra },
		{ "stale", r->stale, r->nstale },
	};

	struct controller *ctl = controller_of(run, i);

	controller_advance(ctl);
	for (size_t c = 0; c < ARRAY_SIZE(classes); c++)
		for (size_t k = 0; k < classes[c].n; k++) {
			const struct verify_diff *d = &classes[c].v[k];
			bool lost = d->server_rv ? passed(r->informer_rv, d->server_rv)
						 : r->caught_up;
			controller_diverged(ctl, d->key, classes[c].name, d->server_rv,
					    d->cache_rv, lost);
		}
}

static void histogram_of(struct metrics_histogram *h, uint64_t count, int64_t sum_ms,
			 const uint64_t *buckets, unsigned nbuckets)
{
	h->count = count;
	h->sum_s = (double)sum_ms / 1000;
	h->nbuckets = nbuckets;
	for (int k = 0; k < METRICS_WQ_BUCKETS && k < WQ_BUCKETS; k++)
		h->buckets[k] = buckets[k];
}

/* One controller's figures, as its resource's (slot). */
static void publish_one(struct controller_run *run, struct controller *c, size_t slot)
{
	struct controller_stats st;
	struct metrics_workqueue wq = { 0 };

	controller_get_stats(c, &st);
	wq.depth = st.wq.depth > 0 ? (uint64_t)st.wq.depth : 0;
	wq.adds = st.wq.adds;
	wq.retries = st.wq.retries;
	histogram_of(&wq.queue_duration, st.wq.queue_count, st.wq.queue_sum_ms,
		     st.wq.queue_buckets, st.buckets);
	histogram_of(&wq.work_duration, st.wq.work_count, st.wq.work_sum_ms,
		     st.wq.work_buckets, st.buckets);
	wq.unfinished_work_s = (double)st.wq.unfinished_ms / 1000;
	wq.longest_running_s = (double)st.wq.longest_running_ms / 1000;
	/* a Reconcile that wrote its status returned success */
	wq.reconcile_success = st.results[OUTCOME_SUCCESS] + st.results[OUTCOME_STATUS_WRITE];
	wq.reconcile_error = st.results[OUTCOME_ERROR] + st.results[OUTCOME_TERMINAL];
	wq.terminal_errors = st.results[OUTCOME_TERMINAL];
	wq.reconcile_requeue = st.results[OUTCOME_REQUEUE];
	wq.reconcile_requeue_after = st.results[OUTCOME_REQUEUE_AFTER];
	wq.active_workers = st.running;
	wq.max_workers = controller_workers(c);
	wq.filtered = st.filtered;
	wq.unseen_states = st.unseen;
	wq.keys_unseen = st.keys_unseen;
	metrics_set_workqueue(run->loop->metrics, slot, &wq);
}

/* --metrics: the workqueues' figures, once a second. */
static void publish_workqueue(struct controller_run *run)
{
	if (!run->loop->metrics || mono_ms() < run->metrics_at)
		return;
	run->metrics_at = mono_ms() + METRICS_PUBLISH_MS;
	for (size_t i = 0; i < run->nc; i++)
		publish_one(run, run->c[i], run->nc == 1 ? run->owner_slot : i);
}

static void hook_tick(void *ctx)
{
	struct controller_run *run = ctx;

	for (size_t i = 0; i < run->nc; i++)
		controller_advance(run->c[i]);
	publish_workqueue(run);
	if (run->summary_every_ms && mono_ms() >= run->summary_at) {
		print_summary(run);
		run->summary_at = mono_ms() + run->summary_every_ms;
	}
}

static int64_t hook_wait(void *ctx)
{
	struct controller_run *run = ctx;
	int64_t wait = -1;

	for (size_t i = 0; i < run->nc; i++) {
		int64_t w = controller_wait_ms(run->c[i]);
		if (w >= 0 && (wait < 0 || w < wait))
			wait = w;
	}
	if (run->summary_every_ms) {
		int64_t until = run->summary_at - mono_ms();
		if (until < 0)
			until = 0;
		if (wait < 0 || until < wait)
			wait = until;
	}
	return wait;
}

/* "1s" or "50ms..500ms" into the opts' range. */
static void parse_reconcile_time(const struct command *cmd, const char *s,
				 struct controller_opts *o)
{
	const char *dots = strstr(s, "..");
	char *lo = dots ? xstrndup(s, (size_t)(dots - s)) : xstrdup(s);
	int bad = parse_duration(lo, &o->reconcile_min_ms) < 0;

	o->reconcile_max_ms = o->reconcile_min_ms;
	if (!bad && dots)
		bad = parse_duration(dots + 2, &o->reconcile_max_ms) < 0 ||
		      o->reconcile_max_ms < o->reconcile_min_ms;
	free(lo);
	if (bad)
		usage_error(cmd, "invalid value '%s' for '--reconcile-time': expected "
			    "a duration or a range, e.g. 1s or 50ms..500ms", s);
}

/*
 * --controller-runtime's minor, or the one released with --client-go's
 * minor (v0.15 with 1.27 ... v0.24 with 1.36), the newest without either.
 */
static unsigned runtime_minor(const struct command *cmd)
{
	const char *v = controller_flags.runtime;
	long minor;

	if (!v) {
		minor = informer_flags.client_go ? version_minor(informer_flags.client_go) : -1;
		return minor >= 27 ? (unsigned)(minor - 12) : CONTROLLER_RUNTIME_NEWEST;
	}
	minor = version_minor(v);
	if (minor < CONTROLLER_RUNTIME_OLDEST || minor > CONTROLLER_RUNTIME_NEWEST ||
	    (*v == 'v' ? v[1] : v[0]) != '0')
		usage_error(cmd, "invalid value '%s' for '--controller-runtime': expected "
			    "v0.%d to v0.%d, e.g. v0.22 or 0.24.1", v, CONTROLLER_RUNTIME_OLDEST,
			    CONTROLLER_RUNTIME_NEWEST);
	return (unsigned)minor;
}

/* The flags into opts; usage errors exit. */
static void parse_flags(const struct command *cmd, struct controller_opts *o)
{
	const struct controller_flags *f = &controller_flags;
	struct errbuf err = { "" };

	if (f->workers < 0 || f->workers > 10000)
		usage_error(cmd, "invalid value '%ld' for '--workers': expected 1 to 10000",
			    f->workers);
	o->workers = (unsigned)f->workers;
	if (f->reconcile_time)
		parse_reconcile_time(cmd, f->reconcile_time, o);
	o->requeue_after_ms = f->requeue_after_ms;
	if (f->error_rate) {
		char *end;
		o->error_rate = strtod(f->error_rate, &end);
		if (end == f->error_rate || *end || !(o->error_rate >= 0 && o->error_rate <= 1))
			usage_error(cmd, "invalid value '%s' for '--error-rate': expected "
				    "a share from 0 to 1, e.g. 0.1", f->error_rate);
	}
	o->seed = (uint64_t)f->seed;
	if (f->predicate && predicates_parse(&o->predicates, f->predicate, &err) < 0)
		usage_error(cmd, "invalid value '%s' for '--predicate': %s", f->predicate, err.msg);
	if (f->owns_predicate && !f->enqueue_owner)
		usage_error(cmd, "--owns-predicate needs --enqueue-owner: without it every "
			    "kind is the controller's own (For)");
	if (f->owns_predicate &&
	    predicates_parse(&o->owns_predicates, f->owns_predicate, &err) < 0)
		usage_error(cmd, "invalid value '%s' for '--owns-predicate': %s",
			    f->owns_predicate, err.msg);
	if (f->event_filter && predicates_parse(&o->event_filter, f->event_filter, &err) < 0)
		usage_error(cmd, "invalid value '%s' for '--event-filter': %s",
			    f->event_filter, err.msg);
	o->owner = f->enqueue_owner;
	o->runtime_minor = runtime_minor(cmd);
	if (f->outcomes.len) {
		outcome_script_release(&outcomes);
		if (outcome_script_add(&outcomes, f->outcomes.buf, &err) < 0)
			usage_error(cmd, "invalid value for '--reconcile-outcome': %s", err.msg);
		o->outcomes = &outcomes;
		if (outcome_script_has(&outcomes, OUTCOME_STATUS_WRITE) && o->reconcile_min_ms <= 0)
			usage_error(cmd, "--reconcile-outcome status-write needs --reconcile-time "
				    "over 0: the write's event comes back as the Reconcile ends");
	}
}

int64_t controller_base_ms(const char *started)
{
	int64_t ms;

	return parse_time_rfc3339(started, &ms) < 0 ? 0 : ms;
}

void controller_flags_check(const struct command *cmd)
{
	struct controller_opts o;

	controller_flags_opts(cmd, &o);
}

bool controller_flags_opts(const struct command *cmd, struct controller_opts *o)
{
	const struct controller_flags *f = &controller_flags;
	struct errbuf err = { "" };
	struct handler h;

	if (!f->enabled) {
		if (f->workers || f->reconcile_time || f->requeue_after_ms || f->error_rate ||
		    f->predicate || f->enqueue_owner || f->owns_predicate || f->event_filter ||
		    f->runtime || f->outcomes.len || f->timeline)
			usage_error(cmd, "--workers, --reconcile-time, --requeue-after, "
				    "--error-rate, --predicate, --owns-predicate, --event-filter, "
				    "--enqueue-owner, --controller-runtime, --reconcile-outcome and "
				    "--timeline need --controller");
		return false;
	}
	*o = (struct controller_opts){ .workers = 1 };
	parse_flags(cmd, o);
	if (handler_init(&h, f->enqueue_owner, &err) < 0)
		usage_error(cmd, "invalid value '%s' for '--enqueue-owner': %s",
			    f->enqueue_owner, err.msg);
	handler_release(&h);
	return true;
}

/* The owner kind's group (a KIND without one), from the session's resources. */
static const char *owner_group(const struct session *s, const char *owner)
{
	for (size_t i = 0; owner && !strchr(owner, '.') && i < s->nr; i++)
		if (!strcmp(s->resources[i]->kind, owner))
			return s->resources[i]->group;
	return NULL;
}

struct controller_run *controller_run_new(const struct command *cmd, struct watch_loop *loop,
					  bool live, int64_t base_ms, bool verbose)
{
	const struct session *s = loop->session;
	struct controller_opts o;
	struct errbuf err = { "" };

	if (!controller_flags_opts(cmd, &o))
		return NULL;
	o.owner_group = owner_group(s, o.owner);
	struct controller_run *run = xcalloc(1, sizeof(*run));
	o.now = live ? controller_live_clock : NULL;
	o.start_ms = live ? mono_ms() : 0;	/* a replay's clock starts at 0 */
	o.record = on_record;
	o.record_ctx = run;
	run->loop = loop;
	run->nc = o.owner || s->nr < 2 ? 1 : s->nr;
	run->c = xcalloc(run->nc, sizeof(*run->c));
	for (size_t i = 0; i < s->nr; i++)	/* the For() of --enqueue-owner's */
		if (o.owner && !strncmp(s->resources[i]->kind, o.owner, strcspn(o.owner, ".")) &&
		    !s->resources[i]->kind[strcspn(o.owner, ".")])
			run->owner_slot = i;
	for (size_t i = 0; i < run->nc; i++) {
		/* one: every resource is a source; several: each its own */
		o.sources = run->nc == 1 ? (unsigned)s->nr : 1;
		o.kind = run->nc == 1 ? NULL : s->resources[i]->kind;
		if (!(run->c[i] = controller_new(&o, &err)))
			usage_error(cmd, "%s", err.msg);
	}
	run->base_ms = base_ms;
	if (controller_flags.timeline &&
	    !(run->timeline = timeline_open(controller_flags.timeline, base_ms, &err)))
		die("%s", err.msg);
	run->live = live;
	run->summary_every_ms = live && verbose ? 30000 : 0;
	run->summary_at = mono_ms() + run->summary_every_ms;
	run->hook = (struct watch_hook){ hook_note, hook_verified, hook_tick, hook_wait, run };
	loop->hook = &run->hook;
	return run;
}

int controller_run_finish(struct controller_run *run)
{
	int ret = 0;

	for (size_t i = 0; i < run->nc; i++) {
		if (run->live)
			controller_advance(run->c[i]);
		controller_finish(run->c[i], !run->live);
	}
	if (run->timeline) {
		struct errbuf err = { "" };
		if (timeline_finish(run->timeline, &err) < 0) {
			error("%s", err.msg);
			ret = -1;
		}
		run->timeline = NULL;
	}
	print_summary(run);
	printer_flush(run->loop->printer);
	return ret;
}

void controller_run_free(struct controller_run *run)
{
	if (!run)
		return;
	if (run->timeline) {	/* never finished: closed as it stands */
		struct errbuf err = { "" };
		timeline_finish(run->timeline, &err);
	}
	for (size_t i = 0; i < run->nc; i++)
		controller_free(run->c[i]);
	free(run->c);
	free(run);
}
