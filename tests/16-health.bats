#!/usr/bin/env bats
# Watch health: is the watch alive, or only quiet?  What kinf says about
# a watch (how long it lived, what it carried), a list that takes long, a
# resourceVersion that goes back, and what the TUI's health pane and tab
# show.

load test_helper
load tui_helper

setup() {
	TMUX_SOCK="kinf-health-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	kinf_stop
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" "$@"; }

@test "a watch's end says how long it lived and how many events it carried" {
	sim_start --pods 2
	start_watch pods --client-go 1.32
	wait_until 20 file_has "$ERR" synced
	watch_settled
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	wait_until 10 bash -c "[ \$(grep -c Updated '$OUT') -ge 2 ]"
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 10 file_has "$ERR" 'watch ended'
	grep -qE '^kinf: pods: watch ended by server after [0-9]+\.[0-9] s and 2 events, re-watching from rv [0-9]+$' "$ERR"
}

@test "a resourceVersion that goes back on the watch is a warning, and counted" {
	sim_start --pods 3
	TUI_COLS=120 TUI_LINES=40 tui_start pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32
	wait_synced 3 20
	wait_screen 'rv back 0' 10
	wait_until 10 watching
	sleep 1.1
	simctl POST /faults '{"verb":"watch","kind":"rvback","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 10 watching
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	wait_screen 'rv back 1' 15
	# The tab says the informer needs a look.
	screen_has '1:pods 3 !'
	wait_screen 'resourceVersion went back on the watch' 5
	keys q
	wait_screen 'kinf exited 0' 10
}

@test "health pane: the open watch's age and timeout, the last event and bookmark, the backlog" {
	sim_start --pods 3 --bookmark-interval 1
	TUI_COLS=120 TUI_LINES=40 tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3 20
	wait_screen 'watch +open [0-9]+s +of [0-9]+s' 10
	wait_screen 'bookmark [0-9]+s ago +every [0-9]+s' 10
	screen_has 'event +- '
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	wait_screen 'event +[0-9]+s ago' 10
	screen_has 'short watches 0 +rv back 0'
	screen_has 'backlog +0'
	# Not healthy: backing off.  The tab says so.
	simctl POST /faults '{"verb":"watch","kind":"500","count":20}' >/dev/null
	simctl POST /faults '{"verb":"list","kind":"500","count":20}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_screen '1:pods [0-9]+ !' 15
	keys q
	wait_screen 'kinf exited 0' 10
}

@test "a list that takes long says so every 10 s, with what it has so far" {
	sim_start --pods 20
	simctl POST /faults '{"verb":"list","kind":"drip","count":1,"seconds":12}' >/dev/null
	start_watch pods --streaming-list=false
	wait_until 30 file_has "$ERR" synced
	grep -qE '^kinf: pods: warning: still listing after 10s: [0-9]+ objects so far, page 1$' "$ERR"
	[ "$(grep -c 'still listing' "$ERR")" -eq 1 ]
}

@test "watch --health-every: the health pane's figures as notices, none with -q" {
	sim_start --pods 2
	start_watch pods --client-go 1.32 --health-every 1s
	wait_until 20 file_has "$ERR" synced
	watch_settled
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	simctl POST /bookmark >/dev/null
	timeout=$(simctl GET '/requests?verb=watch&resource=pods' | jq -r '.[-1].query.timeoutSeconds')
	wait_until 10 file_has "$ERR" 'health: .*last event [0-9]+s ago, last bookmark [0-9]+s ago'
	line=$(grep 'health: .*last bookmark [0-9]' "$ERR" | tail -1)
	[[ $line =~ ^kinf:\ pods:\ health:\ watching,\ watch\ open\ [0-9]+s\ of\ ${timeout}s,\ last\ event\ [0-9]+s\ ago,\ last\ bookmark\ [0-9]+s\ ago,\ 0\ very\ short\ watches,\ 0\ rv\ back,\ backlog\ 0$ ]]
	# about once a second, not more
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	n=$(grep -c 'health:' "$ERR")
	[ "$n" -ge 2 ]
	# -q: none; without the flag or -v: none
	start_watch pods -q --health-every 1s
	sleep 2.5
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	! grep -q health "$ERR" || false
	start_watch pods
	wait_until 20 file_has "$ERR" synced
	sleep 1.5
	! grep -q health "$ERR"
}

@test "health pane: a watch without event or bookmark past --stall-timeout is flagged, and nothing is done" {
	sim_start --pods 2 --bookmark-interval 3600
	TUI_COLS=160 TUI_LINES=40 tui_start pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --stall-timeout 2s
	wait_synced 2 20
	wait_screen 'silent +no event or bookmark for 2 s' 10
	[ "$(simctl GET '/requests?verb=watch' | jq length)" -eq 1 ]
	keys q
	wait_screen 'kinf exited 0' 10
}
