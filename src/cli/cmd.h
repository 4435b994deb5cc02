/*
 * cmd.h — the subcommands, one file each (cmd_watch.c, cmd_get.c, …),
 * dispatched from the table in main.c.  A command's run() returns the
 * process exit status: 0, 1 (a runtime failure, already reported on
 * stderr), EXIT_USAGE (2), EXIT_DIVERGENT (3: verify found the cache
 * unlike the server) or EXIT_INTERRUPTED (130).
 */
#ifndef KINF_CMD_H
#define KINF_CMD_H

#include <stdio.h>

#include "lib/opt.h"

#define EXIT_DIVERGENT 3

extern const struct command command_watch;
extern const struct command command_get;
extern const struct command command_verify;
extern const struct command command_replay;
extern const struct command command_tui;
extern const struct command command_api_resources;
extern const struct command command_version;
extern const struct command command_help;
extern const struct command command_complete;

/* The top-level help (cmd_help.c). */
void print_main_help(FILE *out);

#endif
