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

/*
 * The proxy URL for a request to scheme://host:port ("https", a name or
 * an IP without brackets, the port as text), from the environment; NULL
 * for none.  The caller frees it.
 */
char *proxy_from_environment(const char *scheme, const char *host, const char *port);

#endif
