/*
 * h2ping.c — an HTTP/2 PING written behind libcurl's back; see h2ping.h.
 */
#include "cluster/h2ping.h"

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/select.h>
#include <sys/socket.h>

/* An HTTP/2 PING frame: a 9-byte frame header and 8 bytes of opaque data. */
#define PING_FRAME_LEN 17

int h2ping_tcp_info(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);
	memset(ti, 0, sizeof(*ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len) < 0)
		return -1;
	if (len < offsetof(struct tcp_info, tcpi_notsent_bytes) + sizeof(ti->tcpi_notsent_bytes))
		return -1;
	return 0;
}

/*
 * Whether libcurl waits to write on fd: nghttp2 has frames queued, or a
 * transfer is sending.  (An fd past FD_SETSIZE is left out of the sets:
 * then the kernel's checks in h2ping_write decide alone.)
 */
static bool curl_wants_write(CURLM *multi, int fd)
{
	fd_set r, w, e;
	int max = -1;
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	if (fd >= FD_SETSIZE)
		return false;
	if (curl_multi_fdset(multi, &r, &w, &e, &max) != CURLM_OK)
		return true;
	return max >= fd && FD_ISSET(fd, &w);
}

/*
 * Encrypts frame as the next TLS record of ssl, into out.  For the call,
 * a memory BIO stands in for libcurl's as ssl's write side: OpenSSL never
 * meets a full socket, so it never keeps half a record for later, and
 * libcurl's BIO (which needs a transfer in progress) is not called.
 * Returns the record's length; 0 if OpenSSL wrote nothing (ssl is not
 * ready: nothing changed); -1 if the record was made but does not fit
 * out (ssl's sequence number moved on: the connection is lost).
 */
static ssize_t tls_seal(SSL *ssl, const unsigned char *frame, size_t len, unsigned char *out,
			size_t cap)
{
	BIO *curl_bio = SSL_get_wbio(ssl);
	BIO *mem;
	ssize_t n = 0;

	if (!curl_bio || !SSL_is_init_finished(ssl) || SSL_get_shutdown(ssl))
		return 0;
	mem = BIO_new(BIO_s_mem());
	if (!mem)
		return 0;
	/* SSL_set0_wbio() drops the old BIO's reference: hold one for it. */
	BIO_up_ref(curl_bio);
	SSL_set0_wbio(ssl, mem);
	ERR_clear_error();
	if (SSL_write(ssl, frame, (int)len) == (int)len) {
		size_t pending = BIO_ctrl_pending(mem);
		n = pending > cap ? -1 : BIO_read(mem, out, (int)pending);
	}
	/* Takes our reference back and frees mem. */
	SSL_set0_wbio(ssl, curl_bio);
	/* libcurl reads OpenSSL's error queue after its own calls: leave it empty. */
	ERR_clear_error();
	return n;
}

enum ping_result h2ping_write(CURLM *multi, CURL *easy, int fd, const struct tcp_info *ti)
{
	/* Length 8, type PING, no flags, stream 0; opaque data any 8 bytes. */
	static const unsigned char frame[PING_FRAME_LEN] = {
		0, 0, 8, 0x6, 0, 0, 0, 0, 0, 'k', 'i', 'n', 'f', 'p', 'i', 'n', 'g'
	};
	unsigned char record[512];
	const unsigned char *out = frame;
	ssize_t len = sizeof(frame);
	struct curl_tlssessioninfo *tsi = NULL;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	if (ti->tcpi_notsent_bytes || curl_wants_write(multi, fd) ||
	    poll(&pfd, 1, 0) != 1 || pfd.revents != POLLOUT)
		return PING_LATER;
	/* The server's TLS, even through a CONNECT tunnel (libcurl's first TLS filter). */
	if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &tsi) != CURLE_OK || !tsi)
		return PING_LATER;
	if (tsi->internals) {
		if (tsi->backend != CURLSSLBACKEND_OPENSSL)
			return PING_CANNOT;
		len = tls_seal(tsi->internals, frame, sizeof(frame), record, sizeof(record));
		if (len <= 0)
			return len < 0 ? PING_BROKEN : PING_LATER;
		out = record;
	}
	ssize_t n = send(fd, out, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n == len)
		return PING_SENT;
	/* A plain frame not begun did no harm; a sealed record must go out. */
	return n <= 0 && out == frame ? PING_LATER : PING_BROKEN;
}
