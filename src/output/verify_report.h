/*
 * verify_report.h — how a verify report (informer/verify.h) reads: the
 * text of `kinf verify`, its -o json document, and the one-line summary
 * that `kinf watch --verify-every` gives as a notice.
 *
 * text:
 *     pods: cache has 40 objects at rv 130, server 41 at rv 128: 1 missing, 1 extra, 1 stale
 *     missing  default/pod-7  server rv 123
 *     extra  default/pod-3  cache rv 99
 *     stale  default/pod-1  cache rv 80, server rv 120
 *   or, when equal:
 *     pods: cache equals the server (40 objects at rv 128)
 *   A header whose informer had not reached the LIST's RV within the lag
 *   wait ends "(the informer had not caught up to rv L)".
 *
 * json members, in this order: resource, equal, cacheCount, serverCount,
 * listResourceVersion, informerResourceVersion, caughtUp, ahead (keys
 * excused because the cache was newer than the LIST), then missing,
 * extra and stale, arrays of {"key", "cacheResourceVersion",
 * "serverResourceVersion"} (each RV only where that side has the key).
 *
 * summary (after "kinf: pods: verify: "):
 *     cache equals the server (40 objects)
 *     1 missing, 0 extra, 1 stale: default/x (missing), default/y (stale)
 *   naming at most ten keys, then "and N more".
 *
 * In the text and the summary, keys and RVs (the server's) are escaped
 * on one line, as lib/termsafe does a message.
 */
#ifndef KINF_VERIFY_REPORT_H
#define KINF_VERIFY_REPORT_H

#include "informer/verify.h"
#include "lib/strbuf.h"

void verify_report_text(const char *resource, const struct verify_report *r,
			struct strbuf *sb);
/* The members, comma-separated, without the braces around them. */
void verify_report_json(const char *resource, const struct verify_report *r,
			struct strbuf *sb);
void verify_report_summary(const struct verify_report *r, struct strbuf *sb);

#endif
