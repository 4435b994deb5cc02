/* tls_cert.c — certificates named in messages; see tls_cert.h. */
#include "cluster/tls_cert.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

static time_t asn1_time(const ASN1_TIME *t)
{
	struct tm tm;
	if (!t || !ASN1_TIME_to_tm(t, &tm))
		return 0;
	return timegm(&tm);
}

static void cert_info_of(X509 *x, struct cert_info *out)
{
	memset(out, 0, sizeof(*out));
	BIO *b = BIO_new(BIO_s_mem());
	if (b) {
		X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
		int n = BIO_read(b, out->subject, (int)sizeof(out->subject) - 1);
		out->subject[n > 0 ? n : 0] = '\0';
		BIO_free(b);
	}
	out->not_before = asn1_time(X509_get0_notBefore(x));
	out->not_after = asn1_time(X509_get0_notAfter(x));
}

/* A passphrase asked for: none, where OpenSSL's own would ask the terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	return -1;
}

bool pem_key_encrypted(const char *key, size_t len)
{
	return memmem(key, len, "-----BEGIN ENCRYPTED PRIVATE KEY-----", 37) ||
	       memmem(key, len, "Proc-Type: 4,ENCRYPTED", 22);
}

int cert_info_from_pem(const char *pem, size_t len, struct cert_info *out)
{
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, no_passphrase, NULL) : NULL;
	BIO_free(b);
	if (!x)
		return -1;
	cert_info_of(x, out);
	X509_free(x);
	return 0;
}

/* Appends len bytes of DER to out, and frees them (wiped first); false when there are none. */
static bool add_der(struct strbuf *out, int len, unsigned char *der)
{
	if (len <= 0 || !der)
		return false;
	strbuf_add(out, der, (size_t)len);
	explicit_bzero(der, (size_t)len);
	OPENSSL_free(der);
	return true;
}

int cert_pair_identity(const char *cert, size_t cert_len, const char *key, size_t key_len,
		       struct strbuf *out)
{
	BIO *cb = BIO_new_mem_buf(cert, (int)cert_len), *kb = BIO_new_mem_buf(key, (int)key_len);
	X509 *first = NULL, *x;
	EVP_PKEY *pk = NULL;
	unsigned char *der;
	int ret = -1;

	strbuf_reset(out);
	while (cb && (x = PEM_read_bio_X509(cb, NULL, no_passphrase, NULL))) {
		der = NULL;
		int len = i2d_X509(x, &der);
		bool ok = add_der(out, len, der);
		if (!first && ok)
			first = x;
		else
			X509_free(x);
		if (!ok)
			goto out;
	}
	pk = kb ? PEM_read_bio_PrivateKey(kb, NULL, no_passphrase, NULL) : NULL;
	der = NULL;
	if (first && pk && X509_check_private_key(first, pk) == 1) {
		int len = i2d_PrivateKey(pk, &der);
		ret = add_der(out, len, der) ? 0 : -1;
	}
out:
	ERR_clear_error();
	X509_free(first);
	EVP_PKEY_free(pk);
	BIO_free(cb);
	BIO_free(kb);
	return ret;
}

/* "2024-01-02 15:04:05 UTC" into buf[32]. */
static void cert_time(time_t t, char buf[32])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

bool cert_validity_problem(const struct cert_info *ci, time_t now, char *buf, size_t size)
{
	char from[32], until[32];
	cert_time(ci->not_before, from);
	cert_time(ci->not_after, until);
	if (ci->not_after && now > ci->not_after) {
		snprintf(buf, size, "expired on %s (valid from %s)", until, from);
		return true;
	}
	if (ci->not_before && now < ci->not_before) {
		snprintf(buf, size, "is not valid before %s (valid until %s)", from, until);
		return true;
	}
	return false;
}

/* ---- Go's system roots ----------------------------------------------------- */

/* crypto/x509's certFiles and certDirectories on Linux (root_linux.go) */
static const char *const go_cert_files[] = {
	"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem",
};
#define GO_CERT_DIRS "/etc/ssl/certs:/etc/pki/tls/certs"

struct roots {
	struct strbuf *pem;
	struct strbuf seen;	/* each certificate's SHA-256: a CertPool holds one of each */
	int n;
};

static int read_whole(const char *path, struct strbuf *sb)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? -1 : strbuf_read_fd(sb, fd), saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
	return rc;
}

static bool roots_have(const struct roots *r, const unsigned char md[SHA256_DIGEST_LENGTH])
{
	for (size_t i = 0; i < r->seen.len; i += SHA256_DIGEST_LENGTH)
		if (!memcmp(r->seen.buf + i, md, SHA256_DIGEST_LENGTH))
			return true;
	return false;
}

/* Go's AppendCertsFromPEM: a CERTIFICATE block without headers whose DER parses whole. */
static void roots_add_pem(struct roots *r, const char *data, size_t len)
{
	BIO *in = len ? BIO_new_mem_buf(data, (int)len) : NULL;
	char *name, *header;
	unsigned char *der;
	long n;

	while (in && PEM_read_bio(in, &name, &header, &der, &n)) {
		unsigned char md[SHA256_DIGEST_LENGTH];
		const unsigned char *p = der;
		X509 *x = NULL;
		BIO *out = NULL;
		char *text;
		long text_len;

		/* a certificate already taken is not parsed again */
		if (!strcmp(name, "CERTIFICATE") && !*header &&
		    !roots_have(r, SHA256(der, (size_t)n, md)) && (x = d2i_X509(NULL, &p, n)) &&
		    p == der + n && (out = BIO_new(BIO_s_mem())) &&
		    PEM_write_bio(out, "CERTIFICATE", "", der, n) &&
		    (text_len = BIO_get_mem_data(out, &text)) > 0) {
			strbuf_add(r->pem, text, (size_t)text_len);
			strbuf_add(&r->seen, md, sizeof(md));
			r->n++;
		}
		BIO_free(out);
		X509_free(x);
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(der);
	}
	ERR_clear_error();
	BIO_free(in);
}

/* readUniqueDirectoryEntries leaves out a link whose target has no '/'. */
static bool same_dir_link(const char *path)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode) ||
	    (n = readlink(path, target, sizeof(target) - 1)) < 0)
		return false;
	target[n] = '\0';
	return !strchr(target, '/');
}

static void roots_add_dir(struct roots *r, const char *dir, int *first_err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		if (errno != ENOENT && !*first_err)
			*first_err = errno;
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct strbuf sb = STRBUF_INIT;
		if (!same_dir_link(path) && read_whole(path, &sb) == 0)
			roots_add_pem(r, sb.buf, sb.len);
		strbuf_release(&sb);
		free(path);
	}
	closedir(d);
}

int go_system_roots(const char *file_env, const char *dir_env, struct strbuf *pem)
{
	struct roots r = { .pem = pem, .seen = STRBUF_INIT };
	const char *const *files = go_cert_files;
	size_t nr_files = ARRAY_SIZE(go_cert_files);
	int first_err = 0;

	if (file_env && *file_env) {
		files = &file_env;
		nr_files = 1;
	}
	for (size_t i = 0; i < nr_files; i++) {
		struct strbuf sb = STRBUF_INIT;
		int rc = read_whole(files[i], &sb);
		if (rc == 0)
			roots_add_pem(&r, sb.buf, sb.len);
		else if (errno != ENOENT && !first_err)
			first_err = errno;
		strbuf_release(&sb);
		if (rc == 0)
			break;
	}
	char *dirs = xstrdup(dir_env && *dir_env ? dir_env : GO_CERT_DIRS), *rest = dirs, *dir;
	while ((dir = strsep(&rest, ":")))
		roots_add_dir(&r, dir, &first_err);
	free(dirs);
	strbuf_release(&r.seen);
	return r.n > 0 || !first_err ? r.n : -1;
}

/* ---- the server's side ----------------------------------------------------- */

struct tls_verify_log {
	pthread_mutex_t lock;
	bool have;
	struct tls_verify_failure last;
	bool (*began)(CURL *easy);
};

struct tls_verify_log *tls_verify_log_new(bool (*began)(CURL *easy))
{
	struct tls_verify_log *log = xcalloc(1, sizeof(*log));
	pthread_mutex_init(&log->lock, NULL);
	log->began = began;
	return log;
}

void tls_verify_log_free(struct tls_verify_log *log)
{
	if (!log)
		return;
	pthread_mutex_destroy(&log->lock);
	free(log);
}

bool tls_verify_log_take(struct tls_verify_log *log, struct tls_verify_failure *out)
{
	pthread_mutex_lock(&log->lock);
	bool have = log->have;
	if (have)
		*out = log->last;
	log->have = false;
	pthread_mutex_unlock(&log->lock);
	return have;
}

/* SSL_CTX ex_data slots: our log, and the verify callback we wrapped. */
static int log_index = -1, prev_index = -1;
static bool curl_has_openssl;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void index_init(void)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	/* The SSL_CTX libcurl hands over is an OpenSSL one only then. */
	curl_has_openssl = v->ssl_version && !strncmp(v->ssl_version, "OpenSSL/", 8);
	log_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	prev_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* Whether the certificate names a host or an address in its subjectAltName. */
static bool has_host_san(X509 *cert)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
	bool any = false;

	for (int i = 0; names && i < sk_GENERAL_NAME_num(names); i++) {
		const GENERAL_NAME *n = sk_GENERAL_NAME_value(names, i);
		any = any || n->type == GEN_DNS || n->type == GEN_IPADD;
	}
	GENERAL_NAMES_free(names);
	return any;
}

static int verify_cb(int ok, X509_STORE_CTX *store)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
	SSL_CTX *ctx = ssl ? SSL_get_SSL_CTX(ssl) : NULL;
	if (!ctx)
		return ok;
	SSL_verify_cb prev = (SSL_verify_cb)SSL_CTX_get_ex_data(ctx, prev_index);
	if (prev)
		ok = prev(ok, store);
	struct tls_verify_log *log = SSL_CTX_get_ex_data(ctx, log_index);
	X509 *cert = X509_STORE_CTX_get_current_cert(store);
	bool no_host_san = false;
	if (ok && cert && X509_STORE_CTX_get_error_depth(store) == 0 &&
	    SSL_get_verify_mode(ssl) != SSL_VERIFY_NONE && !has_host_san(cert)) {
		/* the chain is good, and Go would still match no name */
		X509_STORE_CTX_set_error(store, X509_V_ERR_HOSTNAME_MISMATCH);
		no_host_san = true;
		ok = 0;
	}
	if (ok || !log || !cert)
		return ok;

	struct tls_verify_failure f = {
		.depth = X509_STORE_CTX_get_error_depth(store), .no_host_san = no_host_san,
	};
	cert_info_of(cert, &f.cert);
	pthread_mutex_lock(&log->lock);
	log->last = f;
	log->have = true;
	pthread_mutex_unlock(&log->lock);
	return ok;
}

/* libcurl calls this once per new connection, its SSL_CTX set up (CA included). */
static CURLcode ssl_ctx_cb(CURL *easy, void *ssl_ctx, void *userp)
{
	SSL_CTX *ctx = ssl_ctx;
	SSL_CTX_set_ex_data(ctx, log_index, userp);
	SSL_CTX_set_ex_data(ctx, prev_index, (void *)SSL_CTX_get_verify_callback(ctx));
	SSL_CTX_set_verify(ctx, SSL_CTX_get_verify_mode(ctx), verify_cb);
	struct tls_verify_log *log = userp;
	return !log->began || log->began(easy) ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}

void tls_watch_verify(CURL *easy, struct tls_verify_log *log)
{
	pthread_once(&index_once, index_init);
	if (!curl_has_openssl)
		return;
	curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, ssl_ctx_cb);
	curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, log);
}

bool tls_alpn_h2(CURL *easy)
{
	struct curl_tlssessioninfo *info = NULL;
	const unsigned char *alpn = NULL;
	unsigned len = 0;

	pthread_once(&index_once, index_init);
	if (!curl_has_openssl || curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK ||
	    !info || info->backend != CURLSSLBACKEND_OPENSSL || !info->internals)
		return false;
	SSL_get0_alpn_selected(info->internals, &alpn, &len);
	return len == 2 && !memcmp(alpn, "h2", 2);
}
