/*
 * pod_scan.c — a pod's cells from its text in one pass; see pod_scan.h.
 *
 * Two steps: the scan notes what the rules read (spans into the text,
 * flags, small integers) member by member, a member seen again resetting
 * what the first one noted; then pod_rules() applies columns.c's
 * pod_summarize() to the notes, in the same order, so that the order of
 * the members in the text never matters.
 */
#include "output/pod_scan.h"

#include <stdio.h>
#include <string.h>

#include "lib/json_scan.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/columns.h"

struct span {
	const char *p;
	size_t n;
};

/* spec.initContainers[i] */
struct init_spec {
	struct span name;
	bool always;		/* restartPolicy "Always": a sidecar */
};

/* status.conditions[i] */
struct cond {
	struct span type, status, reason;
};

/* A state (state, lastState): what the rules read of it. */
struct state {
	bool running, term;
	struct span wait_reason;
	struct span term_reason;
	int64_t exit_code, signal;
	bool finished_ok;
	int64_t finished_ms;
};

/* status.containerStatuses[i], status.initContainerStatuses[i] */
struct cstatus {
	struct span name;
	bool ready, started;
	int64_t restarts;
	struct state state, last;
};

struct pod_notes {
	bool hard;		/* something left to the tree */
	/* metadata */
	bool created_ok, deleting;
	int64_t created_ms;
	/* spec */
	size_t ncontainers, ninit, ngates;
	struct init_spec init[POD_SCAN_MAX];
	struct span gates[POD_SCAN_MAX];
	struct span node;
	/* status */
	struct span phase, reason, pod_ip, nominated;
	struct span ips[POD_SCAN_MAX];
	size_t nconds, ninit_cs, ncs, nips;
	struct cond conds[POD_SCAN_MAX];
	struct cstatus init_cs[POD_SCAN_MAX], cs[POD_SCAN_MAX];
};

/* ---- reading values ---------------------------------------------------- */

/*
 * Past the value at the cursor without validating it: the text is a
 * kobj's, validated when it was made, and most of a pod's bytes are in
 * members no cell reads (its containers, volumes, tolerations).  Strings
 * are crossed by memchr, brackets counted.  Cut short: -1.
 */
static int skip_value(struct json_scan *s)
{
	const char *p = s->p, *end = s->end;
	int depth = 0;

	do {
		if (p >= end)
			return json_scan_fail(s, "unexpected end");
		char c = *p++;
		if (c == '"') {
			for (;;) {
				const char *q = memchr(p, '"', (size_t)(end - p));
				if (!q)
					return json_scan_fail(s, "unexpected end");
				size_t bs = 0;
				while (q - bs > p && q[-1 - (ptrdiff_t)bs] == '\\')
					bs++;
				p = q + 1;
				if (!(bs & 1))
					break;
			}
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (!depth) {	/* a number or a literal alone */
			while (p < end && *p != ',' && *p != '}' && *p != ']')
				p++;
		}
	} while (depth > 0);
	s->p = p;
	return 1;
}

/* A string's content into *sp; any other value: "" (json_get_str's default). */
static int read_str(struct json_scan *s, struct pod_notes *pn, struct span *sp)
{
	const char *t, *e;
	bool esc;

	sp->p = "";
	sp->n = 0;
	if (*s->p != '"')
		return skip_value(s);
	if (json_scan_string(s, &t, &e, &esc) < 0)
		return -1;
	if (esc)
		pn->hard = true;
	sp->p = t;
	sp->n = (size_t)(e - t);
	return 1;
}

/* A number as num() reads it: an integer or 0 for anything but a number. */
static int read_num(struct json_scan *s, struct pod_notes *pn, int64_t *v)
{
	const char *p = s->p;
	int64_t n = 0;
	bool neg = false;
	size_t digits = 0;

	*v = 0;
	if (skip_value(s) < 0)
		return -1;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return 1;
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; p < s->p && *p >= '0' && *p <= '9'; p++, digits++)
		n = n * 10 + (*p - '0');
	if (p != s->p || digits > 8)	/* a fraction, an exponent, a big one */
		pn->hard = true;
	*v = neg ? -n : n;
	return 1;
}

/* True for the literal true (is_true()). */
static int read_true(struct json_scan *s, bool *v)
{
	*v = *s->p == 't';
	return skip_value(s);
}

/* Whether the value is there and not null (json_get()). */
static int read_present(struct json_scan *s, bool *v)
{
	*v = *s->p != 'n';
	return skip_value(s);
}

/* A timestamp as parse_time_rfc3339() reads its string. */
static int read_time(struct json_scan *s, struct pod_notes *pn, bool *ok, int64_t *ms)
{
	struct span sp;
	char buf[64];

	*ok = false;
	if (read_str(s, pn, &sp) < 0)
		return -1;
	if (!sp.n)
		return 1;
	if (sp.n >= sizeof(buf)) {
		pn->hard = true;
		return 1;
	}
	memcpy(buf, sp.p, sp.n);
	buf[sp.n] = '\0';
	*ok = parse_time_rfc3339(buf, ms) == 0;
	return 1;
}

/* What each_element hands a member function. */
struct slot_ctx {
	struct pod_notes *pn;
	void *slot;
};

/* An object member read by fn into slot; anything else reads as absent. */
static int read_object(struct json_scan *s, struct pod_notes *pn, void *slot,
		       json_scan_member_fn *fn)
{
	struct slot_ctx sub = { pn, slot };

	if (*s->p != '{')
		return skip_value(s);
	return json_scan_object(s, fn, &sub) < 0 ? -1 : 1;
}

/*
 * An array whose elements fn reads into slots of size bytes from base
 * (zeroed first; at most POD_SCAN_MAX, more is hard).  Not an array:
 * none (what arr_len() says of it).
 */
struct each {
	struct pod_notes *pn;
	char *base;
	size_t size, *n;
	json_scan_member_fn *fn;
};

static int each_element(struct json_scan *s, void *ctx)
{
	struct each *e = ctx;

	if (*e->n >= POD_SCAN_MAX) {
		e->pn->hard = true;
		return skip_value(s);
	}
	void *slot = e->base + *e->n * e->size;
	memset(slot, 0, e->size);
	(*e->n)++;
	return read_object(s, e->pn, slot, e->fn);
}

static int read_each(struct json_scan *s, struct pod_notes *pn, void *base, size_t size,
		     size_t *n, json_scan_member_fn *fn)
{
	struct each e = { pn, base, size, n, fn };

	*n = 0;
	if (*s->p != '[')
		return skip_value(s);
	return json_scan_array(s, each_element, &e) < 0 ? -1 : 1;
}

/* ---- the members ------------------------------------------------------- */

static int init_spec_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct init_spec *is = c->slot;
	struct span policy;

	if (json_scan_key_is(key, klen, "name"))
		return read_str(s, c->pn, &is->name);
	if (json_scan_key_is(key, klen, "restartPolicy")) {
		int ret = read_str(s, c->pn, &policy);
		is->always = policy.n == 6 && !memcmp(policy.p, "Always", 6);
		return ret;
	}
	return skip_value(s);
}

static int gate_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;

	if (json_scan_key_is(key, klen, "conditionType"))
		return read_str(s, c->pn, c->slot);
	return skip_value(s);
}

static int cond_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct cond *cd = c->slot;

	if (json_scan_key_is(key, klen, "type"))
		return read_str(s, c->pn, &cd->type);
	if (json_scan_key_is(key, klen, "status"))
		return read_str(s, c->pn, &cd->status);
	if (json_scan_key_is(key, klen, "reason"))
		return read_str(s, c->pn, &cd->reason);
	return skip_value(s);
}

static int ip_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;

	if (json_scan_key_is(key, klen, "ip"))
		return read_str(s, c->pn, c->slot);
	return skip_value(s);
}

/* waiting: its reason only */
static int waiting_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;

	if (json_scan_key_is(key, klen, "reason"))
		return read_str(s, c->pn, c->slot);
	return skip_value(s);
}

static int terminated_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct state *st = c->slot;

	if (json_scan_key_is(key, klen, "reason"))
		return read_str(s, c->pn, &st->term_reason);
	if (json_scan_key_is(key, klen, "exitCode"))
		return read_num(s, c->pn, &st->exit_code);
	if (json_scan_key_is(key, klen, "signal"))
		return read_num(s, c->pn, &st->signal);
	if (json_scan_key_is(key, klen, "finishedAt"))
		return read_time(s, c->pn, &st->finished_ok, &st->finished_ms);
	return skip_value(s);
}

static int state_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct state *st = c->slot;

	if (json_scan_key_is(key, klen, "running"))
		return read_present(s, &st->running);
	if (json_scan_key_is(key, klen, "waiting")) {
		st->wait_reason = (struct span){ "", 0 };
		return read_object(s, c->pn, &st->wait_reason, waiting_member);
	}
	if (json_scan_key_is(key, klen, "terminated")) {
		st->term_reason = (struct span){ "", 0 };
		st->exit_code = st->signal = 0;
		st->finished_ok = false;
		st->term = *s->p != 'n';
		if (!st->term)
			return skip_value(s);
		return read_object(s, c->pn, st, terminated_member);
	}
	return skip_value(s);
}

static int cstatus_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct cstatus *cs = c->slot;

	if (json_scan_key_is(key, klen, "name"))
		return read_str(s, c->pn, &cs->name);
	if (json_scan_key_is(key, klen, "ready"))
		return read_true(s, &cs->ready);
	if (json_scan_key_is(key, klen, "started"))
		return read_true(s, &cs->started);
	if (json_scan_key_is(key, klen, "restartCount"))
		return read_num(s, c->pn, &cs->restarts);
	if (json_scan_key_is(key, klen, "state")) {
		memset(&cs->state, 0, sizeof(cs->state));
		return read_object(s, c->pn, &cs->state, state_member);
	}
	if (json_scan_key_is(key, klen, "lastState")) {
		memset(&cs->last, 0, sizeof(cs->last));
		return read_object(s, c->pn, &cs->last, state_member);
	}
	return skip_value(s);
}

static int metadata_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct pod_notes *pn = c->pn;

	if (json_scan_key_is(key, klen, "creationTimestamp"))
		return read_time(s, pn, &pn->created_ok, &pn->created_ms);
	if (json_scan_key_is(key, klen, "deletionTimestamp"))
		return read_present(s, &pn->deleting);
	return skip_value(s);
}

static int count_element(struct json_scan *s, void *ctx)
{
	(*(size_t *)ctx)++;
	return skip_value(s);
}

static int spec_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct pod_notes *pn = c->pn;

	if (json_scan_key_is(key, klen, "containers")) {
		/* Counted, not kept: a pod may have more containers than slots. */
		pn->ncontainers = 0;
		if (*s->p != '[')
			return skip_value(s);
		return json_scan_array(s, count_element, &pn->ncontainers) < 0 ? -1 : 1;
	}
	if (json_scan_key_is(key, klen, "initContainers"))
		return read_each(s, pn, pn->init, sizeof(pn->init[0]), &pn->ninit,
				 init_spec_member);
	if (json_scan_key_is(key, klen, "nodeName"))
		return read_str(s, pn, &pn->node);
	if (json_scan_key_is(key, klen, "readinessGates"))
		return read_each(s, pn, pn->gates, sizeof(pn->gates[0]), &pn->ngates,
				 gate_member);
	return skip_value(s);
}

static int status_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct slot_ctx *c = ctx;
	struct pod_notes *pn = c->pn;

	if (json_scan_key_is(key, klen, "phase"))
		return read_str(s, pn, &pn->phase);
	if (json_scan_key_is(key, klen, "reason"))
		return read_str(s, pn, &pn->reason);
	if (json_scan_key_is(key, klen, "podIP"))
		return read_str(s, pn, &pn->pod_ip);
	if (json_scan_key_is(key, klen, "nominatedNodeName"))
		return read_str(s, pn, &pn->nominated);
	if (json_scan_key_is(key, klen, "podIPs"))
		return read_each(s, pn, pn->ips, sizeof(pn->ips[0]), &pn->nips, ip_member);
	if (json_scan_key_is(key, klen, "conditions"))
		return read_each(s, pn, pn->conds, sizeof(pn->conds[0]), &pn->nconds,
				 cond_member);
	if (json_scan_key_is(key, klen, "initContainerStatuses"))
		return read_each(s, pn, pn->init_cs, sizeof(pn->init_cs[0]), &pn->ninit_cs,
				 cstatus_member);
	if (json_scan_key_is(key, klen, "containerStatuses"))
		return read_each(s, pn, pn->cs, sizeof(pn->cs[0]), &pn->ncs, cstatus_member);
	return skip_value(s);
}

/* A top-level member seen again replaces all the first one noted. */
static int pod_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct pod_notes *pn = ctx;
	static const struct span none = { "", 0 };

	if (json_scan_key_is(key, klen, "metadata")) {
		pn->created_ok = pn->deleting = false;
		return read_object(s, pn, NULL, metadata_member);
	}
	if (json_scan_key_is(key, klen, "spec")) {
		pn->ncontainers = pn->ninit = pn->ngates = 0;
		pn->node = none;
		return read_object(s, pn, NULL, spec_member);
	}
	if (json_scan_key_is(key, klen, "status")) {
		pn->phase = pn->reason = pn->pod_ip = pn->nominated = none;
		pn->nips = pn->nconds = pn->ninit_cs = pn->ncs = 0;
		return read_object(s, pn, NULL, status_member);
	}
	return skip_value(s);
}

/* ---- the rules (columns.c's pod_summarize) ------------------------------ */

static bool span_is(struct span sp, const char *s)
{
	size_t n = strlen(s);
	return sp.n == n && (!n || !memcmp(sp.p, s, n));
}

static bool span_eq(struct span a, struct span b)
{
	return a.n == b.n && (!a.n || !memcmp(a.p, b.p, a.n));
}

static bool restartable_init(const struct pod_notes *pn, struct span name)
{
	for (size_t i = 0; i < pn->ninit; i++)
		if (span_eq(pn->init[i].name, name))
			return pn->init[i].always;
	return false;
}

static const struct cond *find_cond(const struct pod_notes *pn, struct span type)
{
	for (size_t i = 0; i < pn->nconds; i++)
		if (span_eq(pn->conds[i].type, type))
			return &pn->conds[i];
	return NULL;
}

static bool has_condition(const struct pod_notes *pn, const char *type)
{
	const struct cond *c = find_cond(pn, (struct span){ type, strlen(type) });
	return c && span_is(c->status, "True");
}

static void note_termination(const struct cstatus *cs, int64_t *last)
{
	if (cs->last.finished_ok && cs->last.finished_ms > *last)
		*last = cs->last.finished_ms;
}

/* prefix then sp as the status; too long for it: hard. */
static void set_status(struct pod_notes *pn, struct pod_summary_rec *rec,
		       const char *prefix, struct span sp)
{
	size_t n = strlen(prefix);

	if (n + sp.n >= sizeof(rec->status)) {
		pn->hard = true;
		return;
	}
	memcpy(rec->status, prefix, n);
	if (sp.n)
		memcpy(rec->status + n, sp.p, sp.n);
	rec->status[n + sp.n] = '\0';
}

static void set_status_lit(struct pod_notes *pn, struct pod_summary_rec *rec, const char *s)
{
	set_status(pn, rec, "", (struct span){ s, strlen(s) });
}

static void set_exit_status(struct pod_summary_rec *rec, const char *prefix,
			    const struct state *st)
{
	if (st->signal)
		snprintf(rec->status, sizeof(rec->status), "%sSignal:%lld", prefix,
			 (long long)st->signal);
	else
		snprintf(rec->status, sizeof(rec->status), "%sExitCode:%lld", prefix,
			 (long long)st->exit_code);
}

/* pod_init_containers(): true while initialisation holds the pod. */
static bool rules_init(struct pod_notes *pn, struct pod_summary_rec *rec)
{
	for (size_t i = 0; i < pn->ninit_cs; i++) {
		const struct cstatus *cs = &pn->init_cs[i];
		const struct state *st = &cs->state;

		rec->restarts = (int32_t)(rec->restarts + cs->restarts);
		note_termination(cs, &rec->last_restart_ms);
		if (st->term && st->exit_code == 0)
			continue;
		if (restartable_init(pn, cs->name) && cs->started) {
			if (cs->ready)
				rec->ready++;
			continue;
		}
		if (st->term) {
			if (st->term_reason.n)
				set_status(pn, rec, "Init:", st->term_reason);
			else
				set_exit_status(rec, "Init:", st);
		} else if (st->wait_reason.n && !span_is(st->wait_reason, "PodInitializing")) {
			set_status(pn, rec, "Init:", st->wait_reason);
		} else {
			snprintf(rec->status, sizeof(rec->status), "Init:%zu/%zu", i, pn->ninit);
		}
		return true;
	}
	return false;
}

/* The containers, backwards as kubectl: the first one's reason wins. */
static void rules_containers(struct pod_notes *pn, struct pod_summary_rec *rec)
{
	bool has_running = false;

	for (size_t i = pn->ncs; i-- > 0;) {
		const struct cstatus *cs = &pn->cs[i];
		const struct state *st = &cs->state;

		rec->restarts = (int32_t)(rec->restarts + cs->restarts);
		note_termination(cs, &rec->last_restart_ms);
		if (st->wait_reason.n) {
			set_status(pn, rec, "", st->wait_reason);
		} else if (st->term && st->term_reason.n) {
			set_status(pn, rec, "", st->term_reason);
		} else if (st->term) {
			set_exit_status(rec, "", st);
		} else if (cs->ready && st->running) {
			has_running = true;
			rec->ready++;
		}
	}
	if (!strcmp(rec->status, "Completed") && has_running)
		set_status_lit(pn, rec, has_condition(pn, "Ready") ? "Running" : "NotReady");
}

static void rules(struct pod_notes *pn, struct pod_summary_rec *rec)
{
	int32_t sidecar_restarts = 0;
	int64_t sidecar_last = 0;

	rec->total = (int32_t)pn->ncontainers;
	set_status(pn, rec, "", pn->reason.n ? pn->reason : pn->phase);
	const struct cond *sched = find_cond(pn, (struct span){ "PodScheduled", 12 });
	if (sched && span_is(sched->reason, "SchedulingGated"))
		set_status_lit(pn, rec, "SchedulingGated");

	/* Sidecars (restartable init containers) count as containers. */
	for (size_t i = 0; i < pn->ninit; i++)
		if (pn->init[i].always)
			rec->total++;
	for (size_t i = 0; i < pn->ninit_cs; i++) {
		if (restartable_init(pn, pn->init_cs[i].name)) {
			sidecar_restarts = (int32_t)(sidecar_restarts + pn->init_cs[i].restarts);
			note_termination(&pn->init_cs[i], &sidecar_last);
		}
	}
	if (!rules_init(pn, rec) || has_condition(pn, "Initialized")) {
		/* Once initialised, only sidecars' restarts still count. */
		rec->restarts = sidecar_restarts;
		rec->last_restart_ms = sidecar_last;
		rules_containers(pn, rec);
	}
	if (pn->deleting) {
		if (span_is(pn->reason, "NodeLost"))
			set_status_lit(pn, rec, "Unknown");
		else if (!span_is(pn->phase, "Succeeded") && !span_is(pn->phase, "Failed"))
			set_status_lit(pn, rec, "Terminating");
	}
}

/* A string into a bounded buffer; too long: hard. */
static void copy_span(struct pod_notes *pn, char *buf, size_t size, struct span sp)
{
	if (sp.n >= size) {
		pn->hard = true;
		sp.n = 0;
	}
	if (sp.n)
		memcpy(buf, sp.p, sp.n);
	buf[sp.n] = '\0';
}

static void rules_wide(struct pod_notes *pn, struct pod_summary_rec *rec)
{
	struct span ip = pn->nips ? pn->ips[0] : (struct span){ "", 0 };

	if (!ip.n)	/* older servers fill only podIP */
		ip = pn->pod_ip;
	copy_span(pn, rec->ip, sizeof(rec->ip), ip);
	copy_span(pn, rec->node, sizeof(rec->node), pn->node);
	copy_span(pn, rec->nominated, sizeof(rec->nominated), pn->nominated);
	rec->gates = (int32_t)pn->ngates;
	for (size_t i = 0; i < pn->ngates; i++) {
		const struct cond *c = find_cond(pn, pn->gates[i]);
		if (c && span_is(c->status, "True"))
			rec->gates_ok++;
	}
	rec->created_ok = pn->created_ok;
	rec->created_ms = pn->created_ms;
}

int pod_scan(const char *text, size_t len, struct pod_summary_rec *rec)
{
	struct pod_notes pn;
	struct json_scan s;

	memset(&pn, 0, sizeof(pn));
	pn.node = pn.phase = pn.reason = pn.pod_ip = pn.nominated = (struct span){ "", 0 };
	memset(rec, 0, sizeof(*rec));
	json_scan_init(&s, text, len, NULL);
	json_scan_skip_ws(&s);
	if (s.p >= s.end || *s.p != '{' || json_scan_object(&s, pod_member, &pn) < 0)
		return -1;
	rules(&pn, rec);
	rules_wide(&pn, rec);
	return pn.hard ? -1 : 0;
}

/* ---- the cells ---------------------------------------------------------- */

static void add_or(struct strbuf *out, const char *s, const char *dflt)
{
	strbuf_adds(out, *s ? s : dflt);
}

static int cell(const struct pod_summary_rec *rec, const char *h, int64_t now_ms,
		struct strbuf *out)
{
	char age[32];

	if (!strcmp(h, "READY")) {
		strbuf_addf(out, "%d/%d", rec->ready, rec->total);
	} else if (!strcmp(h, "STATUS")) {
		strbuf_adds(out, rec->status);
	} else if (!strcmp(h, "RESTARTS")) {
		strbuf_addf(out, "%d", rec->restarts);
		if (rec->restarts && rec->last_restart_ms) {
			format_age(now_ms - rec->last_restart_ms, age);
			strbuf_addf(out, " (%s ago)", age);
		}
	} else if (!strcmp(h, "AGE")) {
		if (rec->created_ok)
			format_age(now_ms - rec->created_ms, age);
		strbuf_adds(out, rec->created_ok ? age : "<unknown>");
	} else if (!strcmp(h, "IP")) {
		add_or(out, rec->ip, "<none>");
	} else if (!strcmp(h, "NODE")) {
		add_or(out, rec->node, "<none>");
	} else if (!strcmp(h, "NOMINATED NODE")) {
		add_or(out, rec->nominated, "<none>");
	} else if (!strcmp(h, "READINESS GATES")) {
		if (rec->gates)
			strbuf_addf(out, "%d/%d", rec->gates_ok, rec->gates);
		else
			strbuf_adds(out, "<none>");
	} else {
		return -1;
	}
	strbuf_addch(out, '\0');
	return 0;
}

/*
 * Appends the cells of headers (NULL-terminated), each followed by a
 * NUL, as columns_cells() writes a pod's.  -1 (out untouched) when a
 * header is not one of the summary's (NAME, NAMESPACE, unknown ones).
 */
static int pod_scan_cells(const struct pod_summary_rec *rec, const char *const *headers,
			  int64_t now_ms, struct strbuf *out)
{
	size_t mark = out->len;

	for (size_t i = 0; headers[i]; i++) {
		if (cell(rec, headers[i], now_ms, out) < 0) {
			strbuf_setlen(out, mark);
			return -1;
		}
	}
	return 0;
}

int pod_scan_live_cells(const struct crd_columns *crds, const char *group, const char *kind,
			const char *const *headers, const char *text, size_t len,
			int64_t now_ms, struct strbuf *out)
{
	struct pod_summary_rec rec;

	if (columns_pick(crds, group, kind) != columns_pick(NULL, "", "Pod") ||
	    pod_scan(text, len, &rec) < 0)
		return -1;
	return pod_scan_cells(&rec, headers, now_ms, out);
}
