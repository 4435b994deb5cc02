/* outcome.c — see outcome.h.  Single-threaded, no locks. */
#include "controller/outcome.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

/* One run of an outcome: times 0 is for ever. */
struct outcome_step {
	struct outcome what;
	unsigned long times;
};

struct outcome_rule {
	char *key;		/* NULL: '*' */
	char *rv;		/* NULL: any */
	struct outcome_step *steps;
	size_t nr;
	unsigned long taken;	/* outcomes taken (a '*' rule counts per key) */
};

static const char *const names[] = {
	[OUTCOME_NONE] = "none", [OUTCOME_SUCCESS] = "success",
	[OUTCOME_ERROR] = "error", [OUTCOME_TERMINAL] = "terminal",
	[OUTCOME_REQUEUE] = "requeue", [OUTCOME_REQUEUE_AFTER] = "requeue-after",
	[OUTCOME_STATUS_WRITE] = "status-write",
};

const char *outcome_name(enum outcome_kind kind)
{
	return (unsigned)kind < ARRAY_SIZE(names) ? names[kind] : "unknown";
}

static void rule_release(struct outcome_rule *r)
{
	free(r->key);
	free(r->rv);
	free(r->steps);
}

void outcome_script_release(struct outcome_script *s)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	for (size_t i = 0; i < s->nr; i++)
		rule_release(&s->rules[i]);
	free(s->rules);
	while ((e = hashmap_next(&s->used, &iter)))
		free((char *)e->key);
	hashmap_release(&s->used);
	memset(s, 0, sizeof(*s));
}

/* One OUTCOME[*N] of n bytes at p; last: the rule's last, which may repeat for ever. */
static int parse_step(const char *p, size_t n, bool last, struct outcome_step *out,
		      struct errbuf *err)
{
	const char *star = memchr(p, '*', n);
	size_t len = star ? (size_t)(star - p) : n;
	char word[64];

	out->times = 1;
	if (star) {
		const char *num = star + 1;
		size_t digits = n - len - 1;
		char *end;

		if (!digits && !last) {
			errbuf_set(err, "'%.*s': only the last outcome may repeat for ever", (int)n, p);
			return -1;
		}
		out->times = digits ? strtoul(num, &end, 10) : 0;
		if (digits && (end != num + digits || !out->times || out->times > INT_MAX ||
			       *num == '+' || *num == '-')) {
			errbuf_set(err, "'%.*s': the repeat count must be a number from 1", (int)n, p);
			return -1;
		}
	}
	if (len >= sizeof(word))
		len = sizeof(word) - 1;
	memcpy(word, p, len);
	word[len] = '\0';
	if (!strncmp(word, "requeue-after:", 14)) {
		out->what.kind = OUTCOME_REQUEUE_AFTER;
		if (parse_duration(word + 14, &out->what.after_ms) < 0 || out->what.after_ms <= 0) {
			errbuf_set(err, "'%s': expected a duration over 0, e.g. requeue-after:2s", word);
			return -1;
		}
		return 0;
	}
	for (int k = OUTCOME_SUCCESS; k < (int)ARRAY_SIZE(names); k++)
		if (k != OUTCOME_REQUEUE_AFTER && !strcmp(word, names[k])) {
			out->what.kind = (enum outcome_kind)k;
			return 0;
		}
	errbuf_set(err, "unknown outcome '%s' (success, error, terminal, requeue, "
		   "requeue-after:DURATION, status-write)", word);
	return -1;
}

/* The TARGET of n bytes at spec into r; -1 and err when it is none. */
static int parse_target(const char *spec, size_t n, struct outcome_rule *r, struct errbuf *err)
{
	const char *at = memchr(spec, '@', n), *end = at ? at : spec + n;
	const char *slash = memchr(spec, '/', (size_t)(end - spec));

	if (n == 1 && *spec == '*')
		return 0;
	if (!slash || slash == spec || slash + 1 == end || (at && at + 1 == spec + n)) {
		errbuf_set(err, "'%.*s' is not a target: '*', NAMESPACE/NAME or "
			   "NAMESPACE/NAME@RV", (int)n, spec);
		return -1;
	}
	r->key = xstrndup(spec, (size_t)(end - spec));
	r->rv = at ? xstrndup(at + 1, (size_t)(spec + n - at - 1)) : NULL;
	return 0;
}


/*
 * One rule from p: TARGET=OUTCOME, then the outcomes after it up to the
 * next item that has a '=' (the next rule's); *p moves past them.
 */
static int parse_rule(const char **p, struct outcome_rule *r, struct errbuf *err)
{
	size_t n = strcspn(*p, ","), alloc = 0;
	const char *eq = memchr(*p, '=', n);

	if (!eq || eq == *p) {
		errbuf_set(err, "'%.*s': expected TARGET=OUTCOMES, e.g. default/web=error*3",
			   (int)n, *p);
		return -1;
	}
	if (parse_target(*p, (size_t)(eq - *p), r, err) < 0)
		return -1;
	n -= (size_t)(eq + 1 - *p);
	*p = eq + 1;
	for (;;) {
		const char *next = *p + n + ((*p)[n] == ',');
		bool last = !(*p)[n] || memchr(next, '=', strcspn(next, ","));
		ALLOC_GROW(r->steps, r->nr + 1, alloc);
		if (!n) {
			errbuf_set(err, "an empty outcome");
			return -1;
		}
		if (parse_step(*p, n, last, &r->steps[r->nr], err) < 0)
			return -1;
		r->nr++;
		*p = next;
		if (last)
			return 0;
		n = strcspn(*p, ",");
	}
}

int outcome_script_add(struct outcome_script *s, const char *spec, struct errbuf *err)
{
	const char *p = spec;

	do {
		struct outcome_rule r = { 0 };
		if (parse_rule(&p, &r, err) < 0) {
			rule_release(&r);
			return -1;
		}
		ALLOC_GROW(s->rules, s->nr + 1, s->alloc);
		s->rules[s->nr++] = r;
	} while (*p);
	return 0;
}

bool outcome_script_has(const struct outcome_script *s, enum outcome_kind kind)
{
	for (size_t i = 0; i < s->nr; i++)
		for (size_t j = 0; j < s->rules[i].nr; j++)
			if (s->rules[i].steps[j].what.kind == kind)
				return true;
	return false;
}

/* The outcome after `taken` of the rule's, or OUTCOME_NONE when it has none left. */
static struct outcome step_at(const struct outcome_rule *r, unsigned long taken)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (!r->steps[i].times || taken < r->steps[i].times)
			return r->steps[i].what;
		taken -= r->steps[i].times;
	}
	return (struct outcome){ OUTCOME_NONE, 0 };
}

/* A '*' rule's entry for key in s->used, made when missing: its value counts. */
static struct hashmap_entry *per_key(struct outcome_script *s, size_t rule, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	struct hashmap_entry *e;

	strbuf_addf(&sb, "%zu/%s", rule, key);
	e = hashmap_find(&s->used, sb.buf);
	if (e) {
		strbuf_release(&sb);
		return e;
	}
	return hashmap_insert(&s->used, strbuf_detach(&sb, NULL), NULL);
}

struct outcome outcome_next(struct outcome_script *s, const char *key, const char *rv)
{
	/* by rank: KEY@RV, then KEY, then '*'; in the order given within a rank */
	for (int rank = 0; rank < 3; rank++) {
		for (size_t i = 0; i < s->nr; i++) {
			struct outcome_rule *r = &s->rules[i];
			int mine = !r->key ? 2 : r->rv ? 0 : 1;
			if (mine != rank || (r->key && strcmp(r->key, key)) ||
			    (r->rv && (!rv || strcmp(r->rv, rv))))
				continue;
			struct hashmap_entry *e = r->key ? NULL : per_key(s, i, key);
			unsigned long taken = e ? (unsigned long)(uintptr_t)e->value : r->taken;
			struct outcome o = step_at(r, taken);
			if (o.kind == OUTCOME_NONE)
				continue;
			if (e)
				e->value = (void *)(uintptr_t)(taken + 1);
			else
				r->taken++;
			return o;
		}
	}
	return (struct outcome){ OUTCOME_NONE, 0 };
}
