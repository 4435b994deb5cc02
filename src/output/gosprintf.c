/*
 * gosprintf.c — fmt.Sprintf over JSON values; see gosprintf.h.
 *
 * Written after Go's fmt (print.go's doPrintf and printArg, format.go's
 * formatters): each step below names the function it follows.
 */
#include "output/gosprintf.h"

#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/gofmt.h"

/*
 * One verb's flags, as doPrintf leaves them: - clears 0, and %v moves #
 * and + to sharp_v (Go syntax) and plus_v (no sign).
 */
struct spec {
	bool minus, plus, sharp, zero, space, sharp_v, plus_v;
	bool wid_present, prec_present;
	int wid, prec;
	char verb;		/* the verb's byte; 0 for one beyond ASCII */
	char verb_text[5];	/* its UTF-8 */
	gosprintf_type_fn *type_of;
};

/* writePadding: n of '0' (the 0 flag) or ' '. */
static void write_padding(struct strbuf *out, long n, const struct spec *sp)
{
	while (n-- > 0)
		strbuf_addch(out, sp->zero ? '0' : ' ');
}

/* pad: s[0..len) in the width, counted in runes. */
static void pad(struct strbuf *out, const char *s, size_t len, const struct spec *sp)
{
	long runes = 0;

	for (size_t i = 0; i < len; i++)
		runes += ((unsigned char)s[i] & 0xc0) != 0x80;
	long fill = sp->wid_present ? sp->wid - runes : 0;
	if (!sp->minus)
		write_padding(out, fill, sp);
	strbuf_add(out, s, len);
	if (sp->minus)
		write_padding(out, fill, sp);
}

static void pad_sb(struct strbuf *out, struct strbuf *sb, const struct spec *sp)
{
	pad(out, sb->buf ? sb->buf : "", sb->len, sp);
	strbuf_release(sb);
}

static void print_value(struct json_object *j, const struct spec *sp, struct strbuf *out);

/* badVerb: %!d(string=abc), the value printed with the verb's flags. */
static void bad_verb(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	struct spec v = *sp;

	strbuf_addf(out, "%%!%s(", sp->verb_text);
	if (j) {
		strbuf_addf(out, "%s=", sp->type_of(j));
		v.verb = 'v';
		print_value(j, &v, out);
	} else {
		strbuf_adds(out, "<nil>");
	}
	strbuf_addch(out, ')');
}

/* utf8.EncodeRune; a rune that is none is U+FFFD. */
static void add_rune(struct strbuf *sb, uint64_t r)
{
	strbuf_add_utf8(sb, r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff) ? 0xfffd : (uint32_t)r);
}

/* fmt.fmtInteger: sign, 0x/0b/0o, zeros to the precision, digits. */
static void fmt_integer(uint64_t u, bool negative, int base, const struct spec *sp0,
			struct strbuf *out)
{
	const char *digits = sp0->verb == 'X' ? "0123456789ABCDEFX" : "0123456789abcdefx";
	struct spec sp = *sp0;
	struct strbuf sb = STRBUF_INIT;
	char rev[72];
	long prec = 0, nd = 0;

	if (negative)
		u = 0 - u;
	if (sp.prec_present) {
		prec = sp.prec;
		if (prec == 0 && u == 0) {	/* nothing but the padding */
			sp.zero = false;
			write_padding(out, sp.wid_present ? sp.wid : 0, &sp);
			return;
		}
	} else if (sp.zero && !sp.minus && sp.wid_present) {
		prec = sp.wid - (negative || sp.plus || sp.space);
	}
	do
		rev[nd++] = digits[u % (unsigned)base];
	while ((u /= (unsigned)base));
	strbuf_adds(&sb, negative ? "-" : sp.plus ? "+" : sp.space ? " " : "");
	if (sp.verb == 'O')
		strbuf_adds(&sb, "0o");
	if (sp.sharp && base == 2)
		strbuf_adds(&sb, "0b");
	else if (sp.sharp && base == 16)
		strbuf_addf(&sb, "0%c", digits[16]);
	else if (sp.sharp && base == 8 && prec <= nd && rev[nd - 1] != '0')
		strbuf_addch(&sb, '0');
	for (long i = nd; i < prec; i++)
		strbuf_addch(&sb, '0');
	while (nd)
		strbuf_addch(&sb, rev[--nd]);
	sp.zero = false;	/* zero padding was the precision's */
	pad_sb(out, &sb, &sp);
}

/* fmt.fmtUnicode: U+0041, with # U+0041 'A'. */
static void fmt_unicode(uint64_t u, const struct spec *sp0, struct strbuf *out)
{
	struct spec sp = *sp0;
	struct strbuf sb = STRBUF_INIT;
	int prec = sp.prec_present && sp.prec > 4 ? sp.prec : 4;

	strbuf_addf(&sb, "U+%0*llX", prec, (unsigned long long)u);
	if (sp.sharp && u <= 0x10ffff && gofmt_is_print((uint32_t)u)) {
		strbuf_adds(&sb, " '");
		add_rune(&sb, u);
		strbuf_addch(&sb, '\'');
	}
	sp.zero = false;
	pad_sb(out, &sb, &sp);
}

/* pp.fmtInteger: an integer's verbs. */
static void print_integer(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	int64_t v = json_object_get_int64(j);
	uint64_t u = (uint64_t)v;
	struct strbuf sb = STRBUF_INIT;

	switch (sp->verb) {
	case 'v': case 'd': fmt_integer(u, v < 0, 10, sp, out); return;
	case 'b': fmt_integer(u, v < 0, 2, sp, out); return;
	case 'o': case 'O': fmt_integer(u, v < 0, 8, sp, out); return;
	case 'x': case 'X': fmt_integer(u, v < 0, 16, sp, out); return;
	case 'U': fmt_unicode(u, sp, out); return;
	case 'c':
		add_rune(&sb, u);
		pad_sb(out, &sb, sp);
		return;
	case 'q':	/* fmtQc */
		add_rune(&sb, u);
		struct strbuf q = STRBUF_INIT;
		gofmt_quote_ex(sb.buf, sb.len, '\'', sp->plus, &q);
		strbuf_release(&sb);
		pad_sb(out, &q, sp);
		return;
	default:
		bad_verb(j, sp, out);
	}
}

/* strconv's 'b' format: the mantissa, p, the binary exponent. */
static void float_binary(double d, struct strbuf *sb)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	uint64_t mant = bits & ((1ULL << 52) - 1);
	int exp = (int)(bits >> 52 & 0x7ff);
	if (exp)
		mant |= 1ULL << 52;
	else
		exp = 1;
	strbuf_addf(sb, "%s%llup%+d", bits >> 63 ? "-" : "", (unsigned long long)mant,
		    exp - 1023 - 52);
}

/* strconv.AppendFloat(d, verb, prec, 64). */
static void format_float(double d, char verb, int prec, struct strbuf *sb)
{
	size_t at = sb->len;

	if (isnan(d)) {
		strbuf_adds(sb, "+NaN");
		return;
	}
	if (verb == 'b') {
		float_binary(d, sb);
	} else if (isinf(d)) {
		strbuf_adds(sb, d > 0 ? "+Inf" : "-Inf");
	} else if (prec < 0 && (verb == 'g' || verb == 'G' || verb == 'e' || verb == 'E')) {
		gofmt_float(d, (char)(verb | 0x20), sb);	/* the shortest digits */
	} else if (verb == 'x' || verb == 'X') {
		if (prec < 0)
			strbuf_addf(sb, "%a", d);
		else
			strbuf_addf(sb, "%.*a", prec, d);
		/* Go writes the exponent in two digits at least: p+00 */
		size_t p = (size_t)(strrchr(sb->buf + at, 'p') - sb->buf);
		if (p + 3 == sb->len) {
			strbuf_addch(sb, sb->buf[p + 2]);
			sb->buf[p + 2] = '0';
		}
	} else if (verb == 'e' || verb == 'E') {
		strbuf_addf(sb, "%.*e", prec, d);
	} else if (verb == 'g' || verb == 'G') {
		strbuf_addf(sb, "%.*g", prec, d);
	} else {
		strbuf_addf(sb, "%.*f", prec, d);
	}
	if (isfinite(d) && (verb == 'E' || verb == 'G' || verb == 'X'))
		for (size_t i = at; i < sb->len; i++)
			if (sb->buf[i] >= 'a' && sb->buf[i] <= 'z')
				sb->buf[i] = (char)(sb->buf[i] - 0x20);
}

/*
 * fmtFloat's # flag: a decimal point always, and for %g (and %x) the
 * trailing zeros up to the precision's digits (6 when none).  num has
 * its sign at num[0].
 */
static void sharp_float(struct strbuf *num, char verb, int prec)
{
	struct strbuf tail = STRBUF_INIT;
	int digits = strchr("vgGx", verb) ? (prec < 0 ? 6 : prec) : 0;
	bool point = false, nonzero = false;

	for (size_t i = 1; i < num->len; i++) {
		char c = num->buf[i];
		if (c == '.') {
			point = true;
		} else if (c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X')) {
			strbuf_add(&tail, num->buf + i, num->len - i);
			strbuf_setlen(num, i);
			break;
		} else {	/* a digit (or the x of 0x, as Go counts it) */
			nonzero |= c != '0';
			digits -= nonzero;
		}
	}
	if (!point) {
		if (num->len == 2 && num->buf[1] == '0')
			digits--;
		strbuf_addch(num, '.');
	}
	for (; digits > 0; digits--)
		strbuf_addch(num, '0');
	strbuf_add(num, tail.buf, tail.len);
	strbuf_release(&tail);
}

/* fmt.fmtFloat: the sign as the flags ask, zeros after it. */
static void fmt_float(double d, char verb, int prec, const struct spec *sp0, struct strbuf *out)
{
	struct spec sp = *sp0;
	struct strbuf num = STRBUF_INIT;

	struct strbuf text = STRBUF_INIT;
	format_float(d, verb, sp.prec_present ? sp.prec : prec, &text);
	if (text.buf[0] != '-' && text.buf[0] != '+')	/* a sign in front always */
		strbuf_addch(&num, '+');
	strbuf_add(&num, text.buf, text.len);
	strbuf_release(&text);
	if (sp.space && num.buf[0] == '+' && !sp.plus)
		num.buf[0] = ' ';
	if (num.buf[1] == 'I' || num.buf[1] == 'N') {	/* no zeros for Inf and NaN */
		sp.zero = false;
		if (num.buf[1] == 'N' && !sp.space && !sp.plus)
			strbuf_remove_front(&num, 1);
		pad_sb(out, &num, &sp);
		return;
	}
	if (sp.sharp && verb != 'b')
		sharp_float(&num, verb, sp.prec_present ? sp.prec : prec);
	if (sp.plus || num.buf[0] != '+') {
		if (sp.zero && !sp.minus && sp.wid_present && (size_t)sp.wid > num.len) {
			strbuf_addch(out, num.buf[0]);
			write_padding(out, sp.wid - (long)num.len, &sp);
			strbuf_add(out, num.buf + 1, num.len - 1);
			strbuf_release(&num);
			return;
		}
		pad_sb(out, &num, &sp);
		return;
	}
	strbuf_remove_front(&num, 1);
	pad_sb(out, &num, &sp);
}

/* pp.fmtFloat: a float's verbs. */
static void print_float(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	double d = json_object_get_double(j);

	switch (sp->verb) {
	case 'v': fmt_float(d, 'g', -1, sp, out); return;
	case 'b': case 'g': case 'G': case 'x': case 'X': fmt_float(d, sp->verb, -1, sp, out); return;
	case 'f': case 'e': case 'E': case 'F': fmt_float(d, sp->verb, 6, sp, out); return;
	default: bad_verb(j, sp, out);
	}
}

/* strconv.CanBackquote */
static bool can_backquote(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c >= 0x80 ? utf8_sequence(s + i, len - i) : 1;
		if (!n || (n == 3 && !memcmp(s + i, "\xef\xbb\xbf", 3)))
			return false;
		if (n == 1 && ((c < ' ' && c != '\t') || c == '`' || c == 0x7f))
			return false;
		i += n;
	}
	return true;
}

/* fmt.fmtSbx: each byte in hex, with ' ' apart and # 0x before. */
static void fmt_sx(const char *s, size_t len, const struct spec *sp, struct strbuf *out)
{
	const char *digits = sp->verb == 'X' ? "0123456789ABCDEFX" : "0123456789abcdefx";
	size_t n = sp->prec_present && (size_t)sp->prec < len ? (size_t)sp->prec : len;
	long width = 2 * (long)n;

	if (!n) {
		write_padding(out, sp->wid_present ? sp->wid : 0, sp);
		return;
	}
	if (sp->space)
		width = (sp->sharp ? 2 * width : width) + (long)n - 1;
	else if (sp->sharp)
		width += 2;
	if (sp->wid_present && sp->wid > width && !sp->minus)
		write_padding(out, sp->wid - width, sp);
	for (size_t i = 0; i < n; i++) {
		if (sp->space && i)
			strbuf_addch(out, ' ');
		if (sp->sharp && (sp->space || !i))
			strbuf_addf(out, "0%c", digits[16]);
		strbuf_addch(out, digits[(unsigned char)s[i] >> 4]);
		strbuf_addch(out, digits[s[i] & 0xf]);
	}
	if (sp->wid_present && sp->wid > width && sp->minus)
		write_padding(out, sp->wid - width, sp);
}

/* truncateString: the length of s's first runes, as many as the precision. */
static size_t truncated(const char *s, size_t len, const struct spec *sp)
{
	size_t i = 0;

	if (!sp->prec_present)
		return len;
	for (int r = 0; i < len && r < sp->prec; r++) {
		size_t n = utf8_sequence(s + i, len - i);
		i += n ? n : 1;
	}
	return i;
}

/* pp.fmtString: a string's verbs; the precision counts runes. */
static void print_string(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	const char *s = json_object_get_string(j);
	size_t len = (size_t)json_object_get_string_len(j);
	struct strbuf sb = STRBUF_INIT;

	if (sp->verb == 'x' || sp->verb == 'X') {
		fmt_sx(s, len, sp, out);
		return;
	}
	if (!sp->verb || !strchr("vsq", sp->verb)) {
		bad_verb(j, sp, out);
		return;
	}
	len = truncated(s, len, sp);
	if (sp->verb == 's' || (sp->verb == 'v' && !sp->sharp_v))
		strbuf_add(&sb, s, len);
	else if (sp->sharp && can_backquote(s, len))	/* fmtQ */
		strbuf_addf(&sb, "`%.*s`", (int)len, s);
	else
		gofmt_quote_ex(s, len, '"', sp->plus, &sb);
	pad_sb(out, &sb, sp);
}

/* printValue of a map or slice: each element with the verb; %#v as Go syntax. */
static void print_container(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	bool array = json_object_is_type(j, json_type_array);
	const char *sep = sp->sharp_v ? ", " : " ";

	if (sp->sharp_v)
		strbuf_adds(out, array ? "[]interface {}{" : "map[string]interface {}{");
	else
		strbuf_adds(out, array ? "[" : "map[");
	if (array) {
		for (size_t i = 0; i < json_object_array_length(j); i++) {
			if (i)
				strbuf_adds(out, sep);
			print_value(json_object_array_get_idx(j, i), sp, out);
		}
	} else {
		size_t n;
		const char **keys = gofmt_sorted_keys(j, &n);
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_adds(out, sep);
			struct json_object *key = json_object_new_string(keys[i]);
			print_value(key, sp, out);
			json_object_put(key);
			strbuf_addch(out, ':');
			print_value(json_object_object_get(j, keys[i]), sp, out);
		}
		free(keys);
	}
	strbuf_addch(out, sp->sharp_v ? '}' : ']');
}

/* printValue: a value of any type with the verb (nil inside a map or slice). */
static void print_value(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	switch (json_object_get_type(j)) {
	case json_type_null:	/* written as it is: no width, unlike a nil argument's */
		strbuf_adds(out, sp->sharp_v ? "interface {}(nil)" : "<nil>");
		return;
	case json_type_boolean:
		if (sp->verb == 'v' || sp->verb == 't')
			pad(out, json_object_get_boolean(j) ? "true" : "false",
			    json_object_get_boolean(j) ? 4 : 5, sp);
		else
			bad_verb(j, sp, out);
		return;
	case json_type_int:
		print_integer(j, sp, out);
		return;
	case json_type_double:
		print_float(j, sp, out);
		return;
	case json_type_string:
		print_string(j, sp, out);
		return;
	default:
		print_container(j, sp, out);
	}
}

/*
 * What %p prints of a map or a slice: Go prints where it lies in memory,
 * a number of no use to anyone (0xc000123450, its heap's).  This one is
 * as meaningless and looks the same, but is a hash of the value: the
 * same template prints the same text every time.
 */
static uint64_t pseudo_address(struct json_object *j)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a */

	gofmt_marshal(j, &sb);
	for (size_t i = 0; i < sb.len; i++)
		h = (h ^ (unsigned char)sb.buf[i]) * 1099511628211ULL;
	strbuf_release(&sb);
	return 0xc000000000ULL + (h & 0xffffff) * 16;
}

/* printArg: %T and nil first. */
static void print_arg(struct json_object *j, const struct spec *sp, struct strbuf *out)
{
	if (!j) {
		if (sp->verb == 'T' || sp->verb == 'v')
			pad(out, "<nil>", 5, sp);
		else
			bad_verb(NULL, sp, out);
		return;
	}
	if (sp->verb == 'T') {	/* fmtS of the type's name */
		const char *t = sp->type_of(j);
		pad(out, t, truncated(t, strlen(t), sp), sp);
		return;
	}
	if (sp->verb == 'p' && (json_object_is_type(j, json_type_object) ||
				json_object_is_type(j, json_type_array))) {
		struct spec hex = *sp;
		hex.sharp = !sp->sharp;	/* fmtPointer: 0x unless # */
		fmt_integer(pseudo_address(j), false, 16, &hex, out);
		return;
	}
	print_value(j, sp, out);
}

/* parsenum: digits from *i below end; a number past 1e6 takes the rest of f. */
static bool parse_num(const char *f, size_t *i, size_t end, int *num)
{
	bool isnum = false;

	*num = 0;
	for (; *i < end && f[*i] >= '0' && f[*i] <= '9'; (*i)++) {
		if (*num > 1000000) {
			*num = 0;
			*i = end;
			return false;
		}
		*num = *num * 10 + (f[*i] - '0');
		isnum = true;
	}
	return isnum;
}

/* The state of one Sprintf (pp's fields that doPrintf keeps). */
struct printer {
	const char *f;
	size_t end;
	struct json_object *const *args;
	size_t n, arg;
	bool reordered, good_arg;
};

/* argNumber: an index [n] at *i, if any.  true: one was there and good. */
static bool arg_number(struct printer *p, size_t *i)
{
	if (*i >= p->end || p->f[*i] != '[')
		return false;
	p->reordered = true;
	if (p->end - *i < 3) {	/* no room for [n] */
		*i += 1;
		p->good_arg = false;
		return false;
	}
	for (size_t k = *i + 1; k < p->end; k++) {
		if (p->f[k] != ']')
			continue;
		size_t at = *i + 1;
		int index;
		bool ok = parse_num(p->f, &at, k, &index) && at == k;
		*i = k + 1;
		if (ok && index >= 1 && (size_t)index <= p->n) {
			p->arg = (size_t)index - 1;
			return true;
		}
		p->good_arg = false;
		return ok;
	}
	*i += 1;	/* no ']': "[" alone */
	p->good_arg = false;
	return false;
}

/* intFromArg: a width or precision from the next argument. */
static bool int_from_arg(struct printer *p, int *num)
{
	bool is_int = false;

	*num = 0;
	if (p->arg < p->n) {
		struct json_object *a = p->args[p->arg++];
		if (a && json_object_is_type(a, json_type_int)) {
			int64_t v = json_object_get_int64(a);
			is_int = v >= -1000000 && v <= 1000000;	/* tooLarge */
			*num = is_int ? (int)v : 0;
		}
	}
	return is_int;
}

/* The flags at *i (clearflags first). */
static void parse_flags(struct printer *p, size_t *i, struct spec *sp)
{
	for (; *i < p->end; (*i)++) {
		switch (p->f[*i]) {
		case '#': sp->sharp = true; break;
		case '0': sp->zero = !sp->minus; break;
		case '+': sp->plus = true; break;
		case '-': sp->minus = true; sp->zero = false; break;
		case ' ': sp->space = true; break;
		default: return;
		}
	}
}

/* Width and precision, given or from arguments, and the index after them. */
static void parse_width_prec(struct printer *p, size_t *i, struct spec *sp, struct strbuf *out)
{
	bool after_index = arg_number(p, i);

	if (*i < p->end && p->f[*i] == '*') {
		(*i)++;
		sp->wid_present = int_from_arg(p, &sp->wid);
		if (!sp->wid_present)
			strbuf_adds(out, "%!(BADWIDTH)");
		if (sp->wid < 0) {
			sp->wid = -sp->wid;
			sp->minus = true;
			sp->zero = false;
		}
		after_index = false;
	} else {
		sp->wid_present = parse_num(p->f, i, p->end, &sp->wid);
		if (after_index && sp->wid_present)
			p->good_arg = false;
	}
	if (*i + 1 < p->end && p->f[*i] == '.') {
		(*i)++;
		if (after_index)
			p->good_arg = false;
		after_index = arg_number(p, i);
		if (*i < p->end && p->f[*i] == '*') {
			(*i)++;
			sp->prec_present = int_from_arg(p, &sp->prec);
			if (sp->prec < 0) {
				sp->prec = 0;
				sp->prec_present = false;
			}
			if (!sp->prec_present)
				strbuf_adds(out, "%!(BADPREC)");
			after_index = false;
		} else {
			sp->prec_present = true;	/* "%.f": precision 0 */
			parse_num(p->f, i, p->end, &sp->prec);
		}
	}
	if (!after_index)
		arg_number(p, i);
}

/* The verb at *i, a rune (U+FFFD for a byte that starts none). */
static void parse_verb(struct printer *p, size_t *i, struct spec *sp)
{
	unsigned char c = (unsigned char)p->f[*i];
	size_t n = c < 0x80 ? 1 : utf8_sequence(p->f + *i, p->end - *i);

	sp->verb = c < 0x80 ? (char)c : 0;
	if (n) {
		memcpy(sp->verb_text, p->f + *i, n);
		sp->verb_text[n] = '\0';
		*i += n;
	} else {
		strcpy(sp->verb_text, "\xef\xbf\xbd");
		*i += 1;
	}
}

/* What doPrintf writes for the arguments no verb took. */
static void extra(const struct printer *p, gosprintf_type_fn *type_of, struct strbuf *out)
{
	strbuf_adds(out, "%!(EXTRA ");
	for (size_t k = p->arg; k < p->n; k++) {
		if (k > p->arg)
			strbuf_adds(out, ", ");
		if (p->args[k])
			strbuf_addf(out, "%s=", type_of(p->args[k]));
		gofmt_print(p->args[k], out);
	}
	strbuf_addch(out, ')');
}

void go_sprintf(const char *format, size_t len, struct json_object *const *args, size_t n,
		gosprintf_type_fn *type_of, struct strbuf *out)
{
	struct printer p = { .f = format, .end = len, .args = args, .n = n };

	for (size_t i = 0; i < len;) {
		const char *pct = memchr(format + i, '%', len - i);
		size_t lit = pct ? (size_t)(pct - (format + i)) : len - i;
		strbuf_add(out, format + i, lit);
		if (!pct)
			break;
		i += lit + 1;
		p.good_arg = true;
		struct spec sp = { .type_of = type_of };
		parse_flags(&p, &i, &sp);
		parse_width_prec(&p, &i, &sp, out);
		if (i >= len) {
			strbuf_adds(out, "%!(NOVERB)");
			break;
		}
		parse_verb(&p, &i, &sp);
		if (sp.verb == '%') {
			strbuf_addch(out, '%');
		} else if (!p.good_arg) {
			strbuf_addf(out, "%%!%s(BADINDEX)", sp.verb_text);
		} else if (p.arg >= n) {
			strbuf_addf(out, "%%!%s(MISSING)", sp.verb_text);
		} else {
			if (sp.verb == 'v') {
				sp.sharp_v = sp.sharp;
				sp.plus_v = sp.plus;
				sp.sharp = sp.plus = false;
			}
			print_arg(args[p.arg++], &sp, out);
		}
	}
	if (!p.reordered && p.arg < n)
		extra(&p, type_of, out);
}
