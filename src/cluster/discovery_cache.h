/*
 * discovery_cache.h — kubectl's discovery cache on disk, shared with it.
 *
 * The layout, file format and lifetime of client-go's disk-cached
 * discovery client (discovery/cached/disk CachedDiscoveryClient, as
 * cli-runtime's ConfigFlags.toDiscoveryClient sets it up):
 *
 *   CACHE/discovery/HOST_PORT/servergroups.json           an APIGroupList
 *   CACHE/discovery/HOST_PORT/GROUP/VERSION/serverresources.json
 *                                                          an APIResourceList
 *                                                          (core: v1/...)
 *
 * CACHE is --cache-dir, else $KUBECACHEDIR, else ~/.kube/cache;
 * HOST_PORT is the server URL without its scheme, every character but
 * letters, digits, '_', '/', '.', '(' and ')' made '_'
 * (computeDiscoverCacheDir).  A file is good for 6 hours after it was
 * last written (its mtime).  Files are written whole to a temporary name,
 * mode 0660, then renamed; directories are made 0750.  So kubectl reads
 * what kinf writes, and the other way round.
 *
 * Threads: every function may be called from any thread; concurrent
 * writers (two processes, or parallel discovery requests) each rename a
 * complete file into place.
 */
#ifndef KINF_DISCOVERY_CACHE_H
#define KINF_DISCOVERY_CACHE_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/util.h"

/* client-go's TTL for the discovery cache. */
#define DISCOVERY_CACHE_TTL_MS (6LL * 3600 * 1000)

/* --cache-dir's default: $KUBECACHEDIR, else $HOME/.kube/cache.  Caller frees. */
char *discovery_cache_root(void);
/* ROOT/discovery/HOST_PORT for the server URL.  Caller frees. */
char *discovery_cache_dir(const char *root, const char *server);

/*
 * DIR/NAME as JSON, when it exists, is younger than the TTL and parses
 * as a JSON object; else NULL.  age_ms (may be NULL) gets its age.
 */
json_object *discovery_cache_read(const char *dir, const char *name, int64_t *age_ms);
/* Writes doc to DIR/NAME (directories made as needed).  -1 and err on failure. */
int discovery_cache_write(const char *dir, const char *name, json_object *doc,
			  struct errbuf *err);

#endif
