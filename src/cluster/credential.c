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
#include <sys/stat.h>

#include "lib/base64.h"
#include "cluster/exec_credential.h"
#include "lib/strbuf.h"

struct credential {
	const struct rest_config *cfg;
	pthread_mutex_t lock;
	unsigned generation;		/* bumped whenever the credential changes */

	/* AUTH_TOKEN_FILE: the token read, and the file it came from. */
	char *file_token;
	struct stat file_st;
	bool file_stale;		/* re-read before the next request */

	/* AUTH_EXEC: the plugin's last answer. */
	struct exec_credential exec;
	bool exec_valid;
};

struct credential *credential_new(const struct rest_config *cfg)
{
	struct credential *cred = xcalloc(1, sizeof(*cred));
	cred->cfg = cfg;
	pthread_mutex_init(&cred->lock, NULL);
	cred->generation = 1;
	if (cfg->auth == AUTH_TOKEN_FILE) {
		/* rest_config_load read it; a changed file is noticed by its stat. */
		cred->file_token = xstrdup(cfg->token ? cfg->token : "");
		if (stat(cfg->token_file, &cred->file_st) < 0)
			cred->file_stale = true;
	}
	return cred;
}

void credential_free(struct credential *cred)
{
	if (!cred)
		return;
	if (cred->file_token)
		memset(cred->file_token, 0, strlen(cred->file_token));
	free(cred->file_token);
	exec_credential_release(&cred->exec);
	pthread_mutex_destroy(&cred->lock);
	free(cred);
}

void credential_snapshot_release(struct credential_snapshot *snap)
{
	if (snap->authorization)
		memset(snap->authorization, 0, strlen(snap->authorization));
	free(snap->authorization);
	if (snap->key.data)
		memset(snap->key.data, 0, snap->key.len);
	blob_release(&snap->cert);
	blob_release(&snap->key);
	memset(snap, 0, sizeof(*snap));
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Re-reads the token file if it changed.  Called with the lock held. */
static int token_file_refresh(struct credential *cred, struct errbuf *err)
{
	const char *path = cred->cfg->token_file;
	struct stat st;

	if (stat(path, &st) < 0) {
		/*
		 * Mid-rotation a projected token's symlink may briefly dangle:
		 * keep the token we have, as client-go's cached source does.
		 */
		if (cred->file_token && *cred->file_token)
			return 0;
		errbuf_set(err, "cannot read token file '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!cred->file_stale && same_file(&st, &cred->file_st))
		return 0;
	struct blob b = { 0 };
	if (blob_read_file(&b, path) < 0) {
		if (cred->file_token && *cred->file_token)
			return 0;
		errbuf_set(err, "cannot read token file '%s': %s", path, strerror(errno));
		return -1;
	}
	size_t start = 0, end = b.len;
	while (start < end && strchr(" \t\r\n", b.data[start]))
		start++;
	while (end > start && strchr(" \t\r\n", b.data[end - 1]))
		end--;
	char *token = xstrndup(b.data + start, end - start);
	memset(b.data, 0, b.len);
	blob_release(&b);
	if (!cred->file_token || strcmp(token, cred->file_token))
		cred->generation++;
	if (cred->file_token)
		memset(cred->file_token, 0, strlen(cred->file_token));
	free(cred->file_token);
	cred->file_token = token;
	cred->file_st = st;
	cred->file_stale = false;
	return 0;
}

static int exec_refresh(struct credential *cred, const struct exec_wait *wait,
			struct errbuf *err)
{
	if (cred->exec_valid && (!cred->exec.expires_ms || wall_ms() < cred->exec.expires_ms))
		return 0;
	struct exec_credential fresh;
	if (exec_credential_run(cred->cfg, wait, &fresh, err) < 0)
		return -1;
	exec_credential_release(&cred->exec);
	cred->exec = fresh;
	cred->exec_valid = true;
	cred->generation++;
	return 0;
}

static char *bearer(const char *token)
{
	return token && *token ? xasprintf("Bearer %s", token) : NULL;
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
		if (token_file_refresh(cred, err) < 0)
			goto cleanup;
		snap->authorization = bearer(cred->file_token);
		break;
	case AUTH_BASIC: {
		struct strbuf plain = STRBUF_INIT, sb = STRBUF_INIT;
		strbuf_addf(&plain, "%s:%s", cfg->username, cfg->password);
		strbuf_adds(&sb, "Basic ");
		base64_encode(plain.buf, plain.len, &sb);
		memset(plain.buf, 0, plain.len);
		strbuf_release(&plain);
		snap->authorization = strbuf_detach(&sb, NULL);
		break;
	}
	case AUTH_EXEC:
		if (exec_refresh(cred, wait, err) < 0)
			goto cleanup;
		/* A plugin returning only a certificate leaves a static token in force. */
		snap->authorization = bearer(cred->exec.token ? cred->exec.token : cfg->token);
		if (cred->exec.cert.len) {
			snap->cert.data = xstrndup(cred->exec.cert.data, cred->exec.cert.len);
			snap->cert.len = cred->exec.cert.len;
			snap->key.data = xstrndup(cred->exec.key.data, cred->exec.key.len);
			snap->key.len = cred->exec.key.len;
		}
		break;
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
	if (cred->cfg->auth == AUTH_TOKEN_FILE)
		cred->file_stale = true;
	/* Another thread may have refreshed it already. */
	else if (cred->cfg->auth == AUTH_EXEC && snap->generation == cred->generation)
		cred->exec_valid = false;
	pthread_mutex_unlock(&cred->lock);
}
