/* resource_args.c — TYPE [NAME...] and TYPE/NAME...; see the header. */
#include <stdlib.h>
#include <string.h>

#include "cli/resource_args.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* kubectl's words for TYPE/NAME beside anything else */
static void no_need(const struct command *cmd, const char *a, const char *b)
{
	usage_error(cmd, "there is no need to give a resource type as a separate argument "
		    "with TYPE/NAME: '%s' and '%s'", a, b);
}

static void check_types(const struct command *cmd, const char *types)
{
	if (!*types || types[strlen(types) - 1] == ',' || *types == ',' || strstr(types, ",,"))
		usage_error(cmd, "'%s': resource types are separated by single commas, "
			    "e.g. pods,deploy", types);
}

/* Keeps str for as long as ra: returns it. */
static char *own(struct resource_args *ra, char *str)
{
	ra->owned = xrealloc(ra->owned, (ra->nowned + 1) * sizeof(*ra->owned));
	return ra->owned[ra->nowned++] = str;
}

/* argv[0..argc): TYPE/NAME each, as kubectl's words say when one is not. */
static void parse_tuples(const struct command *cmd, int argc, const char **argv,
			 struct resource_args *ra)
{
	ra->tuples = true;
	ra->nnames = (size_t)argc;
	ra->names = xcalloc((size_t)argc, sizeof(*ra->names));
	for (int i = 0; i < argc; i++) {
		const char *slash = strchr(argv[i], '/');
		if (!slash)
			no_need(cmd, argv[0], argv[i]);
		if (slash == argv[i] || !slash[1] || strchr(slash + 1, '/') ||
		    memchr(argv[i], ',', (size_t)(slash - argv[i])))
			usage_error(cmd, "'%s': TYPE/NAME names one type and one object, "
				    "e.g. deploy/web", argv[i]);
		ra->names[i] = (struct resource_name){
			own(ra, xstrndup(argv[i], (size_t)(slash - argv[i]))), slash + 1
		};
	}
}

/*
 * TYPES split on commas, each string once, as kubectl's
 * SplitResourceArgument splits them ("pods,pods" is one, "po,pods" two):
 * into v[], room for one more than types has commas.  Returns how many;
 * each is owned by ra.
 */
static size_t split_types(struct resource_args *ra, const char *types, const char **v)
{
	size_t n = 0;

	for (const char *p = types;; p++) {
		size_t len = strcspn(p, ",");
		size_t i = 0;
		while (i < n && (strlen(v[i]) != len || memcmp(v[i], p, len)))
			i++;
		if (i == n)
			v[n++] = own(ra, xstrndup(p, len));
		p += len;
		if (!*p)
			return n;
	}
}

/*
 * TYPES NAME...: with several TYPES, TYPE/NAME for each type and name,
 * the types first, as kubectl's normalizeMultipleResourcesArgs makes
 * them (a GET each, "po,pods web" twice).
 */
static void parse_names(const struct command *cmd, int argc, const char **argv, bool several,
			struct resource_args *ra)
{
	size_t n = (size_t)argc - 1, ntypes = 1;
	const char **types;
	struct strbuf joined = STRBUF_INIT;

	check_types(cmd, argv[0]);
	for (const char *c = argv[0]; (c = strchr(c, ',')); c++)
		ntypes++;
	types = xcalloc(ntypes, sizeof(*types));
	ntypes = split_types(ra, argv[0], types);
	if (n && !several && ntypes > 1)
		usage_error(cmd, "a NAME needs exactly one resource type");
	for (size_t t = 0; t < ntypes; t++)
		strbuf_addf(&joined, "%s%s", t ? "," : "", types[t]);
	ra->resource = own(ra, strbuf_detach(&joined, NULL));
	ra->tuples = n && ntypes > 1;
	ra->nnames = n * ntypes;
	ra->names = xcalloc(ra->nnames ? ra->nnames : 1, sizeof(*ra->names));
	for (size_t i = 0; i < n; i++) {
		const char *name = argv[i + 1];
		if (strchr(name, '/'))
			no_need(cmd, argv[0], name);
		if (!*name)
			usage_error(cmd, "an object's name can't be empty");
		for (size_t t = 0; t < ntypes; t++)
			ra->names[t * n + i] = (struct resource_name){ types[t], name };
	}
	free(types);
}

void resource_args_parse(const struct command *cmd, int argc, const char **argv,
			 bool several, struct resource_args *ra)
{
	*ra = (struct resource_args){ 0 };
	if (argc < 1)
		usage_error(cmd, "no resource type given, e.g. 'kinf %s pods'", cmd->name);
	bool tuples = strchr(argv[0], '/');
	size_t n = tuples ? (size_t)argc : (size_t)argc - 1;

	if (!several && tuples && argc > 1)
		no_need(cmd, argv[0], argv[1]);
	if (!several && n > 1)
		usage_error(cmd, "unexpected argument '%s'", argv[2]);
	if (tuples)
		parse_tuples(cmd, argc, argv, ra);
	else
		parse_names(cmd, argc, argv, several, ra);
	if (ra->nnames) {
		ra->resource = ra->names[0].resource;
		ra->name = ra->names[0].name;
	}
}

void resource_args_release(struct resource_args *ra)
{
	for (size_t i = 0; i < ra->nowned; i++)
		free(ra->owned[i]);
	free(ra->owned);
	free(ra->names);
	*ra = (struct resource_args){ 0 };
}
