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

/* ---- a client's pair, as Go's X509KeyPair reads it ---------------------------- */

/* One PEM block of a blob; false at its end (OpenSSL's PEM errors cleared). */
static bool pem_next(BIO *in, char **name, unsigned char **der, long *len)
{
	char *header = NULL;
	bool ok = in && PEM_read_bio(in, name, &header, der, len);

	OPENSSL_free(header);
	if (!ok)
		ERR_clear_error();
	return ok;
}

/* Appends a block as PEM without headers. */
static void pem_add(struct strbuf *out, const char *name, const unsigned char *der, long len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *text;
	long n;

	if (!b || !PEM_write_bio(b, name, "", der, len))
		out_of_memory(0);
	n = BIO_get_mem_data(b, &text);
	strbuf_add(out, text, (size_t)n);
	explicit_bzero(text, (size_t)n);
	BIO_free(b);
}

/* Go's words for the blocks it skipped: "[A B]". */
static const char *skipped_error(char *buf, size_t size, const char *fmt, const struct strbuf *types)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, size, fmt, types->buf);
#pragma GCC diagnostic pop
	return buf;
}

/* The certificate blocks, whatever their headers, and the first's DER; NULL, or Go's error. */
static const char *pair_certs(const char *cert, size_t len, struct strbuf *out,
			      struct strbuf *first, char *buf, size_t size)
{
	BIO *in = BIO_new_mem_buf(cert, (int)len);
	struct strbuf skipped = STRBUF_INIT;
	unsigned char *der;
	char *name;
	long n;
	int nr_skipped = 0;
	bool key_skipped = false;
	const char *why = NULL;

	while (pem_next(in, &name, &der, &n)) {
		size_t nl = strlen(name);
		if (!strcmp(name, "CERTIFICATE")) {
			if (!out->len)
				strbuf_add(first, der, (size_t)n);
			pem_add(out, name, der, n);
		} else {
			strbuf_addf(&skipped, "%s%s", nr_skipped++ ? " " : "[", name);
			key_skipped = nl >= 11 && !strcmp(name + nl - 11, "PRIVATE KEY");
		}
		OPENSSL_free(name);
		OPENSSL_free(der);
	}
	BIO_free(in);
	strbuf_addch(&skipped, ']');
	if (!out->len && !nr_skipped)
		why = "tls: failed to find any PEM data in certificate input";
	else if (!out->len && nr_skipped == 1 && key_skipped)
		why = "tls: failed to find certificate PEM data in certificate input, but did find "
		      "a private key; PEM inputs may have been switched";
	else if (!out->len)
		why = skipped_error(buf, size, "tls: failed to find \"CERTIFICATE\" PEM block in "
				    "certificate input after skipping PEM blocks of the following types: "
				    "%s", &skipped);
	strbuf_release(&skipped);
	return why;
}

/* The first block whose type ends in PRIVATE KEY: its type and DER; NULL, or Go's error. */
static const char *pair_key(const char *key, size_t len, char **type, struct strbuf *der_out,
			    char *buf, size_t size)
{
	BIO *in = BIO_new_mem_buf(key, (int)len);
	struct strbuf skipped = STRBUF_INIT;
	unsigned char *der;
	char *name;
	long n;
	int nr_skipped = 0;
	bool cert_skipped = false;
	const char *why = NULL;

	while (!*type && pem_next(in, &name, &der, &n)) {
		size_t nl = strlen(name);
		if (!strcmp(name, "PRIVATE KEY") || (nl > 12 && !strcmp(name + nl - 12, " PRIVATE KEY"))) {
			*type = xstrdup(name);
			strbuf_add(der_out, der, (size_t)n);
		} else {
			strbuf_addf(&skipped, "%s%s", nr_skipped++ ? " " : "[", name);
			cert_skipped = !strcmp(name, "CERTIFICATE");
		}
		OPENSSL_free(name);
		explicit_bzero(der, (size_t)n);
		OPENSSL_free(der);
	}
	BIO_free(in);
	strbuf_addch(&skipped, ']');
	if (!*type && !nr_skipped)
		why = "tls: failed to find any PEM data in key input";
	else if (!*type && nr_skipped == 1 && cert_skipped)
		why = "tls: found a certificate rather than a key in the PEM for the private key";
	else if (!*type)
		why = skipped_error(buf, size, "tls: failed to find PEM block with type ending in "
				    "\"PRIVATE KEY\" in key input after skipping PEM blocks of the "
				    "following types: %s", &skipped);
	strbuf_release(&skipped);
	return why;
}

/* The key types Go's X509KeyPair tells apart; 0 for the others. */
static int go_key_type(const EVP_PKEY *k)
{
	int id = k ? EVP_PKEY_get_base_id(k) : 0;

	return id == EVP_PKEY_RSA || id == EVP_PKEY_EC || id == EVP_PKEY_ED25519 ? id : 0;
}

/* X509KeyPair's last check, in its order: the certificate's key type, the key's, the key. */
static const char *pair_match(X509 *x, EVP_PKEY *pk)
{
	int pub = go_key_type(X509_get0_pubkey(x));

	if (!pub)
		return "tls: unknown public key algorithm";
	if (go_key_type(pk) != pub)
		return "tls: private key type does not match public key type";
	if (X509_check_private_key(x, pk) != 1)
		return "tls: private key does not match public key";
	return NULL;
}

const char *go_key_pair_pem(const char *cert, size_t cert_len, const char *key, size_t key_len,
			    struct strbuf *cert_out, struct strbuf *key_out, char *buf, size_t size)
{
	struct strbuf first = STRBUF_INIT, key_der = STRBUF_INIT;
	char *type = NULL;
	X509 *x = NULL;
	EVP_PKEY *pk = NULL;
	const unsigned char *p;
	const char *why = pair_certs(cert, cert_len, cert_out, &first, buf, size);

	if (!why)
		why = pair_key(key, key_len, &type, &key_der, buf, size);
	/* the certificate parsed, then the key (PKCS #1, PKCS #8 or SEC 1, never decrypted) */
	if (!why) {
		p = (const unsigned char *)first.buf;
		x = d2i_X509(NULL, &p, (long)first.len);
		if (!x)
			why = "x509: malformed certificate";
	}
	if (!why) {
		p = (const unsigned char *)key_der.buf;
		if (strcmp(type, "ENCRYPTED PRIVATE KEY"))
			pk = d2i_AutoPrivateKey(NULL, &p, (long)key_der.len);
		if (!pk)
			why = "tls: failed to parse private key";
	}
	if (!why)
		why = pair_match(x, pk);
	if (!why)
		pem_add(key_out, type, (const unsigned char *)key_der.buf, (long)key_der.len);
	ERR_clear_error();
	X509_free(x);
	EVP_PKEY_free(pk);
	free(type);
	explicit_bzero(key_der.buf, key_der.len);
	strbuf_release(&key_der);
	strbuf_release(&first);
	return why;
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

int go_cert_pool_pem(const char *pem, size_t len, struct strbuf *out)
{
	struct roots r = { .pem = out, .seen = STRBUF_INIT };

	roots_add_pem(&r, pem, len);
	strbuf_release(&r.seen);
	return r.n;
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
