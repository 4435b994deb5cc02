#!/usr/bin/env bats
# The simulated kube-apiserver's watch streams: event order and content,
# selectors, bookmarks, streaming lists, compaction, and connections the
# server drops.

load sim_helper
bats_require_minimum_version 1.5.0

teardown() {
	sim_stop
}

# watch_bg FILE QUERY [curl args]: a watch on /api/v1/pods?QUERY in the
# background, its events into FILE and curl's exit status into FILE.rc
watch_bg() {
	local file=$1 query=$2
	shift 2
	( rc=0; simcurl -N "$@" "/api/v1/pods?watch=1&$query" >"$file" || rc=$?; echo $rc >"$file.rc" ) 3>&- &
}

# waits (up to 10 s) for curl to finish
watch_done() {
	local i
	for i in $(seq 100); do [ -s "$1.rc" ] && return 0; sleep 0.1; done
	return 1
}

# waits for the simulator to count N open watches
open_watches() {
	local i
	for i in $(seq 100); do
		[ "$(simctl GET /stats | jq .openWatches)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

list_rv() { simcurl "/api/v1/pods" | jq -r .metadata.resourceVersion; }

@test "kubectl get -w sees a churn's events" {
	sim_start --pods 5
	out=$BATS_TEST_TMPDIR/kubectl.json
	timeout 5 kubectl --kubeconfig "$SIM_KUBECONFIG" get pods -w --output-watch-events -o json >"$out" 3>&- &
	kpid=$!
	open_watches 1
	simctl POST /churn '{"resource":"pods","count":20,"seed":4,"mix":{"add":1,"update":2,"delete":1}}' >/dev/null
	wait "$kpid" || true
	jq -s -e '([.[] | select(.type == "ADDED")] | length) >= 5 and any(.[]; .type == "MODIFIED") and any(.[]; .type == "DELETED")' "$out"
	jq -s -e 'all(.[]; .object.kind == "Pod")' "$out"
}

@test "a watch from a list's resourceVersion replays to the oracle's state, in order" {
	sim_start --pods 15 --namespaces 1
	list=$(simcurl /api/v1/pods)
	rv=$(jq -r .metadata.resourceVersion <<<"$list")
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "resourceVersion=$rv&timeoutSeconds=3"
	open_watches 1
	simctl POST /churn '{"resource":"pods","count":80,"seed":9,"mix":{"add":1,"update":3,"delete":1}}' >/dev/null
	watch_done "$w"
	[ "$(cat "$w.rc")" = 0 ]
	# one compact JSON object per line, with kind and apiVersion, RVs rising
	jq -c -e '.object.kind == "Pod" and .object.apiVersion == "v1"' "$w" >/dev/null
	jq -s -e '[.[].object.metadata.resourceVersion | tonumber] | . == sort and . == unique' "$w"
	jq -s -e --arg rv "$rv" 'all(.[]; (.object.metadata.resourceVersion | tonumber) > ($rv | tonumber))' "$w"
	# graceful pod deletion: MODIFIED with deletionTimestamp, then DELETED
	jq -s -e '[.[] | select(.type == "DELETED")] | length > 0 and all(.[]; .object.metadata.deletionTimestamp != null)' "$w"
	replay=$(jq -S -c --slurpfile ev "$w" '
		reduce $ev[] as $e ([.items[] | {key: (.metadata.namespace + "/" + .metadata.name), value: .metadata.resourceVersion}] | from_entries;
			($e.object.metadata.namespace + "/" + $e.object.metadata.name) as $k |
			if $e.type == "DELETED" then del(.[$k]) else .[$k] = $e.object.metadata.resourceVersion end)' <<<"$list")
	[ "$replay" = "$(sim_oracle pods | jq -S -c .items)" ]
}

@test "a watch from resourceVersion 0 starts with ADDED for every object, then ends at timeoutSeconds" {
	sim_start --pods 9 --namespaces 2
	start=$SECONDS
	run simcurl -N '/api/v1/pods?watch=1&resourceVersion=0&timeoutSeconds=2'
	[ "$status" -eq 0 ]
	[ $((SECONDS - start)) -ge 1 ]
	[ "${#lines[@]}" -eq 9 ]
	jq -s -e 'all(.[]; .type == "ADDED")' <<<"$output"
	run simcurl -N '/api/v1/namespaces/ns-1/pods?watch=1&timeoutSeconds=1'
	[ "${#lines[@]}" -eq 3 ]
	run simcurl -N '/apis/apps/v1/watch/namespaces/default/deployments?timeoutSeconds=1'
	jq -s -e 'length == 1 and .[0].object.kind == "Deployment" and .[0].object.apiVersion == "apps/v1"' <<<"$output"
	run simcurl -N '/apis/stable.example.com/v1/crontabs?watch=true&timeoutSeconds=1'
	jq -s -e 'length == 3 and all(.[]; .object.kind == "CronTab")' <<<"$output"
}

@test "a watch from a compacted resourceVersion is HTTP 200 with one ERROR 410 event" {
	sim_start --pods 3
	rv=$(list_rv)
	simctl POST /churn '{"resource":"pods","count":5}' >/dev/null
	simctl POST /compact >/dev/null
	run simcurl -N -D "$BATS_TEST_TMPDIR/headers" "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=5"
	[ "$status" -eq 0 ]
	grep -q '^HTTP/1.1 200' "$BATS_TEST_TMPDIR/headers"
	grep -qi '^transfer-encoding: chunked' "$BATS_TEST_TMPDIR/headers"
	[ "${#lines[@]}" -eq 1 ]
	jq -e --arg rv "$rv" '.type == "ERROR" and .object.kind == "Status" and .object.code == 410 and
		.object.reason == "Expired" and (.object.message | startswith("too old resource version: " + $rv + " ("))' <<<"$output"
	# the current resourceVersion is still good
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$(list_rv)&timeoutSeconds=1"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the history window: a watch further back than --history events is too old" {
	sim_start --pods 3 --history 10
	rv=$(list_rv)
	simctl POST /churn '{"resource":"pods","count":5,"mix":{"update":1}}' >/dev/null
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1"
	[ "${#lines[@]}" -eq 5 ]
	simctl POST /churn '{"resource":"pods","count":20,"mix":{"update":1}}' >/dev/null
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1"
	jq -e '.type == "ERROR" and .object.code == 410' <<<"$output"
}

@test "with a label selector, leaving is DELETED and entering is ADDED" {
	sim_start --pods 3
	rv=$(list_rv)
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "labelSelector=color%3Dblue&resourceVersion=$rv&timeoutSeconds=5"
	open_watches 1
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"color":"blue"}}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"annotations":{"a":"b"}}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-2","patch":{"metadata":{"labels":{"color":"red"}}}}' >/dev/null
	left=$(simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"color":"green"}}}}' | jq -r .metadata.resourceVersion)
	watch_done "$w"
	run jq -c '[.type, .object.metadata.name, .object.metadata.labels.color]' "$w"
	[ "${lines[0]}" = '["ADDED","pod-1","blue"]' ]
	[ "${lines[1]}" = '["MODIFIED","pod-1","blue"]' ]
	# the previous content, carrying the resourceVersion of the change
	[ "${lines[2]}" = '["DELETED","pod-1","blue"]' ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(tail -1 "$w" | jq -r .object.metadata.resourceVersion)" = "$left" ]
}

@test "field selectors on watches" {
	sim_start --pods 3
	run simcurl -N '/api/v1/pods?watch=1&fieldSelector=metadata.name%3Dpod-2&timeoutSeconds=1'
	[ "${#lines[@]}" -eq 1 ]
	jq -e '.object.metadata.name == "pod-2"' <<<"$output"
	rv=$(list_rv)
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "fieldSelector=status.phase%3DFailed&resourceVersion=$rv&timeoutSeconds=5"
	open_watches 1
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"status":{"phase":"Failed"}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"x":"y"}}}}' >/dev/null
	watch_done "$w"
	run jq -c '[.type, .object.metadata.name, .object.status.phase]' "$w"
	[ "$output" = '["ADDED","pod-0","Failed"]' ]
}

@test "a streaming list: ADDED for everything, the initial-events-end bookmark, then events" {
	sim_start --pods 4
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=3"
	open_watches 1
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-3","patch":{"metadata":{"labels":{"late":"yes"}}}}' >/dev/null
	watch_done "$w"
	run jq -c '[.type, .object.metadata.name]' "$w"
	[ "${lines[0]}" = '["ADDED","pod-0"]' ]
	[ "${lines[3]}" = '["ADDED","pod-3"]' ]
	[ "${lines[4]}" = '["BOOKMARK",null]' ]
	[ "${lines[5]}" = '["MODIFIED","pod-3"]' ]
	sed -n 5p "$w" | jq -e '.object.kind == "Pod" and .object.metadata.annotations["k8s.io/initial-events-end"] == "true" and
		.object.spec.containers == null and .object.status == {} and (.object.metadata | has("creationTimestamp"))'
	bm=$(sed -n 5p "$w" | jq -r .object.metadata.resourceVersion)
	[ "$(sed -n 6p "$w" | jq -r .object.metadata.resourceVersion)" -gt "$bm" ]
	# without allowWatchBookmarks or resourceVersionMatch it is invalid
	code=$(simcurl -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' '/api/v1/pods?watch=1&sendInitialEvents=true')
	[ "$code" = 422 ]
	jq -e '.reason == "Invalid"' "$BATS_TEST_TMPDIR/body"
}

@test "--no-watch-list refuses streaming lists as a server without the WatchList gate does" {
	sim_start --pods 1 --no-watch-list
	code=$(simcurl -o "$BATS_TEST_TMPDIR/body" -w '%{http_code}' \
		'/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true')
	[ "$code" = 422 ]
	jq -e '.reason == "Invalid" and (.message | contains("WatchList"))' "$BATS_TEST_TMPDIR/body"
}

@test "bookmarks: every --bookmark-interval, before the timeout, and on demand; only when allowed" {
	sim_start --pods 2 --bookmark-interval 1
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"elsewhere","namespace":"default"}}}' >/dev/null
	global=$(sim_oracle configmaps | jq -r .resourceVersion)
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$global&allowWatchBookmarks=true&timeoutSeconds=3"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 2 ]
	# the kind's zero value with only the resourceVersion set: the global one
	jq -e --arg rv "$global" '.type == "BOOKMARK" and .object == {"kind":"Pod","apiVersion":"v1",
		"metadata":{"resourceVersion":$rv,"creationTimestamp":null},"spec":{"containers":null},"status":{}}' <<<"${lines[0]}"
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$global&timeoutSeconds=3"
	[ -z "$output" ]
	sim_stop
	# with the default 60 s period: one bookmark about 2 s before the end, and one when asked
	sim_start --pods 1
	w=$BATS_TEST_TMPDIR/w
	( rc=0; simcurl -N '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=4' >"$w" || rc=$?; echo $rc >"$w.rc" ) 3>&- &
	open_watches 1
	simctl POST /bookmark | jq -e '.watches == 1'
	watch_done "$w"
	run jq -r .type "$w"
	[ "$output" = "$(printf 'ADDED\nADDED\nBOOKMARK\nBOOKMARK')" ]
	tail -1 "$w" | jq -e '.object == {"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":.object.metadata.resourceVersion,"creationTimestamp":null}}'
}

@test "drop-watches: abrupt closes mid-stream (curl 18), clean ends the stream (curl 0)" {
	sim_start --pods 2
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "timeoutSeconds=30"
	open_watches 1
	simctl POST /drop-watches '{"mode":"abrupt"}' | jq -e '.dropped == 1'
	watch_done "$w"
	[ "$(cat "$w.rc")" = 18 ]
	rm -f "$w.rc"
	watch_bg "$w" "timeoutSeconds=30"
	open_watches 1
	simctl POST /drop-watches '{"mode":"clean"}' | jq -e '.dropped == 1'
	watch_done "$w"
	[ "$(cat "$w.rc")" = 0 ]
	[ "$(simctl GET /stats | jq .openWatches)" -eq 0 ]
}

@test "restart-watch-cache ends every watch and makes their resourceVersions too old" {
	sim_start --pods 2
	rv=$(list_rv)
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "resourceVersion=$rv&timeoutSeconds=30"
	( simcurl -N "/api/v1/configmaps?watch=1&timeoutSeconds=30" >/dev/null ) 3>&- &
	cpid=$!
	open_watches 2
	simctl POST /restart-watch-cache | jq -e '.dropped == 2'
	watch_done "$w"
	[ "$(cat "$w.rc")" = 0 ]
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=5"
	jq -e '.type == "ERROR" and .object.code == 410' <<<"$output"
	wait "$cpid"
}

@test "a watcher going away is noticed" {
	sim_start --pods 1
	simcurl -N --max-time 1 '/api/v1/pods?watch=1&timeoutSeconds=60' >/dev/null || true
	for i in $(seq 30); do [ "$(simctl GET /stats | jq .openWatches)" -eq 0 ] && break; sleep 0.1; done
	[ "$(simctl GET /stats | jq .openWatches)" -eq 0 ]
}

@test "a watch above the current resourceVersion waits for it silently; a streaming list gets an ERROR 504 event" {
	sim_start --pods 2 --bookmark-interval 1 --start-rv 300
	rv=$(list_rv)
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "resourceVersion=$((rv + 3))&allowWatchBookmarks=true&timeoutSeconds=4"
	open_watches 1
	sleep 1.5	# a bookmark would be due: none at a resourceVersion below the watch's
	for i in 1 2 3 4 5; do
		simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"n":"'$i'"}}}}' >/dev/null
	done
	watch_done "$w"
	[ "$(cat "$w.rc")" = 0 ]
	# only what came after the watch's resourceVersion; bookmarks only from it on
	run jq -c 'select(.type != "BOOKMARK") | [.type, (.object.metadata.resourceVersion | tonumber) - '"$rv"']' "$w"
	[ "$output" = "$(printf '["MODIFIED",4]\n["MODIFIED",5]')" ]
	jq -s -e --arg rv "$rv" 'any(.[]; .type == "BOOKMARK") and
		all(.[] | select(.type == "BOOKMARK"); (.object.metadata.resourceVersion | tonumber) >= ($rv | tonumber) + 3)' "$w"
	# a streaming list waits 3 s, then HTTP 200 and one ERROR event: the 504 TooLarge Status
	start=$SECONDS
	run simcurl -N -D "$BATS_TEST_TMPDIR/h" "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=$((rv + 100))"
	[ "$status" -eq 0 ]
	[ $((SECONDS - start)) -ge 2 ]
	grep -q '^HTTP/1.1 200' "$BATS_TEST_TMPDIR/h"
	[ "${#lines[@]}" -eq 1 ]
	jq -e --arg want "$((rv + 100))" '.type == "ERROR" and .object.kind == "Status" and .object.code == 504 and .object.reason == "Timeout" and
		(.object.message | startswith("Timeout: Too large resource version: " + $want + ", current: ")) and
		.object.details == {"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}' <<<"${lines[0]}"
}

@test "a silent change (a lost event) shows in lists and the oracle, never in a watch" {
	sim_start --pods 3
	rv=$(list_rv)
	w=$BATS_TEST_TMPDIR/w
	watch_bg "$w" "resourceVersion=$rv&timeoutSeconds=5"
	open_watches 1
	lost=$(simctl POST /silent '{"op":"update","resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"lost":"yes"}}}}' |
		jq -r .metadata.resourceVersion)
	[ "$lost" -eq $((rv + 1)) ]
	seen=$(simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"seen":"yes"}}}}' |
		jq -r .metadata.resourceVersion)
	[ "$seen" -eq $((rv + 2)) ]
	watch_done "$w"
	run jq -c '[.type, .object.metadata.name, .object.metadata.resourceVersion]' "$w"
	[ "$output" = '["MODIFIED","pod-1","'"$seen"'"]' ]
	# the list and the oracle have both changes
	run simcurl /api/v1/pods
	jq -e --arg lost "$lost" --arg seen "$seen" '.metadata.resourceVersion == $seen and
		(.items[] | select(.metadata.name == "pod-0") | .metadata.labels.lost == "yes" and .metadata.resourceVersion == $lost) and
		(.items[] | select(.metadata.name == "pod-1") | .metadata.labels.seen == "yes")' <<<"$output"
	sim_oracle pods | jq -e --arg lost "$lost" '.items["default/pod-0"] == $lost'
	# a watch started later from before them replays only the one that was told
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1"
	[ "${#lines[@]}" -eq 1 ]
	jq -e '.object.metadata.name == "pod-1"' <<<"$output"
	# silent create and delete
	simctl POST /silent '{"op":"create","resource":"configmaps","object":{"metadata":{"name":"sneaky"}}}' | jq -e '.metadata.name == "sneaky"'
	simctl POST /silent '{"op":"delete","resource":"pods","namespace":"default","name":"pod-2"}' | jq -e '.metadata.name == "pod-2"'
	run simcurl -N "/api/v1/pods?watch=1&resourceVersion=$seen&timeoutSeconds=1"
	[ -z "$output" ]
	sim_oracle pods | jq -e '.items | has("default/pod-2") | not'
	sim_oracle configmaps | jq -e '.items | has("default/sneaky")'
	run simctl POST /silent '{"op":"frob","resource":"pods"}'
	[ "$status" -ne 0 ]
}

@test "freeze-proxy: SIGHUP sends new connections to the address --then-file holds" {
	sim_start --pods 2
	port=${SIM_API##*:}
	# a second server, plain HTTP, where the sim speaks TLS
	mkdir "$BATS_TEST_TMPDIR/www" && echo second >"$BATS_TEST_TMPDIR/www/which"
	python3 -m http.server --bind 127.0.0.1 --directory "$BATS_TEST_TMPDIR/www" 0 \
		>"$BATS_TEST_TMPDIR/www.out" 2>&1 3>&- &
	wpid=$!
	for i in $(seq 100); do grep -qE 'port [0-9]+' "$BATS_TEST_TMPDIR/www.out" && break; sleep 0.1; done
	wport=$(grep -oE 'port [0-9]+' "$BATS_TEST_TMPDIR/www.out" | head -1 | cut -d' ' -f2)
	echo "127.0.0.1:$wport" >"$BATS_TEST_TMPDIR/then"
	"$BATS_TEST_DIRNAME/apiserver/freeze-proxy" --then-file "$BATS_TEST_TMPDIR/then" "127.0.0.1:$port" \
		>"$BATS_TEST_TMPDIR/proxy.out" 2>"$BATS_TEST_TMPDIR/proxy.err" 3>&- &
	ppid=$!
	for i in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/proxy.out" ] && break; sleep 0.1; done
	addr=$(sed -n '1s/^proxy: //p' "$BATS_TEST_TMPDIR/proxy.out")
	curl -sS --cacert "$SIM_CACERT" -H "Authorization: Bearer $SIM_TOKEN" "https://$addr/api/v1/pods" |
		jq -e '(.items | length) == 2'
	run ! curl -sS -m 5 "http://$addr/which"
	kill -HUP "$ppid"
	for i in $(seq 100); do grep -qx "then: 127.0.0.1:$wport" "$BATS_TEST_TMPDIR/proxy.out" && break; sleep 0.1; done
	grep -q "new connections go to 127.0.0.1:$wport" "$BATS_TEST_TMPDIR/proxy.err"
	[ "$(curl -sS -m 5 "http://$addr/which")" = second ]
	kill "$ppid" "$wpid"
	wait "$ppid" || true
}

@test "freeze-proxy: SIGUSR1 freezes open connections, new ones are still served; SIGUSR2 thaws" {
	sim_start --pods 2
	port=${SIM_API##*:}
	"$BATS_TEST_DIRNAME/apiserver/freeze-proxy" "127.0.0.1:$port" >"$BATS_TEST_TMPDIR/proxy.out" 2>"$BATS_TEST_TMPDIR/proxy.err" 3>&- &
	ppid=$!
	for i in $(seq 50); do [ -s "$BATS_TEST_TMPDIR/proxy.out" ] && break; sleep 0.1; done
	addr=$(sed -n '1s/^proxy: //p' "$BATS_TEST_TMPDIR/proxy.out")
	[[ "$addr" == 127.0.0.1:* ]]
	pcurl() { curl -sS --cacert "$SIM_CACERT" -H "Authorization: Bearer $SIM_TOKEN" "$@"; }
	pcurl "https://$addr/api/v1/pods" | jq -e '(.items | length) == 2'
	w=$BATS_TEST_TMPDIR/w
	( rc=0; pcurl -N "https://$addr/api/v1/pods?watch=1&resourceVersion=$(list_rv)&timeoutSeconds=20" >"$w" || rc=$?; echo $rc >"$w.rc" ) 3>&- &
	open_watches 1
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"1"}}}}' >/dev/null
	for i in $(seq 50); do [ "$(wc -l <"$w")" -ge 1 ] && break; sleep 0.1; done
	[ "$(wc -l <"$w")" -eq 1 ]
	kill -USR1 "$ppid"
	for i in $(seq 50); do grep -q 'froze 1 ' "$BATS_TEST_TMPDIR/proxy.err" && break; sleep 0.1; done
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"b":"2"}}}}' >/dev/null
	# a new connection is served while the watch gets nothing, and is not closed
	pcurl "https://$addr/api/v1/namespaces/default/pods/pod-1" | jq -e '.metadata.labels.b == "2"'
	sleep 1
	[ "$(wc -l <"$w")" -eq 1 ]
	[ ! -e "$w.rc" ]
	[ "$(simctl GET /stats | jq .openWatches)" -eq 1 ]
	kill -USR2 "$ppid"
	for i in $(seq 50); do [ "$(wc -l <"$w")" -ge 2 ] && break; sleep 0.1; done
	sed -n 2p "$w" | jq -e '.type == "MODIFIED" and .object.metadata.name == "pod-1"'
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	watch_done "$w"
	[ "$(cat "$w.rc")" = 0 ]
	kill "$ppid"
	wait "$ppid"
}
