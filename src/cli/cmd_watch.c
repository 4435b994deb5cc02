/*
 * cmd_watch.c — `kinf watch RESOURCE[,RESOURCE...] [NAME]`: one shared
 * informer per resource, every delta printed as it is popped.
 *
 * DESIGN (threads): the informers run their own threads; this, the main
 * thread, owns stdout and stderr.  It sleeps in poll() on the listeners'
 * wake-up fds and a self-pipe written by the signal handler, drains the
 * listeners and prints.  Nothing else writes to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "cluster/replay.h"
#include "cli/cmd.h"
#include "cli/controller_flags.h"
#include "controller/controller.h"
#include "cli/flight_flags.h"
#include "cli/informer_flags.h"
#include "cli/metrics_flag.h"
#include "cli/resource_args.h"
#include "output/columns.h"
#include "output/format.h"
#include "output/printer.h"
#include "output/printer_columns.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "tui/tui.h"
#include "tui/tui_model.h"
#include "cli/watch_loop.h"

/* stdout's buffer when it is no terminal: a pipe's default capacity on Linux. */
#define STDOUT_BUFFER (64 << 10)
/* What a pipe on stdout is grown to: Linux's default pipe-max-size. */
#define STDOUT_PIPE (1 << 20)

/*
 * A synced list's OnAdd lines all come at once, after its last object
 * (330 MB of -o json at 100,000 pods): through a 64 KiB pipe the reader
 * and kinf took turns 5,000 times: 1.4-1.8 s after a 100,000-pod list on a
 * loaded machine.  A 1 MiB pipe takes 16 times fewer turns.  Only the
 * pipe kinf writes to changes (the reader sees the same bytes); where
 * the kernel refuses (a user's pipe-user-pages limit), it stays as it was.
 */
static void grow_stdout_pipe(void)
{
	struct stat st;
	int size;

	if (fstat(STDOUT_FILENO, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	size = fcntl(STDOUT_FILENO, F_GETPIPE_SZ);
	if (size >= 0 && size < STDOUT_PIPE && fcntl(STDOUT_FILENO, F_SETPIPE_SZ, STDOUT_PIPE) < 0) {
		/* refused: the default pipe only costs time */
	}
}

static const char *const output_names[] = {
	"line", "wide", "json", "name", "yaml", "jsonpath=", "jsonpath-file=",
	"custom-columns=", "custom-columns-file=", NULL,
};
static const char *const color_names[] = { "auto", "always", "never", NULL };

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

static struct {
	const char *output;
	bool diff, events, watch_only, hide_unchanged, no_headers;
	bool tui, quiet;
	const char *types, *dump_cache, *record;
	int64_t timeout_ms, verify_every_ms, lag_wait_ms, health_every_ms;
	long max_deltas;
	int color;
} o = { .lag_wait_ms = 10000 };

/* How deltas are shown: watch's and replay's. */
static const struct option delta_output_options[] = {
	{ .type = OPT_T_STRING, .short_name = 'o', .long_name = "output", .value = &o.output,
	  .argh = "FORMAT", .choices = output_names, .help = "output format" },
	OPT_STRING(0, "types", &o.types, "TYPES",
		   "only these delta types, e.g. Added,Deleted (Bookmark: only when named)",
		   COMPLETE_DELTA_TYPES),
	OPT_BOOL(0, "hide-unchanged", &o.hide_unchanged,
		 "hide updates whose resourceVersion did not change (after a relist, a resync)"),
	OPT_BOOL(0, "watch-only", &o.watch_only,
		 "hide the initial list's deltas"),
	OPT_BOOL(0, "diff", &o.diff,
		 "show what each update changed"),
	OPT_BOOL(0, "events", &o.events,
		 "with -o json: also print informer activity records (Relist, Warning, ...)"),
	OPT_INT(0, "max-deltas", &o.max_deltas, "N",
		"exit after printing N deltas (1 if an informer never listed)"),
	OPT_BOOL(0, "no-headers", &o.no_headers,
		 "no column headers"),
	OPT_ENUM(0, "color", &o.color, "WHEN", color_names,
		 "colour delta types (auto: on a terminal, unless NO_COLOR is set)"),
	OPT_STRING(0, "dump-cache", &o.dump_cache, "FILE",
		   "on exit, write the Indexer's keys and resourceVersions to FILE as JSON",
		   COMPLETE_FILE),
	OPT_BOOL('q', "quiet", &o.quiet,
		 "no notices on stderr: the informers', the server's warnings, throttling"),
	OPT_INCLUDE(controller_flag_options),
	OPT_END(),
};

static const struct option watch_options[] = {
	OPT_INCLUDE(delta_output_options),
	OPT_DURATION(0, "timeout", &o.timeout_ms,
		     "exit after this long (1 if an informer has not synced)"),
	OPT_DURATION(0, "verify-every", &o.verify_every_ms,
		     "check the cache against a LIST from the server this often (see kinf verify)"),
	OPT_DURATION(0, "lag-wait", &o.lag_wait_ms,
		     "with --verify-every: wait this long for the informer to reach the list (default 10s)"),
	OPT_DURATION(0, "health-every", &o.health_every_ms,
		     "a health notice this often: watch age, last event and bookmark, backlog "
		     "(-v: every 30s)"),
	OPT_BOOL(0, "tui", &o.tui,
		 "show the live terminal UI instead of lines"),
	OPT_STRING(0, "record", &o.record, "FILE",
		   "write what the server sends to FILE (0600, gzip'd), for kinf replay",
		   COMPLETE_FILE),
	OPT_INCLUDE(metrics_flag_options),
	OPT_INCLUDE(flight_options),
	OPT_INCLUDE(informer_flag_options),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

/*
 * Parses --types into a mask of delta types; -1 on an unknown name.
 * Sync and Replaced take in the atomic FIFO's SyncAll and ReplacedAll
 * (1.36): a resync is a resync, whichever FIFO queues it.
 */
static int parse_types(const char *list, unsigned *mask, const char **bad)
{
	static char name[64];
	*mask = 0;
	while (*list) {
		size_t n = strcspn(list, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, list);
		int t = delta_type_parse(name);
		if (t < 0) {
			*bad = name;
			return -1;
		}
		*mask |= 1u << t;
		if (t == DELTA_SYNC)
			*mask |= 1u << DELTA_SYNC_ALL;
		if (t == DELTA_REPLACED)
			*mask |= 1u << DELTA_REPLACED_ALL;
		list += n + (list[n] == ',');
	}
	return 0;
}

static bool use_color(int mode)
{
	if (mode == COLOR_ALWAYS)
		return true;
	if (mode == COLOR_NEVER)
		return false;
	const char *nc = getenv("NO_COLOR");
	return isatty(STDOUT_FILENO) && !(nc && *nc);
}

/*
 * --dump-cache: {"key": "resourceVersion", ...} of the Indexer, or one
 * such object per resource when several are watched.  For tests and for
 * comparing against the server after the fact.
 */
static int dump_cache(struct session *s, const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (s->nr > 1)
		strbuf_addch(&sb, '{');
	for (size_t i = 0; i < s->nr; i++) {
		struct kobj_list all;
		store_list(informer_store(s->informers[i]), &all);
		if (s->nr > 1) {
			strbuf_add_json_string(&sb, s->resources[i]->name);
			strbuf_addch(&sb, ':');
		}
		strbuf_addch(&sb, '{');
		for (size_t j = 0; j < all.nr; j++) {
			if (j)
				strbuf_addch(&sb, ',');
			strbuf_add_json_string(&sb, all.v[j]->key);
			strbuf_addch(&sb, ':');
			strbuf_add_json_string(&sb, all.v[j]->rv);
		}
		strbuf_addch(&sb, '}');
		if (s->nr > 1)
			strbuf_adds(&sb, i + 1 < s->nr ? "," : "}");
		kobj_list_release(&all);
	}
	strbuf_addch(&sb, '\n');
	struct errbuf err = { "" };
	int fd = open_new_file(file, 0600, &err);	/* as SECURITY says */
	if (fd < 0) {
		error("%s", err.msg);
		ret = -1;
	} else {
		FILE *f = fdopen(fd, "w");
		bool ok = f && fwrite(sb.buf, 1, sb.len, f) == sb.len;
		if (!f)
			close(fd);
		if ((f && fclose(f) != 0) || !ok) {
			error("cannot write '%s': %s", file, strerror(errno));
			ret = -1;
		}
	}
	strbuf_release(&sb);
	return ret;
}

/* How the deltas are shown: -o, --types and the like, checked. */
struct output_setup {
	unsigned types;
	struct format fmt;
	int output;		/* an enum output_format */
	struct crd_columns *crds;	/* owned; NULL: a replay's, none */
};

/* Reads the output options (o); usage errors of cmd exit. */
static void parse_output(const struct command *cmd, struct output_setup *out)
{
	const char *bad;

	memset(out, 0, sizeof(*out));
	if (o.types && parse_types(o.types, &out->types, &bad) < 0)
		usage_error(cmd, "unknown delta type '%s' in --types "
			    "(Added, Updated, Deleted, Replaced, Sync, ReplacedAll, SyncAll, Bookmark)", bad);
	/* line, wide, json, name: the printer's own; the rest kubectl's */
	out->output = output_format_parse(o.output ? o.output : "line");
	if (out->output < 0 || out->output == OUTPUT_OBJECT) {
		struct errbuf ferr = { "" };
		if (format_parse(&out->fmt, o.output, "line", NULL, &ferr) < 0)
			usage_error(cmd, "%s", ferr.msg);
		if (out->fmt.columns_err)	/* kinf's own command says it at once */
			usage_error(cmd, "%s", out->fmt.columns_err);
		out->fmt.terminal = isatty(STDOUT_FILENO);
		if (out->fmt.kind != FORMAT_YAML && out->fmt.kind != FORMAT_JSONPATH &&
		    out->fmt.kind != FORMAT_CUSTOM_COLUMNS)
			usage_error(cmd, "invalid value '%s' for '--output': expected "
				    "line, wide, json, name, yaml, jsonpath=, custom-columns=", o.output);
		out->output = OUTPUT_OBJECT;
	}
	if (o.events && out->output != OUTPUT_JSON)
		usage_error(cmd, "--events needs -o json");
	controller_flags_check(cmd);
}

/*
 * Prints the session's deltas until the loop ends (loop: what the
 * command sets beyond the output options), then --dump-cache.  started:
 * a replay's recording's start (its clock is the recording's), NULL live.
 * Returns the exit status.
 */
static int print_deltas(struct session *s, struct output_setup *out, struct watch_loop *loop,
			const struct command *cmd, const char *started)
{
	struct printer_opts po = {
		.out = stdout,
		.notices = o.quiet ? NULL : stderr,
		.color = use_color(o.color),
		.diff = o.diff,
		.events = o.events,
		.no_headers = o.no_headers,
		.show_kind = s->nr > 1,
		.progress = !o.quiet && isatty(STDERR_FILENO),
		.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0,
		.terminal = isatty(STDOUT_FILENO),
		.resources = s->nr,
		.format = &out->fmt,
		.crds = out->crds,
		.verbose = cluster_flags.verbose > 0,
		.controller = controller_flags.enabled,
	};
	/*
	 * Not a terminal: a pipe's worth of records per write(2).  stdio's
	 * own buffer (4 KiB on a pipe) took one write, and one wake-up of the
	 * reader, per 3 KiB pod of a synced list.  The loop flushes after each
	 * batch it drains, so no record waits for the buffer to fill.
	 */
	if (!po.terminal) {
		setvbuf(stdout, NULL, _IOFBF, STDOUT_BUFFER);
		grow_stdout_pipe();
	}
	struct printer *p = printer_new((enum output_format)out->output, &po);

	loop->session = s;
	loop->printer = p;
	loop->types = out->types;
	loop->watch_only = o.watch_only;
	loop->hide_unchanged = o.hide_unchanged;
	loop->max_deltas = o.max_deltas;
	loop->notices = o.quiet ? NULL : stderr;
	struct controller_run *ctl = controller_run_new(cmd, loop, !started,
		started ? controller_base_ms(started) : wall_ms() - mono_ms(), po.verbose);
	int ret = watch_loop_run(loop);
	session_stop(s);
	if (ctl && controller_run_finish(ctl) < 0 && ret == 0)
		ret = 1;
	controller_run_free(ctl);
	if (o.dump_cache && dump_cache(s, o.dump_cache) < 0 && ret == 0)
		ret = 1;
	if (*printer_error(p)) {
		error("%s", printer_error(p));
		ret = 1;
	}
	printer_free(p);
	return ret;
}

static int run_watch(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct session s;
	struct resource_args ra;
	struct output_setup out;
	struct recorder *rec = NULL;
	struct metrics_server ms;
	struct flight *flight = NULL;
	struct recording_info info;
	int ret = 1;

	argc = opt_parse(&command_watch, argc, argv);
	if (o.quiet && !cluster_flags.verbose)
		cluster_flags.verbose = -1;	/* the HTTP layer's notices too */
	resource_args_parse(&command_watch, argc, argv, false, &ra);
	parse_output(&command_watch, &out);
	if (o.record && o.tui)
		usage_error(&command_watch, "--record does not work with --tui");
	flight_flags_check(&command_watch, controller_flags.enabled);
	if (o.record && flight_flags.window_ms)
		usage_error(&command_watch, "--record does not work with --flight-recorder");
	metrics_flag_start(&command_watch, &ms);	/* a busy port: exit 2 here */

	struct session_opts so = informer_flags_session(&command_watch, ra.resource, ra.name);
	int64_t begun_ms = mono_ms(), waited_ms;
	if (informer_flags_open(&s, &so, o.timeout_ms, o.quiet, &waited_ms, &err) < 0) {
		error("%s", err.msg);
		goto out;
	}
	out.crds = crd_columns_new();
	printer_columns_load(out.crds, &s.cluster, s.resources, s.nr);
	informer_flags_recording_info(&s, &so, &info);
	flight = flight_flags_open(&s, &info);

	if (o.tui) {
		struct controller_opts co;
		bool controller = controller_flags_opts(&command_watch, &co);
		struct tui_opts to = { .resync_ms = informer_flags.resync_ms,
				       .controller = controller ? &co : NULL,
				       .hist_states = HIST_STATES,
				       .verify_every_ms = o.verify_every_ms,
				       .metrics = ms.metrics,
				       .crds = out.crds, .flight = flight,
				       .dump_on = flight_flags.dump_mask };
		ret = tui_run(&s, &to);
		flight_flags_finish(flight);
		goto close;
	}
	if (o.record) {
		rec = recorder_open(o.record, &info, &err);
		if (!rec) {
			error("%s", err.msg);
			goto close;
		}
		kclient_set_tap(s.cluster.client, &recorder_tap, rec);
	}

	struct watch_loop loop = {
		.timeout_ms = o.timeout_ms,
		/* refused discoveries took their share of it */
		.timeout_from_ms = waited_ms ? begun_ms : 0,
		.resync_ms = informer_flags.resync_ms,
		.verify_every_ms = o.verify_every_ms,
		.verify_lag_ms = o.lag_wait_ms,
		.metrics = ms.metrics,
		.health_every_ms = o.health_every_ms ? o.health_every_ms
				 : cluster_flags.verbose > 0 ? 30000 : 0,
		.name = ra.name,
		.flight = flight,
		.dump_on = flight_flags.dump_mask,
	};
	ret = print_deltas(&s, &out, &loop, &command_watch, NULL);
	if (recorder_close(rec, &err) < 0) {	/* the reflectors have stopped */
		error("%s", err.msg);
		ret = 1;
	}
close:
	session_close(&s);	/* the informers feed the flight: gone before it goes */
	flight_free(flight);
out:
	metrics_flag_stop(&ms);
	crd_columns_free(out.crds);
	format_release(&out.fmt);
	resource_args_release(&ra);
	return ret;
}

const struct command command_watch = {
	.name = "watch",
	.run = run_watch,
	.summary = "Print every delta the informers see",
	.usage = "kinf watch RESOURCE[,RESOURCE...] [NAME] | RESOURCE/NAME [options]",
	.description =
		"Starts one shared informer per resource (list, then watch, relisting\n"
		"when the server says the resourceVersion is too old) and prints every\n"
		"delta popped from its queue: Added, Updated, Deleted, Replaced, Sync.\n"
		"What the informer does (lists, re-watches, relists, backoff) is told\n"
		"on stderr; stdout has only deltas.",
	.examples =
		"  kinf watch pods -n default\n"
		"  kinf watch pods,deployments -A --diff\n"
		"  kinf watch pods -o json | jq -r 'select(.handler==\"OnDelete\") | .key'\n"
		"  kinf watch deploy/web --diff\n"
		"  kinf watch pods --resync 30s --types Sync,Updated\n"
		"  kinf watch pods -A --verify-every 1m\n",
	.options = watch_options,
	.positional = COMPLETE_RESOURCE,
};

/* ---- kinf replay ---------------------------------------------------------- */

static struct {
	const char *speed, *key, *at;
} r_o;

static const struct option replay_options[] = {
	OPT_STRING(0, "key", &r_o.key, "NAMESPACE/NAME",
		   "only this object's deltas, with what each changed: its story "
		   "(and with --controller, its records)", COMPLETE_NONE),
	OPT_STRING(0, "speed", &r_o.speed, "FACTOR",
		   "at the recorded pace, this many times faster (1: as recorded; default: at once)",
		   COMPLETE_NONE),
	OPT_STRING(0, "at", &r_o.at, "WHEN",
		   "trigger: replay a flight recorder's dump only as far as its trigger, and print "
		   "the trigger's keys as the cache had them, against the server", COMPLETE_NONE),
	OPT_STRING(0, "client-go", &informer_flags.client_go, "VERSION",
		   "replay as this client-go would have (default: the one recorded)",
		   COMPLETE_CLIENT_GO),
	{ .type = OPT_T_ENUM, .long_name = "fifo", .value = &informer_flags.fifo,
	  .argh = "KIND", .choices = informer_fifo_names,
	  .help = "override the queue: DeltaFIFO, RealFIFO, atomic" },
	OPT_INCLUDE(delta_output_options),
	OPT_COUNT_LEVEL('v', "verbose", &cluster_flags.verbose,
			"every informer activity notice (relists name their keys)",
			cluster_verbose_level),
	OPT_END(),
};

/* What the replay's callbacks reach (from the reflectors' threads). */
struct replay_ctx {
	struct session *session;	/* set before the informers start */
	int done_fd;			/* eventfd: every stream ended */
};

/*
 * Before each exchange: wait until the informers have taken in what came
 * before (their queues are empty, the deltas handed on), as they had by
 * then live, so that a relist compares the list with the same cache.
 */
static void replay_pace(void *ctx)
{
	struct replay_ctx *rctx = ctx;

	for (size_t i = 0; i < rctx->session->nr; i++) {
		struct informer_stats st;
		for (;;) {
			informer_get_stats(rctx->session->informers[i], &st);
			if (!st.fifo_depth || st.state == STATE_STOPPED)
				break;
			usleep(200);
		}
	}
}

static void replay_done(void *ctx)
{
	struct replay_ctx *rctx = ctx;
	uint64_t one = 1;

	if (write(rctx->done_fd, &one, sizeof(one)) < 0) {
		/* an eventfd's counter cannot overflow from one write */
	}
}

/* Reads replay's options (o and r_o); usage errors exit.  Returns --speed's factor. */
static double parse_replay_options(int argc, const char **argv, struct output_setup *out)
{
	double speed = 0;

	if (argc < 1)
		usage_error(&command_replay, "no recording given, e.g. 'kinf replay pods.rec'");
	if (argc > 1)
		usage_error(&command_replay, "unexpected argument '%s'", argv[1]);
	parse_output(&command_replay, out);
	if (r_o.speed) {
		char *end;
		speed = strtod(r_o.speed, &end);
		if (end == r_o.speed || *end || !(speed > 0) || speed > 1e6)
			usage_error(&command_replay, "invalid value '%s' for '--speed': expected "
				    "a factor above 0, e.g. 1 (as recorded) or 10", r_o.speed);
	}
	if (informer_flags.client_go) {	/* told before the file is read */
		struct errbuf perr = { "" };
		if (!profile_find(informer_flags.client_go, &perr))
			usage_error(&command_replay, "%s", perr.msg);
	}
	if (r_o.key && !*r_o.key)
		usage_error(&command_replay, "invalid value '' for '--key': expected "
			    "NAMESPACE/NAME, or NAME for a cluster-scoped object");
	if (r_o.key && !o.output)
		o.diff = true;	/* a story says what changed */
	if (r_o.at && strcmp(r_o.at, "trigger"))
		usage_error(&command_replay, "invalid value '%s' for '--at': expected trigger", r_o.at);
	return speed;
}

/*
 * The recorded session, unless told otherwise: its client-go and its
 * queue; another --client-go brings that generation's queue.
 */
/* *as_recorded: the informers are made as the recorded ones were. */
static struct session_opts replay_session_opts(const struct recording_info *info,
					       bool *as_recorded_out)
{
	bool as_recorded = !informer_flags.client_go && informer_flags.fifo < 0;
	*as_recorded_out = as_recorded;
	if (!informer_flags.client_go)
		informer_flags.client_go = info->client_go;
	struct session_opts so = informer_flags_session(&command_replay, NULL, NULL);
	const char *fifo = as_recorded ? info->fifo : NULL;
	for (int k = 0; fifo && informer_fifo_names[k]; k++) {
		if (!strcmp(fifo, informer_fifo_names[k])) {
			so.fifo_set = true;
			so.fifo = (enum fifo_kind)k;
		}
	}
	/* The server's answers say how it listed: replay lists the same way. */
	so.streaming_set = true;
	so.streaming_list = info->streaming_list;
	so.label_selector = info->label_selector;
	so.field_selector = info->field_selector;
	return so;
}

/*
 * A stream whose replay ended where the recording had no answer of the
 * kind asked (replay_diverged()): said as an error.  true: there was one.
 */
static bool say_divergence(struct replay *rp, const struct client_go_profile *profile)
{
	struct replay_divergence d;

	if (!replay_diverged(rp, &d))
		return false;
	const char *slash = strrchr(d.stream, '/');
	error("%s: at %.3f s client-go %s asks a %s, and the recording has a %s: "
	      "no answer to replay from there", slash ? slash + 1 : d.stream,
	      (double)d.t / 1000, profile->version, request_kind_name(d.asked),
	      request_kind_name(d.recorded));
	return true;
}

/* The session on a client that rp answers, named for the file; -1 with err. */
static int replay_session_open(struct session *s, const struct session_opts *so,
			       struct replay *rp, const struct recording_info *info,
			       const char *file, struct errbuf *err)
{
	char *what = xasprintf("the recording '%s'", file);
	struct cluster c = {
		.client = replay_client_new(rp, what),
		.ns = info->ns ? info->ns : "default",
		.scope_ns = info->ns,
	};

	free(what);
	kclient_set_verbose(c.client, cluster_flags.verbose);
	if (session_open_on(s, so, &c, info->resources, info->nr, err) < 0) {
		cluster_close(&c);
		return -1;
	}
	return 0;
}

/* A line of the recording's, escaped on one line (it is outside input). */
static void add_line(struct strbuf *out, const struct strbuf *line)
{
	strbuf_add_termsafe(out, line->buf, line->len, TERMSAFE_ONE_LINE);
	strbuf_addch(out, '\n');
}

/*
 * --at trigger: the trigger, then each of its keys as the cache has it
 * (its resourceVersion, or absent) against what the server had at the
 * trigger (the dump's serverRV; none in a dump before they were kept),
 * for every informer of the session: a line each, or with -o json one
 * JSON object, the trigger record with "cacheRV" the replayed cache's.
 * What the recording says is escaped: on one line, or as JSON on a
 * terminal is.
 */
static void print_trigger(struct session *s, struct json_object *trigger, bool json)
{
	struct json_object *keys = json_get_array(trigger, "keys");
	size_t n = keys ? json_object_array_length(keys) : 0;
	struct json_object *out = json_object_new_array();
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_addf(&line, "trigger: %s at %s, %zu key%s", json_get_str(trigger, "trigger", "?"),
		    json_get_str(trigger, "time", "?"), n, n == 1 ? "" : "s");
	if (!json)
		add_line(&text, &line);
	for (size_t i = 0; i < n; i++) {
		struct json_object *k = json_object_array_get_idx(keys, i);
		const char *key = json_get_str(k, "key", ""), *class = json_get_str(k, "class", "?");
		const char *srv = json_get_str(k, "serverRV", NULL);
		/* a dump that kept the sides: either member there (an extra has no serverRV) */
		bool sides = json_get(k, "serverRV") || json_get(k, "cacheRV");
		for (size_t j = 0; j < s->nr; j++) {
			struct kobj *obj = store_get(informer_store(s->informers[j]), key);
			struct json_object *row = json_object_new_object();
			json_object_object_add(row, "key", json_object_new_string(key));
			json_object_object_add(row, "class", json_object_new_string(class));
			if (s->nr > 1)
				json_object_object_add(row, "resource",
						       json_object_new_string(s->resources[j]->name));
			json_object_object_add(row, "cacheRV", obj ? json_object_new_string(obj->rv) : NULL);
			if (sides)
				json_object_object_add(row, "serverRV", srv ? json_object_new_string(srv) : NULL);
			json_object_array_add(out, row);
			strbuf_reset(&line);
			strbuf_addf(&line, "%s%s%s %s: cache %s%s%s%s%s", s->nr > 1 ? s->resources[j]->name : "",
				    s->nr > 1 ? " " : "", key, class, obj ? "rv " : "",
				    obj ? obj->rv : "absent", sides ? ", server " : "",
				    sides && srv ? "rv " : "", sides ? (srv ? srv : "absent") : "");
			if (!json)
				add_line(&text, &line);
			kobj_unref(obj);
		}
	}
	if (json) {
		struct json_object *t = json_object_new_object();
		json_object_object_add(t, "type", json_object_new_string("Trigger"));
		json_object_object_add(t, "trigger",
				       json_object_new_string(json_get_str(trigger, "trigger", "?")));
		json_object_object_add(t, "time",
				       json_object_new_string(json_get_str(trigger, "time", "")));
		json_object_object_add(t, "keys", json_object_get(out));
		const char *doc = json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
		if (isatty(STDOUT_FILENO))
			strbuf_add_termsafe(&text, doc, strlen(doc), TERMSAFE_JSON);
		else
			strbuf_adds(&text, doc);
		strbuf_addch(&text, '\n');
		json_object_put(t);
	}
	fwrite(text.buf, 1, text.len, stdout);
	fflush(stdout);
	json_object_put(out);
	strbuf_release(&text);
	strbuf_release(&line);
}

/*
 * A flight dump whose window outlived its lists starts from a checkpoint
 * kinf made, not from an answer of the server's: said before anything.
 */
static void say_reconstructed(const struct recording *rec)
{
	const char *stream;

	for (size_t i = 0; (stream = recording_reconstructed(rec, i)); i++) {
		char *safe = termsafe_dup(stream, TERMSAFE_ONE_LINE);
		fprintf(stderr, "kinf: replay: '%s' starts from a reconstructed checkpoint "
			"(kinf's cache at a point of the watch, not what the server sent)\n", safe);
		free(safe);
	}
}

static int run_replay(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct output_setup out;
	struct recording_info info;
	struct replay_ctx rctx = { .done_fd = -1 };
	struct replay *rp = NULL;
	struct session s = { 0 };
	int ret = 1;

	argc = opt_parse(&command_replay, argc, argv);
	double speed = parse_replay_options(argc, argv, &out);

	struct recording *recording = recording_load(argv[0], &err);
	if (!recording) {
		error("%s", err.msg);
		goto out;
	}
	if (recording_get_info(recording, &info, &err) < 0) {
		error("%s: %s", argv[0], err.msg);
		recording_free(recording);
		goto out;
	}
	if (recording_empty(recording)) {
		error("%s: the recording holds no request: nothing to replay", argv[0]);
		recording_free(recording);
		goto out;
	}
	bool as_recorded;
	struct session_opts so = replay_session_opts(&info, &as_recorded);
	struct json_object *trigger = recording_trigger(recording);
	say_reconstructed(recording);
	if (r_o.at && !trigger) {
		error("%s: no trigger: not a flight recorder's dump", argv[0]);
		recording_free(recording);
		goto out;
	}
	if (r_o.at)
		recording_cut(recording, json_object_get_int64(json_get(trigger, "t")));

	rctx.done_fd = eventfd(0, EFD_CLOEXEC);
	if (rctx.done_fd < 0)
		die("eventfd: %s", strerror(errno));
	struct replay_opts ro = {
		.speed = speed, .pace = replay_pace, .done = replay_done, .ctx = &rctx,
		/* another queue pops otherwise: the recorded pace means nothing to it */
		.marks = as_recorded,
	};
	rp = replay_new(recording, &ro);
	if (replay_session_open(&s, &so, rp, &info, argv[0], &err) < 0) {
		error("%s", err.msg);
		goto out;
	}
	rctx.session = &s;

	struct watch_loop loop = { .key = r_o.key, .done_fd = rctx.done_fd };
	ret = print_deltas(&s, &out, &loop, &command_replay, info.started ? info.started : "");
	if (!ret && say_divergence(rp, so.profile))
		ret = 1;
	/* what was open then was cut by kinf, not ended by the server */
	else if (!ret && !o.quiet)
		fprintf(stderr, "kinf: replay: the recording ends here\n");
	if (r_o.at && !ret)
		print_trigger(&s, trigger, out.output == OUTPUT_JSON);
	session_close(&s);
out:
	replay_free(rp);
	if (rctx.done_fd >= 0)
		close(rctx.done_fd);
	format_release(&out.fmt);
	return ret;
}

const struct command command_replay = {
	.name = "replay",
	.run = run_replay,
	.summary = "Run the informers again over a recording (watch --record)",
	.usage = "kinf replay FILE [options]",
	.description =
		"Runs the same reflector, queue and informer as the recording's watch\n"
		"did, answered from the file instead of a server, and prints the same\n"
		"deltas: at once, or at the recorded pace with --speed.  Decisions that\n"
		"depend on time (a very short watch, a silent one renewed) follow the\n"
		"recorded clock, and the queue is taken from at the recorded pace, so\n"
		"a DeltaFIFO merges what it merged live.  --client-go and --fifo show\n"
		"what another client-go would have handed the controller from the\n"
		"same server answers, as far as it asks what the recorded one asked\n"
		"(a resource's replay ends, status 1, where it asks a request of\n"
		"another kind); --key NAMESPACE/NAME prints one object's story.\n"
		"The recording's format is in kinf(1), RECORDINGS.",
	.examples =
		"  kinf watch pods --record pods.rec        # later, or elsewhere:\n"
		"  kinf replay pods.rec -o json | jq -c 'select(.handler==\"OnDelete\")'\n"
		"  kinf replay pods.rec --client-go 1.28 --events -o json\n"
		"  kinf replay pods.rec --key default/web-1\n"
		"  kinf replay pods.rec --speed 1\n",
	.options = replay_options,
	.positional = COMPLETE_FILE,
};
