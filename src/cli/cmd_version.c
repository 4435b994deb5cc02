/* cmd_version.c — `kinf version` (and `kinf --version`). */
#include <stdio.h>

#include "cli/cmd.h"
#include "lib/opt.h"

static int run_version(int argc, const char **argv)
{
	if (opt_parse(&command_version, argc, argv) > 0)
		usage_error(&command_version, "unexpected argument '%s'", argv[0]);
	printf("kinf %s\n", KINF_VERSION);
	return 0;
}

static const struct option version_options[] = { OPT_END() };

const struct command command_version = {
	.name = "version",
	.run = run_version,
	.summary = "Print kinf's version",
	.usage = "kinf version",
	.options = version_options,
};
