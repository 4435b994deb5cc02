/* cmd_help.c — `kinf help [COMMAND]`. */
#include <stdio.h>

#include "cli/cmd.h"
#include "lib/opt.h"

void print_main_help(FILE *out)
{
	fprintf(out, "usage: %s [--version] [--help] COMMAND [ARGS]\n\n"
		"Run Kubernetes informers and watch what they see: every delta,\n"
		"the informer's cache, its list/watch/relist/resync activity.\n\n"
		"commands:\n", opt_program());
	for (const struct command *const *c = opt_commands(); *c; c++)
		if (!(*c)->hidden)
			fprintf(out, "  %-14s %s\n", (*c)->name, (*c)->summary);
	fprintf(out, "\nRun '%s help COMMAND' or '%s COMMAND --help' for a command's options.\n"
		"kinf reads kubeconfig as kubectl does; see kinf(1).\n", opt_program(), opt_program());
}

static int run_help(int argc, const char **argv)
{
	argc = opt_parse(&command_help, argc, argv);
	if (argc == 0) {
		print_main_help(stdout);
		return 0;
	}
	if (argc > 1)
		usage_error(&command_help, "unexpected argument '%s'", argv[1]);
	const struct command *cmd = command_find(argv[0]);
	if (!cmd)
		usage_error(&command_help, "unknown command '%s'", argv[0]);
	opt_print_help(cmd, stdout);
	return 0;
}

static const struct option help_options[] = { OPT_END() };

const struct command command_help = {
	.name = "help",
	.run = run_help,
	.summary = "Show help for kinf or one of its commands",
	.usage = "kinf help [COMMAND]",
	.options = help_options,
	.positional = COMPLETE_COMMAND,
};
