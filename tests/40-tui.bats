#!/usr/bin/env bats
# kinf tui, driven for real: kinf runs in a detached tmux pane against the
# simulated apiserver; keys go in with send-keys, the screen comes back
# with capture-pane.  Every wait is a bounded poll of the screen.

load test_helper
load tui_helper

# Three pods with known names in "default", nothing elsewhere.
setup() {
	sim_start --pods 0 --namespaces 0
	for p in alpha bravo charlie; do
		make_pod "$p" >/dev/null
	done
	TMUX_SOCK="kinf-tui-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

make_pod() {
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"$1\",\"namespace\":\"default\",\"labels\":{\"app\":\"${2:-tui}\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}"
}

# Patches a label on a pod; prints its new resourceVersion.
touch_pod() {
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":{\"metadata\":{\"labels\":{\"touched\":\"${2:-yes}\"}}}}" |
		sed -n 's/.*"resourceVersion": *"\([0-9]*\)".*/\1/p' | head -n1
}

# The checks name the DeltaFIFO's delta types (Replaced, Sync): client-go 1.32.
tui_start() { kinf_in_pane tui --client-go 1.32 "$@"; }

start_synced() {
	tui_start pods --kubeconfig "$SIM_KUBECONFIG" "$@"
	wait_synced 3
}

@test "tui: start-up lists the cache, the columns and the health pane" {
	start_synced
	screen_has 'context kube-sim'
	screen_has 'namespace default'
	screen_has '1:pods 3'
	screen_has 'NAME .*READY .*STATUS .*RV .*DELTA .*LAST'
	for p in alpha bravo charlie; do
		row_of $p | grep -q Replaced
	done
	# Initial-list deltas are marked in the log, the list in the health pane.
	screen_has 'Replaced(All)? +default/alpha .*initial'
	wait_screen 'state +watching'
	screen_has 'lists 1 '
}

@test "tui: an updated object changes on screen and is marked" {
	start_synced
	rv=$(touch_pod bravo)
	[ -n "$rv" ]
	wait_screen "^\* bravo .* $rv Updated"
	screen_has "Updated +default/bravo +rv $rv +watch"
	# The others stayed as they were.
	row_of alpha | grep -q Replaced
	# The mark lasts its three seconds, not for good.
	wait_screen "^  bravo .* $rv Updated" 6
}

@test "tui: a delete shows the row as gone, then drops it" {
	start_synced
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"charlie"}' >/dev/null
	wait_screen '^x charlie .*Deleted'
	screen_has '2 objects \(1 gone\)'
	wait_gone ' charlie ' 10
	screen_has ' 2 objects '
}

@test "tui: a forced 410 relist shows in the health pane and the log" {
	start_synced
	simctl POST /faults '{"verb":"watch","resource":"pods","kind":"410","count":1}' >/dev/null
	simctl POST /restart-watch-cache '{}' >/dev/null
	wait_screen 'relists 1 +410s [1-9]' 15
	screen_has 'watch-expired'
	wait_screen 'relisted: disconnected [0-9.]+ s: 3 listed' 15
	wait_screen 'state +watching' 15
}

@test "tui: / filters by substring and by label, Esc clears" {
	make_pod delta other >/dev/null
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 4
	keys / b r a
	wait_screen "filter 'bra': 1"
	screen_has ' bravo '
	screen_lacks ' alpha '
	keys Enter
	keys Escape
	wait_screen ' 4 objects  sort'
	keys / l : a p p = o t h e r Enter
	wait_screen "filter 'l:app=other': 1"
	row_of delta
	screen_lacks ' charlie '
	keys Escape
	wait_gone "filter '"
	screen_has ' charlie '
}

@test "tui: L sorts by LAST, S reverses" {
	start_synced
	# By name: alpha first.
	screen | sed -n 5p | grep -q ' alpha '
	touch_pod charlie >/dev/null
	wait_screen 'charlie .*Updated'
	keys L
	wait_screen 'sort LAST'
	# Most recent delta first.
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 5p | grep -q charlie" ||
		{ show_screen; false; }
	keys S
	wait_screen 'sort LAST (▼|desc)'
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 7p | grep -q charlie" ||
		{ show_screen; false; }
}

# A row off screen whose cell changes moves to its place in a sort by that
# column: its key kept for the sort (not its cells: it is not drawn) is
# made again by its delta.
@test "tui: sorted by STATUS, a row off screen whose status changes moves to its place" {
	local i
	for ((i = 10; i < 50; i++)); do
		make_pod "pod-$i" >/dev/null
	done
	TUI_LINES=24 tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 43
	keys '>' '>'
	wait_screen 'sort STATUS'
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 5p | grep -q ' alpha '" ||
		{ show_screen; false; }
	screen_lacks ' pod-49 '
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-49","patch":{"status":{"phase":"Failed"}}}' >/dev/null
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 5p | grep -q ' pod-49 .*Failed'" ||
		{ show_screen; false; }
	screen | sed -n 6p | grep -q ' alpha '
}

@test "tui: Enter shows the object, its history and the diff of its last update" {
	start_synced
	rv=$(touch_pod alpha)
	wait_screen "alpha .* $rv Updated"
	keys g Enter
	wait_screen "Pod default/alpha +rv $rv"
	screen_has 'Delta history: 2 since kinf started'
	screen_has 'Replaced(All)? .*initial list'
	screen_has "Updated +rv $rv .*watch"
	screen_has "Last update: rv [0-9]+ (→|->) $rv"
	screen_has "metadata.labels.touched: \\+ yes"
	screen_has '"name": "alpha"'
	keys Escape
	wait_screen 'NAME .*DELTA'
}

@test "tui: [ and ] step through an object's history, each step's diff and state" {
	start_synced
	local rv1 rv2 rv3
	rv1=$(touch_pod alpha one)
	wait_screen "alpha .* $rv1 Updated"
	rv2=$(touch_pod alpha two)
	wait_screen "alpha .* $rv2 Updated"
	rv3=$(touch_pod alpha three)
	wait_screen "alpha .* $rv3 Updated"
	keys g Enter
	wait_screen "Pod default/alpha +rv $rv3"
	screen_has 'Delta history: 4 since kinf started'
	screen_has "Last update: rv $rv2 (→|->) $rv3"
	screen_has 'metadata.labels.touched: two (→|->) three'
	# One step back: the second update, what it changed, as it left the pod.
	keys '['
	wait_screen "Step 3 of 4: Updated rv $rv1 (→|->) $rv2"
	screen_has 'metadata.labels.touched: one (→|->) two'
	screen_has 'Object \(Pod\), as this step left it'
	screen_has '"touched": "two"'
	screen_has "^> .*Updated +rv $rv2"
	keys '[' '['
	wait_screen 'Step 1 of 4: Replaced rv [0-9]+: the first state kept'
	keys ']' ']' ']'
	wait_screen "Last update: rv $rv2 (→|->) $rv3"
	screen_has '"touched": "three"'
}

@test "tui: --history 1 keeps one state; an older step says its state is gone" {
	start_synced --history 1
	local rv1
	rv1=$(touch_pod alpha one)
	wait_screen "alpha .* $rv1 Updated"
	keys g Enter
	wait_screen "Pod default/alpha +rv $rv1"
	keys '['
	wait_screen 'Step 1 of 2: Replaced rv [0-9]+: its state is no longer kept \(the newest 1 at most\)'
}

@test "tui: --history 0 keeps no state, not even the one the last update replaced" {
	start_synced --history 0
	local rv1
	rv1=$(touch_pod alpha one)
	wait_screen "alpha .* $rv1 Updated"
	keys g Enter
	wait_screen "Pod default/alpha +rv $rv1"
	screen_has "Step 2 of 2: Updated rv $rv1: no state is kept \(--history 0\)"
	screen_lacks 'Last update: rv'
	screen_has '"touched": "one"'
}

@test "tui: --history-size bounds the histories; the detail view says how many older deltas went" {
	start_synced -A --history-size 64Ki
	# 80 more pods, then about 70 updates each: past the 64Ki the rows'
	# histories may hold together, though below the 64 deltas a row keeps.
	simctl POST /churn '{"resource":"pods","count":80,"seed":3,"mix":{"add":1}}' >/dev/null
	wait_screen ' 83 objects'
	simctl POST /churn '{"resource":"pods","count":6000,"seed":3,"mix":{"update":1}}' >/dev/null
	keys / a l p h a Enter
	wait_screen "filter 'alpha': 1 "
	keys g Enter
	wait_screen 'Delta history: [0-9]+ since kinf started; [0-9]+ older deltas not kept'
	local line total dropped
	line=$(screen | grep -oE 'Delta history: [0-9]+ since kinf started; [0-9]+ older')
	total=$(echo "$line" | sed -E 's/.*history: ([0-9]+) since.*/\1/')
	dropped=$(echo "$line" | sed -E 's/.*started; ([0-9]+) older/\1/')
	# Fewer kept than the 64 a row's ring holds: the budget let them go.
	echo "total $total dropped $dropped" >&2
	[ "$dropped" -gt 0 ]
	[ $((total - dropped)) -lt 64 ]
	[ $((total - dropped)) -ge 1 ]
}

@test "tui: p pauses the display, holds and counts the deltas, p resumes" {
	start_synced
	keys p
	wait_screen 'PAUSED \(0 held\)'
	rv=$(touch_pod bravo)
	wait_screen 'PAUSED \(1 held\)'
	row_of bravo | grep -q Replaced
	screen_has 'held 1 \(paused\)'
	keys p
	wait_screen "bravo .* $rv Updated"
	wait_screen 'resumed: 1 held'
	screen_lacks PAUSED
}

@test "tui: r resyncs: Sync deltas for every cached object, one line that Enter opens" {
	start_synced
	keys r
	wait_screen 'resync of pods queued'
	wait_screen 'resyncs 1'
	wait_screen 'resync: 3 unchanged'
	row_of charlie | grep -q Sync
	keys Tab G
	cursor_up_to 'resync: 3 unchanged'
	keys Enter
	wait_screen 'Sync(All)? +default/alpha .*resync'
	screen_has 'Sync(All)? +default/charlie .*resync'
}

# 1.36's atomic FIFO queues a list as ReplacedAll, a resync as SyncAll:
# the informer pane counts them as --types does, with Replaced and Sync.
@test "tui: the informer pane counts 1.36's ReplacedAll with Replaced, its SyncAll with Sync" {
	TUI_LINES=50 kinf_in_pane tui pods --client-go 1.36 --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3
	wait_screen 'ReplacedAll +default/alpha .*initial'
	wait_screen 'Replaced 3  Sync 0'
	keys r
	wait_screen 'resyncs 1'
	wait_screen 'Replaced 3  Sync 3'
}

# one_column FILE REGEX — the lines of FILE have REGEX's match start at
# the same place (awk's match: its first column); at least two lines.
one_column() {
	awk -v re="$2" 'match($0, re) { at[RSTART] = 1; n++ }
		END { k = 0; for (a in at) k++; exit !(n >= 2 && k == 1) }' "$1" ||
		{ echo "# not one column for /$2/:" >&2; sed 's/^/# /' "$1" >&2; return 1; }
}

# 1.36's ReplacedAll is the widest type: the columns after it hold.
@test "tui: the delta pane's and the history's columns line up, ReplacedAll beside Updated" {
	TUI_LINES=50 kinf_in_pane tui pods --client-go 1.36 --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3
	local rv
	rv=$(touch_pod charlie)
	wait_screen "Updated +default/charlie +rv $rv"
	delta_pane | grep -E '^[0-9:.]+ +(ReplacedAll|Updated) ' >"$BATS_TEST_TMPDIR/deltas"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/deltas")" -eq 4 ]
	one_column "$BATS_TEST_TMPDIR/deltas" 'default/'
	one_column "$BATS_TEST_TMPDIR/deltas" ' rv [0-9]'
	one_column "$BATS_TEST_TMPDIR/deltas" '  (initial list|watch)'
	# The detail view's history: the initial list's, then the update's.
	keys / c h a r l i e Enter
	wait_screen "filter 'charlie': 1"
	keys g Enter
	wait_screen "Pod default/charlie +rv $rv"
	screen | grep -E '^[ >] [0-9:.]+ +(ReplacedAll|Updated) ' >"$BATS_TEST_TMPDIR/history"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/history")" -eq 2 ]
	one_column "$BATS_TEST_TMPDIR/history" 'rv [0-9]'
	one_column "$BATS_TEST_TMPDIR/history" '  (initial list|watch)'
}

@test "tui: follows a resize, down to 80x24 and back" {
	start_synced
	tmux -L "$TMUX_SOCK" resize-window -x 80 -y 24
	wait_until 5 sh -c "[ \$(tmux -L '$TMUX_SOCK' capture-pane -p | wc -l) -eq 24 ]"
	# The status line moves to the last line once kinf has redrawn.
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 24p | grep -q '^? help'" ||
		{ show_screen; false; }
	wait_screen '^ deltas .* informer'
	wait_screen 'NAME .*RV DELTA +LAST'
	[ "$(widest_line)" -le 80 ]
	tmux -L "$TMUX_SOCK" resize-window -x 140 -y 40
	wait_screen 'NAME .*AGE .*RV DELTA'
	[ "$(screen | grep -c ' deltas ')" = 1 ]
}

@test "tui: ? shows the keys, any key goes back" {
	start_synced
	keys '?'
	wait_screen 'l:app=web'
	keys G
	wait_screen 'pause / resume'
	keys Escape
	wait_screen 'NAME .*DELTA'
}

@test "tui: Tab moves to the log, Enter there opens that object" {
	start_synced
	touch_pod charlie >/dev/null
	wait_screen 'Updated +default/charlie'
	keys Tab G Enter
	wait_screen 'Pod default/charlie'
	keys Escape
	wait_screen 'deltas .* shown'
}

@test "tui: kinf watch --tui shows the same screen" {
	kinf_in_pane watch pods --tui --client-go 1.32 --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3
	wait_screen 'Replaced(All)? +default/alpha .*initial'
	keys q
	wait_screen 'kinf exited 0'
	assert_terminal_restored
}

@test "tui: q quits and leaves the terminal as it was" {
	start_synced
	keys q
	wait_screen 'kinf exited 0'
	assert_terminal_restored
	[ ! -s "$BATS_TEST_TMPDIR/stderr" ]
}

@test "tui: Ctrl-C ends it with status 130 and the terminal restored" {
	start_synced
	keys C-c
	wait_screen 'kinf exited 130'
	assert_terminal_restored
}

@test "tui: an unreachable server: one error line, status 1, terminal usable" {
	sed 's#server: https://[^ ]*#server: https://127.0.0.1:1#' "$SIM_KUBECONFIG" >"$BATS_TEST_TMPDIR/dead"
	tui_start pods --kubeconfig "$BATS_TEST_TMPDIR/dead"
	wait_screen 'kinf exited 1'
	assert_terminal_restored
	[ "$(wc -l <"$BATS_TEST_TMPDIR/stderr")" -eq 1 ]
	grep -q '^error: .*127.0.0.1:1' "$BATS_TEST_TMPDIR/stderr"
}

@test "tui: server errors after start show in the health pane; the informer recovers" {
	# Whether the informer lists or streams its list, its first two requests fail.
	simctl POST /faults '{"verb":"any","resource":"pods","kind":"500","count":2}' >/dev/null
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_screen 'errors [1-9]'
	screen_has 'error .* ago: '
	wait_synced 3 20
}

@test "tui: needs a terminal" {
	run "$KINF" tui pods --kubeconfig "$SIM_KUBECONFIG" </dev/null
	assert_status 1
	assert_output_contains 'needs a terminal'
}

@test "tui: V's LIST does not hold the screen: keys answer while it hangs, Esc cancels it" {
	TUI_COLS=120 TUI_LINES=40 start_synced
	# The informer's own lists are done: the next list of pods is V's.
	simctl POST /faults '{"verb":"list","resource":"pods","kind":"hang","seconds":60}' >/dev/null
	keys V
	wait_screen 'verifying pods'
	screen_has 'verify +under way'
	# The terminal thread answers meanwhile: help opens, and closes.
	keys '?'
	wait_screen 'l:app=web' 3
	keys Escape
	wait_screen 'NAME .*DELTA' 3
	screen_has 'verifying pods'
	# Esc gives up on the check; its hung LIST is ended, not waited for:
	# the next V runs at once.
	keys Escape
	wait_screen 'cancelled' 3
	screen_lacks 'verify +under way'
	simctl DELETE /faults >/dev/null
	keys V
	wait_screen 'verify +[0-9]+s ago: cache equals the server' 10
	keys q
	wait_screen 'kinf exited 0' 5
	assert_terminal_restored
}

@test "tui: :'s discovery does not hold the screen either: keys answer while it hangs, Esc cancels it" {
	# A first run fills kubectl's disk cache; a name it does not know
	# then makes discovery ask the server again.
	"$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" >/dev/null
	TUI_COLS=120 TUI_LINES=40 start_synced
	simctl POST /faults '{"verb":"discovery","kind":"hang","seconds":60}' >/dev/null
	keys : n o p e Enter
	wait_screen 'resolving nope'
	keys '?'
	wait_screen 'l:app=web' 3
	keys Escape
	wait_screen 'NAME .*DELTA' 3
	keys Escape
	wait_screen 'cancelled' 3
	screen_lacks 'resolving nope'
	simctl DELETE /faults >/dev/null
	keys : n o p e Enter
	wait_screen "doesn't have a resource type 'nope'" 10
	keys Escape q
	wait_screen 'kinf exited 0' 5
}
