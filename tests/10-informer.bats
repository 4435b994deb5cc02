#!/usr/bin/env bats
# The informer end to end, against the simulated apiserver: what it asks
# on the wire, and what it delivers, after each kind of trouble.

load test_helper

# Starts `kinf watch` in the background with JSON output into $OUT and
# notices into $ERR; extra arguments go to kinf.
# These tests follow the paged LIST and the DeltaFIFO: client-go up to
# 1.32.  The newer generations (RealFIFO, streaming lists, the atomic
# FIFO) have 12-client-go.bats.
start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" -o json --client-go 1.32 "$@"; }

stop_watch() { kinf_stop; }

synced() { file_has "$ERR" "synced"; }

# The cache as the deltas built it: key -> resourceVersion.
replay_deltas() {
	jq -S -s -c 'reduce (.[] | select(.type != null and .key != null)) as $d ({};
		if $d.type == "Deleted" then del(.[$d.key])
		else .[$d.key] = $d.resourceVersion end)' "$OUT"
}

truth() { sim_oracle "$1" | jq -S -c '.items'; }

deltas_match_truth() {
	[ "$(replay_deltas)" = "$(truth "${1:-pods}")" ]
}

# Requests the simulator saw, as JSON lines.
requests() { simctl GET /requests | jq -c '.[]'; }

# make_pods N — creates default/pod-0 .. pod-(N-1).
make_pods() {
	local i
	for ((i = 0; i < $1; i++)); do
		simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"pod-$i\",\"namespace\":\"default\"}}}" >/dev/null
	done
}

teardown() {
	stop_watch 2>/dev/null || true
	sim_stop
}

@test "lists in pages and falls back to a full list when a continue token expires" {
	sim_start --pods 23
	# The first list, at resourceVersion 0, is served whole by the watch
	# cache; a 410 on it makes kinf list at "" from etcd, in pages.
	simctl POST /faults '{"verb":"list","kind":"410","count":1}' >/dev/null
	simctl POST /faults '{"verb":"list-continue","kind":"410","count":1}' >/dev/null
	start_watch pods -A --chunk-size 5
	wait_until 20 synced
	# First page at resourceVersion 0 with limit 5, then a continue that
	# got 410, then one list without limit.
	run bash -c "$(declare -f requests simctl); requests | jq -r 'select(.verb==\"list\") | [.status, (.query.limit // \"-\"), (.query.continue != null)] | @tsv'"
	assert_output_contains $'200\t5\tfalse'
	assert_output_contains $'410\t5\ttrue'
	assert_output_contains $'200\t-\tfalse'
	wait_until 10 deltas_match_truth
	[ "$(jq -s '[.[] | select(.initialList)] | length' "$OUT")" -eq 23 ]
	grep -q "continue token expired" "$ERR"
}

@test "a watch the server ends cleanly is re-opened from the last resourceVersion, without a relist" {
	sim_start --pods 0
	make_pods 5
	start_watch pods -A
	wait_until 20 synced
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"x":"1"}}}}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Updated"'
	rv=$(truth pods | jq -r '.["default/pod-0"]')
	wait_until 10 watching
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 10 bash -c "$(declare -f requests simctl); [ \$(requests | jq -s '[.[] | select(.verb==\"watch\")] | length') -ge 2 ]"
	last_watch=$(requests | jq -s -r '[.[] | select(.verb=="watch")] | last | .query.resourceVersion')
	[ "$last_watch" -ge "$rv" ]
	[ "$(requests | jq -s '[.[] | select(.verb=="list")] | length')" -eq 1 ]
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-1"}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Deleted".*"key":"default/pod-1"|"key":"default/pod-1".*"type":"Deleted"'
	wait_until 10 deltas_match_truth
}

@test "a 410 on the watch relists: Replaced deltas, and tombstones for what vanished meanwhile" {
	sim_start --pods 0
	make_pods 6
	start_watch pods -A
	wait_until 20 synced
	# Keep kinf out while objects change, then let it back in.
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-2"}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-3","patch":{"metadata":{"labels":{"changed":"yes"}}}}' >/dev/null
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"newcomer","namespace":"default"}}}' >/dev/null
	sleep 1
	simctl DELETE /faults >/dev/null
	wait_until 30 file_has "$OUT" '"tombstone":true'
	wait_until 10 deltas_match_truth
	run jq -c 'select(.tombstone) | [.type, .key, .source]' "$OUT"
	assert_output_contains '["Deleted","default/pod-2","list"]'
	run jq -c 'select(.listNumber == 1 and .type == "Replaced") | .key' "$OUT"
	assert_output_contains '"default/pod-3"'
	assert_output_contains '"default/newcomer"'
	grep -q "relist #1" "$ERR"
}

@test "an ERROR event with code 410 on the watch makes kinf relist" {
	sim_start --pods 3
	start_watch pods -A
	wait_until 20 synced
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	wait_until 10 watching
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 bash -c "$(declare -f requests simctl); [ \$(requests | jq -s '[.[] | select(.verb==\"list\")] | length') -ge 2 ]"
	wait_until 10 grep -q "relist #1" "$ERR"
	wait_until 10 deltas_match_truth
}

@test "429 answers are retried after Retry-After" {
	sim_start --pods 2
	simctl POST /faults '{"verb":"list","kind":"429","count":1,"retryAfter":2}' >/dev/null
	start_watch pods -A
	wait_until 20 synced
	run bash -c "$(declare -f requests simctl); requests | jq -s -r '[.[] | select(.verb==\"list\")] | (.[1].time - .[0].time)'"
	echo "# gap: $output s"
	awk -v g="$output" 'BEGIN { exit !(g >= 1.9) }'
	grep -q "429" "$ERR"
}

@test "a wait over a second for the rate limit is told once in 10 s, as client-go's throttled logger" {
	sim_start --pods 2
	local types=pods,configmaps,secrets,events,namespaces,nodes,deployments,crontabs start=$SECONDS
	# Eight informers' LISTs answered 429 at once, retried at once: past
	# the burst they queue on the shared bucket, 200 ms a place in line.
	simctl POST /faults '{"verb":"list","kind":"429","count":40,"retryAfter":0}' >/dev/null
	start_watch "$types" -A
	wait_until 120 matches_at_least "$ERR" ': synced:' 8
	stop_watch
	local told elapsed=$((SECONDS - start))
	told=$(count_lines "$ERR" "^kinf: waited [0-9.]+s before sending /[^ ]*: client-side throttling, as client-go's \(at most one such notice in 10s\)$")
	echo "# $told in ${elapsed}s" >&2
	[ "$told" -ge 1 ]
	[ "$told" -le $((elapsed / 10 + 1)) ]
	# -v tells every wait over 50 ms instead
	[ "$(count_lines "$ERR" "ms before sending")" -eq 0 ]
}

@test "-q: the rate limit's waits over a second are not told either" {
	sim_start --pods 2
	# The test before this one's informers and faults: waits over a second.
	simctl POST /faults '{"verb":"list","kind":"429","count":40,"retryAfter":0}' >/dev/null
	start_watch pods,configmaps,secrets,events,namespaces,nodes,deployments,crontabs -A -q
	wait_until 120 bash -c "$(declare -f simctl); [ \$(simctl GET /stats | jq '.watchesByResource | length') -ge 8 ]"
	stop_watch
	# every 429 was sent: 48 LISTs, 38 past the burst, at 5 a second
	run bash -c "$(declare -f requests simctl); requests | jq -s '[.[] | select(.verb==\"list\")] | length'"
	[ "$output" -ge 48 ]
	[ ! -s "$ERR" ] || { cat "$ERR" >&2; false; }
}

@test "500 answers back off exponentially" {
	sim_start --pods 2
	simctl POST /faults '{"verb":"list","kind":"500","count":3}' >/dev/null
	start_watch pods -A
	wait_until 30 synced
	run bash -c "$(declare -f requests simctl); requests | jq -s -r '[.[] | select(.verb==\"list\") | .time] | [.[1]-.[0], .[2]-.[1], .[3]-.[2]] | @tsv'"
	echo "# gaps: $output"
	read -r g1 g2 g3 <<<"$output"
	# 800 ms doubling, each with up to 100 % jitter.
	awk -v a="$g1" -v b="$g2" -v c="$g3" 'BEGIN { exit !(a >= 0.75 && a < 1.8 && b >= 1.55 && b < 3.4 && c >= 3.15 && c < 6.6) }'
	wait_until 10 deltas_match_truth
}

# Whether kinf renewed a silent watch $2 times more than the $1 it had.
renewed_since() {
	[ "$(grep -c "watch renewed (silent for 2 s;" "$ERR")" -ge $(($1 + $2)) ]
}

@test "a hung watch is renewed after the stall timeout from the same resourceVersion, no relist" {
	sim_start --pods 2
	start_watch pods -A --renew-silent 2s -v
	wait_until 20 synced
	# The next watch hangs.  Every watch here is silent, and renewed after
	# 2 s: two renewals after the fault was set, and the hung one was one.
	# (Not a drop of the watch to reach the fault: a drop just after a
	# renewal is a very short watch, and relists.)
	local before
	before=$(grep -c "watch renewed (silent for 2 s;" "$ERR" || true)
	simctl POST /faults '{"verb":"watch","kind":"hang","count":1,"seconds":60}' >/dev/null
	wait_until 20 renewed_since "$before" 2
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"after-stall","namespace":"default"}}}' >/dev/null
	wait_until 15 file_has "$OUT" 'after-stall'
	wait_until 10 deltas_match_truth
	# A renewal is no error and no relist.
	[ "$(requests | jq -s '[.[] | select(.verb=="list")] | length')" -eq 1 ]
	! grep -q "error:" "$ERR"
}

@test "bookmarks advance the resourceVersion the next watch starts from" {
	sim_start --pods 2 --bookmark-interval 1
	start_watch pods -A
	wait_until 20 synced
	pod_rv=$(sim_oracle pods | jq -r '.resourceVersion')
	# Changes elsewhere move the global revision, not the pods'.
	for i in 1 2 3; do
		simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"cm-$i\",\"namespace\":\"default\"}}}" >/dev/null
	done
	global_rv=$(sim_oracle configmaps | jq -r '.resourceVersion')
	[ "$global_rv" -gt "$pod_rv" ]
	sleep 2.5	# at least one bookmark period passes
	wait_until 10 watching
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 10 bash -c "$(declare -f requests simctl); [ \$(requests | jq -s '[.[] | select(.verb==\"watch\")] | length') -ge 2 ]"
	next=$(requests | jq -s -r '[.[] | select(.verb=="watch")] | last | .query.resourceVersion')
	echo "# pods at $pod_rv, global at $global_rv, re-watched from $next"
	[ "$next" -ge "$global_rv" ]
}

@test "an object that stops matching the label selector is Deleted" {
	sim_start --pods 0
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"}}}}' >/dev/null
	start_watch pods -l app=web
	wait_until 20 synced
	simctl POST /update '{"resource":"pods","namespace":"default","name":"web-1","patch":{"metadata":{"labels":{"app":"db"}}}}' >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Deleted"'
	run jq -r 'select(.type=="Deleted") | .key' "$OUT"
	[ "$output" = "default/web-1" ]
}

@test "a streaming list (sendInitialEvents) syncs the cache" {
	sim_start --pods 7
	start_watch pods -A --streaming-list
	wait_until 20 synced
	run bash -c "$(declare -f requests simctl); requests | jq -r 'select(.query.sendInitialEvents==\"true\") | .verb'"
	[ -n "$output" ]
	[ "$(requests | jq -s '[.[] | select(.verb=="list")] | length')" -eq 0 ]
	wait_until 10 deltas_match_truth
}

@test "the RealFIFO delivers the same final state" {
	sim_start --pods 10
	start_watch pods -A --fifo real
	wait_until 20 synced
	simctl POST /churn '{"resource":"pods","count":60,"seed":7}' >/dev/null
	wait_until 15 deltas_match_truth
}
