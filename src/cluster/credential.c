/*
 * credential.c — see credential.h.
 *
 * DESIGN: one mutex guards the cache (token, exec answer, token file
 * identity, generation).  It is held across an exec plugin run on purpose:
 * reflector threads that all got a 401 at once must cause one run, not one
 * each.  Nothing else blocks under it.
 */
#include "cluster/credential.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base64.h"
#include "cluster/exec_credential.h"
#include "cluster/tls_cert.h"
#include "lib/strbuf.h"

struct credential {
	const struct rest_config *cfg;
	pthread_mutex_t lock;
	unsigned generation;		/* bumped whenever the credential changes */

	/*
	 * AUTH_TOKEN_FILE: the token last read, and when (mono_ms(); 0:
	 * never).  cfg->token, the file at load, stands in until a read works.
	 */
	char *file_token;
	int64_t file_read_ms;
	int64_t (*now)(void *ctx);	/* credential_set_clock(); NULL: mono_ms() */
	void *now_ctx;

	/* AUTH_EXEC: the plugin's last answer. */
	struct exec_credential exec;
	bool exec_valid;
	bool exec_ran;			/* exec holds an answer, valid or not */

	/*
	 * cfg->client_cert_file: the pair new connections present, the
	 * files as last read well (cfg's until then), and its identity
	 * (cert_pair_identity(); empty while no read was good).
	 */
	struct blob file_cert, file_key;
	struct strbuf file_identity;
};

/* A key's blob, wiped before it is freed. */
static void secret_blob_release(struct blob *b)
{
	if (b->data)
		explicit_bzero(b->data, b->len);
	blob_release(b);
}

struct credential *credential_new(const struct rest_config *cfg)
{
	struct credential *cred = xcalloc(1, sizeof(*cred));
	cred->cfg = cfg;
	pthread_mutex_init(&cred->lock, NULL);
	cred->generation = 1;
	strbuf_init(&cred->file_identity, 0);
	if (cfg->client_cert_file) {
		blob_copy(&cred->file_cert, &cfg->client_cert);
		blob_copy(&cred->file_key, &cfg->client_key);
		if (cert_pair_identity(cfg->client_cert.data, cfg->client_cert.len,
				       cfg->client_key.data, cfg->client_key.len,
				       &cred->file_identity) < 0)
			strbuf_reset(&cred->file_identity);
	}
	return cred;
}

void credential_set_clock(struct credential *cred, int64_t (*now)(void *ctx), void *ctx)
{
	pthread_mutex_lock(&cred->lock);
	cred->now = now;
	cred->now_ctx = ctx;
	pthread_mutex_unlock(&cred->lock);
}

void credential_free(struct credential *cred)
{
	if (!cred)
		return;
	secret_free(cred->file_token);
	exec_credential_release(&cred->exec);
	secret_blob_release(&cred->file_key);
	blob_release(&cred->file_cert);
	explicit_bzero(cred->file_identity.buf, cred->file_identity.len);
	strbuf_release(&cred->file_identity);
	pthread_mutex_destroy(&cred->lock);
	free(cred);
}

void credential_snapshot_release(struct credential_snapshot *snap)
{
	secret_free(snap->authorization);
	secret_blob_release(&snap->key);
	blob_release(&snap->cert);
	memset(snap, 0, sizeof(*snap));
}

int credential_reload_cert_files(struct credential *cred, bool *rotated, struct errbuf *err)
{
	const struct rest_config *cfg = cred->cfg;
	struct blob cert = { 0 }, key = { 0 };
	struct strbuf id = STRBUF_INIT;
	int ret = -1;

	*rotated = false;
	if (!cfg->client_cert_file)
		return 0;
	if (blob_read_file(&cert, cfg->client_cert_file) < 0 ||
	    blob_read_file(&key, cfg->client_key_file) < 0) {
		errbuf_set(err, "cannot read client certificate '%s' or key '%s': %s",
			   cfg->client_cert_file, cfg->client_key_file, strerror(errno));
		goto out;
	}
	if (cert_pair_identity(cert.data, cert.len, key.data, key.len, &id) < 0) {
		errbuf_set(err, "client certificate '%s' and key '%s' are no pair TLS can use",
			   cfg->client_cert_file, cfg->client_key_file);
		goto out;
	}
	ret = 0;
	pthread_mutex_lock(&cred->lock);
	if (id.len != cred->file_identity.len ||
	    memcmp(id.buf, cred->file_identity.buf, id.len)) {
		/* the first good read after none is no rotation (haveCert) */
		*rotated = cred->file_identity.len > 0;
		struct blob old_cert = cred->file_cert, old_key = cred->file_key;
		struct strbuf old_id = cred->file_identity;
		cred->file_cert = cert;
		cred->file_key = key;
		cred->file_identity = id;
		cert = old_cert;
		key = old_key;
		id = old_id;
	}
	pthread_mutex_unlock(&cred->lock);
out:
	secret_blob_release(&key);
	blob_release(&cert);
	explicit_bzero(id.buf, id.len);
	strbuf_release(&id);
	return ret;
}

/*
 * client-go's cached file token source: a token read is good for 50 s
 * (a minute's expiry, less 10 s of leeway), then the file is read again.
 * The token is the file's text without the white space strings.TrimSpace
 * drops (Unicode's too).  A failed read, or a file of white space alone,
 * keeps the token last read; before any, the whole file as it was at
 * load (clientcmd's BearerToken, untrimmed: a line end alone makes a
 * header Go refuses).  Nothing else reads it sooner: not a change on
 * disk, not a 401.
 */
#define TOKEN_FILE_FRESH_MS 50000

/* Re-reads the token file when the one read is stale.  Called with the lock held. */
static const char *token_file_token(struct credential *cred)
{
	const char *path = cred->cfg->token_file;
	int64_t now = cred->now ? cred->now(cred->now_ctx) : mono_ms();
	struct blob b = { 0 };

	if (cred->file_read_ms && now - cred->file_read_ms < TOKEN_FILE_FRESH_MS)
		return cred->file_token;
	if (blob_read_file(&b, path) == 0) {
		char *token = blob_text(&b, true);
		if (*token) {
			if (!cred->file_token || strcmp(token, cred->file_token))
				cred->generation++;
			secret_free(cred->file_token);
			cred->file_token = token;
			cred->file_read_ms = now;
		} else {
			free(token);
		}
		explicit_bzero(b.data, b.len);
		blob_release(&b);
	}
	return cred->file_token ? cred->file_token : cred->cfg->token;
}

/* Whether two client identities (PEM; empty: none) differ as Go's reflect.DeepEqual sees them. */
static bool identity_differs(const struct blob *cert1, const struct blob *key1,
			     const struct blob *cert2, const struct blob *key2)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	bool differs;

	if (!cert1->len || !cert2->len)
		return !cert1->len != !cert2->len;
	if (cert_pair_identity(cert1->data, cert1->len, key1->data, key1->len, &a) < 0 ||
	    cert_pair_identity(cert2->data, cert2->len, key2->data, key2->len, &b) < 0)
		differs = cert1->len != cert2->len || memcmp(cert1->data, cert2->data, cert1->len);
	else
		differs = a.len != b.len || memcmp(a.buf, b.buf, a.len);
	explicit_bzero(a.buf, a.len);
	explicit_bzero(b.buf, b.len);
	strbuf_release(&a);
	strbuf_release(&b);
	return differs;
}

/*
 * Runs the plugin when its answer is missing or expired.  *cert_changed:
 * the answer's client certificate is not the last one's, which makes
 * client-go's exec authenticator close every connection (a first answer
 * has no last one).
 */
static int exec_refresh(struct credential *cred, const struct exec_wait *wait,
			bool *cert_changed, struct errbuf *err)
{
	if (cred->exec_valid && (!cred->exec.expires_ms || wall_ms() < cred->exec.expires_ms))
		return 0;
	struct exec_credential fresh;
	if (exec_credential_run(cred->cfg, wait, &fresh, err) < 0)
		return -1;
	*cert_changed = cred->exec_ran && identity_differs(&cred->exec.cert, &cred->exec.key,
							   &fresh.cert, &fresh.key);
	exec_credential_release(&cred->exec);
	cred->exec = fresh;
	cred->exec_valid = cred->exec_ran = true;
	cred->generation++;
	return 0;
}

static char *bearer(const char *token)
{
	return token && *token ? xasprintf("Bearer %s", token) : NULL;
}

static char *basic(const char *user, const char *password)
{
	struct strbuf plain = STRBUF_INIT, sb = STRBUF_INIT;

	strbuf_addf(&plain, "%s:%s", user, password ? password : "");
	strbuf_adds(&sb, "Basic ");
	base64_encode(plain.buf, plain.len, &sb);
	explicit_bzero(plain.buf, plain.len);
	strbuf_release(&plain);
	return strbuf_detach(&sb, NULL);
}

int credential_get(struct credential *cred, struct credential_snapshot *snap,
		   const struct exec_wait *wait, struct errbuf *err)
{
	const struct rest_config *cfg = cred->cfg;
	int ret = -1;

	memset(snap, 0, sizeof(*snap));
	pthread_mutex_lock(&cred->lock);
	switch (cfg->auth) {
	case AUTH_NONE:
		break;
	case AUTH_TOKEN:
		snap->authorization = bearer(cfg->token);
		break;
	case AUTH_TOKEN_FILE:
		snap->authorization = bearer(token_file_token(cred));
		break;
	case AUTH_BASIC:
		snap->authorization = basic(cfg->username, cfg->password);
		break;
	case AUTH_EXEC:
		if (exec_refresh(cred, wait, &snap->close_all, err) < 0)
			goto cleanup;
		snap->authorization = bearer(cred->exec.token);
		if (cred->exec.cert.len) {
			blob_copy(&snap->cert, &cred->exec.cert);
			blob_copy(&snap->key, &cred->exec.key);
		}
		break;
	}
	if (cfg->client_cert_file) {
		blob_copy(&snap->cert, &cred->file_cert);
		blob_copy(&snap->key, &cred->file_key);
	}
	/* Go's http.Client sets it before any round tripper adds its own. */
	if (cfg->server_user) {
		secret_free(snap->authorization);
		snap->authorization = basic(cfg->server_user, cfg->server_password);
	}
	snap->generation = cred->generation;
	ret = 0;
cleanup:
	pthread_mutex_unlock(&cred->lock);
	return ret;
}

void credential_refresh(struct credential *cred, const struct credential_snapshot *snap)
{
	pthread_mutex_lock(&cred->lock);
	/* Another thread may have refreshed it already. */
	if (cred->cfg->auth == AUTH_EXEC && snap->generation == cred->generation)
		cred->exec_valid = false;
	pthread_mutex_unlock(&cred->lock);
}
