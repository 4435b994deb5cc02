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
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/discovery.h"
#include "cli/cmd.h"
#include "cli/informer_flags.h"
#include "cli/printer_columns.h"
#include "cli/resource_args.h"
#include "output/format.h"
#include "output/printer.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/strbuf.h"
#include "tui/tui.h"
#include "tui/tui_model.h"
#include "cli/watch_loop.h"

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
	const char *types, *dump_cache;
	int64_t timeout_ms, verify_every_ms, lag_wait_ms;
	long max_deltas;
	int color;
} o = { .lag_wait_ms = 10000 };

static const struct option watch_options[] = {
	{ .type = OPT_T_STRING, .short_name = 'o', .long_name = "output", .value = &o.output,
	  .argh = "FORMAT", .choices = output_names, .help = "output format" },
	OPT_STRING(0, "types", &o.types, "TYPES",
		   "only these delta types, e.g. Added,Deleted", COMPLETE_DELTA_TYPES),
	OPT_BOOL(0, "hide-unchanged", &o.hide_unchanged,
		 "hide updates whose resourceVersion did not change (after a relist, a resync)"),
	OPT_BOOL(0, "watch-only", &o.watch_only,
		 "hide the initial list's deltas"),
	OPT_BOOL(0, "diff", &o.diff,
		 "show what each update changed"),
	OPT_BOOL(0, "events", &o.events,
		 "with -o json: also print informer activity records (Relist, ...)"),
	OPT_INT(0, "max-deltas", &o.max_deltas, "N",
		"exit after printing N deltas (1 if an informer never listed)"),
	OPT_DURATION(0, "timeout", &o.timeout_ms,
		     "exit after this long (1 if an informer has not synced)"),
	OPT_DURATION(0, "verify-every", &o.verify_every_ms,
		     "check the cache against a LIST from the server this often (see kinf verify)"),
	OPT_DURATION(0, "lag-wait", &o.lag_wait_ms,
		     "with --verify-every: wait this long for the informer to reach the list (default 10s)"),
	OPT_BOOL(0, "no-headers", &o.no_headers,
		 "no column headers"),
	OPT_ENUM(0, "color", &o.color, "WHEN", color_names,
		 "colour delta types (auto: on a terminal, unless NO_COLOR is set)"),
	OPT_BOOL(0, "tui", &o.tui,
		 "show the live terminal UI instead of lines"),
	OPT_STRING(0, "dump-cache", &o.dump_cache, "FILE",
		   "on exit, write the Indexer's keys and resourceVersions to FILE as JSON",
		   COMPLETE_FILE),
	OPT_BOOL('q', "quiet", &o.quiet,
		 "no informer activity notices on stderr"),
	OPT_INCLUDE(informer_flag_options),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

/* Parses --types into a mask of delta types; -1 on an unknown name. */
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
	FILE *f = fopen(file, "w");
	if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len) {
		error("cannot write '%s': %s", file, strerror(errno));
		ret = -1;
	}
	if (f && fclose(f) != 0 && !ret) {
		error("cannot write '%s': %s", file, strerror(errno));
		ret = -1;
	}
	strbuf_release(&sb);
	return ret;
}

static int run_watch(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct session s;
	struct resource_args ra;
	unsigned types = 0;
	const char *bad;
	int ret = 1;

	argc = opt_parse(&command_watch, argc, argv);
	resource_args_parse(&command_watch, argc, argv, &ra);
	if (o.types && parse_types(o.types, &types, &bad) < 0)
		usage_error(&command_watch, "unknown delta type '%s' in --types "
			    "(Added, Updated, Deleted, Replaced, Sync, ReplacedAll, SyncAll)", bad);
	/* line, wide, json, name: the printer's own; the rest kubectl's */
	struct format fmt = { 0 };
	int output = output_format_parse(o.output ? o.output : "line");
	if (output < 0 || output == OUTPUT_OBJECT) {
		struct errbuf ferr = { "" };
		if (format_parse(&fmt, o.output, "line", &ferr) < 0)
			usage_error(&command_watch, "%s", ferr.msg);
		if (fmt.kind != FORMAT_YAML && fmt.kind != FORMAT_JSONPATH &&
		    fmt.kind != FORMAT_CUSTOM_COLUMNS)
			usage_error(&command_watch, "invalid value '%s' for '--output': expected "
				    "line, wide, json, name, yaml, jsonpath=, custom-columns=", o.output);
		output = OUTPUT_OBJECT;
	}
	if (o.verify_every_ms && o.tui)
		usage_error(&command_watch, "--verify-every does not work with --tui");
	if (o.events && output != OUTPUT_JSON)
		usage_error(&command_watch, "--events needs -o json");

	struct session_opts so = informer_flags_session(&command_watch, ra.resource, ra.name);
	if (session_open(&s, &so, &err) < 0) {
		error("%s", err.msg);
		format_release(&fmt);
		resource_args_release(&ra);
		return 1;
	}
	printer_columns_load(&s.cluster, s.resources, s.nr);

	if (o.tui) {
		struct tui_opts to = { .resync_ms = informer_flags.resync_ms,
				       .hist_states = HIST_STATES };
		ret = tui_run(&s, &to);
		format_release(&fmt);
		session_close(&s);
		resource_args_release(&ra);
		return ret;
	}

	struct printer_opts po = {
		.out = stdout,
		.notices = o.quiet ? NULL : stderr,
		.color = use_color(o.color),
		.diff = o.diff,
		.events = o.events,
		.no_headers = o.no_headers,
		.show_kind = s.nr > 1,
		.progress = !o.quiet && isatty(STDERR_FILENO),
		.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0,
		.resources = s.nr,
		.format = &fmt,
		.verbose = cluster_flags.verbose > 0,
	};
	struct printer *p = printer_new((enum output_format)output, &po);
	struct watch_loop loop = {
		.session = &s,
		.printer = p,
		.types = types,
		.watch_only = o.watch_only,
		.hide_unchanged = o.hide_unchanged,
		.max_deltas = o.max_deltas,
		.timeout_ms = o.timeout_ms,
		.resync_ms = informer_flags.resync_ms,
		.verify_every_ms = o.verify_every_ms,
		.verify_lag_ms = o.lag_wait_ms,
		.name = ra.name,
		.notices = o.quiet ? NULL : stderr,
	};
	ret = watch_loop_run(&loop);
	if (o.dump_cache) {
		session_stop(&s);
		if (dump_cache(&s, o.dump_cache) < 0 && ret == 0)
			ret = 1;
	}
	if (*printer_error(p)) {
		error("%s", printer_error(p));
		ret = 1;
	}
	printer_free(p);
	format_release(&fmt);
	session_close(&s);
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
		"  kinf watch pods -o json | jq -r 'select(.type==\"Deleted\") | .key'\n"
		"  kinf watch deploy/web --diff\n"
		"  kinf watch pods --resync 30s --types Sync,Updated\n"
		"  kinf watch pods -A --verify-every 1m\n",
	.options = watch_options,
	.positional = COMPLETE_RESOURCE,
};
