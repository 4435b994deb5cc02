/*
 * resource_args.h — kubectl's ways of naming what a command is about:
 * "pods", "pods,deploy", "deploy web", "deploy web db" and "deploy/web"
 * (as kubectl's resource.Builder reads them, ResourceTypeOrNameArgs).
 * Shared by get and watch, so they read arguments alike.
 */
#ifndef KINF_RESOURCE_ARGS_H
#define KINF_RESOURCE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/opt.h"

/* Objects asked for by name: their types, as typed ("pods,deploy"), and a name. */
struct resource_name {
	const char *resource;
	const char *name;
};

struct resource_args {
	const char *resource;	/* "pods" or "pods,deploy", as typed (TYPE/NAME: the first's) */
	const char *name;	/* the first object's name, or NULL */
	/*
	 * Every NAME, in the order typed: TYPES NAME... gives each name
	 * TYPES; TYPE/NAME... each its own TYPE.  nnames 0: none.
	 */
	struct resource_name *names;
	size_t nnames;
	bool tuples;		/* given as TYPE/NAME */
	char **owned;		/* the TYPEs cut out of TYPE/NAME */
};

/*
 * Reads the positional arguments left after the options: TYPE[,TYPE...]
 * [NAME...] or TYPE/NAME...  With several false, at most one NAME, and
 * only with one TYPE.  An empty type or name, and TYPE/NAME beside
 * anything else, are usage errors of cmd (they exit).
 */
void resource_args_parse(const struct command *cmd, int argc, const char **argv,
			 bool several, struct resource_args *ra);
void resource_args_release(struct resource_args *ra);

#endif
