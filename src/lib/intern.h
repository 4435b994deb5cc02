/*
 * intern.h — shared copies of byte strings: every holder of the same
 * bytes holds the one copy, counted.
 *
 * For strings that many long-lived objects repeat (the namespace, kind,
 * labels and owners of the pods of one ReplicaSet): one lookup when a
 * holder takes a copy and one when it lets it go, against keeping the
 * bytes once per holder.
 *
 * Ownership: intern_get() gives the caller one reference; intern_put()
 * returns it, and the copy is freed with the last.  The bytes never
 * change while a reference is held, so any thread may read them without
 * a lock.  Both functions are thread-safe (one lock over the table) and
 * never block on anything but that lock.
 */
#ifndef KINF_INTERN_H
#define KINF_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	size_t len;
	/* Private: the table's. */
	uint32_t hash;
	unsigned refs;		/* under the table's lock */
	char bytes[];		/* len bytes, any value, no NUL added */
};

/* The shared copy of bytes[0..len), with one more reference. */
struct intern *intern_get(const char *bytes, size_t len);
/* Lets go of one reference. */
void intern_put(struct intern *e);

#endif
