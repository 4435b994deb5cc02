/* resource_args.c — TYPE [NAME...] and TYPE/NAME...; see the header. */
#include <stdlib.h>
#include <string.h>

#include "cli/resource_args.h"
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

/* argv[0..argc): TYPE/NAME each, as kubectl's words say when one is not. */
static void parse_tuples(const struct command *cmd, int argc, const char **argv,
			 struct resource_args *ra)
{
	ra->tuples = true;
	ra->owned = xcalloc((size_t)argc, sizeof(*ra->owned));
	for (int i = 0; i < argc; i++) {
		const char *slash = strchr(argv[i], '/');
		if (!slash)
			no_need(cmd, argv[0], argv[i]);
		if (slash == argv[i] || !slash[1] || strchr(slash + 1, '/') ||
		    memchr(argv[i], ',', (size_t)(slash - argv[i])))
			usage_error(cmd, "'%s': TYPE/NAME names one type and one object, "
				    "e.g. deploy/web", argv[i]);
		ra->owned[i] = xstrndup(argv[i], (size_t)(slash - argv[i]));
		ra->names[i] = (struct resource_name){ ra->owned[i], slash + 1 };
	}
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
	ra->names = xcalloc(n ? n : 1, sizeof(*ra->names));
	ra->nnames = n;
	if (tuples) {
		parse_tuples(cmd, argc, argv, ra);
	} else {
		check_types(cmd, argv[0]);
		if (n && !several && strchr(argv[0], ','))
			usage_error(cmd, "a NAME needs exactly one resource type");
		for (size_t i = 0; i < n; i++) {
			const char *name = argv[i + 1];
			if (strchr(name, '/'))
				no_need(cmd, argv[0], name);
			if (!*name)
				usage_error(cmd, "an object's name can't be empty");
			ra->names[i] = (struct resource_name){ argv[0], name };
		}
	}
	ra->resource = n ? ra->names[0].resource : argv[0];
	ra->name = n ? ra->names[0].name : NULL;
}

void resource_args_release(struct resource_args *ra)
{
	for (size_t i = 0; ra->tuples && i < ra->nnames; i++)
		free(ra->owned[i]);
	free(ra->owned);
	free(ra->names);
	*ra = (struct resource_args){ 0 };
}
