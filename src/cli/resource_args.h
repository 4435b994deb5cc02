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
	/*
	 * The types, each string once ("pods,pods,deploy" is "pods,deploy"),
	 * or with NAMEs the first's.
	 */
	const char *resource;
	const char *name;	/* the first object's name, or NULL */
	/*
	 * Every NAME, in the order kubectl's builder asks for them: TYPE
	 * NAME... gives each name TYPE; TYPES NAME... with several types is
	 * TYPE/NAME for each type and name, the types first (tuples);
	 * TYPE/NAME... each its own TYPE.  nnames 0: none.
	 */
	struct resource_name *names;
	size_t nnames;
	bool tuples;		/* TYPE/NAMEs, given so or made of TYPES NAME... */
	char **owned;		/* the strings above cut out of the arguments */
	size_t nowned;
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
