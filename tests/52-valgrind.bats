#!/usr/bin/env bats
# valgrind memcheck over whole sessions against the simulator: a watch
# that lists, watches, relists after a 410 and resyncs, ended by SIGINT;
# a flight recorder whose list leaves its window (the processor's
# snapshots of the cache its starting point) and a SIGUSR1 dump; `get`
# whose types fail part way; a TUI session with a detail view, ended by
# q; a watch over HTTP/2 whose quiet connection gets PING frames (written
# through the connection's OpenSSL session), then freezes and is
# replaced.  Zero errors, and nothing definitely, indirectly or possibly
# lost.  `make valgrind` runs this file
# alone; make check runs it too (about a minute of a quiet machine's time).

load test_helper
load h2_helper

KINF_PID=

setup() {
	command -v valgrind >/dev/null || skip "valgrind is not installed (make deps)"
	# a sanitizer's runtime and valgrind cannot share a process: that
	# build checks itself (make SANITIZE=... check)
	if nm -D "$KINF" 2>/dev/null | grep -q '__asan_init\|__tsan_init'; then
		skip "kinf is built with a sanitizer"
	fi
	B=$BATS_TEST_TMPDIR
	TMUX_SOCK="kinf-vg-$$-${BATS_TEST_NUMBER}"
	sim_start --pods 30 --bookmark-interval 1
}

teardown() {
	kinf_stop
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	h2_stop
	sim_stop
}

VALGRIND=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
	--show-leak-kinds=definite,indirect,possible
	--errors-for-leak-kinds=definite,indirect,possible
	--num-callers=30)

# Whether file stays the same size for a second: the output has caught up.
output_quiet() {
	local before
	before=$(stat -c %s "$1")
	sleep 1
	[ "$(stat -c %s "$1")" = "$before" ]
}

# Ends the kinf under valgrind with SIGINT; fails, saying why, unless it
# exits 130 as an interrupted kinf does.
interrupted() {
	kill -INT "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	[ "$rc" -eq 130 ] || { echo "# exit $rc" >&2; tail -5 "$B/err" >&2; clean_report "$B/vg.log"; return 1; }
}

# The report is clean: no error and no leak summary line with bytes lost.
clean_report() {
	if ! grep -q 'ERROR SUMMARY: 0 errors' "$1"; then
		grep -A30 -m3 '^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|definitely\|indirectly\|possibly\)' "$1" |
			sed 's/^/# /' | head -120 >&2
		grep 'ERROR SUMMARY\|lost:' "$1" | sed 's/^/# /' >&2
		return 1
	fi
}

@test "valgrind: watch with churn, a 410 relist and resyncs, ended by SIGINT" {
	"${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" watch pods -A -o json --diff \
		--resync 2s --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 120 grep -q synced "$B/err"
	simctl POST /churn '{"resource":"pods","count":60,"seed":3}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410"}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 60 grep -q 'relist #1' "$B/err"
	wait_until 60 grep -qE '"type":"Sync(All)?"' "$B/out"
	interrupted
	clean_report "$B/vg.log"
}

@test "valgrind: watch --record under a 410, then its replay to the end" {
	"${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" watch pods -o json --record "$B/r.rec" \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 120 grep -q synced "$B/err"
	watch_settled 60
	simctl POST /churn '{"resource":"pods","count":20,"seed":4}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410"}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 60 grep -q 'relist #1' "$B/err"
	# the relist's deltas printed (the replay goes to the end of what was
	# recorded, the live run only as far as it printed when interrupted)
	watch_settled 60
	wait_until 60 output_quiet "$B/out"
	interrupted
	clean_report "$B/vg.log"
	"${VALGRIND[@]}" --log-file="$B/vg2.log" "$KINF" replay "$B/r.rec" -o json >"$B/replayed" 2>"$B/err2"
	clean_report "$B/vg2.log"
	diff <(jq -c 'del(.time)' "$B/out") <(jq -c 'del(.time)' "$B/replayed")
}

@test "valgrind: watch --flight-recorder, its list left behind for a snapshot of the cache, a SIGUSR1 dump" {
	mkdir -p "$B/dumps"
	"${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" watch pods -A -o json --flight-recorder 2s \
		--flight-tail 0s --flight-dir "$B/dumps" --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 120 grep -q synced "$B/err"
	simctl POST /churn '{"resource":"pods","rate":10,"duration":6,"seed":5}' >/dev/null
	sleep 5	# the list and the churn's first seconds leave the window: a snapshot covers them
	kill -USR1 "$KINF_PID"
	wait_until 60 compgen -G "$B/dumps/kinf-*-signal.rec.gz"
	interrupted
	clean_report "$B/vg.log"
	# the dump starts from the snapshot the processor took, and replays
	zcat "$B"/dumps/kinf-*-signal.rec.gz | jq -s -e 'map(select(has("stream"))) | .[0].reconstructed == true' >/dev/null
	"$KINF" replay "$B"/dumps/kinf-*-signal.rec.gz -o json >"$B/replayed" 2>"$B/err2"
}

@test "valgrind: get whose last type fails mid-page, and a table on a continue page" {
	# a failed type keeps the pages before the bad one: each path frees the rest
	local run fault args
	for run in "list truncate|-o name" "list-continue 500|--chunk-size 10"; do
		fault=${run%%|*} args=${run#*|}
		simctl POST /faults "{\"verb\":\"${fault% *}\",\"kind\":\"${fault#* }\",\"resource\":\"pods\"}" >/dev/null
		run "${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" get configmaps,pods $args \
			--kubeconfig "$SIM_KUBECONFIG"
		assert_status 1
		clean_report "$B/vg.log"
	done
}

@test "valgrind: tui with updates, the detail view and a filter, ended by q" {
	command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
	local cmd
	printf -v cmd '%q ' "${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" tui pods,deployments \
		--kubeconfig "$SIM_KUBECONFIG"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 40 \
		"$cmd 2>'$B/err'; echo \"kinf exited \$?\"; sleep 600"
	screen_has() { tmux -L "$TMUX_SOCK" capture-pane -p | grep -qE -- "$1"; }
	wait_until 120 screen_has ' 30 objects .*synced rv '
	simctl POST /churn '{"resource":"pods","count":40,"seed":5}' >/dev/null
	tmux -L "$TMUX_SOCK" send-keys g Enter
	wait_until 30 screen_has 'Delta history'
	tmux -L "$TMUX_SOCK" send-keys Escape / l : a p p = w e b Enter
	wait_until 30 screen_has 'app=web'
	tmux -L "$TMUX_SOCK" send-keys q
	wait_until 60 screen_has 'kinf exited'
	screen_has 'kinf exited 0' || { tmux -L "$TMUX_SOCK" capture-pane -p | sed 's/^/# /' >&2; return 1; }
	clean_report "$B/vg.log"
}

@test "valgrind: a watch over HTTP/2, its quiet connection pinged, then frozen and replaced" {
	# Quiet means no bookmark either: setup's come every second, as often
	# as the read-idle period below, and would keep any ping from falling due.
	sim_stop
	sim_start --pods 30
	h2_start
	# -v -v: libcurl's TLS trace callback is set, and must ignore the PINGs' records.
	HTTP2_READ_IDLE_TIMEOUT_SECONDS=1 HTTP2_PING_TIMEOUT_SECONDS=3 \
		"${VALGRIND[@]}" --log-file="$B/vg.log" "$KINF" watch pods -v -v \
		--kubeconfig "$H2_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 120 grep -q synced "$B/err"
	wait_until 30 bash -c "[ \$(grep -c 'ping answered' '$B/err') -ge 2 ]"
	kill -STOP "$H2_PID"
	wait_until 30 grep -q 'after a ping: closing it' "$B/err"
	kill -CONT "$H2_PID"
	wait_until 60 bash -c "[ \$(grep -c 'ping answered' '$B/err') -ge 3 ]"
	interrupted
	clean_report "$B/vg.log"
}
