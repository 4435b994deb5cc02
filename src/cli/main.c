/*
 * main.c — kinf's entry point: global flags, then one subcommand from
 * the table below.
 */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "lib/opt.h"
#include "lib/util.h"

static const struct command *const commands[] = {
	&command_watch,
	&command_get,
	&command_verify,
	&command_replay,
	&command_tui,
	&command_api_resources,
	&command_version,
	&command_help,
	&command_complete,
	NULL,
};

int main(int argc, const char **argv)
{
	setlocale(LC_ALL, "");
	opt_set_commands(commands);
	/* Run as a kubectl plugin (kubectl kinf …), say so in usages. */
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "kubectl-kinf"))
		opt_set_program("kubectl kinf");
	/* Writes to a closed pipe fail with EPIPE and are handled there. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	else if (!strcmp(name, "--version"))
		name = "version";
	else if (name[0] == '-')
		usage_error(NULL, "unknown option '%s'; options come after the command", name);

	const struct command *cmd = command_find(name);
	if (!cmd)
		usage_error(NULL, "unknown command '%s'", name);
	return cmd->run(argc - 1, argv + 1);
}
