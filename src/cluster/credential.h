/*
 * credential.h — what each request presents, kept fresh.
 *
 * From a rest_config's credential source: a static bearer token; a token
 * file, read again once what was read is 50 s old, as client-go's cached
 * file token source reads it (neither a change on disk nor a 401 makes
 * it read sooner); basic auth; an exec plugin, whose answer is cached
 * until its expirationTimestamp and dropped on a 401.  An exec plugin may also hand out a client certificate and key,
 * which then replace the kubeconfig's for the TLS handshake.
 *
 * Threads: every function is thread-safe.  credential_get() may block
 * while an exec plugin runs; concurrent callers wait for that one run
 * rather than starting their own.
 */
#ifndef KINF_CREDENTIAL_H
#define KINF_CREDENTIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/kubeconfig.h"

struct exec_wait;

struct credential;

/* Borrows cfg, which must outlive the credential. */
struct credential *credential_new(const struct rest_config *cfg);
void credential_free(struct credential *cred);
/* The clock a token file's freshness is counted on, in ms; NULL: mono_ms(). */
void credential_set_clock(struct credential *cred, int64_t (*now)(void *ctx), void *ctx);

/* What one request presents; owns its strings (release it). */
struct credential_snapshot {
	char *authorization;	/* "Bearer …", "Basic …", or NULL */
	/* the client identity: an exec plugin's, or the files' last read; empty: the config's */
	struct blob cert, key;
	unsigned generation;	/* which credential this was, for credential_refresh */
	/*
	 * The exec plugin ran for this request and handed out another client
	 * certificate than before: client-go closes every connection then.
	 */
	bool close_all;
};

/* wait: for an exec plugin's run (exec_credential.h); may be NULL. */
int credential_get(struct credential *cred, struct credential_snapshot *snap,
		   const struct exec_wait *wait, struct errbuf *err);
void credential_snapshot_release(struct credential_snapshot *snap);

/*
 * client-go's ReloadTLSFiles, when the kubeconfig's client certificate
 * and key are both files (cfg->client_cert_file): reads them again, as
 * its certificate rotation does every 5 minutes, and compares what they
 * hold with the pair new connections present (Go's certsEqual: the
 * certificates and the key, not the files' bytes).  Another pair becomes
 * the one credential_get() hands out, and *rotated says so; the first
 * pair read well after one that was not is no rotation.  -1 (err) when
 * the files cannot be read or are no pair tls.X509KeyPair takes: nothing
 * changes.  0 without a pair of files.
 */
int credential_reload_cert_files(struct credential *cred, bool *rotated, struct errbuf *err);

/*
 * The server answered 401 to a request made with snap: forget an exec
 * plugin's credential, so that the next credential_get() runs the plugin
 * again, as client-go's exec round tripper does (its token source does
 * nothing of the kind for a token file).
 */
void credential_refresh(struct credential *cred, const struct credential_snapshot *snap);

#endif
