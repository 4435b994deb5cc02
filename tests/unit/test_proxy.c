/*
 * test_proxy.c — the environment's proxy for a server, as Go's
 * http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy) decides:
 * the cases of its own tests that a kubeconfig's server can meet.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/proxy.h"
#include "unit.h"

static void env(const char *https, const char *http, const char *no_proxy)
{
	static const char *const names[] = {
		"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
		"ALL_PROXY", "all_proxy", "REQUEST_METHOD",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
	if (https)
		setenv("HTTPS_PROXY", https, 1);
	if (http)
		setenv("http_proxy", http, 1);
	if (no_proxy)
		setenv("NO_PROXY", no_proxy, 1);
}

/* The proxy chosen for scheme://host:port, "" for none. */
static const char *chosen(const char *scheme, const char *host, const char *port)
{
	static char buf[256];
	char *p = proxy_from_environment(scheme, host, port);

	snprintf(buf, sizeof(buf), "%s", p ? p : "");
	free(p);
	return buf;
}

TEST(the_scheme_picks_the_variable_all_proxy_is_none)
{
	env("http://secure:3128", "plain:8080", NULL);
	CHECK_STR(chosen("https", "api.example.com", "6443"), "http://secure:3128");
	CHECK_STR(chosen("http", "api.example.com", "80"), "http://plain:8080");
	env(NULL, NULL, NULL);
	setenv("ALL_PROXY", "http://all:1", 1);
	CHECK_STR(chosen("https", "api.example.com", "6443"), "");
	/* httpoxy: a CGI program ignores HTTP_PROXY, not HTTPS_PROXY */
	env("http://secure:3128", "plain:8080", NULL);
	setenv("REQUEST_METHOD", "GET", 1);
	CHECK_STR(chosen("http", "api.example.com", "80"), "");
	CHECK_STR(chosen("https", "api.example.com", "443"), "http://secure:3128");
}

TEST(loopback_is_never_proxied)
{
	env("http://p:1", NULL, NULL);
	CHECK_STR(chosen("https", "localhost", "6443"), "");
	CHECK_STR(chosen("https", "127.0.0.1", "6443"), "");
	CHECK_STR(chosen("https", "127.9.9.9", "6443"), "");
	CHECK_STR(chosen("https", "::1", "6443"), "");
	CHECK_STR(chosen("https", "10.0.0.1", "6443"), "http://p:1");
}

TEST(no_proxy_names_domains_ips_cidrs_and_ports)
{
	env("http://p:1", NULL, "example.com, .corp.net,*.svc ,10.1.0.0/16,192.168.1.5,api.x:6443,*");
	/* "*" alone: nothing is proxied */
	CHECK_STR(chosen("https", "anything.org", "443"), "");
	env("http://p:1", NULL, "example.com, .corp.net,*.svc ,10.1.0.0/16,192.168.1.5,api.x:6443");
	CHECK_STR(chosen("https", "example.com", "443"), "");
	CHECK_STR(chosen("https", "k8s.example.com", "443"), "");
	CHECK_STR(chosen("https", "notexample.com", "443"), "http://p:1");
	CHECK_STR(chosen("https", "corp.net", "443"), "http://p:1");	/* only subdomains */
	CHECK_STR(chosen("https", "api.corp.net", "443"), "");
	CHECK_STR(chosen("https", "kube.svc", "443"), "");
	CHECK_STR(chosen("https", "10.1.200.3", "443"), "");
	CHECK_STR(chosen("https", "10.2.0.1", "443"), "http://p:1");
	CHECK_STR(chosen("https", "192.168.1.5", "443"), "");
	CHECK_STR(chosen("https", "API.X", "6443"), "");	/* names are not case-sensitive */
	CHECK_STR(chosen("https", "api.x", "443"), "http://p:1");	/* another port */
}

int main(void)
{
	RUN(the_scheme_picks_the_variable_all_proxy_is_none);
	RUN(loopback_is_never_proxied);
	RUN(no_proxy_names_domains_ips_cidrs_and_ports);
	return unit_done();
}
