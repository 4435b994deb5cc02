/* opt.c — the option parser and help printer; see opt.h. */
#include "lib/opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdnoreturn.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"

static const struct command *const no_commands[] = { NULL };
static const struct command *const *commands = no_commands;

void opt_set_commands(const struct command *const *table)
{
	commands = table;
}

const struct command *const *opt_commands(void)
{
	return commands;
}

const struct command *command_find(const char *name)
{
	for (const struct command *const *c = commands; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

static void (*exit_hook)(int status);

void opt_set_exit_hook(void (*hook)(int status))
{
	exit_hook = hook;
}

static noreturn void opt_exit(int status)
{
	if (exit_hook)
		exit_hook(status);
	exit(status);
}

void usage_error(const struct command *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	termsafe_line(msg, sizeof(msg));
	if (cmd)
		fprintf(stderr, "error: %s (see '%s %s --help')\n", msg, opt_program(), cmd->name);
	else
		fprintf(stderr, "error: %s (see '%s --help')\n", msg, opt_program());
	opt_exit(EXIT_USAGE);
}

void opt_each(const struct option *opts,
	      void (*fn)(const struct option *opt, void *ctx), void *ctx)
{
	for (const struct option *o = opts; o && o->type != OPT_T_END; o++) {
		if (o->type == OPT_T_INCLUDE)
			opt_each(o->include, fn, ctx);
		else
			fn(o, ctx);
	}
}

struct find {
	const char *long_name;	/* match by long name (len chars) ... */
	size_t len;
	char short_name;	/* ... or by short name */
	const struct option *found;
};

static void find_cb(const struct option *o, void *ctx)
{
	struct find *f = ctx;
	if (f->found)
		return;
	if (f->long_name ? (o->long_name && strlen(o->long_name) == f->len &&
			    !strncmp(o->long_name, f->long_name, f->len))
			 : (o->short_name && o->short_name == f->short_name))
		f->found = o;
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	struct find f = { .long_name = name, .len = len };
	opt_each(opts, find_cb, &f);
	return f.found;
}

static const struct option *find_short(const struct option *opts, char c)
{
	struct find f = { .short_name = c };
	opt_each(opts, find_cb, &f);
	return f.found;
}

bool opt_takes_value(const struct option *o)
{
	return o->type != OPT_T_BOOL && o->type != OPT_T_COUNT;
}

const struct option *opt_named(const struct command *cmd, const char *word)
{
	if (word[0] == '-' && word[1] == '-')
		return find_long(cmd->options, word + 2, strlen(word + 2));
	if (word[0] == '-' && word[1] && !word[2])
		return find_short(cmd->options, word[1]);
	return NULL;
}

static void opt_name(const struct option *o, char buf[64], bool as_long)
{
	if (as_long && o->long_name)
		snprintf(buf, 64, "--%s", o->long_name);
	else
		snprintf(buf, 64, "-%c", o->short_name);
}

int opt_bool_value(const char *arg)
{
	/* pflag's strconv.ParseBool */
	static const char *const bool_true[] = { "1", "t", "T", "TRUE", "true", "True", NULL };
	static const char *const bool_false[] = { "0", "f", "F", "FALSE", "false", "False", NULL };

	return !arg || strv_has(bool_true, arg) ? 1 : strv_has(bool_false, arg) ? 0 : -1;
}

/* A count's level (opt.h): digits, a few of them. */
static bool is_level(const char *s)
{
	size_t n = strspn(s, "0123456789");
	return n && n <= 9 && !s[n];
}

void opt_array_add(struct opt_array *a, const char *arg)
{
	a->v = xrealloc(a->v, (a->nr + 2) * sizeof(*a->v));
	a->v[a->nr++] = arg;
	a->v[a->nr] = NULL;
}

/* Stores arg into o's value; exits with a usage error when it's invalid. */
static void set_value(const struct command *cmd, const struct option *o,
		      const char *arg, bool as_long)
{
	char name[64];
	opt_name(o, name, as_long);

	if (o->seen)
		*o->seen = true;
	switch (o->type) {
	case OPT_T_BOOL: {
		int b = opt_bool_value(arg);
		if (b < 0)
			usage_error(cmd, "invalid value '%s' for '%s': expected true or false", arg, name);
		*(bool *)o->value = b;
		break;
	}
	case OPT_T_COUNT:
		if (!arg) {
			(*(int *)o->value)++;
		} else if (!o->level) {
			usage_error(cmd, "option '%s' takes no value", name);
		} else if (!is_level(arg)) {
			usage_error(cmd, "invalid value '%s' for '%s': expected a level, as kubectl's "
				    "-v takes (0, 6, 9, ...)", arg, name);
		} else {
			*(int *)o->value = o->level(strtol(arg, NULL, 10));
		}
		break;
	case OPT_T_STRING:
		*(const char **)o->value = arg;
		break;
	case OPT_T_LIST: {
		struct strbuf *sb = o->value;
		if (sb->len)
			strbuf_addch(sb, ',');
		strbuf_adds(sb, arg);
		break;
	}
	case OPT_T_ARRAY:
		opt_array_add(o->value, arg);
		break;
	case OPT_T_INT: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || errno || (v < 0 && !o->negative))
			usage_error(cmd, "invalid value '%s' for '%s': expected a%s integer", arg, name,
				    o->negative ? "n" : " non-negative");
		*(long *)o->value = v;
		break;
	}
	case OPT_T_DURATION:
		if ((o->negative ? parse_kubectl_timeout : parse_duration)(arg, o->value) < 0)
			usage_error(cmd, "invalid duration '%s' for '%s': expected e.g. 30s, 5m, 1h30m", arg, name);
		break;
	case OPT_T_ENUM:
		if (!*arg)
			break;	/* as kubectl's string flags take "": the default */
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], arg)) {
				*(int *)o->value = i;
				return;
			}
		}
		{
			/* On the stack: the exit hook may longjmp past a free. */
			char list[256] = "";
			size_t n = 0;
			for (int i = 0; o->choices[i] && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      i ? ", " : "", o->choices[i]);
			usage_error(cmd, "invalid value '%s' for '%s': expected one of %s", arg, name, list);
		}
		break;
	case OPT_T_END:
	case OPT_T_INCLUDE:
		break;
	}
}

int opt_parse(const struct command *cmd, int argc, const char **argv)
{
	int npos = 0;
	bool only_positional = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_positional || arg[0] != '-' || !arg[1]) {
			argv[npos++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_positional = true;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			opt_print_help(cmd, stdout);
			opt_exit(0);
		}
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct option *o = find_long(cmd->options, name, len);
			if (!o)
				usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
			const char *val = eq ? eq + 1 : NULL;
			if (!val && o->level && i + 1 < argc && is_level(argv[i + 1]))
				val = argv[++i];	/* --v 6 */
			if (!val && opt_takes_value(o)) {
				if (i + 1 >= argc)
					usage_error(cmd, "option '--%s' requires a value", o->long_name);
				val = argv[++i];
			}
			set_value(cmd, o, val, true);
			continue;
		}
		/* Short options, possibly bundled: -Aw, -nNS, -n NS. */
		for (const char *p = arg + 1; *p; p++) {
			const struct option *o = find_short(cmd->options, *p);
			if (!o)
				usage_error(cmd, "unknown option '-%c'", *p);
			if (!opt_takes_value(o)) {
				/* -w=false, as pflag takes it */
				if (p[1] == '=' && o->type == OPT_T_BOOL) {
					set_value(cmd, o, p + 2, false);
					break;
				}
				/* a level: -v=6, -v6, -v 6 */
				if (o->level && (p[1] == '=' || isdigit((unsigned char)p[1]))) {
					set_value(cmd, o, p + 1 + (p[1] == '='), false);
					break;
				}
				if (o->level && !p[1] && i + 1 < argc && is_level(argv[i + 1])) {
					set_value(cmd, o, argv[++i], false);
					break;
				}
				set_value(cmd, o, NULL, false);
				continue;
			}
			/* pflag's: -n=NS is NS, but -n= alone is "=" */
			const char *val = p[1] ? p + 1 + (p[1] == '=' && p[2]) : NULL;
			if (!val) {
				if (i + 1 >= argc)
					usage_error(cmd, "option '-%c' requires a value", *p);
				val = argv[++i];
			}
			set_value(cmd, o, val, false);
			break;
		}
	}
	argv[npos] = NULL;
	return npos;
}

struct help_ctx {
	FILE *out;
	int width;
	bool measure;
};

static void option_label(const struct option *o, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (o->short_name)
		strbuf_addf(sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
	else
		strbuf_adds(sb, "    ");
	if (o->long_name)
		strbuf_addf(sb, "--%s", o->long_name);
	if (opt_takes_value(o))
		strbuf_addf(sb, " %s", o->argh ? o->argh : "VALUE");
}

static void help_cb(const struct option *o, void *ctx)
{
	struct help_ctx *h = ctx;
	struct strbuf label = STRBUF_INIT;
	option_label(o, &label);
	if (h->measure) {
		if ((int)label.len > h->width)
			h->width = (int)label.len;
	} else {
		fprintf(h->out, "  %-*s  %s", h->width, label.buf, o->help);
		if (o->choices) {
			fputs(" (", h->out);
			for (int i = 0; o->choices[i]; i++)
				fprintf(h->out, "%s%s", i ? "|" : "", o->choices[i]);
			fputc(')', h->out);
		}
		fputc('\n', h->out);
	}
	strbuf_release(&label);
}

static const char *program = "kinf";

void opt_set_program(const char *name)
{
	program = name;
}

const char *opt_program(void)
{
	return program;
}

/* text, each line's leading "kinf " (after any indent) the program's name. */
static void opt_fputs(const char *text, FILE *out)
{
	bool line_start = true;

	for (const char *p = text; *p; p++) {
		if (line_start) {
			size_t indent = strspn(p, " \t");
			if (!strncmp(p + indent, "kinf ", 5) || !strcmp(p + indent, "kinf")) {
				fprintf(out, "%.*s%s", (int)indent, p, program);
				p += indent + 3;
				line_start = false;
				continue;
			}
		}
		fputc(*p, out);
		line_start = *p == '\n';
	}
}

void opt_print_help(const struct command *cmd, FILE *out)
{
	fputs("usage: ", out);
	opt_fputs(cmd->usage, out);
	fprintf(out, "\n\n%s\n", cmd->summary);
	if (cmd->description)
		fprintf(out, "\n%s\n", cmd->description);
	if (cmd->options && cmd->options->type != OPT_T_END) {
		struct help_ctx h = { .out = out, .measure = true };
		opt_each(cmd->options, help_cb, &h);
		if (h.width > 34)
			h.width = 34;
		h.measure = false;
		fputs("\noptions:\n", out);
		opt_each(cmd->options, help_cb, &h);
		fprintf(out, "  %-*s  %s\n", h.width, "-h, --help", "show this help");
	}
	if (cmd->examples) {
		fputs("\nexamples:\n", out);
		opt_fputs(cmd->examples, out);
	}
}
