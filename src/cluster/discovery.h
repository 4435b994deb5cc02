/*
 * discovery.h — which resources the server has, and what the user meant.
 *
 * Resolves a name as kubectl does: plural, singular, short name, kind
 * (any case), "resource.group", "resource.version.group"; custom resources
 * come from /apis like any other.  The answers come from kubectl's disk
 * cache when it has them (discovery_cache.h), else from the server —
 * aggregated discovery in two requests when it offers it, else one request
 * per group version — and are then written to that cache.  They are kept
 * in the struct discovery for the run.
 *
 * Not thread-safe: used by the command layer before informers start.
 */
#ifndef KINF_DISCOVERY_H
#define KINF_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

struct kclient;

struct api_resource {
	char *group;		/* "" for the core group */
	char *version;		/* "v1" */
	char *name;		/* plural: "pods" */
	char *singular;		/* "pod" */
	char *kind;		/* "Pod" */
	bool namespaced;
	char **verbs;		/* NULL-terminated */
	char **short_names;	/* NULL-terminated */
	char **categories;	/* NULL-terminated: "all", ... */
};

struct discovery;

/* Without a cache directory: every run asks the server. */
struct discovery *discovery_new(struct kclient *client);
void discovery_free(struct discovery *disco);
/* Read and write kubectl's cache in dir (discovery_cache_dir()); NULL: none. */
void discovery_set_cache_dir(struct discovery *disco, const char *dir);
/*
 * Forget what was loaded and ignore the cache files from now on (but
 * still write them): the next discovery_load() asks the server, as
 * `kubectl api-resources` does.  Resources handed out stay valid.
 */
void discovery_invalidate(struct discovery *disco);

/*
 * Fetches /api and /apis (once).  -1 and err on failure.  A group version
 * that does not answer (an aggregated API that is down) is skipped, as
 * kubectl skips it; discovery_failed() names those.
 */
int discovery_load(struct discovery *disco, struct errbuf *err);
/* "metrics.k8s.io/v1beta1, ..." that failed to answer, or NULL. */
const char *discovery_failed(const struct discovery *disco);
/*
 * After discovery_load() (or discovery_resolve()) failed: the HTTP status
 * with which the server refused the client, 401 or 403, so that a command
 * that retries a refusal as an informer retries its list may retry this
 * too; 0 when it failed otherwise.
 */
long discovery_refused(const struct discovery *disco);

/*
 * The resource the user means by `typed`.  A name that what came from the
 * disk cache does not know makes discovery ask the server again, once.
 * -1 and err when unknown (with a did-you-mean when a name is close).
 * The result points into disco, and stays valid until discovery_free().
 * Its verbs are not checked: kubectl's get sends what the server refuses.
 */
int discovery_resolve(struct discovery *disco, const char *typed,
		      const struct api_resource **out, struct errbuf *err);

/* 0 if an informer can follow r (list and watch); else -1 and err names what it lacks. */
int discovery_informable(const struct api_resource *r, struct errbuf *err);

/*
 * Every resource of the preferred versions, sorted as kubectl sorts them.
 * The array belongs to disco (valid until the next call or discovery_free).
 */
void discovery_all(struct discovery *disco, const struct api_resource ***out,
		   size_t *nr);

/* Frees what res holds, not res. */
void api_resource_release(struct api_resource *res);
bool api_resource_has_verb(const struct api_resource *res, const char *verb);
/* "pods", "deployments.apps" — the name kubectl prints. */
char *api_resource_full_name(const struct api_resource *res);
/*
 * A group version as an object's apiVersion: "apps/v1", "v1" for the core
 * group ("").  Allocated.
 */
char *api_group_version(const char *group, const char *version);
/* Where a group version is served: "/apis/apps/v1", "/api/v1".  Allocated. */
char *api_group_version_path(const char *group, const char *version);
/*
 * Collection path: "/api/v1/namespaces/NS/pods", "/apis/apps/v1/deployments";
 * ns NULL or "" means all namespaces (or a cluster-scoped resource).
 */
char *api_resource_path(const struct api_resource *res, const char *ns);

#endif
