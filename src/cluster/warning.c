/* warning.c — Warning headers, as apimachinery parses them; see warning.h. */
#include "cluster/warning.h"

#include <stdbool.h>
#include <string.h>

#include "lib/strbuf.h"

/* A quoted-string at p: its text (a backslash escapes the byte after it) and what follows. */
static const char *quoted(const char *p, struct strbuf *text)
{
	bool escaping = false;

	if (*p++ != '"')
		return NULL;
	for (; *p; p++) {
		if (*p == '"' && !escaping)
			return p + 1;
		if (*p == '\\' && !escaping) {
			escaping = true;
			continue;
		}
		strbuf_addch(text, *p);
		escaping = false;
	}
	return NULL;	/* unterminated */
}

/* One warning-value at p; NULL when it does not parse, else what follows it. */
static const char *one(const char *p, int *code, struct strbuf *text)
{
	while (*p == ' ' || *p == '\t')
		p++;
	const char *sp = strchr(p, ' ');
	if (!sp || sp - p != 3 || strspn(p, "0123456789") != 3)
		return NULL;
	*code = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
	const char *agent = sp + 1, *agent_end = strchr(agent, ' ');
	if (!agent_end || agent_end == agent)
		return NULL;
	for (const char *a = agent; a < agent_end; a++)
		if ((unsigned char)*a < 0x20 || *a == 0x7f)
			return NULL;
	p = quoted(agent_end + 1, text);
	if (!p)
		return NULL;
	if (!strncmp(p, " \"", 2)) {
		struct strbuf date = STRBUF_INIT;
		p = quoted(p + 1, &date);
		strbuf_release(&date);
		if (!p)
			return NULL;
	}
	if (*p && *p != ',')
		return NULL;
	return *p ? p + 1 : p;
}

void warning_header_each(const char *value, warning_fn *fn, void *ctx)
{
	const char *p = value;

	while (*p) {
		struct strbuf text = STRBUF_INIT;
		int code = 0;
		p = one(p, &code, &text);
		if (p && code == 299 && text.len)
			fn(ctx, text.buf);
		strbuf_release(&text);
		if (!p)
			break;
	}
}
