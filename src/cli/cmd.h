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

/*
 * The completion names of the option tables (lib/opt.h), and what
 * cmd_complete.c completes them with.  The cluster layer's table
 * (cluster_options) spells the names it uses itself: "namespace",
 * "context", "file".
 */
#define COMPLETE_NONE NULL
#define COMPLETE_FILE "file"		/* the shell completes files */
#define COMPLETE_RESOURCE "resource"	/* resource types, from the cluster */
#define COMPLETE_NAMESPACE "namespace"	/* namespaces, from the cluster */
#define COMPLETE_CONTEXT "context"	/* contexts, from the kubeconfig */
#define COMPLETE_DELTA_TYPES "delta-types"	/* Added,Updated,... comma list */
#define COMPLETE_COMMAND "command"	/* subcommand names */
#define COMPLETE_INDEX "index"		/* --index NAME=VALUE: names, then values */
#define COMPLETE_PREDICATES "predicates"	/* generation,labels|annotations: a,b and a|b */
#define COMPLETE_CLIENT_GO "client-go"	/* the client-go versions of informer/profile.h */
#define COMPLETE_CONTROLLER_RUNTIME "controller-runtime"	/* v0.15 ... v0.24 */
#define COMPLETE_DUMP_ON "dump-on"	/* --dump-on's triggers, a comma list */

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
