/*
 * recording_fuzz.c — the recording reader (cluster/recording.c) on any
 * file a user may be handed: `kinf replay` reads recordings that users
 * send each other, so a recording is outside input.  The input is the
 * file's text (gzip is optional on reading; the fuzzer works on lines).
 *
 * Besides "no crash, no leak, no undefined behaviour, no hang":
 *   - a file that is not read says why, naming the file;
 *   - one that is read gives its header's resources (or says why not),
 *     cuts at any time, and replays: every exchange of every stream is
 *     handed out in order, its 2xx body in pieces that add up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cluster/discovery.h"
#include "cluster/recording.h"
#include "cluster/replay.h"
#include "lib/strbuf.h"
#include "fuzz.h"

static int on_data(void *ctx, const char *data, size_t len)
{
	size_t *got = ctx;
	(void)data;
	*got += len;
	return 0;
}

/* Every exchange of every stream, handed out as a reflector would ask. */
static void replay_all(struct recording *rec)
{
	const char *names[16];
	size_t counts[16], n = 0, k;
	const char *name;

	while (n < 16 && (name = recording_stream(rec, n, &k))) {
		names[n] = name;
		counts[n++] = k;
	}
	struct replay *rp = replay_new(rec, &(struct replay_opts){ 0 });
	for (size_t i = 0; i < n; i++) {
		atomic_bool stop = false;
		size_t got = 0;
		struct stream_opts req = { .record_as = names[i], .stop = &stop };
		for (size_t x = 0; x < counts[i]; x++) {
			struct http_response ans = { 0 };
			struct errbuf err = { "" };
			int64_t before = replay_now_ms(rp);
			int rc = replay_stream(rp, NULL, &req, on_data, &got, &ans, &err);
			CHECK(rc == 0 || err.msg[0]);
			CHECK(replay_now_ms(rp) >= before);
			http_response_release(&ans);
		}
	}
	replay_free(rp);	/* frees rec */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("recording", MFD_CLOEXEC);
	struct errbuf err = { "" };

	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	struct recording *rec = recording_load_fd(fd, "fuzz.rec", &err);
	if (!rec) {
		CHECK(!strncmp(err.msg, "fuzz.rec", 8) || strstr(err.msg, "'fuzz.rec'"));
		return 0;
	}
	struct recording_info info;
	if (recording_get_info(rec, &info, &err) < 0)
		CHECK(err.msg[0]);
	else
		CHECK(info.nr > 0 && info.resources[0]->name);
	if (size && data[0] & 1)
		recording_cut(rec, (int64_t)data[size - 1] * 100);
	replay_all(rec);
	return 0;
}
