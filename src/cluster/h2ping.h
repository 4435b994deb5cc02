/*
 * h2ping.h — an HTTP/2 PING frame written on a connection of libcurl's,
 * behind its back, and the kernel's count that hears the answer: the one
 * part of the transport's health check (transport.h) that depends on
 * libcurl's insides, kept here so that it is the only one.
 *
 * Why behind its back: libcurl 7.88 (Debian 12) cannot send a PING on a
 * connection of a multi handle.  curl_easy_upkeep() walks only the
 * connection cache of the handle's private multi (data->multi_easy,
 * which curl_easy_perform makes), and a handle added to a multi has
 * none, so it returns CURLE_OK having done nothing (libcurl 8.10's
 * connection pool changed that, but kinf builds on 7.88 too, and nghttp2
 * takes the ACK inside libcurl on either, with no callback).  So the
 * frame is written between two calls into libcurl: over TLS as the next
 * record of the connection's OpenSSL session (CURLINFO_TLS_SSL_PTR), over
 * h2c straight to the socket; and "answered" is the kernel's count of
 * the socket's bytes (TCP_INFO): any byte after the ping answers it.
 * Through an https:// proxy the server's TLS runs inside the proxy's and
 * no frame can be written: kclient turns the check off there.
 *
 * Checked on the libcurls Debian ships: 7.88.1 (bookworm) and 8.14.1
 * (trixie's, in bookworm-backports): `make check-libcurl-backports` runs
 * the HTTP/2 tests against the latter.  A libcurl that buffered TLS
 * records of its own past a call would break the sealing; those tests
 * (a quiet connection pinged and kept, a frozen one closed) fail then.
 *
 * Only the transport's connection thread calls these, between two calls
 * into libcurl on the multi handle.
 */
#ifndef KINF_H2PING_H
#define KINF_H2PING_H

#include <curl/curl.h>
#include <linux/tcp.h>

enum ping_result {
	PING_SENT,
	PING_LATER,	/* not safe now; nothing written */
	PING_BROKEN,	/* part of a record or frame went out: the stream is corrupt */
	PING_CANNOT,	/* a TLS library other than OpenSSL */
};

/*
 * Writes one HTTP/2 PING frame on fd, the connection that easy (a
 * transfer of multi) runs on, as Go's http2 health check does.  That is
 * safe when done on the only thread that calls libcurl, between two
 * calls:
 *  - every byte of the connection is a whole frame once libcurl has none
 *    half written.  Half a frame stays behind only when the socket
 *    refused bytes: nghttp2 then keeps the frame and libcurl waits for
 *    POLLOUT (curl_wants_write), or the kernel still holds unsent bytes
 *    (tcpi_notsent_bytes); either way the ping waits, and counts as
 *    unanswered meanwhile, as Go's ping blocked on a full socket does.
 *    The one case these cannot see: libcurl 7.88's HTTP/2 filter keeps
 *    the tail of a short write in its own buffer without asking for
 *    POLLOUT.  That takes a send buffer filled (16 KB at least) by
 *    kinf's writes, request headers and flow-control frames of a few
 *    hundred bytes each, on a connection that has since received
 *    nothing for read_idle_ms: not something kinf does.
 *  - the frame is written whole: a poll() says the socket has room, and
 *    its 17 bytes (under 100 as a TLS record) go in one send(); TLS's
 *    record goes in one piece (tls_seal) with the next sequence number,
 *    so libcurl's next record follows it as it would any other.
 *  - the answer is a PING with the ACK flag, which nghttp2 takes
 *    whether or not it sent a PING (nghttp2_session_on_ping_received
 *    answers only PINGs without ACK) and hands to libcurl's frame
 *    callback, which ignores PING frames.
 */
enum ping_result h2ping_write(CURLM *multi, CURL *easy, int fd, const struct tcp_info *ti);

/*
 * The kernel's account of fd: what arrived (tcpi_bytes_received,
 * tcpi_last_data_recv) and what waits to leave (tcpi_notsent_bytes).
 * -1 if it has none, or a kernel older than Linux 4.6 gives less.
 */
int h2ping_tcp_info(int fd, struct tcp_info *ti);

#endif
