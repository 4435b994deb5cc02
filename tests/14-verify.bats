#!/usr/bin/env bats
# `kinf verify` and `kinf watch --verify-every`: an informer's cache
# against a quorum LIST.  kube-sim's POST /silent makes a change no watch
# hears of (a lost event): only a running informer can miss it, so the
# divergences are made under `watch --verify-every`; the standalone command
# is checked for the equal case, its report, its exit statuses and for no
# false alarm while the cluster churns.

load test_helper
load tui_helper
bats_require_minimum_version 1.5.0

setup() {
	TMUX_SOCK="kinf-verify-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	stop_watch
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop 2>/dev/null || true
}

verify() { "$KINF" verify --kubeconfig "$SIM_KUBECONFIG" "$@"; }

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" "$@"; }

stop_watch() { kinf_stop; }

# The Verify records of RESOURCE in $OUT, one per line.
verify_records() { jq -c --arg r "$1" 'select(.type == "Verify" and .resource == $r)' "$OUT"; }
verified() { [ "$(verify_records "$1" | wc -l)" -ge "${2:-1}" ]; }
# The last Verify record of RESOURCE reports the three silent changes.
found_silent() {
	verify_records configmaps | tail -1 | jq -e '
		(.missing | map(.key)) == ["default/silent-new"] and
		(.extra | map(.key)) == ["default/victim"] and
		(.stale | map(.key)) == ["default/app-config"]' >/dev/null
}

@test "verify: its LIST asks for metadata only; the reflector's LIST does not" {
	sim_start --pods 12 --namespaces 1
	# 1.28's reflector LISTs (newer ones stream the list in a watch)
	run --separate-stderr verify pods -A --client-go 1.28
	assert_status 0
	local lists=$BATS_TEST_TMPDIR/lists
	simctl GET '/requests?verb=list' >"$lists"
	# the quorum LIST (no resourceVersion) asks as a metadata informer does
	jq -e '[.[] | select(.query | has("resourceVersion") | not)] | length == 1 and
		all(.[]; .headers.Accept == "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")' "$lists"
	# the reflector's (at resourceVersion 0) asks as client-go does
	jq -e '[.[] | select(.query.resourceVersion == "0")] | length == 1 and
		all(.[]; .headers.Accept == "application/json")' "$lists"
}

# A LIST that outlives its continue token (a busy server's compaction):
# as client-go's pager does, one LIST with no limit, and the pages that
# came before are forgotten, not counted twice.
@test "verify: a continue token that expired mid-LIST: one full LIST, the same answer" {
	sim_start --pods 1200 --namespaces 2
	simctl POST /faults '{"verb":"list-continue","kind":"410","count":1}' >/dev/null
	# the newest client-go streams its list in a watch: the fault is the verify's
	run --separate-stderr verify pods -A
	assert_status 0
	[[ $output =~ ^pods:\ cache\ equals\ the\ server\ \(1200\ objects\ at\ rv\ [0-9]+\)$ ]] ||
		{ echo "# output: $output, stderr: $stderr" >&2; false; }
	# the first page, its continue (410), then one LIST with neither limit nor continue
	simctl GET '/requests?verb=list' | jq -e '
		map(select(.query | has("resourceVersion") | not) | .query) |
		length == 3 and (.[0].limit == "500") and (.[1] | has("continue")) and
		(.[2] | has("limit") or has("continue") | not)' >/dev/null ||
		{ simctl GET '/requests?verb=list' | jq -c '.[].query' >&2; false; }
}

@test "verify: a synced cache equals the server: status 0, one line" {
	sim_start --pods 12 --namespaces 1
	run --separate-stderr verify pods -A
	assert_status 0
	[[ $output =~ ^pods:\ cache\ equals\ the\ server\ \(12\ objects\ at\ rv\ [0-9]+\)$ ]]
	[ -z "$stderr" ]
	run --separate-stderr verify pods -n ns-1 --client-go 1.28
	assert_status 0
	[[ $output =~ \(6\ objects\ at ]]
}

# The simulator's churn has made a change.
churned() { [ "$(simctl GET /churn | jq .done)" -gt 0 ]; }

@test "verify: a cache equal to the list is told at once, though writes to other types carried the list's rv past the informer" {
	# The rv is the whole server's: pods' churn moves it, and only a
	# bookmark (an hour away here) would bring the configmaps' informer up
	# to it.  The lag wait is an hour: a verify that waited it would hang
	# until timeout kills it.
	# client-go 1.28 lists at resourceVersion 0, from the watch cache.
	sim_start --pods 20 --bookmark-interval 3600 --watch-cache-rv
	simctl POST /churn '{"resource":"pods","rate":20,"duration":0,"mix":{"add":1,"update":3,"delete":1},"graceful":false}' >/dev/null
	wait_until 30 churned
	run --separate-stderr timeout 120 "$KINF" verify configmaps -A --client-go 1.28 --lag-wait 1h --kubeconfig "$SIM_KUBECONFIG" -o json
	assert_status 0
	jq -e '.equal and (.caughtUp | not) and (.informerResourceVersion | tonumber) < (.listResourceVersion | tonumber)' <<<"$output" >/dev/null
	# and the text says nothing of a lag that costs nothing
	run --separate-stderr timeout 120 "$KINF" verify configmaps -A --client-go 1.28 --lag-wait 1h --kubeconfig "$SIM_KUBECONFIG"
	assert_status 0
	[[ $output =~ ^configmaps:\ cache\ equals\ the\ server\ \([0-9]+\ objects\ at\ rv\ [0-9]+\)$ ]]
	simctl POST /churn/stop >/dev/null
}

@test "watch --verify-every: a cache equal to the list is told without the lag wait too" {
	sim_start --pods 20 --bookmark-interval 3600 --watch-cache-rv
	simctl POST /churn '{"resource":"pods","rate":20,"duration":0,"mix":{"add":1,"update":3,"delete":1},"graceful":false}' >/dev/null
	wait_until 30 churned
	# an hour's lag wait: the first check's notice would come an hour late
	start_watch configmaps -A --client-go 1.28 --verify-every 1s --lag-wait 1h
	wait_until 120 file_has "$ERR" 'kinf: configmaps: verify: cache equals the server \([0-9]+ objects\)$'
	stop_watch
	simctl POST /churn/stop >/dev/null
}

@test "verify -o json: one report for jq, counts matching the oracle" {
	sim_start --pods 7
	run --separate-stderr verify deployments -o json
	assert_status 0
	want=$(sim_oracle deployments | jq '.items | length')
	jq -e --argjson n "$want" '
		.resource == "deployments" and .equal == true and .caughtUp == true and
		.cacheCount == $n and .serverCount == $n and
		(.listResourceVersion | test("^[0-9]+$")) and
		(.informerResourceVersion | tonumber) >= (.listResourceVersion | tonumber) and
		.missing == [] and .extra == [] and .stale == []' <<<"$output"
	[ "$(wc -l <<<"$output")" -eq 1 ]
}

@test "verify: no false alarm while the cluster churns" {
	sim_start --pods 30 --namespaces 2 --bookmark-interval 1
	simctl POST /churn '{"resource":"pods","rate":150,"duration":0,"mix":{"add":1,"update":3,"delete":1},"graceful":false}' >/dev/null
	for v in 1.28 1.33 1.36; do
		for try in 1 2; do
			run --separate-stderr verify pods -A --client-go "$v" -o json
			[ "$status" -eq 0 ] || { echo "# client-go $v: $output $stderr" >&2; false; }
			jq -e '.equal and .caughtUp' <<<"$output" >/dev/null ||
				{ echo "# client-go $v: $output" >&2; false; }
		done
	done
	simctl POST /churn/stop >/dev/null
}

@test "watch --verify-every: a lost update, delete and create are found, nothing else, under churn" {
	sim_start --pods 20 --bookmark-interval 1
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"victim"},"data":{"a":"1"}}}' >/dev/null
	start_watch pods,configmaps --verify-every 1s --lag-wait 5s -o json --events
	wait_until 20 verified configmaps
	# other objects change, and the pods' checks must stay quiet
	simctl POST /churn '{"resource":"pods","rate":100,"duration":0,"mix":{"add":1,"update":3,"delete":1},"graceful":false}' >/dev/null
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"app-config","patch":{"data":{"lost":"update"}}}' >/dev/null
	simctl POST /silent '{"op":"delete","resource":"configmaps","namespace":"default","name":"victim"}' >/dev/null
	simctl POST /silent '{"op":"create","resource":"configmaps","object":{"metadata":{"name":"silent-new"}}}' >/dev/null
	wait_until 20 found_silent
	n=$(verify_records pods | wc -l)
	wait_until 20 verified pods $((n + 2))
	stop_watch
	simctl POST /churn/stop >/dev/null
	# the report: exactly those three keys, with both RVs where both exist
	verify_records configmaps | tail -1 | jq -e '
		.equal == false and .caughtUp == true and
		.stale[0].cacheResourceVersion != .stale[0].serverResourceVersion and
		(.extra[0] | has("serverResourceVersion") | not) and
		(.missing[0] | has("cacheResourceVersion") | not)'
	# churn on pods: never a divergence
	[ "$(verify_records pods | wc -l)" -ge 3 ]
	verify_records pods | jq -e -s 'all(.equal)' >/dev/null ||
		{ verify_records pods | jq -c 'select(.equal | not)' >&2; false; }
	# the records look like the others of --events
	verify_records configmaps | head -1 | jq -e '.time | test("Z$")' >/dev/null
}

@test "watch --verify-every: the notice on stderr names the divergent keys" {
	sim_start --pods 3 --bookmark-interval 1
	start_watch configmaps --verify-every 1s --lag-wait 5s
	wait_until 20 file_has "$ERR" 'kinf: configmaps: verify: cache equals the server \([0-9]+ objects\)$'
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"app-config","patch":{"data":{"lost":"yes"}}}' >/dev/null
	# the bookmarks take the informer past the update it never had: lost
	wait_until 20 file_has "$ERR" 'verify: 0 missing, 0 extra, 1 stale: default/app-config \(stale\) \(1 lost: the informer is past it and never brought it\)$'
	stop_watch
	# stdout has only deltas
	! grep -q verify "$OUT"
}

@test "verify: usage errors are one line and status 2" {
	run --separate-stderr "$KINF" verify
	assert_status 2
	[[ $stderr == error:* ]] && [ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$KINF" verify pods,deployments
	assert_status 2
	[[ $stderr == "error: verify takes one resource type"* ]]
	run --separate-stderr "$KINF" verify pods extra
	assert_status 2
	[[ $stderr == "error: unexpected argument 'extra'"* ]]
	run --separate-stderr "$KINF" verify pods -o yaml
	assert_status 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	run --separate-stderr "$KINF" verify pods --lag-wait soon
	assert_status 2
	run --separate-stderr "$KINF" watch pods --verify-every soon
	assert_status 2
	run --separate-stderr "$KINF" watch pods --record x.rec --tui
	assert_status 2
	[[ $stderr == "error: --record does not work with --tui"* ]]
}

@test "verify: an unreachable server is one line and status 1" {
	sim_start --pods 1
	sed "s#server: .*#server: https://127.0.0.1:1#" "$SIM_KUBECONFIG" >"$BATS_TEST_TMPDIR/down"
	run --separate-stderr "$KINF" verify pods --kubeconfig "$BATS_TEST_TMPDIR/down"
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "error: cannot connect to server 'https://127.0.0.1:1'"* ]]
	[ -z "$output" ]
}

@test "tui: V checks the tab's cache; a lost delete shows as extra, in the health pane and the tab" {
	sim_start --pods 4 --bookmark-interval 1
	TUI_COLS=120 TUI_LINES=40 tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 4 20
	wait_screen 'verify +V checks the cache' 5
	keys V
	wait_screen 'verify +[0-9]+s ago: cache equals the server' 20
	screen_lacks '1:pods 4 !'
	# A delete no watch hears of: the cache keeps pod-2.
	simctl POST /silent '{"op":"delete","resource":"pods","namespace":"default","name":"pod-2"}' >/dev/null
	keys V
	wait_screen 'verify +[0-9]+s ago: 0 missing, 1 extra, 0' 20
	screen_has 'stale: default/pod-2 \(extra\)'
	screen_has '1:pods 4 !'
	keys q
	wait_screen 'kinf exited 0' 10
}

@test "tui --verify-every: the check runs by itself, as V, and finds a lost update" {
	sim_start --pods 3 --bookmark-interval 1
	TUI_COLS=120 TUI_LINES=40 tui_start pods --verify-every 2s --kubeconfig "$SIM_KUBECONFIG"
	wait_synced 3 20
	wait_screen 'verify +[0-9]+s ago: cache equals the server' 20
	simctl POST /silent '{"op":"update","resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"lost":"yes"}}}}' >/dev/null
	wait_screen 'verify +[0-9]+s ago: 0 missing, 0 extra, 1' 20
	screen_has 'default/pod-1 \(stale\)'
	screen_has '1:pods 3 !'
	keys q
	wait_screen 'kinf exited 0' 10
	run "$KINF" tui pods --verify-every x
	assert_status 2
}
