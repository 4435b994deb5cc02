/*
 * resource_args.h — kubectl's ways of naming what a command is about:
 * "pods", "pods,deploy", "deploy web" and "deploy/web" (as kubectl's
 * resource.Builder reads them, ResourceTypeOrNameArgs).  Shared by get
 * and watch, so they read arguments alike.
 */
#ifndef KINF_RESOURCE_ARGS_H
#define KINF_RESOURCE_ARGS_H

#include "lib/opt.h"

struct resource_args {
	const char *resource;	/* "pods" or "pods,deploy", as typed */
	const char *name;	/* one object's name, or NULL */
	char *owned;		/* the copy "deploy/web" was cut into */
};

/*
 * Reads the positional arguments left after the options: TYPE[,TYPE...]
 * [NAME] or TYPE/NAME.  A NAME with several types, a second argument
 * after TYPE/NAME, and an empty type or name are usage errors of cmd
 * (they exit).
 */
void resource_args_parse(const struct command *cmd, int argc, const char **argv,
			 struct resource_args *ra);
void resource_args_release(struct resource_args *ra);

#endif
