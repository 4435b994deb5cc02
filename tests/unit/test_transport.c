/*
 * test_transport.c — cluster/transport over a real socket: the bytes of
 * a transfer arrive whole, a caller that does not take them pauses the
 * transfer at the high water mark, and a finished transfer's buffers are
 * the next one's; with no descriptor left a transfer is an error to its
 * caller, not an exit.  The server is lib/httpd (libmicrohttpd).
 */
#include <curl/curl.h>
#include <errno.h>
#include <unistd.h>

#include "cluster/transport.h"
#include "lib/httpd.h"
#include "unit.h"

/* The body of /N: N letters, a to z and again, nine of each in a row. */
static void body_of(void *ctx, const char *path, struct httpd_reply *reply)
{
	size_t n = strtoul(path + 1, NULL, 10);

	(void)ctx;
	reply->status = 200;
	strbuf_grow(&reply->body, n);
	for (size_t i = 0; i < n; i++)
		strbuf_addch(&reply->body, (char)('a' + i / 9 % 26));
}

static bool body_is(const struct strbuf *sb, size_t n)
{
	if (sb->len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sb->buf[i] != (char)('a' + i / 9 % 26))
			return false;
	return true;
}

static struct xfer *start(struct transport *tp, unsigned port, size_t n, CURL **easy)
{
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/%zu", port, n);
	*easy = curl_easy_init();
	curl_easy_setopt(*easy, CURLOPT_URL, url);
	return xfer_start(tp, *easy, NULL, NULL);
}

/* Takes until done; the body into out, the largest take into *most. */
static CURLcode take_all(struct xfer *x, struct strbuf *out, size_t *most)
{
	struct xfer_news news;

	for (;;) {
		const struct strbuf *chunk = xfer_take(x, &news);
		strbuf_add(out, chunk->buf, chunk->len);
		if (most && chunk->len > *most)
			*most = chunk->len;
		if (news.done)
			return news.result;
		xfer_wait(x, -1, -1, 5000);
	}
}

struct fixture {
	struct httpd *h;
	struct transport *tp;
	unsigned port;
};

static bool fixture_up(struct fixture *f)
{
	struct errbuf err = { "" };
	struct transport_opts o = { 0 };

	f->h = httpd_new("127.0.0.1:0", body_of, NULL, &err);
	if (!f->h)
		return false;
	f->port = httpd_port(f->h);
	f->tp = transport_new(&o);
	return f->tp != NULL;
}

static void fixture_down(struct fixture *f)
{
	if (f->tp)
		transport_free(f->tp);
	httpd_free(f->h);
}

TEST(a_body_arrives_whole_and_a_slow_caller_pauses_the_transfer)
{
	struct fixture f = { 0 };
	struct strbuf body = STRBUF_INIT;
	size_t most = 0, n = 6 * XFER_HIGH_WATER + 12345;
	CURL *easy;

	if (CHECK_FAILS(!fixture_up(&f), "httpd on 127.0.0.1"))
		return;
	struct xfer *x = start(f.tp, f.port, n, &easy);
	/*
	 * Nothing taken for a while (long enough for the server to send
	 * more than the mark, even under valgrind): the transport holds no
	 * more than it may.
	 */
	usleep(1500 * 1000);
	CHECK_INT(take_all(x, &body, &most), CURLE_OK);
	CHECKF(body_is(&body, n), "%zu bytes of %zu, or not the body sent", body.len, n);
	CHECKF(most >= XFER_HIGH_WATER, "the largest take %zu: the caller was never behind", most);
	CHECKF(most < XFER_HIGH_WATER + CURL_MAX_WRITE_SIZE,
	       "the largest take %zu: more than the high water mark was held", most);
	xfer_free(x);
	curl_easy_cleanup(easy);
	fixture_down(&f);
	strbuf_release(&body);
}

TEST(a_finished_transfers_buffers_are_the_next_ones)
{
	struct fixture f = { 0 };
	struct strbuf body = STRBUF_INIT;
	struct xfer_news news;
	CURL *easy;

	if (CHECK_FAILS(!fixture_up(&f), "httpd on 127.0.0.1"))
		return;
	/* A page of a LIST: its buffers grow to hold it. */
	struct xfer *x = start(f.tp, f.port, 3 * XFER_HIGH_WATER, &easy);
	const struct strbuf *chunk;
	const char *last;
	do {
		xfer_wait(x, -1, -1, 5000);
		chunk = xfer_take(x, &news);
		strbuf_add(&body, chunk->buf, chunk->len);
		last = chunk->buf;	/* at the end: the buffer a take hands out */
	} while (!news.done);
	CHECK_INT(news.result, CURLE_OK);
	xfer_free(x);
	curl_easy_cleanup(easy);

	/* The next page's first bytes land in that room, made already. */
	x = start(f.tp, f.port, 10, &easy);
	do {
		xfer_wait(x, -1, -1, 5000);
		chunk = xfer_take(x, &news);
	} while (!chunk->len && !news.done);
	CHECK_INT(chunk->len, 10);
	CHECKF(chunk->buf == last, "a buffer of %zu bytes: made afresh", chunk->alloc);
	take_all(x, &body, NULL);
	xfer_free(x);
	curl_easy_cleanup(easy);
	fixture_down(&f);
	strbuf_release(&body);
}

TEST(no_descriptor_left_fails_the_transfer_not_the_process)
{
	struct fixture f = { 0 };
	struct strbuf body = STRBUF_INIT;
	struct rlimit was;
	CURL *easy;

	if (CHECK_FAILS(!fixture_up(&f), "httpd on 127.0.0.1"))
		return;
	CHECK(unit_fds_exhaust(&was));
	struct xfer *x = start(f.tp, f.port, 10, &easy);
	int saved = errno;
	CHECK(unit_fds_restore(&was));
	CHECKF(!x && saved == EMFILE, "%p: %s", (void *)x, strerror(saved));
	if (x)
		xfer_free(x);
	curl_easy_cleanup(easy);
	/* with descriptors again, the same transport carries the next one */
	x = start(f.tp, f.port, 10, &easy);
	CHECK_INT(take_all(x, &body, NULL), CURLE_OK);
	CHECK(body_is(&body, 10));
	xfer_free(x);
	curl_easy_cleanup(easy);
	fixture_down(&f);
	strbuf_release(&body);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	RUN(a_body_arrives_whole_and_a_slow_caller_pauses_the_transfer);
	RUN(a_finished_transfers_buffers_are_the_next_ones);
	RUN(no_descriptor_left_fails_the_transfer_not_the_process);
	curl_global_cleanup();
	return unit_done();
}
