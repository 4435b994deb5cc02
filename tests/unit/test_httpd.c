/*
 * test_httpd.c — lib/httpd's addresses and answers, and the pages
 * informer/metrics serves through it before any informer reported.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "informer/metrics.h"
#include "lib/httpd.h"
#include "unit.h"

static void echo_path(void *ctx, const char *path, struct httpd_reply *reply)
{
	(*(int *)ctx)++;
	reply->status = strcmp(path, "/teapot") ? 200 : 418;
	strbuf_addf(&reply->body, "path %s\n", path);
}

/* A socket from 127.0.0.FROM connected to 127.0.0.1:port; -1 if refused. */
static int connect_from(unsigned from, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK - 1 + from);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole answer to one request line, over HTTP/1.0, from 127.0.0.FROM. */
static void request_from(unsigned from, unsigned port, const char *line, struct strbuf *out)
{
	char buf[4096];
	ssize_t n;
	int fd = connect_from(from, port);

	strbuf_reset(out);
	if (fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line))
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			strbuf_add(out, buf, (size_t)n);
	if (fd >= 0)
		close(fd);
}

static void request(unsigned port, const char *line, struct strbuf *out)
{
	request_from(1, port, line, out);
}

TEST(bad_addresses_are_refused_before_binding)
{
	static const char *const bad[] = {
		"", "bogus", "1.2.3.4.5:80", "::1:80", "localhost:80", "[::1]80",
		"127.0.0.1:70000", "127.0.0.1:", ":", "[nope]:80", "80a",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct errbuf err = { "" };
		int calls = 0;
		struct httpd *h = httpd_new(bad[i], echo_path, &calls, &err);
		CHECKF(!h, "'%s' accepted", bad[i]);
		CHECKF(strstr(err.msg, "bad address"), "'%s': %s", bad[i], err.msg);
		httpd_free(h);
	}
}

TEST(serves_gets_refuses_posts_and_a_busy_port)
{
	struct errbuf err = { "" };
	struct strbuf out = STRBUF_INIT;
	int calls = 0;
	struct httpd *h = httpd_new("127.0.0.1:0", echo_path, &calls, &err);
	char addr[64];

	CHECK_FAILS(!h, "listening on 127.0.0.1:0");
	request(httpd_port(h), "GET /metrics HTTP/1.0\r\n\r\n", &out);
	CHECKF(!strncmp(out.buf, "HTTP/1.0 200", 12) || !strncmp(out.buf, "HTTP/1.1 200", 12), "%s", out.buf);
	CHECK(strstr(out.buf, "\r\n\r\npath /metrics\n") != NULL);
	request(httpd_port(h), "GET /teapot HTTP/1.0\r\n\r\n", &out);
	CHECK(strstr(out.buf, " 418 ") != NULL);
	request(httpd_port(h), "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n", &out);
	CHECK(strstr(out.buf, " 405 ") != NULL);
	CHECK_INT(calls, 2);

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", httpd_port(h));
	struct httpd *again = httpd_new(addr, echo_path, &calls, &err);
	CHECK(again == NULL);
	CHECKF(strstr(err.msg, "Address already in use"), "%s", err.msg);
	httpd_free(again);
	httpd_free(h);
	strbuf_release(&out);
}

/* Whether the server ends fd (read gives 0 or an error) within a minute. */
static bool ended(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[256];

	while (poll(&p, 1, 60000) > 0)
		if (read(fd, buf, sizeof(buf)) <= 0)
			return true;
	return false;
}

/*
 * Slowloris: 40 connections from one address, each sending its request a
 * header line at a time, hold none of the server from another address
 * (once they held all of /metrics and /healthz for as long as they
 * lasted); and the server ends each of them, however it trickles.
 */
TEST(slow_clients_hold_no_one_else_out)
{
	struct errbuf err = { "" };
	struct strbuf out = STRBUF_INIT;
	int calls = 0, fds[40], held = 0;
	struct httpd *h = httpd_new("127.0.0.1:0", echo_path, &calls, &err);

	CHECK_FAILS(!h, "listening on 127.0.0.1:0");
	for (size_t i = 0; i < 40; i++) {
		fds[i] = connect_from(1, httpd_port(h));
		if (fds[i] >= 0 && write(fds[i], "GET /healthz HTTP/1.1\r\n", 23) == 23)
			held++;
	}
	CHECK(held > 0);
	/* a probe from elsewhere is answered at once */
	request_from(2, httpd_port(h), "GET /healthz HTTP/1.0\r\n\r\n", &out);
	CHECKF(strstr(strbuf_str(&out), " 200 ") != NULL, "%s", strbuf_str(&out));
	/* one goes on sending a header line each second: it is ended too */
	int lines = 0;
	for (; lines < 100; lines++) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		if (poll(&p, 1, 1000) > 0 || write(fds[0], "X-Slow: 1\r\n", 11) != 11)
			break;
	}
	CHECKF(lines >= 7 && lines < 100, "%d lines", lines);	/* idle 5 s, lifetime 10 s */
	for (size_t i = 0; i < 40; i++) {
		if (fds[i] >= 0) {
			CHECK(ended(fds[i]));
			close(fds[i]);
		}
	}
	CHECK_INT(calls, 1);
	httpd_free(h);
	strbuf_release(&out);
}

TEST(metrics_before_any_informer_reported)
{
	struct metrics *m = metrics_new();
	struct httpd_reply health = { .status = 200, .body = STRBUF_INIT };
	struct httpd_reply page = { .status = 200, .body = STRBUF_INIT };

	metrics_serve(m, "/healthz", &health);
	CHECK_INT(health.status, 503);
	CHECK_STR(health.body.buf, "starting\n");
	metrics_count_dump(m);
	metrics_serve(m, "/metrics", &page);
	const char *text = page.body.buf;
	CHECK(strstr(text, "\nkinf_flight_recorder_dumps_total{kube_cluster=\"\"} 1\n") != NULL);
	CHECK(strstr(text, "# TYPE kinf_verify_divergent_keys gauge\n") != NULL);
	/* no informer: no workqueue families at all */
	CHECK(strstr(text, "workqueue") == NULL);
	metrics_note(NULL, 0, NULL);	/* the hooks are no-ops without --metrics */
	strbuf_release(&health.body);
	strbuf_release(&page.body);
	metrics_free(m);
}

int main(void)
{
	RUN(bad_addresses_are_refused_before_binding);
	RUN(serves_gets_refuses_posts_and_a_busy_port);
	RUN(slow_clients_hold_no_one_else_out);
	RUN(metrics_before_any_informer_reported);
	return unit_done();
}
