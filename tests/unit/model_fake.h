/*
 * model_fake.h — for the TUI's unit tests: a model without an informer,
 * as model_init() sets one up but for the informer.
 * Released with model_release().
 */
#ifndef KINF_TEST_MODEL_FAKE_H
#define KINF_TEST_MODEL_FAKE_H

#include <string.h>

#include "tui/tui_model.h"

static inline void model_fake(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->name = "pods";
	m->group = "";
	m->kind = "Pod";
	m->namespaced = true;
	m->hist_states = HIST_STATES;
	m->row_slab = xmalloc(sizeof(*m->row_slab));
	slab_init(m->row_slab, sizeof(struct row));
	m->rows = (struct idtable)IDTABLE_REHASH_INIT(model_row_hash);
	m->log = xcalloc(LOG_MAX, sizeof(*m->log));
}

#endif
