/*
 * main.c — kinf's entry point: global flags, then one subcommand from
 * the table below.
 */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "util.h"

const struct command *const commands[] = {
	&command_watch,
	&command_get,
	&command_tui,
	&command_api_resources,
	&command_version,
	&command_help,
	&command_complete,
	NULL,
};

void print_main_help(FILE *out)
{
	fputs("usage: kinf [--version] [--help] COMMAND [ARGS]\n\n"
	      "Run Kubernetes informers and watch what they see: every delta,\n"
	      "the informer's cache, its list/watch/relist/resync activity.\n\n"
	      "commands:\n", out);
	for (const struct command *const *c = commands; *c; c++)
		if (!(*c)->hidden)
			fprintf(out, "  %-14s %s\n", (*c)->name, (*c)->summary);
	fputs("\nRun 'kinf help COMMAND' or 'kinf COMMAND --help' for a command's options.\n"
	      "kinf reads kubeconfig as kubectl does; see kinf(1).\n", out);
}

int main(int argc, const char **argv)
{
	setlocale(LC_ALL, "");
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
