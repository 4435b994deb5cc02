# tui_helper.bash — driving kinf's TUI in tmux, for the tests/4N-tui*.bats
# files (`load tui_helper` after test_helper): kinf runs in a detached
# pane, keys go in with send-keys, the screen comes back with capture-pane.
# Every wait is a bounded poll of the screen.  The file's setup() sets
# TMUX_SOCK; its teardown() kills that tmux server.

# tui_start [kinf tui args...] — runs `kinf tui ARGS` in a 100x30 pane.
# When kinf ends the pane says "kinf exited N" and keeps its screen.
tui_start() { kinf_in_pane tui "$@"; }

# kinf_in_pane [kinf args...]
kinf_in_pane() {
	command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
	local cmd
	printf -v cmd '%q ' "$KINF" "$@"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x "${TUI_COLS:-100}" -y "${TUI_LINES:-30}" \
		"$cmd 2>'$BATS_TEST_TMPDIR/stderr'; echo \"kinf exited \$?\"; sleep 600"
}

screen() { tmux -L "$TMUX_SOCK" capture-pane -p; }
screen_has() { screen | grep -qE -- "$1"; }
screen_lacks() { ! screen | grep -qE -- "$1"; }
keys() { tmux -L "$TMUX_SOCK" send-keys "$@"; }
pane() { tmux -L "$TMUX_SOCK" display-message -p "$1"; }

show_screen() {
	echo "# screen:" >&2
	screen | sed 's/^/# /' >&2
}

# wait_screen REGEX [SECONDS] — until the screen shows REGEX.  The
# bound (default 30 s) only ends a wait that failed: a passing one ends
# when the screen does, and a loaded machine (CI's) may take its time.
wait_screen() {
	wait_until "${2:-30}" screen_has "$1" || { show_screen; return 1; }
}

# wait_synced [COUNT] [SECONDS] — until the table's title says COUNT
# objects (any count without one) and synced.  The title's own words:
# the delta pane's "listed: 3 objects" sits beside the informer pane's
# "not synced" on one screen line.
wait_synced() { wait_screen " ${1:-[0-9]+} objects? .*synced rv " "${2:-30}"; }

# wait_gone REGEX [SECONDS] — until the screen no longer shows REGEX.
wait_gone() {
	wait_until "${2:-30}" screen_lacks "$1" || { show_screen; return 1; }
}

# The pane's terminal is back to normal: main screen, cursor shown.
assert_terminal_restored() {
	[ "$(pane '#{alternate_on}')" = 0 ] || { echo "# still on the alternate screen" >&2; return 1; }
	[ "$(pane '#{cursor_flag}')" = 1 ] || { echo "# cursor still hidden" >&2; return 1; }
}

# The table line of one pod (the table is above the log's title).
row_of() { screen | sed '/ deltas /q' | grep -E -- " $1 "; }

# The delta pane (from its title down), cut to its width (the informer's
# pane is to its right).
delta_pane() {
	local line w=
	while IFS= read -r line; do
		if [ -z "$w" ]; then
			case $line in
			" deltas "*" informer"*) w=${line%" informer"*}; w=${#w} ;;
			*) continue ;;
			esac
		fi
		printf '%s\n' "${line:0:w}"
	done < <(screen)
}

# The delta pane's line under the cursor (drawn in reverse video; its
# lines start with the time).
cursor_line() {
	tmux -L "$TMUX_SOCK" capture-pane -e -p | grep -a $'\e\\[[0-9;]*7m' |
		sed 's/\x1b\[[0-9;]*m//g' | grep -E '^[0-9]{2}:[0-9]{2}:' | head -n1
}

# The widest screen line, in characters.
widest_line() {
	local line max=0
	while IFS= read -r line; do
		[ ${#line} -gt $max ] && max=${#line}
	done < <(screen)
	echo "$max"
}


# cursor_up_to REGEX [TRIES] — presses k until the delta pane's cursor
# line matches.
cursor_up_to() {
	local i before
	for ((i = 0; i < ${2:-40}; i++)); do
		cursor_line | grep -qE -- "$1" && return 0
		before=$(cursor_line)
		keys k
		wait_until 2 cursor_moved_from "$before" 2>/dev/null || true
	done
	cursor_line | grep -qE -- "$1" || { show_screen; return 1; }
}
cursor_moved_from() { [ "$(cursor_line)" != "$1" ]; }
