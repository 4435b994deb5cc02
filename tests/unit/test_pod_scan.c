/*
 * test_pod_scan.c — a pod's cells from one scan of its text
 * (output/pod_scan.h) are the cells columns.c makes from its json-c tree,
 * for every pod the tests hold and for random ones.
 */
#include <json-c/json.h>

#include "informer/kobj.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/columns.h"
#include "output/pod_scan.h"
#include "unit.h"

static const char *const headers[] = {
	"READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
	"READINESS GATES", NULL,
};

/* "Now": 2024-05-01T12:00:00Z. */
static const int64_t now_ms = 1714564800000LL;

static const char *const fixtures[] = {
#include "pods.inc"
};

static void bars(struct strbuf *sb)
{
	for (size_t i = 0; i < sb->len; i++)
		if (sb->buf[i] == '\0')
			sb->buf[i] = '|';
}

/*
 * Compares the scan's cells of json with the tree's.  1 when the scan
 * gave them, 0 when it left the pod to the tree, -1 when json is no
 * object (not counted).
 */
static int same_cells(const char *json, size_t len)
{
	struct errbuf err = { "" };
	struct kobj *obj = kobj_from_json(json, len, KOBJ_ALLOW_UNNAMED, &err);
	struct strbuf text = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	int ret = 0;

	if (!obj)
		return -1;
	kobj_json(obj, &text);
	struct json_object *tree = kobj_tree(obj);
	columns_cells(NULL, "", "Pod", headers, tree, now_ms, &a);
	if (pod_scan_live_cells(NULL, "", "Pod", headers, text.buf, text.len, now_ms, &b) == 0) {
		bars(&a);
		bars(&b);
		CHECKF(!strcmp(a.buf, b.buf), "scan \"%s\", tree \"%s\" of %s", b.buf, a.buf,
		       text.buf);
		ret = 1;
	}
	json_object_put(tree);
	strbuf_release(&text);
	strbuf_release(&a);
	strbuf_release(&b);
	kobj_unref(obj);
	return ret;
}

TEST(every_pod_of_the_tests)
{
	size_t n = sizeof(fixtures) / sizeof(fixtures[0]), scanned = 0, objects = 0;

	for (size_t i = 0; i < n; i++) {
		int r = same_cells(fixtures[i], strlen(fixtures[i]));
		if (r >= 0)
			objects++;
		if (r > 0)
			scanned++;
	}
	/* All but those with escapes in what the cells read. */
	CHECKF(objects > 100 && scanned + 2 >= objects, "%zu of %zu scanned", scanned, objects);
}

/* ---- random pods --------------------------------------------------------- */

static uint64_t rng_state = 0x2828282828ULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static void pick_of(struct strbuf *sb, const char *const *pool, size_t n)
{
	strbuf_adds(sb, pool[rnd((unsigned)n)]);
}
#define PICK(sb, ...) do { \
	static const char *const pool_[] = { __VA_ARGS__ }; \
	pick_of(sb, pool_, sizeof(pool_) / sizeof(pool_[0])); \
} while (0)

/* A value of any type, what a member of the wrong type holds. */
static void odd(struct strbuf *sb)
{
	PICK(sb, "null", "true", "false", "0", "3", "-1", "1.5", "1e2", "123456789012",
	     "\"x\"", "\"\"", "{}", "[]", "[{}]", "{\"a\":1}");
}

static void str(struct strbuf *sb)
{
	if (rnd(100) < 2) {	/* escapes: left to the tree */
		PICK(sb, "\"a\\\"b\"", "\"\\u00e9t\\u00e9\"", "\"tab\\there\"");
		return;
	}
	PICK(sb, "\"\"", "\"Running\"", "\"Pending\"", "\"Succeeded\"", "\"Failed\"",
	     "\"True\"", "\"False\"", "\"Always\"", "\"OnFailure\"", "\"PodScheduled\"",
	     "\"SchedulingGated\"", "\"Initialized\"", "\"Ready\"", "\"Completed\"",
	     "\"CrashLoopBackOff\"", "\"PodInitializing\"", "\"NodeLost\"", "\"Error\"",
	     "\"c0\"", "\"c1\"", "\"c2\"", "\"g1\"", "\"10.0.0.1\"", "\"fd00::1\"", "\"node-a\"");
}

static void time_str(struct strbuf *sb)
{
	PICK(sb, "\"2024-05-01T10:00:00Z\"", "\"2024-05-01T11:59:30.250Z\"",
	     "\"2024-04-01T00:00:00+02:00\"", "\"2024-05-01T11:00:00-01:30\"", "\"soon\"",
	     "\"\"", "\"2024-05-01T10:00:00\"", "\"2024-05-01T10:00:00Zjunk\"");
}

typedef void value_fn(struct strbuf *sb);

/*
 * Member key with a value fn writes: mostly as meant, sometimes missing,
 * of another type, or twice (json-c keeps the last).
 */
static void member(struct strbuf *sb, bool *first, const char *key, value_fn *fn)
{
	unsigned r = rnd(100), times = r < 6 ? 2 : 1;

	if (r >= 90)
		return;
	for (unsigned i = 0; i < times; i++) {
		if (!*first)
			strbuf_addch(sb, ',');
		*first = false;
		strbuf_addf(sb, "\"%s\":", key);
		if (rnd(100) < 6)
			odd(sb);
		else
			fn(sb);
	}
}

static void array_of(struct strbuf *sb, value_fn *fn, unsigned max)
{
	unsigned n = rnd(max + 1);

	strbuf_addch(sb, '[');
	for (unsigned i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		if (rnd(100) < 4)
			odd(sb);
		else
			fn(sb);
	}
	strbuf_addch(sb, ']');
}

static void small_int(struct strbuf *sb)
{
	PICK(sb, "0", "1", "2", "7", "137", "-3", "0", "0");
}

static void boolean(struct strbuf *sb)
{
	PICK(sb, "true", "false", "true");
}

static void empty_obj(struct strbuf *sb)
{
	PICK(sb, "{}", "{\"startedAt\":\"2024-05-01T10:00:00Z\"}");
}

static void waiting(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "reason", str);
	strbuf_addch(sb, '}');
}

static void terminated(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "reason", str);
	member(sb, &first, "exitCode", small_int);
	if (rnd(3) == 0)
		member(sb, &first, "signal", small_int);
	member(sb, &first, "finishedAt", time_str);
	strbuf_addch(sb, '}');
}

static void state(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	switch (rnd(5)) {
	case 0: member(sb, &first, "waiting", waiting); break;
	case 1: member(sb, &first, "terminated", terminated); break;
	case 2: member(sb, &first, "running", empty_obj); break;
	case 3:	/* more than one, as no server sends but a hostile one */
		member(sb, &first, "running", empty_obj);
		member(sb, &first, "terminated", terminated);
		member(sb, &first, "waiting", waiting);
		break;
	default: break;
	}
	strbuf_addch(sb, '}');
}

static void container_status(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "name", str);
	member(sb, &first, "ready", boolean);
	member(sb, &first, "started", boolean);
	member(sb, &first, "restartCount", small_int);
	member(sb, &first, "state", state);
	member(sb, &first, "lastState", state);
	strbuf_addch(sb, '}');
}

static void init_container(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "name", str);
	if (rnd(2))
		member(sb, &first, "restartPolicy", str);
	member(sb, &first, "image", str);
	strbuf_addch(sb, '}');
}

static void condition(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "type", str);
	member(sb, &first, "status", str);
	if (rnd(2))
		member(sb, &first, "reason", str);
	strbuf_addch(sb, '}');
}

static void gate(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "conditionType", str);
	strbuf_addch(sb, '}');
}

static void ip(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "ip", str);
	strbuf_addch(sb, '}');
}

static void containers(struct strbuf *sb) { array_of(sb, empty_obj, 4); }
static void init_containers(struct strbuf *sb) { array_of(sb, init_container, 3); }
static void gates(struct strbuf *sb) { array_of(sb, gate, 3); }
static void conditions(struct strbuf *sb) { array_of(sb, condition, 5); }
static void statuses(struct strbuf *sb) { array_of(sb, container_status, 4); }
static void ips(struct strbuf *sb) { array_of(sb, ip, 2); }

static void metadata(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "name", str);
	member(sb, &first, "creationTimestamp", time_str);
	if (rnd(4) == 0)
		member(sb, &first, "deletionTimestamp", time_str);
	strbuf_addch(sb, '}');
}

static void spec(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "containers", containers);
	member(sb, &first, "initContainers", init_containers);
	member(sb, &first, "nodeName", str);
	if (rnd(3) == 0)
		member(sb, &first, "readinessGates", gates);
	strbuf_addch(sb, '}');
}

static void status(struct strbuf *sb)
{
	bool first = true;
	strbuf_addch(sb, '{');
	member(sb, &first, "phase", str);
	if (rnd(3) == 0)
		member(sb, &first, "reason", str);
	member(sb, &first, "conditions", conditions);
	member(sb, &first, "initContainerStatuses", statuses);
	member(sb, &first, "containerStatuses", statuses);
	member(sb, &first, "podIP", str);
	member(sb, &first, "podIPs", ips);
	if (rnd(3) == 0)
		member(sb, &first, "nominatedNodeName", str);
	strbuf_addch(sb, '}');
}

static void random_pod(struct strbuf *sb)
{
	bool first = false;

	strbuf_adds(sb, "{\"kind\":\"Pod\"");
	/* status before spec too: the scan must not depend on the order */
	if (rnd(2)) {
		member(sb, &first, "status", status);
		member(sb, &first, "spec", spec);
	} else {
		member(sb, &first, "spec", spec);
		member(sb, &first, "status", status);
	}
	member(sb, &first, "metadata", metadata);
	strbuf_addch(sb, '}');
}

TEST(random_pods)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 20000, scanned = 0;

	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		random_pod(&sb);
		if (same_cells(sb.buf, sb.len) > 0)
			scanned++;
	}
	/* Most are scanned (escapes in a string read leave the rest to the tree). */
	CHECKF(scanned > n / 2, "%zu of %zu scanned", scanned, n);
	strbuf_release(&sb);
}

/* The scan leaves to the tree what it does not follow, rather than guess. */
TEST(what_the_scan_leaves_to_the_tree)
{
	static const char *const hard[] = {
		"{\"status\":{\"phase\":\"Run\\u006eing\"}}",
		"{\"status\":{\"containerStatuses\":[{\"restartCount\":1e2}]}}",
		"{\"status\":{\"containerStatuses\":[{\"restartCount\":123456789}]}}",
	};
	struct pod_summary_rec rec;

	for (size_t i = 0; i < sizeof(hard) / sizeof(hard[0]); i++)
		CHECK_INT(pod_scan(hard[i], strlen(hard[i]), &rec), -1);
	CHECK_INT(pod_scan("{\"status\":{\"phase\":\"Running\"}}", 30, &rec), 0);
	CHECK_STR(rec.status, "Running");
}

int main(void)
{
	RUN(every_pod_of_the_tests);
	RUN(random_pods);
	RUN(what_the_scan_leaves_to_the_tree);
	return unit_done();
}
