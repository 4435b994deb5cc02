/* test_columns.c — kubectl's columns per kind, the short status, the table writer. */
#include <json-c/json.h>

#include "output/columns.h"
#include "output/table_writer.h"
#include "output/kubetable.h"
#include "output/pod_scan.h"
#include "informer/kobj.h"
#include "informer/kobj_pick.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

/* "Now" for every test: 2024-05-01T12:00:00Z. */
static int64_t now_ms;
/* How many objects check_pick() saw the scan's cells of. */
static int scanned;

static struct json_object *tree(const char *json)
{
	struct json_object *t = json_tokener_parse(json);

	if (!t)
		printf("# cannot parse: %s\n", json);
	return t;
}

/*
 * The group a built-in kind is tested in: Deployment apps', the others
 * (and custom resources' kinds, which no CRD describes here) the core
 * group's.
 */
static const char *group_of(const char *kind)
{
	return kind && !strcmp(kind, "Deployment") ? "apps" : "";
}

/*
 * The watch line's columns (short status, wide detail) of json, from
 * the whole tree and from the members columns_pick() names: the same.
 */
static void check_pick(const char *kind, const char *json)
{
	const char *group = group_of(kind);
	const struct kobj_pick *pick = columns_pick(NULL, group, kind);
	struct errbuf err = { "" };
	struct kobj *obj = pick ? kobj_from_json(json, strlen(json), 0, &err) : NULL;

	if (!obj)
		return;
	struct json_object *whole = kobj_tree(obj), *some = kobj_tree_pick(obj, pick);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	columns_short_status(NULL, group, kind, whole, now_ms, &a);
	columns_wide_detail(NULL, group, kind, whole, now_ms, &a);
	columns_short_status(NULL, group, kind, some, now_ms, &b);
	columns_wide_detail(NULL, group, kind, some, now_ms, &b);
	CHECK_STR(strbuf_str(&b), strbuf_str(&a));
	/* All the live cells at once are each cell alone, NUL after each. */
	const char *const *names = columns_live_headers(NULL, group, kind);
	strbuf_reset(&a);
	strbuf_reset(&b);
	columns_cells(NULL, group, kind, names, some, now_ms, &b);
	for (size_t i = 0; names[i]; i++) {
		columns_cell(NULL, group, kind, names[i], whole, now_ms, &a);
		strbuf_addch(&a, '|');
	}
	for (size_t i = 0; i < b.len; i++)
		if (b.buf[i] == '\0')
			b.buf[i] = '|';
	CHECK_STR(strbuf_str(&b), strbuf_str(&a));
	/* The same cells from one scan of the text, when it gives them. */
	struct strbuf text = STRBUF_INIT, c = STRBUF_INIT;
	kobj_json(obj, &text);
	if (!pod_scan_live_cells(NULL, group, kind, names, text.buf, text.len, now_ms, &c)) {
		for (size_t i = 0; i < c.len; i++)
			if (c.buf[i] == '\0')
				c.buf[i] = '|';
		CHECK_STR(strbuf_str(&c), strbuf_str(&a));
		scanned++;
	}
	strbuf_release(&text);
	strbuf_release(&c);
	strbuf_release(&a);
	strbuf_release(&b);
	json_object_put(whole);
	json_object_put(some);
	kobj_unref(obj);
}

/* The cell of column header for kind; a static buffer, "(none)" if absent. */
static const char *cell(const char *kind, const char *header, const char *json)
{
	static char buf[256];
	struct json_object *t = tree(json);
	struct strbuf sb = STRBUF_INIT;

	check_pick(kind, json);

	if (columns_cell(NULL, group_of(kind), kind, header, t, now_ms, &sb) < 0)
		snprintf(buf, sizeof(buf), "(none)");
	else
		snprintf(buf, sizeof(buf), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	json_object_put(t);
	return buf;
}

static const char *short_status(const char *kind, const char *json)
{
	static char buf[256];
	struct json_object *t = tree(json);
	struct strbuf sb = STRBUF_INIT;

	columns_short_status(NULL, group_of(kind), kind, t, now_ms, &sb);
	snprintf(buf, sizeof(buf), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	json_object_put(t);
	return buf;
}

/* A table's text (the caller frees it). */
static char *table_text(struct table *t, bool no_headers)
{
	struct strbuf sb = STRBUF_INIT;

	table_format(t, no_headers, NULL, &sb);
	return strbuf_detach(&sb, NULL);
}

#define META(name, created) \
	"\"metadata\":{\"name\":\"" name "\",\"namespace\":\"shop\"," \
	"\"creationTimestamp\":\"" created "\"}"

/* Two containers, one ready and running, one running but not ready. */
static const char running_pod[] =
	"{\"kind\":\"Pod\"," META("web-1", "2024-05-01T11:00:00Z") ","
	"\"spec\":{\"nodeName\":\"worker-1\",\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
	"\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.0.5\","
	"\"podIPs\":[{\"ip\":\"10.1.0.5\"}],"
	"\"containerStatuses\":["
	"{\"name\":\"a\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}}},"
	"{\"name\":\"b\",\"ready\":false,\"restartCount\":0,\"state\":{\"running\":{}}}]}}";

TEST(pod_running_ready_status_restarts_age)
{
	CHECK_STR(cell("Pod", "NAME", running_pod), "web-1");
	CHECK_STR(cell("Pod", "READY", running_pod), "1/2");
	CHECK_STR(cell("Pod", "STATUS", running_pod), "Running");
	CHECK_STR(cell("Pod", "RESTARTS", running_pod), "0");
	CHECK_STR(cell("Pod", "AGE", running_pod), "60m");
	CHECK_STR(cell("Pod", "IP", running_pod), "10.1.0.5");
	CHECK_STR(cell("Pod", "NODE", running_pod), "worker-1");
	CHECK_STR(cell("Pod", "NOMINATED NODE", running_pod), "<none>");
	CHECK_STR(cell("Pod", "READINESS GATES", running_pod), "<none>");
	CHECK_STR(cell("Pod", "VERSION", running_pod), "(none)");
}

static const char crashing_pod[] =
	"{\"kind\":\"Pod\"," META("api-7", "2024-05-01T10:00:00Z") ","
	"\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
	"\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
	"{\"name\":\"a\",\"ready\":false,\"restartCount\":5,"
	"\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
	"\"lastState\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\","
	"\"finishedAt\":\"2024-05-01T11:54:30Z\"}}},"
	"{\"name\":\"b\",\"ready\":true,\"restartCount\":2,\"state\":{\"running\":{}},"
	"\"lastState\":{\"terminated\":{\"exitCode\":0,\"finishedAt\":\"2024-05-01T11:00:00Z\"}}}]}}";

TEST(pod_crash_loop_back_off_and_restarts_ago)
{
	CHECK_STR(cell("Pod", "STATUS", crashing_pod), "CrashLoopBackOff");
	CHECK_STR(cell("Pod", "READY", crashing_pod), "1/2");
	/* 5 + 2 restarts; the latest termination was 5m30s ago. */
	CHECK_STR(cell("Pod", "RESTARTS", crashing_pod), "7 (5m30s ago)");
	CHECK_STR(short_status("Pod", crashing_pod), "CrashLoopBackOff 1/2");
}

TEST(pod_terminating_once_deletion_timestamp_is_set)
{
	const char *json =
		"{\"metadata\":{\"name\":\"web-2\",\"deletionTimestamp\":\"2024-05-01T11:59:00Z\"},"
		"\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}}}]}}";
	const char *done =
		"{\"metadata\":{\"name\":\"job-1\",\"deletionTimestamp\":\"2024-05-01T11:59:00Z\"},"
		"\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":false,\"restartCount\":0,"
		"\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}}]}}";
	const char *lost =
		"{\"metadata\":{\"name\":\"web-3\",\"deletionTimestamp\":\"2024-05-01T11:59:00Z\"},"
		"\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Running\",\"reason\":\"NodeLost\"}}";

	CHECK_STR(cell("Pod", "STATUS", json), "Terminating");
	CHECK_STR(short_status("Pod", json), "Terminating 1/1");
	/* A pod that already finished is not Terminating: its end shows. */
	CHECK_STR(cell("Pod", "STATUS", done), "Completed");
	CHECK_STR(cell("Pod", "STATUS", lost), "Unknown");
}

TEST(pod_status_from_phase_reason_and_exit)
{
	const char *pending =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Pending\"}}";
	const char *evicted =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Failed\",\"reason\":\"Evicted\"}}";
	const char *killed =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"a\","
		"\"state\":{\"terminated\":{\"exitCode\":137}}}]}}";
	const char *signalled =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"a\","
		"\"state\":{\"terminated\":{\"exitCode\":0,\"signal\":9}}}]}}";
	const char *gated =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
		"\"status\":\"False\",\"reason\":\"SchedulingGated\"}]}}";
	/* One container completed, another still running and ready. */
	const char *half_done =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
		"\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":false,\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}},"
		"{\"name\":\"b\",\"ready\":true,\"state\":{\"running\":{}}}]}}";

	CHECK_STR(cell("Pod", "STATUS", pending), "Pending");
	CHECK_STR(cell("Pod", "READY", pending), "0/1");
	CHECK_STR(cell("Pod", "STATUS", evicted), "Evicted");
	CHECK_STR(cell("Pod", "STATUS", killed), "ExitCode:137");
	CHECK_STR(cell("Pod", "STATUS", signalled), "Signal:9");
	CHECK_STR(cell("Pod", "STATUS", gated), "SchedulingGated");
	CHECK_STR(cell("Pod", "STATUS", half_done), "NotReady");
}

TEST(pod_init_containers_and_sidecars)
{
	const char *init_waiting =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{"
		"\"initContainers\":[{\"name\":\"i1\"},{\"name\":\"i2\"}],"
		"\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":["
		"{\"name\":\"i1\",\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":0}}},"
		"{\"name\":\"i2\",\"restartCount\":1,\"state\":{\"waiting\":{\"reason\":\"PodInitializing\"}}}]}}";
	const char *init_pull =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{"
		"\"initContainers\":[{\"name\":\"i1\"}],\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":["
		"{\"name\":\"i1\",\"state\":{\"waiting\":{\"reason\":\"ErrImagePull\"}}}]}}";
	const char *init_failed =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{"
		"\"initContainers\":[{\"name\":\"i1\"}],\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":["
		"{\"name\":\"i1\",\"state\":{\"terminated\":{\"exitCode\":3}}}]}}";
	/* A sidecar (restartPolicy Always) counts among the containers. */
	const char *sidecar =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{"
		"\"initContainers\":[{\"name\":\"proxy\",\"restartPolicy\":\"Always\"}],"
		"\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"}],"
		"\"initContainerStatuses\":[{\"name\":\"proxy\",\"started\":true,\"ready\":true,"
		"\"restartCount\":4,\"state\":{\"running\":{}}}],"
		"\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,\"restartCount\":1,"
		"\"state\":{\"running\":{}}}]}}";

	CHECK_STR(cell("Pod", "STATUS", init_waiting), "Init:1/2");
	CHECK_STR(cell("Pod", "RESTARTS", init_waiting), "1");
	CHECK_STR(cell("Pod", "STATUS", init_pull), "Init:ErrImagePull");
	CHECK_STR(cell("Pod", "STATUS", init_failed), "Init:ExitCode:3");
	CHECK_STR(cell("Pod", "READY", sidecar), "2/2");
	CHECK_STR(cell("Pod", "STATUS", sidecar), "Running");
	CHECK_STR(cell("Pod", "RESTARTS", sidecar), "5");
}

TEST(pod_readiness_gates)
{
	const char *json =
		"{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[],"
		"\"readinessGates\":[{\"conditionType\":\"x/a\"},{\"conditionType\":\"x/b\"}]},"
		"\"status\":{\"conditions\":[{\"type\":\"x/a\",\"status\":\"True\"},"
		"{\"type\":\"x/b\",\"status\":\"False\"}]}}";

	CHECK_STR(cell("Pod", "READINESS GATES", json), "1/2");
}

/*
 * The pick keeps a condition's and a container status's few members, and
 * elements that are not objects whole: the columns come out the same.
 */
TEST(pod_pick_keeps_what_the_columns_read)
{
	const char *odd =
		"{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"b\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"a\"}],\"initContainers\":[null,7,"
		"{\"name\":\"i\",\"image\":\"busybox\",\"restartPolicy\":\"Always\"}]},"
		"\"status\":{\"phase\":\"Running\",\"conditions\":[null,\"x\",1.5,"
		"{\"type\":\"Ready\",\"status\":\"True\",\"message\":\"m\"}],"
		"\"initContainerStatuses\":[{\"name\":\"i\",\"started\":true,\"ready\":true,"
		"\"restartCount\":2,\"state\":{\"running\":{}},\"imageID\":\"sha\"}],"
		"\"containerStatuses\":[[],{\"name\":\"a\",\"ready\":true,\"restartCount\":1,"
		"\"image\":\"nginx\",\"state\":{\"running\":{\"startedAt\":\"2024-05-01T11:00:00Z\"}},"
		"\"lastState\":{\"terminated\":{\"finishedAt\":\"2024-05-01T11:58:00Z\","
		"\"containerID\":\"cid\"}}}],\"podIPs\":[{\"ip\":\"10.0.0.9\",\"extra\":1}]}}";

	CHECK_STR(cell("Pod", "READY", odd), "2/2");
	CHECK_STR(cell("Pod", "RESTARTS", odd), "3 (2m ago)");
	CHECK_STR(cell("Pod", "IP", odd), "10.0.0.9");

	struct errbuf err = { "" };
	struct kobj *obj = kobj_from_json(odd, strlen(odd), 0, &err);
	CHECK(obj != NULL);
	if (!obj)
		return;
	struct json_object *some = kobj_tree_pick(obj, columns_pick(NULL, "", "Pod"));
	const char *text = json_object_to_json_string_ext(some, JSON_C_TO_STRING_PLAIN);
	CHECK(strstr(text, "\"restartCount\":1") != NULL);
	CHECK(strstr(text, "[null,\"x\",1.5,{") != NULL);
	CHECK(strstr(text, "nginx") == NULL);
	CHECK(strstr(text, "imageID") == NULL);
	CHECK(strstr(text, "message") == NULL);
	CHECK(strstr(text, "labels") == NULL);
	/* A state keeps what the cells read: running only as being there. */
	CHECK(strstr(text, "\"running\":{}") != NULL);
	CHECK(strstr(text, "startedAt") == NULL);
	CHECK(strstr(text, "containerID") == NULL);
	CHECK(strstr(text, "extra") == NULL);
	json_object_put(some);
	kobj_unref(obj);
}

static const char deployment[] =
	"{\"kind\":\"Deployment\"," META("web", "2024-04-28T12:00:00Z") ","
	"\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"tier\":\"front\",\"app\":\"web\"},"
	"\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\",\"dev\"]},"
	"{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]},"
	"\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.25\"},"
	"{\"name\":\"log\",\"image\":\"fluent-bit\"}]}}},"
	"\"status\":{\"readyReplicas\":2,\"updatedReplicas\":3,\"availableReplicas\":2}}";

/*
 * Scalars kept are made without json-c's tokener (strings, integers,
 * literals): each must be what the tokener makes, of the same type and
 * printed the same, escapes and numbers that are not int64 included.
 */
TEST(pick_makes_scalars_as_json_c_parses_them)
{
	static const struct kobj_pick all[] = {
		{ "s", PICK_ALL, NULL }, { "e", PICK_ALL, NULL }, { "u", PICK_ALL, NULL },
		{ "i", PICK_ALL, NULL }, { "n", PICK_ALL, NULL }, { "z", PICK_ALL, NULL },
		{ "big", PICK_ALL, NULL }, { "d", PICK_ALL, NULL }, { "x", PICK_ALL, NULL },
		{ "t", PICK_ALL, NULL }, { "f", PICK_ALL, NULL }, { "nul", PICK_ALL, NULL },
		{ "o", PICK_ALL, NULL }, { "metadata", PICK_ALL, NULL }, { NULL, PICK_ALL, NULL },
	};
	const char *json = "{\"metadata\":{\"name\":\"p\"},\"s\":\"plain\",\"e\":\"a\\\"b\\\\c\\/d\\n\","
		"\"u\":\"\\u00e9\\ud83d\\ude00\\u0000x\",\"i\":42,\"n\":-7,\"z\":-0,"
		"\"big\":123456789012345678901,\"d\":1.50,\"x\":2e3,\"t\":true,"
		"\"f\":false,\"nul\":null,\"o\":{\"k\":[1,\"v\"]}}";
	struct errbuf err = { "" };
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);

	CHECK(obj != NULL);
	if (!obj)
		return;
	struct json_object *whole = kobj_tree(obj), *some = kobj_tree_pick(obj, all);
	for (size_t i = 0; all[i].name; i++) {
		struct json_object *a = json_object_object_get(whole, all[i].name);
		struct json_object *b = json_object_object_get(some, all[i].name);
		CHECK(json_object_get_type(a) == json_object_get_type(b));
		CHECK_STR(json_object_to_json_string(b), json_object_to_json_string(a));
		CHECK(json_object_get_string_len(b) == json_object_get_string_len(a));
	}
	CHECK(json_object_object_length(some) == json_object_object_length(whole));
	json_object_put(whole);
	json_object_put(some);
	kobj_unref(obj);
}

TEST(deployment_columns)
{
	CHECK_STR(cell("Deployment", "READY", deployment), "2/3");
	CHECK_STR(cell("Deployment", "UP-TO-DATE", deployment), "3");
	CHECK_STR(cell("Deployment", "AVAILABLE", deployment), "2");
	CHECK_STR(cell("Deployment", "AGE", deployment), "3d");
	CHECK_STR(cell("Deployment", "CONTAINERS", deployment), "web,log");
	CHECK_STR(cell("Deployment", "IMAGES", deployment), "nginx:1.25,fluent-bit");
	CHECK_STR(cell("Deployment", "SELECTOR", deployment),
		  "app=web,!canary,env in (dev,prod),tier=front");
	CHECK_STR(short_status("Deployment", deployment), "2/3 ready");
	/* No status yet, replicas defaulted by the API to 1. */
	CHECK_STR(short_status("Deployment", "{\"metadata\":{\"name\":\"d\"},\"spec\":{}}"),
		  "0/1 ready");
}

static const char node[] =
	"{\"kind\":\"Node\",\"metadata\":{\"name\":\"cp-1\",\"creationTimestamp\":\"2024-04-01T12:00:00Z\","
	"\"labels\":{\"node-role.kubernetes.io/control-plane\":\"\",\"kubernetes.io/role\":\"master\","
	"\"node-role.kubernetes.io/master\":\"\",\"kubernetes.io/os\":\"linux\"}},"
	"\"spec\":{\"unschedulable\":true},"
	"\"status\":{\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
	"{\"type\":\"Ready\",\"status\":\"True\"}],"
	"\"addresses\":[{\"type\":\"Hostname\",\"address\":\"cp-1\"},{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"}],"
	"\"nodeInfo\":{\"kubeletVersion\":\"v1.30.1\",\"osImage\":\"Debian 12\","
	"\"kernelVersion\":\"6.1.0\",\"containerRuntimeVersion\":\"containerd://1.7.1\"}}}";

TEST(node_columns)
{
	CHECK_STR(cell("Node", "STATUS", node), "Ready,SchedulingDisabled");
	CHECK_STR(cell("Node", "ROLES", node), "control-plane,master");
	CHECK_STR(cell("Node", "AGE", node), "30d");
	CHECK_STR(cell("Node", "VERSION", node), "v1.30.1");
	CHECK_STR(cell("Node", "INTERNAL-IP", node), "10.0.0.1");
	CHECK_STR(cell("Node", "EXTERNAL-IP", node), "<none>");
	CHECK_STR(cell("Node", "CONTAINER-RUNTIME", node), "containerd://1.7.1");
	CHECK_STR(short_status("Node", node), "Ready,SchedulingDisabled");
	CHECK_STR(short_status("Node", "{\"metadata\":{\"name\":\"n\"},\"status\":{"
			       "\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\"}]}}"),
		  "NotReady");
	CHECK_STR(short_status("Node", "{\"metadata\":{\"name\":\"n\"}}"), "Unknown");
	CHECK_STR(cell("Node", "ROLES", "{\"metadata\":{\"name\":\"n\"}}"), "<none>");
}

TEST(namespace_configmap_secret_columns)
{
	const char *ns = "{\"metadata\":{\"name\":\"shop\"},\"status\":{\"phase\":\"Terminating\"}}";
	const char *cm = "{\"metadata\":{\"name\":\"cfg\"},\"data\":{\"a\":\"1\",\"b\":\"2\"},"
			 "\"binaryData\":{\"c\":\"AA==\"}}";
	const char *secret = "{\"metadata\":{\"name\":\"tls\"},\"type\":\"kubernetes.io/tls\","
			     "\"data\":{\"tls.crt\":\"\",\"tls.key\":\"\"}}";

	CHECK_STR(cell("Namespace", "STATUS", ns), "Terminating");
	CHECK_STR(short_status("Namespace", ns), "Terminating");
	CHECK_STR(cell("ConfigMap", "DATA", cm), "3");
	CHECK_STR(cell("ConfigMap", "DATA", "{\"metadata\":{\"name\":\"e\"}}"), "0");
	CHECK_STR(cell("Secret", "TYPE", secret), "kubernetes.io/tls");
	CHECK_STR(cell("Secret", "DATA", secret), "2");
	CHECK_STR(short_status("Secret", secret), "");
	CHECK_STR(cell("ConfigMap", "AGE", cm), "<unknown>");
}

TEST(event_columns)
{
	const char *ev =
		"{\"metadata\":{\"name\":\"web-1.17c\"},\"type\":\"Warning\",\"reason\":\"BackOff\","
		"\"message\":\"  Back-off restarting failed container\\n\","
		"\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web-1\",\"fieldPath\":\"spec.containers{a}\"},"
		"\"source\":{\"component\":\"kubelet\",\"host\":\"worker-1\"},"
		"\"firstTimestamp\":\"2024-05-01T11:00:00Z\",\"lastTimestamp\":\"2024-05-01T11:57:50Z\","
		"\"count\":12}";
	const char *new_api =
		"{\"metadata\":{\"name\":\"e\"},\"eventTime\":\"2024-05-01T11:59:30.123456Z\","
		"\"reportingComponent\":\"scheduler\",\"involvedObject\":{\"kind\":\"Node\"}}";

	CHECK_STR(cell("Event", "LAST SEEN", ev), "2m10s");
	CHECK_STR(cell("Event", "FIRST SEEN", ev), "60m");
	CHECK_STR(cell("Event", "OBJECT", ev), "pod/web-1");
	CHECK_STR(cell("Event", "MESSAGE", ev), "Back-off restarting failed container");
	CHECK_STR(cell("Event", "SOURCE", ev), "kubelet, worker-1");
	CHECK_STR(cell("Event", "SUBOBJECT", ev), "spec.containers{a}");
	CHECK_STR(cell("Event", "COUNT", ev), "12");
	CHECK_STR(cell("Event", "LAST SEEN", new_api), "29s");
	CHECK_STR(cell("Event", "OBJECT", new_api), "node");
	CHECK_STR(cell("Event", "SOURCE", new_api), "scheduler");
	CHECK_STR(cell("Event", "COUNT", new_api), "1");
}

TEST(custom_resources_get_name_and_age)
{
	const char *cr = "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\","
			 "\"creationTimestamp\":\"2024-05-01T11:59:00Z\"}}";

	CHECK_STR(cell("Widget", "NAME", cr), "w");
	CHECK_STR(cell("Widget", "AGE", cr), "60s");
	CHECK_STR(cell("Widget", "STATUS", cr), "(none)");
	CHECK_STR(cell(NULL, "NAME", cr), "w");
	CHECK_STR(short_status("Widget", cr), "");
}

/* A CRD's printer columns, learned by one crd_columns, apply to its kind only there. */
TEST(crd_columns_learned_per_registry)
{
	struct crd_columns *crds = crd_columns_new();
	struct json_object *crd = tree(
		"{\"spec\":{\"group\":\"example.com\",\"names\":{\"kind\":\"Widget\"},"
		"\"versions\":[{\"name\":\"v1\","
		"\"additionalPrinterColumns\":[{\"name\":\"Size\",\"type\":\"integer\","
		"\"jsonPath\":\".spec.size\"},{\"name\":\"Color\",\"type\":\"string\","
		"\"jsonPath\":\".spec.color\",\"priority\":1}]}]}}");
	struct json_object *cr = tree("{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
				      "\"spec\":{\"size\":3,\"color\":\"red\"}}");
	struct errbuf err = { "" };
	struct strbuf sb = STRBUF_INIT;

	CHECK(!crd_columns_has(crds, "example.com", "Widget"));
	CHECK_INT(crd_columns_add(crds, crd, "v1", &err), 0);
	CHECK(crd_columns_has(crds, "example.com", "Widget"));
	CHECK_STR(columns_live_headers(crds, "example.com", "Widget")[0], "SIZE");
	CHECK(columns_live_headers(crds, "example.com", "Widget")[1] == NULL);
	CHECK_STR(columns_live_headers(NULL, "example.com", "Widget")[0], "AGE");
	CHECK_INT(columns_cell(crds, "example.com", "Widget", "SIZE", cr, now_ms, &sb), 0);
	CHECK_STR(strbuf_str(&sb), "3");
	strbuf_reset(&sb);
	columns_short_status(crds, "example.com", "Widget", cr, now_ms, &sb);
	CHECK_STR(strbuf_str(&sb), "size=3");
	strbuf_reset(&sb);
	columns_wide_detail(crds, "example.com", "Widget", cr, now_ms, &sb);
	CHECK_STR(strbuf_str(&sb), "color=red");
	CHECK_INT(columns_cell(NULL, "example.com", "Widget", "SIZE", cr, now_ms, &sb), -1);
	/* Learning the kind again keeps what readers may hold. */
	const char *const *live = columns_live_headers(crds, "example.com", "Widget");
	CHECK_INT(crd_columns_add(crds, crd, NULL, &err), 0);
	CHECK(columns_live_headers(crds, "example.com", "Widget") == live);
	CHECK_INT(crd_columns_add(crds, cr, NULL, &err), -1);
	strbuf_release(&sb);
	json_object_put(cr);
	json_object_put(crd);
	crd_columns_free(crds);
}

/*
 * Cells as a real kube-apiserver (1.28) makes them and kubectl 1.33 reads
 * them back: a null in a string column goes through text/template's
 * printableValue; a number column's float64 is written to JSON without an
 * exponent below 1e21 and read back as an int64 where it is one.
 */
TEST(crd_cells_as_the_apiserver_makes_them)
{
	static const struct { const char *spec, *num, *str; } cases[] = {
		{ "{\"n\":9007199254740992,\"s\":null}", "9007199254740992", "<no value>" },
		{ "{\"n\":9223372036854776000,\"s\":\"x\"}", "9.223372036854776e+18", "x" },
		{ "{\"n\":12345678901234567000}", "1.2345678901234567e+19", "" },
		{ "{\"n\":1.5e-07,\"s\":[]}", "1.5e-07", "[]" },
		{ "{\"n\":3.0}", "3", "" },
		{ "{\"n\":null}", "", "" },
	};
	struct crd_columns *crds = crd_columns_new();
	struct json_object *crd = tree(
		"{\"spec\":{\"group\":\"example.com\",\"names\":{\"kind\":\"Widget\"},"
		"\"versions\":[{\"name\":\"v1\",\"additionalPrinterColumns\":["
		"{\"name\":\"Num\",\"type\":\"number\",\"jsonPath\":\".spec.n\"},"
		"{\"name\":\"Str\",\"type\":\"string\",\"jsonPath\":\".spec.s\"}]}]}}");
	struct errbuf err = { "" };
	struct strbuf sb = STRBUF_INIT;
	char json[256];

	CHECK_INT(crd_columns_add(crds, crd, "v1", &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json), "{\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
			 "\"spec\":%s}", cases[i].spec);
		struct json_object *cr = tree(json);
		strbuf_reset(&sb);
		CHECK_INT(columns_cell(crds, "example.com", "Widget", "NUM", cr, now_ms, &sb), 0);
		CHECKF(!strcmp(strbuf_str(&sb), cases[i].num), "%s: NUM %s", json, strbuf_str(&sb));
		strbuf_reset(&sb);
		CHECK_INT(columns_cell(crds, "example.com", "Widget", "STR", cr, now_ms, &sb), 0);
		CHECKF(!strcmp(strbuf_str(&sb), cases[i].str), "%s: STR %s", json, strbuf_str(&sb));
		json_object_put(cr);
	}
	strbuf_release(&sb);
	json_object_put(crd);
	crd_columns_free(crds);
}

/* A printer column's header is its name as Go's strings.ToUpper makes it. */
TEST(crd_columns_header_upper_cased_by_unicode)
{
	struct crd_columns *crds = crd_columns_new();
	struct json_object *crd = tree(
		"{\"spec\":{\"group\":\"example.com\",\"names\":{\"kind\":\"Widget\"},"
		"\"versions\":[{\"name\":\"v1\",\"additionalPrinterColumns\":[{\"name\":"
		"\"gr\u00f6\u00dfe \u01c6\",\"type\":\"integer\",\"jsonPath\":\".spec.size\"}]}]}}");
	struct errbuf err = { "" };

	CHECK_INT(crd_columns_add(crds, crd, "v1", &err), 0);
	CHECK_STR(columns_live_headers(crds, "example.com", "Widget")[0], "GR\u00d6\u00dfE \u01c4");
	json_object_put(crd);
	crd_columns_free(crds);
}

/* A CRD of kind Certificate in group, with one printer column: header (at .spec.path). */
static struct json_object *certificate_crd(const char *group, const char *header,
					   const char *path)
{
	char json[512];

	snprintf(json, sizeof(json),
		 "{\"spec\":{\"group\":\"%s\",\"names\":{\"kind\":\"Certificate\"},"
		 "\"versions\":[{\"name\":\"v1\",\"additionalPrinterColumns\":[{\"name\":\"%s\","
		 "\"type\":\"string\",\"jsonPath\":\".spec.%s\"}]}]}}", group, header, path);
	return tree(json);
}

/*
 * Two CRDs of one kind in two groups (cert-manager's Certificate and
 * Knative's) each keep their own columns, whichever was learned first;
 * a third group's Certificate knows neither.
 */
TEST(crd_columns_by_group_and_kind)
{
	struct crd_columns *crds = crd_columns_new();
	struct json_object *cm = certificate_crd("cert-manager.io", "Issuer", "issuerRef");
	struct json_object *kn = certificate_crd("networking.internal.knative.dev", "Domain", "domain");
	struct json_object *cr = tree("{\"metadata\":{\"name\":\"c\"},"
				      "\"spec\":{\"issuerRef\":\"letsencrypt\",\"domain\":\"a.example\"}}");
	struct errbuf err = { "" };
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(crd_columns_add(crds, cm, NULL, &err), 0);
	CHECK(!crd_columns_has(crds, "networking.internal.knative.dev", "Certificate"));
	CHECK_INT(crd_columns_add(crds, kn, NULL, &err), 0);
	CHECK(crd_columns_has(crds, "networking.internal.knative.dev", "Certificate"));
	CHECK_STR(columns_live_headers(crds, "cert-manager.io", "Certificate")[0], "ISSUER");
	CHECK_STR(columns_live_headers(crds, "networking.internal.knative.dev", "Certificate")[0],
		  "DOMAIN");
	CHECK_STR(columns_live_headers(crds, "example.com", "Certificate")[0], "AGE");
	CHECK_INT(columns_cell(crds, "cert-manager.io", "Certificate", "ISSUER", cr, now_ms, &sb), 0);
	CHECK_INT(columns_cell(crds, "cert-manager.io", "Certificate", "DOMAIN", cr, now_ms, &sb), -1);
	CHECK_STR(strbuf_str(&sb), "letsencrypt");
	strbuf_reset(&sb);
	columns_short_status(crds, "networking.internal.knative.dev", "Certificate", cr, now_ms, &sb);
	CHECK_STR(strbuf_str(&sb), "domain=a.example");

	struct json_object *t = columns_table_json(crds, "cert-manager.io", "Certificate", &cr, 1,
						   now_ms);
	CHECK_STR(json_get_str(json_object_array_get_idx(json_get(t, "columnDefinitions"), 1),
			       "name", ""), "Issuer");
	json_object_put(t);
	strbuf_release(&sb);
	json_object_put(cr);
	json_object_put(kn);
	json_object_put(cm);
	crd_columns_free(crds);
}

/*
 * A built-in kind's columns are its own groups' only: a custom resource
 * of kind Pod is no pod, and a CRD's columns never take over a built-in
 * kind, Knative's Service not the core group's.
 */
TEST(builtin_kinds_in_their_groups_only)
{
	const char *pod = "{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":"
			  "\"2024-05-01T11:59:00Z\"},\"status\":{\"phase\":\"Running\"}}";
	struct crd_columns *crds = crd_columns_new();
	struct json_object *ksvc = tree(
		"{\"spec\":{\"group\":\"serving.knative.dev\",\"names\":{\"kind\":\"Service\"},"
		"\"versions\":[{\"name\":\"v1\",\"additionalPrinterColumns\":[{\"name\":\"URL\","
		"\"type\":\"string\",\"jsonPath\":\".status.url\"}]}]}}");
	struct json_object *fake_pod = tree(
		"{\"spec\":{\"group\":\"\",\"names\":{\"kind\":\"Pod\"},\"versions\":[{\"name\":\"v1\"}]}}");
	struct json_object *fake_deploy = tree(
		"{\"spec\":{\"group\":\"apps\",\"names\":{\"kind\":\"Deployment\"},"
		"\"versions\":[{\"name\":\"v1\"}]}}");
	struct json_object *t = tree(pod);
	struct errbuf err = { "" };
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(columns_live_headers(NULL, "example.com", "Pod")[0], "AGE");
	CHECK(columns_pick(NULL, "example.com", "Pod") == NULL);
	CHECK_INT(columns_cell(NULL, "example.com", "Pod", "STATUS", t, now_ms, &sb), -1);
	columns_short_status(NULL, "example.com", "Pod", t, now_ms, &sb);
	CHECK_STR(strbuf_str(&sb), "");
	CHECK_INT(pod_scan_live_cells(NULL, "example.com", "Pod", columns_live_headers(NULL, "", "Pod"),
				      pod, strlen(pod), now_ms, &sb), -1);
	/* The groups Kubernetes serves them in, and only those. */
	CHECK_STR(columns_live_headers(NULL, "", "Pod")[1], "STATUS");
	CHECK_STR(columns_live_headers(NULL, "apps", "Deployment")[1], "UP-TO-DATE");
	CHECK_STR(columns_live_headers(NULL, "extensions", "Deployment")[1], "UP-TO-DATE");
	CHECK_STR(columns_live_headers(NULL, "", "Deployment")[0], "AGE");
	CHECK_STR(columns_live_headers(NULL, "events.k8s.io", "Event")[0], "TYPE");
	CHECK_STR(columns_live_headers(NULL, NULL, "Node")[0], "STATUS");

	CHECK_INT(crd_columns_add(crds, ksvc, NULL, &err), 0);
	CHECK_STR(columns_live_headers(crds, "serving.knative.dev", "Service")[0], "URL");
	CHECK_STR(columns_live_headers(crds, "", "Service")[0], "AGE");
	/* No CRD is one of a built-in kind in its own group, nor of no group. */
	CHECK_INT(crd_columns_add(crds, fake_pod, NULL, &err), -1);
	CHECK(!crd_columns_has(crds, "", "Pod"));
	CHECK_INT(crd_columns_add(crds, fake_deploy, NULL, &err), -1);
	CHECK_STR(err.msg, "'Deployment' of 'apps' is a built-in kind, not a custom resource");
	CHECK(!crd_columns_has(crds, "apps", "Deployment"));
	CHECK_STR(columns_live_headers(crds, "apps", "Deployment")[1], "UP-TO-DATE");
	strbuf_release(&sb);
	json_object_put(t);
	json_object_put(fake_deploy);
	json_object_put(fake_pod);
	json_object_put(ksvc);
	crd_columns_free(crds);
}

TEST(wide_detail_leaves_out_empty_cells)
{
	struct json_object *t = tree(running_pod);
	struct strbuf sb = STRBUF_INIT;

	columns_wide_detail(NULL, "", "Pod", t, now_ms, &sb);
	CHECK_STR(strbuf_str(&sb), "ip=10.1.0.5 node=worker-1");
	strbuf_release(&sb);
	json_object_put(t);
}

TEST(parse_time_forms)
{
	int64_t ms;

	CHECK_INT(parse_time_rfc3339("2024-05-01T12:00:00Z", &ms), 0);
	CHECK_INT(ms, now_ms);
	CHECK_INT(parse_time_rfc3339("2024-05-01T12:00:00.5Z", &ms), 0);
	CHECK_INT(ms, now_ms + 500);
	CHECK_INT(parse_time_rfc3339("2024-05-01T14:00:00+02:00", &ms), 0);
	CHECK_INT(ms, now_ms);
	CHECK_INT(parse_time_rfc3339("yesterday", &ms), -1);
	CHECK_INT(parse_time_rfc3339("", &ms), -1);
}

/* Column width: widest cell plus three spaces, at least six; last column bare. */
TEST(table_aligns_like_kubectl)
{
	const char *headers[] = { "NAME", "READY", "STATUS", "AGE" };
	const char *r1[] = { "web-1", "1/1", "Running", "5m" };
	const char *r2[] = { "a-much-longer-name", "0/1", "CrashLoopBackOff", "12d" };
	struct table *t = table_new(headers, 4);
	char *text;

	table_add_row(t, r1);
	table_add_row(t, r2);
	CHECK_INT(table_rows(t), 2);
	text = table_text(t, false);
	CHECK_STR(text,
		  "NAME                 READY   STATUS             AGE\n"
		  "web-1                1/1     Running            5m\n"
		  "a-much-longer-name   0/1     CrashLoopBackOff   12d\n");
	free(text);
	text = table_text(t, true);
	CHECK_STR(text,
		  "web-1                1/1   Running            5m\n"
		  "a-much-longer-name   0/1   CrashLoopBackOff   12d\n");
	free(text);
	table_free(t);
}

TEST(table_counts_characters_not_bytes)
{
	const char *headers[] = { "A", "B" };
	const char *r1[] = { "日本語", "x" };
	struct table *t = table_new(headers, 2);
	char *text;

	table_add_row(t, r1);
	text = table_text(t, false);
	/* Three characters wide plus three spaces, not nine bytes. */
	CHECK_STR(text, "A     B\n日本語   x\n");
	free(text);
	table_free(t);
}

/* The kind's table as get prints it: a Table of objs, then kubectl's printer. */
static char *kind_table(const char *kind, struct json_object **objs, size_t n, bool wide,
			bool with_namespace)
{
	struct json_object *table = columns_table_json(NULL, group_of(kind), kind, objs, n,
						       now_ms);
	struct kubetable_opts o = { .wide = wide, .with_namespace = with_namespace };
	struct strbuf out = STRBUF_INIT;
	struct errbuf err;

	CHECK_INT(kubetable_print(table, &o, &out, &err), 0);
	json_object_put(table);
	return strbuf_detach(&out, NULL);
}

TEST(pod_table_with_namespace_and_wide)
{
	struct json_object *pods[] = { tree(crashing_pod), tree(running_pod) };
	char *text = kind_table("Pod", pods, 2, true, true);

	CHECK_STR(text,
		  "NAMESPACE   NAME    READY   STATUS             RESTARTS        AGE    IP         NODE       NOMINATED NODE   READINESS GATES\n"
		  "shop        api-7   1/2     CrashLoopBackOff   7 (5m30s ago)   120m   <none>     <none>     <none>           <none>\n"
		  "shop        web-1   1/2     Running            0               60m    10.1.0.5   worker-1   <none>           <none>\n");
	free(text);
	text = kind_table("Pod", pods + 1, 1, false, false);
	CHECK_STR(text,
		  "NAME    READY   STATUS    RESTARTS   AGE\n"
		  "web-1   1/2     Running   0          60m\n");
	free(text);
	json_object_put(pods[0]);
	json_object_put(pods[1]);
}

TEST(headers_per_kind)
{
	static const struct {
		const char *kind;
		bool wide, with_namespace;
		const char *header;
	} cases[] = {
		{ "Deployment", false, false, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n" },
		{ "Deployment", true, false,
		  "NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES   SELECTOR\n" },
		{ "Node", false, false, "NAME   STATUS   ROLES   AGE   VERSION\n" },
		{ "Namespace", false, false, "NAME   STATUS   AGE\n" },
		{ "ConfigMap", false, false, "NAME   DATA   AGE\n" },
		{ "Secret", false, false, "NAME   TYPE   DATA   AGE\n" },
		{ "Event", false, false, "LAST SEEN   TYPE   REASON   OBJECT   MESSAGE\n" },
		{ "Event", false, true,
		  "NAMESPACE   LAST SEEN   TYPE   REASON   OBJECT   MESSAGE\n" },
		{ "Event", true, false,
		  "LAST SEEN   TYPE   REASON   OBJECT   SUBOBJECT   SOURCE   MESSAGE   "
		  "FIRST SEEN   COUNT   NAME\n" },
		{ "Widget", false, false, "NAME   AGE\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* one nameless object: its row's cells are as wide as their headers or less */
		struct json_object *obj = tree("{\"metadata\":{\"name\":\"\"}}");
		char *text = kind_table(cases[i].kind, &obj, 1, cases[i].wide,
					cases[i].with_namespace);
		char *nl = strchr(text, '\n'), *to = text;

		if (nl)
			nl[1] = 0;
		/* the headers, each column's padding made three spaces */
		for (const char *from = text; *from; from++)
			if (!(from[0] == ' ' && from[1] == ' ' && from[2] == ' ' && from[3] == ' '))
				*to++ = *from;
		*to = 0;
		CHECK_STR(text, cases[i].header);
		free(text);
		json_object_put(obj);
	}
}

/* check_pick() compared the scan's cells of the pods above with the tree's. */
TEST(pod_cells_scanned_too)
{
	CHECKF(scanned >= 10, "%d pods scanned", scanned);
}

int main(void)
{
	parse_time_rfc3339("2024-05-01T12:00:00Z", &now_ms);
	RUN(pod_running_ready_status_restarts_age);
	RUN(pod_crash_loop_back_off_and_restarts_ago);
	RUN(pod_terminating_once_deletion_timestamp_is_set);
	RUN(pod_status_from_phase_reason_and_exit);
	RUN(pod_init_containers_and_sidecars);
	RUN(pod_readiness_gates);
	RUN(pod_pick_keeps_what_the_columns_read);
	RUN(pick_makes_scalars_as_json_c_parses_them);
	RUN(deployment_columns);
	RUN(node_columns);
	RUN(namespace_configmap_secret_columns);
	RUN(event_columns);
	RUN(custom_resources_get_name_and_age);
	RUN(crd_columns_learned_per_registry);
	RUN(crd_cells_as_the_apiserver_makes_them);
	RUN(crd_columns_header_upper_cased_by_unicode);
	RUN(crd_columns_by_group_and_kind);
	RUN(builtin_kinds_in_their_groups_only);
	RUN(wide_detail_leaves_out_empty_cells);
	RUN(parse_time_forms);
	RUN(table_aligns_like_kubectl);
	RUN(table_counts_characters_not_bytes);
	RUN(pod_table_with_namespace_and_wide);
	RUN(headers_per_kind);
	RUN(pod_cells_scanned_too);
	return unit_done();
}
