/*
 * cmd_complete.c — `kinf __complete WORD...`, the hidden helper behind the
 * bash, zsh and fish completions and kubectl_complete-kinf, kubectl's for
 * `kubectl kinf` (as git's `git __complete`).
 *
 * The words are the command line after "kinf"; the last is the word being
 * completed (possibly empty).  Candidates are printed one per line; the
 * shell filters them by prefix.  Everything comes from the option tables,
 * so the completions cannot drift from the parser; resource types,
 * namespaces and contexts come from the kubeconfig and the cluster, with a
 * short timeout so a slow cluster never hangs the shell.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cli/cmd.h"
#include "cli/flight_flags.h"
#include "controller/controller.h"
#include "controller/predicate.h"
#include "informer/delta.h"
#include "informer/profile.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/kubeconfig.h"
#include "lib/json_get.h"
#include "lib/opt.h"
#include "lib/strbuf.h"

#define COMPLETE_TIMEOUT_MS 2000

/*
 * For comma lists (--types Added,Del; pods,deploy) the word so far up to
 * its last comma: candidates are printed after it, so every shell can
 * match them against the whole word.
 */
static struct strbuf list_prefix = STRBUF_INIT;

/* Whether s is already one of the list's items (pods,deploy,<TAB>). */
static bool listed(const char *s)
{
	const char *p = strbuf_str(&list_prefix);
	size_t n = strlen(s);

	/* the part after an "=" (--types=Added,) is the list */
	if (p[0] == '-' && strchr(p, '='))
		p = strchr(p, '=') + 1;
	for (; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == n && !strncmp(p, s, n))
			return true;
	}
	return false;
}

static void candidate(const char *s)
{
	if (list_prefix.len && listed(s))
		return;
	printf("%s%s\n", strbuf_str(&list_prefix), s);
}

static void print_commands(void)
{
	for (const struct command *const *c = opt_commands(); *c; c++)
		if (!(*c)->hidden)
			puts((*c)->name);
}

static void print_option_cb(const struct option *o, void *ctx)
{
	const char *cur = ctx;
	if (o->long_name)
		printf("--%s\n", o->long_name);
	if (o->short_name && cur[0] == '-' && cur[1] != '-')
		printf("-%c\n", o->short_name);
}

/*
 * The option whose value the word holds, as opt_parse() reads it:
 * "--output=j", "-o=j", "-oj", "-Ao=j", and a boolean's
 * "--insecure-skip-tls-verify=false"; *value is where that value starts
 * in the word.  NULL if the word holds none ("-o", "-A", "pods").
 */
static const struct option *attached_value(const struct command *cmd, const char *word,
					   const char **value)
{
	const struct option *o;

	if (word[0] != '-' || !word[1])
		return NULL;
	if (word[1] == '-') {
		const char *eq = strchr(word, '=');
		if (!eq)
			return NULL;
		char *name = xstrndup(word, (size_t)(eq - word));
		o = opt_named(cmd, name);
		free(name);
		*value = eq + 1;
		return o && (opt_takes_value(o) || o->type == OPT_T_BOOL) ? o : NULL;
	}
	for (const char *p = word + 1; *p; p++) {	/* bundled: -Ao=j */
		char name[3] = { '-', *p, 0 };
		if (!(o = opt_named(cmd, name)))
			return NULL;
		if (opt_takes_value(o)) {
			*value = p + 1 + (p[1] == '=');
			return p[1] ? o : NULL;
		}
	}
	return NULL;
}

/* Whether an option's value is one of the connection's (cluster_flags.kc). */
static bool connection_flag(const struct option *o)
{
	const char *v = o->value, *kc = (const char *)&cluster_flags.kc;

	return v >= kc && v < kc + sizeof(cluster_flags.kc);
}

/*
 * Applies the connection flags of the words (--kubeconfig F, -n=NS, -s
 * URL, --token T, ...), as kubectl's completion builds its client from them.
 */
static void parse_cluster_flags(const struct command *cmd, int argc, const char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *val = NULL;
		const struct option *o = attached_value(cmd, argv[i], &val);
		if (!o && (o = opt_named(cmd, argv[i])) && opt_takes_value(o) && i + 1 < argc)
			val = argv[++i];
		if (!o)
			continue;
		if (o->type == OPT_T_BOOL && (connection_flag(o) ||
					      o->value == &cluster_flags.all_namespaces))
			*(bool *)o->value = opt_bool_value(val) > 0;
		else if (o->type == OPT_T_STRING && val && connection_flag(o))
			*(const char **)o->value = val;
		else if (o->value == &cluster_flags.as_groups && val)
			opt_array_add(o->value, val);
	}
}

static void print_contexts(void)
{
	struct kubeconfig_opts ko = { .kubeconfig = cluster_flags.kc.kubeconfig };
	char **names = NULL, *current = NULL;
	size_t nr = 0;
	struct errbuf err;
	if (kubeconfig_contexts(&ko, &names, &nr, &current, &err) < 0)
		return;
	free(current);
	for (size_t i = 0; i < nr; i++) {
		candidate(names[i]);
		free(names[i]);
	}
	free(names);
}

static void print_resources(void)
{
	struct cluster c;
	struct errbuf err;
	const struct api_resource **all;
	size_t nr;

	cluster_flags.request_timeout_ms = COMPLETE_TIMEOUT_MS;
	if (cluster_open(&c, &err) < 0)
		return;
	kclient_set_timeout(c.client, COMPLETE_TIMEOUT_MS);
	if (discovery_load(c.disco, &err) == 0) {
		discovery_all(c.disco, &all, &nr);
		for (size_t i = 0; i < nr; i++)
			if (api_resource_has_verb(all[i], "watch"))
				candidate(all[i]->name);
	}
	cluster_close(&c);
}

/* A candidate offered once: seen holds "\nvalue\n" for each one offered. */
static void candidate_once(struct strbuf *seen, const char *value)
{
	char *mark = xasprintf("\n%s\n", value);

	if (!strstr(strbuf_str(seen), mark)) {
		strbuf_adds(seen, mark);
		candidate(value);
	}
	free(mark);
}

/* What one object's metadata offers: its name, or (what) its labels or owners. */
static void object_candidates(json_object *meta, const char *what, struct strbuf *seen)
{
	json_object *v;

	if (!what) {
		if ((v = json_get(meta, "name")))
			candidate(json_object_get_string(v));
	} else if (!strcmp(what, "label")) {
		json_object *labels = json_get_object(meta, "labels");
		if (!labels)
			return;
		json_object_object_foreach(labels, k, lv) {
			char *kv = xasprintf("%s=%s", k, lv ? json_object_get_string(lv) : "");
			candidate_once(seen, kv);
			free(kv);
		}
	} else if (!strcmp(what, "owner") && (v = json_get_array(meta, "ownerReferences"))) {
		for (size_t j = 0; j < json_object_array_length(v); j++) {
			json_object *uid = json_get(json_object_array_get_idx(v, j), "uid");
			if (uid)
				candidate_once(seen, json_object_get_string(uid));
		}
	}
}

/*
 * The names of the objects of a resource in the namespace of the command
 * line (for a NAME positional), or, with what set, the values of an index
 * over them: "label" gives key=value, "owner" owner uids.  chunked: asked
 * with ?limit=500 (--namespace's completion asks without).
 */
static void print_objects(const char *resource, const char *what, bool chunked)
{
	struct cluster c;
	struct errbuf err;
	const struct api_resource **res = NULL;
	size_t nr;

	cluster_flags.request_timeout_ms = COMPLETE_TIMEOUT_MS;
	if (cluster_open(&c, &err) < 0)
		return;
	kclient_set_timeout(c.client, COMPLETE_TIMEOUT_MS);
	if (cluster_resolve(&c, resource, &res, &nr, &err) == 0 && nr == 1) {
		struct http_response resp = { 0 };
		char *base = api_resource_path(res[0], res[0]->namespaced ? c.scope_ns : NULL);
		char *path = xasprintf("%s%s", base, chunked ? "?limit=500" : "");
		if (kclient_get(c.client, path, &resp, &err) == 0 && resp.status == 200) {
			json_object *list = json_parse_deep(strbuf_str(&resp.body));
			json_object *items = json_get_array(list, "items");
			struct strbuf seen = STRBUF_INIT;
			for (size_t i = 0; items && i < json_object_array_length(items); i++) {
				json_object *meta = json_get(json_object_array_get_idx(items, i),
							     "metadata");
				if (meta)
					object_candidates(meta, what, &seen);
			}
			strbuf_release(&seen);
			json_object_put(list);
		}
		http_response_release(&resp);
		free(path);
		free(base);
	}
	free(res);
	cluster_close(&c);
}

/*
 * How many positionals the words before the one completed hold, and
 * *first the first of them (the resource), or NULL.
 */
static int positionals(const struct command *cmd, int argc, const char **argv,
		       const char **first)
{
	int n = 0;

	*first = NULL;
	for (int i = 1; i < argc - 1; i++) {
		const struct option *o = opt_named(cmd, argv[i]);
		if (argv[i][0] != '-') {
			if (!n++)
				*first = argv[i];
		} else if (o && opt_takes_value(o) && !strchr(argv[i], '=')) {
			i++;
		}
	}
	return n;
}

static const char *complete_resource;	/* for COMPLETE_INDEX */

/* --index: "namespace=", "node=", … then, after the "=", their values. */
static void print_index_candidates(const char *cur)
{
	static const char *const names[] = { "namespace", "node", "label", "owner" };
	const char *eq = strchr(cur, '=');

	if (!eq) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			char *s = xasprintf("%s=", names[i]);
			candidate(s);
			free(s);
		}
		return;
	}
	strbuf_add(&list_prefix, cur, (size_t)(eq - cur) + 1);
	char *name = xstrndup(cur, (size_t)(eq - cur));
	if (!strcmp(name, "namespace"))
		print_objects("namespaces", NULL, true);
	else if (!strcmp(name, "node"))
		print_objects("nodes", NULL, true);
	else if (complete_resource && (!strcmp(name, "label") || !strcmp(name, "owner")))
		print_objects(complete_resource, name, true);
	free(name);
}

static const char *complete_word;	/* the word being completed (after an "=") */
static const char *complete_word_start;	/* the whole word ("--predicate=" too) */

static void print_delta_types(void)
{
	for (int t = 0; t < DELTA__COUNT; t++)
		candidate(delta_type_name(t));
}

/*
 * --predicate's terms: after the last ',' (a new term, ANDed) or '|' (a
 * predicate ORed into the term), each predicate the term does not name.
 */
static void print_predicates(void)
{
	const char *w = complete_word ? complete_word : "";
	const char *sep = w + strlen(w), *term;

	while (sep > w && sep[-1] != ',' && sep[-1] != '|')
		sep--;
	term = sep;
	while (term > w && term[-1] != ',')
		term--;
	strbuf_reset(&list_prefix);	/* what the word holds up to sep, "--predicate=" too */
	strbuf_add(&list_prefix, complete_word_start, (size_t)(sep - complete_word_start));
	for (int k = 0; k < PRED__COUNT; k++) {
		const char *name = predicate_name((enum predicate_kind)k);
		size_t n = strlen(name);
		bool named = false;
		for (const char *p = term; p < sep && !named; p += strcspn(p, "|,") + 1)
			named = strcspn(p, "|,") == n && !strncmp(p, name, n);
		if (!named)
			candidate(name);
	}
}

static void print_namespaces(void)
{
	print_objects("namespaces", NULL, false);
}

static void print_index_names(void)
{
	print_index_candidates(complete_word ? complete_word : "");
}

static void print_file_marker(void)
{
	puts(":file");	/* tells the shell script to complete files */
}

/* Every version a profile stands for ("1.29-1.32": 1.29 to 1.32), in order. */
static void print_client_go_versions(void)
{
	bool minor[100] = { false };
	char v[16];

	for (const struct client_go_profile *const *p = client_go_profiles; *p; p++) {
		unsigned lo, hi;
		int n = sscanf((*p)->versions, "1.%u-1.%u", &lo, &hi);
		if (n < 1)
			continue;
		if (n < 2)
			hi = lo;
		for (unsigned m = lo; m <= hi && m < ARRAY_SIZE(minor); m++)
			minor[m] = true;
	}
	for (size_t m = 0; m < ARRAY_SIZE(minor); m++) {
		if (!minor[m])
			continue;
		snprintf(v, sizeof(v), "1.%zu", m);
		candidate(v);
	}
}

/* The controller-runtime versions --controller-runtime takes, oldest first. */
static void print_controller_runtime_versions(void)
{
	char v[16];

	for (int m = CONTROLLER_RUNTIME_OLDEST; m <= CONTROLLER_RUNTIME_NEWEST; m++) {
		snprintf(v, sizeof(v), "v0.%d", m);
		candidate(v);
	}
}

static void print_dump_on(void)
{
	for (const char *const *s = flight_dump_on_names; *s; s++)
		candidate(*s);
}

/* The completion names of cmd.h, and what each prints. */
static const struct {
	const char *name;
	void (*print)(void);
} completers[] = {
	{ COMPLETE_DELTA_TYPES, print_delta_types },
	{ COMPLETE_CONTEXT, print_contexts },
	{ COMPLETE_RESOURCE, print_resources },
	{ COMPLETE_NAMESPACE, print_namespaces },
	{ COMPLETE_COMMAND, print_commands },
	{ COMPLETE_INDEX, print_index_names },
	{ COMPLETE_PREDICATES, print_predicates },
	{ COMPLETE_FILE, print_file_marker },
	{ COMPLETE_CLIENT_GO, print_client_go_versions },
	{ COMPLETE_CONTROLLER_RUNTIME, print_controller_runtime_versions },
	{ COMPLETE_DUMP_ON, print_dump_on },
};

static void print_value_candidates(const struct option *o)
{
	if (o->choices) {
		for (int i = 0; o->choices[i]; i++)
			candidate(o->choices[i]);
		return;
	}
	for (size_t i = 0; o->complete && i < ARRAY_SIZE(completers); i++) {
		if (!strcmp(o->complete, completers[i].name)) {
			completers[i].print();
			return;
		}
	}
}

static int run_complete(int argc, const char **argv)
{
	/* argv[0] is "__complete"; the words follow.  No option parsing. */
	argv++, argc--;
	if (argc <= 1) {
		print_commands();
		return 0;
	}
	const struct command *cmd = command_find(argv[0]);
	if (!cmd || cmd->hidden)
		return 0;
	const char *cur = argv[argc - 1];
	const char *prev = argc >= 2 ? argv[argc - 2] : "";
	const char *comma = strrchr(cur, ',');
	if (comma)
		strbuf_add(&list_prefix, cur, (size_t)(comma - cur) + 1);

	parse_cluster_flags(cmd, argc - 1, argv);
	int npositional = positionals(cmd, argc, argv, &complete_resource);
	complete_word = complete_word_start = cur;
	/*
	 * "--output=j", "-o=j", "-oj": the value completes within the word
	 * (every shell's script hands the word whole), after the "=".
	 */
	const char *value;
	const struct option *ao = attached_value(cmd, cur, &value);
	if (ao && opt_takes_value(ao)) {
		if (!comma)
			strbuf_add(&list_prefix, cur, (size_t)(value - cur));
		complete_word = value;
		print_value_candidates(ao);
		return 0;
	}
	if (cur[0] == '-' && strchr(cur, '='))
		return 0;	/* an option unknown, or one without a value */
	const struct option *po = argc >= 3 ? opt_named(cmd, prev) : NULL;
	if (po && opt_takes_value(po)) {
		print_value_candidates(po);
		return 0;
	}
	if (cur[0] == '-') {
		opt_each(cmd->options, print_option_cb, (void *)cur);
		puts("--help");
		return 0;
	}
	/* A positional: the first (resource, command), and the NAMEs after a resource. */
	bool resource = cmd->positional && !strcmp(cmd->positional, COMPLETE_RESOURCE);
	bool several = strstr(cmd->usage, "[NAME...]");	/* get pods web db, get pods/web deploy/db */
	bool tuples = complete_resource && strchr(complete_resource, '/');
	const char *slash = resource && strstr(cmd->usage, "RESOURCE/NAME") &&
			    (npositional == 0 || (several && tuples)) ? strchr(cur, '/') : NULL;
	if (slash && !comma) {
		/* deploy/<TAB>: the objects, each as TYPE/NAME */
		char *type = xstrndup(cur, (size_t)(slash - cur));
		strbuf_add(&list_prefix, cur, (size_t)(slash - cur) + 1);
		print_objects(type, NULL, true);
		free(type);
	} else if (npositional == 0) {
		struct option fake = { .complete = cmd->positional };
		print_value_candidates(&fake);
		if (cmd == &command_get && !comma)
			candidate("all");	/* kubectl's category, alone */
	} else if ((npositional == 1 || several) && resource && strstr(cmd->usage, "[NAME") &&
		   complete_resource && !tuples && !strchr(complete_resource, ',')) {
		print_objects(complete_resource, NULL, true);	/* NAME */
	}
	return 0;
}

static const struct option complete_options[] = { OPT_END() };

const struct command command_complete = {
	.name = "__complete",
	.run = run_complete,
	.summary = "List completions for the words given (for shell scripts)",
	.usage = "kinf __complete WORD...",
	.options = complete_options,
	.hidden = true,
};
