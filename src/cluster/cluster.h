/*
 * cluster.h — what every command that talks to a cluster shares: the
 * kubectl-style flags (--kubeconfig, --context, -n, -A, ...) and the
 * connection they lead to (rest config → kclient → discovery).
 */
#ifndef KINF_CLUSTER_H
#define KINF_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/rest_config.h"
#include "lib/opt.h"
#include "lib/util.h"

struct kclient;
struct discovery;
struct api_resource;

struct cluster_flags {
	/* --kubeconfig, --context, --as, -s, --token...: what rest_config_load reads */
	struct kubeconfig_opts kc;
	struct opt_array as_groups;	/* --as-group, made kc.as_groups */
	bool all_namespaces;
	int verbose;
	int64_t request_timeout_ms;
	int http_version;	/* -1: auto; else an index into --http-version's choices */
	const char *cache_dir;	/* --cache-dir */
};

/* The flags (filled by opt_parse through cluster_options). */
extern struct cluster_flags cluster_flags;
/* -n/--namespace, -A, --kubeconfig, --context, --cluster, --user, --as, -v, ... */
extern const struct option cluster_options[];

/*
 * kubectl's -v=N (klog's level) as kinf's count: each request from 6, as
 * -v (kinf's notices come with it from 1); headers and bodies from 7 and
 * 8, as -v -v.
 */
int cluster_verbose_level(long klog);

struct cluster {
	struct rest_config *config;
	struct kclient *client;
	struct discovery *disco;
	/*
	 * The REST client's rate limit (http.h): the informers' dynamic
	 * client's, the client of the type get is at (refilled per type).
	 */
	struct rest_limiter *limiter;
	/* The namespace to use: -n, else the context's, else "default". */
	const char *ns;
	/* NULL when -A (all namespaces). */
	const char *scope_ns;
};

/*
 * Loads the kubeconfig per cluster_flags and connects.  -1 with err
 * naming the cause (file and line, context, server, ...).
 */
int cluster_open(struct cluster *c, struct errbuf *err);
void cluster_close(struct cluster *c);

/*
 * -1 and err when one of the nr resources is namespaced and c's namespace
 * is one client-go's Request.Namespace refuses ("..", "a/b"): a
 * cluster-scoped resource never puts it in a path, so kubectl lists
 * nodes with any -n.  It is each type's own failure: `get nodes,pods -n
 * ..` checks one at a time, and lists the nodes.
 */
int cluster_scope_check(const struct cluster *c, const struct api_resource *const *res,
			size_t nr, struct errbuf *err);

/*
 * Resolves each of `typed` ("pods,deploy" split on commas) through
 * discovery.  -1 with err naming the unknown one.  The namespace is not
 * checked here (cluster_scope_check()).
 */
int cluster_resolve(struct cluster *c, const char *typed,
		    const struct api_resource ***out, size_t *nr,
		    struct errbuf *err);

#endif
