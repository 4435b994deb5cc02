/* cluster.c — kubectl's flags and the connection they lead to; see cluster.h. */
#include "cluster/cluster.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "cluster/discovery.h"
#include "cluster/discovery_cache.h"
#include "cluster/http.h"
#include "cluster/kubeconfig.h"
#include "lib/strbuf.h"

struct cluster_flags cluster_flags = { .http_version = -1 };

/* --http-version's values, in the order of enum http_version after AUTO. */
static const char *const http_version_names[] = { "1.1", "2", NULL };

/* Completion names (the last argument of OPT_STRING): see cli/cmd.h. */
const struct option cluster_options[] = {
	OPT_STRING('n', "namespace", &cluster_flags.kc.namespace, "NAMESPACE",
		   "the namespace to use (default: the context's)", "namespace"),
	OPT_BOOL('A', "all-namespaces", &cluster_flags.all_namespaces,
		 "every namespace"),
	OPT_STRING(0, "kubeconfig", &cluster_flags.kc.kubeconfig, "FILE",
		   "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)", "file"),
	OPT_STRING(0, "context", &cluster_flags.kc.context, "NAME",
		   "the kubeconfig context to use", "context"),
	OPT_STRING(0, "cluster", &cluster_flags.kc.cluster, "NAME",
		   "the kubeconfig cluster to use", NULL),
	OPT_STRING(0, "user", &cluster_flags.kc.user, "NAME",
		   "the kubeconfig user to use", NULL),
	OPT_STRING(0, "as", &cluster_flags.kc.as, "USER",
		   "the user to impersonate (a user, or system:serviceaccount:NAMESPACE:NAME)", NULL),
	OPT_ARRAY(0, "as-group", &cluster_flags.as_groups, "GROUP",
		  "a group to impersonate; may be repeated", NULL),
	OPT_STRING(0, "as-uid", &cluster_flags.kc.as_uid, "UID", "the UID to impersonate", NULL),
	OPT_STRING('s', "server", &cluster_flags.kc.server, "URL",
		   "the API server, over the kubeconfig's cluster's", NULL),
	OPT_STRING(0, "certificate-authority", &cluster_flags.kc.ca_file, "FILE",
		   "the CA to check the server with, over the kubeconfig's", "file"),
	OPT_BOOL(0, "insecure-skip-tls-verify", &cluster_flags.kc.insecure,
		 "do not check the server's certificate (its traffic can then be read)"),
	OPT_STRING(0, "tls-server-name", &cluster_flags.kc.tls_server_name, "NAME",
		   "check the server's certificate for this name", NULL),
	OPT_BOOL(0, "disable-compression", &cluster_flags.kc.disable_compression,
		 "ask the server for no compressed responses"),
	OPT_STRING(0, "token", &cluster_flags.kc.token, "TOKEN",
		   "a bearer token, over the kubeconfig's user's", NULL),
	OPT_STRING(0, "username", &cluster_flags.kc.username, "NAME",
		   "basic auth's username, over the kubeconfig's user's", NULL),
	OPT_STRING(0, "password", &cluster_flags.kc.password, "PASSWORD",
		   "basic auth's password, over the kubeconfig's user's", NULL),
	OPT_STRING(0, "client-certificate", &cluster_flags.kc.cert_file, "FILE",
		   "a client certificate, over the kubeconfig's user's", "file"),
	OPT_STRING(0, "client-key", &cluster_flags.kc.key_file, "FILE",
		   "the client certificate's key, over the kubeconfig's user's", "file"),
	OPT_SIGNED_DURATION(0, "request-timeout", &cluster_flags.request_timeout_ms,
			    "limit each get and discovery request, retries included; "
			    "watches only connecting (default: none but 30s to connect, TLS in 10s, "
			    "as Go, and discovery's 32s, as client-go); a whole number is seconds, "
			    "and a negative one is only sent, as kubectl's"),
	OPT_STRING(0, "cache-dir", &cluster_flags.cache_dir, "DIR",
		   "kubectl's cache, shared with it (default: $KUBECACHEDIR, else ~/.kube/cache)",
		   "file"),
	OPT_ENUM(0, "http-version", &cluster_flags.http_version, "VERSION", http_version_names,
		 "only this HTTP version (default: HTTP/2 when the server offers it over TLS, else 1.1)"),
	OPT_COUNT_LEVEL('v', "verbose", &cluster_flags.verbose,
			"every informer notice, and HTTP requests and rate-limit waits on stderr "
			"(credentials redacted); "
			"twice for bodies (not Secrets'); -v=N as kubectl's, 7 and up twice",
			cluster_verbose_level),
	OPT_COUNT_LEVEL(0, "v", &cluster_flags.verbose, "kubectl's --v=N: as -v=N",
			cluster_verbose_level),
	OPT_END(),
};

int cluster_verbose_level(long klog)
{
	return klog >= 7 ? 2 : klog >= 1 ? 1 : 0;
}

int cluster_open(struct cluster *c, struct errbuf *err)
{
	struct kubeconfig_opts ko = cluster_flags.kc;

	ko.as_groups = cluster_flags.as_groups.v;

	memset(c, 0, sizeof(*c));
	/* "-n --timeout 1s": -n took the option after it as its value. */
	if (ko.namespace && ko.namespace[0] == '-') {
		errbuf_set(err, "invalid namespace '%s': a namespace starts with a letter or "
			   "digit (did -n take the option after it as its value?)", ko.namespace);
		return -1;
	}
	/*
	 * A credential is about to be held: no core dump may carry it, and
	 * no other process of the user may read it through ptrace or /proc
	 * (a debugger attaches as root, or starts kinf itself).
	 */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (rest_config_load(&ko, &c->config, err) < 0)
		return -1;
	c->client = kclient_new(c->config, err);
	if (!c->client) {
		rest_config_free(c->config);
		c->config = NULL;
		return -1;
	}
	if (cluster_flags.request_timeout_ms)
		kclient_set_timeout(c->client, cluster_flags.request_timeout_ms);
	if (cluster_flags.verbose)
		kclient_set_verbose(c->client, cluster_flags.verbose);
	if (cluster_flags.http_version >= 0)
		kclient_set_http_version(c->client, cluster_flags.http_version == 0 ?
					 HTTP_VERSION_1_1 : HTTP_VERSION_2);
	c->disco = discovery_new(c->client);
	c->limiter = rest_limiter_new();
	/* cli-runtime's ConfigFlags.toDiscoveryClient: --cache-dir, KUBECACHEDIR, ~/.kube/cache. */
	char *root = cluster_flags.cache_dir && *cluster_flags.cache_dir ?
		     xstrdup(cluster_flags.cache_dir) : discovery_cache_root();
	char *dir = discovery_cache_dir(root, c->config->server);
	discovery_set_cache_dir(c->disco, dir);
	free(dir);
	free(root);
	c->ns = c->config->namespace;
	c->scope_ns = cluster_flags.all_namespaces ? NULL : c->ns;
	return 0;
}

int cluster_scope_check(const struct cluster *c, const struct api_resource *const *res,
			size_t nr, struct errbuf *err)
{
	const char *why = c->scope_ns ? url_segment_refused(c->scope_ns) : NULL;

	for (size_t i = 0; why && i < nr; i++) {
		if (res[i]->namespaced) {
			errbuf_set(err, "invalid namespace \"%s\": %s", c->scope_ns, why);
			return -1;
		}
	}
	return 0;
}

void cluster_close(struct cluster *c)
{
	discovery_free(c->disco);
	rest_limiter_free(c->limiter);
	kclient_free(c->client);
	rest_config_free(c->config);
	memset(c, 0, sizeof(*c));
}

int cluster_resolve(struct cluster *c, const char *typed,
		    const struct api_resource ***out, size_t *nr,
		    struct errbuf *err)
{
	char *copy = xstrdup(typed), *save = NULL;
	const struct api_resource **v = NULL;
	size_t n = 0, alloc = 0;
	int ret = -1;

	if (discovery_load(c->disco, err) < 0)
		goto cleanup;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct api_resource *res;
		if (discovery_resolve(c->disco, tok, &res, err) < 0)
			goto cleanup;
		/* "po,pods" names one resource: one informer. */
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= v[i] == res;
		if (seen)
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = res;
	}
	if (!n) {
		errbuf_set(err, "no resource type given");
		goto cleanup;
	}
	*out = v;
	*nr = n;
	v = NULL;
	ret = 0;
cleanup:
	free(v);
	free(copy);
	return ret;
}
