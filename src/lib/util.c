/* util.c — allocation, messages, clocks; see util.h. */
#include "lib/util.h"
#include "lib/termsafe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void (*die_hook)(void);

/* The die hook runs once, whichever thread gets there first. */
static void run_die_hook(void)
{
	static atomic_flag ran = ATOMIC_FLAG_INIT;

	if (die_hook && !atomic_flag_test_and_set(&ran))
		die_hook();
}

noreturn void out_of_memory(size_t size)
{
	run_die_hook();
	if (size)
		fprintf(stderr, "error: out of memory (allocating %zu bytes)\n", size);
	else
		fputs("error: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory(strlen(fmt));
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* at, or the start of the UTF-8 character that s[at] is inside of */
static size_t char_start(const char *s, size_t at)
{
	while (at && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at;
}

/*
 * fmt's message into dst (size bytes), escaped as one line (termsafe.h).
 * One longer than dst holds keeps its start and its end, "..." for the
 * middle: the cause of an error is told last ("error parsing template
 * TEXT, CAUSE"), so a long quote must not push it out.
 */
static void vformat_line(char *dst, size_t size, const char *fmt, va_list ap) PRINTF(3, 0);

static void vformat_line(char *dst, size_t size, const char *fmt, va_list ap)
{
	static const char cut[] = " ... ";
	char *text = xvasprintf(fmt, ap);	/* first: an argument may be dst */
	char *safe = termsafe_is_safe(text, strlen(text), TERMSAFE_ONE_LINE) ? text :
		     termsafe_dup(text, TERMSAFE_ONE_LINE);
	size_t len = strlen(safe), head, tail;

	if (len < size) {
		memcpy(dst, safe, len + 1);
	} else {
		head = char_start(safe, size / 4);
		tail = size - 1 - head - (sizeof(cut) - 1);
		while (tail && ((unsigned char)safe[len - tail] & 0xc0) == 0x80)
			tail--;
		memcpy(dst, safe, head);
		memcpy(dst + head, cut, sizeof(cut) - 1);
		memcpy(dst + head + sizeof(cut) - 1, safe + len - tail, tail + 1);
	}
	if (safe != text)
		free(safe);
	free(text);
}

void errbuf_set(struct errbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vformat_line(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void set_die_hook(void (*hook)(void))
{
	die_hook = hook;
}

static void vreport(const char *prefix, const char *fmt, va_list ap) PRINTF(2, 0);

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];

	vformat_line(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s%s\n", prefix, msg);
}

void die(const char *fmt, ...)
{
	run_die_hook();
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(1);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	char where[256];
	run_die_hook();
	snprintf(where, sizeof(where), "BUG: %s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vreport(where, fmt, ap);
	va_end(ap);
	abort();
}

void error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void poll_failure(struct errbuf *err, int errnum, size_t nfds)
{
	struct rlimit rl;

	if (errnum == EINVAL && !getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < nfds)
		errbuf_set(err, "cannot wait on %zu descriptors: the open-file limit is %llu "
			   "(ulimit -n)", nfds, (unsigned long long)rl.rlim_cur);
	else
		errbuf_set(err, "poll: %s", strerror(errnum));
}

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

int64_t wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

void thread_name(const char *name)
{
	(void)pthread_setname_np(pthread_self(), name);
}

void cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

bool cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *lock, int64_t deadline_ms)
{
	struct timespec ts = {
		.tv_sec = deadline_ms / 1000,
		.tv_nsec = (long)(deadline_ms % 1000) * 1000000L,
	};

	return pthread_cond_timedwait(cond, lock, &ts) == ETIMEDOUT;
}

void format_time_rfc3339(int64_t ms, char buf[32])
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	size_t n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03dZ", (int)(ms % 1000));
}

void format_clock(int64_t wall, char buf[16])
{
	time_t secs = (time_t)(wall / 1000);
	struct tm tm;
	localtime_r(&secs, &tm);
	snprintf(buf, 16, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (int)(wall % 1000));
}

/* kubectl's duration.HumanDuration, to the letter. */
void format_age(int64_t ms, char buf[32])
{
	long long s = ms < 0 ? 0 : ms / 1000;
	long long m = s / 60, h = s / 3600, d = h / 24, y = d / 365;

	if (s < 120)
		snprintf(buf, 32, "%llds", s);
	else if (m < 10 && s % 60)
		snprintf(buf, 32, "%lldm%llds", m, s % 60);
	else if (m < 3 * 60)
		snprintf(buf, 32, "%lldm", m);
	else if (h < 8 && m % 60)
		snprintf(buf, 32, "%lldh%lldm", h, m % 60);
	else if (h < 48)
		snprintf(buf, 32, "%lldh", h);
	else if (h < 8 * 24 && h % 24)
		snprintf(buf, 32, "%lldd%lldh", d, h % 24);
	else if (h < 2 * 365 * 24)
		snprintf(buf, 32, "%lldd", d);
	else if (h < 8 * 365 * 24 && d % 365)
		snprintf(buf, 32, "%lldy%lldd", y, d % 365);
	else
		snprintf(buf, 32, "%lldy", y);
}

void format_age_since(const char *ts, int64_t now_ms, char buf[32])
{
	int64_t ms;

	if (!ts || parse_time_rfc3339(ts, &ms) < 0)
		snprintf(buf, 32, "<unknown>");
	else
		format_age(now_ms - ms, buf);
}

/* Go's limit: a time.Duration is int64 nanoseconds, about 292 years. */
#define DURATION_MAX_MS (INT64_MAX / 1000000)

/* Digits with an optional fraction ("1", "1.5", ".5"), as Go reads them. */
static int parse_decimal(const char **p, double *v)
{
	const char *q = *p;
	double scale = 1;
	bool digits = false;

	*v = 0;
	for (; isdigit((unsigned char)*q); q++, digits = true)
		*v = *v * 10 + (*q - '0');
	if (*q == '.')
		for (q++; isdigit((unsigned char)*q); q++, digits = true)
			*v += (*q - '0') * (scale /= 10);
	if (!digits)
		return -1;
	*p = q;
	return 0;
}

int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long n, unit = 1;

	if (!isdigit((unsigned char)*s))
		return -1;	/* strtoull would take "-1", " 1" and "+1" */
	n = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		unit = 1ULL << 10;
	else if (*end == 'M')
		unit = 1ULL << 20;
	else if (*end == 'G')
		unit = 1ULL << 30;
	if (unit > 1)
		end += end[1] == 'i' ? 2 : 1;
	if (*end && strcmp(end, "B"))
		return -1;
	if (!n || n > (1ULL << 40) / unit)
		return -1;
	*out = (size_t)(n * unit);
	return 0;
}

int parse_duration(const char *s, int64_t *ms)
{
	static const struct { const char *unit; double ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		{ "ns", 1e-6 }, { "us", 1e-3 }, { "\u00b5s", 1e-3 }, { "\u03bcs", 1e-3 },
	};
	double total = 0;
	const char *p = s;

	if (*p == '+')
		p++;
	if (!*p)
		return -1;
	const char *first = p;
	while (*p) {
		const char *number = p;
		double v, part;
		if (parse_decimal(&p, &v) < 0)
			return -1;
		if (!*p && number == first) {
			part = v * 1000;	/* a bare number: seconds */
		} else {
			size_t i;
			for (i = 0; i < ARRAY_SIZE(units); i++)
				if (!strncmp(p, units[i].unit, strlen(units[i].unit)))
					break;
			if (i == ARRAY_SIZE(units))
				return -1;
			part = v * units[i].ms;
			p += strlen(units[i].unit);
		}
		total += part;
		if (!(total <= (double)DURATION_MAX_MS))
			return -1;
	}
	*ms = (int64_t)ceil(total);	/* what is under a millisecond is one */
	return 0;
}

int parse_kubectl_timeout(const char *s, int64_t *ms)
{
	bool minus = *s == '-';
	const char *p = s + (minus || *s == '+');
	size_t digits = strspn(p, "0123456789");

	if (!*s)
		return *ms = 0, 0;
	if (digits && !p[digits]) {	/* strconv.ParseInt: seconds, none below 0 */
		errno = 0;
		long long n = strtoll(p, NULL, 10);
		if (errno || (minus && n))
			return -1;
		/* time.Duration(n) * time.Second, wrapping as Go's does */
		*ms = (int64_t)((uint64_t)n * 1000000000u) / 1000000;
		return 0;
	}
	if (*p == '+' || *p == '-' || !p[strspn(p, "0123456789.")])
		return -1;	/* time.ParseDuration: one sign, a unit on every number */
	if (parse_duration(p, ms) < 0)
		return -1;
	if (minus)
		*ms = -*ms;
	return 0;
}

double rand_unit(void)
{
	static __thread unsigned short seed[3];
	static __thread bool seeded;
	if (!seeded) {
		int64_t t = mono_ms() ^ (int64_t)(uintptr_t)&seeded;
		seed[0] = (unsigned short)t;
		seed[1] = (unsigned short)(t >> 16);
		seed[2] = (unsigned short)(t >> 32);
		seeded = true;
	}
	return erand48(seed);
}

void str_mark_cut(char *buf, size_t size, const char *mark)
{
	size_t n = strlen(mark);

	if (size <= n)
		return;
	memcpy(buf + char_start(buf, size - 1 - n), mark, n + 1);
}

bool str_starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

char **strv_dup(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

bool strv_has(const char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t utf8_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

size_t utf8_sequence(const char *s, size_t len)
{
	return termsafe_utf8_len(s, len);
}

void double_shortest_e(double d, char buf[32])
{
	for (int prec = 0; prec < 17; prec++) {
		snprintf(buf, 32, "%.*e", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

uint32_t utf8_decode(const char *s, size_t len, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	*n = utf8_sequence(s, len);
	if (*n <= 1) {
		*n = len ? 1 : 0;
		return len && p[0] < 0x80 ? p[0] : 0xFFFD;
	}
	cp = p[0] & (0x7F >> *n);
	for (size_t i = 1; i < *n; i++)
		cp = cp << 6 | (p[i] & 0x3F);
	return cp;
}

bool go_is_space(uint32_t r)
{
	return (r >= 9 && r <= 13) || r == ' ' || r == 0x85 || r == 0xA0 || r == 0x1680 ||
	       (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F ||
	       r == 0x205F || r == 0x3000;
}

/*
 * The code point that ends s[0..len) (len > 0), as utf8.DecodeLastRune
 * reads it: U+FFFD and 1 when the bytes before the end start no valid
 * sequence that ends there.
 */
static uint32_t utf8_decode_last(const char *s, size_t len, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = len - 1, lim = len > 4 ? len - 4 : 0;

	while (start > lim && (p[start] & 0xC0) == 0x80)
		start--;
	uint32_t r = utf8_decode(s + start, len - start, n);
	if (start + *n != len) {
		*n = 1;
		return 0xFFFD;
	}
	return r;
}

void go_trim_space(const char **s, size_t *len)
{
	size_t n;

	while (*len && go_is_space(utf8_decode(*s, *len, &n))) {
		*s += n;
		*len -= n;
	}
	while (*len && go_is_space(utf8_decode_last(*s, *len, &n)))
		*len -= n;
}

char *utf8_replace_invalid(const char *s, size_t len, size_t *out_len)
{
	size_t i = 0, n;

	/* The common case, checked without copying: all ASCII or valid. */
	while (i < len && (n = utf8_sequence(s + i, len - i)))
		i += n;
	if (i == len)
		return NULL;

	/* At worst every byte left becomes three. */
	char *out = xmalloc(i + (len - i) * 3 + 1), *o = out + i;
	memcpy(out, s, i);
	while (i < len) {
		n = utf8_sequence(s + i, len - i);
		if (n) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	*out_len = (size_t)(o - out);
	return out;
}

struct json_object *json_parse_deep(const char *text)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	size_t len = strlen(text);
	struct json_object *obj = NULL;

	if (len <= INT32_MAX) {
		obj = json_tokener_parse_ex(tok, text, (int)len);
		if (obj && tok->char_offset < (int)len) {
			/* Trailing bytes: anything but white space is not JSON. */
			for (const char *p = text + tok->char_offset; *p; p++)
				if (!strchr(" \t\r\n", *p)) {
					json_object_put(obj);
					obj = NULL;
					break;
				}
		}
	}
	json_tokener_free(tok);
	return obj;
}

int open_new_file(const char *path, unsigned mode, struct errbuf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);

	if (fd < 0)
		errbuf_set(err, "cannot create '%s': %s", path,
			   errno == ELOOP ? "it is a symbolic link, which kinf does not follow"
					  : strerror(errno));
	return fd;
}

bool fd_hung_up(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = 0 };	/* POLLERR, POLLHUP come anyway */
	return fd > 0 && poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLERR | POLLHUP));
}

int parse_time_rfc3339(const char *s, int64_t *ms)
{
	struct tm tm = { 0 };
	int n = 0, frac_ms = 0;
	long off = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
			 &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return -1;
	s += n;
	if (*s == '.') {
		int digits = 0;
		for (s++; isdigit((unsigned char)*s); s++, digits++)
			if (digits < 3)
				frac_ms = frac_ms * 10 + (*s - '0');
		if (!digits)
			return -1;
		for (; digits < 3; digits++)
			frac_ms *= 10;
	}
	if (*s == 'Z' || *s == 'z') {
		s++;
	} else if ((*s == '+' || *s == '-') && isdigit((unsigned char)s[1]) &&
		   isdigit((unsigned char)s[2]) && s[3] == ':' && isdigit((unsigned char)s[4]) &&
		   isdigit((unsigned char)s[5])) {
		/* exactly +HH:MM */
		int h = (s[1] - '0') * 10 + (s[2] - '0'), m = (s[4] - '0') * 10 + (s[5] - '0');
		if (h > 23 || m > 59)
			return -1;
		off = (h * 60L + m) * 60 * (*s == '-' ? -1 : 1);
		s += 6;
	} else {
		return -1;
	}
	if (*s)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*ms = ((int64_t)timegm(&tm) - off) * 1000 + frac_ms;
	return 0;
}
