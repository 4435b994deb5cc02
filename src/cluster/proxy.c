/* proxy.c — the environment's proxy, as Go decides it; see proxy.h. */
#include "cluster/proxy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"

/* An address of either family, and how many of its bytes it has. */
struct addr {
	unsigned char b[16];
	int len;
};

static bool parse_ip(const char *s, struct addr *a)
{
	if (inet_pton(AF_INET, s, a->b) == 1) {
		a->len = 4;
		return true;
	}
	if (inet_pton(AF_INET6, s, a->b) == 1) {
		a->len = 16;
		return true;
	}
	return false;
}

static bool is_loopback(const char *host)
{
	struct addr a;

	if (!strcasecmp(host, "localhost"))
		return true;
	if (!parse_ip(host, &a))
		return false;
	if (a.len == 4)
		return a.b[0] == 127;
	static const unsigned char one[16] = { [15] = 1 };
	return !memcmp(a.b, one, 16);
}

/* Whether ip lies in the CIDR "net/bits"; false when it is no CIDR. */
static bool in_cidr(const struct addr *ip, const char *cidr)
{
	const char *slash = strchr(cidr, '/');
	struct addr net;
	char *end;

	if (!slash || slash - cidr >= 64)
		return false;
	char base[64];
	memcpy(base, cidr, (size_t)(slash - cidr));
	base[slash - cidr] = '\0';
	long bits = strtol(slash + 1, &end, 10);
	if (!parse_ip(base, &net) || *end || end == slash + 1 || bits < 0 ||
	    bits > net.len * 8 || net.len != ip->len)
		return false;
	for (long i = 0; i < bits; i++) {
		unsigned mask = 0x80u >> (i % 8);
		if ((ip->b[i / 8] & mask) != (net.b[i / 8] & mask))
			return false;
	}
	return true;
}

static bool has_suffix_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcasecmp(s + n - m, suffix);
}

/* One NO_PROXY entry (lower-case, trimmed) against host and port. */
static bool entry_matches(char *e, const char *host, const char *port)
{
	struct addr ip, want;
	bool host_is_ip = parse_ip(host, &ip);

	if (!strcmp(e, "*"))
		return true;
	if (strchr(e, '/'))
		return host_is_ip && in_cidr(&ip, e);
	if (parse_ip(e, &want))
		return host_is_ip && want.len == ip.len && !memcmp(want.b, ip.b, (size_t)ip.len);
	/* a name, with an optional :port (an IPv6 entry has no port here) */
	char *colon = strrchr(e, ':');
	const char *eport = NULL;
	if (colon) {
		*colon = '\0';
		eport = colon + 1;
		if (parse_ip(e, &want))	/* "1.2.3.4:80": an IP with a port */
			return host_is_ip && want.len == ip.len &&
			       !memcmp(want.b, ip.b, (size_t)ip.len) && !strcmp(eport, port);
	}
	if (eport && strcmp(eport, port))
		return false;
	if (!strncmp(e, "*.", 2))
		e++;
	if (*e == '.')
		return has_suffix_ci(host, e);
	size_t n = strlen(host), m = strlen(e);
	return !strcasecmp(host, e) ||
	       (n > m && host[n - m - 1] == '.' && has_suffix_ci(host, e));
}

static bool no_proxy_matches(const char *list, const char *host, const char *port)
{
	char *copy = xstrdup(list), *save = NULL;
	bool yes = false;

	for (char *e = strtok_r(copy, ",", &save); e && !yes; e = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*e))
			e++;
		size_t n = strlen(e);
		while (n && isspace((unsigned char)e[n - 1]))
			e[--n] = '\0';
		for (char *p = e; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		if (*e)
			yes = entry_matches(e, host, port);
	}
	free(copy);
	return yes;
}

/* The first of the two that is set and not empty, as Go's getEnvAny. */
static const char *env_any(const char *a, const char *b)
{
	const char *v = getenv(a);
	if (v && *v)
		return v;
	v = getenv(b);
	return v && *v ? v : NULL;
}

char *proxy_from_environment(const char *scheme, const char *host, const char *port)
{
	bool https = !strcmp(scheme, "https");
	const char *proxy = https ? env_any("HTTPS_PROXY", "https_proxy")
				  : env_any("HTTP_PROXY", "http_proxy");
	const char *no_proxy = env_any("NO_PROXY", "no_proxy");

	/* httpproxy: HTTP_PROXY is ignored in a CGI program (httpoxy). */
	if (!https && getenv("REQUEST_METHOD"))
		proxy = NULL;
	if (!proxy || is_loopback(host) || (no_proxy && no_proxy_matches(no_proxy, host, port)))
		return NULL;
	/* Go takes "host:port" for http://host:port. */
	return strstr(proxy, "://") ? xstrdup(proxy) : xasprintf("http://%s", proxy);
}

char *proxy_for_curl(const char *url)
{
	if (!strncasecmp(url, "socks5://", 9))
		return xasprintf("socks5h://%s", url + 9);
	return xstrdup(url);
}

/* Go's url.getScheme: the scheme, "" for none, or -1 (a ':' first). */
static int go_scheme(const char *url, size_t *len)
{
	for (size_t i = 0; url[i]; i++) {
		char c = url[i];
		if (isalpha((unsigned char)c))
			continue;
		if (isdigit((unsigned char)c) || c == '+' || c == '-' || c == '.') {
			if (i == 0)
				break;
			continue;
		}
		if (c == ':') {
			*len = i;
			return i ? 0 : -1;
		}
		break;
	}
	*len = 0;
	return 0;
}

/* What url.Parse refuses of a URL, in the main: see proxy.h. */
static bool go_url_parses(const char *url, size_t scheme_len)
{
	const char *rest = url + scheme_len + (scheme_len ? 1 : 0);
	size_t end = strcspn(rest, "?");

	for (const char *p = url; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	/* a ':' in the first segment of a relative URL reads as a scheme */
	if (!scheme_len && strcspn(rest, "/?#") > strcspn(rest, ":"))
		return false;
	for (size_t i = 0; i < end; i++)
		if (rest[i] == '%' && !(isxdigit((unsigned char)rest[i + 1]) &&
					isxdigit((unsigned char)rest[i + 2])))
			return false;
	return true;
}

bool proxy_url_refused(const char *url, char *why, size_t size)
{
	size_t n;

	if (go_scheme(url, &n) < 0 || !go_url_parses(url, n)) {
		snprintf(why, size, "no URL Go can parse");
		return true;
	}
	if ((n == 4 && !strncasecmp(url, "http", 4)) || (n == 5 && !strncasecmp(url, "https", 5)) ||
	    (n == 6 && !strncasecmp(url, "socks5", 6)))
		return false;
	snprintf(why, size, "its scheme '%.*s' is not http, https or socks5", (int)(n < 32 ? n : 32),
		 url);
	return true;
}

size_t url_userinfo_span(const char *url, size_t *start)
{
	const char *sep = strstr(url, "://");
	const char *auth = sep ? sep + 3 : url, *at = NULL;

	for (const char *p = auth; *p && !strchr("/?#", *p); p++)
		if (*p == '@')
			at = p;
	*start = (size_t)(auth - url);
	return at ? (size_t)(at + 1 - auth) : 0;
}
