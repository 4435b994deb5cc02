#!/usr/bin/env bats
# Streaming lists (sendInitialEvents, client-go 1.35 and 1.36): what
# client-go's watchList and handleListWatch do with the initial events and
# with a stream that ends before its end bookmark.

load test_helper
bats_require_minimum_version 1.5.0

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" -o json "$@"; }

stop_watch() { kinf_stop; }

teardown() {
	stop_watch
	sim_stop
}

synced() { file_has "$ERR" "synced"; }
nreq() { simctl GET "/requests?verb=$1" | jq length; }
streams() {
	simctl GET '/requests?verb=watch' | jq -c '[.[] | select(.query.sendInitialEvents == "true")]'
}
streaming_requests() { streams | jq length; }
# The deltas handed to the handlers for one key.
deltas_of() { jq -c --arg k "$1" 'select(.key == $k)' "$OUT"; }

# A watch event as one line of kube-sim's `lines` fault.
pod_event() {	# TYPE NAME RV
	jq -c -n --arg t "$1" --arg n "$2" --arg rv "$3" \
		'{type: $t, object: {kind: "Pod", apiVersion: "v1",
		  metadata: {name: $n, namespace: "default", resourceVersion: $rv}}}'
}

@test "a streaming list broken before its end bookmark streams again at once, no LIST" {
	sim_start --pods 4
	for v in 1.35 1.36; do
		simctl DELETE /requests >/dev/null
		simctl POST /faults '{"verb":"watchlist","kind":"cut-before-bookmark","count":1}' >/dev/null
		start_watch pods --client-go "$v"
		wait_until 20 synced
		stop_watch
		[ "$(streaming_requests)" -eq 2 ]
		[ "$(nreq list)" -eq 0 ]
		grep -q 'streaming list broken before its end bookmark (4 objects): again' "$ERR"
	done
}

@test "a silent streaming list has no idle limit: the stall timeout does not cut it" {
	sim_start --pods 3
	# 200 and nothing for 4 s, then the connection closed: a broken stream,
	# not a very short one, so the streaming list starts over.
	simctl POST /faults '{"verb":"watchlist","kind":"hang","count":1,"seconds":4}' >/dev/null
	start_watch pods --client-go 1.36 --stall-timeout 1s
	wait_until 30 synced
	stop_watch
	[ "$(nreq list)" -eq 0 ]
	[ "$(streaming_requests)" -eq 2 ]
	run ! grep -q 'stalled' "$ERR"
}

@test "MODIFIED and DELETED before the end bookmark go to the temporary store; a second ADDED replaces the first" {
	sim_start --pods 2
	local lines
	lines=$(jq -c -s "map(tojson)" <(pod_event ADDED extra 1) <(pod_event MODIFIED extra 2) \
		<(pod_event ADDED gone 1) <(pod_event DELETED gone 2) \
		<(pod_event ADDED pod-1 1))
	simctl POST /faults "{\"verb\":\"watchlist\",\"kind\":\"lines\",\"lines\":$lines}" >/dev/null
	start_watch pods --client-go 1.36
	wait_until 20 synced
	wait_until 10 bash -c "[ \$(wc -l <'$OUT') -ge 3 ]"
	stop_watch
	[ "$(streaming_requests)" -eq 1 ]
	[ "$(nreq list)" -eq 0 ]
	# extra: once, as it was last modified; gone: never; pod-1: once, the
	# server's copy (which came after the fake one).
	[ "$(deltas_of default/extra | jq -r '.handler + " " + .resourceVersion')" = "OnAdd 2" ]
	[ -z "$(deltas_of default/gone)" ]
	[ "$(deltas_of default/pod-1 | wc -l)" -eq 1 ]
	[ "$(deltas_of default/pod-1 | jq -r .resourceVersion)" != 1 ]
	[ "$(jq -s length "$OUT")" -eq 3 ]
}

@test "a plain bookmark during the initial events does not move the resourceVersion a restart asks for" {
	sim_start --pods 2
	local bm
	bm=$(jq -c -n '[{type: "BOOKMARK", object: {kind: "Pod", apiVersion: "v1",
		metadata: {resourceVersion: "999999"}}}] | map(tojson)')
	# The bookmark, then a clean end: the stream had an event, so it is
	# streamed again at once, from the RV the first one asked for.
	simctl POST /faults "{\"verb\":\"watchlist\",\"kind\":\"lines\",\"lines\":$bm,\"end\":true}" >/dev/null
	start_watch pods --client-go 1.35
	wait_until 20 synced
	stop_watch
	[ "$(streaming_requests)" -eq 2 ]
	[ "$(streams | jq -r '[.[].query.resourceVersion // ""] | unique | length')" -eq 1 ]
}

@test "an object without metadata.name in a streaming list is cached under its key, with a warning" {
	sim_start --pods 2
	local lines
	lines=$(jq -c -n '[{type: "ADDED", object: {kind: "Pod", apiVersion: "v1",
		metadata: {resourceVersion: "1"}}}] | map(tojson)')
	simctl POST /faults "{\"verb\":\"watchlist\",\"kind\":\"lines\",\"lines\":$lines}" >/dev/null
	start_watch pods --client-go 1.36
	wait_until 20 synced
	wait_until 10 bash -c "[ \$(wc -l <'$OUT') -ge 3 ]"
	stop_watch
	[ "$(deltas_of "" | jq -r .handler)" = OnAdd ]
	grep -q 'no metadata.name: cached under key ""' "$ERR"
	[ "$(nreq list)" -eq 0 ]
}

@test "an object without metadata.name in a LIST does not refuse the list" {
	sim_start --pods 2
	local body
	body=$(jq -c -n '{kind: "PodList", apiVersion: "v1", metadata: {resourceVersion: "1"},
		items: [{metadata: {namespace: "default", resourceVersion: "1"}}]} | tojson')
	simctl POST /faults "{\"verb\":\"list\",\"kind\":\"body\",\"body\":$body}" >/dev/null
	start_watch pods --client-go 1.32
	wait_until 20 synced
	wait_until 10 bash -c "[ -s '$OUT' ]"
	stop_watch
	[ "$(deltas_of default/ | jq -r .handler)" = OnAdd ]
	grep -q 'no metadata.name: cached under key "default/"' "$ERR"
	[ "$(nreq list)" -eq 1 ]
}
