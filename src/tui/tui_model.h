/*
 * tui_model.h — what the TUI knows about one resource, built from its
 * listener's notifications: a row per cached object (with the last delta,
 * when it came, and the object's delta history since kinf started), the
 * delta log, and the health samples.  The views read it; only tui.c
 * feeds it.
 *
 * Rows mirror the Indexer: NOTIFY_ADD/UPDATE set a row's object,
 * NOTIFY_DELETE marks the row gone; a gone row stays visible for
 * GONE_SHOW_MS and is then freed by model_expire().  Rows are freed
 * nowhere else (but by model_release()).  The table keeps its order of
 * the rows up to date through the model's row_hook, told of each row
 * after it changed and before it is freed: one delta costs the table
 * O(log n), never a pass over the rows.
 *
 * Memory: the rows' histories (their entries and the past states they
 * keep) share one budget, struct hist_budget, which the model keeps to
 * after each delta by letting go of the oldest history first (see
 * model_hist_trim()); the newest entry of each row always stays.
 *
 * Ownership: a row holds one reference to obj, and its history one to
 * prev and to each of its states.  Log entries hold no object, only
 * copies of the key and resourceVersion.
 *
 * Threads: none.  Only the terminal thread touches a model.
 */
#ifndef KINF_TUI_MODEL_H
#define KINF_TUI_MODEL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "informer/delta.h"
#include "lib/idtable.h"
#include "lib/ostree.h"
#include "lib/slab.h"
#include "informer/informer.h"

#define GONE_SHOW_MS 5000	/* how long a deleted row stays, dimmed */
#define CHANGED_MARK_MS 3000	/* how long a changed row is marked */
#define HIST_MAX 64		/* delta history kept per object */
#define MARKS_BITS 12		/* struct row's marks: changes of one object marked at once */
#define HIST_STATES 8		/* of which this many keep the object's state */
#define LOG_MAX 5000		/* delta log entries kept per resource */
/*
 * The histories' budget unless --history-size says otherwise, and the
 * least it may be: below that, one object's full history (HIST_MAX
 * entries and HIST_STATES states of a few KiB) would not fit.
 */
#define HIST_BUDGET_DEFAULT ((size_t)8 << 20)
#define HIST_BUDGET_MIN ((size_t)64 << 10)
#define HIST_TRIM_LOW(limit) ((limit) - (limit) / 8)

/* struct row's hist_tail: the source and flags of its newest history
 * entry, while that entry is read back from the row. */
#define HIST_TAIL_SOURCE 0x03u	/* enum delta_source */
#define HIST_TAIL_RESYNC_ONLY 0x04u
#define HIST_TAIL_REPLAY 0x08u

/*
 * One delta in an object's history, as it is read (row_hist_at()), and as
 * the log keeps it.  rv holds 22 characters, more than the 20 digits of
 * any uint64, which is what etcd's resourceVersions are.
 */
struct hist_entry {
	int64_t time_ms;	/* wall clock */
	unsigned list_no;
	unsigned char type;	/* enum delta_type */
	unsigned char source;	/* enum delta_source */
	bool tombstone, resync_only, replay;
	char rv[23];
};

/*
 * One delta as a row's history stores it: 16 bytes where a hist_entry
 * takes 40, since a long session fills up to HIST_MAX of them for every
 * object that changes.  The resourceVersion as a number when it is one
 * (a uint64 in its canonical decimal form: what etcd gives), the time in
 * 32-bit seconds (good until 2106) and its milliseconds apart.  The
 * resourceVersion is opaque to a client: an entry that does not fit (an
 * RV that is not such a number, a time outside 1970-2106, a relist number
 * past 4095) is kept whole instead, wide pointing at its own copy.
 */
struct hist_slot {
	union {
		uint64_t rv;
		struct hist_entry *wide;	/* owned, when is_wide */
	} u;
	uint32_t time_s;
	unsigned msec : 10;
	unsigned type : 4;
	unsigned source : 2;
	bool tombstone : 1, resync_only : 1, replay : 1, is_wide : 1;
	unsigned list_no : 12;
};

/*
 * A row's history beyond what the row reads back: made on the row's second
 * delta, or on its first when states are kept (--history above 0).  Most
 * rows of a large list see one delta while watched and never have one,
 * so these fields cost a quiet row nothing (8 bytes for the pointer).
 */
struct row_hist {
	/* The state the row's last update replaced, or NULL (always with --history 0). */
	struct kobj *prev;
	/*
	 * The object each delta left (a reference, at the same index as its
	 * entry), kept for the newest model.hist_states entries only: the
	 * detail view steps through them.  NULL: none kept (--history 0).
	 */
	struct kobj **obj;
	uint32_t total;		/* deltas ever, stored or not */
	uint8_t nr;		/* entries, at most HIST_MAX */
	/* Where the ring starts once full: row_hist_first(). */
	uint8_t first;
	/*
	 * The newest entry is not in slot but read back from the row (its
	 * time, type and object's rv are row_last_ms(), last_type and obj's;
	 * its source and flags hist_tail), as most entries can be: it is
	 * stored when the next delta comes, so a row that changed once
	 * stores one entry, not two.
	 */
	bool tail;
	/*
	 * Oldest first, growing to HIST_MAX, then a ring from
	 * row_hist_first(); the tail's place is kept for it but not written.
	 * Room for the entries stored (tail's aside), to the power of two at
	 * or above it; HIST_MAX once the ring is full.  The budget's trim
	 * drops the oldest and moves the rest down to slot 0 (nr is then
	 * below HIST_MAX: no ring).  obj has room for the power of two at or
	 * above nr.
	 */
	struct hist_slot slot[];
};

struct row {
	/*
	 * The current state, or the last known when gone; never NULL.  Its
	 * key is the row's and the model's set's (row_key_of()): no copy,
	 * and found from obj's address (kobj_key_of()), so a sort's
	 * tie-break or a filter reads the text and not the object first.
	 * (A pointer to the key in the row, as it was, cost a word a row.)
	 */
	struct kobj *obj;
	/*
	 * NULL while the row has seen one delta and keeps no state: its
	 * entry is then its tail (see struct row_hist), read back from the
	 * row.  Read through row_hist_nr(), row_hist_total(), row_prev(),
	 * row_hist_at() and row_hist_obj().
	 */
	struct row_hist *hist;
	/*
	 * The row's place in its table's order.  Its key is not kept but
	 * read from the row (its key, last delta, object's resourceVersion)
	 * or from kind_key below.
	 */
	struct ostree_node order;
	/*
	 * The small fields side by side, with no hole between them: a row
	 * lives in the model's row_slab, 100,000 times.  last_s is seconds
	 * since 1970 in 32 bits, good until 2106 (its milliseconds apart, so
	 * that LAST sorts by the millisecond): read it through row_last_ms().
	 */
	unsigned version;	/* bumped on every delta (views cache by it) */
	uint32_t last_s;	/* wall clock of the last delta, seconds */
	unsigned last_msec : 10;	/* last_s's milliseconds */
	unsigned last_type : 3;		/* enum delta_type */
	unsigned hist_tail : 4;		/* source | HIST_TAIL_* flags of the history's tail */
	bool tombstone : 1;		/* deleted by a relist, not by the server */
	bool gone : 1;			/* deleted; shown dimmed until model_expire() */
	/*
	 * The row's entries in model.mark_q, its changes of the last
	 * CHANGED_MARK_MS: marked "just changed" while above 0
	 * (row_changed_recently()).  A count in spare bits, not the
	 * change's time in a word of its own: that word was 8 bytes of a pod
	 * row's slab item (0.8 MB at 100,000 pods, measured in the heap).
	 */
	unsigned marks : MARKS_BITS;
	/* Whether its table keeps cells for it (tui_table.c's struct cells). */
	bool has_cells : 1;
	/*
	 * The kind's cells as their table keeps them for sorting (tui_table.c:
	 * each the 16-bit id of its text in a lib/valtab of the column's
	 * values; 0: not made), as many as model_row_keys() said: the row's
	 * slab item has room for them past the struct.
	 */
	uint16_t kind_key[];
};

_Static_assert(HIST_MAX < 256 && (HIST_MAX & (HIST_MAX - 1)) == 0, "row_hist.nr's 8 bits, the ring");
_Static_assert(offsetof(struct row, kind_key) <= 60, "a row lives in the slab 100,000 times");
_Static_assert(GONE_SHOW_MS >= CHANGED_MARK_MS, "a row's marks are due before it is freed");
_Static_assert(sizeof(struct row_hist) <= 24, "first fits in what was padding");
_Static_assert(DELTA__COUNT <= 8, "last_type's 3 bits");

/* Entries in r's history (at most HIST_MAX), and its deltas ever. */
static inline size_t row_hist_nr(const struct row *r)
{
	return r->hist ? r->hist->nr : 1;
}

static inline uint32_t row_hist_total(const struct row *r)
{
	return r->hist ? r->hist->total : 1;
}

/* The state r's last update replaced, or NULL. */
static inline struct kobj *row_prev(const struct row *r)
{
	return r->hist ? r->hist->prev : NULL;
}

/*
 * Where r's ring of history starts: 0 until it is full; from then on each
 * delta moves it on by one.
 */
static inline unsigned row_hist_first(const struct row *r)
{
	return row_hist_nr(r) < HIST_MAX ? 0 : r->hist->first;
}

/* Deltas of r's that its history no longer holds (the ring's, the budget's). */
static inline uint32_t row_hist_dropped(const struct row *r)
{
	return row_hist_total(r) - (uint32_t)row_hist_nr(r);
}

/* The power of two at or above n (0 for 0). */
static inline size_t pow2_room(size_t n)
{
	size_t room = 1;

	if (!n)
		return 0;
	while (room < n)
		room *= 2;
	return room;
}

/* The wall clock of r's last delta, in ms. */
static inline int64_t row_last_ms(const struct row *r)
{
	return (int64_t)r->last_s * 1000 + r->last_msec;
}

/*
 * Whether r changed (other than by a resync) less than CHANGED_MARK_MS
 * before the model's last model_marks_expire().
 */
static inline bool row_changed_recently(const struct row *r)
{
	return r->marks > 0;
}

enum log_kind {
	LOG_DELTA,
	LOG_ACTIVITY,
	LOG_GROUP,
};

/*
 * A relist delivers every cached object again; those it found unchanged
 * (resync_only notifications, Replaced deltas with the cached RV), and a
 * resync's Sync deltas, are folded into one log entry per relist (or
 * resync), so that they bury nothing: "relist #3: 1998 unchanged".  The
 * group keeps the first GROUP_KEEP of its deltas for when it is expanded,
 * and a model keeps at most GROUP_KEPT_MAX in all (the oldest groups'
 * go first); count counts them all.
 */
#define GROUP_KEEP 5000
#define GROUP_KEPT_MAX 20000

struct log_item {
	struct hist_entry d;
	char *key;		/* owned */
};

struct log_group {
	char label[32];		/* "relist #3", "resync" */
	size_t count;
	struct log_item *items;
	size_t nr, alloc;
	bool expanded;
	int64_t last_ms;	/* the time of its latest delta */
	/* How many of items[0, match_upto) the view's filter of generation
	 * match_gen shows (tui_log.c keeps it, so a filter looks once). */
	uint64_t match_gen;
	size_t match_upto, match_nr;
};

struct log_entry {
	enum log_kind kind;
	int64_t time_ms;
	uint64_t seq;		/* numbers entries in the order appended */
	struct hist_entry d;	/* LOG_DELTA */
	char *text;		/* the key (LOG_DELTA) or the message; owned */
	struct log_group *group;	/* LOG_GROUP; owned */
	uint64_t match_gen;	/* LOG_DELTA: the view's filter ... */
	bool match;		/* ... and whether it shows the entry */
};

/* Deltas-per-second from the informer's counters, sampled on each tick. */
#define RATE_SAMPLES 6
struct rate {
	int64_t at[RATE_SAMPLES];	/* monotonic */
	uint64_t total[RATE_SAMPLES];
	size_t nr, next;
};

/*
 * The bytes the rows' histories may hold, shared by a TUI's models (its
 * tabs): each history's block, its entries stored whole, and each past
 * state it alone keeps (kobj_bytes(), counted once however many entries
 * or prev refer to it; the row's current object is the row's, not its
 * history's).  used is exact: the sum over every row of every model that
 * points at it.  Allocator overhead is not counted.
 */
struct hist_budget {
	size_t limit;
	size_t used;
};

struct model {
	struct informer *inf;
	const char *name;	/* "pods" */
	const char *group;	/* "apps"; "" for the core group */
	const char *kind;	/* "Pod" */
	bool namespaced;
	unsigned hist_states;	/* states kept per object (HIST_STATES) */
	/*
	 * The budget this model's histories count against (borrowed; it must
	 * outlive the model), or NULL: no limit.  hist_bytes is this model's
	 * part of its used, of which hist_state_bytes in past states;
	 * hist_sweep is where model_hist_trim() goes on from;
	 * hist_stuck the budget's used when a whole turn last found nothing
	 * to let go of (0: none since).
	 */
	struct hist_budget *budget;
	size_t hist_bytes, hist_state_bytes;
	size_t hist_sweep, hist_stuck;

	/*
	 * The rows by key: their ids in row_slab, 4 bytes a row, each key
	 * read back from its row (IDTABLE_REHASH_INIT(model_row_hash)).
	 * model_row(), model_next_row().
	 */
	struct idtable rows;
	/*
	 * Where the rows live (owned): no malloc per row.  Its own
	 * allocation, not a member: rows points at it, and a model may move
	 * (the TUI's tabs are an array that grows when `:` opens one).
	 */
	struct slab *row_slab;
	size_t present;		/* rows not gone */
	size_t gone;
	/*
	 * The rows deleted, in the order of their deletes, each with the
	 * row's version the delete left: model_expire() reads from the
	 * oldest on and stops at the first not yet due, instead of a pass
	 * over every row at every tick (there are always a few gone under
	 * churn).  An entry whose row changed since (its version moved on)
	 * is skipped: a later entry stands for the row, so no entry is read
	 * after its row was freed.  gone_q[gone_head, gone_nr) are live.
	 */
	struct gone_entry {
		struct row *row;
		unsigned version;
		int64_t since;	/* monotonic, of the delete */
	} *gone_q;
	size_t gone_head, gone_nr, gone_alloc;
	/*
	 * The changes (not resyncs) of the last CHANGED_MARK_MS, oldest
	 * first, each with the monotonic time it came (in tenths of a
	 * second): the rows they mark "just changed" count them (row.marks),
	 * and model_marks_expire() lets them go when due.  It holds a few
	 * seconds of changes however many rows there are.
	 * mark_q[mark_head, mark_nr) are live.
	 */
	struct mark_entry {
		struct row *row;
		int64_t ds;
	} *mark_q;
	size_t mark_head, mark_nr, mark_alloc;

	struct log_entry *log;	/* ring of LOG_MAX, oldest at log_first */
	size_t log_nr, log_first;
	uint64_t log_total;	/* ever appended; views detect growth */
	uint64_t log_changes;	/* bumped when the log changes other than by appending */
	uint64_t open_group;	/* seq of the group new unchanged deltas may join, or 0 */
	size_t group_kept;	/* log_items held by all groups */

	struct informer_stats stats;
	struct rate rate;
	double deltas_per_s;

	/*
	 * Told of each row after a delta changed it (or made it), and before
	 * model_expire() frees it (freeing true); not by model_release().
	 * NULL: nobody listens.
	 */
	void (*row_hook)(struct model *m, struct row *r, bool freeing);

	/* Pause: notifications are drained and held here, applied on resume. */
	struct notification *held;
	size_t held_nr, held_alloc;
};

/* A model may be moved (copied, and the old copy forgotten) after init. */
void model_init(struct model *m, struct informer *inf);

/*
 * Every row from now on with room for nr kind_key (zeroed); before any
 * row is made (the table's view sets it up as it is made).
 */
void model_row_keys(struct model *m, size_t nr);
void model_release(struct model *m);

/* Applies one notification and releases it. */
void model_apply(struct model *m, struct notification *n);
/* Keeps one notification for later (takes its references). */
void model_hold(struct model *m, struct notification *n);
/* Applies every held notification; returns how many. */
size_t model_apply_held(struct model *m);

/*
 * Frees the rows gone for longer than GONE_SHOW_MS; returns true when it
 * freed any (the caller must rebuild every index that may point at them).
 */
bool model_expire(struct model *m, int64_t now_mono);
/*
 * Lets go of the "just changed" marks older than CHANGED_MARK_MS at
 * now_mono: row_changed_recently() answers as of the last call.  Called
 * by model_expire(), by each change, and before drawing the rows.
 */
void model_marks_expire(struct model *m, int64_t now_mono);

/*
 * While the budget is over its limit, lets go of the oldest history: the
 * rows in turn (a clock hand over the set, kept between calls), each
 * losing its oldest past state when past states hold more bytes than the
 * entries do, else its oldest entries down to half (with their states).
 * Once over, it goes on down to HIST_TRIM_LOW of the limit, so that the
 * hand moves a turn per eighth of the budget filled, not a few rows per
 * delta: a few rows visited a delta, amortized.  The newest entry of a
 * row is never let go of, so a budget below what those take is overrun;
 * the trim then stops after a whole turn that found nothing to let go
 * of, and starts again only once another eighth has been added.  model_apply() calls it; a TUI with several tabs
 * calls it for each now and then, since another model's delta may have
 * filled the shared budget.  Changes no row's order (total stays).
 */
void model_hist_trim(struct model *m);

/* The bytes r's history counts against the budget, made again from the
 * row (what the budget's used sums); state_bytes, if not NULL, is set
 * to the bytes of the past states among them. */
size_t row_hist_bytes(const struct row *r, size_t *state_bytes);

/* Refreshes stats and the deltas-per-second rate. */
void model_sample(struct model *m, int64_t now_mono);

/* Log entry i (0 oldest) of log_nr. */
const struct log_entry *model_log_at(const struct model *m, size_t i);
/* The entry numbered seq, or NULL when it left the ring. */
struct log_entry *model_log_seq(const struct model *m, uint64_t seq);
void model_log_clear(struct model *m);
/* Opens or closes a group's list of deltas. */
void model_group_toggle(struct model *m, struct log_entry *e);

/* History entry i (0 oldest) of row_hist_nr(row), made in buf (the result), and
 * the state it left (or NULL). */
const struct hist_entry *row_hist_at(const struct row *r, size_t i, struct hist_entry *buf);
struct kobj *row_hist_obj(const struct row *r, size_t i);

struct row *model_row(const struct model *m, const char *key);
/* struct model's rows' hash (their keys'), for IDTABLE_REHASH_INIT. */
idtable_hash_fn model_row_hash;

/* Row r's key: its object's (every row has one). */
static inline const char *row_key_of(const struct row *r)
{
	return kobj_key_of(r->obj);
}

/*
 * The `/` filter: "" matches everything; "l:SELECTOR" is a label selector
 * in every form -l takes (app=web, tier!=db, env in (a,b), !key, ...);
 * anything else is a POSIX extended regular expression, case-insensitive,
 * matched against the key ("namespace/name").  filter_set() compiles it
 * and refuses (-1, err saying why) one that does not parse, leaving the
 * filter as it was.
 */
struct selector;

struct filter {
	char text[256];
	/* A regex with no special character is text to find, which strcasestr
	 * does ten times as fast as regexec: 100,000 keys in a few ms. */
	bool literal;
	bool regex;		/* re holds the compiled text */
	regex_t re;
	struct selector *sel;	/* l: */
};

int filter_set(struct filter *f, const char *text, struct errbuf *err);
void filter_clear(struct filter *f);
static inline bool filter_active(const struct filter *f)
{
	return f->text[0] != '\0';
}
bool filter_match_key(const struct filter *f, const char *key);
/* A row: its key against a regex, its labels against a selector. */
bool filter_match_row(const struct filter *f, const struct row *r);

/* "initial", "relist 2", "resync", "watch", "replay", "tombstone"… */
void hist_describe(const struct hist_entry *h, char *buf, size_t size);

/*
 * The model's rows in no order, none changed meanwhile:
 *   size_t iter = 0; struct row *r;
 *   while ((r = model_next_row(m, &iter))) ...
 */
static inline struct row *model_next_row(const struct model *m, size_t *iter)
{
	uint32_t id = idtable_next(&m->rows, iter);

	return id == IDTABLE_NONE ? NULL : slab_at(m->row_slab, id);
}

/* The same, in the rows' order in memory: a pass over every row that
 * reads each (and what it points at, fetched ahead) is fastest so. */
static inline struct row *model_next_row_in_memory(const struct model *m, size_t *iter)
{
	return slab_next(m->row_slab, iter);
}

static inline size_t model_row_count(const struct model *m)
{
	return idtable_len(&m->rows);
}

#endif
