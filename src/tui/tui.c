/*
 * tui.c — the TUI's loop: owns the terminal, lays out the panes, routes
 * keys and the mouse, feeds the models from the listeners.
 *
 * DESIGN (threads): the informers run their own threads and hand this
 * one their notifications through their listeners' buffers.  This — the
 * thread that called tui_run() — is the only one that touches ncurses,
 * the models or stdout, and it never waits for the server: `V`'s LIST,
 * `:`'s discovery and `d`'s Events run on the consumer's worker thread
 * (informer/consumer.h, lib/worker.h), which touches nothing of the UI
 * and hands its result back through a locked slot and a pipe; the status
 * line says what runs there, and Esc stops it (its transfer ends; its
 * result is dropped).
 * While it runs no tab is added, so the session's arrays hold still.
 * This thread sleeps in poll() on: the terminal (keys, mouse), a
 * self-pipe the signal handlers write to (SIGINT, SIGTERM, SIGHUP end the
 * loop; SIGWINCH resizes), the worker's pipe and each listener's wake-up
 * fd.
 * The poll timeout serves only the clock: once a second the "how long
 * ago" columns, the countdowns and the deltas-per-second rate move on;
 * and, when a burst of deltas arrives, frames are spaced FRAME_MS apart so
 * that drawing never falls behind the data: however many deltas came, one
 * frame draws them.  A key is drawn at once, not at the next frame's
 * time: what a person waits for never waits for the data's spacing.
 *
 * stderr: while the terminal is ours, fd 2 goes to a temporary file so
 * that no message from any thread tears the screen; it is copied back to
 * the real stderr once the terminal is restored.
 */
#include "tui/tui.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "cluster/discovery.h"
#include "informer/flight.h"
#include "cluster/http.h"
#include "cluster/kubeconfig.h"
#include "informer/session.h"
#include "output/columns.h"
#include "output/printer_columns.h"
#include "output/verify_report.h"
#include "tui/tui_table.h"
#include "tui/tui_log.h"
#include "tui/tui_detail.h"
#include "tui/tui_help.h"
#include "tui/tui_story.h"
#include "tui/tui_controller.h"
#include "tui/tui_prompt.h"
#include "lib/util.h"

#define FRAME_MS 33		/* deltas: at most 30 frames a second */
#define TICK_MS 1000		/* the clock */
#define SORT_SLICE_MS 5	/* a new sort's order, made between keys (table_work()) */
#define DRAIN_MAX 8192		/* per listener per loop turn: keys stay quick */
#define HUGE_SWEEP_MS 60000	/* the memory made huge pages again (hugemem.h) */

/* ---- terminal ownership ---------------------------------------------------- */

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };

static SCREEN *screen;
static int saved_stderr = -1;
static FILE *captured_stderr;

static void stderr_capture(void)
{
	fflush(stderr);
	captured_stderr = tmpfile();
	if (!captured_stderr)
		return;
	saved_stderr = dup(STDERR_FILENO);
	if (saved_stderr < 0 || dup2(fileno(captured_stderr), STDERR_FILENO) < 0) {
		fclose(captured_stderr);
		captured_stderr = NULL;
	}
}

/* Gives fd 2 back and copies what was written to it meanwhile. */
static void stderr_release(void)
{
	char buf[4096];
	size_t n;

	if (!captured_stderr)
		return;
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	saved_stderr = -1;
	rewind(captured_stderr);
	while ((n = fread(buf, 1, sizeof(buf), captured_stderr)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(captured_stderr);
	captured_stderr = NULL;
}

/* Idempotent; safe from die() on any path. */
static void terminal_restore(void)
{
	if (screen) {
		mousemask(0, NULL);
		/*
		 * A blank screen to leave: a terminal that was resized while
		 * the alternate screen was up may carry its lines over to the
		 * main one (tmux pushes them into the history), and blank
		 * lines are all there is to carry.
		 */
		erase();
		refresh();
		endwin();
		delscreen(screen);
		screen = NULL;
		fflush(stdout);
	}
	stderr_release();
}

static int colors_init(bool want)
{
	static const struct { short fg; } pairs[PAIR__COUNT] = {
		[PAIR_ADDED] = { COLOR_GREEN },
		[PAIR_UPDATED] = { COLOR_YELLOW },
		[PAIR_DELETED] = { COLOR_RED },
		[PAIR_REPLACED] = { COLOR_CYAN },
		[PAIR_SYNC] = { COLOR_MAGENTA },
		[PAIR_TITLE] = { COLOR_WHITE },
		[PAIR_ERROR] = { COLOR_RED },
		[PAIR_ACTIVITY] = { COLOR_BLUE },
		[PAIR_MARK] = { COLOR_YELLOW },
	};

	if (!want || !has_colors() || start_color() == ERR)
		return 0;
	use_default_colors();
	for (short i = 1; i < PAIR__COUNT; i++)
		init_pair(i, pairs[i].fg, i == PAIR_TITLE ? COLOR_BLUE : -1);
	return 1;
}

static int terminal_open(struct tui *t)
{
	const char *nc = getenv("NO_COLOR");

	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return -1;
	set_term(screen);
	set_die_hook(terminal_restore);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	t->color = colors_init(!(nc && *nc));
	getmaxyx(stdscr, t->lines, t->cols);
	return 0;
}

static void terminal_resize(struct tui *t)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	getmaxyx(stdscr, t->lines, t->cols);
	clearok(curscr, TRUE);
}

/* ---- layout and frame ----------------------------------------------------- */

static const struct view_ops *const panes[PANE__COUNT] = {
	[PANE_TABLE] = &table_view,
	[PANE_LOG] = &log_view,
};

static const struct view_ops *const screens[SCREEN__COUNT] = {
	[SCREEN_DETAIL] = &detail_view,
	[SCREEN_HELP] = &help_view,
};

static void layout(struct tui *t, struct rect *body, struct rect *table,
		   struct rect *log, struct rect *health)
{
	*body = (struct rect){ 2, 0, t->lines - 3, t->cols };
	int table_h = body->h * 55 / 100;
	if (table_h < 4)
		table_h = body->h;
	int bottom_h = body->h - table_h;
	int health_w = t->cols >= 110 ? 42 : 34;
	if (t->show_ctl && health_w < t->cols * 45 / 100)	/* keys and RVs: room */
		health_w = t->cols * 45 / 100;
	if (t->cols < 70)
		health_w = t->cols / 2;
	*table = (struct rect){ body->y, 0, table_h, t->cols };
	*log = (struct rect){ body->y + table_h, 0, bottom_h, t->cols - health_w };
	*health = (struct rect){ body->y + table_h, t->cols - health_w, bottom_h, health_w };
}

#define RECENT_ERROR_MS 60000

/*
 * The informer needs a look: backing off, an error in the last minute, a
 * watch whose resourceVersion went back, or a cache the last `V` found
 * wrong.  Its tab shows '!'.
 */
static bool tab_unhealthy(const struct tui *t, const struct tab *tab)
{
	const struct informer_stats *st = &tab->m.stats;

	return st->state == STATE_BACKOFF || st->rv_backwards || tab->verify_bad ||
	       (st->last_error_ms && t->now_wall - st->last_error_ms < RECENT_ERROR_MS);
}

static void draw_header(struct tui *t)
{
	struct cluster *c = &t->session->cluster;
	const char *ctx = !c->config || c->config->in_cluster ? "in-cluster"
			  : *c->config->context ? c->config->context : "(none)";
	const char *server = c->config ? c->config->server : "";
	char buf[512];

	const char *as = c->config ? c->config->impersonate_user : NULL;
	int len = snprintf(buf, sizeof(buf), " kinf  context %s%s%s  server %s  %s%s", ctx,
			 as ? "  as " : "", as ? as : "", server,
			 c->scope_ns ? "namespace " : "",
			 c->scope_ns ? c->scope_ns : "all namespaces");
	if (t->ns_filter[0])
		snprintf(buf + len, sizeof(buf) - (size_t)len, ", showing %s", t->ns_filter);
	draw_fill(0, 0, t->cols, A_BOLD, buf);
	if (t->paused) {
		struct tab *tab = tui_tab(t);
		snprintf(buf, sizeof(buf), " PAUSED (%zu held) ", tab->m.held_nr);
		int n = (int)strlen(buf);
		if (n < t->cols)
			draw_text(0, t->cols - n, n, A_REVERSE | A_BOLD, buf);
	}

	int x = 0;
	move(1, 0);
	clrtoeol();
	for (size_t i = 0; i < t->nr && x < t->cols; i++) {
		struct model *m = &t->tabs[i].m;
		const char *state = tab_unhealthy(t, &t->tabs[i]) ? " !" : m->stats.synced ? "" :
				    t->utf8 ? " …" : " ..";
		snprintf(buf, sizeof(buf), " %zu:%s %zu%s ", i + 1, m->name, m->present, state);
		int attr = i == t->cur ? (A_REVERSE | A_BOLD) : A_NORMAL;
		int n = draw_text(1, x, t->cols - x, attr, buf);
		x += n + 1;
	}
}

static const char *dots(const struct tui *t)
{
	return t->utf8 ? "…" : "...";
}

/* What runs on the worker, for the status line: false when nothing. */
static bool busy(const struct tui *t, char *buf, size_t size)
{
	size_t nr = 0, first = 0;

	for (size_t i = t->nr; i-- > 0;) {
		if (consumer_verifying(&t->cons, i)) {
			nr++;
			first = i;
		}
	}
	if (t->working[0])
		snprintf(buf, size, "%s%s  Esc cancels", t->working, dots(t));
	else if (nr == 1)
		snprintf(buf, size, "verifying %s%s  Esc cancels", t->tabs[first].m.name, dots(t));
	else if (nr)
		snprintf(buf, size, "verifying %zu resources%s  Esc cancels", nr, dots(t));
	return t->working[0] || nr;
}

static void draw_status(struct tui *t)
{
	int y = t->lines - 1;
	char buf[sizeof(t->working) + 64];

	if (t->prompt.kind != PROMPT_NONE) {
		prompt_draw(t, y);
		return;
	}
	if (t->message[0] && t->now_mono < t->message_until)
		draw_fill(y, 0, t->cols, A_BOLD, t->message);
	else if (busy(t, buf, sizeof(buf)))
		draw_fill(y, 0, t->cols, A_BOLD, buf);
	else
		draw_fill(y, 0, t->cols, A_DIM,
			  request_hints(t->view ? t->view->keymap : KEYMAP_MAIN));
}

static void draw_frame(struct tui *t)
{
	struct rect body, table, log, health;

	t->now_mono = mono_ms();
	t->now_wall = wall_ms();
	erase();
	if (t->lines < 10 || t->cols < 40) {
		draw_text(0, 0, t->cols, A_BOLD, "terminal too small");
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	layout(t, &body, &table, &log, &health);
	draw_header(t);
	if (t->view) {
		t->view->draw(t, &body, true);
	} else {
		t->pane_rect[PANE_TABLE] = table;
		t->pane_rect[PANE_LOG] = log;
		table_view.draw(t, &table, t->focus == PANE_TABLE);
		log_view.draw(t, &log, t->focus == PANE_LOG);
		(t->show_ctl ? &controller_view : &health_view)->draw(t, &health, false);
	}
	draw_status(t);
	wnoutrefresh(stdscr);
	doupdate();
}

/* ---- keys ---------------------------------------------------------------- */

static void set_paused(struct tui *t, bool paused)
{
	t->paused = paused;
	if (paused) {
		tui_message(t, "paused: deltas are held and counted; p resumes");
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < t->nr; i++) {
		n += model_apply_held(&t->tabs[i].m);
		table_invalidate(&t->tabs[i]);
	}
	tui_message(t, "resumed: %zu held notification%s applied", n, n == 1 ? "" : "s");
}

static void switch_tab(struct tui *t, size_t i)
{
	if (i >= t->nr)
		return;
	t->cur = i;
	t->focus = PANE_TABLE;
	table_invalidate(tui_tab(t));
}

static void tab_init(struct tui *t, size_t i)
{
	struct session *s = t->session;
	struct tab *tab = &t->tabs[i];

	memset(tab, 0, sizeof(*tab));
	model_init(&tab->m, s->informers[i]);
	/*
	 * The kind's columns are fixed from here on (tui_table.c keeps its
	 * rows' cells by them): its CRD's, known once for good, or, when the
	 * CRD was not known (not read yet, or it could not be), never one
	 * learned later (a `:` of the same name may retry it).
	 */
	tab->crds = crd_columns_has(t->crds, tab->m.group, tab->m.kind) ? t->crds : NULL;
	tab->m.hist_states = t->hist_states;
	tab->m.budget = &t->hist_budget;
	for (int p = 0; p < PANE__COUNT; p++)
		tab->pane[p] = panes[p]->new(t, tab);
	tab->ctl = t->ctl_opts ? tui_ctl_new(t->ctl_opts) : NULL;
}

static void tab_release(struct tab *tab)
{
	free(tab->verify_text);
	tui_ctl_free(tab->ctl);
	for (int p = 0; p < PANE__COUNT; p++)
		panes[p]->free(tab->pane[p]);
	filter_clear(&tab->filter);
	model_release(&tab->m);
}

/*
 * `:`: switches to the tab of a resource, adding (and starting) one if
 * there is none.  -1 with err when the server has no such resource.
 * Discovery has answered for typed already, and a custom resource's
 * printer columns are known (resolve_job), so this does not wait for the
 * server.
 */
static int open_resource(struct tui *t, const char *typed, struct errbuf *err)
{
	struct session *s = t->session;
	bool added;
	int i = session_add(s, typed, &added, err);

	if (i < 0)
		return -1;
	if (added) {
		t->tabs = xrealloc(t->tabs, s->nr * sizeof(*t->tabs));
		consumer_grow(&t->cons);
		tab_init(t, (size_t)i);
		t->nr = s->nr;
		if (informer_start(s->informers[i], err) < 0)
			return -1;	/* the tab stays, saying what its informer does */
		tui_message(t, "%s: started an informer (tab %d)", t->tabs[i].m.name, i + 1);
	}
	switch_tab(t, (size_t)i);
	return 0;
}

/*
 * Esc: the full-screen view, then what runs on the worker (`V`, `:`),
 * then the filter, then the namespace.
 */
static void escape(struct tui *t)
{
	struct tab *tab = tui_tab(t);

	if (t->view) {
		t->view = NULL;
	} else if (consumer_cancel(&t->cons)) {
		t->working[0] = '\0';
		tui_message(t, "cancelled");
	} else if (filter_active(&tab->filter)) {
		filter_clear(&tab->filter);
		t->filter_gen++;
		tui_message(t, "filter cleared");
	} else if (t->ns_filter[0]) {
		tui_namespace_show(t, "");
		tui_message(t, "all namespaces");
	}
}

/*
 * `:`'s discovery, on the consumer's worker: a server that is slow to
 * answer (or a disk cache that does not know the name) does not hold the
 * terminal.  open_resource() then finds the answer in memory.
 */
struct resolve_job {
	struct tui_job base;
	struct cluster *cluster;
	struct crd_columns *crds;	/* learns a custom resource's columns */
	char typed[256];
	int rc;
	struct errbuf err;
};

static void resolve_run(struct worker_job *job, struct stop *stop)
{
	struct resolve_job *rj = (struct resolve_job *)job;
	const struct api_resource *res;

	kclient_set_thread_stop(stop);
	rj->rc = discovery_resolve(rj->cluster->disco, rj->typed, &res, &rj->err);
	/* Before the tab opens: its columns are fixed from then on (tab_init()). */
	if (rj->rc == 0 && rj->crds)
		printer_columns_load(rj->crds, rj->cluster, &res, 1);
	kclient_set_thread_stop(NULL);
}

static void resolve_free(struct worker_job *job)
{
	free(job);
}

/*
 * The worker answered: the tab, or why not on the status line, as k9s
 * says it; the prompt stays closed, so that the next key (q) is a key.
 */
static void resolve_done(struct tui *t, struct tui_job *job)
{
	struct resolve_job *rj = (struct resolve_job *)job;
	struct errbuf err = { "" };

	if (rj->rc == 0 && open_resource(t, rj->typed, &err) == 0)
		return;
	tui_message(t, "%s", rj->rc < 0 ? rj->err.msg : err.msg);
}

/* Enter on `:` closed the prompt: the name typed goes to the worker. */
static void resolve_start(struct tui *t)
{
	struct resolve_job *rj = xcalloc(1, sizeof(*rj));
	char what[sizeof(rj->typed) + 16];

	rj->base = (struct tui_job){ { .run = resolve_run, .free = resolve_free }, resolve_done };
	rj->cluster = &t->session->cluster;
	rj->crds = t->crds;
	snprintf(rj->typed, sizeof(rj->typed), "%s", t->prompt.text);
	snprintf(what, sizeof(what), "resolving %s", rj->typed);
	if (tui_job_submit(t, &rj->base, what) < 0) {
		tui_message(t, "still %s; Esc cancels it", t->working);
		free(rj);
	}
}

/*
 * `V`: the tab's cache against a quorum LIST, as `kinf verify` and
 * `watch --verify-every` check it (informer/consumer.h): the LIST on the
 * worker, the comparison once the informer has seen as far as the LIST or
 * after VERIFY_LAG_MS.  The status line says so meanwhile; Esc cancels.
 */
#define VERIFY_LAG_MS 10000

static void verify_start(struct tui *t, size_t i)
{
	struct errbuf err = { "" };

	if (consumer_verify(&t->cons, i, &err) < 0)
		tui_message(t, "verify %s: %s", t->tabs[i].m.name, err.msg);
}

/* `D`: the flight recorder dumps (after its tail). */
static void flight_key(struct tui *t)
{
	int64_t ms;

	if (!t->flight)
		tui_message(t, "D: no flight recorder (watch --tui --flight-recorder DURATION)");
	else if (!flight_trigger(t->flight, "key", NULL))
		tui_message(t, "flight recorder: a dump is due already");
	else if ((ms = flight_due_ms(t->flight)) >= 0)
		tui_message(t, "flight recorder: a dump in %llds", (long long)(ms + 999) / 1000);
	else	/* two are being written */
		tui_message(t, "flight recorder: a dump once the one being written is done");
}

/* The due dump taken once its tail has passed; the status line says where one was written. */
static void flight_write(struct tui *t)
{
	struct errbuf err = { "" };
	char *path, *reason;
	int rc = t->flight ? flight_dump_due(t->flight, false, &path, &reason, &err) : 0;

	if (rc < 0)
		tui_message(t, "flight recorder: %s", err.msg);
	if (rc <= 0)
		return;
	tui_message(t, "flight recorder: %s: wrote '%s'", reason, path);
	metrics_count_dump(t->cons.metrics);
	t->dirty = true;
	free(path);
	free(reason);
}

static void unknown_key(struct tui *t, int key)
{
	const char *name = keyname(key);
	tui_message(t, "%s%s%s does nothing here; ? lists the keys",
		    key >= 32 && key < 127 ? "'" : "", name ? name : "that key",
		    key >= 32 && key < 127 ? "'" : "");
}

static void next_pane(struct tui *t, int step)
{
	if (step > 0) {
		if (t->focus + 1 < PANE__COUNT)
			t->focus++;
		else if (t->nr > 1)
			switch_tab(t, (t->cur + 1) % t->nr);
		else
			t->focus = PANE_TABLE;
	} else if (t->focus > PANE_TABLE) {
		t->focus--;
	} else {
		if (t->nr > 1)
			switch_tab(t, (t->cur + t->nr - 1) % t->nr);
		t->focus = PANE__COUNT - 1;
	}
}

/*
 * `0`, as k9s's: all namespaces, and back to the one shown before.  The
 * informers watch what they were started with (-n): only what they hold.
 */
static void all_namespaces(struct tui *t)
{
	char ns[sizeof(t->ns_prev)];
	const char *scope = t->session->cluster.scope_ns;

	if (t->ns_filter[0]) {
		tui_namespace_show(t, "");
		tui_message(t, "all namespaces; 0 goes back to %s", t->ns_prev);
	} else if (t->ns_prev[0]) {
		snprintf(ns, sizeof(ns), "%s", t->ns_prev);
		tui_namespace_show(t, ns);
		tui_message(t, "namespace %s only; 0 shows all again", ns);
	} else if (scope) {
		tui_message(t, "the informers watch namespace %s only (-A: all)", scope);
	} else {
		tui_message(t, "all namespaces already; n shows one");
	}
}

/* What no view took; a request the keymap has but nothing here answers is unknown. */
static void global_request(struct tui *t, enum request req, int key)
{
	struct tab *tab = tui_tab(t);
	const char *k;

	switch (req) {
	case REQ_QUIT: t->quit = true; break;
	case REQ_HELP: help_open(t); break;
	case REQ_BACK: escape(t); break;
	case REQ_NEXT_PANE: next_pane(t, 1); break;
	case REQ_PREV_PANE: next_pane(t, -1); break;
	case REQ_PAUSE: set_paused(t, !t->paused); break;
	case REQ_VERIFY: verify_start(t, t->cur); break;
	case REQ_DUMP: flight_key(t); break;
	case REQ_CONTROLLER: tui_ctl_toggle(t); break;
	case REQ_RESYNC:
		informer_resync_now(tab->m.inf);
		tui_message(t, "resync of %s queued", tab->m.name);
		break;
	case REQ_CLEAR_LOG:
		model_log_clear(&tab->m);
		log_cleared(tab);
		tui_message(t, "log of %s cleared", tab->m.name);
		break;
	case REQ_FILTER: prompt_open(t, PROMPT_FILTER); break;
	case REQ_RESOURCE:
		if (consumer_job_pending(&t->cons))
			tui_message(t, "%s%s; Esc cancels", t->working, dots(t));
		else
			prompt_open(t, PROMPT_RESOURCE);
		break;
	case REQ_NAMESPACE: prompt_open(t, PROMPT_NAMESPACE); break;
	case REQ_ALL_NAMESPACES: all_namespaces(t); break;
	case REQ_YAML: case REQ_DESCRIBE:
		if ((k = tui_selected_key(t)))
			detail_open(t, t->cur, k, req == REQ_YAML ? DETAIL_YAML : DETAIL_DESCRIBE);
		else
			tui_message(t, "no object under the cursor");
		break;
	case REQ_SORT_NEXT: table_cycle_sort(t, tab, 1); break;
	case REQ_SORT_PREV: table_cycle_sort(t, tab, -1); break;
	case REQ_SORT_REVERSE: table_reverse_sort(t, tab); break;
	case REQ_SORT_LETTER:
		if (!table_sort_letter(t, tab, (char)key))
			unknown_key(t, key);
		break;
	case REQ_REDRAW: clearok(curscr, TRUE); break;
	case REQ_GO_TAB:
		if ((size_t)(key - '1') < t->nr)
			switch_tab(t, (size_t)(key - '1'));
		else
			tui_message(t, "no tab %c; : adds one", key);
		break;
	default:
		unknown_key(t, key);
		break;
	}
}

static void mouse_event(struct tui *t)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	int lines = (ev.bstate & BUTTON4_PRESSED) ? -3 : (ev.bstate & BUTTON5_PRESSED) ? 3 : 0;
	if (t->view) {
		if (lines && t->view->wheel)
			t->view->wheel(t, lines);
		return;
	}
	for (int p = 0; p < PANE__COUNT; p++) {
		const struct rect *r = &t->pane_rect[p];
		if (ev.y < r->y || ev.y >= r->y + r->h || ev.x < r->x || ev.x >= r->x + r->w)
			continue;
		if (lines) {
			panes[p]->wheel(t, lines);
		} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
			t->focus = (enum pane)p;
			panes[p]->click(t, ev.y - r->y);
		}
		return;
	}
}

static void handle_key(struct tui *t, int key)
{
	if (key == KEY_MOUSE) {
		mouse_event(t);
		return;
	}
	if (key == KEY_RESIZE) {
		getmaxyx(stdscr, t->lines, t->cols);
		return;
	}
	/* A message answers the key before; the next key makes it go. */
	t->message[0] = '\0';
	if (t->prompt.kind != PROMPT_NONE) {
		if (prompt_key(t, key))
			resolve_start(t);
		return;
	}
	const struct view_ops *v = t->view ? t->view : panes[t->focus];
	enum request req = request_of(v->keymap, key);
	if (v->request && v->request(t, req, key))
		return;
	global_request(t, req, key);
}

/* ---- the loop --------------------------------------------------------------- */

/* consumer_ops.notify: into the tab's model, or held while paused. */
static int on_notification(void *ctx, size_t i, struct notification *n)
{
	struct tui *t = ctx;
	struct tab *tab = &t->tabs[i];

	/* A controller does not pause; of the activity, it counts the sync. */
	if (tab->ctl && (n->kind != NOTIFY_ACTIVITY || n->activity->act == ACT_SYNCED))
		tui_ctl_note(tab->ctl, n);
	if (t->paused)
		model_hold(&tab->m, n);
	else
		model_apply(&tab->m, n);
	/* The title and the informer pane say what the delta pane says:
	 * synced, listing, watching, in the frame that shows it. */
	if (n->kind == NOTIFY_ACTIVITY)
		informer_get_stats(tab->m.inf, &tab->m.stats);
	t->dirty = true;
	return 0;
}

/* consumer_ops.verified: the summary in the health pane and the status line. */
static int on_verified(void *ctx, size_t i, const struct verify_report *r, const char *why)
{
	struct tui *t = ctx;
	struct tab *tab = &t->tabs[i];
	struct strbuf sb = STRBUF_INIT;

	t->dirty = true;
	if (!r) {
		tui_message(t, "verify %s: %s", tab->m.name, why);
		return 0;
	}
	verify_report_summary(r, &sb);
	if (!r->caught_up)
		strbuf_adds(&sb, " (not caught up)");
	free(tab->verify_text);
	tab->verify_text = strbuf_detach(&sb, NULL);
	tab->verify_ms = wall_ms();
	tab->verify_bad = !verify_equal(r);
	tui_message(t, "verify %s: %s", tab->m.name, tab->verify_text);
	return 0;
}

static void on_job_done(void *ctx, struct worker_job *job)
{
	struct tui *t = ctx;
	struct tui_job *tj = (struct tui_job *)job;

	t->working[0] = '\0';
	tj->done(t, tj);
	job->free(job);
	/* What `:` or `d` asked for, found: it answers a key, drawn at once. */
	t->dirty = t->key_frame = true;
}

static const struct consumer_ops tui_ops = {
	.notify = on_notification,
	.verified = on_verified,
	.job_done = on_job_done,
};

/*
 * The memory in huge pages (lib/hugemem.h), a range at a time in the
 * loop's idle turns: from the first key once a tab has synced, since it
 * is a key (a filter, a sort) that reads the whole cache again, then
 * every HUGE_SWEEP_MS for what churn added.  A TUI no one touches pays
 * nothing: the first sweep copies most of the cache (0.2 s of CPU at
 * 100,000 pods), a later one the few ranges that are new.
 */
static void huge_due(struct tui *t, int64_t now)
{
	if (!t->keyed || now < t->huge_next)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		if (t->tabs[i].m.stats.synced) {
			huge_sweep_start(&t->huge);
			t->huge_next = now + HUGE_SWEEP_MS;
			return;
		}
	}
}

static void tick(struct tui *t)
{
	int64_t now = mono_ms();

	for (size_t i = 0; i < t->nr; i++) {
		struct tab *tab = &t->tabs[i];
		model_sample(&tab->m, now);
		/* The rows deleted a while ago go, but not under a sort that is
		 * still a page (at the next tick, its order built). */
		if (!t->paused && !table_paging(tab) && model_expire(&tab->m, now))
			table_refresh(t, tab);
		/* Another tab's deltas may have filled the budget this one shares. */
		model_hist_trim(&tab->m);
		if (tab->ctl)
			tui_ctl_expire(tab->ctl, &tab->m);
	}
	table_tick(t);
	huge_due(t, now);
}

/*
 * The terminal, the signal pipe, the flight recorder's (a dump written),
 * then the consumer's (the worker, each listener).
 */
#define LOOP_FDS 3

static struct pollfd *poll_fds(struct tui *t, struct pollfd *fds, int sig_fd, size_t *nfds)
{
	*nfds = LOOP_FDS + consumer_nfds(&t->cons);
	fds = xrealloc(fds, *nfds * sizeof(*fds));
	fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
	fds[2] = (struct pollfd){ .fd = t->flight ? flight_fd(t->flight) : -1, .events = POLLIN };
	consumer_fds(&t->cons, fds + LOOP_FDS);
	return fds;
}

/* How long poll() may sleep: the clock, the next frame, the consumer's. */
static int loop_wait(struct tui *t, int64_t now, int64_t next_tick, int64_t last_frame)
{
	int64_t wait = next_tick - now;
	const int64_t due[] = {	/* -1: none */
		consumer_next_ms(&t->cons),
		t->flight ? flight_due_ms(t->flight) : -1,
		tui_ctl_tabs_wait_ms(t),	/* a Reconcile's end, a delayed add */
	};

	if (t->dirty && last_frame + FRAME_MS - now < wait)
		wait = last_frame + FRAME_MS - now;
	for (size_t i = 0; i < ARRAY_SIZE(due); i++)
		if (due[i] >= 0 && due[i] < wait)
			wait = due[i];
	return wait < 0 ? 0 : (int)wait;
}

/* What poll() said of the terminal and the signals; the status, or -1. */
static int loop_events(struct tui *t, const struct pollfd *fds)
{
	int status = -1, sig, key;

	while ((sig = consumer_signal_next())) {
		if (sig == SIGWINCH) {
			terminal_resize(t);
		} else {
			t->quit = true;
			status = 128 + sig;
		}
		t->dirty = true;
	}
	if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
		while ((key = getch()) != ERR) {
			handle_key(t, key);
			t->key_frame = t->keyed = true;
		}
		huge_due(t, mono_ms());
		if (fds[0].revents & (POLLHUP | POLLERR) && !(fds[0].revents & POLLIN)) {
			t->quit = true;	/* the terminal went away */
			status = 1;
		}
		t->dirty = true;
	}
	return status;
}

static int run_loop(struct tui *t, int sig_fd)
{
	size_t nfds;
	struct pollfd *fds = poll_fds(t, NULL, sig_fd, &nfds);
	int64_t next_tick = mono_ms(), last_frame = 0;
	int status = 0;

	t->dirty = true;
	while (!t->quit) {
		if (nfds != LOOP_FDS + consumer_nfds(&t->cons))	/* `:` added a tab */
			fds = poll_fds(t, fds, sig_fd, &nfds);
		int64_t now = mono_ms();
		if (now >= next_tick) {
			tick(t);
			next_tick = now + TICK_MS;
			t->dirty = true;
		}
		if (t->dirty && (t->key_frame || now - last_frame >= FRAME_MS)) {
			draw_frame(t);
			last_frame = now;
			t->dirty = t->key_frame = false;
		}
		/* A sort's first page is on screen: the rest of its order, in
		 * slices between the keys and deltas that come meanwhile; so
		 * are the kind's sort keys after sync and, when neither is
		 * due, a sweep's ranges of memory (huge_due()). */
		bool sorting = table_pending(t), busy = sorting || huge_sweep_pending(&t->huge);
		if (sorting)
			table_work(t, SORT_SLICE_MS);
		else if (busy)
			huge_sweep_step(&t->huge);
		if (poll(fds, nfds, busy ? 0 : loop_wait(t, now, next_tick, last_frame)) < 0) {
			if (errno == EINTR)
				continue;
			struct errbuf err;
			poll_failure(&err, errno, nfds);
			error("%s", err.msg);	/* shown once the terminal is restored */
			status = 1;
			break;
		}
		int rc = loop_events(t, fds);
		if (rc >= 0)
			status = rc;
		consumer_dispatch(&t->cons, fds + LOOP_FDS);
		tui_ctl_tabs_advance(t);
		flight_write(t);
	}
	free(fds);
	return status;
}

int tui_run(struct session *s, const struct tui_opts *opts)
{
	struct tui t;
	struct errbuf err = { "" };
	int status = 1;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		error("the TUI needs a terminal on stdin and stdout");
		return 1;
	}
	memset(&t, 0, sizeof(t));
	t.session = s;
	t.cons = (struct consumer){
		.session = s, .ops = &tui_ops, .ctx = &t,
		.resync_ms = opts->resync_ms,
		.drain_max = DRAIN_MAX,
		.verify_every_ms = opts->verify_every_ms,
		.verify_lag_ms = VERIFY_LAG_MS,
		.metrics = opts->metrics,
		.flight = opts->flight,
		.dump_on = opts->dump_on,
	};
	consumer_init(&t.cons);
	t.nr = s->nr;
	t.tabs = xcalloc(t.nr, sizeof(*t.tabs));
	t.hist_states = opts->hist_states;
	t.hist_budget.limit = opts->hist_budget ? opts->hist_budget : HIST_BUDGET_DEFAULT;
	t.crds = opts->crds;
	t.flight = opts->flight;
	t.ctl_opts = opts->controller;
	t.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	draw_set_utf8(t.utf8);
	for (int i = 0; i < SCREEN__COUNT; i++)
		t.screen[i] = screens[i]->new(&t, NULL);
	for (size_t i = 0; i < t.nr; i++)
		tab_init(&t, i);
	if (session_start(s, &err) < 0) {
		error("%s", err.msg);
		goto cleanup;
	}

	int sig_fd = consumer_signals_install(handled_signals, ARRAY_SIZE(handled_signals),
					      SA_RESTART);
	stderr_capture();
	if (terminal_open(&t) < 0) {
		terminal_restore();
		consumer_signals_restore();
		error("cannot use the terminal '%s'", getenv("TERM") ? getenv("TERM") : "");
		goto cleanup;
	}
	tick(&t);
	status = run_loop(&t, sig_fd);
	terminal_restore();
	consumer_signals_restore();
	set_die_hook(NULL);

cleanup:
	/* The worker first (it may be listing), then the informers, before
	 * their listeners' models go. */
	consumer_release(&t.cons);
	session_stop(s);
	for (size_t i = 0; i < t.nr; i++)
		tab_release(&t.tabs[i]);
	free(t.tabs);
	for (int i = 0; i < SCREEN__COUNT; i++)
		screens[i]->free(t.screen[i]);
	huge_sweep_free(&t.huge);
	return status;
}
