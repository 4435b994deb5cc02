#!/usr/bin/env bats
# Fidelity: what a controller on a given client-go version is handed
# (--client-go), and the reflector's error paths as client-go has them.
# Each test names the client-go behaviour it holds kinf to.

load test_helper
bats_require_minimum_version 1.5.0

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" -o json "$@"; }

stop_watch() { kinf_stop; }

teardown() {
	stop_watch
	sim_stop
}

synced() { file_has "$ERR" "synced"; }
# The "synced" notice (stderr) and the deltas (stdout) are written by two
# threads: wait for the deltas too before looking at them.
printed() { [ -f "$OUT" ] && [ "$(wc -l <"$OUT")" -ge "$1" ]; }

# The cache as the handlers were told of it.
replay_deltas() {
	jq -S -s -c 'reduce (.[] | select(.key != null)) as $d ({};
		if $d.handler == "OnDelete" then del(.[$d.key])
		else .[$d.key] = $d.resourceVersion end)' "$OUT"
}
truth() { sim_oracle pods | jq -S -c '.items'; }
converged() { [ "$(replay_deltas)" = "$(truth)" ]; }

# How many requests of a verb the simulator saw (optionally since a count).
nreq() { simctl GET "/requests?verb=$1" | jq length; }
streaming_requests() {
	simctl GET '/requests?verb=watch' | jq '[.[] | select(.query.sendInitialEvents == "true")] | length'
}

# LISTs: kinf sends none of its own (no probe of the server's
# resourceVersion after a lost connection), so every one counts.
nlists() { simctl GET '/requests?verb=list' | jq length; }

# The next watch takes a fault KIND, which kube-sim sends after the first
# event: drop the watch, wait for its successor, send it a bookmark.
rewatch_with_fault() {
	local watches
	watch_settled
	watches=$(nreq watch)
	simctl POST /faults "{\"verb\":\"watch\",\"kind\":\"$1\",\"count\":1}" >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 bash -c "$(declare -f nreq simctl); [ \$(nreq watch) -gt $watches ]"
	sleep 0.5
	simctl POST /bookmark >/dev/null
}

update_pod() {
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":$2}" >/dev/null
}

# A relist after a gap in which pod-0 was deleted and pod-3 changed.
relist_with_gap() {
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-0","graceful":false}' >/dev/null
	update_pod pod-3 '{"metadata":{"labels":{"changed":"yes"}}}'
	simctl DELETE /faults >/dev/null
}

# ---- choosing the version ------------------------------------------------

@test "--client-go: an unknown version is a usage error naming the ones kinf knows" {
	run --separate-stderr "$KINF" watch pods --client-go 1.99
	assert_status 2
	[[ $stderr == *"client-go 1.99 is not one kinf knows (1.27 to 1.36)"* ]]
	run --separate-stderr "$KINF" watch pods --client-go banana
	assert_status 2
	[[ $stderr == *"'banana' is not a client-go version"* ]]
}

@test "--client-go picks the FIFO and the initial list as that version does" {
	sim_start --pods 3
	# 1.32: DeltaFIFO, paged LIST.
	start_watch pods --client-go v0.32.4
	wait_until 20 synced
	wait_until 10 printed 3
	stop_watch
	[ "$(jq -r .type "$OUT" | sort -u)" = Replaced ]
	[ "$(streaming_requests)" -eq 0 ]
	[ "$(nreq list)" -ge 1 ]
	# 1.34: RealFIFO, still a LIST.
	simctl DELETE /requests >/dev/null
	start_watch pods --client-go 1.34
	wait_until 20 synced
	wait_until 10 printed 3
	stop_watch
	[ "$(jq -r .type "$OUT" | sort -u)" = Replaced ]
	[ "$(streaming_requests)" -eq 0 ]
	# 1.35: a streaming list (WatchListClient), RealFIFO.
	simctl DELETE /requests >/dev/null
	start_watch pods --client-go 1.35
	wait_until 20 synced
	wait_until 10 printed 3
	stop_watch
	[ "$(jq -r .type "$OUT" | sort -u)" = Replaced ]
	[ "$(streaming_requests)" -eq 1 ]
	[ "$(nreq list)" -eq 0 ]
	# The default, the newest (1.36): the atomic FIFO, one ReplacedAll
	# reconciled into an OnAdd per object.
	simctl DELETE /requests >/dev/null
	start_watch pods
	wait_until 20 synced
	wait_until 10 printed 3
	stop_watch
	[ "$(jq -r '[.type, .handler] | @tsv' "$OUT" | sort -u)" = $'ReplacedAll\tOnAdd' ]
	[ "$(jq -s length "$OUT")" -eq 3 ]
	[ "$(streaming_requests)" -eq 1 ]
	# --fifo and --streaming-list override the version's choice.
	simctl DELETE /requests >/dev/null
	start_watch pods --client-go 1.36 --fifo delta --streaming-list=false
	wait_until 20 synced
	wait_until 10 printed 3
	stop_watch
	[ "$(jq -r .type "$OUT" | sort -u)" = Replaced ]
	[ "$(streaming_requests)" -eq 0 ]
}

@test "1.36 (atomic FIFO): a relist hands out every tombstone first, then the list in order" {
	sim_start --pods 5
	start_watch pods
	wait_until 20 synced
	relist_with_gap
	wait_until 30 file_has "$OUT" '"listNumber":1'
	wait_until 10 converged
	stop_watch
	# processReplacedAllInfo: OnDelete for what vanished, then OnUpdate
	# for each listed object (unchanged ones marked so).
	run jq -r 'select(.listNumber == 1) | [.type, .handler, .key, .tombstone, .unchanged] | @tsv' "$OUT"
	[ "${lines[0]}" = $'ReplacedAll\tOnDelete\tdefault/pod-0\ttrue\tfalse' ]
	[ "$(jq -r 'select(.listNumber == 1) | .handler' "$OUT" | uniq | paste -sd,)" = OnDelete,OnUpdate ]
	assert_output_contains $'ReplacedAll\tOnUpdate\tdefault/pod-3\tfalse\tfalse'
	assert_output_contains $'ReplacedAll\tOnUpdate\tdefault/pod-1\tfalse\ttrue'
}

@test "1.36 (atomic FIFO): a resync is one SyncAll that updates every cached object" {
	sim_start --pods 4
	start_watch pods --resync 1s -v
	wait_until 20 synced
	wait_until 10 bash -c "[ \$(grep -c '\"type\":\"SyncAll\"' '$OUT') -ge 8 ]"
	stop_watch
	# Each tick: one SyncAll delta queued, an OnUpdate(obj, obj) per object.
	grep -q 'resync: 1 SyncAll delta queued' "$ERR"
	[ "$(jq -r 'select(.type == "SyncAll") | [.handler, .resync, .unchanged] | @tsv' "$OUT" | sort -u)" = $'OnUpdate\ttrue\ttrue' ]
}

@test "1.36 (atomic FIFO): a watch's bookmark is a Bookmark delta, shown with --types Bookmark, no handler called" {
	sim_start --pods 2
	start_watch pods --types Updated,Bookmark -v
	wait_until 20 synced
	watch_settled
	update_pod pod-1 '{"metadata":{"labels":{"x":"1"}}}'
	simctl POST /bookmark >/dev/null
	wait_until 10 file_has "$OUT" '"type":"Bookmark"'
	stop_watch
	local rv
	rv=$(sim_oracle pods | jq -r .resourceVersion)
	# In order with the events; the RV the Indexer took, and no handler.
	[ "$(jq -r '.type' "$OUT" | paste -sd,)" = Updated,Bookmark ]
	jq -e --arg rv "$rv" 'select(.type == "Bookmark") | .resourceVersion == $rv and .handler == null' "$OUT"

	# Not asked for: none, as before 1.36 even when asked for.
	for args in "pods -v" "pods --types Bookmark -v --client-go 1.35"; do
		# shellcheck disable=SC2086
		start_watch $args
		wait_until 20 synced
		watch_settled
		simctl POST /bookmark >/dev/null
		wait_until 10 file_has "$ERR" 'bookmark at rv'
		sleep 0.5
		stop_watch
		run ! grep -q '"type":"Bookmark"' "$OUT"
	done
}

# ---- what listeners receive ------------------------------------------------

@test "after a relist every unchanged object reaches OnUpdate, marked unchanged; --hide-unchanged hides them" {
	sim_start --pods 6
	OUT=$BATS_TEST_TMPDIR/line.out ERR=$BATS_TEST_TMPDIR/line.err
	"$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --no-headers \
		>"$OUT" 2>"$ERR" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	relist_with_gap
	wait_until 30 file_has "$OUT" 'relist #1'
	wait_until 10 file_has "$OUT" 'default/pod-3 .*relist #1'
	wait_until 10 matches_at_least "$OUT" 'relist #1\) \(unchanged\)' 4
	wait_until 10 file_has "$OUT" 'default/pod-0 .*\(tombstone\) \(relist #1\)'
	stop_watch
	# client-go: the listener starts in the syncing set and, with no resync
	# period, stays: each unchanged object's Replaced is an OnUpdate.
	[ "$(grep -c 'relist #1) (unchanged)' "$OUT")" -eq 4 ]
	grep -qE 'Replaced .*default/pod-3 .*\(relist #1\) \(changed from rv [0-9]+\)$' "$OUT"
	grep -q 'Deleted .*default/pod-0 .*(tombstone) (relist #1)$' "$OUT"

	sim_start --pods 6
	start_watch pods --client-go 1.32 --hide-unchanged
	wait_until 20 synced
	relist_with_gap
	wait_until 30 file_has "$OUT" '"tombstone":true'
	wait_until 10 file_has "$OUT" '"key":"default/pod-3".*"listNumber":1'
	wait_until 10 matches_at_least "$OUT" '"listNumber":1' 2
	stop_watch
	[ "$(jq -s '[.[] | select(.listNumber == 1)] | length' "$OUT")" -eq 2 ]
	[ "$(jq -s '[.[] | select(.unchanged)] | length' "$OUT")" -eq 0 ]
}

@test "resync-only means the resourceVersion did not change: every such update, and nothing else" {
	sim_start --pods 2
	start_watch pods --client-go 1.32
	wait_until 20 synced
	# A relist after an expired watch brings every object again.
	simctl POST /faults '{"verb":"list","kind":"500","count":1}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 30 matches_at_least "$OUT" '"listNumber":1.*"unchanged":true|"unchanged":true.*"listNumber":1' 2
	stop_watch
	[ "$(jq -s '[.[] | select(.listNumber == 1 and .unchanged and .handler == "OnUpdate" and .resourceVersion == .oldResourceVersion)] | length' "$OUT")" -eq 2 ]
	[ "$(jq -s '[.[] | select(.unchanged and .resourceVersion != .oldResourceVersion)] | length' "$OUT")" -eq 0 ]
}

@test "the resync notice counts the Sync deltas that resync queued" {
	sim_start --pods 5
	start_watch pods --client-go 1.32 --resync 1s
	wait_until 20 synced
	wait_until 10 file_has "$ERR" 'resync: 5 Sync deltas queued'
	stop_watch
	! grep -q 'resync: 0 Sync' "$ERR"
}

# ---- the reflector's error paths ---------------------------------------------

# A server restored from a backup, its resourceVersion now far below the
# informer's: client-go re-watches from its RV (the watch cache accepts it
# and stays silent) and sends nothing else; only a list at that RV, answered
# "Too large resource version", makes it list at "".  kinf sends no probe of
# its own, and warns when the RV it is handed goes back.
restore_lower() {	# restore_lower CLIENT_GO
	sim_start --pods 10 --start-rv 5000
	local port=${SIM_API##*:}
	start_watch pods -A --client-go "$1"
	wait_until 20 synced
	simctl POST /churn '{"resource":"pods","count":30,"seed":3}' >/dev/null
	wait_until 10 converged
	OLD_RV=$(sim_oracle pods | jq -r .resourceVersion)
	# The watch cache's 3 s wait for a resourceVersion it lacks is the
	# server's own timing, not what is checked: shortened.
	sim_restart --reuse-credentials --port "$port" --pods 5 --start-rv 10 --fresh-wait 0.2
	wait_until 60 bash -c "$(declare -f nreq simctl); [ \$(nreq watch) -ge 1 ]"
	sleep 2
	# Re-watched from kinf's RV, nothing else: no list, no probe.
	[ "$(nreq list)" -eq 0 ]
	simctl GET '/requests?verb=watch' | jq -e --arg rv "$OLD_RV" 'all(.[]; (.query.resourceVersion | tonumber) >= ($rv | tonumber))'
	run ! converged
	# A watch that fails ends the cycle: the relist at kinf's RV is too large.
	simctl POST /faults '{"verb":"watch","kind":"500","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 120 converged
	# What the restored server lacks went as tombstones.
	[ "$(jq -s '[.[] | select(.tombstone)] | length' "$OUT")" -ge 1 ]
}

@test "a server restored at a lower resourceVersion: no probe; a too large RV relists at \"\", as client-go" {
	restore_lower 1.32
	# The LIST at kinf's RV (too large, its Retry-After honoured ten times
	# by the REST client), then the LIST at "", without a limit as the
	# first: list()'s pager keeps the page size it chose for that RV.
	simctl GET '/requests?verb=list' | jq -e --arg rv "$OLD_RV" \
		'.[0].query.resourceVersion == $rv and .[-1].query.resourceVersion == null and
		 all(.[]; .query.limit == null)'
	[ "$(simctl GET '/requests?verb=list' | jq --arg rv "$OLD_RV" '[.[] | select(.query.resourceVersion == $rv)] | length')" -eq 11 ]
	grep -q 'resourceVersion went back: the list returned [0-9]* after [0-9]*' "$ERR"
	stop_watch
}

@test "a streaming list at a too large resourceVersion is retried at \"\"" {
	restore_lower 1.36
	# No LIST at all: the streaming list recovered by itself.
	[ "$(nreq list)" -eq 0 ]
	grep -q "resourceVersion unavailable" "$ERR"
	grep -q 'resourceVersion went back: the streaming list returned' "$ERR"
	stop_watch
}

@test "an undecodable watch event relists (as client-go's decoder error does); an unknown type too" {
	sim_start --pods 3
	start_watch pods --client-go 1.32
	wait_until 20 synced
	local lists
	lists=$(nlists)
	rewatch_with_fault badevent
	wait_until 60 bash -c "$(declare -f nlists simctl); [ \$(nlists) -gt $lists ]"
	grep -q 'cannot decode a watch event' "$ERR"
	lists=$(nlists)
	rewatch_with_fault unknowntype
	wait_until 60 bash -c "$(declare -f nlists simctl); [ \$(nlists) -gt $lists ]"
	grep -q "got invalid watch event type: FROB" "$ERR"
	# Either way: no watch re-opened from the same RV in a loop.
	[ "$(nreq watch)" -lt 10 ]
	stop_watch
}

@test "an event whose object has no metadata is cached under key \"\" with a warning; the watch goes on" {
	sim_start --pods 3
	start_watch pods --client-go 1.32
	wait_until 20 synced
	local lists
	lists=$(nlists)
	rewatch_with_fault nometa
	# meta.Accessor reads an empty name and namespace: MetaNamespaceKeyFunc
	# gives "", and the MODIFIED of an uncached key is an OnAdd.
	wait_until 20 file_has "$ERR" 'no metadata.name: cached under key ""'
	wait_until 10 file_has "$OUT" '"handler":"OnAdd".*"key":""'
	update_pod pod-1 '{"metadata":{"labels":{"after":"yes"}}}'
	wait_until 10 file_has "$OUT" '"handler":"OnUpdate".*"key":"default/pod-1"'
	[ "$(nlists)" -eq "$lists" ]
	stop_watch
}

@test "a refused connection and an ERROR 429 re-watch from the last resourceVersion, no relist" {
	sim_start --pods 3
	local port=${SIM_API##*:}
	start_watch pods --client-go 1.32
	wait_until 20 synced
	local lists
	lists=$(nlists)
	# 429 in the stream (isWatchErrorRetriable): back off, watch again.
	rewatch_with_fault error429
	wait_until 20 bash -c "$(declare -f nreq simctl); [ \$(nreq watch) -ge 3 ]"
	[ "$(nlists)" -eq "$lists" ]
	# Nothing listens for a few seconds, then the same server is back.
	# (Past a second, so that the break is no "very short watch".)
	sleep 1.5
	sim_stop
	wait_until 10 file_has "$ERR" 'cannot connect'
	sim_restart --reuse-credentials --port "$port" --pods 3
	update_pod pod-2 '{"metadata":{"labels":{"back":"yes"}}}'
	# The backoff has grown meanwhile (800 ms doubling, with jitter).
	wait_until 60 file_has "$OUT" '"handler":"OnUpdate".*"key":"default/pod-2"' ||
		{ cat "$ERR"; simctl GET /requests | jq -c '.[] | [.verb, .query]'; false; }
	# The new server saw watches from kinf's RV, and no LIST.
	[ "$(nlists)" -eq 0 ] ||
		{ cat "$ERR"; simctl GET /requests | jq -c '.[] | [.verb, .query]'; false; }
	stop_watch
}

@test "a watch cut at once after its streaming list is a very short watch: backoff, streaming list again" {
	sim_start --pods 4
	simctl POST /faults '{"verb":"watchlist","kind":"cut-after-initial","count":1}' >/dev/null
	start_watch pods --client-go 1.36
	wait_until 20 synced
	# client-go's watch() counts the handed-over stream's time and events
	# anew: none within 1 s is a VeryShortWatchError, and ListAndWatch
	# starts over after a backoff with the streaming list.
	wait_until 20 bash -c "$(declare -f simctl streaming_requests); [ \$(streaming_requests) -ge 2 ]"
	stop_watch
	[ "$(nlists)" -eq 0 ]
	grep -q 'very short watch' "$ERR"
	[ "$(jq -s '[.[] | select(.handler == "OnAdd")] | length' "$OUT")" -eq 4 ]
}

@test "a streaming list that ends before its bookmark is tried again, and stays the way to list" {
	sim_start --pods 4
	simctl POST /faults '{"verb":"watchlist","kind":"end-before-bookmark","count":1}' >/dev/null
	start_watch pods --client-go 1.36
	wait_until 20 synced
	stop_watch
	[ "$(streaming_requests)" -eq 2 ]
	[ "$(nreq list)" -eq 0 ]
	# A later cycle streams again (nothing remembered it as unsupported).
	simctl DELETE /requests >/dev/null
	start_watch pods --client-go 1.36
	wait_until 20 synced
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 bash -c "$(declare -f streaming_requests simctl); [ \$(streaming_requests) -ge 2 ]"
	stop_watch
	[ "$(nreq list)" -eq 0 ]
}

@test "a 410 or 429 on the streaming list retries the streaming list, never a LIST at an expired RV" {
	sim_start --pods 4
	simctl POST /faults '{"verb":"watchlist","kind":"410","count":1}' >/dev/null
	simctl POST /faults '{"verb":"watchlist","kind":"429","count":1,"retryAfter":1}' >/dev/null
	start_watch pods --client-go 1.36
	wait_until 30 synced
	stop_watch
	[ "$(nreq list)" -eq 0 ]
	[ "$(streaming_requests)" -eq 3 ]
}

@test "a silent streaming list warns every 10 s and has no deadline of its own" {
	sim_start --pods 3
	simctl POST /faults '{"verb":"watchlist","kind":"hang","count":1,"seconds":13}' >/dev/null
	start_watch pods --client-go 1.36 --stall-timeout 60s
	wait_until 20 file_has "$ERR" 'streaming list: no event for 1[0-9] s'
	wait_until 30 synced
	stop_watch
	! grep -q 'did not finish in time' "$ERR"
}

@test "a server that refuses streaming lists (422) is listed with LIST, and asked again on every relist" {
	sim_start --pods 3 --no-watch-list
	start_watch pods --client-go 1.36
	wait_until 20 synced
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 bash -c "$(declare -f nreq simctl); [ \$(nreq list) -ge 2 ]"
	stop_watch
	# client-go's fallbackToList holds for one ListAndWatch only.
	[ "$(streaming_requests)" -eq 2 ]
	# a warning with the server's word, as client-go's klog.Warningf; no error
	grep -q 'pods: warning: the server refused the streaming list (422): listing with LIST this time: .*WatchList feature gate' "$ERR"
	run ! grep 'pods: error:.*sendInitialEvents' "$ERR"
}

@test "no resync while the reflector is down: the timer runs only while watching" {
	sim_start --pods 4
	start_watch pods --client-go 1.32 --resync 1s
	wait_until 20 synced
	wait_until 10 file_has "$OUT" '"type":"Sync"'
	# Everything fails for a while: the reflector backs off and relists.
	simctl POST /faults '{"verb":"any","kind":"500","count":100000}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 10 file_has "$ERR" 'backing off|retrying'
	sleep 1.5
	local before
	before=$(grep -c '"type":"Sync"' "$OUT")
	sleep 4
	[ "$(grep -c '"type":"Sync"' "$OUT")" -eq "$before" ]
	simctl DELETE /faults >/dev/null
	wait_until 40 bash -c "[ \$(grep -c '\"type\":\"Sync\"' '$OUT') -gt $before ]"
	stop_watch
}

@test "a 5xx with Retry-After is retried after it, as client-go's REST client does" {
	sim_start --pods 3
	simctl POST /faults '{"verb":"list","kind":"503","count":2,"retryAfter":1}' >/dev/null
	start_watch pods --client-go 1.32 -v
	wait_until 20 synced
	stop_watch
	[ "$(nreq list)" -eq 3 ]
	grep -q 'server asked to retry later (503)' "$ERR"
	# Retried, not failed: no error, no relist.
	! grep -q ' error: ' "$ERR"
}

@test "a watch or a list that gets no answer is retried 10 times, 1 s apart, by the REST client; past that a watch is empty: no relist" {
	sim_start --pods 3
	simctl POST /faults '{"verb":"list","kind":"reset","count":2}' >/dev/null
	start_watch pods --client-go 1.32
	wait_until 20 synced
	# Two resets, then the list: one LIST as far as the reflector knows.
	[ "$(nreq list)" -eq 3 ]
	run ! grep -q 'error:' "$ERR"
	sleep 1.2	# no "very short watch"
	simctl POST /faults '{"verb":"watch","kind":"reset","count":5}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	update_pod pod-1 '{"metadata":{"labels":{"after":"resets"}}}'
	wait_until 20 file_has "$OUT" '"handler":"OnUpdate".*"key":"default/pod-1"'
	# rest.Request.Watch absorbed the five: no relist, no error.
	[ "$(nreq list)" -eq 3 ]
	[ "$(nreq watch)" -eq 7 ]
	# (libcurl, as Go's transport, asks again by itself once when a reused
	# connection closes unanswered: the REST client sees some of them.)
	grep -q "no answer from the server: retrying as client-go's REST client does ([1-5] of 10)" "$ERR"
	run ! grep -q 'error:' "$ERR"
	# More than ten in a row: Watch() hands back an empty watch, which ended
	# ten 1 s waits after its clock started: no very short watch, so the
	# reflector watches again from the same RV, and never relists.
	sleep 1.2
	simctl POST /faults '{"verb":"watch","kind":"reset","count":25}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	update_pod pod-2 '{"metadata":{"labels":{"after":"25 resets"}}}'
	wait_until 60 file_has "$OUT" '"handler":"OnUpdate".*"key":"default/pod-2"'
	[ "$(grep -c "no answer after the REST client's 10 retries .*: an empty watch" "$ERR")" -ge 2 ]
	[ "$(nreq list)" -eq 3 ]
	run ! grep -q 'error:' "$ERR"
	stop_watch
}

@test "a 429 or 5xx with Retry-After on a watch is retried 10 times; then a 429 backs off and re-watches, a 5xx relists" {
	sim_start --pods 3
	start_watch pods --client-go 1.32
	wait_until 20 synced
	sleep 1.2
	simctl POST /faults '{"verb":"watch","kind":"429","retryAfter":1,"count":12}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	update_pod pod-1 '{"metadata":{"labels":{"after":"429"}}}'
	wait_until 40 file_has "$OUT" '"handler":"OnUpdate".*"key":"default/pod-1"'
	# 1 + 10 retries, then the reflector's backoff, then the twelfth 429 retried.
	[ "$(grep -c 'server asked to retry later (429)' "$ERR")" -eq 11 ]
	[ "$(grep -c 'error: watch pods: .*429' "$ERR")" -eq 1 ]
	[ "$(nlists)" -eq 1 ]
	sleep 1.2
	simctl POST /faults '{"verb":"watch","kind":"503","retryAfter":1,"count":11}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 40 bash -c "$(declare -f nlists simctl); [ \$(nlists) -eq 2 ]"
	[ "$(grep -c 'server asked to retry later (503)' "$ERR")" -eq 10 ]
	stop_watch
}

@test "a 429 without Retry-After in the middle of a paged LIST: backoff, then the list again from its first page" {
	sim_start --pods 6
	start_watch pods --client-go 1.32 --chunk-size 2
	wait_until 20 synced
	sleep 1.2
	# A relist at kinf's RV comes in pages of 2 (the first list, at "0", in one).
	local status='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","code":429}'
	simctl POST /faults "$(jq -n -c --arg b "$status" '{verb:"list-continue",kind:"body",status:429,count:1,body:$b}')" >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"500","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 30 file_has "$ERR" 'relist #1'
	stop_watch
	# "0" whole; then page 1, page 2 (429); after a backoff pages 1, 2 and 3.
	[ "$(simctl GET '/requests?verb=list' | jq -c '[.[] | [.status, (.query.continue != null)]]')" = \
	  '[[200,false],[200,false],[429,true],[200,false],[200,true],[200,true]]' ]
	grep -q 'error: list pods: .*slow down' "$ERR"
	run ! grep -q 'server asked to retry later' "$ERR"
}
