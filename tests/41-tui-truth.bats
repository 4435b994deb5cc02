#!/usr/bin/env bats
# kinf tui never shows a wrong number: what does not fit is dropped whole
# or ends in an ellipsis, errors wrap at words, the help says when more
# follows; a relist's unchanged objects are one line that buries nothing;
# the `/` filter narrows the delta pane too and starts afresh each time.

bats_require_minimum_version 1.5.0

load test_helper
load tui_helper

setup() {
	TMUX_SOCK="kinf-tui-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

make_pod() {
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"$1\",\"namespace\":\"default\",\"labels\":{\"app\":\"tui\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}"
}

touch_pod() {
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}}" >/dev/null
}

# The screen, deltas/s at 10 or more and "cached 1000" whole on it at once:
# the line they share is wider than the 80x24 health pane then.
busy_and_whole() {
	local s
	s=$(screen)
	grep -qE 'deltas/s [1-9][0-9]+\.' <<<"$s" && grep -qE 'cached 1000( |$)' <<<"$s"
}

@test "tui: at 80x24 no number or word is cut, in the health pane or the delta lines" {
	sim_start --pods 1000 --namespaces 3
	TUI_COLS=80 TUI_LINES=24 tui_start pods -A --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 1000 30
	# While the rate is high, "cached 1000" went on a line of its own.
	wait_until 10 busy_and_whole || { show_screen; false; }
	# The delta lines: the origin of a delta is there whole, or not at all.
	delta_pane | grep -E ' rv [0-9]+' | sed 's/ *$//' >"$BATS_TEST_TMPDIR/lines"
	[ -s "$BATS_TEST_TMPDIR/lines" ]
	if grep -E ' rv [0-9]+  ' "$BATS_TEST_TMPDIR/lines" |
		grep -vE ' rv [0-9]+  (initial list|watch|resync|relist [0-9]+.*)$'; then
		show_screen
		false
	fi
	[ "$(widest_line)" -le 80 ]
}

# The names in the table's rows, top to bottom.
table_names() { screen | sed -n '5,/ deltas /p' | grep -oE ' pod-[0-9]+ ' | tr -d ' '; }

# 5,000 pods: past the table's page threshold (4,096).  The sort and the
# filter come in one read, so that they are made together: the filter's
# flags, then a page of the rows it shows (tui_table.c's struct pending),
# the rest of the order in the loop's idle slices (milliseconds at this
# size: the page itself is checked by test_tui_table).  What stays on
# screen has the server's count and only matching rows, and the same rows
# once the cursor moved.
@test "tui: a filter typed with a new sort at 5000 pods: the exact count, the order's first matching rows" {
	sim_start --pods 5000 --namespaces 3
	tui_start pods -A --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 5000 60
	local want
	want=$("$KINF" get pods -A --kubeconfig "$SIM_KUBECONFIG" -o name | grep -c 'pod-12')
	[ "$want" -gt 30 ]
	# One write: the sort and the filter reach the TUI before its next frame.
	keys -l 's/pod-12'
	wait_screen "filter 'pod-12': $want  sort NAME" 10
	table_names >"$BATS_TEST_TMPDIR/page"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/page")" -ge 10 ] || { show_screen; false; }
	run ! grep -v 'pod-12' "$BATS_TEST_TMPDIR/page"
	# The order built since (the cursor moved, it is built at once if it
	# was not yet): the same rows on top, the same count.
	keys Enter
	wait_gone 'filter \(regex'
	keys j k
	wait_screen "filter 'pod-12': $want  sort NAME"
	table_names >"$BATS_TEST_TMPDIR/built"
	diff "$BATS_TEST_TMPDIR/page" "$BATS_TEST_TMPDIR/built"
	# Esc, then the order reversed and a filter typed with it: the count
	# is the namespace's.
	keys Escape
	wait_gone "filter '"
	keys -l 'S/ns-1/'
	wait_screen "filter 'ns-1/': [0-9]+  sort NAME" 10
	screen | grep -oE "filter 'ns-1/': [0-9]+" >"$BATS_TEST_TMPDIR/count"
	want=$("$KINF" get pods -n ns-1 --kubeconfig "$SIM_KUBECONFIG" -o name | wc -l)
	grep -q ": $want\$" "$BATS_TEST_TMPDIR/count" || { show_screen; false; }
}

# smaps_rollup's member $2 of process $1, in kB.
smaps_kb() { sed -n "s/^$2: *\([0-9]*\) kB/\1/p" "/proc/$1/smaps_rollup"; }

# The cache in huge pages (lib/hugemem.h), from the first key: a filter or
# a sort then reads 40,000 objects in a few pages, not thousands.  Only
# what was all there is made one: the resident size does not grow.
@test "tui: from the first key the cache is in huge pages, and no memory is added" {
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		skip "transparent huge pages are off here"
	[ "$(printf '6.1\n%s\n' "$(uname -r)" | sort -V | head -n1)" = 6.1 ] ||
		skip "a kernel before 6.1 has no MADV_COLLAPSE"
	sim_start --pods 40000 --namespaces 3
	tui_start pods -A --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 40000 60
	local pid huge0 rss0
	pid=$(pgrep -P "$(pane '#{pane_pid}')" -x kinf)
	[ -n "$pid" ]
	sleep 1
	huge0=$(smaps_kb "$pid" AnonHugePages)
	rss0=$(smaps_kb "$pid" Rss)
	# No key yet: nothing made.  j reads no scratch buffer (a sort would).
	sleep 2
	[ "$(smaps_kb "$pid" AnonHugePages)" -eq "$huge0" ]
	keys j
	wait_until 10 eval '[ "$(smaps_kb "$pid" AnonHugePages)" -ge $((huge0 + 8192)) ]' ||
		{ grep -E 'Rss|AnonHuge' "/proc/$pid/smaps_rollup" >&2; false; }
	local rss1
	rss1=$(smaps_kb "$pid" Rss)
	[ "$rss1" -le $((rss0 + 1024)) ] || { echo "# RSS $rss0 kB, then $rss1 kB" >&2; false; }
}

@test "tui: an error wraps at word boundaries in the health pane" {
	sim_start --pods 3 --namespaces 0
	simctl POST /faults '{"verb":"any","resource":"pods","kind":"500","count":2}' >/dev/null
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_screen 'error .* ago: '
	# The pane's lines from the error on, joined: the message as it was.
	local w text
	w=$(screen | sed -n 's/^\( deltas .*\) informer.*/\1/p')
	w=${#w}
	text=$(screen | sed -n '/ deltas /,$p' | while IFS= read -r line; do
		printf '%s\n' "${line:w}"; done | sed -n '/^ *error .* ago: /,$p' | sed 's/^ *//' |
		tr '\n' ' ')
	[[ $text =~ (list|watch)\ pods:\ Internal\ error\ occurred:\ injected\ fault ]] ||
		{ echo "# health pane text: $text" >&2; show_screen; false; }
}

# The informer pane's lines from the error on (each from the pane's
# column on), as far as its next line or the pane's bottom.
error_lines() {
	local w line
	w=$(screen | sed -n 's/^\( deltas .*\) informer.*/\1/p')
	w=${#w}
	screen | sed -n '/ deltas /,$p' | sed '$d' | while IFS= read -r line; do
		printf '%s\n' "${line:w}"; done | sed 's/^ *//; s/ *$//' |
		awk '/^error [^ ]+ ago: /{on=1} on && /^(watch|silent) /{exit} on'
}

# The error is there whole, or its last line on screen ends in the mark.
error_whole_or_marked() {
	local text
	text=$(error_lines | tr '\n' ' ' | sed 's/ *$//')
	[[ $text == 'error '* ]] &&
		[[ $text == *'(403); retrying as client-go does' || $text == *'…' ]]
}

# The viewer's 403 names the user, the verb, the resource, the group and
# the namespace: longer than the pane's lines for it, or than the pane.
@test "tui: an error cut by its lines or by the pane's bottom ends in …" {
	sim_start --pods 3 --namespaces 0
	TUI_COLS=200 TUI_LINES=40 tui_start pods --kubeconfig "$SIM_KUBECONFIG.viewer"
	wait_screen 'error .* ago: '
	wait_until 5 error_whole_or_marked || { error_lines >&2; show_screen; false; }
	# 100x24: the error starts on the pane's last line, above the status line.
	tmux -L "$TMUX_SOCK" resize-window -x 100 -y 24
	wait_until 5 sh -c "tmux -L '$TMUX_SOCK' capture-pane -p | sed -n 23p | grep -q 'error .* ago: '" ||
		{ show_screen; false; }
	wait_until 5 error_whole_or_marked || { error_lines >&2; show_screen; false; }
}

# The status line's message is kept in 256 bytes: a longer one (here the
# error about a 250-letter name) ends in the mark on the widest screen.
@test "tui: a status line message longer than kinf keeps ends in …" {
	sim_start --pods 1 --namespaces 0
	TUI_COLS=320 tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' 1 object.*synced'
	keys :
	keys -l "$(printf 'z%.0s' {1..250})"
	keys Enter
	wait_screen "^the server doesn't have a resource type 'z+…\$"
}

@test "tui: the help screen says when more keys follow below" {
	sim_start --pods 1 --namespaces 0
	TUI_COLS=80 TUI_LINES=24 tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_screen ' 1 object.*synced'
	keys '?'
	wait_screen 'more below'
	screen_has 'keys .* 1-[0-9]+ of [0-9]+'
	# PgDn turns a page, as everywhere: the last line shown comes first.
	local last
	last=$(screen | grep -oE ' 1-[0-9]+ of ' | grep -oE -- '-[0-9]+' | tr -d -)
	[ "$last" -gt 12 ] || { show_screen; false; }
	keys NPage
	wait_screen "keys .* $last-[0-9]+ of [0-9]+"
	keys PPage
	wait_screen 'keys .* 1-[0-9]+ of [0-9]+'
	keys G
	wait_gone 'more below'
	screen_has 'q +quit'
}

@test "tui: a relist's unchanged objects are one line that Enter opens; the tombstone stays in view" {
	sim_start --pods 300 --namespaces 0
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 300 20
	# A resync first: one line for its 300 Sync deltas.
	keys r
	wait_screen 'resync: 300 unchanged'
	# The watch ends and the next one gets 410: a relist.  Its first
	# request (a list, or a streaming list) hangs, so that the delete
	# below is seen by the relist only: pod-150 goes as a tombstone.
	simctl POST /faults '{"faults":[{"verb":"watch","resource":"pods","kind":"410","count":1},
		{"verb":"any","resource":"pods","kind":"hang","seconds":2,"count":1}]}' >/dev/null
	simctl POST /restart-watch-cache '{"resource":"pods"}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-150"}' >/dev/null
	wait_screen 'relist #[0-9]+: 299 unchanged' 20
	# (A tombstone's delta: Deleted, or ReplacedAll from an atomic FIFO.)
	wait_screen '(Deleted|ReplacedAll) +default/pod-150 .*tombstone' 5
	delta_pane | grep -qE 'relist #[0-9]+: 299 unchanged'
	delta_pane | grep -qE '(Deleted|ReplacedAll) +default/pod-150 .*tombstone'
	screen_lacks 'Replaced(All)? +default/pod-[0-9]+ .*unchanged'
	# Enter shows them, Enter again hides them.
	keys Tab G
	cursor_up_to 'relist #[0-9]+: 299 unchanged'
	keys Enter
	wait_screen 'relist #[0-9]+: 299 unchanged'
	wait_screen '^[0-9:.]+ +Replaced(All)? +default/pod-0 +rv [0-9]+'
	keys Enter
	wait_gone 'Replaced(All)? +default/pod-0 +rv'
	screen_has 'relist #[0-9]+: 299 unchanged'
}

@test "tui: / filters the delta pane too" {
	sim_start --pods 0 --namespaces 0
	for p in alpha bravo charlie; do make_pod "$p" >/dev/null; done
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3
	touch_pod bravo
	wait_screen 'Updated +default/bravo'
	delta_pane | grep -q 'default/alpha'
	keys / b r a
	wait_screen "filter 'bra': 1"
	wait_until 5 sh -c '! tmux -L "$0" capture-pane -p | grep -qE "Replaced(All)? +default/alpha"' "$TMUX_SOCK" ||
		{ show_screen; false; }
	delta_pane | grep -qE 'Replaced(All)? +default/bravo'
	delta_pane | grep -qE 'Updated +default/bravo'
	# The informer's own lines stay.
	delta_pane | grep -q -- '-- synced'
	keys Escape
	keys Escape
	wait_gone "filter '"
	wait_screen 'Replaced(All)? +default/alpha'
}

@test "tui: / after a filter starts a new one; Esc puts the old one back" {
	sim_start --pods 0 --namespaces 0
	for p in alpha bravo charlie; do make_pod "$p" >/dev/null; done
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3
	keys / b r a Enter
	wait_screen "filter 'bra': 1"
	keys / c h a
	wait_screen "filter 'cha': 1"
	screen_lacks 'bracha'
	screen_has ' charlie '
	keys Escape
	wait_screen "filter 'bra': 1"
	screen_has ' bravo '
}

@test "tui: the title and the informer pane say synced in the frame that shows the delta pane's synced" {
	sim_start --pods 0 --namespaces 0
	for p in alpha bravo charlie; do make_pod "$p" >/dev/null; done
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	# The first screen that shows the delta pane's "-- synced": its title
	# and its informer pane say so too.
	local s=
	first_synced() { s=$(screen); [[ $s == *"-- synced"* ]]; }
	on_it() { grep -qE -- "$1" <<<"$s" || { printf '# %s\n' "$s" >&2; false; }; }
	wait_until 30 first_synced || { show_screen; false; }
	on_it '^ pods  3 objects .* synced rv [0-9]+ *$'
	on_it ' rv +[0-9]+ +synced *$'
	on_it ' cached 3 *$'
	run ! grep -q 'not synced' <<<"$s"
}
