/*
 * kinds.c — kubectl's columns of the built-in kinds, computed from json-c
 * trees; see kinds.h.
 *
 * Each kind is one row of kinds[]: its columns (header, wide-only, how to
 * compute the cell) and its short status.  A cell function appends to a
 * strbuf; nothing is cached, as a table is printed once.
 */
#include "output/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "informer/kobj_pick.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* ---- reading the tree -------------------------------------------------- */

static bool is_true(struct json_object *v)
{
	return v && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

static size_t obj_len(struct json_object *v)
{
	return v && json_object_is_type(v, json_type_object) ?
		(size_t)json_object_object_length(v) : 0;
}

/* The element of an array of objects whose member `key` equals value. */
static struct json_object *find_by(struct json_object *arr, const char *key,
				   const char *value)
{
	for (size_t i = 0; i < json_get_len(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		if (!strcmp(json_get_str(e, key, ""), value))
			return e;
	}
	return NULL;
}

static void add_or(struct strbuf *out, const char *s, const char *dflt)
{
	strbuf_adds(out, *s ? s : dflt);
}

/* ---- time -------------------------------------------------------------- */

/* format_age_since() of a time's JSON value (not a string: "<unknown>"). */
static void add_since(struct strbuf *out, struct json_object *ts, int64_t now_ms)
{
	char buf[32];

	format_age_since(json_get_value_str(ts, NULL), now_ms, buf);
	strbuf_adds(out, buf);
}

/* ---- cells common to every kind --------------------------------------- */

struct pod_summary;

struct row {
	struct json_object *obj;
	int64_t now_ms;
	/* The pod's summary, made by the first cell that needs it, for the
	 * others of the same row (columns_cells()). */
	struct pod_summary *ps;
};

/* A row of obj, its pod summary not made yet. */
#define ROW(obj, now_ms) { obj, now_ms, &(struct pod_summary){ 0 } }

static void cell_name(const struct row *r, struct strbuf *out)
{
	strbuf_adds(out, json_get_str(json_get(r->obj, "metadata"), "name", ""));
}

static void cell_age(const struct row *r, struct strbuf *out)
{
	add_since(out, json_get_path(r->obj, "metadata", "creationTimestamp", NULL), r->now_ms);
}

/* ---- Pod ---------------------------------------------------------------- */

struct pod_summary {
	int ready, total, restarts;
	int64_t last_restart_ms;	/* 0: unknown */
	/* STATUS is prefix then reason ("Init:", "ErrImagePull"); NULL: not made */
	const char *prefix, *reason;
	char text[48];		/* a reason made here: "ExitCode:1", "0/2" */
};

static bool is_restartable_init(struct json_object *spec_init, const char *name)
{
	struct json_object *c = find_by(spec_init, "name", name);
	return c && !strcmp(json_get_str(c, "restartPolicy", ""), "Always");
}

static bool has_condition(struct json_object *status, const char *type)
{
	struct json_object *c = find_by(json_get(status, "conditions"), "type", type);
	return c && !strcmp(json_get_str(c, "status", ""), "True");
}

static void note_termination(struct json_object *cs, int64_t *last)
{
	int64_t ms;
	struct json_object *term = json_get_path(cs, "lastState", "terminated", NULL);
	const char *at = json_get_str(term, "finishedAt", "");

	if (parse_time_rfc3339(at, &ms) == 0 && ms > *last)
		*last = ms;
}

static void set_reason(struct pod_summary *ps, const char *prefix, const char *s)
{
	ps->prefix = prefix;
	ps->reason = s;
}

/* "Signal:N" or "ExitCode:N" for a terminated state without a reason. */
static void set_exit_reason(struct pod_summary *ps, const char *prefix,
			    struct json_object *term)
{
	int64_t sig = json_get_int(json_get(term, "signal"));

	if (sig)
		snprintf(ps->text, sizeof(ps->text), "Signal:%lld", (long long)sig);
	else
		snprintf(ps->text, sizeof(ps->text), "ExitCode:%lld",
			 (long long)json_get_int(json_get(term, "exitCode")));
	set_reason(ps, prefix, ps->text);
}

/* Follows the init containers; true while initialisation holds the pod. */
static bool pod_init_containers(struct json_object *spec, struct json_object *status,
				struct pod_summary *ps)
{
	struct json_object *spec_init = json_get(spec, "initContainers");
	struct json_object *statuses = json_get(status, "initContainerStatuses");
	size_t n_init = json_get_len(spec_init);

	for (size_t i = 0; i < json_get_len(statuses); i++) {
		struct json_object *cs = json_object_array_get_idx(statuses, i);
		struct json_object *term = json_get_path(cs, "state", "terminated", NULL);
		struct json_object *wait = json_get_path(cs, "state", "waiting", NULL);
		const char *wait_reason = json_get_str(wait, "reason", "");
		bool restartable = is_restartable_init(spec_init, json_get_str(cs, "name", ""));
		int64_t count = json_get_int(json_get(cs, "restartCount"));

		ps->restarts += count;
		note_termination(cs, &ps->last_restart_ms);
		if (term && json_get_int(json_get(term, "exitCode")) == 0)
			continue;
		if (restartable && is_true(json_get(cs, "started"))) {
			if (is_true(json_get(cs, "ready")))
				ps->ready++;
			continue;
		}
		if (term) {
			const char *r = json_get_str(term, "reason", "");
			if (*r)
				set_reason(ps, "Init:", r);
			else
				set_exit_reason(ps, "Init:", term);
		} else if (wait && *wait_reason && strcmp(wait_reason, "PodInitializing")) {
			set_reason(ps, "Init:", wait_reason);
		} else {
			snprintf(ps->text, sizeof(ps->text), "%zu/%zu", i, n_init);
			set_reason(ps, "Init:", ps->text);
		}
		return true;
	}
	return false;
}

static void pod_summarize(struct json_object *pod, struct pod_summary *ps)
{
	struct json_object *spec = json_get(pod, "spec");
	struct json_object *status = json_get(pod, "status");
	struct json_object *spec_init = json_get(spec, "initContainers");
	struct json_object *init_statuses = json_get(status, "initContainerStatuses");
	const char *phase = json_get_str(status, "phase", "");
	const char *status_reason = json_get_str(status, "reason", "");
	int sidecar_restarts = 0;
	int64_t sidecar_last = 0;

	memset(ps, 0, sizeof(*ps));
	ps->total = (int)json_get_len(json_get(spec, "containers"));
	set_reason(ps, "", *status_reason ? status_reason : phase);

	struct json_object *sched = find_by(json_get(status, "conditions"), "type", "PodScheduled");
	if (sched && !strcmp(json_get_str(sched, "reason", ""), "SchedulingGated"))
		set_reason(ps, "", "SchedulingGated");

	/* Sidecars (restartable init containers) count as containers. */
	for (size_t i = 0; i < json_get_len(spec_init); i++)
		if (!strcmp(json_get_str(json_object_array_get_idx(spec_init, i), "restartPolicy", ""), "Always"))
			ps->total++;
	for (size_t i = 0; i < json_get_len(init_statuses); i++) {
		struct json_object *cs = json_object_array_get_idx(init_statuses, i);
		if (is_restartable_init(spec_init, json_get_str(cs, "name", ""))) {
			sidecar_restarts += json_get_int(json_get(cs, "restartCount"));
			note_termination(cs, &sidecar_last);
		}
	}

	bool initializing = pod_init_containers(spec, status, ps);

	if (!initializing || has_condition(status, "Initialized")) {
		struct json_object *statuses = json_get(status, "containerStatuses");
		bool has_running = false;

		/* Once initialised, only sidecars' restarts still count. */
		ps->restarts = sidecar_restarts;
		ps->last_restart_ms = sidecar_last;
		/* Backwards, as kubectl: the first container's reason wins. */
		for (size_t i = json_get_len(statuses); i-- > 0;) {
			struct json_object *cs = json_object_array_get_idx(statuses, i);
			struct json_object *term = json_get_path(cs, "state", "terminated", NULL);
			const char *wait_reason =
				json_get_str(json_get_path(cs, "state", "waiting", NULL), "reason", "");
			const char *term_reason = json_get_str(term, "reason", "");

			ps->restarts += json_get_int(json_get(cs, "restartCount"));
			note_termination(cs, &ps->last_restart_ms);
			if (*wait_reason)
				set_reason(ps, "", wait_reason);
			else if (term && *term_reason)
				set_reason(ps, "", term_reason);
			else if (term)
				set_exit_reason(ps, "", term);
			else if (is_true(json_get(cs, "ready")) &&
				 json_get_path(cs, "state", "running", NULL)) {
				has_running = true;
				ps->ready++;
			}
		}
		if (!*ps->prefix && !strcmp(ps->reason, "Completed") && has_running)
			set_reason(ps, "", has_condition(status, "Ready") ?
				   "Running" : "NotReady");
	}

	if (json_get_path(pod, "metadata", "deletionTimestamp", NULL)) {
		if (!strcmp(status_reason, "NodeLost"))
			set_reason(ps, "", "Unknown");
		else if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
			set_reason(ps, "", "Terminating");
	}
}

/* The row's pod summary, made once for READY, STATUS and RESTARTS together. */
static const struct pod_summary *pod_summary_of(const struct row *r)
{
	if (!r->ps->reason)
		pod_summarize(r->obj, r->ps);
	return r->ps;
}

static void pod_ready(const struct row *r, struct strbuf *out)
{
	const struct pod_summary *ps = pod_summary_of(r);

	strbuf_addf(out, "%d/%d", ps->ready, ps->total);
}

static void pod_status(const struct row *r, struct strbuf *out)
{
	const struct pod_summary *ps = pod_summary_of(r);

	strbuf_addf(out, "%s%s", ps->prefix, ps->reason);
}

static void pod_restarts(const struct row *r, struct strbuf *out)
{
	const struct pod_summary *ps = pod_summary_of(r);
	char age[32];

	strbuf_addf(out, "%d", ps->restarts);
	if (ps->restarts && ps->last_restart_ms) {
		format_age(r->now_ms - ps->last_restart_ms, age);
		strbuf_addf(out, " (%s ago)", age);
	}
}

static void pod_ip(const struct row *r, struct strbuf *out)
{
	struct json_object *ips = json_get_path(r->obj, "status", "podIPs", NULL);
	const char *ip = json_get_len(ips) ? json_get_str(json_object_array_get_idx(ips, 0), "ip", "") : "";

	if (!*ip)	/* older servers fill only podIP */
		ip = json_get_str(json_get(r->obj, "status"), "podIP", "");
	add_or(out, ip, "<none>");
}

static void pod_gates(const struct row *r, struct strbuf *out)
{
	struct json_object *gates = json_get_path(r->obj, "spec", "readinessGates", NULL);
	struct json_object *conds = json_get_path(r->obj, "status", "conditions", NULL);
	size_t n = json_get_len(gates), ok = 0;

	if (!n) {
		strbuf_adds(out, "<none>");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *type = json_get_str(json_object_array_get_idx(gates, i), "conditionType", "");
		struct json_object *c = find_by(conds, "type", type);
		if (c && !strcmp(json_get_str(c, "status", ""), "True"))
			ok++;
	}
	strbuf_addf(out, "%zu/%zu", ok, n);
}

static void pod_short(const struct row *r, struct strbuf *out)
{
	const struct pod_summary *ps = pod_summary_of(r);

	strbuf_addf(out, "%s%s %d/%d", ps->prefix, ps->reason, ps->ready, ps->total);
}

/* ---- Deployment --------------------------------------------------------- */

static int64_t deploy_desired(struct json_object *d)
{
	struct json_object *v = json_get_path(d, "spec", "replicas", NULL);
	return v ? json_get_int(v) : 1;	/* the API's default */
}

static void deploy_ready(const struct row *r, struct strbuf *out)
{
	strbuf_addf(out, "%lld/%lld",
		    (long long)json_get_int(json_get_path(r->obj, "status", "readyReplicas", NULL)),
		    (long long)deploy_desired(r->obj));
}

/* kubectl's layoutContainerCells: names or images, comma-joined. */
static void add_containers(struct json_object *obj, const char *field, struct strbuf *out)
{
	struct json_object *cs = json_get_path(obj, "spec", "template", "spec", "containers", NULL);

	for (size_t i = 0; i < json_get_len(cs); i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_adds(out, json_get_str(json_object_array_get_idx(cs, i), field, ""));
	}
}

static void deploy_containers(const struct row *r, struct strbuf *out)
{
	add_containers(r->obj, "name", out);
}

static void deploy_images(const struct row *r, struct strbuf *out)
{
	add_containers(r->obj, "image", out);
}

struct requirement {
	const char *key;
	struct strbuf text;
};

static int requirement_cmp(const void *a, const void *b)
{
	return strcmp(((const struct requirement *)a)->key,
		      ((const struct requirement *)b)->key);
}

/* "(a,b)": a requirement's values, sorted as the selector sorts them. */
static void add_value_set(struct strbuf *out, struct json_object *values)
{
	size_t n = json_get_len(values);
	const char **v = xcalloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = json_get_value_str(json_object_array_get_idx(values, i), "");
	qsort(v, n, sizeof(*v), strv_cmp);
	strbuf_addch(out, '(');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i ? "," : "", v[i]);
	strbuf_addch(out, ')');
	free(v);
}

/*
 * A LabelSelector as the selector's String(): requirements sorted by key,
 * "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k".
 */
static void deploy_selector(const struct row *r, struct strbuf *out)
{
	struct json_object *sel = json_get_path(r->obj, "spec", "selector", NULL);
	struct json_object *labels = json_get(sel, "matchLabels");
	struct json_object *exprs = json_get(sel, "matchExpressions");
	size_t n = obj_len(labels) + json_get_len(exprs), nr = 0;
	struct requirement *req = xcalloc(n ? n : 1, sizeof(*req));

	if (labels && obj_len(labels)) {
		json_object_object_foreach(labels, k, v) {
			req[nr].key = k;
			strbuf_addf(&req[nr].text, "%s=%s", k, json_get_value_str(v, ""));
			nr++;
		}
	}
	for (size_t i = 0; i < json_get_len(exprs); i++) {
		struct json_object *e = json_object_array_get_idx(exprs, i);
		const char *key = json_get_str(e, "key", "");
		const char *op = json_get_str(e, "operator", "");
		struct strbuf *t = &req[nr].text;

		req[nr++].key = key;
		if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
			strbuf_addf(t, "%s %s ", key, !strcmp(op, "In") ? "in" : "notin");
			add_value_set(t, json_get(e, "values"));
		} else if (!strcmp(op, "DoesNotExist")) {
			strbuf_addf(t, "!%s", key);
		} else {
			strbuf_adds(t, key);
		}
	}
	qsort(req, nr, sizeof(*req), requirement_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (i)
			strbuf_addch(out, ',');
		strbuf_adds(out, strbuf_str(&req[i].text));
		strbuf_release(&req[i].text);
	}
	free(req);
}

static void deploy_short(const struct row *r, struct strbuf *out)
{
	deploy_ready(r, out);
	strbuf_adds(out, " ready");
}

/* ---- Node --------------------------------------------------------------- */

static void node_status(const struct row *r, struct strbuf *out)
{
	struct json_object *ready = find_by(json_get_path(r->obj, "status", "conditions", NULL),
					    "type", "Ready");

	if (!ready)
		strbuf_adds(out, "Unknown");
	else if (!strcmp(json_get_str(ready, "status", ""), "True"))
		strbuf_adds(out, "Ready");
	else
		strbuf_adds(out, "NotReady");
	if (is_true(json_get_path(r->obj, "spec", "unschedulable", NULL)))
		strbuf_adds(out, ",SchedulingDisabled");
}

/* node-role.kubernetes.io/<role> labels and kubernetes.io/role=<role>. */
static void node_roles(const struct row *r, struct strbuf *out)
{
	static const char prefix[] = "node-role.kubernetes.io/";
	struct json_object *labels = json_get_path(r->obj, "metadata", "labels", NULL);
	size_t nr = 0;
	const char **roles = xcalloc(obj_len(labels) + 1, sizeof(*roles));

	if (labels && obj_len(labels)) {
		json_object_object_foreach(labels, k, v) {
			const char *role = NULL;
			if (str_starts_with(k, prefix) && k[sizeof(prefix) - 1])
				role = k + sizeof(prefix) - 1;
			else if (!strcmp(k, "kubernetes.io/role") && *json_get_value_str(v, ""))
				role = json_get_value_str(v, "");
			if (role)
				roles[nr++] = role;
		}
	}
	qsort(roles, nr, sizeof(*roles), strv_cmp);
	for (size_t i = 0, shown = 0; i < nr; i++) {
		if (i && !strcmp(roles[i], roles[i - 1]))
			continue;	/* a set: one of each */
		strbuf_addf(out, "%s%s", shown++ ? "," : "", roles[i]);
	}
	if (!nr)
		strbuf_adds(out, "<none>");
	free(roles);
}

static void node_address(const struct row *r, const char *type, struct strbuf *out)
{
	struct json_object *a = find_by(json_get_path(r->obj, "status", "addresses", NULL), "type", type);
	add_or(out, json_get_str(a, "address", ""), "<none>");
}

static void node_internal_ip(const struct row *r, struct strbuf *out)
{
	node_address(r, "InternalIP", out);
}

static void node_external_ip(const struct row *r, struct strbuf *out)
{
	node_address(r, "ExternalIP", out);
}

/* ---- Namespace, ConfigMap, Secret ---------------------------------------- */

static void namespace_status(const struct row *r, struct strbuf *out)
{
	strbuf_adds(out, json_get_str(json_get(r->obj, "status"), "phase", ""));
}

static void configmap_data(const struct row *r, struct strbuf *out)
{
	strbuf_addf(out, "%zu", obj_len(json_get(r->obj, "data")) +
				obj_len(json_get(r->obj, "binaryData")));
}

static void secret_data(const struct row *r, struct strbuf *out)
{
	strbuf_addf(out, "%zu", obj_len(json_get(r->obj, "data")));
}

/* ---- Event -------------------------------------------------------------- */

/* FIRST SEEN: firstTimestamp, else the new API's eventTime. */
static void event_first(const struct row *r, struct strbuf *out)
{
	struct json_object *ts = json_get(r->obj, "firstTimestamp");
	int64_t ms;

	if (parse_time_rfc3339(json_get_value_str(ts, ""), &ms) < 0)
		ts = json_get(r->obj, "eventTime");
	add_since(out, ts, r->now_ms);
}

/* LAST SEEN: the series' last observation, lastTimestamp, or FIRST SEEN. */
static void event_last(const struct row *r, struct strbuf *out)
{
	struct json_object *series = json_get(r->obj, "series");
	struct json_object *last = json_get(r->obj, "lastTimestamp");
	int64_t ms;

	if (series)
		add_since(out, json_get(series, "lastObservedTime"), r->now_ms);
	else if (parse_time_rfc3339(json_get_value_str(last, ""), &ms) == 0)
		add_since(out, last, r->now_ms);
	else
		event_first(r, out);
}

/* "kind/name" of the involved object, the kind in lower case. */
static void event_object(const struct row *r, struct strbuf *out)
{
	const char *kind = json_get_str(json_get(r->obj, "involvedObject"), "kind", "");
	const char *name = json_get_str(json_get(r->obj, "involvedObject"), "name", "");

	for (; *kind; kind++)
		strbuf_addch(out, (char)(*kind >= 'A' && *kind <= 'Z' ? *kind - 'A' + 'a' : *kind));
	if (*name)
		strbuf_addf(out, "/%s", name);
}

/* "component, host", each falling back to the reporting controller/instance. */
static void event_source(const struct row *r, struct strbuf *out)
{
	const char *component = json_get_str(json_get(r->obj, "source"), "component", "");
	const char *host = json_get_str(json_get(r->obj, "source"), "host", "");

	if (!*component)
		component = json_get_str(r->obj, "reportingComponent", "");
	if (!*host)
		host = json_get_str(r->obj, "reportingInstance", "");
	strbuf_adds(out, component);
	if (*host)
		strbuf_addf(out, ", %s", host);
}

/* The message, trimmed of surrounding white space as kubectl does. */
static void event_message(const struct row *r, struct strbuf *out)
{
	const char *m = json_get_str(r->obj, "message", "");
	size_t len;

	while (*m == ' ' || *m == '\t' || *m == '\n' || *m == '\r')
		m++;
	len = strlen(m);
	while (len && strchr(" \t\n\r", m[len - 1]))
		len--;
	strbuf_add(out, m, len);
}

static void event_count(const struct row *r, struct strbuf *out)
{
	struct json_object *series = json_get(r->obj, "series");
	int64_t count = series ? json_get_int(json_get(series, "count"))
			       : json_get_int(json_get(r->obj, "count"));

	strbuf_addf(out, "%lld", (long long)(count || series ? count : 1));
}

/* ---- the kinds ---------------------------------------------------------- */

typedef void cell_fn(const struct row *r, struct strbuf *out);

/* A column: its cell_fn's cell, or (cell NULL) the member at path. */
struct column {
	const char *header;
	cell_fn *cell;
	bool wide;		/* only with -o wide */
	const char *path[4];	/* NULL-terminated */
	const char *none;	/* a string member's cell when empty or missing */
	bool number;		/* an integer member, 0 when missing */
};

struct kind_spec {
	const char *kind;	/* NULL: the default, for every other kind */
	const char *const *groups;	/* the API groups it is served in, NULL-terminated */
	const struct column *columns;	/* ends with a NULL header */
	cell_fn *short_status;	/* NULL: none */
	const char *const *live;	/* see columns_live_headers() */
};

#define COL(header, fn) { header, fn, false, { NULL }, NULL, false }
#define WIDE(header, fn) { header, fn, true, { NULL }, NULL, false }
#define AT(header, wide, none, ...) { header, NULL, wide, { __VA_ARGS__, NULL }, none, false }
#define NUMBER_AT(header, ...) { header, NULL, false, { __VA_ARGS__, NULL }, NULL, true }
#define COLUMNS_END { NULL, NULL, false, { NULL }, NULL, false }

static void column_cell(const struct column *c, const struct row *r, struct strbuf *out)
{
	struct json_object *v = r->obj;

	if (c->cell) {
		c->cell(r, out);
		return;
	}
	for (size_t i = 0; c->path[i]; i++)
		v = json_get(v, c->path[i]);
	if (c->number)
		strbuf_addf(out, "%lld", (long long)json_get_int(v));
	else
		add_or(out, json_get_value_str(v, ""), c->none);
}

static const struct column pod_columns[] = {
	COL("NAME", cell_name),
	COL("READY", pod_ready),
	COL("STATUS", pod_status),
	COL("RESTARTS", pod_restarts),
	COL("AGE", cell_age),
	WIDE("IP", pod_ip),
	AT("NODE", true, "<none>", "spec", "nodeName"),
	AT("NOMINATED NODE", true, "<none>", "status", "nominatedNodeName"),
	WIDE("READINESS GATES", pod_gates),
	COLUMNS_END,
};

static const struct column deployment_columns[] = {
	COL("NAME", cell_name),
	COL("READY", deploy_ready),
	NUMBER_AT("UP-TO-DATE", "status", "updatedReplicas"),
	NUMBER_AT("AVAILABLE", "status", "availableReplicas"),
	COL("AGE", cell_age),
	WIDE("CONTAINERS", deploy_containers),
	WIDE("IMAGES", deploy_images),
	WIDE("SELECTOR", deploy_selector),
	COLUMNS_END,
};

static const struct column node_columns[] = {
	COL("NAME", cell_name),
	COL("STATUS", node_status),
	COL("ROLES", node_roles),
	COL("AGE", cell_age),
	AT("VERSION", false, "", "status", "nodeInfo", "kubeletVersion"),
	WIDE("INTERNAL-IP", node_internal_ip),
	WIDE("EXTERNAL-IP", node_external_ip),
	AT("OS-IMAGE", true, "<unknown>", "status", "nodeInfo", "osImage"),
	AT("KERNEL-VERSION", true, "<unknown>", "status", "nodeInfo", "kernelVersion"),
	AT("CONTAINER-RUNTIME", true, "<unknown>", "status", "nodeInfo",
	   "containerRuntimeVersion"),
	COLUMNS_END,
};

static const struct column namespace_columns[] = {
	COL("NAME", cell_name),
	COL("STATUS", namespace_status),
	COL("AGE", cell_age),
	COLUMNS_END,
};

static const struct column configmap_columns[] = {
	COL("NAME", cell_name),
	COL("DATA", configmap_data),
	COL("AGE", cell_age),
	COLUMNS_END,
};

static const struct column secret_columns[] = {
	COL("NAME", cell_name),
	AT("TYPE", false, "", "type"),
	COL("DATA", secret_data),
	COL("AGE", cell_age),
	COLUMNS_END,
};

static const struct column event_columns[] = {
	COL("LAST SEEN", event_last),
	AT("TYPE", false, "", "type"),
	AT("REASON", false, "", "reason"),
	COL("OBJECT", event_object),
	AT("SUBOBJECT", true, "", "involvedObject", "fieldPath"),
	WIDE("SOURCE", event_source),
	COL("MESSAGE", event_message),
	WIDE("FIRST SEEN", event_first),
	WIDE("COUNT", event_count),
	WIDE("NAME", cell_name),
	COLUMNS_END,
};

static const struct column default_columns[] = {
	COL("NAME", cell_name),
	COL("AGE", cell_age),
	COLUMNS_END,
};

/*
 * The live views' columns (between NAME and RV): kubectl's, less what a
 * row already shows, plus the pod's NODE — where a pod runs matters when
 * watching a scheduler or a node drain.
 */
static const char *const pod_live[] = { "READY", "STATUS", "RESTARTS", "NODE", "AGE", NULL };
static const char *const deployment_live[] = { "READY", "UP-TO-DATE", "AVAILABLE", "AGE", NULL };
static const char *const node_live[] = { "STATUS", "ROLES", "AGE", "VERSION", NULL };
static const char *const namespace_live[] = { "STATUS", "AGE", NULL };
static const char *const configmap_live[] = { "DATA", "AGE", NULL };
static const char *const secret_live[] = { "TYPE", "DATA", "AGE", NULL };
static const char *const event_live[] = { "TYPE", "REASON", "OBJECT", "MESSAGE", NULL };
static const char *const default_live[] = { "AGE", NULL };

/*
 * A built-in kind is one only in the groups Kubernetes serves it in: a
 * custom resource may take any kind's name in its own group (Knative's
 * Service, a CRD of kind Pod), and is then shown as a custom resource.
 */
static const char *const core_group[] = { "", NULL };
/* extensions/v1beta1 served Deployments until 1.16: the same columns. */
static const char *const deployment_groups[] = { "apps", "extensions", NULL };
/* events.k8s.io/v1's Events have always been shown with the core's columns. */
static const char *const event_groups[] = { "", "events.k8s.io", NULL };

static const struct kind_spec kinds[] = {
	{ "Pod", core_group, pod_columns, pod_short, pod_live },
	{ "Deployment", deployment_groups, deployment_columns, deploy_short, deployment_live },
	{ "Node", core_group, node_columns, node_status, node_live },
	{ "Namespace", core_group, namespace_columns, namespace_status, namespace_live },
	{ "ConfigMap", core_group, configmap_columns, NULL, configmap_live },
	{ "Secret", core_group, secret_columns, NULL, secret_live },
	{ "Event", event_groups, event_columns, NULL, event_live },
	{ NULL, NULL, default_columns, NULL, default_live },
};

static bool in_groups(const char *const *groups, const char *group)
{
	for (; *groups; groups++)
		if (!strcmp(*groups, group ? group : ""))
			return true;
	return false;
}

/* Group's kind's row of kinds[]: a built-in kind's, or the default. */
static const struct kind_spec *kind_spec_of(const char *group, const char *kind)
{
	const struct kind_spec *k = kinds;

	while (k->kind && (!kind || strcmp(k->kind, kind) || !in_groups(k->groups, group)))
		k++;
	return k;
}

bool kinds_builtin(const char *group, const char *kind)
{
	return kind_spec_of(group, kind)->kind != NULL;
}

const char *const *kinds_live_headers(const char *group, const char *kind)
{
	return kind_spec_of(group, kind)->live;
}

/*
 * What a pod's line columns read (pod_summarize, the wide detail): a few
 * members of the status, its conditions and container statuses, a few
 * of the spec's, the containers only counted, two timestamps.  The
 * labels, volumes, env and the like are never made into json-c objects:
 * a watch line costs a third of the tree.
 */
static const struct kobj_pick pod_pick_metadata[] = {
	{ "creationTimestamp", PICK_ALL, NULL },
	{ "deletionTimestamp", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_init_container[] = {
	{ "name", PICK_ALL, NULL },
	{ "restartPolicy", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_spec[] = {
	{ "containers", PICK_COUNT, NULL },
	{ "initContainers", PICK_EACH, pod_pick_init_container },
	{ "nodeName", PICK_ALL, NULL },
	{ "readinessGates", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_condition[] = {
	{ "type", PICK_ALL, NULL },
	{ "status", PICK_ALL, NULL },
	{ "reason", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
/*
 * A container's state, only the members the cells read: kept whole, each
 * went through json-c's tokener (a locale switched in and out per call),
 * a sixth of what the TUI's cells of a pod cost.
 */
static const struct kobj_pick pod_pick_nothing[] = {
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_waiting[] = {
	{ "reason", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_terminated[] = {
	{ "reason", PICK_ALL, NULL },
	{ "exitCode", PICK_ALL, NULL },
	{ "signal", PICK_ALL, NULL },
	{ "finishedAt", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_state[] = {
	{ "waiting", PICK_SOME, pod_pick_waiting },
	{ "terminated", PICK_SOME, pod_pick_terminated },
	{ "running", PICK_SOME, pod_pick_nothing },	/* only whether it is there */
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_container_status[] = {
	{ "name", PICK_ALL, NULL },
	{ "ready", PICK_ALL, NULL },
	{ "started", PICK_ALL, NULL },
	{ "restartCount", PICK_ALL, NULL },
	{ "state", PICK_SOME, pod_pick_state },
	{ "lastState", PICK_SOME, pod_pick_state },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_ip[] = {
	{ "ip", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick_status[] = {
	{ "phase", PICK_ALL, NULL },
	{ "reason", PICK_ALL, NULL },
	{ "conditions", PICK_EACH, pod_pick_condition },
	{ "initContainerStatuses", PICK_EACH, pod_pick_container_status },
	{ "containerStatuses", PICK_EACH, pod_pick_container_status },
	{ "podIP", PICK_ALL, NULL },
	{ "podIPs", PICK_EACH, pod_pick_ip },
	{ "nominatedNodeName", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pod_pick[] = {
	{ "metadata", PICK_SOME, pod_pick_metadata },
	{ "spec", PICK_SOME, pod_pick_spec },
	{ "status", PICK_SOME, pod_pick_status },
	{ NULL, PICK_ALL, NULL },
};

const struct kobj_pick *kinds_pick(const char *group, const char *kind)
{
	return kind_spec_of(group, kind)->columns == pod_columns ? pod_pick : NULL;
}

void kinds_short_status(const char *group, const char *kind, struct json_object *obj,
			int64_t now_ms, struct strbuf *out)
{
	const struct kind_spec *k = kind_spec_of(group, kind);
	struct row r = ROW(obj, now_ms);

	if (k->short_status)
		k->short_status(&r, out);
}

void kinds_wide_detail(const char *group, const char *kind, struct json_object *obj,
		       int64_t now_ms, struct strbuf *out)
{
	struct row r = ROW(obj, now_ms);
	struct strbuf cell = STRBUF_INIT;
	bool first = true;

	for (const struct column *c = kind_spec_of(group, kind)->columns; c->header; c++) {
		if (!c->wide)
			continue;
		strbuf_reset(&cell);
		column_cell(c, &r, &cell);
		const char *v = strbuf_str(&cell);
		if (!*v || !strcmp(v, "<none>") || !strcmp(v, "<unknown>"))
			continue;
		if (!first)
			strbuf_addch(out, ' ');
		first = false;
		for (const char *h = c->header; *h; h++)
			strbuf_addch(out, (char)(*h == ' ' ? '-' :
				     *h >= 'A' && *h <= 'Z' ? *h - 'A' + 'a' : *h));
		strbuf_addch(out, '=');
		strbuf_adds(out, v);
	}
	strbuf_release(&cell);
}

static int row_cell(const char *group, const char *kind, const char *header,
		    const struct row *r, struct strbuf *out)
{
	for (const struct column *c = kind_spec_of(group, kind)->columns; c->header; c++) {
		if (!strcmp(c->header, header)) {
			column_cell(c, r, out);
			return 0;
		}
	}
	return -1;
}

int kinds_cell(const char *group, const char *kind, const char *header,
	       struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	struct row r = ROW(obj, now_ms);

	return row_cell(group, kind, header, &r, out);
}

void kinds_cells(const char *group, const char *kind, const char *const *headers,
		 struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	struct row r = ROW(obj, now_ms);

	for (size_t i = 0; headers[i]; i++) {
		if (obj)
			row_cell(group, kind, headers[i], &r, out);
		strbuf_addch(out, '\0');
	}
}

struct json_object *kinds_column_def(const char *name, const char *type, bool is_name,
				     long priority)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "name", json_object_new_string(name));
	json_object_object_add(d, "type", json_object_new_string(type));
	json_object_object_add(d, "format", json_object_new_string(is_name ? "name" : ""));
	json_object_object_add(d, "description", json_object_new_string(""));
	json_object_object_add(d, "priority", json_object_new_int64(priority));
	return d;
}

void kinds_table_defs(const char *group, const char *kind, struct json_object *defs)
{
	for (const struct column *c = kind_spec_of(group, kind)->columns; c->header; c++)
		json_object_array_add(defs, kinds_column_def(c->header, "string", c->cell == cell_name,
							     c->wide));
}

void kinds_table_cells(const char *group, const char *kind, struct json_object *obj,
		       int64_t now_ms, struct json_object *cells)
{
	struct row r = ROW(obj, now_ms);
	struct strbuf sb = STRBUF_INIT;

	for (const struct column *c = kind_spec_of(group, kind)->columns; c->header; c++) {
		strbuf_reset(&sb);
		column_cell(c, &r, &sb);
		json_object_array_add(cells, json_object_new_string(strbuf_str(&sb)));
	}
	strbuf_release(&sb);
}
