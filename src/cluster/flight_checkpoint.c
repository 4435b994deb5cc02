/*
 * flight_checkpoint.c — a stream's cache rebuilt from its records.  See
 * the header.
 */
#include "cluster/flight_checkpoint.h"

#include <json-c/json.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cluster/recording.h"
#include "lib/base64.h"
#include "lib/hashmap.h"
#include "lib/json_get.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/*
 * The objects' texts are kept compressed together, as the ring keeps its
 * records: appended to an open segment, which is compressed once it
 * holds CK_SEGMENT_RAW bytes (zstd, CK_LEVEL).  100,000 pods are 300 MiB
 * of JSON, which the budget could not hold.  Each object was packed on
 * its own first (lib/zpack, against its kind's dictionary), but at 1,000
 * updates/s that packing was half of what the fold cost; a segment of
 * pods compresses better than each pod alone, at several times the speed.
 * A text replaced or deleted stays in its segment, dead, until the dead
 * bytes are CK_DEAD_MOST times the live ones (and a segment's worth):
 * then every live text is copied into new segments (compact()), so the
 * copying is at most 1/CK_DEAD_MOST of what was appended.  Dead texts
 * cost only their share of a compressed segment; compacting as soon as
 * they outweighed the live ones was a third of the fold's time (10,000
 * pods, 1,000 updates/s).
 */
#define CK_SEGMENT_RAW (64 * 1024)
#define CK_LEVEL 1
#define CK_DEAD_MOST 4
/* An overlay's object deleted: it hides the base's, and has no text. */
#define CK_GONE UINT32_MAX

struct ck_obj {
	char *key;		/* namespace/name, or name */
	uint32_t seg;		/* its segment; ck->nsegs: the open one; CK_GONE: none */
	uint32_t len;		/* its text's */
	size_t off;		/* in its segment, uncompressed */
};

struct ck_seg {
	unsigned char *z;	/* zstd, one frame */
	size_t zlen, rawlen;
	size_t live;		/* bytes of it that are live objects' texts */
};

/* An exchange whose beginning the checkpoint took. */
struct ck_exchange {
	unsigned x;
	char *path;
	bool watch;
	bool first_page;	/* a list's first page (no continue) */
	long status;
	char content_type[128];
	struct strbuf body;	/* a list's body; a watch's piece of an event */
};

struct checkpoint {
	char *stream;
	struct hashmap objs;	/* key -> struct ck_obj */
	struct ck_seg *segs;
	size_t nsegs, asegs;
	struct strbuf open;	/* segment nsegs, not compressed yet */
	size_t open_live;	/* bytes of it that are live objects' texts */
	size_t live, dead;	/* texts' bytes, live and replaced, in all segments */
	/*
	 * The compressed bytes of the dead texts in sealed segments, reckoned
	 * by each segment's ratio: what a compaction gives back.
	 */
	double dead_z;
	size_t bytes;		/* the segments compressed, the keys and entries */
	ZSTD_CCtx *zc;
	ZSTD_DCtx *zd;		/* compact()'s */
	char *rv;
	char *list_path;	/* the request of the list it began from */
	char *kind, *api_version;	/* of the objects: the list's are made of them */
	bool streaming;		/* its list was a streaming one */
	int64_t t;
	struct ck_exchange *xs;
	size_t nxs, axs;
	struct strbuf scratch;	/* an event's compact text */
	/*
	 * An overlay (checkpoint_new_overlay()): a deletion leaves a
	 * CK_GONE object, and cleared notes that a list replaced the
	 * objects (the base's with them).  skim: the base's records are
	 * being taken for the exchanges' state only.
	 */
	bool overlay, skim, cleared;
};

/* The scratch buffer is let go of after an event larger than this. */
#define SCRATCH_KEEP (64 * 1024)

struct checkpoint *checkpoint_new(const char *stream)
{
	struct checkpoint *ck = xcalloc(1, sizeof(*ck));

	ck->stream = xstrdup(stream);
	ck->rv = xstrdup("");
	strbuf_init(&ck->scratch, 0);
	return ck;
}

static void segs_clear(struct checkpoint *ck)
{
	for (size_t i = 0; i < ck->nsegs; i++)
		free(ck->segs[i].z);
	free(ck->segs);
	ck->segs = NULL;
	ck->nsegs = ck->asegs = 0;
	strbuf_release(&ck->open);
}

static void objs_clear(struct checkpoint *ck)
{
	if (ck->overlay && !ck->skim)
		ck->cleared = true;
	size_t iter = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&ck->objs, &iter))) {
		struct ck_obj *o = e->value;
		free(o->key);
		free(o);
	}
	hashmap_release(&ck->objs);
	segs_clear(ck);
	ck->bytes = ck->live = ck->dead = ck->open_live = 0;
	ck->dead_z = 0;
}

static void exchange_release(struct ck_exchange *e)
{
	free(e->path);
	strbuf_release(&e->body);
}

void checkpoint_free(struct checkpoint *ck)
{
	if (!ck)
		return;
	objs_clear(ck);
	for (size_t i = 0; i < ck->nxs; i++)
		exchange_release(&ck->xs[i]);
	free(ck->xs);
	strbuf_release(&ck->scratch);
	ZSTD_freeCCtx(ck->zc);
	ZSTD_freeDCtx(ck->zd);
	free(ck->stream);
	free(ck->rv);
	free(ck->list_path);
	free(ck->kind);
	free(ck->api_version);
	free(ck);
}

size_t checkpoint_bytes(const struct checkpoint *ck)
{
	size_t n = sizeof(*ck) + ck->bytes + ck->open.alloc +
		   ck->objs.cap * sizeof(struct hashmap_entry) + ck->asegs * sizeof(*ck->segs);

	for (size_t i = 0; i < ck->nxs; i++)
		n += ck->xs[i].body.alloc + strlen(ck->xs[i].path);
	return n;
}

static struct ck_exchange *exchange_of(struct checkpoint *ck, unsigned x)
{
	for (size_t i = 0; i < ck->nxs; i++)
		if (ck->xs[i].x == x)
			return &ck->xs[i];
	return NULL;
}

bool checkpoint_continues(const struct checkpoint *ck, unsigned x)
{
	for (size_t i = 0; i < ck->nxs; i++)
		if (ck->xs[i].x == x)
			return ck->xs[i].watch;
	return false;
}

/* ---- the objects -------------------------------------------------------- */

/*
 * The objects are folded from their text, found by the scanner
 * (lib/json_scan.h), never through a json-c tree: parsing each event
 * and writing its object again made the flight recorder cost 3.9 times
 * a plain watch's CPU once its window was full (100,000 pods, 1,000
 * updates/s).  What is kept is the compact text, which for the server's
 * compact JSON is its bytes, and which the scanner writes as json-c
 * would have (escapes rewritten), so dumps are as they were.  Where a
 * member comes twice, the last counts, as json-c reads it.
 */

/* A string member's text in the input; unset when absent or not a string. */
struct ck_str {
	const char *text, *end;
	bool escaped, set;
};

/* What a fold needs of an object: its key's parts, RV, kind, and text. */
struct ck_fields {
	struct ck_str name, ns, rv, kind, api;
	size_t from, to;	/* its compact text in the scan's out */
};

/* A watch event's members. */
struct ck_event {
	struct ck_str type;
	bool object;		/* its "object" is a JSON object */
	struct ck_fields obj;
};

static int take_str(struct json_scan *s, struct ck_str *str)
{
	*str = (struct ck_str){ 0 };
	if (*s->p != '"')
		return 0;
	str->set = true;
	return json_scan_string(s, &str->text, &str->end, &str->escaped) < 0 ? -1 : 1;
}

static bool member_is(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && !memcmp(key, name, klen);
}

/* str's value as a C string (json-c's: cut at a NUL it decodes to), in sb. */
static const char *str_value(const struct ck_str *str, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (!str->set)
		return NULL;
	if (str->escaped) {
		json_scan_decode(str->text, str->end, sb);
		strbuf_setlen(sb, strnlen(sb->buf ? sb->buf : "", sb->len));
	} else {
		strbuf_add(sb, str->text, (size_t)(str->end - str->text));
	}
	return strbuf_str(sb);
}

static int meta_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct ck_fields *f = ctx;

	if (member_is(key, klen, "name"))
		return take_str(s, &f->name);
	if (member_is(key, klen, "namespace"))
		return take_str(s, &f->ns);
	if (member_is(key, klen, "resourceVersion"))
		return take_str(s, &f->rv);
	return 0;
}

static int obj_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct ck_fields *f = ctx;

	if (member_is(key, klen, "metadata")) {
		f->name = f->ns = f->rv = (struct ck_str){ 0 };
		if (*s->p != '{')
			return 0;
		return json_scan_object(s, meta_member, f) < 0 ? -1 : 1;
	}
	if (member_is(key, klen, "kind"))
		return take_str(s, &f->kind);
	if (member_is(key, klen, "apiVersion"))
		return take_str(s, &f->api);
	return 0;
}

/* The object at the cursor (0 when it is not one: scanned as any value). */
static int scan_obj(struct json_scan *s, struct ck_fields *f)
{
	*f = (struct ck_fields){ 0 };
	if (*s->p != '{')
		return 0;
	f->from = json_scan_pos(s);
	if (json_scan_object(s, obj_member, f) < 0)
		return -1;
	f->to = json_scan_pos(s);
	return 1;
}

static int event_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct ck_event *ev = ctx;

	if (member_is(key, klen, "type"))
		return take_str(s, &ev->type);
	if (member_is(key, klen, "object")) {
		int rc = scan_obj(s, &ev->obj);
		ev->object = rc == 1;
		return rc;
	}
	return 0;
}

/* The document in text[0..len): one object, what follows it ignored (as json-c does). */
static int scan_doc(struct json_scan *s, const char *text, size_t len, struct strbuf *out,
		    json_scan_member_fn *fn, void *ctx)
{
	json_scan_init(s, text, len, out);
	json_scan_skip_ws(s);
	if (s->p >= s->end || *s->p != '{' || json_scan_object(s, fn, ctx) < 0)
		return -1;
	json_scan_flush(s);
	return 0;
}

static void set_rv(struct checkpoint *ck, const char *rv)
{
	if (!rv || !*rv)
		return;
	free(ck->rv);
	ck->rv = xstrdup(rv);
}

static void set_kind(struct checkpoint *ck, const struct ck_fields *f)
{
	struct strbuf kind = STRBUF_INIT, av = STRBUF_INIT;

	if (!ck->kind && str_value(&f->kind, &kind) && str_value(&f->api, &av)) {
		ck->kind = strbuf_detach(&kind, NULL);
		ck->api_version = strbuf_detach(&av, NULL);
	}
	strbuf_release(&kind);
	strbuf_release(&av);
}

/* ---- the objects' texts, compressed in segments ------------------------ */

/* The open segment is compressed: the objects in it keep their numbers. */
static void seal(struct checkpoint *ck)
{
	if (!ck->open.len)
		return;
	if (!ck->zc) {
		ck->zc = ZSTD_createCCtx();
		if (!ck->zc)
			out_of_memory(0);
		ZSTD_CCtx_setParameter(ck->zc, ZSTD_c_compressionLevel, CK_LEVEL);
	}
	size_t bound = ZSTD_compressBound(ck->open.len);
	struct ck_seg seg = { .rawlen = ck->open.len, .z = xmalloc(bound) };
	seg.zlen = ZSTD_compress2(ck->zc, seg.z, bound, ck->open.buf, ck->open.len);
	if (ZSTD_isError(seg.zlen))
		BUG("zstd: cannot compress: %s", ZSTD_getErrorName(seg.zlen));
	seg.z = xrealloc(seg.z, seg.zlen);
	seg.live = ck->open_live;
	ck->open_live = 0;
	ck->dead_z += (double)seg.zlen * (double)(seg.rawlen - seg.live) / (double)seg.rawlen;
	ALLOC_GROW(ck->segs, ck->nsegs + 1, ck->asegs);
	ck->segs[ck->nsegs++] = seg;
	ck->bytes += seg.zlen;
	strbuf_reset(&ck->open);
}

/* A segment uncompressed into out (replacing what it held), with zd. */
static void seg_text(ZSTD_DCtx *zd, const struct ck_seg *seg, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_grow(out, seg->rawlen);
	size_t n = ZSTD_decompressDCtx(zd, out->buf, seg->rawlen, seg->z, seg->zlen);
	if (ZSTD_isError(n) || n != seg->rawlen)
		BUG("zstd: a flight recorder checkpoint segment does not uncompress");
	out->len = n;
}

/* Object o's text is text[0..len): appended to the open segment. */
static void text_add(struct checkpoint *ck, struct ck_obj *o, const char *text, size_t len)
{
	o->seg = (uint32_t)ck->nsegs;
	o->off = ck->open.len;
	o->len = (uint32_t)len;
	strbuf_add(&ck->open, text, len);
	ck->open_live += len;
	ck->live += len;
	if (ck->open.len >= CK_SEGMENT_RAW)
		seal(ck);
}

/* Object o's text is no longer live. */
static void text_drop(struct checkpoint *ck, const struct ck_obj *o)
{
	if (o->seg == CK_GONE)
		return;
	if (o->seg < ck->nsegs) {
		const struct ck_seg *seg = &ck->segs[o->seg];
		ck->dead_z += (double)seg->zlen * (double)o->len / (double)seg->rawlen;
		ck->segs[o->seg].live -= o->len;
	} else
		ck->open_live -= o->len;
	ck->live -= o->len;
	ck->dead += o->len;
}

static int seg_off_cmp(const void *a, const void *b)
{
	const struct ck_obj *l = *(const struct ck_obj *const *)a;
	const struct ck_obj *r = *(const struct ck_obj *const *)b;

	if (l->seg != r->seg)
		return l->seg < r->seg ? -1 : 1;
	return l->off < r->off ? -1 : l->off > r->off;
}

/* The live texts into new segments, in the order they were kept; the dead go. */
static void compact(struct checkpoint *ck)
{
	struct ck_obj **v = xcalloc(hashmap_len(&ck->objs) + 1, sizeof(*v));
	size_t iter = 0, n = 0, nold = ck->nsegs;
	struct hashmap_entry *e;
	struct ck_seg *old = ck->segs;
	struct strbuf open = ck->open, tmp = STRBUF_INIT;
	size_t cur = SIZE_MAX;

	while ((e = hashmap_next(&ck->objs, &iter)))
		v[n++] = e->value;
	qsort(v, n, sizeof(*v), seg_off_cmp);
	for (size_t i = 0; i < nold; i++)
		ck->bytes -= old[i].zlen;
	ck->segs = NULL;
	ck->nsegs = ck->asegs = 0;
	strbuf_init(&ck->open, 0);
	ck->live = ck->dead = ck->open_live = 0;
	ck->dead_z = 0;
	for (size_t i = 0; i < n; i++) {
		const char *src = open.buf + v[i]->off;
		if (v[i]->seg == CK_GONE)
			continue;
		if (v[i]->seg < nold) {
			if (v[i]->seg != cur) {
				/* each old segment goes once read: no second copy of them all */
				if (cur != SIZE_MAX) {
					free(old[cur].z);
					old[cur].z = NULL;
				}
				if (!ck->zd && !(ck->zd = ZSTD_createDCtx()))
					out_of_memory(0);
				seg_text(ck->zd, &old[v[i]->seg], &tmp);
				cur = v[i]->seg;
			}
			src = tmp.buf + v[i]->off;
		}
		text_add(ck, v[i], src, v[i]->len);
	}
	for (size_t i = 0; i < nold; i++)
		free(old[i].z);
	free(old);
	strbuf_release(&open);
	strbuf_release(&tmp);
	free(v);
#ifdef __GLIBC__
	/*
	 * The old segments were small blocks among the ring's larger ones:
	 * the room they leave, the ring cannot reuse and glibc keeps.  Given
	 * back, or RSS goes past the budget (the flight soak: 2-3 MiB over
	 * without, 10,000 pods, 2,000 updates/s).
	 */
	malloc_trim(0);
#endif
}

static void obj_remove(struct checkpoint *ck, const char *key)
{
	struct hashmap_entry old;

	if (!hashmap_remove(&ck->objs, key, &old))
		return;
	struct ck_obj *o = old.value;
	text_drop(ck, o);
	ck->bytes -= strlen(o->key) + 1 + sizeof(*o);
	free(o->key);
	free(o);
}

/* key (taken) with text[0..len), or gone (text NULL: an overlay's deletion). */
static void obj_insert(struct checkpoint *ck, char *key, const char *text, size_t len)
{
	struct ck_obj *o = xcalloc(1, sizeof(*o));

	o->key = key;
	if (text)
		text_add(ck, o, text, len);
	else
		o->seg = CK_GONE;
	hashmap_insert(&ck->objs, o->key, o);
	ck->bytes += strlen(o->key) + 1 + sizeof(*o);
}

/*
 * The object f found in text (the scan's out) into the checkpoint, or
 * out of it (del); its RV moves the checkpoint's on.
 */
static void obj_put(struct checkpoint *ck, const struct ck_fields *f, const char *text,
		    bool del)
{
	struct strbuf sb = STRBUF_INIT, ns = STRBUF_INIT;

	set_rv(ck, str_value(&f->rv, &sb));
	const char *name = str_value(&f->name, &sb);
	if (!name)
		goto out;
	struct strbuf *key = &sb;
	if (str_value(&f->ns, &ns) && ns.len) {
		strbuf_addch(&ns, '/');
		strbuf_add(&ns, name, sb.len);
		key = &ns;
	}
	obj_remove(ck, strbuf_str(key));
	if (del && !ck->overlay)
		goto out;
	obj_insert(ck, strbuf_detach(key, NULL), del ? NULL : text + f->from, f->to - f->from);
out:
	if (ck->dead > CK_DEAD_MOST * ck->live + CK_SEGMENT_RAW)
		compact(ck);
	strbuf_release(&sb);
	strbuf_release(&ns);
}

/* One watch event's line; one that does not scan changes nothing. */
static void take_event(struct checkpoint *ck, const char *line, size_t len)
{
	struct ck_event ev = { 0 };
	struct json_scan s;
	struct strbuf *out = &ck->scratch;
	char type[16];

	strbuf_reset(out);
	if (scan_doc(&s, line, len, out, event_member, &ev) < 0 || !ev.type.set)
		goto out;
	size_t tlen = (size_t)(ev.type.end - ev.type.text);
	if (ev.type.escaped || tlen >= sizeof(type)) {
		struct strbuf sb = STRBUF_INIT;
		snprintf(type, sizeof(type), "%s", str_value(&ev.type, &sb));
		strbuf_release(&sb);
	} else {
		memcpy(type, ev.type.text, tlen);
		type[tlen] = '\0';
	}
	if (!ev.object)
		goto out;
	if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") || !strcmp(type, "DELETED")) {
		set_kind(ck, &ev.obj);
		obj_put(ck, &ev.obj, out->buf, !strcmp(type, "DELETED"));
	} else if (!strcmp(type, "BOOKMARK")) {
		struct strbuf sb = STRBUF_INIT;
		set_rv(ck, str_value(&ev.obj.rv, &sb));
		strbuf_release(&sb);
	}
out:
	/* scratch: one event's text, but not the largest one's for ever */
	if (out->alloc > SCRATCH_KEEP)
		strbuf_release(out);
}

/* A watch's data: its whole lines are events; a piece of one waits. */
static void take_watch_data(struct checkpoint *ck, struct ck_exchange *e)
{
	const char *p = e->body.buf, *end = p + e->body.len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (nl > p)
			take_event(ck, p, (size_t)(nl - p));
		p = nl + 1;
	}
	strbuf_remove_front(&e->body, (size_t)(p - e->body.buf));
}

/* A list's members; its items' are collected, as its kind may come after them. */
struct ck_list {
	struct ck_str kind, api, rv;
	bool items;		/* "items" is an array */
	struct ck_fields *v;
	size_t nr, alloc;
};

static int list_meta_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct ck_list *l = ctx;

	if (member_is(key, klen, "resourceVersion"))
		return take_str(s, &l->rv);
	return 0;
}

static int item_element(struct json_scan *s, void *ctx)
{
	struct ck_list *l = ctx;
	struct ck_fields f;
	int rc = scan_obj(s, &f);

	if (rc == 1) {
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = f;
	}
	return rc;
}

static int list_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct ck_list *l = ctx;

	if (member_is(key, klen, "kind"))
		return take_str(s, &l->kind);
	if (member_is(key, klen, "apiVersion"))
		return take_str(s, &l->api);
	if (member_is(key, klen, "metadata")) {
		l->rv = (struct ck_str){ 0 };
		if (*s->p != '{')
			return 0;
		return json_scan_object(s, list_meta_member, l) < 0 ? -1 : 1;
	}
	if (member_is(key, klen, "items")) {
		l->nr = 0;
		l->items = *s->p == '[';
		if (!l->items)
			return 0;
		return json_scan_array(s, item_element, l) < 0 ? -1 : 1;
	}
	return 0;
}

/* The kind of the list's items, from its own ("PodList"), when none is known yet. */
static void list_kind(struct checkpoint *ck, const struct ck_list *l)
{
	struct strbuf kind = STRBUF_INIT, av = STRBUF_INIT;
	const char *k = str_value(&l->kind, &kind);
	size_t n = k ? strlen(k) : 0;

	if (!ck->kind && n > 4 && !strcmp(k + n - 4, "List")) {
		ck->kind = xstrndup(k, n - 4);
		const char *a = str_value(&l->api, &av);
		ck->api_version = xstrdup(a ? a : "v1");
	}
	strbuf_release(&kind);
	strbuf_release(&av);
}

/* A list page's whole body: the first replaces the objects, the others add. */
static void take_list(struct checkpoint *ck, struct ck_exchange *e)
{
	struct ck_list l = { 0 };
	struct strbuf out = STRBUF_INIT, sb = STRBUF_INIT;
	struct json_scan s;

	if (scan_doc(&s, e->body.buf ? e->body.buf : "", e->body.len, &out, list_member, &l) < 0 ||
	    !l.items)
		goto out;
	if (e->first_page)
		objs_clear(ck);
	ck->streaming = false;
	/* before the items: its kind names the family they are packed in */
	list_kind(ck, &l);
	for (size_t i = 0; i < l.nr; i++)
		obj_put(ck, &l.v[i], out.buf, false);
	set_rv(ck, str_value(&l.rv, &sb));
out:
	free(l.v);
	strbuf_release(&out);
	strbuf_release(&sb);
}

/* ---- the records -------------------------------------------------------- */

static bool query_has(const char *path, const char *param)
{
	const char *q = strchr(path, '?');
	size_t n = strlen(param);

	for (; q; q = strchr(q, '&'))
		if (!strncmp(++q, param, n))
			return true;
	return false;
}

static void take_begin(struct checkpoint *ck, unsigned x, const char *path)
{
	ALLOC_GROW(ck->xs, ck->nxs + 1, ck->axs);
	struct ck_exchange *e = &ck->xs[ck->nxs++];
	*e = (struct ck_exchange){ .x = x, .path = xstrdup(path), .body = STRBUF_INIT };
	e->watch = query_has(path, "watch=true") || query_has(path, "watch=1");
	e->first_page = !query_has(path, "continue=");
	bool streaming = e->watch && query_has(path, "sendInitialEvents=true");
	if (streaming) {
		objs_clear(ck);
		ck->streaming = true;
	}
	if (streaming || (!e->watch && e->first_page)) {
		free(ck->list_path);
		ck->list_path = xstrdup(path);
	}
}

static void take_end(struct checkpoint *ck, struct ck_exchange *e)
{
	bool ok = e->status >= 200 && e->status <= 299;

	if (ok && !e->watch && !ck->skim)
		take_list(ck, e);
	exchange_release(e);
	*e = ck->xs[--ck->nxs];
}

/* A piece of exchange e's body, as it came. */
static void take_bytes(struct checkpoint *ck, struct ck_exchange *e, const char *data, size_t len)
{
	if (e->status < 200 || e->status > 299)
		return;
	if (ck->skim) {
		/* the base's events are its own: only a watch's piece of one goes on */
		const char *nl = e->watch ? memrchr(data, '\n', len) : NULL;
		if (nl) {
			strbuf_reset(&e->body);
			len -= (size_t)(nl + 1 - data);
			data = nl + 1;
		}
		if (e->watch)
			strbuf_add(&e->body, data, len);
		return;
	}
	strbuf_add(&e->body, data, len);
	if (e->watch)
		take_watch_data(ck, e);
}

void checkpoint_take_data(struct checkpoint *ck, int64_t t, unsigned x, const char *data,
			  size_t len)
{
	struct ck_exchange *e = x ? exchange_of(ck, x) : NULL;

	ck->t = t;
	if (e)
		take_bytes(ck, e, data, len);
}

/* A data record's line: its bytes, as text or in base64. */
static void take_data(struct checkpoint *ck, struct ck_exchange *e, struct json_object *r)
{
	struct json_object *v;
	struct strbuf dec = STRBUF_INIT;

	if (json_object_object_get_ex(r, "data", &v))
		take_bytes(ck, e, json_object_get_string(v), (size_t)json_object_get_string_len(v));
	else if (json_object_object_get_ex(r, "data64", &v) &&
		 base64_decode(json_object_get_string(v), (size_t)json_object_get_string_len(v),
			       &dec) == 0)
		take_bytes(ck, e, dec.buf ? dec.buf : "", dec.len);
	strbuf_release(&dec);
}

void checkpoint_take(struct checkpoint *ck, const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *r = json_tokener_parse_ex(tok, line, (int)len), *v;
	unsigned x = json_object_object_get_ex(r, "x", &v) ? (unsigned)json_object_get_int64(v) : 0;
	struct ck_exchange *e;

	json_tokener_free(tok);
	if (!x)
		goto out;
	if (json_object_object_get_ex(r, "t", &v))
		ck->t = json_object_get_int64(v);
	if (json_object_object_get_ex(r, "stream", NULL)) {
		take_begin(ck, x, json_get_str(r, "get", ""));
		goto out;
	}
	e = exchange_of(ck, x);
	if (!e)
		goto out;
	if (json_object_object_get_ex(r, "status", &v)) {
		e->status = (long)json_object_get_int64(v);
		snprintf(e->content_type, sizeof(e->content_type), "%s",
			 json_get_str(r, "contentType", ""));
	} else if (json_object_object_get_ex(r, "end", NULL)) {
		take_end(ck, e);
	} else {
		take_data(ck, e, r);
	}
out:
	json_object_put(r);
}

/* ---- an overlay on a base --------------------------------------------- */

struct checkpoint *checkpoint_new_overlay(const char *stream)
{
	struct checkpoint *ck = checkpoint_new(stream);

	ck->overlay = ck->skim = true;
	return ck;
}

void checkpoint_skim_end(struct checkpoint *ck)
{
	ck->skim = false;
}

size_t checkpoint_live(const struct checkpoint *ck)
{
	return ck->live;
}

size_t checkpoint_dead(const struct checkpoint *ck)
{
	return (size_t)ck->dead_z;
}

size_t checkpoint_compact_peak(const struct checkpoint *ck)
{
	return (hashmap_len(&ck->objs) + 1) * sizeof(struct ck_obj *) + 2 * CK_SEGMENT_RAW;
}

void checkpoint_compact(struct checkpoint *ck)
{
	if (ck->dead)
		compact(ck);
}

/* over's objects into ck, the gone taken out; each of over's segments uncompressed once. */
static void overlay_objs(struct checkpoint *ck, const struct checkpoint *over)
{
	struct ck_obj **v = xcalloc(hashmap_len(&over->objs) + 1, sizeof(*v));
	size_t iter = 0, n = 0, cur = SIZE_MAX;
	struct hashmap_entry *e;
	struct strbuf tmp = STRBUF_INIT;
	ZSTD_DCtx *zd = ZSTD_createDCtx();

	if (!zd)
		out_of_memory(0);
	while ((e = hashmap_next(&over->objs, &iter)))
		v[n++] = e->value;
	qsort(v, n, sizeof(*v), seg_off_cmp);
	for (size_t i = 0; i < n; i++) {
		obj_remove(ck, v[i]->key);
		if (v[i]->seg == CK_GONE)
			continue;
		const char *src = over->open.buf + v[i]->off;
		if (v[i]->seg < over->nsegs) {
			if (v[i]->seg != cur) {
				seg_text(zd, &over->segs[v[i]->seg], &tmp);
				cur = v[i]->seg;
			}
			src = tmp.buf + v[i]->off;
		}
		obj_insert(ck, xstrdup(v[i]->key), src, v[i]->len);
	}
	if (ck->dead > CK_DEAD_MOST * ck->live + CK_SEGMENT_RAW)
		compact(ck);
	ZSTD_freeDCtx(zd);
	strbuf_release(&tmp);
	free(v);
}

void checkpoint_overlay(struct checkpoint *ck, const struct checkpoint *over)
{
	if (over->cleared) {
		objs_clear(ck);
		ck->streaming = over->streaming;
	}
	overlay_objs(ck, over);
	set_rv(ck, over->rv);
	if (!ck->kind && over->kind) {
		ck->kind = xstrdup(over->kind);
		ck->api_version = xstrdup(over->api_version ? over->api_version : "v1");
	}
	if (over->list_path) {
		free(ck->list_path);
		ck->list_path = xstrdup(over->list_path);
	}
	ck->t = over->t;
	/* the exchanges open are over's: it took the base's beginnings and ends too */
	for (size_t i = 0; i < ck->nxs; i++)
		exchange_release(&ck->xs[i]);
	ck->nxs = 0;
	for (size_t i = 0; i < over->nxs; i++) {
		ALLOC_GROW(ck->xs, ck->nxs + 1, ck->axs);
		struct ck_exchange *e = &ck->xs[ck->nxs++];
		*e = over->xs[i];
		e->path = xstrdup(over->xs[i].path);
		strbuf_init(&e->body, 0);
		if (over->xs[i].body.len)
			strbuf_add(&e->body, over->xs[i].body.buf, over->xs[i].body.len);
	}
}

/* ---- the dump ----------------------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
	const struct ck_obj *l = *(const struct ck_obj *const *)a;
	const struct ck_obj *r = *(const struct ck_obj *const *)b;

	return strcmp(l->key, r->key);
}

/* The objects, sorted by key (caller frees the array). */
static const struct ck_obj **sorted_objs(const struct checkpoint *ck, size_t *nr)
{
	const struct ck_obj **v = xcalloc(hashmap_len(&ck->objs) + 1, sizeof(*v));
	size_t iter = 0, n = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&ck->objs, &iter)))
		if (((const struct ck_obj *)e->value)->seg != CK_GONE)
			v[n++] = e->value;
	qsort(v, n, sizeof(*v), key_cmp);
	*nr = n;
	return v;
}

/* Where an object's text goes in a dump's body. */
struct ck_place {
	const struct ck_obj *o;
	size_t at;
};

static int place_cmp(const void *a, const void *b)
{
	return seg_off_cmp(&((const struct ck_place *)a)->o, &((const struct ck_place *)b)->o);
}

/*
 * Room for o's text at the end of body, noted in pl[*n]: the texts are
 * written in afterwards, segment by segment (fill_texts()), so that each
 * is uncompressed once.
 */
static void text_room(struct strbuf *body, const struct ck_obj *o, struct ck_place *pl, size_t *n)
{
	pl[*n] = (struct ck_place){ .o = o, .at = body->len };
	(*n)++;
	strbuf_grow(body, o->len);
	body->len += o->len;
	body->buf[body->len] = '\0';
}

static void fill_texts(const struct checkpoint *ck, struct strbuf *body, struct ck_place *pl,
		       size_t n)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t cur = SIZE_MAX;
	ZSTD_DCtx *zd = ZSTD_createDCtx();

	if (!zd)
		out_of_memory(0);
	qsort(pl, n, sizeof(*pl), place_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct ck_obj *o = pl[i].o;
		const char *src = ck->open.buf + o->off;
		if (o->seg < ck->nsegs) {
			if (o->seg != cur) {
				seg_text(zd, &ck->segs[o->seg], &tmp);
				cur = o->seg;
			}
			src = tmp.buf + o->off;
		}
		memcpy(body->buf + pl[i].at, src, o->len);
	}
	ZSTD_freeDCtx(zd);
	strbuf_release(&tmp);
}

/* What the server would have answered: a list, or a streaming list's events. */
static void reconstructed_body(const struct checkpoint *ck, struct strbuf *body)
{
	size_t n, np = 0;
	const struct ck_obj **v = sorted_objs(ck, &n);
	const char *kind = ck->kind ? ck->kind : "", *av = ck->api_version ? ck->api_version : "v1";
	struct ck_place *pl = xcalloc(n + 1, sizeof(*pl));

	if (ck->streaming) {
		for (size_t i = 0; i < n; i++) {
			strbuf_adds(body, "{\"type\":\"ADDED\",\"object\":");
			text_room(body, v[i], pl, &np);
			strbuf_adds(body, "}\n");
		}
		strbuf_adds(body, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":");
		strbuf_add_json_string(body, kind);
		strbuf_adds(body, ",\"apiVersion\":");
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, ck->rv);
		strbuf_adds(body, ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n");
	} else {
		strbuf_addf(body, "{\"kind\":\"%sList\",\"apiVersion\":", kind);
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, ck->rv);
		strbuf_adds(body, "},\"items\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(body, ',');
			text_room(body, v[i], pl, &np);
		}
		strbuf_adds(body, "]}\n");
	}
	fill_texts(ck, body, pl, np);
	free(pl);
	free(v);
}

/*
 * The watch open at the window's start, when a streaming list began it:
 * its events came on the connection of the initial events, so the
 * reconstructed ones go at its head, not in an exchange of their own that
 * would end at once (a very short watch to a replay's reflector, which
 * the live one never saw).  NULL: none.
 */
static const struct ck_exchange *streamed_on(const struct checkpoint *ck)
{
	for (size_t i = 0; ck->streaming && i < ck->nxs; i++)
		if (ck->xs[i].watch)
			return &ck->xs[i];
	return NULL;
}

void checkpoint_write(const struct checkpoint *ck, unsigned x, struct strbuf *out)
{
	struct strbuf body = STRBUF_INIT;
	struct recorded_answer ok = { .status = 200, .content_type = "application/json",
				      .retry_after_ms = -1 };
	struct recorded_end end = { .rc = 0 };
	const struct ck_exchange *on = streamed_on(ck);

	reconstructed_body(ck, &body);
	if (on) {
		struct recorded_answer a = { .status = on->status,
					     .content_type = on->content_type,
					     .retry_after_ms = -1 };
		recording_line_reconstructed(out, ck->t, on->x, ck->stream, on->path);
		recording_line_status(out, ck->t, on->x, on->status ? &a : &ok);
		strbuf_add(&body, on->body.buf, on->body.len);
		recording_line_data(out, ck->t, on->x, body.buf, body.len);
	} else {
		recording_line_reconstructed(out, ck->t, x, ck->stream,
					     ck->list_path ? ck->list_path : "");
		recording_line_status(out, ck->t, x, &ok);
		recording_line_data(out, ck->t, x, body.buf, body.len);
		recording_line_end(out, ck->t, x, &end);
	}
	for (size_t i = 0; i < ck->nxs; i++) {
		const struct ck_exchange *e = &ck->xs[i];
		struct recorded_answer a = { .status = e->status, .content_type = e->content_type,
					     .retry_after_ms = -1 };
		if (!e->watch || e == on)	/* a list not ended: its records were not kept */
			continue;
		recording_line_reconstructed(out, ck->t, e->x, ck->stream, e->path);
		if (e->status)
			recording_line_status(out, ck->t, e->x, &a);
		if (e->body.len)
			recording_line_data(out, ck->t, e->x, e->body.buf, e->body.len);
	}
	strbuf_release(&body);
}
