/*
 * gotemplate.c — Go's text/template as kubectl's go-template printer runs
 * it; see gotemplate.h.  The parser follows text/template/parse (lexer,
 * Tree.pipeline, Tree.command, Tree.operand), the executor
 * text/template's exec.go and funcs.go, so that the messages and the
 * odd corners (a nil interface turning into "<no value>", a float64
 * never equal to an int) come out as kubectl's do.
 */
#include "output/gotemplate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <json-c/json.h>

#include "output/gofmt.h"
#include "output/gosprintf.h"
#include "cluster/http.h"
#include "lib/base64.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/*
 * The data's integers are int64s; the template's own are Go's int
 * (literals, len, range indexes) or uint8 (a string's byte, as index
 * gives it), told apart by a mark in their userdata: a mark's address
 * is the type's name.
 */
static char go_int_mark[] = "int", go_uint8_mark[] = "uint8";

static struct json_object *go_typed(int64_t v, char *mark)
{
	struct json_object *j = json_object_new_int64(v);

	if (mark)
		json_object_set_userdata(j, mark, NULL);
	return j;
}

static struct json_object *go_int(int64_t v)
{
	return go_typed(v, go_int_mark);
}

/* Go's name of an integer's type, if the template made it; else NULL */
static char *go_mark(struct json_object *j)
{
	void *mark = json_object_get_userdata(j);

	return mark == go_int_mark || mark == go_uint8_mark ? mark : NULL;
}

/* ---- the tree --------------------------------------------------------- */

enum arg_type { A_FIELD, A_VAR, A_DOT, A_LITERAL, A_NIL, A_IDENT, A_PIPE };

struct pipe;

/*
 * One operand: .a.b (fields), $x.a (name "$x", fields), a literal (its
 * value, a json-c object the node owns), a function name, or (pipe).a.
 */
struct arg {
	enum arg_type type;
	int pos;
	int term_pos;			/* with fields: the term's own (pos is the chain's) */
	char *text;			/* source of a literal, name of a var or ident */
	struct json_object *lit;	/* NULL: an integer past int64 ("overflows int") */
	char **fields;
	size_t nfields;
	struct pipe *pipe;
};

struct cmd {
	int pos;
	struct arg *args;
	size_t nargs;
};

struct pipe {
	int pos;
	char *vars[2];
	size_t nvars;
	bool assign;			/* $x = …, not $x := … */
	struct cmd *cmds;
	size_t ncmds;
};

enum node_type {
	N_TEXT, N_ACTION, N_IF, N_RANGE, N_WITH, N_BREAK, N_CONTINUE, N_TEMPLATE,
};

struct list {
	struct node **v;
	size_t n;
};

struct node {
	enum node_type type;
	char *text;			/* N_TEXT; N_TEMPLATE: the name */
	size_t len;
	int pos;			/* N_TEMPLATE: the name's */
	struct pipe *pipe;		/* actions and control; N_TEMPLATE: NULL when none */
	struct list body, otherwise;
};

/* A named template: "output", the text's own, and each {{define}} and {{block}}. */
struct def {
	char *name;
	size_t len;
	struct list body;
};

struct gotemplate {
	char *src;
	struct def *defs;
	size_t ndefs;
	bool missingkey_error;		/* Option("missingkey=error") */
	uint64_t max_iterations;	/* gotemplate_limit_iterations(); 0: none */
};

static void pipe_free(struct pipe *p);

static void arg_release(struct arg *a)
{
	free(a->text);
	if (a->lit)
		json_object_put(a->lit);
	for (size_t i = 0; i < a->nfields; i++)
		free(a->fields[i]);
	free(a->fields);
	pipe_free(a->pipe);
}

static void pipe_free(struct pipe *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ncmds; i++) {
		for (size_t j = 0; j < p->cmds[i].nargs; j++)
			arg_release(&p->cmds[i].args[j]);
		free(p->cmds[i].args);
	}
	free(p->cmds);
	free(p->vars[0]);
	free(p->vars[1]);
	free(p);
}

static void list_release(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct node *n = l->v[i];
		free(n->text);
		pipe_free(n->pipe);
		list_release(&n->body);
		list_release(&n->otherwise);
		free(n);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static struct node *list_add(struct list *l, enum node_type type)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->type = type;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = n;
	return n;
}

void gotemplate_missingkey_error(struct gotemplate *t)
{
	t->missingkey_error = true;
}

void gotemplate_limit_iterations(struct gotemplate *t, uint64_t max)
{
	t->max_iterations = max;
}

void gotemplate_free(struct gotemplate *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndefs; i++) {
		free(t->defs[i].name);
		list_release(&t->defs[i].body);
	}
	free(t->defs);
	free(t->src);
	free(t);
}

/* node.String(), as Go prints a node in "executing … at <…>" */
static void pipe_string(const struct pipe *p, struct strbuf *out);

static void arg_string(const struct arg *a, struct strbuf *out)
{
	switch (a->type) {
	case A_DOT: strbuf_addch(out, '.'); break;
	case A_NIL: strbuf_adds(out, "nil"); break;
	case A_FIELD: break;
	case A_PIPE:
		strbuf_addch(out, '(');
		pipe_string(a->pipe, out);
		strbuf_addch(out, ')');
		break;
	default: strbuf_adds(out, a->text);
	}
	for (size_t i = 0; i < a->nfields; i++)
		strbuf_addf(out, ".%s", a->fields[i]);
}

static void cmd_string(const struct cmd *c, struct strbuf *out)
{
	for (size_t i = 0; i < c->nargs; i++) {
		if (i)
			strbuf_addch(out, ' ');
		arg_string(&c->args[i], out);
	}
}

static void pipe_string(const struct pipe *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->nvars; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", p->vars[i]);
	if (p->nvars)
		strbuf_adds(out, p->assign ? " = " : " := ");
	for (size_t i = 0; i < p->ncmds; i++) {
		if (i)
			strbuf_adds(out, " | ");
		cmd_string(&p->cmds[i], out);
	}
}

/* ---- the lexer (inside an action) ------------------------------------- */

enum tok_type {
	T_EOF, T_RDELIM, T_IDENT, T_FIELD, T_DOT, T_VAR, T_STRING, T_RAW,
	T_NUMBER, T_BOOL, T_NIL, T_LPAREN, T_RPAREN, T_PIPE, T_DECLARE,
	T_ASSIGN, T_COMMA, T_CHAR, T_CHARCONST,
	/* keywords */
	T_IF, T_ELSE, T_END, T_RANGE, T_WITH, T_BREAK, T_CONTINUE, T_DEFINE,
	T_TEMPLATE, T_BLOCK,
};

static const char *const keywords[] = {
	[T_IF] = "if", [T_ELSE] = "else", [T_END] = "end", [T_RANGE] = "range",
	[T_WITH] = "with", [T_BREAK] = "break", [T_CONTINUE] = "continue",
	[T_DEFINE] = "define", [T_TEMPLATE] = "template", [T_BLOCK] = "block",
};

struct tok {
	enum tok_type type;
	int pos;
	size_t len;
	bool space;			/* white space before it */
	bool trim;			/* T_RDELIM: " -}}" */
};

struct parser {
	struct gotemplate *t;		/* its named templates, as they are defined */
	const char *src;
	size_t pos;
	struct errbuf *err;
	bool failed;
	char **vars;			/* in scope, "$" first */
	size_t nvars;
	int in_range;
	bool trim_text;			/* the last action ended with " -}}" */
	int depth;			/* of parentheses and control structures */
};

/*
 * How deep parentheses and {{if}}/{{range}}/{{with}} may nest.  Go has no
 * limit but its stack's gigabyte; parsing and running recurse once a
 * level here, so a template (outside input, as a server's data is) is
 * told no before it takes the stack.
 */
#define MAX_NESTING 1000

static int line_of(const struct parser *p, size_t pos)
{
	int line = 1;

	for (size_t i = 0; i < pos && p->src[i]; i++)
		line += p->src[i] == '\n';
	return line;
}

PRINTF(3, 4)
static void parse_error(struct parser *p, size_t pos, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (p->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errbuf_set(p->err, "template: output:%d: %s", line_of(p, pos), msg);
	p->failed = true;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_alnum(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static size_t scan_quoted(struct parser *p, size_t i, char q)
{
	const char *s = p->src;

	for (i++; s[i] != q; i++) {
		if (!s[i] || (s[i] == '\n' && q != '`')) {
			parse_error(p, i, q == '`' ? "unterminated raw quoted string" :
				    q == '"' ? "unterminated quoted string" :
				    "unterminated character constant");
			return i;
		}
		if (s[i] == '\\' && q != '`' && s[i + 1])
			i++;
	}
	return i + 1;
}

static size_t scan_run(const char *s, size_t i, const char *set)
{
	while (s[i] && strchr(set, s[i]))
		i++;
	return i;
}

/*
 * lex.go's scanNumber from s[i]: a sign, a base prefix, digits, a
 * fraction, an exponent, an 'i'.  The end; *bad when a letter or digit
 * follows (the end then takes it, as Go's message quotes it).
 */
static size_t scan_number(const char *s, size_t i, bool *bad)
{
	const char *digits = "0123456789_";

	if (s[i] == '+' || s[i] == '-')
		i++;
	if (s[i] == '0') {
		i++;
		switch (s[i] | 0x20) {
		case 'x': digits = "0123456789abcdefABCDEF_"; i++; break;
		case 'o': digits = "01234567_"; i++; break;
		case 'b': digits = "01_"; i++; break;
		}
	}
	i = scan_run(s, i, digits);
	if (s[i] == '.')
		i = scan_run(s, i + 1, digits);
	if ((s[i] | 0x20) == (strlen(digits) == 11 ? 'e' : strlen(digits) == 23 ? 'p' : 0)) {
		i += 1 + (s[i + 1] == '+' || s[i + 1] == '-');
		i = scan_run(s, i, "0123456789_");
	}
	i += s[i] == 'i';
	*bad = is_alnum(s[i]);
	if (*bad)
		i += utf8_sequence(s + i, strlen(s + i)) ? utf8_sequence(s + i, strlen(s + i)) : 1;
	return i;
}

/* The token at p->pos, without consuming it (tok_next consumes). */
static struct tok tok_peek(struct parser *p)
{
	const char *s = p->src;
	size_t i = p->pos;
	struct tok t = { .type = T_EOF };

	while (is_space(s[i])) {
		t.space = true;
		if (!strncmp(s + i + 1, "-}}", 3) && is_space(s[i])) {
			t.pos = (int)i;
			t.type = T_RDELIM;
			t.trim = true;
			t.len = 4;
			return t;
		}
		i++;
	}
	t.pos = (int)i;
	t.len = 1;
	if (!s[i]) {
		t.len = 0;
		return t;
	}
	if (!strncmp(s + i, "}}", 2)) {
		t.type = T_RDELIM;
		t.len = 2;
		return t;
	}
	switch (s[i]) {
	case '|': t.type = T_PIPE; return t;
	case '(': t.type = T_LPAREN; return t;
	case ')': t.type = T_RPAREN; return t;
	case ',': t.type = T_COMMA; return t;
	case '=': t.type = T_ASSIGN; return t;
	case ':':
		t.type = s[i + 1] == '=' ? T_DECLARE : T_CHAR;
		t.len = s[i + 1] == '=' ? 2 : 1;
		return t;
	case '"': case '`': case '\'':
		t.type = s[i] == '"' ? T_STRING : s[i] == '`' ? T_RAW : T_CHARCONST;
		t.len = scan_quoted(p, i, s[i]) - i;
		return t;
	case '$': case '.': {
		size_t j = i + 1;
		if (s[i] == '.' && isdigit((unsigned char)s[j]))
			break;
		while (is_alnum(s[j]))
			j++;
		t.len = j - i;
		t.type = s[i] == '$' ? T_VAR : j == i + 1 ? T_DOT : T_FIELD;
		return t;
	}
	default:
		break;
	}
	/* lexInsideAction: a sign or a digit starts a number, ".5" too */
	if (isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '+') {
		bool bad;
		size_t end = scan_number(s, i, &bad);
		if (!bad && (s[end] == '+' || s[end] == '-')) {	/* 1+2i */
			end = scan_number(s, end, &bad);
			bad = bad || s[end - 1] != 'i';
		}
		if (bad) {
			struct strbuf q = STRBUF_INIT;
			gofmt_quote(s + i, end - i, &q);
			parse_error(p, i, "bad number syntax: %s", q.buf);
			strbuf_release(&q);
		}
		t.type = T_NUMBER;
		t.len = end - i;
		return t;
	}
	if (is_alnum(s[i])) {
		size_t j = i;
		while (is_alnum(s[j]))
			j++;
		t.len = j - i;
		t.type = T_IDENT;
		for (size_t k = T_IF; k <= T_BLOCK; k++)
			if (strlen(keywords[k]) == t.len && !strncmp(s + i, keywords[k], t.len))
				t.type = (enum tok_type)k;
		if ((t.len == 4 && !strncmp(s + i, "true", 4)) ||
		    (t.len == 5 && !strncmp(s + i, "false", 5)))
			t.type = T_BOOL;
		if (t.len == 3 && !strncmp(s + i, "nil", 3))
			t.type = T_NIL;
		return t;
	}
	t.type = T_CHAR;
	t.len = utf8_sequence(s + i, strlen(s + i));
	if (!t.len)
		t.len = 1;
	return t;
}

static struct tok tok_next(struct parser *p)
{
	struct tok t = tok_peek(p);

	p->pos = (size_t)t.pos + t.len;
	return t;
}

/* Go's item.String() in "unexpected %s in …": %q of the token, "%.10q..." past ten bytes */
static void tok_describe(const struct parser *p, const struct tok *t, struct strbuf *sb)
{
	const char *s = p->src + t->pos;
	size_t n = t->len, k;

	if (t->type == T_EOF) {
		strbuf_adds(sb, "EOF");
	} else if (t->type >= T_IF || t->type == T_DOT) {	/* Go's itemDot is a keyword's */
		strbuf_addf(sb, "<%.*s>", (int)t->len, s);
	} else if (t->type == T_RDELIM) {
		strbuf_adds(sb, t->trim ? "\" -}}\"" : "\"}}\"");
	} else {
		if (t->len > 10) {	/* the precision counts runes */
			n = 0;
			for (int r = 0; r < 10 && n < t->len; r++, n += k)
				utf8_decode(s + n, t->len - n, &k);
		}
		gofmt_quote(s, n, sb);
		if (t->len > 10)
			strbuf_adds(sb, "...");
	}
}

static void unexpected(struct parser *p, const struct tok *t, const char *context)
{
	struct strbuf what = STRBUF_INIT;

	tok_describe(p, t, &what);
	parse_error(p, (size_t)t->pos, "unexpected %s in %s", what.buf, context);
	strbuf_release(&what);
}

/* ---- the parser ------------------------------------------------------- */

static const struct func *func_find(const char *name);

static bool var_known(const struct parser *p, const char *name, size_t len)
{
	for (size_t i = p->nvars; i-- > 0;)
		if (strlen(p->vars[i]) == len && !strncmp(p->vars[i], name, len))
			return true;
	return false;
}

static void var_declare(struct parser *p, const char *name)
{
	p->vars = xrealloc(p->vars, (p->nvars + 1) * sizeof(*p->vars));
	p->vars[p->nvars++] = xstrdup(name);
}

static void vars_pop(struct parser *p, size_t mark)
{
	while (p->nvars > mark)
		free(p->vars[--p->nvars]);
}

/*
 * strconv's underscoreOK: an underscore only between digits, or between
 * a base prefix and a digit.
 */
static bool underscores_ok(const char *s, size_t len)
{
	const char *end = s + len;
	char saw = '^';		/* ^ start, 0 digit or prefix, _ underscore, ! other */
	bool hex = false;

	s += s < end && (*s == '-' || *s == '+');
	if (end - s >= 2 && s[0] == '0' && strchr("bBoOxX", s[1])) {
		hex = (s[1] | 0x20) == 'x';
		saw = '0';
		s += 2;
	}
	for (; s < end; s++) {
		if (isdigit((unsigned char)*s) || (hex && isxdigit((unsigned char)*s))) {
			saw = '0';
		} else if (*s == '_') {
			if (saw != '0')
				return false;
			saw = '_';
		} else if (saw == '_') {
			return false;
		} else {
			saw = '!';
		}
	}
	return saw != '_';
}

/* strconv.ParseInt or ParseUint with base 0 of t (no underscores), as a uint64 and a sign. */
static bool parse_integer(const char *t, unsigned long long *u, bool *range)
{
	int base = 0;
	char *end;

	*u = 0;
	*range = false;
	t += *t == '-' || *t == '+';
	if (t[0] == '0' && t[1] && strchr("bBoO", t[1])) {
		base = (t[1] | 0x20) == 'b' ? 2 : 8;
		t += 2;
	}
	if (!isalnum((unsigned char)t[0]))
		return false;
	errno = 0;
	*u = strtoull(t, &end, base);
	*range = errno == ERANGE;
	return !*end;
}

/*
 * A number literal as parse.newNumber and state.idealConstant read it:
 * an int unless it has a fraction or an exponent (a hexadecimal one's is
 * p), a float64 then.  An integer past int64 that fits a uint64 parses,
 * and is the error "overflows int" where it runs (*out NULL); past that
 * it is "integer overflow" where ParseFloat reads it (decimal), else
 * "illegal number syntax".  A float past float64's range does not parse.
 */
static const char *number_literal(const char *s, size_t len, struct json_object **out)
{
	char *t = xmalloc(len + 1), *end;
	size_t n = 0;
	size_t at = s[0] == '-' || s[0] == '+';
	bool sign = at, range;
	bool prefixed = len > at + 1 && s[at] == '0' && strchr("bBoOxX", s[at + 1]);
	bool hex = prefixed && (s[at + 1] | 0x20) == 'x';
	unsigned long long u;
	const char *why = NULL;

	*out = NULL;
	for (size_t i = 0; i < len; i++)
		if (s[i] != '_')
			t[n++] = s[i];
	t[n] = '\0';
	if (memchr(s, '_', len) && !underscores_ok(s, len)) {
		why = "illegal number syntax";
	} else if (strpbrk(t, hex ? "pP" : ".eE")) {
		double d = strtod(t, &end);
		if (*end || isinf(d) || (prefixed && !hex))
			why = "illegal number syntax";
		else
			*out = json_object_new_double(d);
	} else {
		bool ok = parse_integer(t, &u, &range) && !range;
		if (ok && u <= INT64_MAX) {
			*out = go_int(t[0] == '-' ? -(int64_t)u : (int64_t)u);
		} else if (ok && t[0] == '-' && u == (unsigned long long)INT64_MAX + 1) {
			*out = go_int(INT64_MIN);
		} else if (!ok || sign) {
			/* newNumber: what ParseFloat takes, with no '.', overflows */
			double d = strtod(t, &end);
			why = !prefixed && !*end && !isinf(d) ? "integer overflow" :
				"illegal number syntax";
		}	/* else a uint64: "overflows int" where it runs */
	}
	free(t);
	return why;
}

/*
 * A character constant ('a', '\n', '\x41'): its rune, as strconv.UnquoteChar
 * reads one, or -1 (*why set) when it is no single character.
 */
static long char_constant(const char *s, size_t len, const char **why)
{
	struct strbuf sb = STRBUF_INIT;
	long r = -1;
	size_t n = 0;

	*why = "invalid syntax";
	if (len > 2 && gofmt_unquote(s, len, &sb) == 0 && sb.len) {
		/* \x and octal escapes are bytes, whatever UTF-8 says */
		bool byte = s[1] == '\\' && (s[2] == 'x' || (s[2] >= '0' && s[2] <= '7'));
		r = byte ? (unsigned char)sb.buf[0] : (long)utf8_decode(sb.buf, sb.len, &n);
		if (!byte && n != sb.len) {
			*why = "malformed character constant";
			r = -1;
		}
	}
	strbuf_release(&sb);
	return r;
}

static struct pipe *parse_pipe(struct parser *p, const char *context, bool in_parens);

static void add_field(struct arg *a, const char *name, size_t len)
{
	a->fields = xrealloc(a->fields, (a->nfields + 1) * sizeof(*a->fields));
	a->fields[a->nfields++] = xstrndup(name, len);
}

static int parse_literal(struct parser *p, const struct tok *t, struct arg *a)
{
	const char *s = p->src + t->pos;
	struct strbuf sb = STRBUF_INIT;

	a->type = A_LITERAL;
	a->text = xstrndup(s, t->len);
	if (p->failed)		/* an unterminated string: its token is cut short */
		return -1;
	if (t->type == T_BOOL) {
		a->lit = json_object_new_boolean(*s == 't');
	} else if (t->type == T_NUMBER) {
		const char *why = number_literal(s, t->len, &a->lit);
		if (why)
			parse_error(p, (size_t)t->pos, "%s: \"%s\"", why, a->text);
	} else if (t->type == T_CHARCONST) {
		const char *why;
		long r = char_constant(s, t->len, &why);
		if (r < 0 && !strcmp(why, "invalid syntax"))
			parse_error(p, (size_t)t->pos, "%s", why);
		else if (r < 0)
			parse_error(p, (size_t)t->pos, "%s: %s", why, a->text);
		else
			a->lit = go_int(r);
	} else if (t->type == T_RAW) {
		a->lit = json_object_new_string_len(s + 1, (int)t->len - 2);
	} else if (gofmt_unquote(s, t->len, &sb) < 0) {
		parse_error(p, (size_t)t->pos, "invalid syntax");
	} else {
		a->lit = json_object_new_string_len(sb.buf ? sb.buf : "", (int)sb.len);
	}
	strbuf_release(&sb);
	return p->failed ? -1 : 0;
}

/* Enters a level of nesting at pos; false (p failed) past MAX_NESTING. */
static bool nest(struct parser *p, size_t pos)
{
	if (++p->depth <= MAX_NESTING)
		return true;
	parse_error(p, pos, "nested deeper than %d levels (kinf's limit)", MAX_NESTING);
	return false;
}

/* Tree.term: false when the token is no operand (nothing consumed). */
static bool parse_term(struct parser *p, struct arg *a)
{
	struct tok t = tok_peek(p);
	const char *s = p->src + t.pos;

	a->pos = t.pos;
	switch (t.type) {
	case T_IDENT: {
		tok_next(p);
		a->type = A_IDENT;
		a->text = xstrndup(s, t.len);
		if (!func_find(a->text))
			parse_error(p, (size_t)t.pos, "function \"%s\" not defined", a->text);
		return true;
	}
	case T_DOT: tok_next(p); a->type = A_DOT; return true;
	case T_NIL: tok_next(p); a->type = A_NIL; return true;
	case T_VAR:
		tok_next(p);
		a->type = A_VAR;
		a->text = xstrndup(s, t.len);
		if (!var_known(p, s, t.len))
			parse_error(p, (size_t)t.pos, "undefined variable \"%s\"", a->text);
		return true;
	case T_FIELD:
		tok_next(p);
		a->type = A_FIELD;
		add_field(a, s + 1, t.len - 1);
		return true;
	case T_BOOL: case T_NUMBER: case T_STRING: case T_RAW: case T_CHARCONST:
		tok_next(p);
		parse_literal(p, &t, a);
		return true;
	case T_LPAREN:
		tok_next(p);
		a->type = A_PIPE;
		if (nest(p, (size_t)t.pos))
			a->pipe = parse_pipe(p, "parenthesized pipeline", true);
		p->depth--;
		return true;
	default:
		return false;
	}
}

/* Tree.operand: a term and the fields chained on it. */
static bool parse_operand(struct parser *p, struct arg *a)
{
	bool chained = false;

	if (!parse_term(p, a))
		return false;
	for (struct tok t = tok_peek(p); !p->failed && t.type == T_FIELD && !t.space;
	     t = tok_peek(p)) {
		tok_next(p);
		if (!chained) {		/* Go's chain node is where the chain starts */
			a->term_pos = a->pos;
			a->pos = t.pos;
		}
		chained = true;
		/* a function's name takes fields: Go's chain, run as the call */
		if (a->type == A_LITERAL || a->type == A_NIL || a->type == A_DOT) {
			parse_error(p, (size_t)t.pos, "unexpected . after term \"%s\"",
				    a->type == A_DOT ? "." : a->type == A_NIL ? "nil" : a->text);
			break;
		}
		add_field(a, p->src + t.pos + 1, t.len - 1);
	}
	return true;
}

static bool ends_pipe(const struct tok *t)
{
	return t->type == T_RDELIM || t->type == T_RPAREN || t->type == T_PIPE;
}

/* What Tree.pipeline takes for the start of a command. */
static bool starts_operand(const struct tok *t)
{
	switch (t->type) {
	case T_IDENT: case T_FIELD: case T_DOT: case T_VAR: case T_STRING: case T_RAW:
	case T_NUMBER: case T_BOOL: case T_NIL: case T_LPAREN: case T_CHARCONST:
		return true;
	default:
		return false;
	}
}

static void parse_cmd(struct parser *p, struct cmd *c)
{
	struct tok t = tok_peek(p);

	c->pos = t.pos;
	while (!p->failed) {
		struct arg a = { 0 };
		bool operand = parse_operand(p, &a);
		if (operand) {
			c->args = xrealloc(c->args, (c->nargs + 1) * sizeof(*c->args));
			c->args[c->nargs++] = a;
		}
		t = tok_peek(p);
		if (p->failed || ends_pipe(&t))
			break;
		/* what is no operand, or follows one without a space, ends it */
		if (t.type == T_EOF)
			parse_error(p, (size_t)t.pos, "unclosed action");
		else if (!operand || !t.space)
			unexpected(p, &t, "operand");
	}
	if (!p->failed && !c->nargs)
		parse_error(p, (size_t)t.pos, "empty command");
}

/* "$x :=", "$i, $v :=" or "$x =" at the start of a pipeline. */
static void parse_decl(struct parser *p, struct pipe *pp, const char *context)
{
	size_t save = p->pos;
	struct tok v = tok_next(p), t = tok_next(p);

	if (v.type != T_VAR)
		goto none;
	if (t.type == T_COMMA && !strcmp(context, "range")) {
		struct tok v2 = tok_next(p);
		t = tok_next(p);
		if (v2.type != T_VAR || (t.type != T_DECLARE && t.type != T_ASSIGN)) {
			parse_error(p, (size_t)v2.pos, "range can only initialize variables");
			return;
		}
		pp->vars[pp->nvars++] = xstrndup(p->src + v.pos, v.len);
		pp->vars[pp->nvars++] = xstrndup(p->src + v2.pos, v2.len);
	} else if (t.type == T_DECLARE || t.type == T_ASSIGN) {
		pp->vars[pp->nvars++] = xstrndup(p->src + v.pos, v.len);
	} else {
		goto none;
	}
	pp->assign = t.type == T_ASSIGN;
	for (size_t i = 0; i < pp->nvars; i++)	/* an assignment's too, as Go's parser */
		var_declare(p, pp->vars[i]);
	return;
none:
	p->pos = save;
}

/* Tree.pipeline: up to the "}}" (consumed) or ")" (consumed, in parens). */
static struct pipe *parse_pipe(struct parser *p, const char *context, bool in_parens)
{
	struct pipe *pp = xcalloc(1, sizeof(*pp));
	struct tok t = tok_peek(p);

	pp->pos = t.pos;
	if (!in_parens)
		parse_decl(p, pp, context);
	while (!p->failed) {
		t = tok_peek(p);
		if (t.type == (in_parens ? T_RPAREN : T_RDELIM)) {
			tok_next(p);
			p->trim_text = t.trim;
			break;
		}
		if (t.type == T_EOF) {
			parse_error(p, (size_t)t.pos, in_parens ? "unclosed left paren" :
				    "unclosed action");
			break;
		}
		/* the lexer's own errors, where it meets the paren */
		if (t.type == T_RPAREN || (t.type == T_RDELIM && in_parens)) {
			parse_error(p, (size_t)t.pos, t.type == T_RPAREN ? "unexpected right paren" :
				    "unclosed left paren");
			break;
		}
		if (!starts_operand(&t)) {
			unexpected(p, &t, context);
			break;
		}
		pp->cmds = xrealloc(pp->cmds, (pp->ncmds + 1) * sizeof(*pp->cmds));
		memset(&pp->cmds[pp->ncmds], 0, sizeof(*pp->cmds));
		parse_cmd(p, &pp->cmds[pp->ncmds++]);
		if (!p->failed && tok_peek(p).type == T_PIPE)
			tok_next(p);	/* Tree.command takes the "|" that ends it */
	}
	if (!p->failed && !pp->ncmds)
		parse_error(p, (size_t)t.pos, "missing value for %s", context);
	/* Tree.checkPipeline: only the first command may start with a constant */
	for (size_t i = 1; !p->failed && i < pp->ncmds; i++) {
		enum arg_type type = pp->cmds[i].args[0].type;
		if (type == A_LITERAL || type == A_DOT || type == A_NIL)
			parse_error(p, (size_t)pp->cmds[i].pos,
				    "non executable command in pipeline stage %zu", i + 1);
	}
	return pp;
}

enum list_end { END_EOF, END_END, END_ELSE };

static enum list_end parse_list(struct parser *p, struct list *l);

static void expect_rdelim(struct parser *p, const char *context)
{
	struct tok t = tok_next(p);

	if (t.type != T_RDELIM)
		unexpected(p, &t, context);
	p->trim_text = t.trim;
}

/* {{if}}, {{range}}, {{with}}: the keyword is consumed. */
static void parse_control(struct parser *p, struct list *l, enum node_type type)
{
	static const char *const names[] = { [N_IF] = "if", [N_RANGE] = "range", [N_WITH] = "with" };
	struct node *n = list_add(l, type);
	size_t mark = p->nvars;
	enum list_end end;

	if (!nest(p, p->pos)) {
		p->depth--;
		return;
	}
	n->pipe = parse_pipe(p, names[type], false);
	p->in_range += type == N_RANGE;
	end = p->failed ? END_EOF : parse_list(p, &n->body);
	p->in_range -= type == N_RANGE;	/* a range's else is outside it */
	if (end == END_ELSE) {
		struct tok t = tok_peek(p);
		if ((type == N_IF && t.type == T_IF) || (type == N_WITH && t.type == T_WITH)) {
			/* {{else if}}, {{else with}} (Go 1.23): one in the else branch, sharing our {{end}} */
			tok_next(p);
			parse_control(p, &n->otherwise, type);
			vars_pop(p, mark);
			p->depth--;
			return;
		}
		expect_rdelim(p, "else");
		end = p->failed ? END_EOF : parse_list(p, &n->otherwise);
		if (end == END_ELSE)
			parse_error(p, p->pos, "expected end; found {{else}}");
	}
	if (end == END_EOF && !p->failed)
		parse_error(p, p->pos, "unexpected EOF");
	vars_pop(p, mark);
	p->depth--;
}

/* parse.IsEmptyTree: nothing but white space. */
static bool list_empty(const struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct node *n = l->v[i];
		if (n->type != N_TEXT)
			return false;
		for (size_t j = 0, k; j < n->len; j += k)
			if (!go_is_space(utf8_decode(n->text + j, n->len - j, &k)))
				return false;
	}
	return true;
}

static char *memdupz(const char *s, size_t len)
{
	char *d = xmalloc(len + 1);

	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static struct def *def_find(const struct gotemplate *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->ndefs; i++)
		if (t->defs[i].len == len && !memcmp(t->defs[i].name, name, len))
			return &t->defs[i];
	return NULL;
}

/*
 * Tree.add: body (taken) becomes the template name, unless one of that
 * name has more than white space, which then stays if body has none and
 * is an error if it has.
 */
static void def_add(struct parser *p, const char *name, size_t len, struct list *body)
{
	struct def *d = def_find(p->t, name, len);

	if (!d) {
		p->t->defs = xrealloc(p->t->defs, (p->t->ndefs + 1) * sizeof(*p->t->defs));
		d = &p->t->defs[p->t->ndefs++];
		d->name = memdupz(name, len);
		d->len = len;
	} else if (!list_empty(&d->body)) {
		if (!list_empty(body)) {
			struct strbuf q = STRBUF_INIT;
			gofmt_quote(name, len, &q);
			parse_error(p, p->pos, "template: multiple definition of template %s", q.buf);
			strbuf_release(&q);
		}
		list_release(body);
		return;
	} else {
		list_release(&d->body);
	}
	d->body = *body;
	memset(body, 0, sizeof(*body));
}

/* The name after {{define, {{template or {{block: a quoted string. */
static bool parse_template_name(struct parser *p, const char *context, struct strbuf *name,
				int *pos)
{
	struct tok t = tok_next(p);

	*pos = t.pos;
	if (p->failed)		/* an unterminated string: its token is cut short */
		return false;
	if (t.type != T_STRING && t.type != T_RAW) {
		unexpected(p, &t, context);
		return false;
	}
	if (t.type == T_RAW)
		strbuf_add(name, p->src + t.pos + 1, t.len - 2);
	else if (gofmt_unquote(p->src + t.pos, t.len, name) < 0)
		parse_error(p, (size_t)t.pos, "invalid syntax");
	return !p->failed;
}

/*
 * The body of a {{define}} or {{block}} up to its {{end}}: a template of
 * its own, whose variables are $ alone and in no {{range}}.
 */
static void parse_definition(struct parser *p, const char *name, size_t len,
			     const char *context)
{
	struct parser inner = *p;
	struct list body = { 0 };

	if (!nest(p, p->pos)) {
		p->depth--;
		return;
	}
	inner.vars = NULL;
	inner.nvars = 0;
	inner.in_range = 0;
	inner.depth = p->depth;
	var_declare(&inner, "$");
	enum list_end end = parse_list(&inner, &body);
	vars_pop(&inner, 0);
	free(inner.vars);
	p->pos = inner.pos;
	p->failed = inner.failed;
	p->trim_text = inner.trim_text;
	if (!p->failed && end == END_ELSE)
		parse_error(p, p->pos, "unexpected {{else}} in %s", context);
	else if (!p->failed && end == END_EOF)
		parse_error(p, p->pos, "unexpected EOF");
	if (!p->failed)
		def_add(p, name, len, &body);
	list_release(&body);
	p->depth--;
}

/* {{define "name"}}...{{end}}, the keyword consumed: at the top level only. */
static void parse_define(struct parser *p)
{
	struct strbuf name = STRBUF_INIT;
	int pos;

	if (parse_template_name(p, "define clause", &name, &pos)) {
		expect_rdelim(p, "define clause");
		if (!p->failed)
			parse_definition(p, name.buf ? name.buf : "", name.len, "define clause");
	}
	strbuf_release(&name);
}

/*
 * {{template "name" [pipeline]}}, or {{block "name" pipeline}}...{{end}}
 * (a define of the body, and a template of it), the keyword consumed.
 */
static void parse_template(struct parser *p, struct list *l, bool block)
{
	const char *context = block ? "block clause" : "template clause";
	struct strbuf name = STRBUF_INIT;
	struct node *n = list_add(l, N_TEMPLATE);

	if (parse_template_name(p, context, &name, &n->pos)) {
		n->len = name.len;
		n->text = memdupz(name.buf ? name.buf : "", name.len);
		struct tok t = tok_peek(p);
		if (block || t.type != T_RDELIM)
			n->pipe = parse_pipe(p, context, false);
		else
			expect_rdelim(p, context);
		if (block && !p->failed)
			parse_definition(p, n->text, n->len, context);
	}
	strbuf_release(&name);
}

/* One {{action}} whose "{{" is consumed; END_* when it ends a list. */
static int parse_action(struct parser *p, struct list *l)
{
	struct tok t = tok_peek(p);

	switch (t.type) {
	case T_IF: tok_next(p); parse_control(p, l, N_IF); return -1;
	case T_RANGE: tok_next(p); parse_control(p, l, N_RANGE); return -1;
	case T_WITH: tok_next(p); parse_control(p, l, N_WITH); return -1;
	case T_END: tok_next(p); expect_rdelim(p, "end"); return END_END;
	case T_ELSE: tok_next(p); return END_ELSE;
	case T_BREAK: case T_CONTINUE:
		tok_next(p);
		if (!p->in_range)
			parse_error(p, (size_t)t.pos, "{{%s}} outside {{range}}", keywords[t.type]);
		expect_rdelim(p, keywords[t.type]);
		list_add(l, t.type == T_BREAK ? N_BREAK : N_CONTINUE);
		return -1;
	case T_TEMPLATE: case T_BLOCK:
		tok_next(p);
		parse_template(p, l, t.type == T_BLOCK);
		return -1;
	default:
		list_add(l, N_ACTION)->pipe = parse_pipe(p, "command", false);
		return -1;
	}
}

/* Skips a comment action (slash-star … star-slash) at p->pos, just after "{{". */
static bool skip_comment(struct parser *p)
{
	const char *s = p->src + p->pos;

	if (strncmp(s, "/*", 2))
		return false;
	const char *end = strstr(s + 2, "*/");
	if (!end) {
		parse_error(p, p->pos, "unclosed comment");
		return true;
	}
	end += 2;
	p->trim_text = !strncmp(end, " -}}", 4);
	if (strncmp(end + (p->trim_text ? 2 : 0), "}}", 2))
		parse_error(p, p->pos, "comment ends before closing delimiter");
	p->pos = (size_t)(end - p->src) + (p->trim_text ? 4 : 2);
	return true;
}

static enum list_end parse_list(struct parser *p, struct list *l)
{
	while (!p->failed) {
		const char *s = p->src + p->pos;
		if (p->trim_text)
			while (is_space(*s))
				s++;
		p->trim_text = false;
		const char *open = strstr(s, "{{");
		size_t len = open ? (size_t)(open - s) : strlen(s);
		bool trim = open && open[2] == '-' && is_space(open[3]);
		size_t keep = len;
		if (trim)
			while (keep && is_space(s[keep - 1]))
				keep--;
		if (keep) {
			struct node *n = list_add(l, N_TEXT);
			n->text = xstrndup(s, keep);
			n->len = keep;
		}
		if (!open) {
			p->pos = (size_t)(s - p->src) + len;
			return END_EOF;
		}
		p->pos = (size_t)(open - p->src) + (trim ? 4 : 2);
		if (skip_comment(p))
			continue;
		if (!p->depth && tok_peek(p).type == T_DEFINE) {
			tok_next(p);
			parse_define(p);
			continue;
		}
		int end = parse_action(p, l);
		if (end >= 0)
			return (enum list_end)end;
	}
	return END_EOF;
}

struct gotemplate *gotemplate_parse(const char *text, struct errbuf *err)
{
	struct gotemplate *t = xcalloc(1, sizeof(*t));
	struct parser p = { .t = t, .src = text, .err = err };
	struct list root = { 0 };

	t->src = xstrdup(text);
	var_declare(&p, "$");
	enum list_end end = parse_list(&p, &root);
	if (!p.failed && end == END_END)
		parse_error(&p, p.pos, "unexpected {{end}}");
	if (!p.failed && end == END_ELSE)
		parse_error(&p, p.pos, "unexpected {{else}}");
	/* kubectl's template is named "output"; a {{define "output"}} may stand for it */
	if (!p.failed)
		def_add(&p, "output", 6, &root);
	list_release(&root);
	vars_pop(&p, 0);
	free(p.vars);
	if (p.failed) {
		gotemplate_free(t);
		return NULL;
	}
	return t;
}

/* ---- values ------------------------------------------------------------ */

/*
 * A reflect.Value as text/template sees it: missing (Go's invalid
 * Value, printed "<no value>"), an interface{} read from a map or slice
 * (j NULL for a nil one), or a concrete value (what a pipeline, a
 * literal or a function gives).  A value holds one reference to j.
 */
enum gv_kind { GV_INVALID, GV_IFACE, GV_CONCRETE };

struct gv {
	enum gv_kind kind;
	struct json_object *j;
};

static const struct gv gv_invalid = { GV_INVALID, NULL };

static struct gv gv_take(enum gv_kind kind, struct json_object *j)
{
	return (struct gv){ kind, j };
}

static struct gv gv_ref(struct gv v)
{
	if (v.j)
		json_object_get(v.j);
	return v;
}

static void gv_put(struct gv *v)
{
	if (v->j)
		json_object_put(v->j);
	*v = gv_invalid;
}

/* indirectInterface: a nil interface is no value */
static bool gv_missing(struct gv v)
{
	return v.kind == GV_INVALID || !v.j;
}

/* reflect's name of the value's dynamic type */
static const char *gv_type(struct json_object *j)
{
	const char *mark = json_object_is_type(j, json_type_int) ? go_mark(j) : NULL;

	return mark ? mark : gofmt_type(j);
}

/* a value's static type, as "can't evaluate field X in type T" names it */
static const char *gv_static_type(struct gv v)
{
	return v.kind == GV_IFACE ? "interface {}" : gv_type(v.j);
}

/* text/template's isTrue */
static bool gv_truth(struct gv v)
{
	if (gv_missing(v))
		return false;
	switch (json_object_get_type(v.j)) {
	case json_type_boolean: return json_object_get_boolean(v.j);
	case json_type_int: return json_object_get_int64(v.j) != 0;
	case json_type_double: return json_object_get_double(v.j) != 0;
	case json_type_string: return json_object_get_string_len(v.j) > 0;
	case json_type_array: return json_object_array_length(v.j) > 0;
	case json_type_object: return json_object_object_length(v.j) > 0;
	default: return false;
	}
}

/* A new object of data's members before the one whose key is key (a pointer of data's). */
static struct json_object *members_before(struct json_object *data, const char *key)
{
	struct json_object *o = json_object_new_object();

	json_object_object_foreach(data, k, v) {
		if (k == key)
			break;
		json_object_object_add(o, k, json_object_get(v));
	}
	return o;
}

/*
 * kubectl's round trip: json.Marshal writes an integral float64 below
 * 1e21 without a fraction, and apimachinery's json.Unmarshal reads every
 * number that parses as an int64 as one.  What holds no such number is
 * data's own, shared: a list of pods has few.
 */
struct json_object *gotemplate_data(struct json_object *data)
{
	switch (json_object_get_type(data)) {
	case json_type_double: {
		double d = json_object_get_double(data);
		if (d > -9.2e18 && d < 9.2e18 && d == (double)(int64_t)d)
			return json_object_new_int64((int64_t)d);
		return json_object_get(data);
	}
	case json_type_array: {
		size_t n = json_object_array_length(data);
		struct json_object *a = NULL;
		for (size_t i = 0; i < n; i++) {
			struct json_object *v = json_object_array_get_idx(data, i);
			struct json_object *d = gotemplate_data(v);
			if (!a && d == v) {
				json_object_put(d);
				continue;
			}
			if (!a) {
				a = json_object_new_array_ext((int)n);
				for (size_t j = 0; j < i; j++)
					json_object_array_add(a, json_object_get(
						json_object_array_get_idx(data, j)));
			}
			json_object_array_add(a, d);
		}
		return a ? a : json_object_get(data);
	}
	case json_type_object: {
		struct json_object *o = NULL;
		json_object_object_foreach(data, k, v) {
			struct json_object *d = gotemplate_data(v);
			if (!o && d == v) {
				json_object_put(d);
				continue;
			}
			if (!o)
				o = members_before(data, k);
			json_object_object_add(o, k, d);
		}
		return o ? o : json_object_get(data);
	}
	default:
		return json_object_get(data);
	}
}

/* ---- execution state ------------------------------------------------- */

struct var {
	const char *name;
	struct gv v;
};

struct state {
	const struct gotemplate *t;
	struct strbuf *out;
	struct strbuf *err;		/* the message of the error that ended it */
	struct var *vars;
	size_t nvars, alloc;
	struct at {			/* state.at: the node being run, for errors */
		const struct arg *arg;
		const struct cmd *cmd;
		const struct pipe *pipe;
		const struct node *template;
		int pos;
	} at;
	int jump;			/* 1 after {{break}}, 2 after {{continue}} */
	const struct def *tmpl;		/* the template running */
	int depth;			/* of {{template}} calls */
	uint64_t iterations;		/* of ranges, all told */
};

static void at_arg(struct state *st, const struct arg *a)
{
	st->at = (struct at){ .arg = a, .pos = a->pos };
}

static void at_cmd(struct state *st, const struct cmd *c)
{
	st->at = (struct at){ .cmd = c, .pos = c->pos };
}

static void at_pipe(struct state *st, const struct pipe *p)
{
	st->at = (struct at){ .pipe = p, .pos = p->pos };
}

static void at_template(struct state *st, const struct node *n)
{
	st->at = (struct at){ .template = n, .pos = n->pos };
}

/* TemplateNode.String: {{template "name" pipeline}} */
static void template_string(const struct node *n, struct strbuf *out)
{
	strbuf_adds(out, "{{template ");
	gofmt_quote(n->text, n->len, out);
	if (n->pipe) {
		strbuf_addch(out, ' ');
		pipe_string(n->pipe, out);
	}
	strbuf_adds(out, "}}");
}

/* state.errorf: "template: output:L:C: executing "output" at <N>: …" */
PRINTF(2, 3)
static int exec_error(struct state *st, const char *fmt, ...)
{
	struct strbuf ctx = STRBUF_INIT, name = STRBUF_INIT;
	const char *src = st->t->src;
	int line = 1, col = st->at.pos;
	va_list ap;

	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	for (int i = 0; i < st->at.pos && src[i]; i++) {
		if (src[i] == '\n') {
			line++;
			col = st->at.pos - i - 1;
		}
	}
	if (st->at.arg)
		arg_string(st->at.arg, &ctx);
	else if (st->at.cmd)
		cmd_string(st->at.cmd, &ctx);
	else if (st->at.pipe)
		pipe_string(st->at.pipe, &ctx);
	else if (st->at.template)
		template_string(st->at.template, &ctx);
	gofmt_quote(st->tmpl->name, st->tmpl->len, &name);
	strbuf_reset(st->err);
	strbuf_addf(st->err, "template: output:%d:%d: executing %s at <%s>: %s",
		   line, col, name.buf, strbuf_str(&ctx), msg);
	free(msg);
	strbuf_release(&ctx);
	strbuf_release(&name);
	return -1;
}

static void var_push(struct state *st, const char *name, struct gv v)
{
	if (st->nvars == st->alloc) {
		st->alloc = st->alloc ? 2 * st->alloc : 8;
		st->vars = xrealloc(st->vars, st->alloc * sizeof(*st->vars));
	}
	st->vars[st->nvars++] = (struct var){ name, gv_ref(v) };
}

/*
 * state.setVar: an assignment to a variable not in scope now is told
 * here, not by the parser, which knows every name once it was seen.
 */
static int var_set(struct state *st, const char *name, struct gv v)
{
	for (size_t i = st->nvars; i-- > 0;) {
		if (!strcmp(st->vars[i].name, name)) {
			gv_put(&st->vars[i].v);
			st->vars[i].v = gv_ref(v);
			return 0;
		}
	}
	return exec_error(st, "undefined variable: %s", name);
}

static void vars_pop_to(struct state *st, size_t mark)
{
	while (st->nvars > mark)
		gv_put(&st->vars[--st->nvars].v);
}

/* state.varValue, into *v: false when name is not in scope (yet: {{$x := $x}}) */
static bool var_get(struct state *st, const char *name, struct gv *v)
{
	for (size_t i = st->nvars; i-- > 0;) {
		if (!strcmp(st->vars[i].name, name)) {
			*v = gv_ref(st->vars[i].v);
			return true;
		}
	}
	return false;
}

/* ---- fields, arguments, commands ----------------------------------------- */

/* state.evalField over a chain: .a.b on recv (taken), into *res. */
static int eval_chain(struct state *st, struct gv recv, char *const *fields, size_t n,
		      bool has_args, struct gv *res)
{
	for (size_t i = 0; i < n; i++) {
		struct gv next = gv_invalid;
		if (recv.kind == GV_INVALID && st->t->missingkey_error) {
			exec_error(st, "nil data; no entry for key \"%s\"", fields[i]);
			goto fail;
		} else if (recv.kind == GV_INVALID) {
			continue;	/* missingkey=default: no value, no error */
		} else if (!recv.j) {
			exec_error(st, "nil pointer evaluating interface {}.%s", fields[i]);
			goto fail;
		} else if (json_object_is_type(recv.j, json_type_object)) {
			struct json_object *m;
			if (has_args && i + 1 == n) {
				exec_error(st, "%s is not a method but has arguments", fields[i]);
				goto fail;
			}
			if (json_object_object_get_ex(recv.j, fields[i], &m)) {
				next = gv_take(GV_IFACE, m ? json_object_get(m) : NULL);
			} else if (st->t->missingkey_error) {
				exec_error(st, "map has no entry for key \"%s\"", fields[i]);
				goto fail;
			}
		} else {
			exec_error(st, "can't evaluate field %s in type %s", fields[i],
				   gv_static_type(recv));
			goto fail;
		}
		gv_put(&recv);
		recv = next;
	}
	*res = recv;
	return 0;
fail:
	gv_put(&recv);
	return -1;
}

static int eval_pipe(struct state *st, struct gv dot, const struct pipe *p, bool decl,
		     struct gv *res);
static int eval_function(struct state *st, struct gv dot, const struct cmd *c,
			 const struct arg *args, size_t nargs, const struct gv *final,
			 struct gv *res);

/*
 * An operand's value: fields and variables as they are (missing, nil).
 * has_args: it is a command's first word, given arguments; a chain of
 * fields then ends on a field that has them.
 */
static int eval_operand(struct state *st, struct gv dot, const struct arg *a, bool has_args,
			struct gv *res)
{
	struct gv v;

	at_arg(st, a);
	switch (a->type) {
	case A_DOT: *res = gv_ref(dot); return 0;
	case A_NIL: *res = gv_invalid; return 0;	/* an untyped nil */
	case A_LITERAL:
		if (!a->lit)
			return exec_error(st, "%s overflows int", a->text);
		*res = gv_take(GV_CONCRETE, json_object_get(a->lit));
		return 0;
	case A_FIELD: return eval_chain(st, gv_ref(dot), a->fields, a->nfields, has_args, res);
	case A_VAR:
		if (!var_get(st, a->text, &v))
			return exec_error(st, "undefined variable: %s", a->text);
		return eval_chain(st, v, a->fields, a->nfields, has_args, res);
	case A_IDENT:
		if (!a->nfields)
			return eval_function(st, dot, NULL, a, 1, NULL, res);
		/* {{len.items}}: len called with nothing (as itself), then the fields */
		struct arg term = *a;
		term.nfields = 0;
		term.pos = a->term_pos;
		at_arg(st, &term);
		/* evalChainNode: the fields' errors are told where the term's ended */
		if (eval_function(st, dot, NULL, &term, 1, NULL, &v) < 0)
			return -1;
		return eval_chain(st, v, a->fields, a->nfields, has_args, res);
	case A_PIPE:
		if (eval_pipe(st, dot, a->pipe, false, &v) < 0)
			return -1;
		return eval_chain(st, v, a->fields, a->nfields, has_args, res);
	}
	return -1;
}

static int eval_arg(struct state *st, struct gv dot, const struct arg *a, struct gv *res)
{
	return eval_operand(st, dot, a, false, res);
}

/* state.notAFunction */
static int not_a_function(struct state *st, const struct cmd *c, const struct gv *final)
{
	struct strbuf sb = STRBUF_INIT;

	if (c->nargs == 1 && !final)
		return 0;
	if (c->args[0].type == A_PIPE && !c->args[0].nfields)
		pipe_string(c->args[0].pipe, &sb);	/* PipeNode.String: no parentheses */
	else
		arg_string(&c->args[0], &sb);
	exec_error(st, "can't give argument to non-function %s", strbuf_str(&sb));
	strbuf_release(&sb);
	return -1;
}

/* state.evalCommand */
static int eval_cmd(struct state *st, struct gv dot, const struct cmd *c,
		    const struct gv *final, struct gv *res)
{
	const struct arg *first = &c->args[0];
	bool has_args = c->nargs > 1 || final;
	struct gv v;

	if (first->type == A_PIPE && !first->nfields) {
		/* a parenthesized pipeline: told where the last command left off */
		if (not_a_function(st, c, final) < 0)
			return -1;
		return eval_pipe(st, dot, first->pipe, false, res);
	}
	at_arg(st, first);
	if (first->type == A_IDENT && !first->nfields)
		return eval_function(st, dot, c, c->args, c->nargs, final, res);
	switch (first->type) {
	case A_IDENT:	/* a chain: {{len.items}}; its fields are told of the arguments */
	case A_FIELD:
	case A_PIPE:
		return eval_operand(st, dot, first, has_args, res);
	case A_VAR:	/* its value first: an undefined one is told before the arguments */
		if (eval_operand(st, dot, first, has_args, &v) < 0)
			return -1;
		if (!first->nfields && not_a_function(st, c, final) < 0) {
			gv_put(&v);
			return -1;
		}
		*res = v;
		return 0;
	default:
		if (not_a_function(st, c, final) < 0)
			return -1;
		if (first->type == A_NIL)
			return exec_error(st, "nil is not a command");
		return eval_arg(st, dot, first, res);
	}
}

/* state.evalPipeline; decl: declare or assign its variables */
static int eval_pipe(struct state *st, struct gv dot, const struct pipe *p, bool decl,
		     struct gv *res)
{
	struct gv v = gv_invalid;

	at_pipe(st, p);
	for (size_t i = 0; i < p->ncmds; i++) {
		struct gv next;
		if (eval_cmd(st, dot, &p->cmds[i], i ? &v : NULL, &next) < 0) {
			gv_put(&v);
			return -1;
		}
		gv_put(&v);
		v = next;
		/* each command's interface{} result becomes its dynamic value: nil is no value */
		if (v.kind == GV_IFACE)
			v.kind = v.j ? GV_CONCRETE : GV_INVALID;
	}
	for (size_t i = 0; decl && i < p->nvars; i++) {
		if (!p->assign) {
			var_push(st, p->vars[i], v);
		} else if (var_set(st, p->vars[i], v) < 0) {
			gv_put(&v);
			return -1;
		}
	}
	*res = v;
	return 0;
}

/* ---- the functions ------------------------------------------------------ */

/* a function's parameter, as evalArg converts an argument to it */
enum param { P_VALUE, P_ANY, P_STRING };

/* Returns -1 with msg set: the caller says "error calling NAME: msg". */
typedef int func_fn(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg);

/* basicKind; GO_KIND_BAD for maps, slices and no value (errBadComparisonType) */
static enum go_kind basic_kind(struct gv v)
{
	return gv_missing(v) ? GO_KIND_BAD : gofmt_basic_kind(v.j);
}

static int fn_eq(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	enum go_kind k1 = basic_kind(argv[0]);
	bool truth = false;

	if (n < 2) {
		strbuf_adds(msg, "missing argument for comparison");
		return -1;
	}
	for (size_t i = 1; i < n && !truth; i++) {
		enum go_kind k2 = basic_kind(argv[i]);
		bool m1 = gv_missing(argv[0]), m2 = gv_missing(argv[i]);
		if (k1 != k2) {
			if (!m1 && !m2) {
				strbuf_adds(msg, "incompatible types for comparison");
				return -1;
			}
		} else if (k1 != GO_KIND_BAD) {
			truth = gofmt_basic_cmp(k1, argv[0].j, argv[i].j) == 0;
		} else if (m1 || m2) {
			truth = m1 == m2;
		} else if (json_object_get_type(argv[0].j) != json_object_get_type(argv[i].j)) {
			/* canCompare: a map and a slice; "non-comparable types %s: %v, %s: %v" */
			struct json_object *a1 = argv[0].j, *arg = argv[i].j;
			strbuf_adds(msg, "non-comparable types ");
			go_sprintf("%s", 2, &a1, 1, gv_type, msg);
			strbuf_addf(msg, ": %s, %s: ", gv_type(a1), gv_type(arg));
			go_sprintf("%v", 2, &arg, 1, gv_type, msg);
			return -1;
		} else {
			/* Go's errorf("non-comparable type %s: %v", arg, type) */
			struct json_object *arg = argv[i].j;
			strbuf_adds(msg, "non-comparable type ");
			go_sprintf("%s", 2, &arg, 1, gv_type, msg);
			strbuf_addf(msg, ": %s", gv_type(arg));
			return -1;
		}
	}
	*res = gv_take(GV_CONCRETE, json_object_new_boolean(truth));
	return 0;
}

static int fn_ne(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	if (fn_eq(argv, n, res, msg) < 0)
		return -1;
	bool eq = json_object_get_boolean(res->j);
	gv_put(res);
	*res = gv_take(GV_CONCRETE, json_object_new_boolean(!eq));
	return 0;
}

/* lt, and le/gt/ge through it: -1 error, else 0/1 for a < b, *eq */
static int less(struct gv a, struct gv b, bool *eq, struct strbuf *msg)
{
	enum go_kind k1 = basic_kind(a), k2 = basic_kind(b);

	if (k1 == GO_KIND_BAD || k2 == GO_KIND_BAD || k1 == GO_KIND_BOOL || k2 == GO_KIND_BOOL) {
		strbuf_adds(msg, k1 == GO_KIND_BAD || k2 == GO_KIND_BAD || k1 == k2 ?
			    "invalid type for comparison" : "incompatible types for comparison");
		return -1;
	}
	if (k1 != k2) {
		strbuf_adds(msg, "incompatible types for comparison");
		return -1;
	}
	int c = gofmt_basic_cmp(k1, a.j, b.j);
	*eq = c == 0;
	return c < 0;
}

#define COMPARE_FN(name, expr)							\
static int name(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)	\
{										\
	bool eq = false;							\
	int lt = less(argv[0], argv[1], &eq, msg);				\
	if (lt < 0)								\
		return -1;							\
	*res = gv_take(GV_CONCRETE, json_object_new_boolean(expr));		\
	return 0;								\
}
COMPARE_FN(fn_lt, lt)
COMPARE_FN(fn_le, lt || eq)
COMPARE_FN(fn_gt, !lt && !eq)
COMPARE_FN(fn_ge, !lt)

static int fn_not(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	*res = gv_take(GV_CONCRETE, json_object_new_boolean(!gv_truth(argv[0])));
	return 0;
}

static int fn_len(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct json_object *j = argv[0].j;
	int64_t len;

	if (argv[0].kind == GV_INVALID) {
		strbuf_adds(msg, "reflect: call of reflect.Value.Type on zero Value");
		return -1;
	}
	if (!j) {
		strbuf_adds(msg, "len of nil pointer");
		return -1;
	}
	switch (json_object_get_type(j)) {
	case json_type_string: len = json_object_get_string_len(j); break;
	case json_type_array: len = (int64_t)json_object_array_length(j); break;
	case json_type_object: len = json_object_object_length(j); break;
	default:
		strbuf_addf(msg, "len of type %s", gv_type(j));
		return -1;
	}
	*res = gv_take(GV_CONCRETE, go_int(len));
	return 0;
}

/* indexArg: a slice index, 0 to cap. */
static int index_arg(struct gv idx, size_t cap, size_t *x, struct strbuf *msg)
{
	if (gv_missing(idx) || !json_object_is_type(idx.j, json_type_int)) {
		strbuf_addf(msg, "cannot index slice/array with %s%s", gv_missing(idx) ? "nil" : "type ",
			    gv_missing(idx) ? "" : gv_type(idx.j));
		return -1;
	}
	int64_t v = json_object_get_int64(idx.j);
	if (v < 0 || (uint64_t)v > cap) {
		strbuf_addf(msg, "index out of range: %lld", (long long)v);
		return -1;
	}
	*x = (size_t)v;
	return 0;
}

/* one step of index: item[idx] into *next (an interface{} element) */
static int index_one(struct json_object *item, struct gv idx, struct gv *next,
		     struct strbuf *msg)
{
	struct json_object *e = NULL;
	bool array = json_object_is_type(item, json_type_array);

	if (array || json_object_is_type(item, json_type_string)) {
		size_t x, len = array ? json_object_array_length(item) :
				(size_t)json_object_get_string_len(item);
		if (index_arg(idx, len, &x, msg) < 0)
			return -1;
		if (x == len) {	/* indexArg lets it by: reflect's Index panics */
			strbuf_addf(msg, "reflect: %s index out of range", array ? "slice" : "string");
			return -1;
		}
		if (!array) {
			*next = gv_take(GV_CONCRETE, go_typed((unsigned char)json_object_get_string(item)[x],
							      go_uint8_mark));
			return 0;
		}
		e = json_object_array_get_idx(item, x);
	} else if (json_object_is_type(item, json_type_object)) {
		if (gv_missing(idx)) {
			strbuf_adds(msg, "value is nil; should be of type string");
			return -1;
		}
		if (!json_object_is_type(idx.j, json_type_string)) {
			strbuf_addf(msg, "value has type %s; should be string", gv_type(idx.j));
			return -1;
		}
		e = json_object_object_get(item, json_object_get_string(idx.j));
	} else {
		strbuf_addf(msg, "can't index item of type %s", gv_type(item));
		return -1;
	}
	*next = gv_take(GV_IFACE, e ? json_object_get(e) : NULL);
	return 0;
}

static int fn_index(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct gv item = gv_ref(argv[0]);

	if (gv_missing(item)) {
		strbuf_adds(msg, "index of untyped nil");
		goto fail;
	}
	for (size_t i = 1; i < n; i++) {
		struct gv next;
		if (!item.j) {
			strbuf_adds(msg, "index of nil pointer");
			goto fail;
		}
		if (index_one(item.j, argv[i], &next, msg) < 0)
			goto fail;
		gv_put(&item);
		item = next;
	}
	*res = item;
	return 0;
fail:
	gv_put(&item);
	return -1;
}

/*
 * fmt.Sprint / Sprintln over the arguments' dynamic values; with
 * printable, as evalArgs hands them to it (printableValue): no value
 * (nil, a missing key, JSON null) is the string "<no value>".
 */
static void sprint(struct gv *argv, size_t n, bool ln, bool printable, struct strbuf *out)
{
	bool prev_string = false;

	for (size_t i = 0; i < n; i++) {
		bool none = printable && !argv[i].j;
		bool is_string = none || (argv[i].j && json_object_is_type(argv[i].j, json_type_string));
		if (i && (ln || (!is_string && !prev_string)))
			strbuf_addch(out, ' ');
		if (none)
			strbuf_adds(out, "<no value>");
		else
			gofmt_print(argv[i].j, out);
		prev_string = is_string;
	}
	if (ln)
		strbuf_addch(out, '\n');
}

static int to_string(struct strbuf *sb, struct gv *res)
{
	*res = gv_take(GV_CONCRETE, json_object_new_string_len(sb->buf ? sb->buf : "",
								 (int)sb->len));
	strbuf_release(sb);
	return 0;
}

static int fn_print(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;

	sprint(argv, n, false, false, &sb);
	return to_string(&sb, res);
}

static int fn_println(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;

	sprint(argv, n, true, false, &sb);
	return to_string(&sb, res);
}

static int fn_printf(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object **args = xcalloc(n, sizeof(*args));

	for (size_t i = 1; i < n; i++)
		args[i - 1] = argv[i].j;
	go_sprintf(json_object_get_string(argv[0].j), (size_t)json_object_get_string_len(argv[0].j),
		   args, n - 1, gv_type, &sb);
	free(args);
	return to_string(&sb, res);
}

/* kubectl's exists: whether index would find the element, and not nil */
static int fn_exists(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct json_object *v = argv[0].j;
	bool ok = true;

	for (size_t i = 1; i < n && ok; i++) {
		struct json_object *idx = argv[i].j;
		if (!v) {
			ok = false;
		} else if (json_object_is_type(v, json_type_array)) {
			int64_t x = idx && json_object_is_type(idx, json_type_int) ?
				    json_object_get_int64(idx) : -1;
			ok = x >= 0 && (size_t)x < json_object_array_length(v);
			v = ok ? json_object_array_get_idx(v, (size_t)x) : NULL;
		} else if (json_object_is_type(v, json_type_object)) {
			ok = !idx || json_object_is_type(idx, json_type_string);
			v = ok && idx ? json_object_object_get(v, json_object_get_string(idx)) : NULL;
		} else {
			ok = false;
		}
	}
	if (n > 1 && !v)
		ok = false;
	*res = gv_take(GV_CONCRETE, json_object_new_boolean(ok));
	return 0;
}

/*
 * Where Go's base64.StdEncoding rejects s (its decodeQuantum): padding
 * required, '\r' and '\n' skipped; -1 when it accepts it.
 */
static long base64_bad_byte(const unsigned char *s, size_t len)
{
	size_t si = 0;

	while (si < len) {
		int j;
		for (j = 0; j < 4; j++) {
			if (si == len)
				return j == 0 ? -1 : (long)(si - (size_t)j);
			unsigned char c = s[si++];
			if (isalnum(c) || c == '+' || c == '/')
				continue;
			if (c == '\n' || c == '\r') {
				j--;
				continue;
			}
			if (c != '=' || j < 2)
				return (long)si - 1;
			if (j == 2) {		/* a second '=' must follow */
				while (si < len && (s[si] == '\n' || s[si] == '\r'))
					si++;
				if (si == len)
					return (long)len;
				if (s[si] != '=')
					return (long)si - 1;
				si++;
			}
			while (si < len && (s[si] == '\n' || s[si] == '\r'))
				si++;
			return si < len ? (long)si : -1;
		}
	}
	return -1;
}

static int fn_base64decode(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	const char *s = json_object_get_string(argv[0].j);
	size_t len = (size_t)json_object_get_string_len(argv[0].j);
	long bad = base64_bad_byte((const unsigned char *)s, len);
	struct strbuf sb = STRBUF_INIT;

	if (bad >= 0 || base64_decode(s, len, &sb) < 0) {
		strbuf_release(&sb);
		strbuf_addf(msg, "base64 decode failed: illegal base64 data at input byte %ld",
			    bad < 0 ? 0 : bad);
		return -1;
	}
	return to_string(&sb, res);
}

/* slice x 1 2: x[1:2] of a string or an array (a slice's capacity is its length here) */
static int fn_slice(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	struct json_object *item = argv[0].j;
	size_t idx[3] = { 0 }, len;

	if (gv_missing(argv[0]) || !item) {
		strbuf_adds(msg, "slice of untyped nil");
		return -1;
	}
	if (n > 4) {
		strbuf_addf(msg, "too many slice indexes: %zu", n - 1);
		return -1;
	}
	if (json_object_is_type(item, json_type_string)) {
		if (n == 4) {
			strbuf_adds(msg, "cannot 3-index slice a string");
			return -1;
		}
		len = (size_t)json_object_get_string_len(item);
	} else if (json_object_is_type(item, json_type_array)) {
		len = json_object_array_length(item);
	} else {
		strbuf_addf(msg, "can't slice item of type %s", gv_type(item));
		return -1;
	}
	idx[1] = len;
	for (size_t i = 1; i < n; i++)
		if (index_arg(argv[i], len, &idx[i - 1], msg) < 0)
			return -1;
	for (size_t i = 0; i + 1 < (n == 4 ? 3 : 2); i++)
		if (idx[i] > idx[i + 1]) {
			strbuf_addf(msg, "invalid slice index: %zu > %zu", idx[i], idx[i + 1]);
			return -1;
		}
	if (json_object_is_type(item, json_type_string)) {
		const char *s = json_object_get_string(item);
		*res = gv_take(GV_CONCRETE, json_object_new_string_len(s + idx[0],
									 (int)(idx[1] - idx[0])));
		return 0;
	}
	struct json_object *a = json_object_new_array_ext((int)(idx[1] - idx[0]));
	for (size_t i = idx[0]; i < idx[1]; i++) {
		struct json_object *e = json_object_array_get_idx(item, i);
		json_object_array_add(a, e ? json_object_get(e) : NULL);
	}
	*res = gv_take(GV_CONCRETE, a);
	return 0;
}

/* html/template's HTMLEscapeString */
static void html_escape(const char *s, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '"': strbuf_adds(out, "&#34;"); break;
		case '\'': strbuf_adds(out, "&#39;"); break;
		case '&': strbuf_adds(out, "&amp;"); break;
		case '<': strbuf_adds(out, "&lt;"); break;
		case '>': strbuf_adds(out, "&gt;"); break;
		case '\0': strbuf_adds(out, "\xef\xbf\xbd"); break;
		default: strbuf_addch(out, s[i]);
		}
	}
}

/* JSEscapeString: quotes, <>&= and controls as escapes, runes that do not print as \uXXXX */
static void js_escape(const char *s, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = c == '\\' ? "\\\\" : c == '\'' ? "\\'" : c == '"' ? "\\\"" :
				  c == '<' ? "\\u003C" : c == '>' ? "\\u003E" : c == '&' ? "\\u0026" :
				  c == '=' ? "\\u003D" : NULL;
		size_t k;
		uint32_t r = utf8_decode(s + i, len - i, &k);
		if (esc)
			strbuf_adds(out, esc);
		else if (c < ' ')
			strbuf_addf(out, "\\u00%02X", c);
		else if (c < 0x80 || k == 1 || gofmt_is_print(r))
			strbuf_add(out, s + i, k);	/* a byte that starts no rune too */
		else
			strbuf_addf(out, "\\u%04X", r);
		i += k - 1;
	}
}

/* url.QueryEscape */
static void query_escape(const char *s, size_t len, struct strbuf *out)
{
	url_query_escape(out, s, len);
}

/* html, js, urlquery: an escaper over the arguments' fmt.Sprint (evalArgs) */
static int escaper(struct gv *argv, size_t n, struct gv *res,
		   void (*escape)(const char *s, size_t len, struct strbuf *out))
{
	struct strbuf text = STRBUF_INIT, sb = STRBUF_INIT;

	sprint(argv, n, false, true, &text);
	escape(text.buf, text.len, &sb);
	strbuf_release(&text);
	return to_string(&sb, res);
}

static int fn_html(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	return escaper(argv, n, res, html_escape);
}

static int fn_js(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	return escaper(argv, n, res, js_escape);
}

static int fn_urlquery(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	return escaper(argv, n, res, query_escape);
}

/*
 * call: JSON data holds no function, so always Go's error.  msg comes
 * holding the callee's name, as eval_function() gives it.
 */
static int fn_call(struct gv *argv, size_t n, struct gv *res, struct strbuf *msg)
{
	char *name = strbuf_detach(msg, NULL);

	if (gv_missing(argv[0]) || !argv[0].j)
		strbuf_adds(msg, "call of nil");
	else
		strbuf_addf(msg, "non-function %s of type %s", name, gv_type(argv[0].j));
	free(name);
	return -1;
}

struct func {
	const char *name;
	size_t nfixed;
	bool variadic;
	enum param fixed[2], rest;
	func_fn *fn;
};

static const struct func funcs[] = {
	{ "and", 1, true, { P_VALUE }, P_VALUE, NULL },
	{ "or", 1, true, { P_VALUE }, P_VALUE, NULL },
	{ "not", 1, false, { P_VALUE }, 0, fn_not },
	{ "len", 1, false, { P_VALUE }, 0, fn_len },
	{ "index", 1, true, { P_VALUE }, P_VALUE, fn_index },
	{ "print", 0, true, { 0 }, P_ANY, fn_print },
	{ "println", 0, true, { 0 }, P_ANY, fn_println },
	{ "printf", 1, true, { P_STRING }, P_ANY, fn_printf },
	{ "eq", 1, true, { P_VALUE }, P_VALUE, fn_eq },
	{ "ne", 2, false, { P_VALUE, P_VALUE }, 0, fn_ne },
	{ "lt", 2, false, { P_VALUE, P_VALUE }, 0, fn_lt },
	{ "le", 2, false, { P_VALUE, P_VALUE }, 0, fn_le },
	{ "gt", 2, false, { P_VALUE, P_VALUE }, 0, fn_gt },
	{ "ge", 2, false, { P_VALUE, P_VALUE }, 0, fn_ge },
	{ "exists", 1, true, { P_ANY }, P_ANY, fn_exists },
	{ "base64decode", 1, false, { P_STRING }, 0, fn_base64decode },
	{ "slice", 1, true, { P_VALUE }, P_VALUE, fn_slice },
	{ "html", 0, true, { 0 }, P_ANY, fn_html },
	{ "js", 0, true, { 0 }, P_ANY, fn_js },
	{ "urlquery", 0, true, { 0 }, P_ANY, fn_urlquery },
	{ "call", 1, true, { P_VALUE }, P_VALUE, fn_call },
};

static const struct func *func_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}

/* evalArg/validateType: v (taken) as parameter type p; a NULL for the
 * value piped in */
static int convert(struct state *st, const struct arg *a, struct gv v, enum param p,
		   struct gv *res)
{
	if (p == P_STRING && a && a->type == A_LITERAL &&
	    !json_object_is_type(a->lit, json_type_string)) {
		gv_put(&v);
		return exec_error(st, "expected string; found %s", a->text);
	}
	if (p == P_STRING && a && a->type == A_NIL)
		return exec_error(st, "cannot assign nil to string");
	if (v.kind == GV_INVALID) {
		if (p == P_ANY) {
			*res = gv_take(GV_CONCRETE, NULL);
			return 0;
		}
		/* canBeNil(reflect.Value): a builtin takes no value as the zero Value */
		if (p == P_VALUE) {
			*res = v;
			return 0;
		}
		return exec_error(st, "invalid value; expected string");
	}
	if (p == P_STRING && !(v.j && json_object_is_type(v.j, json_type_string))) {
		const char *type = v.j ? gv_type(v.j) : "interface {}";
		gv_put(&v);
		return exec_error(st, "wrong type for value; expected string; got %s", type);
	}
	*res = v;
	return 0;
}

static enum param param_of(const struct func *f, size_t i)
{
	return i < f->nfixed ? f->fixed[i] : f->rest;
}

/* and, or: the first value that decides, evaluated left to right */
static int eval_and_or(struct state *st, struct gv dot, const struct func *f,
		       const struct arg *args, size_t nargs, const struct gv *final,
		       struct gv *res)
{
	bool is_or = f->name[0] == 'o';
	struct gv v = gv_invalid;

	for (size_t i = 1; i < nargs; i++) {
		struct gv raw;
		gv_put(&v);
		if (eval_arg(st, dot, &args[i], &raw) < 0 ||
		    convert(st, &args[i], raw, P_VALUE, &v) < 0)
			return -1;
		if (gv_truth(v) == is_or) {
			*res = v;
			return 0;
		}
	}
	if (final) {
		gv_put(&v);
		if (convert(st, NULL, gv_ref(*final), P_VALUE, &v) < 0)
			return -1;
	}
	*res = v;
	return 0;
}

static int check_nargs(struct state *st, const struct func *f, size_t nin, size_t nargs)
{
	if (f->variadic && nin < f->nfixed)
		return exec_error(st, "wrong number of args for %s: want at least %zu got %zu",
				  f->name, f->nfixed, nargs);
	if (!f->variadic && nin != f->nfixed)
		return exec_error(st, "wrong number of args for %s: want %zu got %zu",
				  f->name, f->nfixed, nin);
	return 0;
}

/*
 * The name evalCall gives call's callee: its argument node's String() (a
 * parenthesized pipeline's without the parentheses), or the value from
 * the pipeline as reflect.Value's String() shows it.
 */
static void callee_name(const struct arg *args, size_t nargs, const struct gv *final,
			struct strbuf *out)
{
	if (nargs > 1 && args[1].type == A_PIPE && !args[1].nfields)
		pipe_string(args[1].pipe, out);
	else if (nargs > 1)
		arg_string(&args[1], out);
	else if (final->j && json_object_is_type(final->j, json_type_string))
		strbuf_adds(out, json_object_get_string(final->j));
	else if (!gv_missing(*final) && final->j)
		strbuf_addf(out, "<%s Value>", gv_type(final->j));
}

/* state.evalFunction + evalCall; args[0] is the function's name */
static int eval_function(struct state *st, struct gv dot, const struct cmd *c,
			 const struct arg *args, size_t nargs, const struct gv *final,
			 struct gv *res)
{
	const struct func *f = func_find(args[0].text);
	size_t nin = nargs - 1 + (final ? 1 : 0), n = 0;
	struct gv *argv;
	struct strbuf msg = STRBUF_INIT;
	int ret = -1;

	at_arg(st, &args[0]);
	if (check_nargs(st, f, nin, nargs - 1) < 0)
		return -1;
	if (!f->fn)
		return eval_and_or(st, dot, f, args, nargs, final, res);
	argv = xcalloc(nin + 1, sizeof(*argv));
	for (; n + 1 < nargs; n++) {
		struct gv raw;
		if (eval_arg(st, dot, &args[n + 1], &raw) < 0 ||
		    convert(st, &args[n + 1], raw, param_of(f, n), &argv[n]) < 0)
			goto out;
	}
	if (final) {
		if (convert(st, NULL, gv_ref(*final), param_of(f, n), &argv[n]) < 0)
			goto out;
		n++;
	}
	if (f->fn == fn_call)
		callee_name(args, nargs, final, &msg);
	if (f->fn(argv, n, res, &msg) < 0) {
		if (c)
			at_cmd(st, c);
		else
			at_arg(st, &args[0]);
		exec_error(st, "error calling %s: %s", f->name, strbuf_str(&msg));
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		gv_put(&argv[i]);
	free(argv);
	strbuf_release(&msg);
	return ret;
}

/* ---- walking the tree ------------------------------------------------- */

static int walk_list(struct state *st, struct gv dot, const struct list *l);

/* one iteration of a range: its variables, then the body */
static int range_one(struct state *st, const struct node *n, struct gv index,
		     struct gv elem, size_t mark)
{
	const struct pipe *p = n->pipe;
	int rc;

	if (st->t->max_iterations && ++st->iterations > st->t->max_iterations)
		return exec_error(st, "past kinf's limit of %llu range iterations",
				  (unsigned long long)st->t->max_iterations);
	if (p->nvars && p->assign) {
		if (var_set(st, p->vars[0], p->nvars > 1 ? index : elem) < 0 ||
		    (p->nvars > 1 && var_set(st, p->vars[1], elem) < 0)) {
			vars_pop_to(st, mark);
			return -1;
		}
	} else if (p->nvars) {
		gv_put(&st->vars[mark - 1].v);
		st->vars[mark - 1].v = gv_ref(elem);
		if (p->nvars > 1) {
			gv_put(&st->vars[mark - 2].v);
			st->vars[mark - 2].v = gv_ref(index);
		}
	}
	rc = walk_list(st, elem, &n->body);
	vars_pop_to(st, mark);
	return rc;
}

/* the iterations over val; *ran says whether there was one */
static int range_over(struct state *st, const struct node *n, struct gv val, bool *ran)
{
	struct json_object *j = val.j;
	size_t mark = st->nvars, count = 0;
	int rc = 0;

	if (val.kind == GV_INVALID)
		return 0;
	if (json_object_is_type(j, json_type_array)) {
		count = json_object_array_length(j);
		for (size_t i = 0; i < count && rc == 0 && st->jump != 1; i++) {
			struct json_object *e = json_object_array_get_idx(j, i);
			struct gv idx = gv_take(GV_CONCRETE, go_int((int64_t)i));
			st->jump = 0;
			rc = range_one(st, n, idx, gv_take(GV_IFACE, e), mark);
			gv_put(&idx);
		}
	} else if (json_object_is_type(j, json_type_object)) {
		const char **keys = gofmt_sorted_keys(j, &count);
		for (size_t i = 0; i < count && rc == 0 && st->jump != 1; i++) {
			struct gv key = gv_take(GV_CONCRETE, json_object_new_string(keys[i]));
			st->jump = 0;
			rc = range_one(st, n, key, gv_take(GV_IFACE, json_object_object_get(j, keys[i])), mark);
			gv_put(&key);
		}
		free(keys);
	} else if (json_object_is_type(j, json_type_int) && n->pipe->nvars < 2) {
		/* Go 1.24: 0 to n-1, of n's type, and no index */
		char *type = go_mark(j);
		int64_t to = json_object_get_int64(j);
		for (int64_t i = 0; i < to && rc == 0 && st->jump != 1; i++, count++) {
			struct gv e = gv_take(GV_CONCRETE, go_typed(i, type));
			st->jump = 0;
			rc = range_one(st, n, gv_invalid, e, mark);
			gv_put(&e);
		}
	} else {
		struct strbuf sb = STRBUF_INIT;
		gofmt_print(j, &sb);	/* told where the pipeline's evaluation left off */
		if (json_object_is_type(j, json_type_int))
			exec_error(st, "can't use %s to iterate over more than one variable", sb.buf);
		else
			exec_error(st, "range can't iterate over %s", sb.buf);
		strbuf_release(&sb);
		return -1;
	}
	st->jump = 0;
	*ran = count > 0;
	return rc;
}

/*
 * text/template stops a template calling templates at maxExecDepth.  Its
 * goroutine's stack grows to a gigabyte; a thread's here does not, so a
 * call or control structure that would leave less than this much of it
 * stops too, with its own error.  The main thread's stack grows as far as
 * RLIMIT_STACK lets it, when it is hit: room_to_recurse() lets it grow to
 * MAIN_STACK, where Go's limit comes first (some 250 bytes a call).
 */
#define MAX_EXEC_DEPTH 100000
#define STACK_RESERVE (256 * 1024)
#define MAIN_STACK (64u << 20)

static void room_to_recurse(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < MAIN_STACK && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= MAIN_STACK)) {
		rl.rlim_cur = MAIN_STACK;
		setrlimit(RLIMIT_STACK, &rl);
	}
}

static bool stack_short(void)
{
	static __thread uintptr_t low;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (!low) {
		pthread_attr_t attr;
		void *addr;
		size_t size;
		if (pthread_getattr_np(pthread_self(), &attr) != 0)
			return false;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0)
			low = (uintptr_t)addr;
		pthread_attr_destroy(&attr);
		if (!low)
			return false;
	}
	return here - low < STACK_RESERVE;
}

static int walk_list(struct state *st, struct gv dot, const struct list *l);

/* state.walkTemplate: the template named, on the pipeline's value, with $ alone. */
static int walk_template(struct state *st, struct gv dot, const struct node *n)
{
	const struct def *callee = def_find(st->t, n->text, n->len);
	const struct def *caller = st->tmpl;
	struct gv v = gv_invalid;
	struct strbuf q = STRBUF_INIT;
	int rc = -1;

	at_template(st, n);
	if (!callee) {
		gofmt_quote(n->text, n->len, &q);
		exec_error(st, "template %s not defined", q.buf);
		goto done;
	}
	if (st->depth == MAX_EXEC_DEPTH) {
		exec_error(st, "exceeded maximum template depth (%d)", MAX_EXEC_DEPTH);
		goto done;
	}
	if (stack_short()) {
		exec_error(st, "template depth %d takes more stack than kinf has (Go's limit "
			   "is %d)", st->depth, MAX_EXEC_DEPTH);
		goto done;
	}
	/* the pipeline's variables are the caller's, as Go keeps them */
	if (n->pipe && eval_pipe(st, dot, n->pipe, true, &v) < 0)
		goto done;
	size_t mark = st->nvars;
	var_push(st, "$", v);
	st->tmpl = callee;
	st->depth++;
	rc = walk_list(st, v, &callee->body);
	st->depth--;
	st->tmpl = caller;
	vars_pop_to(st, mark);
done:
	gv_put(&v);
	strbuf_release(&q);
	return rc;
}

static int walk_control(struct state *st, struct gv dot, const struct node *n)
{
	size_t mark = st->nvars;
	struct gv v;
	bool yes = false;
	int rc;

	if (stack_short()) {
		at_cmd(st, &n->pipe->cmds[0]);
		return exec_error(st, "nested deeper than kinf's stack");
	}
	if (eval_pipe(st, dot, n->pipe, true, &v) < 0)
		return -1;
	if (n->type == N_RANGE) {
		rc = range_over(st, n, v, &yes);
	} else {
		yes = gv_truth(v);
		rc = yes ? walk_list(st, n->type == N_WITH ? v : dot, &n->body) : 0;
	}
	if (rc == 0 && !yes)
		rc = walk_list(st, dot, &n->otherwise);
	gv_put(&v);
	vars_pop_to(st, mark);
	return rc;
}

static int walk_list(struct state *st, struct gv dot, const struct list *l)
{
	for (size_t i = 0; i < l->n && !st->jump; i++) {
		const struct node *n = l->v[i];
		struct gv v;
		switch (n->type) {
		case N_TEXT:
			strbuf_add(st->out, n->text, n->len);
			break;
		case N_ACTION:
			if (eval_pipe(st, dot, n->pipe, true, &v) < 0)
				return -1;
			if (!n->pipe->nvars) {
				if (v.kind == GV_INVALID)
					strbuf_adds(st->out, "<no value>");
				else
					gofmt_print(v.j, st->out);
			}
			gv_put(&v);
			break;
		case N_BREAK: case N_CONTINUE:
			st->jump = n->type == N_BREAK ? 1 : 2;
			break;
		case N_TEMPLATE:
			if (walk_template(st, dot, n) < 0)
				return -1;
			break;
		default:
			if (walk_control(st, dot, n) < 0)
				return -1;
		}
	}
	return 0;
}

int gotemplate_execute(const struct gotemplate *t, struct json_object *data,
		       struct strbuf *out, struct strbuf *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct state st = { .t = t, .out = out, .err = err, .tmpl = def_find(t, "output", 6) };
	struct gv root = gv_take(GV_CONCRETE, gotemplate_data(data));
	int rc;

	pthread_once(&once, room_to_recurse);

	var_push(&st, "$", root);
	rc = walk_list(&st, root, &st.tmpl->body);
	vars_pop_to(&st, 0);
	free(st.vars);
	gv_put(&root);
	return rc;
}
