/* test_printer.c — each output format's exact text, the JSON record's fields, notices, write errors. */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "output/columns.h"
#include "informer/informer.h"
#include "output/printer.h"
#include "lib/strbuf.h"
#include "unit.h"

static int64_t now_ms;		/* 2024-05-01T12:00:00Z */
static int64_t delta_ms;	/* 2024-05-01T10:04:05.123Z */

static const char pod_v1[] =
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-1\",\"namespace\":\"shop\","
	"\"resourceVersion\":\"4512\",\"creationTimestamp\":\"2024-05-01T11:00:00Z\","
	"\"labels\":{\"app\":\"web\"}},"
	"\"spec\":{\"nodeName\":\"worker-1\",\"replicas\":2,\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1.24\"}]},"
	"\"status\":{\"phase\":\"Running\",\"podIPs\":[{\"ip\":\"10.1.0.5\"}],"
	"\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}}}]}}";

static const char pod_v2[] =
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-1\",\"namespace\":\"shop\","
	"\"resourceVersion\":\"4600\",\"creationTimestamp\":\"2024-05-01T11:00:00Z\","
	"\"labels\":{\"app\":\"web\",\"v\":\"2\"}},"
	"\"spec\":{\"nodeName\":\"worker-1\",\"replicas\":3,\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1.24\"}]},"
	"\"status\":{\"phase\":\"Running\",\"podIPs\":[{\"ip\":\"10.1.0.5\"}],"
	"\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}}}]}}";

static const char node_json[] =
	"{\"metadata\":{\"name\":\"worker-1\",\"resourceVersion\":\"77\"},"
	"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";

static struct kobj *obj_of(const char *json)
{
	struct errbuf err;
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);

	if (!obj)
		printf("# kobj_from_json: %s\n", err.msg);
	return obj;
}

/* A notification as the informer makes one (objects: new references). */
static struct notification note(enum notify_kind kind, enum delta_type type,
				enum delta_source source, unsigned list_no,
				const char *json, const char *old_json)
{
	struct notification n = { 0 };

	n.kind = kind;
	n.delta.type = type;
	n.delta.source = source;
	n.delta.list_no = list_no;
	/* The initial list's deltas are always popped before the FIFO syncs. */
	n.delta.initial_list = source == SOURCE_LIST && list_no == 0;
	n.delta.time_ms = delta_ms;
	n.delta.obj = obj_of(json);
	n.old = old_json ? obj_of(old_json) : NULL;
	n.resource = "pods";
	n.obj_kind = "Pod";
	return n;
}

static struct notification activity(enum activity act)
{
	struct notification n = { 0 };

	n.kind = NOTIFY_ACTIVITY;
	n.activity = xcalloc(1, sizeof(*n.activity));	/* notification_release() frees it */
	n.activity->act = act;
	n.resource = "pods";
	n.obj_kind = "Pod";
	return n;
}

/* Output captured in memory: out and notices. */
struct capture {
	char *out, *err;
	size_t out_len, err_len;
	FILE *fout, *ferr;
	struct printer *p;
};

static void capture_start(struct capture *c, enum output_format format,
			  struct printer_opts opts)
{
	memset(c, 0, sizeof(*c));
	c->fout = open_memstream(&c->out, &c->out_len);
	c->ferr = open_memstream(&c->err, &c->err_len);
	opts.out = c->fout;
	opts.notices = c->ferr;
	opts.now_ms = now_ms;
	c->p = printer_new(format, &opts);
}

/* Prints n (and releases it); returns printer_notification()'s answer. */
static int put(struct capture *c, struct notification n)
{
	int rc = printer_notification(c->p, &n);

	notification_release(&n);
	return rc;
}

static void capture_end(struct capture *c)
{
	printer_free(c->p);
	fclose(c->fout);
	fclose(c->ferr);
}

static void capture_release(struct capture *c)
{
	free(c->out);
	free(c->err);
}

/* ---- line --------------------------------------------------------------- */

TEST(line_initial_delta_with_header)
{
	struct capture c;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .show_kind = true });
	CHECK_INT(put(&c, note(NOTIFY_ADD, DELTA_REPLACED, SOURCE_LIST, 0, pod_v1, NULL)), 0);
	CHECK_INT(put(&c, note(NOTIFY_DELETE, DELTA_DELETED, SOURCE_WATCH, 0, pod_v2, NULL)), 0);
	capture_end(&c);
	CHECK_STR(c.out,
		  "TIME          TYPE      KIND  KEY                       RV      STATUS\n"
		  "10:04:05.123  Replaced  Pod   shop/web-1                4512    Running 1/1 (initial)\n"
		  "10:04:05.123  Deleted   Pod   shop/web-1                4600    Running 1/1\n");
	CHECK_STR(c.err, "");
	capture_release(&c);
}

TEST(line_without_kind_or_headers)
{
	struct capture c;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .no_headers = true });
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	capture_end(&c);
	CHECK_STR(c.out, "10:04:05.123  Added     shop/web-1                4512    Running 1/1\n");
	capture_release(&c);
}

TEST(line_markers_tombstone_relist_resync)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .no_headers = true });
	n = note(NOTIFY_DELETE, DELTA_DELETED, SOURCE_LIST, 2, pod_v1, NULL);
	n.delta.tombstone = true;
	put(&c, n);
	n = note(NOTIFY_UPDATE, DELTA_SYNC, SOURCE_RESYNC, 2, pod_v1, pod_v1);
	n.resync_only = true;
	put(&c, n);
	n = note(NOTIFY_UPDATE, DELTA_REPLACED, SOURCE_LIST, 3, pod_v1, pod_v1);
	n.resync_only = true;
	put(&c, n);
	capture_end(&c);
	CHECK_STR(c.out,
		  "10:04:05.123  Deleted   shop/web-1                4512    Running 1/1 (tombstone) (relist #2)\n"
		  "10:04:05.123  Sync      shop/web-1                4512    Running 1/1 (resync)\n"
		  "10:04:05.123  Replaced  shop/web-1                4512    Running 1/1 (relist #3) (unchanged)\n");
	capture_release(&c);
}

TEST(line_colors_the_type)
{
	struct capture c;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .no_headers = true, .color = true });
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	put(&c, note(NOTIFY_UPDATE, DELTA_UPDATED, SOURCE_WATCH, 0, pod_v2, pod_v1));
	put(&c, note(NOTIFY_DELETE, DELTA_DELETED, SOURCE_WATCH, 0, pod_v2, NULL));
	put(&c, note(NOTIFY_ADD, DELTA_REPLACED, SOURCE_LIST, 0, pod_v1, NULL));
	put(&c, note(NOTIFY_UPDATE, DELTA_SYNC, SOURCE_RESYNC, 0, pod_v1, pod_v1));
	capture_end(&c);
	CHECK(strstr(c.out, "\033[32mAdded\033[0m     shop/web-1") != NULL);
	CHECK(strstr(c.out, "\033[33mUpdated\033[0m   shop/web-1") != NULL);
	CHECK(strstr(c.out, "\033[31mDeleted\033[0m   shop/web-1") != NULL);
	CHECK(strstr(c.out, "\033[34mReplaced\033[0m  shop/web-1") != NULL);
	CHECK(strstr(c.out, "\033[90mSync\033[0m      shop/web-1") != NULL);
	capture_release(&c);
}

TEST(line_diff_on_updates)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .no_headers = true, .diff = true });
	put(&c, note(NOTIFY_UPDATE, DELTA_UPDATED, SOURCE_WATCH, 0, pod_v2, pod_v1));
	/* Only noise (here: nothing) changed, not resync-only: said so. */
	put(&c, note(NOTIFY_UPDATE, DELTA_UPDATED, SOURCE_WATCH, 0, pod_v1, pod_v1));
	n = note(NOTIFY_UPDATE, DELTA_SYNC, SOURCE_RESYNC, 0, pod_v1, pod_v1);
	n.resync_only = true;
	put(&c, n);
	capture_end(&c);
	CHECK_STR(c.out,
		  "10:04:05.123  Updated   shop/web-1                4600    Running 1/1\n"
		  "    metadata.labels.v: + 2\n"
		  "    spec.replicas: 2 → 3\n"
		  "10:04:05.123  Updated   shop/web-1                4512    Running 1/1\n"
		  "    (no field changed)\n"
		  "10:04:05.123  Sync      shop/web-1                4512    Running 1/1 (resync)\n");
	capture_release(&c);
}

TEST(line_columns_widen_for_long_cells)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .no_headers = true, .show_kind = true });
	n = note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, node_json, NULL);
	n.obj_kind = "Node";
	n.resource = "nodes";
	put(&c, n);
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	capture_end(&c);
	CHECK_STR(c.out,
		  "10:04:05.123  Added     Node  worker-1                  77      Ready\n"
		  "10:04:05.123  Added     Pod   shop/web-1                4512    Running 1/1\n");
	capture_release(&c);
}

/* ---- wide, name --------------------------------------------------------- */

TEST(wide_adds_age_and_details)
{
	struct capture c;

	capture_start(&c, OUTPUT_WIDE, (struct printer_opts){ 0 });
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	capture_end(&c);
	CHECK_STR(c.out,
		  "TIME          TYPE      KEY                       RV      STATUS        AGE   DETAILS\n"
		  "10:04:05.123  Added     shop/web-1                4512    Running 1/1   60m   ip=10.1.0.5 node=worker-1\n");
	capture_release(&c);
}

TEST(name_is_kubectl_style)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_NAME, (struct printer_opts){ 0 });
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	n = note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, node_json, NULL);
	n.obj_kind = "Node";
	put(&c, n);
	n = note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, node_json, NULL);
	n.obj_kind = NULL;
	n.resource = "widgets";
	put(&c, n);
	capture_end(&c);
	CHECK_STR(c.out, "pod/web-1\nnode/worker-1\nwidgets/worker-1\n");
	capture_release(&c);
}

/* ---- json --------------------------------------------------------------- */

static struct json_object *member(struct json_object *o, const char *name)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, name, &v))
		printf("# no member \"%s\"\n", name);
	return v;
}

static const char *member_str(struct json_object *o, const char *name)
{
	struct json_object *v = member(o, name);
	return v ? json_object_get_string(v) : "(missing)";
}

/* The documented members, in order. */
static const char *const json_fields[] = {
	"time", "type", "handler", "resource", "kind", "namespace", "name", "key",
	"resourceVersion", "oldResourceVersion", "initialList", "tombstone",
	"resync", "unchanged", "source", "listNumber", "object", "diff",
};

TEST(json_record_has_every_documented_field)
{
	struct capture c;
	struct json_object *rec;
	size_t i = 0;

	capture_start(&c, OUTPUT_JSON, (struct printer_opts){ .diff = true });
	CHECK_INT(put(&c, note(NOTIFY_UPDATE, DELTA_UPDATED, SOURCE_WATCH, 1, pod_v2, pod_v1)), 0);
	capture_end(&c);
	CHECK(c.out_len > 0 && c.out[c.out_len - 1] == '\n');
	CHECK(strchr(c.out, '\n') == c.out + c.out_len - 1);	/* one line */
	rec = json_tokener_parse(c.out);
	CHECK(rec != NULL);
	if (!rec)
		goto out;
	/* Exactly the documented members, in the documented order. */
	json_object_object_foreach(rec, k, v) {
		(void)v;
		CHECK(i < ARRAY_SIZE(json_fields));
		if (i < ARRAY_SIZE(json_fields))
			CHECK_STR(k, json_fields[i]);
		i++;
	}
	CHECK_INT(i, ARRAY_SIZE(json_fields));
	CHECK_STR(member_str(rec, "time"), "2024-05-01T10:04:05.123Z");
	CHECK_STR(member_str(rec, "type"), "Updated");
	CHECK_STR(member_str(rec, "resource"), "pods");
	CHECK_STR(member_str(rec, "kind"), "Pod");
	CHECK_STR(member_str(rec, "namespace"), "shop");
	CHECK_STR(member_str(rec, "name"), "web-1");
	CHECK_STR(member_str(rec, "key"), "shop/web-1");
	CHECK_STR(member_str(rec, "resourceVersion"), "4600");
	CHECK_STR(member_str(rec, "oldResourceVersion"), "4512");
	CHECK(json_object_is_type(member(rec, "initialList"), json_type_boolean));
	CHECK(!json_object_get_boolean(member(rec, "initialList")));
	CHECK(!json_object_get_boolean(member(rec, "tombstone")));
	CHECK(!json_object_get_boolean(member(rec, "resync")));
	CHECK_STR(member_str(rec, "source"), "watch");
	CHECK_INT(json_object_get_int(member(rec, "listNumber")), 1);
	CHECK_STR(member_str(member(rec, "object"), "kind"), "Pod");
	CHECK_STR(json_object_to_json_string_ext(member(rec, "diff"),
						  JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
		  "[{\"op\":\"add\",\"path\":\"/metadata/labels/v\",\"value\":\"2\"},"
		  "{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3,\"old\":2}]");
	json_object_put(rec);
out:
	capture_release(&c);
}

TEST(json_splices_the_object_text)
{
	struct capture c;
	struct kobj *obj = obj_of(pod_v1);

	capture_start(&c, OUTPUT_JSON, (struct printer_opts){ 0 });
	put(&c, note(NOTIFY_ADD, DELTA_REPLACED, SOURCE_LIST, 0, pod_v1, NULL));
	capture_end(&c);
	struct strbuf text = STRBUF_INIT;
	kobj_json(obj, &text);
	CHECK(strstr(c.out, text.buf) != NULL);
	strbuf_release(&text);
	CHECK(strstr(c.out, "\"initialList\":true,\"tombstone\":false,\"resync\":false,"
			    "\"unchanged\":false,\"source\":\"list\",\"listNumber\":0,\"object\":{") != NULL);
	/* Not an update: no oldResourceVersion, no diff. */
	CHECK(strstr(c.out, "oldResourceVersion") == NULL);
	CHECK(strstr(c.out, "\"diff\"") == NULL);
	kobj_unref(obj);
	capture_release(&c);
}

TEST(json_tombstone_and_cluster_scoped)
{
	struct capture c;
	struct notification n;
	struct json_object *rec;

	capture_start(&c, OUTPUT_JSON, (struct printer_opts){ 0 });
	n = note(NOTIFY_DELETE, DELTA_DELETED, SOURCE_LIST, 2, node_json, NULL);
	n.delta.tombstone = true;
	n.obj_kind = "Node";
	n.resource = "nodes";
	put(&c, n);
	capture_end(&c);
	rec = json_tokener_parse(c.out);
	CHECK(rec != NULL);
	if (rec) {
		CHECK_STR(member_str(rec, "namespace"), "");
		CHECK_STR(member_str(rec, "key"), "worker-1");
		CHECK_STR(member_str(rec, "kind"), "Node");
		CHECK(json_object_get_boolean(member(rec, "tombstone")));
		CHECK(!json_object_get_boolean(member(rec, "initialList")));
		CHECK_INT(json_object_get_int(member(rec, "listNumber")), 2);
		json_object_put(rec);
	}
	capture_release(&c);
}

static struct notification relisted(void)
{
	struct notification n = activity(ACT_RELISTED);

	n.activity->list_no = 2;
	snprintf(n.activity->message, sizeof(n.activity->message),
		 "watch expired: too old resource version");
	n.activity->replace = (struct replace_stats){
		.listed = 99, .added = 1, .changed = 3, .unchanged = 95, .deleted = 2,
	};
	return n;
}

TEST(json_relist_record_only_with_events)
{
	struct capture c;
	struct json_object *rec;

	capture_start(&c, OUTPUT_JSON, (struct printer_opts){ .events = true });
	CHECK_INT(put(&c, relisted()), 0);
	capture_end(&c);
	CHECK_STR(c.err, "");
	rec = json_tokener_parse(c.out);
	CHECK(rec != NULL);
	if (rec) {
		CHECK_STR(member_str(rec, "type"), "Relist");
		CHECK_STR(member_str(rec, "resource"), "pods");
		CHECK_INT(json_object_get_int(member(rec, "listNumber")), 2);
		CHECK_STR(member_str(rec, "reason"), "watch expired: too old resource version");
		CHECK_INT(json_object_get_int(member(rec, "listed")), 99);
		CHECK_INT(json_object_get_int(member(rec, "added")), 1);
		CHECK_INT(json_object_get_int(member(rec, "changed")), 3);
		CHECK_INT(json_object_get_int(member(rec, "deleted")), 2);
		CHECK_INT(json_object_get_int(member(rec, "unchanged")), 95);
		json_object_put(rec);
	}
	capture_release(&c);

	capture_start(&c, OUTPUT_JSON, (struct printer_opts){ 0 });
	put(&c, relisted());
	capture_end(&c);
	CHECK_STR(c.out, "");
	CHECK_STR(c.err, "kinf: pods: relist #2 (watch expired: too old resource version): "
			 "3 changed, 1 added, 2 deleted (tombstones), 95 unchanged\n");
	capture_release(&c);
}

/* ---- notices ------------------------------------------------------------ */

TEST(notices_go_to_their_own_stream)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ 0 });
	put(&c, activity(ACT_LIST_START));
	for (int i = 1; i <= 3; i++) {
		n = activity(ACT_LIST_PAGE);
		n.activity->count = 50u * i;
		put(&c, n);
	}
	n = activity(ACT_LIST_DONE);
	n.activity->count = 120;
	snprintf(n.activity->rv, sizeof(n.activity->rv), "4512");
	put(&c, n);
	n = activity(ACT_WATCH_OPEN);
	snprintf(n.activity->rv, sizeof(n.activity->rv), "4512");
	put(&c, n);
	n = activity(ACT_WATCH_END);
	snprintf(n.activity->rv, sizeof(n.activity->rv), "4600");
	put(&c, n);
	n = activity(ACT_WATCH_EXPIRED);
	snprintf(n.activity->message, sizeof(n.activity->message), "too old resource version");
	put(&c, n);
	n = activity(ACT_BACKOFF);
	n.activity->delay_ms = 1600;
	snprintf(n.activity->message, sizeof(n.activity->message), "list failed");
	put(&c, n);
	n = activity(ACT_ERROR);
	snprintf(n.activity->message, sizeof(n.activity->message), "connection refused");
	put(&c, n);
	n = activity(ACT_RESYNC);
	n.activity->count = 120;
	put(&c, n);
	put(&c, relisted());
	put(&c, activity(ACT_BOOKMARK));	/* verbose only */
	n = activity(ACT_SYNCED);
	n.activity->count = 120;
	put(&c, n);
	capture_end(&c);
	CHECK_STR(c.out, "");
	CHECK_STR(c.err,
		  "kinf: pods: listed 120 objects at rv 4512 (3 pages)\n"
		  "kinf: pods: watch ended by server, re-watching from rv 4600\n"
		  "kinf: pods: watch expired (too old resource version), relisting\n"
		  "kinf: pods: backing off 1.6s: list failed\n"
		  "kinf: pods: error: connection refused\n"
		  "kinf: pods: resync: 120 Sync deltas queued\n"
		  "kinf: pods: relist #2 (watch expired: too old resource version): "
		  "3 changed, 1 added, 2 deleted (tombstones), 95 unchanged\n"
		  "kinf: pods: synced: 120 objects cached\n");
	capture_release(&c);
}

TEST(no_notice_stream_means_quiet)
{
	struct printer *p = printer_new(OUTPUT_LINE, &(struct printer_opts){ .progress = true });
	struct notification n = relisted();

	/* Nothing to write to, nothing written, nothing failed. */
	CHECK_INT(printer_notification(p, &n), 0);
	notification_release(&n);
	n = activity(ACT_LIST_PAGE);
	CHECK_INT(printer_notification(p, &n), 0);
	notification_release(&n);
	printer_free(p);
}

TEST(verbose_notices_and_progress)
{
	struct capture c;
	struct notification n;

	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .verbose = true });
	put(&c, activity(ACT_LIST_START));
	n = activity(ACT_WATCH_OPEN);
	snprintf(n.activity->rv, sizeof(n.activity->rv), "10");
	put(&c, n);
	capture_end(&c);
	CHECK_STR(c.err, "kinf: pods: listing\nkinf: pods: watching from rv 10\n");
	capture_release(&c);

	/* On a terminal a page rewrites one line; the next output clears it. */
	capture_start(&c, OUTPUT_LINE, (struct printer_opts){ .progress = true, .no_headers = true });
	n = activity(ACT_LIST_PAGE);
	n.activity->count = 500;
	put(&c, n);
	put(&c, note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL));
	capture_end(&c);
	CHECK_STR(c.err, "\rkinf: pods: listing: 500 objects, 1 page so far\033[K\r\033[K");
	capture_release(&c);
}

/* ---- errors ------------------------------------------------------------- */

TEST(write_error_returns_minus_one)
{
	FILE *full = fopen("/dev/full", "w");
	struct printer *p;
	struct notification n;

	CHECK(full != NULL);
	if (!full)
		return;
	for (int f = 0; f < OUTPUT__COUNT; f++) {
		p = printer_new(f, &(struct printer_opts){ .out = full, .notices = full });
		n = note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL);
		/* Records are buffered: the failure shows when flushed. */
		CHECK_INT(printer_notification(p, &n), 0);
		CHECK_INT(printer_flush(p), -1);
		notification_release(&n);
		/* Notices never fail the printer. */
		clearerr(full);
		n = activity(ACT_ERROR);
		CHECK_INT(printer_notification(p, &n), 0);
		notification_release(&n);
		printer_free(p);
		clearerr(full);
	}
	fclose(full);
}

TEST(closed_pipe_returns_minus_one_with_epipe)
{
	int fd[2];
	FILE *w;
	struct printer *p;
	struct notification n;

	signal(SIGPIPE, SIG_IGN);	/* as main() does */
	CHECK_INT(pipe(fd), 0);
	close(fd[0]);
	w = fdopen(fd[1], "w");
	p = printer_new(OUTPUT_JSON, &(struct printer_opts){ .out = w });
	n = note(NOTIFY_ADD, DELTA_ADDED, SOURCE_WATCH, 0, pod_v1, NULL);
	errno = 0;
	CHECK_INT(printer_notification(p, &n), 0);
	CHECK_INT(printer_flush(p), -1);
	CHECK_INT(errno, EPIPE);
	notification_release(&n);
	printer_free(p);
	fclose(w);
}

TEST(format_names)
{
	CHECK_INT(output_format_parse("line"), OUTPUT_LINE);
	CHECK_INT(output_format_parse("wide"), OUTPUT_WIDE);
	CHECK_INT(output_format_parse("json"), OUTPUT_JSON);
	CHECK_INT(output_format_parse("name"), OUTPUT_NAME);
	CHECK_INT(output_format_parse("yaml"), -1);
	CHECK_STR(output_format_name(OUTPUT_WIDE), "wide");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	parse_time_rfc3339("2024-05-01T12:00:00Z", &now_ms);
	parse_time_rfc3339("2024-05-01T10:04:05.123Z", &delta_ms);
	RUN(line_initial_delta_with_header);
	RUN(line_without_kind_or_headers);
	RUN(line_markers_tombstone_relist_resync);
	RUN(line_colors_the_type);
	RUN(line_diff_on_updates);
	RUN(line_columns_widen_for_long_cells);
	RUN(wide_adds_age_and_details);
	RUN(name_is_kubectl_style);
	RUN(json_record_has_every_documented_field);
	RUN(json_splices_the_object_text);
	RUN(json_tombstone_and_cluster_scoped);
	RUN(json_relist_record_only_with_events);
	RUN(notices_go_to_their_own_stream);
	RUN(no_notice_stream_means_quiet);
	RUN(verbose_notices_and_progress);
	RUN(write_error_returns_minus_one);
	RUN(closed_pipe_returns_minus_one_with_epipe);
	RUN(format_names);
	return unit_done();
}
