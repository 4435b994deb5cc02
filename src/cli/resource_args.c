/* resource_args.c — RESOURCE [NAME] and RESOURCE/NAME; see the header. */
#include <stdlib.h>
#include <string.h>

#include "cli/resource_args.h"
#include "lib/util.h"

void resource_args_parse(const struct command *cmd, int argc, const char **argv,
			 struct resource_args *ra)
{
	const char *slash;

	*ra = (struct resource_args){ 0 };
	if (argc < 1)
		usage_error(cmd, "no resource type given, e.g. 'kinf %s pods'", cmd->name);
	slash = strchr(argv[0], '/');
	if (slash) {
		/* kubectl's words for the ways TYPE/NAME can go wrong */
		if (argc > 1)
			usage_error(cmd, "there is no need to give a resource type as a separate "
				    "argument with TYPE/NAME: '%s' and '%s'", argv[0], argv[1]);
		if (slash == argv[0] || !slash[1] || strchr(slash + 1, '/') ||
		    memchr(argv[0], ',', (size_t)(slash - argv[0])))
			usage_error(cmd, "'%s': TYPE/NAME names one type and one object, "
				    "e.g. deploy/web", argv[0]);
		ra->owned = xstrndup(argv[0], (size_t)(slash - argv[0]));
		ra->resource = ra->owned;
		ra->name = slash + 1;
		return;
	}
	if (argc > 2)
		usage_error(cmd, "unexpected argument '%s'", argv[2]);
	if (!*argv[0] || argv[0][strlen(argv[0]) - 1] == ',' || *argv[0] == ',' ||
	    strstr(argv[0], ",,"))
		usage_error(cmd, "'%s': resource types are separated by single commas, "
			    "e.g. pods,deploy", argv[0]);
	ra->resource = argv[0];
	if (argc == 2) {
		if (strchr(argv[0], ','))
			usage_error(cmd, "a NAME needs exactly one resource type");
		if (!*argv[1])
			usage_error(cmd, "an object's name can't be empty");
		ra->name = argv[1];
	}
}

void resource_args_release(struct resource_args *ra)
{
	free(ra->owned);
	ra->owned = NULL;
}
