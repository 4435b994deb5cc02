/*
 * tui_controller.c — the controller pane (`w`, with --controller), in the
 * informer pane's place: the tab's workqueue, the Reconciles running, the
 * counts, and the object under the cursor: its state, its last Reconcile
 * and the states that Reconcile never saw.  The simulation and what is
 * kept of it are tui_story.c's.
 */
#include <stdio.h>

#include <curses.h>

#include "controller/controller.h"
#include "tui/tui_controller.h"
#include "tui/tui_log.h"
#include "tui/tui_table.h"
#include "tui/tui_story.h"
#include "lib/util.h"

void tui_ctl_toggle(struct tui *t)
{
	if (!t->ctl_opts) {
		tui_message(t, "w: no controller (kinf tui RESOURCE --controller)");
		return;
	}
	t->show_ctl = !t->show_ctl;
}

/* ---- the pane -------------------------------------------------------------- */

/* The queue, the workers and the counts. */
static void pane_controller(struct tui_ctl *ctl, struct pane_lines *p)
{
	struct controller *c = tui_ctl_controller(ctl);
	struct controller_stats st;
	unsigned workers = controller_workers(c), shown = 0;

	controller_get_stats(c, &st);
	pane_line(p, 0, "queue    depth %lld  adds %llu  retries %llu",
		  (long long)st.wq.depth, (unsigned long long)st.wq.adds,
		  (unsigned long long)st.wq.retries);
	pane_line(p, 0, "workers  %u of %u busy", st.running, workers);
	for (unsigned w = 0; w < workers && shown < 4; w++) {
		struct ctl_worker_info wi;
		struct tui_ctl_last last;
		if (!controller_worker_info(c, w, &wi))
			continue;
		bool read = tui_ctl_last(ctl, wi.key, &last) && last.rv[0];
		pane_line(p, A_BOLD, "  #%u %s rv %s, %llds left", wi.number, wi.key,
			  read ? last.rv : "-",
			  (long long)((wi.ends_ms - st.clock_ms + 999) / 1000));
		shown++;
	}
	if (st.running > shown)
		pane_line(p, 0, "  and %u more", st.running - shown);
	pane_line(p, 0, "deltas   %llu  filtered %llu  reconciles %llu",
		  (unsigned long long)st.deltas, (unsigned long long)st.filtered,
		  (unsigned long long)st.reconciles);
	pane_line(p, 0, "enqueued new %llu  coalesced %llu  dirty %llu",
		  (unsigned long long)st.enqueued[WQ_NEW],
		  (unsigned long long)st.enqueued[WQ_COALESCED],
		  (unsigned long long)st.enqueued[WQ_DIRTY]);
	if (st.errors || st.requeues)
		pane_line(p, 0, "errors   %llu  requeues %llu", (unsigned long long)st.errors,
			  (unsigned long long)st.requeues);
	pane_line(p, st.keys_unseen ? A_BOLD : 0, "unseen   %llu state%s, %zu key%s",
		  (unsigned long long)st.unseen, st.unseen == 1 ? "" : "s",
		  st.keys_unseen, st.keys_unseen == 1 ? "" : "s");
}

/* The object under the cursor: its last Reconcile and its unseen states. */
static void pane_object(struct tui *t, struct tui_ctl *ctl, const char *key,
			struct pane_lines *p)
{
	struct tui_ctl_last last;
	struct ctl_key_info info;
	bool known = controller_key_info(tui_ctl_controller(ctl), key, &info);

	pane_line(p, A_BOLD | A_UNDERLINE, "%s", key);
	if (known)
		pane_line(p, 0, "now      %s%s; %zu state%s unread",
			  info.running ? "reconciling" : info.queued ? "queued" : "idle",
			  info.running && info.queued ? ", dirty" : "", info.nr_pending,
			  info.nr_pending == 1 ? "" : "s");
	if (!tui_ctl_last(ctl, key, &last)) {
		pane_line(p, 0, "no Reconcile yet");
		return;
	}
	pane_line(p, 0, "last     #%u read %s%s: %s", last.number,
		  last.rv[0] ? "rv " : "nothing", last.rv, last.done ? last.done : "running");
	if (!last.unseen) {
		pane_line(p, 0, "unseen   none");
		return;
	}
	pane_line(p, tui_color(t, PAIR_UPDATED) | A_BOLD, "unseen states:");
	struct pane_lines states = { p->y, p->bottom, p->x + 2, p->w - 2, 0 };
	text_wrap(last.unseen, states.w, states.bottom - states.y, pane_wrap, &states);
}

const char *tui_selected_key(struct tui *t)
{
	struct tab *tab = tui_tab(t);
	struct row *r;

	if (t->focus == PANE_LOG)
		return log_selected_key(tab);
	r = table_selected(tab);
	return r ? row_key_of(r) : NULL;
}

static void controller_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	struct pane_lines p = { r->y + 1, r->y + r->h, r->x + 1, r->w - 1, 0 };
	const char *key;

	draw_title(t, r, focused, " controller", "w: informer ");
	if (!tab->ctl) {
		pane_line(&p, 0, "no controller on this tab");
		return;
	}
	pane_controller(tab->ctl, &p);
	if ((key = tui_selected_key(t))) {
		p.y++;
		pane_object(t, tab->ctl, key, &p);
	}
}

const struct view_ops controller_view = {
	.draw = controller_draw,
};
