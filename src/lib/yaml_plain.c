/*
 * yaml_plain.c — go-yaml v2's resolve() for plain scalars; see
 * yaml_plain.h.
 */
#include "lib/yaml_plain.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static const char *const trues[] = {
	"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL,
};
static const char *const falses[] = {
	"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL,
};
static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
static const char *const floats[] = {
	".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
	"-.inf", "-.Inf", "-.INF", NULL,
};

/*
 * Go's strconv.ParseInt or ParseUint with base 0 (0x, 0o, 0b and a
 * leading 0 for octal): whether one takes s.  A decimal beyond 64 bits
 * counts, as ParseFloat takes it next; a prefixed one does not.
 */
static bool go_int(const char *s)
{
	const char *p = s;
	bool negative = *p == '-';
	int base = 10;
	uint64_t v = 0;
	bool over = false;

	if (*p == '+' || *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
		base = 2, p += 2;
	else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
		base = 8, p += 2;
	else if (p[0] == '0' && p[1])
		base = 8, p += 1;
	if (!*p)
		return false;
	for (; *p; p++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			isalpha((unsigned char)*p) ? tolower((unsigned char)*p) - 'a' + 10 : 99;
		if (d >= base)
			return false;
		over |= v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (negative)
		over |= v > (uint64_t)INT64_MAX + 1;
	return !over || base == 10;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
	static const char digits[] = "0123456789";
	const char *p = s + (*s == '+' || *s == '-');
	size_t whole = strspn(p, digits);
	size_t fraction = p[whole] == '.' ? strspn(p + whole + 1, digits) : 0;

	if (!whole && !fraction)
		return false;
	p += whole + (p[whole] == '.') + fraction;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		p += strspn(p, digits);
	}
	return !*p;
}

/*
 * Go's strconv.ParseFloat, roughly: a decimal float, inf or nan words; a
 * number beyond the float64 range is an error (1e400 stays a string).
 */
static bool go_float(const char *s)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	double d = strtod(s, &end);
	if (isinf(d) && isdigit((unsigned char)s[strspn(s, "+-.")]))
		return false;
	return !*end && (isdigit((unsigned char)s[strspn(s, "+-.")]) ||
			 strchr("iInN", s[strspn(s, "+-")]));
}

/* A sign or digit first: an int, a YAML-style float or a binary int, '_' dropped. */
static bool number(const char *s)
{
	char *plain = xstrdup(s), *d = plain;

	for (const char *q = s; *q; q++)
		if (*q != '_')
			*d++ = *q;
	*d = '\0';
	bool yes = go_int(plain) || (yaml_style_float(plain) && go_float(plain));
	free(plain);
	return yes;
}

enum yaml_plain yaml_plain_kind(const char *s)
{
	char c = *s;

	if (strv_has(nulls, s))
		return YAML_PLAIN_NULL;
	if (strv_has(trues, s) || strv_has(falses, s))
		return YAML_PLAIN_BOOL;
	if (strv_has(floats, s))
		return YAML_PLAIN_NUMBER;
	if (c == '.')
		return go_float(s) ? YAML_PLAIN_NUMBER : YAML_PLAIN_STRING;
	if (c == '+' || c == '-' || isdigit((unsigned char)c))
		return number(s) ? YAML_PLAIN_NUMBER : YAML_PLAIN_STRING;
	return YAML_PLAIN_STRING;
}

bool yaml_plain_true(const char *s)
{
	return strv_has(trues, s);
}

const char *yaml_plain_name(enum yaml_plain kind)
{
	static const char *const names[] = {
		[YAML_PLAIN_STRING] = "a string", [YAML_PLAIN_NULL] = "null",
		[YAML_PLAIN_BOOL] = "a boolean", [YAML_PLAIN_NUMBER] = "a number",
	};
	return names[kind];
}
