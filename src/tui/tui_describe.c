/*
 * tui_describe.c — `d`: an object as `kubectl describe` lays it out, and
 * the LIST of its Events on the consumer's worker; see tui_view.h.
 *
 * The describers write kubectl's lines (pkg/describe/describe.go): a
 * field's label and value a tab apart, indented two spaces a level (its
 * PrefixWriter).  The text is then aligned by lib/tabwriter as kubectl's
 * text/tabwriter aligns it (minwidth 0, padding 2, spaces).  A Pod's and a Secret's describers follow
 * kubectl's for the fields they show (a Secret's values by their sizes
 * only); any other kind has its generic describer: the object's fields,
 * "Label:  value", maps and lists nested.
 *
 * Threads: the text is made on the terminal thread; events_run() runs on
 * the worker and touches only its job.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cluster/http.h"
#include "cluster/pager.h"
#include "informer/session.h"
#include "lib/base64.h"
#include "lib/json_get.h"
#include "lib/selector.h"
#include "lib/stop.h"
#include "lib/strbuf.h"
#include "lib/tabwriter.h"
#include "lib/util.h"
#include "output/columns.h"
#include "output/gofmt.h"
#include "output/redact.h"
#include "tui/tui_describe.h"

/* ---- kubectl's PrefixWriter and its helpers ------------------------------- */

static void wr(struct strbuf *sb, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void wr(struct strbuf *sb, int level, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < level; i++)
		strbuf_adds(sb, "  ");
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	strbuf_adds(sb, s);
	free(s);
}

static const char *str(struct json_object *obj, const char *key)
{
	return json_get_str(obj, key, "");
}

/* "label:\tvalue" when obj's member key has a value. */
static void wr_set(struct strbuf *sb, int level, const char *label, struct json_object *obj,
		   const char *key)
{
	if (*str(obj, key))
		wr(sb, level, "%s:\t%s\n", label, str(obj, key));
}

static long long num(struct json_object *obj, const char *key)
{
	struct json_object *v = json_get(obj, key);
	return v ? (long long)json_object_get_int64(v) : 0;
}

static bool truth(struct json_object *obj, const char *key)
{
	struct json_object *v = json_get(obj, key);
	return v && json_object_get_boolean(v);
}

/* A bool as fmt's %v prints it. */
static const char *yes(struct json_object *obj, const char *key)
{
	return truth(obj, key) ? "true" : "false";
}

/* fmt's %v of a value, into a string the caller frees. */
static char *go_v(struct json_object *v)
{
	struct strbuf sb = STRBUF_INIT;

	gofmt_print(v, &sb);
	return strbuf_detach(&sb, NULL);
}

#define ITEM(a, i) json_object_array_get_idx((a), (i))

/* time.RFC1123Z in local time, as describe prints a metav1.Time. */
static void rfc1123z(const char *ts, char buf[48])
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int64_t ms;
	struct tm tm;

	if (!ts || parse_time_rfc3339(ts, &ms) < 0) {
		snprintf(buf, 48, "%s", ts ? ts : "");
		return;
	}
	time_t secs = (time_t)(ms / 1000);
	localtime_r(&secs, &tm);
	long off = tm.tm_gmtoff < 0 ? -tm.tm_gmtoff : tm.tm_gmtoff;
	snprintf(buf, 48, "%s, %02d %s %04d %02d:%02d:%02d %c%02ld%02ld", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, tm.tm_gmtoff < 0 ? '-' : '+', off / 3600, off % 3600 / 60);
}

/* printLabelsMultiline: "Labels:  a=b", the next ones under it. */
static void labels_multiline(struct strbuf *sb, const char *title, struct json_object *map)
{
	size_t nr = 0;
	const char **keys = json_object_is_type(map, json_type_object)
			    ? gofmt_sorted_keys(map, &nr) : NULL;

	wr(sb, 0, "%s:\t", title);
	if (!nr)
		strbuf_adds(sb, "<none>\n");
	for (size_t i = 0; i < nr; i++)
		wr(sb, 0, "%s%s=%s\n", i ? "\t" : "", keys[i],
		   json_get_value_str(json_get(map, keys[i]), ""));
	free(keys);
}

#define MAX_ANNOTATION_LEN 140
#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"

/* printAnnotationsMultiline: long or many-line values below their key, shortened. */
static void annotations_multiline(struct strbuf *sb, struct json_object *map)
{
	size_t nr = 0, shown = 0;
	const char **keys = json_object_is_type(map, json_type_object)
			    ? gofmt_sorted_keys(map, &nr) : NULL;

	wr(sb, 0, "Annotations:\t");
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(keys[i], LAST_APPLIED))
			continue;
		const char *v = json_get_value_str(json_get(map, keys[i]), "");
		size_t len = strlen(v);
		if (len && v[len - 1] == '\n')
			len--;
		if (shown++)
			strbuf_addch(sb, '\t');
		if (len + strlen(keys[i]) + 2 <= MAX_ANNOTATION_LEN && !memchr(v, '\n', len)) {
			strbuf_addf(sb, "%s: %.*s\n", keys[i], (int)len, v);
			continue;
		}
		strbuf_addf(sb, "%s:\n", keys[i]);
		for (const char *p = v, *end = v + len; p <= end;) {
			size_t n = strcspn(p, "\n");
			n = p + n > end ? (size_t)(end - p) : n;
			size_t cut = n > MAX_ANNOTATION_LEN - 2 ? MAX_ANNOTATION_LEN - 2 : n;
			strbuf_addf(sb, "\t  %.*s%s\n", (int)cut, p, cut < n ? "..." : "");
			p += n + 1;
		}
	}
	if (!shown)
		strbuf_adds(sb, "<none>\n");
	free(keys);
}

/* list's items into a new array, in the order of their member key (stable). */
static struct json_object **sorted_by(struct json_object *list, const char *key, size_t *nr)
{
	struct json_object **v;

	*nr = json_get_len(list);
	v = xcalloc(*nr ? *nr : 1, sizeof(*v));
	for (size_t i = 0; i < *nr; i++) {
		size_t j = i;
		for (; j && strcmp(str(v[j - 1], key), str(ITEM(list, i), key)) > 0; j--)
			v[j] = v[j - 1];
		v[j] = ITEM(list, i);
	}
	return v;
}

/* printPodTolerationsMultiline: "key=value:Effect op=Exists for 300s". */
static void tolerations_multiline(struct strbuf *sb, struct json_object *list)
{
	size_t nr;
	struct json_object **v = sorted_by(list, "key", &nr);

	wr(sb, 0, "Tolerations:\t");
	if (!nr)
		strbuf_adds(sb, "<none>\n");
	for (size_t i = 0; i < nr; i++) {
		const char *key = str(v[i], "key"), *value = str(v[i], "value");
		const char *effect = str(v[i], "effect");
		strbuf_addf(sb, "%s%s", i ? "\t" : "", key);
		if (*value)
			strbuf_addf(sb, "=%s", value);
		if (*effect)
			strbuf_addf(sb, ":%s", effect);
		if (!strcmp(str(v[i], "operator"), "Exists") && !*value)
			strbuf_adds(sb, *key || *effect ? " op=Exists" : "op=Exists");
		if (json_get(v[i], "tolerationSeconds"))
			strbuf_addf(sb, " for %llds", num(v[i], "tolerationSeconds"));
		strbuf_addch(sb, '\n');
	}
	free(v);
}

/* ---- a Pod ------------------------------------------------------------------- */

/* What a downward API env var reads from the pod, as kubectl resolves it. */
static char *field_value(struct json_object *pod, const char *path)
{
	char key[256];

	if (sscanf(path, "metadata.labels['%255[^']']", key) == 1)
		return xstrdup(json_get_str(json_get_path(pod, "metadata", "labels", NULL), key, ""));
	if (sscanf(path, "metadata.annotations['%255[^']']", key) == 1)
		return xstrdup(json_get_str(json_get_path(pod, "metadata", "annotations", NULL),
					    key, ""));
	struct json_object *v = pod;
	char *copy = xstrdup(path);
	for (char *save = NULL, *part = strtok_r(copy, ".", &save); part && v;
	     part = strtok_r(NULL, ".", &save))
		v = json_get(v, part);
	free(copy);
	return v && !json_object_is_type(v, json_type_object) ? go_v(v) : xstrdup("");
}

static void container_env(struct strbuf *sb, struct json_object *pod, struct json_object *c)
{
	struct json_object *env = json_get(c, "env");
	size_t nr = json_get_len(env);

	wr(sb, 2, "Environment:%s\n", nr ? "" : "\t<none>");
	for (size_t i = 0; i < nr; i++) {
		struct json_object *e = ITEM(env, i), *from = json_get(e, "valueFrom");
		struct json_object *ref;
		const char *name = str(e, "name");
		if (!from) {
			const char *v = str(e, "value");
			for (bool first = true; first || *v; first = false) {
				size_t n = strcspn(v, "\n");
				wr(sb, 3, "%s%s\t%.*s\n", first ? name : "", first ? ":" : "",
				   (int)n, v);
				v += n + (v[n] == '\n');
			}
		} else if ((ref = json_get(from, "fieldRef"))) {
			char *v = field_value(pod, str(ref, "fieldPath"));
			wr(sb, 3, "%s:\t%s (%s:%s)\n", name, v, str(ref, "apiVersion"),
			   str(ref, "fieldPath"));
			free(v);
		} else if ((ref = json_get(from, "resourceFieldRef"))) {
			wr(sb, 3, "%s:\t (%s)\n", name, str(ref, "resource"));
		} else if ((ref = json_get(from, "secretKeyRef"))) {
			wr(sb, 3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %s\n", name,
			   str(ref, "key"), str(ref, "name"), yes(ref, "optional"));
		} else if ((ref = json_get(from, "configMapKeyRef"))) {
			wr(sb, 3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %s\n",
			   name, str(ref, "key"), str(ref, "name"), yes(ref, "optional"));
		}
	}
}

static void container_mounts(struct strbuf *sb, struct json_object *c)
{
	size_t nr;
	struct json_object **v = sorted_by(json_get(c, "volumeMounts"), "mountPath", &nr);

	wr(sb, 2, "Mounts:%s\n", nr ? "" : "\t<none>");
	for (size_t i = 0; i < nr; i++) {
		const char *sub = str(v[i], "subPath");
		struct strbuf q = STRBUF_INIT;
		if (*sub)
			gofmt_quote(sub, strlen(sub), &q);
		wr(sb, 3, "%s from %s (%s%s%s)\n", str(v[i], "mountPath"), str(v[i], "name"),
		   truth(v[i], "readOnly") ? "ro" : "rw", *sub ? ",path=" : "",
		   strbuf_str(&q));
		strbuf_release(&q);
	}
	free(v);
}

/* DescribeProbe: "http-get http://:8080/healthz delay=0s timeout=1s ...". */
static void container_probe(struct strbuf *sb, const char *label, struct json_object *p)
{
	struct json_object *h;
	char attrs[160];

	if (!p)
		return;
	snprintf(attrs, sizeof(attrs), "delay=%llds timeout=%llds period=%llds #success=%lld "
		 "#failure=%lld", num(p, "initialDelaySeconds"), num(p, "timeoutSeconds"),
		 num(p, "periodSeconds"), num(p, "successThreshold"), num(p, "failureThreshold"));
	if ((h = json_get(p, "exec"))) {
		char *cmd = go_v(json_get(h, "command"));
		wr(sb, 2, "%s:\texec %s %s\n", label, strcmp(cmd, "<nil>") ? cmd : "[]", attrs);
		free(cmd);
	} else if ((h = json_get(p, "httpGet"))) {
		char *port = go_v(json_get(h, "port"));
		char *scheme = xstrdup(str(h, "scheme"));
		for (char *s = scheme; *s; s++)
			*s = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
		wr(sb, 2, "%s:\thttp-get %s://%s:%s%s %s\n", label, scheme, str(h, "host"), port,
		   str(h, "path"), attrs);
		free(scheme);
		free(port);
	} else if ((h = json_get(p, "tcpSocket"))) {
		char *port = go_v(json_get(h, "port"));
		wr(sb, 2, "%s:\ttcp-socket %s:%s %s\n", label, str(h, "host"), port, attrs);
		free(port);
	} else if ((h = json_get(p, "grpc"))) {
		wr(sb, 2, "%s:\tgrpc <pod>:%lld %s %s\n", label, num(h, "port"), str(h, "service"),
		   attrs);
	} else {
		wr(sb, 2, "%s:\tunknown %s\n", label, attrs);
	}
}

/* describeStatus: a container's state (State, Last State). */
static void container_state(struct strbuf *sb, const char *label, struct json_object *state)
{
	struct json_object *s;
	char t1[48], t2[48];

	if ((s = json_get(state, "running"))) {
		rfc1123z(json_get_str(s, "startedAt", NULL), t1);
		wr(sb, 2, "%s:\tRunning\n", label);
		wr(sb, 3, "Started:\t%s\n", t1);
	} else if ((s = json_get(state, "terminated"))) {
		wr(sb, 2, "%s:\tTerminated\n", label);
		wr_set(sb, 3, "Reason", s, "reason");
		wr_set(sb, 3, "Message", s, "message");
		wr(sb, 3, "Exit Code:\t%lld\n", num(s, "exitCode"));
		if (num(s, "signal") > 0)
			wr(sb, 3, "Signal:\t%lld\n", num(s, "signal"));
		rfc1123z(json_get_str(s, "startedAt", NULL), t1);
		rfc1123z(json_get_str(s, "finishedAt", NULL), t2);
		wr(sb, 3, "Started:\t%s\n", t1);
		wr(sb, 3, "Finished:\t%s\n", t2);
	} else {
		wr(sb, 2, "%s:\tWaiting\n", label);
		wr_set(sb, 3, "Reason", json_get(state, "waiting"), "reason");
	}
}

/* describeContainerPorts and its host ports: "8080/TCP, 8443/TCP". */
static void container_ports(struct strbuf *sb, struct json_object *c, const char *what,
			    const char *one, const char *many)
{
	struct json_object *ports = json_get(c, "ports");
	struct strbuf list = STRBUF_INIT;

	for (size_t i = 0; i < json_get_len(ports); i++)
		strbuf_addf(&list, "%s%lld/%s", i ? ", " : "", num(ITEM(ports, i), what),
			    str(ITEM(ports, i), "protocol"));
	wr(sb, 2, "%s:\t%s\n", strchr(strbuf_str(&list), ',') ? many : one,
	   list.len ? list.buf : "<none>");
	strbuf_release(&list);
}

static void container_resources(struct strbuf *sb, struct json_object *c)
{
	static const char *const kinds[][2] = { { "limits", "Limits" }, { "requests", "Requests" } };
	struct json_object *res = json_get(c, "resources");

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct json_object *map = json_get_object(res, kinds[k][0]);
		size_t nr = 0;
		const char **keys = map ? gofmt_sorted_keys(map, &nr) : NULL;
		if (nr)
			wr(sb, 2, "%s:\n", kinds[k][1]);
		for (size_t i = 0; i < nr; i++) {
			char *v = go_v(json_get(map, keys[i]));
			wr(sb, 3, "%s:\t%s\n", keys[i], v);
			free(v);
		}
		free(keys);
	}
}

/* Its status among statuses (by name), or NULL. */
static struct json_object *status_of(struct json_object *statuses, const char *name)
{
	for (size_t i = 0; i < json_get_len(statuses); i++)
		if (!strcmp(str(ITEM(statuses, i), "name"), name))
			return ITEM(statuses, i);
	return NULL;
}

static void lines_of(struct strbuf *sb, const char *label, struct json_object *list)
{
	if (!json_get_len(list))
		return;
	wr(sb, 2, "%s:\n", label);
	for (size_t i = 0; i < json_get_len(list); i++) {
		const char *v = json_get_value_str(ITEM(list, i), "");
		for (;;) {
			size_t n = strcspn(v, "\n");
			wr(sb, 3, "%.*s\n", (int)n, v);
			if (!v[n])
				break;
			v += n + 1;
		}
	}
}

/* describeContainers: each container's image, state, resources, env, mounts. */
static void describe_containers(struct strbuf *sb, const char *label, struct json_object *pod,
				struct json_object *list, struct json_object *statuses)
{
	wr(sb, 0, "%s:%s\n", label, json_get_len(list) ? "" : " <none>");
	for (size_t i = 0; i < json_get_len(list); i++) {
		struct json_object *c = ITEM(list, i), *st = status_of(statuses, str(c, "name"));
		wr(sb, 1, "%s:\n", str(c, "name"));
		if (st)
			wr(sb, 2, "Container ID:\t%s\n", str(st, "containerID"));
		wr(sb, 2, "Image:\t%s\n", str(c, "image"));
		if (st)
			wr(sb, 2, "Image ID:\t%s\n", str(st, "imageID"));
		container_ports(sb, c, "containerPort", "Port", "Ports");
		container_ports(sb, c, "hostPort", "Host Port", "Host Ports");
		lines_of(sb, "Command", json_get(c, "command"));
		lines_of(sb, "Args", json_get(c, "args"));
		if (st) {
			container_state(sb, "State", json_get(st, "state"));
			struct json_object *last = json_get(st, "lastState");
			if (json_get(last, "terminated"))
				container_state(sb, "Last State", last);
			wr(sb, 2, "Ready:\t%s\n", truth(st, "ready") ? "True" : "False");
			wr(sb, 2, "Restart Count:\t%lld\n", num(st, "restartCount"));
		}
		container_resources(sb, c);
		container_probe(sb, "Liveness", json_get(c, "livenessProbe"));
		container_probe(sb, "Readiness", json_get(c, "readinessProbe"));
		container_probe(sb, "Startup", json_get(c, "startupProbe"));
		container_env(sb, pod, c);
		container_mounts(sb, c);
	}
}


static void projected_source(struct strbuf *sb, struct json_object *p)
{
	struct json_object *sources = json_get(p, "sources"), *x;

	wr(sb, 2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
	for (size_t i = 0; i < json_get_len(sources); i++) {
		struct json_object *src = ITEM(sources, i);
		/* kubectl 1.33 on: "Optional", false for none (SecretOptionalName: <nil> before) */
		if ((x = json_get(src, "secret")))
			wr(sb, 2, "SecretName:\t%s\n    Optional:\t%s\n", str(x, "name"),
			   yes(x, "optional"));
		else if (json_get(src, "downwardAPI"))
			wr(sb, 2, "DownwardAPI:\ttrue\n");
		else if ((x = json_get(src, "configMap")))
			wr(sb, 2, "ConfigMapName:\t%s\n    Optional:\t%s\n", str(x, "name"),
			   yes(x, "optional"));
		else if ((x = json_get(src, "serviceAccountToken")))
			wr(sb, 2, "TokenExpirationSeconds:\t%lld\n", num(x, "expirationSeconds"));
	}
}

static void downward_source(struct strbuf *sb, struct json_object *d)
{
	struct json_object *items = json_get(d, "items"), *ref;

	wr(sb, 2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n"
	   "    Items:\n");
	for (size_t i = 0; i < json_get_len(items); i++) {
		if ((ref = json_get(ITEM(items, i), "fieldRef")))
			wr(sb, 3, "%s -> %s\n", str(ref, "fieldPath"), str(ITEM(items, i), "path"));
		if ((ref = json_get(ITEM(items, i), "resourceFieldRef")))
			wr(sb, 3, "%s -> %s\n", str(ref, "resource"), str(ITEM(items, i), "path"));
	}
}

static void unstructured(struct strbuf *sb, int level, struct json_object *obj,
			 const char *prefix);

/* A source kinf has no describer for: its kind, then its fields as the generic describer's. */
static void other_source(struct strbuf *sb, struct json_object *vol)
{
	json_object_object_foreach(vol, key, val) {
		if (!strcmp(key, "name") || !json_object_is_type(val, json_type_object))
			continue;
		wr(sb, 2, "Type:\t%s\n", key);
		unstructured(sb, 2, val, "");
		return;
	}
	wr(sb, 1, "<unknown>\n");
}

/* The volume source's lines (printXxxVolumeSource), for the common kinds. */
static void volume_source(struct strbuf *sb, struct json_object *vol)
{
	struct json_object *s;

	if ((s = json_get(vol, "hostPath")))
		wr(sb, 2, "Type:\tHostPath (bare host directory volume)\n    Path:\t%s\n"
		   "    HostPathType:\t%s\n", str(s, "path"), str(s, "type"));
	else if ((s = json_get(vol, "emptyDir")))
		wr(sb, 2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
		   "    Medium:\t%s\n    SizeLimit:\t%s\n", str(s, "medium"),
		   *str(s, "sizeLimit") ? str(s, "sizeLimit") : "<unset>");
	else if ((s = json_get(vol, "secret")))
		wr(sb, 2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t%s\n"
		   "    Optional:\t%s\n", str(s, "secretName"), yes(s, "optional"));
	else if ((s = json_get(vol, "configMap")))
		wr(sb, 2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t%s\n"
		   "    Optional:\t%s\n", str(s, "name"), yes(s, "optional"));
	else if ((s = json_get(vol, "persistentVolumeClaim")))
		wr(sb, 2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in "
		   "the same namespace)\n    ClaimName:\t%s\n    ReadOnly:\t%s\n",
		   str(s, "claimName"), yes(s, "readOnly"));
	else if ((s = json_get(vol, "projected")))
		projected_source(sb, s);
	else if ((s = json_get(vol, "downwardAPI")))
		downward_source(sb, s);
	else
		other_source(sb, vol);
}

static void describe_volumes(struct strbuf *sb, struct json_object *volumes)
{
	if (!json_get_len(volumes)) {
		wr(sb, 0, "Volumes:\t<none>\n");
		return;
	}
	wr(sb, 0, "Volumes:\n");
	for (size_t i = 0; i < json_get_len(volumes); i++) {
		wr(sb, 1, "%s:\n", str(ITEM(volumes, i), "name"));
		volume_source(sb, ITEM(volumes, i));
	}
}

/* qos.GetPodQOS when the status has none: cpu and memory requests and limits. */
static const char *pod_qos(struct json_object *pod)
{
	static const char *const kinds[] = { "containers", "initContainers" };
	static const char *const compute[] = { "cpu", "memory" };
	bool any = false, guaranteed = true;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct json_object *list = json_get_path(pod, "spec", kinds[k], NULL);
		for (size_t i = 0; i < json_get_len(list); i++) {
			struct json_object *res = json_get(ITEM(list, i), "resources");
			struct json_object *lim = json_get_object(res, "limits");
			struct json_object *req = json_get_object(res, "requests");
			any = any || (lim && json_object_object_length(lim)) ||
			      (req && json_object_object_length(req));
			for (size_t r = 0; r < ARRAY_SIZE(compute); r++) {
				const char *l = json_get_str(lim, compute[r], NULL);
				const char *q = json_get_str(req, compute[r], l);
				if (!l || !q || strcmp(l, q))
					guaranteed = false;
			}
		}
	}
	return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

/* The pod's own lines, down to "Controlled By". */
static void pod_head(struct strbuf *sb, struct json_object *pod, int64_t now_ms)
{
	struct json_object *md = json_get(pod, "metadata"), *spec = json_get(pod, "spec");
	struct json_object *st = json_get(pod, "status"), *ips = json_get(st, "podIPs");
	char t[48];

	wr(sb, 0, "Name:\t%s\n", str(md, "name"));
	wr(sb, 0, "Namespace:\t%s\n", str(md, "namespace"));
	if (json_get(spec, "priority"))
		wr(sb, 0, "Priority:\t%lld\n", num(spec, "priority"));
	wr_set(sb, 0, "Priority Class Name", spec, "priorityClassName");
	wr_set(sb, 0, "Runtime Class Name", spec, "runtimeClassName");
	wr_set(sb, 0, "Service Account", spec, "serviceAccountName");
	if (*str(spec, "nodeName"))
		wr(sb, 0, "Node:\t%s/%s\n", str(spec, "nodeName"), str(st, "hostIP"));
	else
		wr(sb, 0, "Node:\t<none>\n");
	if (json_get(st, "startTime")) {
		rfc1123z(str(st, "startTime"), t);
		wr(sb, 0, "Start Time:\t%s\n", t);
	}
	labels_multiline(sb, "Labels", json_get(md, "labels"));
	annotations_multiline(sb, json_get(md, "annotations"));
	if (json_get(md, "deletionTimestamp")) {
		format_age_since(str(md, "deletionTimestamp"), now_ms, t);
		wr(sb, 0, "Status:\tTerminating (lasts %s)\n", t);
		wr(sb, 0, "Termination Grace Period:\t%llds\n", num(md, "deletionGracePeriodSeconds"));
	} else {
		wr(sb, 0, "Status:\t%s\n", str(st, "phase"));
	}
	wr_set(sb, 0, "Reason", st, "reason");
	wr_set(sb, 0, "Message", st, "message");
	wr(sb, 0, "IP:\t%s\n", str(st, "podIP"));
	wr(sb, 0, "IPs:%s\n", json_get_len(ips) ? "" : "\t<none>");
	for (size_t i = 0; i < json_get_len(ips); i++)
		wr(sb, 1, "IP:\t%s\n", str(ITEM(ips, i), "ip"));
	struct json_object *owners = json_get(md, "ownerReferences");
	for (size_t i = 0; i < json_get_len(owners); i++)
		if (truth(ITEM(owners, i), "controller"))
			wr(sb, 0, "Controlled By:\t%s/%s\n", str(ITEM(owners, i), "kind"),
			   str(ITEM(owners, i), "name"));
	wr_set(sb, 0, "NominatedNodeName", st, "nominatedNodeName");
}

/* describePod. */
static void describe_pod(struct strbuf *sb, struct json_object *pod, int64_t now_ms)
{
	struct json_object *spec = json_get(pod, "spec"), *st = json_get(pod, "status");
	struct json_object *conds = json_get(st, "conditions");

	pod_head(sb, pod, now_ms);
	if (json_get_len(json_get(spec, "initContainers")))
		describe_containers(sb, "Init Containers", pod, json_get(spec, "initContainers"),
				    json_get(st, "initContainerStatuses"));
	describe_containers(sb, "Containers", pod, json_get(spec, "containers"),
			    json_get(st, "containerStatuses"));
	if (json_get_len(conds)) {
		wr(sb, 0, "Conditions:\n  Type\tStatus\n");
		for (size_t i = 0; i < json_get_len(conds); i++)
			wr(sb, 1, "%s \t%s \n", str(ITEM(conds, i), "type"),
			   str(ITEM(conds, i), "status"));
	}
	describe_volumes(sb, json_get(spec, "volumes"));
	wr(sb, 0, "QoS Class:\t%s\n", *str(st, "qosClass") ? str(st, "qosClass") : pod_qos(pod));
	labels_multiline(sb, "Node-Selectors", json_get(spec, "nodeSelector"));
	tolerations_multiline(sb, json_get(spec, "tolerations"));
}

/* ---- a Secret, and any other kind ------------------------------------------ */

/* describeSecret: the data's sizes, never a value. */
static void describe_secret(struct strbuf *sb, struct json_object *secret)
{
	struct json_object *md = json_get(secret, "metadata");
	struct json_object *data = json_get_object(secret, "data");
	size_t nr = 0;
	const char **keys = data ? gofmt_sorted_keys(data, &nr) : NULL;

	wr(sb, 0, "Name:\t%s\n", str(md, "name"));
	wr(sb, 0, "Namespace:\t%s\n", str(md, "namespace"));
	labels_multiline(sb, "Labels", json_get(md, "labels"));
	annotations_multiline(sb, json_get(md, "annotations"));
	wr(sb, 0, "\nType:\t%s\n", str(secret, "type"));
	wr(sb, 0, "\nData\n====\n");
	for (size_t i = 0; i < nr; i++)
		wr(sb, 0, "%s:\t%zu bytes\n", keys[i],
		   base64_decoded_size(json_get_value_str(json_get(data, keys[i]), "")));
	free(keys);
}

/* smartLabelFor: "creationTimestamp" is "Creation Timestamp", "apiVersion" "API Version". */
static void smart_label(const char *field, struct strbuf *out)
{
	static const char *const acronyms[] = { "API", "URL", "UID", "OSB", "GUID" };
	char part[256];

	for (const char *p = field; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-')) {
			strbuf_adds(out, field);	/* not only letters: as it is */
			return;
		}
	}
	/* camelcase.Split: runs of one class; an upper before a lower starts the next. */
	for (const char *p = field; *p;) {
		size_t n = 1;
		int cls = *p == '-' ? 0 : *p >= 'a' ? 1 : 2;
		while (p[n] && (p[n] == '-' ? 0 : p[n] >= 'a' ? 1 : 2) == cls)
			n++;
		if (cls == 2 && n > 1 && p[n] >= 'a' && p[n] <= 'z')
			n--;	/* "APIVersion": "API", then "Version" */
		else if (cls == 2 && n == 1 && p[n] >= 'a' && p[n] <= 'z')
			while (p[n] >= 'a' && p[n] <= 'z')
				n++;
		snprintf(part, sizeof(part), "%.*s", (int)n, p);
		bool acronym = false;
		for (size_t i = 0; i < ARRAY_SIZE(acronyms); i++)
			acronym = acronym || !strcasecmp(part, acronyms[i]);
		for (char *c = part; *c; c++)
			if ((acronym || c == part) && *c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		strbuf_addf(out, "%s%s", p == field ? "" : " ", part);
		p += n;
	}
}

/* The paths the generic describer leaves out: shown above, or noise. */
static bool skipped(const char *path)
{
	static const char *const skip[] = {
		".metadata.managedFields", ".metadata.name", ".metadata.namespace",
		".metadata.labels", ".metadata.annotations",
	};
	for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
		if (!strcmp(path, skip[i]))
			return true;
	return false;
}

/* printUnstructuredContent: the fields in order, maps and lists nested. */
static void unstructured(struct strbuf *sb, int level, struct json_object *obj,
			 const char *prefix)
{
	size_t nr = 0;
	const char **keys = gofmt_sorted_keys(obj, &nr);

	for (size_t i = 0; i < nr; i++) {
		struct json_object *v = json_get(obj, keys[i]);
		struct strbuf label = STRBUF_INIT;
		char *path = xasprintf("%s.%s", prefix, keys[i]);
		smart_label(keys[i], &label);
		if (skipped(path)) {
			/* left out */
		} else if (json_object_is_type(v, json_type_object)) {
			wr(sb, level, "%s:\n", label.buf);
			unstructured(sb, level + 1, v, path);
		} else if (json_object_is_type(v, json_type_array)) {
			wr(sb, level, "%s:\n", label.buf);
			for (size_t j = 0; j < json_get_len(v); j++) {
				struct json_object *item = ITEM(v, j);
				char *text = json_object_is_type(item, json_type_object) ? NULL : go_v(item);
				if (text)
					wr(sb, level + 1, "%s\n", text);
				else
					unstructured(sb, level + 1, item, path);
				free(text);
			}
		} else {
			char *text = go_v(v);
			wr(sb, level, "%s:\t%s\n", label.buf, text);
			free(text);
		}
		strbuf_release(&label);
		free(path);
	}
	free(keys);
}

/* genericDescriber. */
static void describe_generic(struct strbuf *sb, struct json_object *obj)
{
	struct json_object *md = json_get(obj, "metadata");

	wr(sb, 0, "Name:\t%s\n", str(md, "name"));
	wr(sb, 0, "Namespace:\t%s\n", str(md, "namespace"));
	labels_multiline(sb, "Labels", json_get(md, "labels"));
	annotations_multiline(sb, json_get(md, "annotations"));
	unstructured(sb, 0, obj, "");
}

/* ---- Events ---------------------------------------------------------------- */

struct sorted_event {
	struct json_object *e;
	int64_t last;		/* lastTimestamp, ms; INT64_MIN: none */
	size_t i;
};

static int event_cmp(const void *a, const void *b)
{
	const struct sorted_event *x = a, *y = b;

	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* "5m", "10s (x3 over 5m)": translateTimestampSince and the series or count. */
static void event_interval(struct json_object *e, int64_t now_ms, char *buf, size_t size)
{
	const char *et = json_get_str(e, "eventTime", NULL);
	struct json_object *series = json_get_object(e, "series");
	char first[32], last[32];

	format_age_since(et && *et ? et : json_get_str(e, "firstTimestamp", NULL), now_ms, first);
	if (series) {
		format_age_since(json_get_str(series, "lastObservedTime", NULL), now_ms, last);
		snprintf(buf, size, "%s (x%lld over %s)", last, num(series, "count"), first);
	} else if (num(e, "count") > 1) {
		format_age_since(json_get_str(e, "lastTimestamp", NULL), now_ms, last);
		snprintf(buf, size, "%s (x%lld over %s)", last, num(e, "count"), first);
	} else {
		snprintf(buf, size, "%s", first);
	}
}

/* DescribeEvents: the oldest last first. */
static void describe_events(struct strbuf *sb, struct json_object *items, int64_t now_ms)
{
	size_t nr = json_get_len(items);
	struct sorted_event *v = xcalloc(nr ? nr : 1, sizeof(*v));
	char interval[128];

	if (!nr) {
		wr(sb, 0, "Events:\t<none>\n");
		free(v);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		v[i] = (struct sorted_event){ ITEM(items, i), INT64_MIN, i };
		const char *ts = json_get_str(v[i].e, "lastTimestamp", NULL);
		if (!ts || parse_time_rfc3339(ts, &v[i].last) < 0)
			v[i].last = INT64_MIN;
	}
	qsort(v, nr, sizeof(*v), event_cmp);
	wr(sb, 0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
	wr(sb, 1, "----\t------\t----\t----\t-------\n");
	for (size_t i = 0; i < nr; i++) {
		struct json_object *e = v[i].e;
		const char *from = str(json_get(e, "source"), "component");
		const char *msg = str(e, "message");
		size_t len = strlen(msg);
		while (len && strchr(" \t\n\r", msg[len - 1]))
			len--;
		while (len && strchr(" \t\n\r", *msg))
			msg++, len--;
		event_interval(e, now_ms, interval, sizeof(interval));
		wr(sb, 1, "%s\t%s\t%s\t%s\t%.*s\n", str(e, "type"), str(e, "reason"), interval,
		   *from ? from : str(e, "reportingComponent"), (int)len, msg);
	}
	free(v);
}

static bool is_core(const char *group, const char *kind, const char *name)
{
	return (!group || !*group) && kind && !strcmp(kind, name);
}

bool describe_has_events(const char *group, const char *kind)
{
	return !is_core(group, kind, "Secret");
}

void describe_text(struct json_object *obj, const char *group, const char *kind,
		   struct json_object *events, const char *note, int64_t now_ms,
		   struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;

	if (is_core(group, kind, "Secret")) {
		describe_secret(&sb, obj);
	} else {
		redact_secret(obj);	/* nothing a Secret holds, whatever the path */
		if (is_core(group, kind, "Pod"))
			describe_pod(&sb, obj, now_ms);
		else
			describe_generic(&sb, obj);
	}
	if (events)
		describe_events(&sb, events, now_ms);
	else if (note)
		wr(&sb, 0, "Events:\t%s\n", note);
	struct tabwriter tw;
	tabwriter_init(&tw, 0, 2, false);
	tabwriter_write(&tw, sb.buf, sb.len, out);
	tabwriter_flush(&tw, out);
	tabwriter_release(&tw);
	strbuf_release(&sb);
}

/* ---- the Events' LIST, on the worker --------------------------------------- */

#define EVENTS_LIMIT 500	/* kubectl describe's --chunk-size */

struct events_job {
	struct tui_job base;
	struct kclient *client;
	char *path, *selector;	/* the Events' collection, the field selector */
	uint64_t seq;
	describe_done_fn *done;
	struct json_object *items;	/* the result; NULL: err says why */
	struct errbuf err;
};

/* A term of the selector, its value escaped as fields.EscapeValue escapes it. */
static void add_field(struct strbuf *sel, const char *field, const char *value)
{
	char *term = field_selector_term(field, value);

	strbuf_addf(sel, "%s%s", sel->len ? "," : "", term);
	free(term);
}

/*
 * kubectl's searchEvents: the fields in the order fields.Set sorts them;
 * no kind for a Pod (describePod clears its reference's).
 */
static void events_where(struct events_job *ej, struct json_object *obj, const char *kind)
{
	struct json_object *md = json_get(obj, "metadata");
	const char *ns = str(md, "namespace"), *uid = str(md, "uid");
	struct strbuf sel = STRBUF_INIT, path = STRBUF_INIT;

	if (kind)
		add_field(&sel, "involvedObject.kind", kind);
	add_field(&sel, "involvedObject.name", str(md, "name"));
	add_field(&sel, "involvedObject.namespace", ns);
	if (*uid)
		add_field(&sel, "involvedObject.uid", uid);
	strbuf_adds(&path, *ns ? "/api/v1/namespaces/" : "/api/v1/events");
	if (*ns) {
		url_path_escape(&path, ns);
		strbuf_adds(&path, "/events");
	}
	ej->selector = strbuf_detach(&sel, NULL);
	ej->path = strbuf_detach(&path, NULL);
}

/* One Event of a page, added to the job's. */
static int events_item(void *ctx, const char *text, size_t len)
{
	struct events_job *ej = ctx;
	char *copy = xstrndup(text, len);
	struct json_object *e = json_parse_deep(copy);

	free(copy);
	if (e)
		json_object_array_add(ej->items, e);
	return 0;
}

/* kubectl's FollowContinue: every page, as the pager asks for them. */
static void events_run(struct worker_job *job, struct stop *stop)
{
	struct events_job *ej = (struct events_job *)job;
	struct pager_opts po = {
		.path = ej->path,
		.limit = EVENTS_LIMIT,
		.field_selector = ej->selector,
		.stream = {
			.idle_timeout_ms = 60000,
			.timeout_ms = kclient_timeout(ej->client),
			.retries = HTTP_MAX_RETRIES,
		},
	};
	struct pager_hooks hooks = { .ctx = ej, .item = events_item };
	struct pager_result pr;

	kclient_set_thread_stop(stop);
	ej->items = json_object_new_array();
	if (pager_list(ej->client, &po, "events", &hooks, &pr, &ej->err) < 0) {
		pager_explain(&pr, "events", &ej->err);
		json_object_put(ej->items);
		ej->items = NULL;
	}
	pager_result_release(&pr);
	kclient_set_thread_stop(NULL);
}

static void events_done(struct tui *t, struct tui_job *job)
{
	struct events_job *ej = (struct events_job *)job;

	ej->done(t, ej->seq, ej->items, ej->err.msg);
	ej->items = NULL;
}

static void events_free(struct worker_job *job)
{
	struct events_job *ej = (struct events_job *)job;

	json_object_put(ej->items);
	free(ej->path);
	free(ej->selector);
	free(ej);
}

int describe_fetch(struct tui *t, struct json_object *obj, const char *group, const char *kind,
		   uint64_t seq, describe_done_fn *done, struct errbuf *err)
{
	struct events_job *ej = xcalloc(1, sizeof(*ej));
	struct json_object *md = json_get(obj, "metadata");
	char what[512];

	ej->base = (struct tui_job){ { .run = events_run, .free = events_free }, events_done };
	ej->client = t->session->cluster.client;
	events_where(ej, obj, is_core(group, kind, "Pod") ? NULL : kind);
	ej->seq = seq;
	ej->done = done;
	snprintf(what, sizeof(what), "fetching the Events of %s%s%s", str(md, "namespace"),
		 *str(md, "namespace") ? "/" : "", str(md, "name"));
	if (tui_job_submit(t, &ej->base, what) < 0) {
		errbuf_set(err, "the worker is busy %s; Esc cancels it, then d", t->working);
		events_free(&ej->base.base);
		return -1;
	}
	return 0;
}
