/* controller_timeline.c — see controller_timeline.h.  Single-threaded. */
#include "output/controller_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/controller.h"
#include "lib/hashmap.h"
#include "lib/strbuf.h"

/* A state on its way: arrived, its fate so far. */
struct tl_state {
	char *rv;
	char *event;		/* "Update", "Create (initial list)", "lost" */
	char *object;		/* the object's key, when not the request's */
	const char *fate;	/* "enqueued", "filtered", "lost" */
	char *detail;		/* how it was enqueued, the predicate, the class */
	int64_t arrived;
};

struct tl_key {
	char *id;		/* the map's: "KIND key" with a kind, else the key */
	const char *key;	/* in id */
	const char *kind;	/* the record's (static), or NULL */
	unsigned track;		/* the trace's tid on the keys' process */
	struct tl_state *v;
	size_t nr, alloc;
};

struct tl_worker {
	unsigned track;		/* the trace's tid on the workers' process */
	int64_t start;
	char *read_rv;
};

struct timeline {
	FILE *f;
	bool trace;		/* Chrome trace event format; else NDJSON */
	bool first;		/* no trace event written yet */
	int64_t base_ms;
	struct hashmap keys;	/* key -> struct tl_key */
	unsigned tracks;
	struct hashmap workers;	/* "[KIND ]worker N" -> struct tl_worker */
	unsigned worker_tracks;
	struct strbuf sb;
};

enum { PID_WORKERS = 1, PID_KEYS = 2 };

/* A slice's length in the trace's microseconds: at least 1, so it shows. */
static int64_t us(int64_t ms)
{
	return ms > 0 ? ms * 1000 : 1;
}

static void trace_begin(struct timeline *t, const char *ph, int pid, unsigned tid)
{
	strbuf_adds(&t->sb, t->first ? "[\n" : ",\n");
	t->first = false;
	strbuf_addf(&t->sb, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%u", ph, pid, tid);
}

static void add_time(struct timeline *t, const char *name, int64_t clock_ms)
{
	char buf[32];
	format_time_rfc3339(t->base_ms + clock_ms, buf);
	strbuf_add_json_member(&t->sb, name, buf);
}

/* A thread or process name: the trace's "M" events. */
static void trace_name(struct timeline *t, const char *what, int pid, unsigned tid,
		       const char *name)
{
	trace_begin(t, "M", pid, tid);
	strbuf_add_json_member(&t->sb, "name", what);
	strbuf_adds(&t->sb, ",\"args\":{\"name\":");
	strbuf_add_json_string(&t->sb, name);
	strbuf_adds(&t->sb, "}}");
}

static void flush(struct timeline *t)
{
	if (t->sb.len)
		fwrite(t->sb.buf, 1, t->sb.len, t->f);
	strbuf_reset(&t->sb);
}

struct timeline *timeline_open(const char *path, int64_t base_ms, struct errbuf *err)
{
	int fd = open_new_file(path, 0600, err);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f) {
		if (fd >= 0) {
			errbuf_set(err, "cannot write '%s': %s", path, strerror(errno));
			close(fd);
		}
		return NULL;
	}
	struct timeline *t = xcalloc(1, sizeof(*t));
	t->f = f;
	t->trace = str_ends_with(path, ".json");
	t->first = true;
	t->base_ms = base_ms;
	if (t->trace) {
		trace_name(t, "process_name", PID_WORKERS, 0, "workers");
		trace_name(t, "process_name", PID_KEYS, 0, "keys");
		flush(t);
	}
	return t;
}

/* A record's key, with its controller's kind when several run; NULL: none yet. */
static struct tl_key *key_find(struct timeline *t, const struct ctl_record *r, bool make)
{
	struct strbuf id = STRBUF_INIT;
	struct tl_key *k;

	if (r->kind)
		strbuf_addf(&id, "%s ", r->kind);
	strbuf_adds(&id, r->key);
	k = hashmap_get(&t->keys, id.buf);
	if (k || !make) {
		strbuf_release(&id);
		return k;
	}
	k = xcalloc(1, sizeof(*k));
	k->id = strbuf_detach(&id, NULL);
	k->key = k->id + (strlen(k->id) - strlen(r->key));
	k->kind = r->kind;
	k->track = ++t->tracks;
	hashmap_insert(&t->keys, k->id, k);
	if (t->trace)
		trace_name(t, "thread_name", PID_KEYS, k->track, k->id);
	return k;
}

static void add_state(struct timeline *t, const struct ctl_record *r, const struct tl_state *s)
{
	struct tl_key *k = key_find(t, r, true);
	ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = *s;
}

static void state_release(struct tl_state *s)
{
	free(s->rv);
	free(s->event);
	free(s->object);
	free(s->detail);
}

/* Why a Reconcile (or the end) did not read rv, from its record's list. */
static const char *unseen_reason(const struct ctl_record *r, const char *rv)
{
	for (size_t i = 0; i < r->nr_unseen; i++)
		if (!strcmp(r->unseen[i].rv, rv))
			return r->unseen[i].reason;
	return NULL;
}

/*
 * A state's fate is known: covered by Reconcile #number at `at` (0: none,
 * the end), read or not and why.
 */
static void write_state(struct timeline *t, const struct tl_key *k, const struct tl_state *s,
			unsigned number, int64_t at, bool seen, const char *reason)
{
	if (t->trace) {
		trace_begin(t, "X", PID_KEYS, k->track);
		strbuf_addf(&t->sb, ",\"ts\":%lld,\"dur\":%lld,\"cat\":\"state\",\"name\":",
			    (long long)s->arrived * 1000, (long long)us(at - s->arrived));
		struct strbuf name = STRBUF_INIT;
		strbuf_addf(&name, "rv %s %s", s->rv, seen ? "read" : "unseen");
		if (number)
			strbuf_addf(&name, " by #%u", number);
		strbuf_add_json_string(&t->sb, name.buf);
		strbuf_release(&name);
		strbuf_adds(&t->sb, ",\"args\":{\"fate\":");
		strbuf_add_json_string(&t->sb, s->fate);
		strbuf_add_json_member(&t->sb, "detail", s->detail);
		strbuf_add_json_member(&t->sb, "event", s->event);
		strbuf_add_json_member(&t->sb, "object", s->object);
		strbuf_add_json_member(&t->sb, "reason", reason);
		strbuf_adds(&t->sb, "}}");
	} else {
		strbuf_adds(&t->sb, "{\"type\":\"State\"");
		if (k->kind)
			strbuf_add_json_member(&t->sb, "kind", k->kind);
		strbuf_add_json_member(&t->sb, "key", k->key);
		strbuf_add_json_member(&t->sb, "object", s->object ? s->object : k->key);
		strbuf_add_json_member(&t->sb, "resourceVersion", s->rv);
		strbuf_add_json_member(&t->sb, "event", s->event);
		add_time(t, "arrived", s->arrived);
		strbuf_add_json_member(&t->sb, "fate", s->fate);
		strbuf_add_json_member(&t->sb, !strcmp(s->fate, "filtered") ? "predicate" :
			   !strcmp(s->fate, "lost") ? "class" : "how", s->detail);
		if (number) {
			strbuf_addf(&t->sb, ",\"reconcile\":%u", number);
			add_time(t, "coveredAt", at);
		} else {
			strbuf_adds(&t->sb, ",\"reconcile\":null,\"coveredAt\":null");
		}
		strbuf_addf(&t->sb, ",\"seen\":%s", seen ? "true" : "false");
		strbuf_add_json_member(&t->sb, "reason", reason);
		strbuf_adds(&t->sb, "}\n");
	}
}

/* Every open state of key, its fate now known (ReconcileStart, the end). */
static void close_states(struct timeline *t, const struct ctl_record *r, bool started)
{
	struct tl_key *k = key_find(t, r, false);

	for (size_t i = 0; k && i < k->nr; i++) {
		struct tl_state *s = &k->v[i];
		bool seen = started && r->read_rv && !strcmp(r->read_rv, s->rv) &&
			    strcmp(s->fate, "lost");
		const char *reason = seen ? NULL : unseen_reason(r, s->rv);
		if (!seen && !reason)	/* the controller names an RV once */
			reason = started ? "its resourceVersion was read before"
					 : r->type == CTL_STILL_QUEUED ? "still queued at exit"
					 : "no Reconcile read it before the end";
		write_state(t, k, s, started ? r->number : 0, r->clock_ms, seen, reason);
		state_release(s);
	}
	if (k)
		k->nr = 0;
	flush(t);
}

/* A controller's worker w (each controller has its own workers). */
static struct tl_worker *worker_of(struct timeline *t, const struct ctl_record *r)
{
	char id[128];
	struct tl_worker *wk;

	snprintf(id, sizeof(id), "%s worker %u", r->kind ? r->kind : "", r->worker);
	const char *name = id + !r->kind;	/* "worker 1" alone for one controller */
	if ((wk = hashmap_get(&t->workers, name)))
		return wk;
	wk = xcalloc(1, sizeof(*wk));
	wk->track = ++t->worker_tracks;
	hashmap_insert(&t->workers, xstrdup(name), wk);
	if (t->trace)
		trace_name(t, "thread_name", PID_WORKERS, wk->track, name);
	return wk;
}

static void reconcile_done(struct timeline *t, const struct ctl_record *r)
{
	struct tl_worker *wk = worker_of(t, r);

	if (t->trace) {
		trace_begin(t, "X", PID_WORKERS, wk->track);
		strbuf_addf(&t->sb, ",\"ts\":%lld,\"dur\":%lld,\"cat\":\"reconcile\",\"name\":",
			    (long long)wk->start * 1000, (long long)us(r->took_ms));
		struct strbuf name = STRBUF_INIT;
		strbuf_addf(&name, "#%u %s", r->number, r->key);
		strbuf_add_json_string(&t->sb, name.buf);
		strbuf_release(&name);
		strbuf_adds(&t->sb, ",\"args\":{\"result\":");
		strbuf_add_json_string(&t->sb, r->result);
		strbuf_add_json_member(&t->sb, "readResourceVersion", wk->read_rv);
		strbuf_adds(&t->sb, "}}");
	} else {
		strbuf_adds(&t->sb, "{\"type\":\"Reconcile\"");
		if (r->kind)
			strbuf_add_json_member(&t->sb, "kind", r->kind);
		strbuf_add_json_member(&t->sb, "key", r->key);
		strbuf_addf(&t->sb, ",\"reconcile\":%u,\"worker\":%u", r->number, r->worker);
		add_time(t, "start", wk->start);
		add_time(t, "end", r->clock_ms);
		strbuf_add_json_member(&t->sb, "readResourceVersion", wk->read_rv);
		strbuf_add_json_member(&t->sb, "result", r->result);
		strbuf_adds(&t->sb, "}\n");
	}
	flush(t);
}

void timeline_record(struct timeline *t, const struct ctl_record *r)
{
	struct tl_state s = { .arrived = r->clock_ms };

	switch (r->type) {
	case CTL_FILTERED:
	case CTL_ENQUEUED:
		if (!r->delta)	/* a requeue, a delayed add: no state of its own */
			break;
		s.rv = xstrdup(r->rv);
		s.event = xstrdup(r->initial ? "Create (initial list)" : r->event);
		s.object = r->object && strcmp(r->object, r->key) ? xstrdup(r->object) : NULL;
		s.fate = r->type == CTL_FILTERED ? "filtered" : "enqueued";
		s.detail = xstrdup(r->type == CTL_FILTERED ? r->predicate : wq_add_name(r->how));
		add_state(t, r, &s);
		break;
	case CTL_DIVERGED:
		if (!r->lost)
			break;
		s.rv = xstrdup(r->server_rv ? r->server_rv : "deleted");
		s.event = xstrdup("lost");
		s.fate = "lost";
		s.detail = xstrdup(r->verify_class);
		add_state(t, r, &s);
		break;
	case CTL_RECONCILE_START: {
		struct tl_worker *wk = worker_of(t, r);
		wk->start = r->clock_ms;
		free(wk->read_rv);
		wk->read_rv = r->read_rv ? xstrdup(r->read_rv) : NULL;
		close_states(t, r, true);
		break;
	}
	case CTL_RECONCILE_DONE:
		reconcile_done(t, r);
		break;
	case CTL_NEVER_RECONCILED:
	case CTL_STILL_QUEUED:
		close_states(t, r, false);
		break;
	default:
		break;
	}
	flush(t);
}

int timeline_finish(struct timeline *t, struct errbuf *err)
{
	size_t iter = 0;
	struct hashmap_entry *e;
	int ret = 0;

	/* Left open: states whose RV a Reconcile had read already. */
	while ((e = hashmap_next(&t->keys, &iter))) {
		struct tl_key *k = e->value;
		for (size_t i = 0; i < k->nr; i++) {
			write_state(t, k, &k->v[i], 0, k->v[i].arrived, false,
				    "its resourceVersion was read before");
			state_release(&k->v[i]);
		}
		free(k->v);
		free(k->id);
		free(k);
	}
	hashmap_release(&t->keys);
	if (t->trace)
		strbuf_adds(&t->sb, t->first ? "[]\n" : "\n]\n");
	flush(t);
	if (ferror(t->f) | (fclose(t->f) != 0)) {
		errbuf_set(err, "cannot write the timeline: %s", strerror(errno));
		ret = -1;
	}
	iter = 0;
	while ((e = hashmap_next(&t->workers, &iter))) {
		struct tl_worker *wk = e->value;
		free(wk->read_rv);
		free(wk);
		free((char *)e->key);
	}
	hashmap_release(&t->workers);
	strbuf_release(&t->sb);
	free(t);
	return ret;
}
