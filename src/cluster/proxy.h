/*
 * proxy.h — which proxy a request to the server goes through when the
 * kubeconfig names none, decided as Go's http.ProxyFromEnvironment
 * decides it for client-go (golang.org/x/net/http/httpproxy):
 *
 *   - HTTPS_PROXY (or https_proxy) for an https server, HTTP_PROXY (or
 *     http_proxy) for an http one; ALL_PROXY is no part of it;
 *   - never for "localhost" or a loopback address;
 *   - never when NO_PROXY (or no_proxy) names the server's real host: "*",
 *     an IP, a CIDR, or a domain ("example.com" is the name and its
 *     subdomains, ".example.com" and "*.example.com" only the subdomains),
 *     each with an optional ":port".
 *
 * The real host is the server URL's, a tls-server-name being only what
 * the certificate is checked against.
 */
#ifndef KINF_PROXY_H
#define KINF_PROXY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The proxy URL for a request to scheme://host:port ("https", a name or
 * an IP without brackets, the port as text), from the environment; NULL
 * for none.  The caller frees it.
 */
char *proxy_from_environment(const char *scheme, const char *host, const char *port);

/*
 * A proxy URL (proxy-url's, or the environment's) as libcurl is to take
 * it, to be freed: Go's socks5 dialer hands the proxy the host's name to
 * resolve, which libcurl calls socks5h.
 */
char *proxy_for_curl(const char *url);

/*
 * Whether client-go refuses a kubeconfig's proxy-url (clientcmd's
 * parseProxyURL), and why in why[size]: a URL Go's url.Parse refuses
 * (a control character, a bad %-escape before the query, a ':' in the
 * first segment of one without a scheme: "127.0.0.1:3128"), or a scheme
 * other than http, https and socks5 ("proxy:3128" has scheme "proxy").
 * The reason never quotes the URL, which may hold a password.
 */
bool proxy_url_refused(const char *url, char *why, size_t size);

/*
 * Where a URL's user information is, as Go's url.Parse finds it: in the
 * authority after "://" (up to '/', '?' or '#'), before its last '@'.
 * Returns its length with the '@' (0: none), its offset in *start.  A
 * proxy's ("http://user:pass@proxy:3128") and a server's.
 */
size_t url_userinfo_span(const char *url, size_t *start);

#endif
