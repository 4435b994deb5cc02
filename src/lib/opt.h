/*
 * opt.h — one table per command gives the parser, `--help` and the shell
 * completions (through the hidden `kinf __complete`), so the three never
 * disagree.  The man page mirrors the same tables by hand.
 *
 *   static const struct option watch_options[] = {
 *       OPT_ENUM('o', "output", &o.output, "FORMAT", output_names, "..."),
 *       OPT_BOOL(0, "diff", &o.diff, "..."),
 *       OPT_INCLUDE(cluster_options),
 *       OPT_END(),
 *   };
 *
 * Syntax accepted, as kubectl and git accept it: `-n NS`, `-nNS`,
 * `--namespace NS`, `--namespace=NS`, bundled short booleans (`-Aw`),
 * `--flag=false`, `--` ending options; options and positionals may mix.
 * As pflag reads them: `-n=NS` is NS but `-n=` alone is "=", and an enum
 * given "" keeps its default, as kubectl's string flags do.
 */
#ifndef KINF_OPT_H
#define KINF_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_T_END,
	OPT_T_BOOL,	/* bool *; --flag, --flag=true|false */
	OPT_T_STRING,	/* const char **; repeated: last wins */
	OPT_T_LIST,	/* struct strbuf *; repeated: each value added, ','-separated */
	OPT_T_ARRAY,	/* struct opt_array *; repeated: each value kept whole */
	OPT_T_INT,	/* long *; a non-negative integer */
	OPT_T_DURATION,	/* int64_t * milliseconds; "5s", "1m30s", "250ms", a number of seconds */
	OPT_T_ENUM,	/* int *; index into choices; "" leaves it */
	OPT_T_COUNT,	/* int *; each use adds one (-v -v), or a level sets it */
	OPT_T_INCLUDE,	/* another table, spliced here */
};

/*
 * What the shell completes an option's argument (or a positional) with is
 * a name the program's completer knows ("file", "namespace", …; kinf's
 * are the COMPLETE_* of cli/cmd.h), or NULL for nothing.  The parser
 * only carries it: what a name means is the program's business.
 */

struct option {
	enum opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;		/* argument placeholder in --help */
	const char *help;
	const char *const *choices;	/* OPT_T_ENUM, NULL-terminated */
	const char *complete;		/* a completion name; NULL: none */
	const struct option *include;	/* OPT_T_INCLUDE */
	bool *seen;			/* if set: made true when given */
	/*
	 * OPT_T_COUNT: a number given with it, as kubectl's -v takes its
	 * level (-v=6, -v6, -v 6, --v=6, --v 6), sets the count to level(N);
	 * NULL: no number is taken.
	 */
	int (*level)(long n);
	/*
	 * OPT_T_INT: a negative number too.  OPT_T_DURATION: read as
	 * kubectl reads --request-timeout (parse_kubectl_timeout()): a
	 * negative duration with units ("-1s"), an integer of seconds,
	 * nothing for none.
	 */
	bool negative;
};

/* An OPT_ARRAY's values, in order, NULL-terminated (v is NULL while nr is 0). */
struct opt_array {
	const char **v;
	size_t nr;
};

/* Appends arg (kept, not copied), as a repeated flag does. */
void opt_array_add(struct opt_array *a, const char *arg);

#define OPT_END() { .type = OPT_T_END }
#define OPT_BOOL(s, l, v, h) \
	{ .type = OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
/* A boolean whose absence means "the default", told apart through *seen. */
#define OPT_BOOL_SEEN(s, l, v, seen_, h) \
	{ .type = OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), \
	  .help = (h), .seen = (seen_) }
#define OPT_STRING(s, l, v, a, h, c) \
	{ .type = OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .complete = (c) }
/* pflag's string slice: -L a -L b,c is "a,b,c". */
#define OPT_LIST(s, l, v, a, h, c) \
	{ .type = OPT_T_LIST, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .complete = (c) }
/* pflag's string array: -g a -g b,c is "a" and "b,c". */
#define OPT_ARRAY(s, l, v, a, h, c) \
	{ .type = OPT_T_ARRAY, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .complete = (c) }
#define OPT_INT(s, l, v, a, h) \
	{ .type = OPT_T_INT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h) }
/* An int that may be negative, as pflag's (kubectl's --chunk-size=-1). */
#define OPT_SIGNED(s, l, v, a, h) \
	{ .type = OPT_T_INT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), .negative = true }
#define OPT_DURATION(s, l, v, h) \
	{ .type = OPT_T_DURATION, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = "DURATION", .help = (h) }
#define OPT_SIGNED_DURATION(s, l, v, h) \
	{ .type = OPT_T_DURATION, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = "DURATION", .help = (h), .negative = true }
#define OPT_ENUM(s, l, v, a, ch, h) \
	{ .type = OPT_T_ENUM, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .choices = (ch), .help = (h) }
#define OPT_COUNT_LEVEL(s, l, v, h, fn) \
	{ .type = OPT_T_COUNT, .short_name = (s), .long_name = (l), .value = (v), .help = (h), \
	  .level = (fn) }
#define OPT_INCLUDE(t) { .type = OPT_T_INCLUDE, .include = (t) }

struct command {
	const char *name;
	int (*run)(int argc, const char **argv);
	const char *summary;		/* one line, for `kinf --help` */
	const char *usage;		/* "kinf watch RESOURCE[,RESOURCE...] [NAME] [options]" */
	const char *description;	/* a paragraph for `kinf help CMD`, may be NULL */
	const char *examples;		/* lines, may be NULL */
	const struct option *options;
	const char *positional;		/* what positionals complete to; NULL: none */
	bool hidden;
};

/*
 * The program's commands, NULL-terminated: main() registers its table
 * before anything else, so that help and completion (commands themselves)
 * can list them without reaching up to main.c.
 */
void opt_set_commands(const struct command *const *table);
const struct command *const *opt_commands(void);
const struct command *command_find(const char *name);

/*
 * Parses argv[1..argc) against cmd->options.  Positional arguments are
 * moved to the front of argv; returns how many.  `-h`/`--help` prints the
 * command's help and exits 0; a usage error prints one line naming the bad
 * argument and exits 2.
 */
int opt_parse(const struct command *cmd, int argc, const char **argv);

/*
 * What the program is called in help and usage messages: "kinf", or
 * "kubectl kinf" when run as the kubectl plugin kubectl-kinf.
 */
void opt_set_program(const char *name);
const char *opt_program(void);
/* `kinf help CMD` and `kinf CMD --help`. */
void opt_print_help(const struct command *cmd, FILE *out);

/* Calls fn for every option of the table, includes expanded. */
void opt_each(const struct option *opts,
	      void (*fn)(const struct option *opt, void *ctx), void *ctx);
/* The option of cmd that a word names alone ("--output", "-o"); NULL: none. */
const struct option *opt_named(const struct command *cmd, const char *word);
/* Whether the option takes a value (not a boolean or a count). */
bool opt_takes_value(const struct option *o);
/* A boolean option's value as pflag reads it: 1 (NULL too: no value), 0, -1 if neither. */
int opt_bool_value(const char *arg);

/* Exit status for usage errors, and the message that goes with it. */
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130
void usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), __noreturn__));
/*
 * `--help` and usage errors end the process with exit().  A program that
 * must outlive them (the option parser's fuzz target) installs a hook that
 * is called with the status instead and must not return (it longjmps
 * back); memory opt_parse() holds at that moment is on the stack only.
 * NULL restores exit().
 */
void opt_set_exit_hook(void (*hook)(int status));

#endif
