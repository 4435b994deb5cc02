/*
 * zpack.h — compressed copies of texts that look alike.
 *
 * An informer's cache is mostly the JSON of objects of one kind, and two
 * pods differ in a few dozen bytes of their three thousand: compressed
 * one by one they shrink by half, compressed against a dictionary of
 * their kind's first few objects by far more (kube-sim's 100,000 pods:
 * 280 MiB of JSON, a 73 MiB process).  A family
 * (one per kind) learns its dictionary from its first texts, which it
 * leaves unpacked; every text after is packed with zstd against it.
 *
 * Families live as long as the process (a packed text needs its
 * family's dictionary for as long as it exists, and nothing says when
 * the last one goes): at most ZPACK_MAX_FAMILIES of them, each about
 * ZPACK_DICT_BYTES of dictionary and zstd's tables for it (~300 KiB).
 *
 * Threads: every function is thread-safe.  zpack_pack() takes the
 * family's lock while it learns; once the dictionary is made it takes
 * none.  Each thread that packs or unpacks keeps its own zstd contexts,
 * freed when it exits.  Nothing blocks but on those locks.
 */
#ifndef KINF_ZPACK_H
#define KINF_ZPACK_H

#include <stddef.h>

#include "lib/strbuf.h"

#define ZPACK_MAX_FAMILIES 128
/* What a family learns from before it packs: enough pods for their shape. */
#define ZPACK_DICT_BYTES (32 * 1024)

struct zpack;

/*
 * The family named name (its bytes: a kind), made on first use.  NULL
 * when ZPACK_MAX_FAMILIES are made already: the caller keeps its texts
 * as they are.
 */
struct zpack *zpack_family(const char *name);

/*
 * Appends the packed form of text[0..len) to out and returns its length,
 * or returns 0 and appends nothing when the text is better kept as it is:
 * the family is still learning (the text may become part of its
 * dictionary), or packing would not make it smaller.
 */
size_t zpack_pack(struct zpack *z, const char *text, size_t len, struct strbuf *out);

/*
 * Appends the text that zpack_pack() packed into packed[0..plen) to out:
 * exactly len bytes.  A text it did not pack is a bug, and aborts.
 */
void zpack_unpack(const struct zpack *z, const void *packed, size_t plen,
		  size_t len, struct strbuf *out);

#endif
