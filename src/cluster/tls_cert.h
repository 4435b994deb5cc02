/*
 * tls_cert.h — what a certificate says about itself (subject, validity),
 * so that a TLS failure names the certificate instead of quoting an
 * OpenSSL alert: "client certificate 'CN=admin' of user 'admin' (client
 * certificate) expired on 2024-01-02 00:00:00 UTC (valid from ...)".
 *
 * Client side: the PEM kinf presents is read here when a request fails.
 * Server side: kinf never sees the server's certificate when verification
 * fails (libcurl aborts the handshake), so tls_watch_verify() hooks the
 * handshake (CURLOPT_SSL_CTX_FUNCTION, OpenSSL builds of libcurl only) and
 * keeps the last certificate that failed verification in a struct
 * tls_verify_log.
 *
 * And the system's roots as Go reads them, for libcurl to trust.
 *
 * Threads: a tls_verify_log may be written by handshakes on any thread
 * and read by any; it has its own lock.  The rest is pure.
 */
#ifndef KINF_TLS_CERT_H
#define KINF_TLS_CERT_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "lib/strbuf.h"

struct cert_info {
	char subject[256];	/* RFC 2253: "CN=kinf-admin,O=system:masters" */
	time_t not_before, not_after;
};

/* The first certificate of a PEM blob.  -1 when there is none. */
int cert_info_from_pem(const char *pem, size_t len, struct cert_info *out);

/*
 * What Go's certsEqual (client-go's transport/cert_rotation.go) compares
 * of a client certificate and key in PEM, into out: each certificate's
 * DER in order, then the key's.  -1 when tls.X509KeyPair would refuse
 * them: no certificate, no key, or a key that is not the first
 * certificate's.
 */
int cert_pair_identity(const char *cert, size_t cert_len, const char *key, size_t key_len,
		       struct strbuf *out);

/*
 * PEM as Go reads it, written again without headers for libcurl: OpenSSL
 * takes a block with Proc-Type headers for an encrypted one and asks the
 * terminal for its passphrase.  Nothing here asks: a PEM read that wants
 * a passphrase fails.
 *
 * go_key_pair_pem(): a client's certificate and key as tls.X509KeyPair
 * takes them (every CERTIFICATE block of cert, headers or not; the first
 * block of key whose type ends in PRIVATE KEY, parsed as PKCS #1, PKCS
 * #8 or SEC 1, never decrypted) into cert_out and key_out.  NULL, or
 * Go's error ("tls: failed to parse private key", "tls: private key does
 * not match public key", ...), which may be written in buf.
 */
const char *go_key_pair_pem(const char *cert, size_t cert_len, const char *key, size_t key_len,
			    struct strbuf *cert_out, struct strbuf *key_out, char *buf, size_t size);

/*
 * go_cert_pool_pem(): the certificates x509.CertPool's AppendCertsFromPEM
 * takes from pem (each CERTIFICATE block without headers whose DER
 * parses whole, once) into out; how many.
 */
int go_cert_pool_pem(const char *pem, size_t len, struct strbuf *out);

/*
 * When `now` lies outside the certificate's validity: true, and buf gets
 * "expired on A (valid from B)" or "is not valid before B (valid until A)".
 */
bool cert_validity_problem(const struct cert_info *ci, time_t now, char *buf, size_t size);

/*
 * Go's system roots (crypto/x509's loadSystemRoots on Linux), which
 * client-go trusts when a kubeconfig names no CA, into pem: the first
 * of Go's files that can be read (SSL_CERT_FILE alone, when it is set),
 * then every file of each of Go's folders (SSL_CERT_DIR's, split at
 * ':', when it is set) but links to a name in the same folder.  Each
 * CERTIFICATE block that parses goes in once, as PEM.  Returns how many;
 * -1 when there are none and a file or folder that is there could not
 * be read (Go then has no roots at all).  Either way, none trusts
 * nothing.
 */
int go_system_roots(const char *file_env, const char *dir_env, struct strbuf *pem);

/* The last verification failure of a server certificate. */
struct tls_verify_failure {
	struct cert_info cert;
	int depth;		/* 0: the server's own; more: up its chain */
	/* the server's own names no host: Go reads no Common Name (below) */
	bool no_host_san;
};

struct tls_verify_log;

/*
 * began, if not NULL: called as each handshake begins (tls_watch_verify());
 * false fails the handshake before a byte is sent, with
 * CURLE_SSL_CERTPROBLEM.
 */
struct tls_verify_log *tls_verify_log_new(bool (*began)(CURL *easy));
void tls_verify_log_free(struct tls_verify_log *log);
/* Moves the last failure out (true), or false when there was none. */
bool tls_verify_log_take(struct tls_verify_log *log, struct tls_verify_failure *out);

/*
 * Sets easy up so that its handshakes record their verification failures
 * in log, and fail as Go's fail for client-go on a server certificate
 * without a DNS or IP subjectAltName: Go matches the host against those
 * alone, where libcurl falls back to the subject's Common Name.  Calls
 * the log's began() as a handshake of easy's begins.
 * Does nothing unless libcurl is built with OpenSSL.
 */
void tls_watch_verify(CURL *easy, struct tls_verify_log *log);

/*
 * Whether the TLS of easy's connection chose HTTP/2 (ALPN "h2"), once its
 * handshake ended.  On the thread that drives easy.
 */
bool tls_alpn_h2(CURL *easy);

#endif
