#!/usr/bin/env bats
# The simulated kube-apiserver's injected faults (POST /faults): each kind
# shows on the wire as it should, for the next COUNT matching requests only.

load sim_helper

setup() {
	sim_start --pods 4
	B=$BATS_TEST_TMPDIR
}

teardown() {
	sim_stop
}

fault() { simctl POST /faults "$1" >/dev/null; }

@test "429: Status TooManyRequests with Retry-After, for COUNT requests" {
	fault '{"verb":"list","kind":"429","count":2,"retryAfter":3}'
	simctl GET /faults | jq -e '.faults[0].count == 2'
	code=$(simcurl -D "$B/h" -o "$B/body" -w '%{http_code}' /api/v1/pods)
	[ "$code" = 429 ]
	grep -qi '^retry-after: 3' "$B/h"
	jq -e '.kind == "Status" and .reason == "TooManyRequests" and .details.retryAfterSeconds == 3 and .code == 429' "$B/body"
	# a watch doesn't match a list fault
	[ "$(simcurl -o /dev/null -w '%{http_code}' '/api/v1/pods?watch=1&timeoutSeconds=1')" = 200 ]
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/pods)" = 429 ]
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/pods)" = 200 ]
	simctl GET /faults | jq -e '.faults == []'
}

@test "500: an InternalError Status; a resource filter spares other resources" {
	fault '{"verb":"any","resource":"configmaps","kind":"500","count":1}'
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/pods)" = 200 ]
	code=$(simcurl -o "$B/body" -w '%{http_code}' /api/v1/namespaces/default/configmaps)
	[ "$code" = 500 ]
	jq -e '.kind == "Status" and .reason == "InternalError" and .code == 500' "$B/body"
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/namespaces/default/configmaps)" = 200 ]
}

@test "hang: a list gets nothing at all; a watch gets its headers and then silence" {
	fault '{"verb":"list","kind":"hang","seconds":30}'
	run simcurl --max-time 1 -D "$B/h" /api/v1/pods
	[ "$status" -eq 28 ]
	[ ! -s "$B/h" ]
	fault '{"verb":"watch","kind":"hang","seconds":30}'
	run simcurl -N --max-time 2 -D "$B/h" '/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=1'
	[ "$status" -eq 28 ]
	grep -q '^HTTP/1.1 200' "$B/h"
	[[ "$output" != *'{'* ]]	# (only curl's complaint)
	# the hung request went away, the next is served
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=1'
	[ "${#lines[@]}" -eq 4 ]
	# a hung watch still counts as open, and drop-watches ends it
	fault '{"verb":"watch","kind":"hang","seconds":30}'
	( rc=0; simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=20' >"$B/w" || rc=$?; echo $rc >"$B/w.rc" ) 3>&- &
	for i in $(seq 50); do [ "$(simctl GET /stats | jq .openWatches)" -eq 1 ] && break; sleep 0.1; done
	simctl POST /drop-watches '{"mode":"clean"}' | jq -e '.dropped == 1'
	for i in $(seq 50); do [ -s "$B/w.rc" ] && break; sleep 0.1; done
	[ "$(cat "$B/w.rc")" = 0 ]
	[ ! -s "$B/w" ]
}

@test "truncate: a list body cut mid-JSON; a watch stream whose last event is cut" {
	fault '{"verb":"list","kind":"truncate"}'
	code=$(simcurl -o "$B/body" -w '%{http_code}' /api/v1/pods)
	[ "$code" = 200 ]
	[ -s "$B/body" ]
	! jq . "$B/body" >/dev/null 2>&1 || false
	head -c 30 "$B/body" | grep -q '^{"kind":"PodList"'
	fault '{"verb":"watch","kind":"truncate"}'
	simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=5' >"$B/w"
	[ -s "$B/w" ]
	! jq -c . "$B/w" >/dev/null 2>&1 || false
	[ "$(tail -c 1 "$B/w" | od -An -c | tr -d ' ')" != '\n' ]
}

@test "garbage: a non-JSON list body; a non-JSON line in a watch stream" {
	fault '{"verb":"list","kind":"garbage"}'
	code=$(simcurl -o "$B/body" -w '%{http_code}' /api/v1/pods)
	[ "$code" = 200 ]
	! jq . "$B/body" >/dev/null 2>&1 || false
	fault '{"verb":"watch","kind":"garbage"}'
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=1'
	[ "$status" -eq 0 ]
	! jq . <<<"${lines[0]}" >/dev/null 2>&1 || false
	jq -e '.type == "ADDED"' <<<"${lines[1]}"
}

@test "drip: the response comes a few bytes at a time, complete" {
	fault '{"verb":"get","kind":"drip","seconds":2}'
	start=$(date +%s%N)
	run simcurl /api/v1/namespaces/default/pods/pod-0
	elapsed=$((($(date +%s%N) - start) / 1000000))
	[ "$elapsed" -ge 1800 ]
	jq -e '.metadata.name == "pod-0"' <<<"$output"
	fault '{"verb":"watch","kind":"drip","seconds":1}'
	start=$(date +%s%N)
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=2'
	[ "$(($(date +%s%N) - start))" -ge 1900000000 ]
	[ "${#lines[@]}" -eq 4 ]
	jq -s -e 'all(.[]; .type == "ADDED")' <<<"$output"
}

@test "410: a list answers HTTP 410 Expired, a watch 200 with an ERROR event" {
	fault '{"verb":"list","kind":"410"}'
	code=$(simcurl -o "$B/body" -w '%{http_code}' '/api/v1/pods?limit=2')
	[ "$code" = 410 ]
	jq -e '.reason == "Expired" and .code == 410' "$B/body"
	fault '{"verb":"watch","kind":"410"}'
	code=$(simcurl -N -o "$B/body" -w '%{http_code}' '/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=5')
	[ "$code" = 200 ]
	jq -e '.type == "ERROR" and .object.code == 410 and .object.reason == "Expired"' "$B/body"
}

@test "list-continue faults hit only the pages after the first" {
	fault '{"verb":"list-continue","kind":"410"}'
	run simcurl '/api/v1/pods?limit=2'
	tok=$(jq -r .metadata.continue <<<"$output")
	[ "$(simcurl -o /dev/null -w '%{http_code}' "/api/v1/pods?limit=2&continue=$tok")" = 410 ]
	[ "$(simcurl -o /dev/null -w '%{http_code}' "/api/v1/pods?limit=2&continue=$tok")" = 200 ]
}

@test "discovery faults, 401 and reset; DELETE /faults clears them" {
	fault '{"verb":"discovery","kind":"503","count":5}'
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api)" = 503 ]
	run kubectl --kubeconfig "$SIM_KUBECONFIG" get --raw /apis
	[ "$status" -ne 0 ]
	simctl DELETE /faults | jq -e '.cleared == 1'
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api)" = 200 ]
	fault '{"verb":"get","kind":"401"}'
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/namespaces/default/pods/pod-1)" = 401 ]
	fault '{"verb":"list","kind":"reset"}'
	run simcurl /api/v1/pods
	[ "$status" -ne 0 ]
	simctl GET /requests | jq -e '[.[] | .status] | index(503) != null and index(401) != null'
	run simctl POST /faults '{"verb":"list","kind":"nonsense"}'
	[ "$status" -ne 0 ]
}

@test "500, 503 and 504 send Retry-After and details.retryAfterSeconds when the fault has retryAfter" {
	fault '{"verb":"list","kind":"503","retryAfter":7}'
	run simcurl -i /api/v1/pods
	[[ "${lines[0]}" == "HTTP/1.1 503 "* ]]
	grep -qi '^retry-after: 7' <<<"$output"
	jq -e '.reason == "ServiceUnavailable" and .details.retryAfterSeconds == 7 and .code == 503' <<<"${lines[-1]}"
	fault '{"verb":"get","kind":"500","retryAfter":2}'
	run simcurl -i /api/v1/namespaces/default/pods/pod-0
	[[ "${lines[0]}" == "HTTP/1.1 500 "* ]]
	grep -qi '^retry-after: 2' <<<"$output"
	jq -e '.reason == "InternalError" and .details == {"causes":[{"message":"injected fault"}],"retryAfterSeconds":2}' <<<"${lines[-1]}"
	fault '{"verb":"watch","kind":"504","retryAfter":3}'
	run simcurl -i '/api/v1/pods?watch=1&timeoutSeconds=1'
	[[ "${lines[0]}" == "HTTP/1.1 504 "* ]]
	grep -qi '^retry-after: 3' <<<"$output"
	jq -e '.reason == "Timeout" and .details.retryAfterSeconds == 3' <<<"${lines[-1]}"
	# without retryAfter: neither
	fault '{"verb":"list","kind":"503"}'
	run simcurl -i /api/v1/pods
	[[ "${lines[0]}" == "HTTP/1.1 503 "* ]]
	! grep -qi '^retry-after' <<<"$output" || false
	jq -e 'has("details") | not' <<<"${lines[-1]}"
}

@test "bad watch events: badevent, nometa, unknowntype and rvback after the initial events, for COUNT watches" {
	W='/api/v1/pods?watch=1&timeoutSeconds=1'
	fault '{"verb":"watch","kind":"badevent","count":2}'
	for i in 1 2; do
		run simcurl -N "$W"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 5 ]
		jq -s -e 'all(.[]; .type == "ADDED")' <<<"$(printf '%s\n' "${lines[@]:0:4}")"
		[ "${lines[4]}" = '{"type":"MODIFIED","object":{"kind":"Pod",}}' ]
	done
	run simcurl -N "$W"
	[ "${#lines[@]}" -eq 4 ]
	fault '{"verb":"watch","kind":"nometa"}'
	run simcurl -N "$W"
	jq -e '.type == "MODIFIED" and .object.kind == "Pod" and .object.apiVersion == "v1" and (.object | has("metadata") | not) and .object.spec != null' <<<"${lines[4]}"
	fault '{"verb":"watch","kind":"unknowntype"}'
	run simcurl -N "$W"
	jq -e '.type == "FROB" and .object.kind == "Pod" and .object.metadata.name == "pod-3"' <<<"${lines[4]}"
	fault '{"verb":"watch","kind":"rvback"}'
	run simcurl -N "$W"
	[ "${#lines[@]}" -eq 5 ]
	prev=$(jq -r .object.metadata.resourceVersion <<<"${lines[3]}")
	jq -e --arg prev "$prev" '.type == "MODIFIED" and .object.metadata.name == "pod-3" and
		(.object.metadata.resourceVersion | tonumber) < ($prev | tonumber)' <<<"${lines[4]}"
	# a watch from a resourceVersion has no initial events: it comes after the first event
	rv=$(simcurl /api/v1/pods | jq -r .metadata.resourceVersion)
	fault '{"verb":"watch","kind":"rvback"}'
	( simcurl -N "/api/v1/pods?watch=1&resourceVersion=$rv&timeoutSeconds=2" >"$B/w" ) 3>&- &
	wpid=$!
	for i in $(seq 50); do [ "$(simctl GET /stats | jq .openWatches)" -eq 1 ] && break; sleep 0.1; done
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"labels":{"a":"b"}}}}' >/dev/null
	wait "$wpid"
	run jq -c '[.type, .object.metadata.name, (.object.metadata.resourceVersion | tonumber) - '"$rv"']' "$B/w"
	[ "$output" = "$(printf '["MODIFIED","pod-1",1]\n["MODIFIED","pod-1",0]')" ]
	# watch-only kinds are refused for other verbs
	run simctl POST /faults '{"verb":"list","kind":"badevent"}'
	[ "$status" -ne 0 ]
}

@test "error429 and error500: an ERROR event after the initial events, then the end of the stream" {
	fault '{"verb":"watch","kind":"error429","retryAfter":4}'
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=30'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	jq -e '.type == "ERROR" and .object.kind == "Status" and .object.code == 429 and .object.reason == "TooManyRequests" and
		.object.details.retryAfterSeconds == 4' <<<"${lines[4]}"
	fault '{"verb":"watch","kind":"error500","count":2}'
	for i in 1 2; do
		run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=30'
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 5 ]
		jq -e '.type == "ERROR" and .object.code == 500 and .object.reason == "InternalError" and
			(.object.details | has("retryAfterSeconds") | not)' <<<"${lines[4]}"
	done
	simctl GET /faults | jq -e '.faults == []'
}

@test "streaming-list faults: cut-after-initial, end-before-bookmark, and the watchlist verb" {
	WL='/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=30'
	fault '{"verb":"watchlist","kind":"cut-after-initial"}'
	# a plain watch doesn't match watchlist
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=1'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	simcurl -N "$WL" >"$B/w" && rc=0 || rc=$?
	[ "$rc" -eq 18 ] || [ "$rc" -eq 56 ]
	[ "$(wc -l <"$B/w")" -eq 5 ]
	tail -1 "$B/w" | jq -e '.type == "BOOKMARK" and .object.metadata.annotations["k8s.io/initial-events-end"] == "true"'
	# verb watch matches every watch; these kinds wait for a streaming list
	fault '{"verb":"watch","kind":"end-before-bookmark"}'
	run simcurl -N '/api/v1/pods?watch=1&timeoutSeconds=1'
	[ "${#lines[@]}" -eq 4 ]
	start=$SECONDS
	run simcurl -N "$WL"
	[ "$status" -eq 0 ]
	[ $((SECONDS - start)) -lt 5 ]
	[ "${#lines[@]}" -eq 4 ]
	jq -s -e 'all(.[]; .type == "ADDED")' <<<"$output"
	simctl GET /faults | jq -e '.faults == []'
	# the usual kinds with verb watchlist
	fault '{"verb":"watchlist","kind":"429","retryAfter":2}'
	[ "$(simcurl -o /dev/null -w '%{http_code}' '/api/v1/pods?watch=1&timeoutSeconds=1')" = 200 ]
	[ "$(simcurl -o /dev/null -w '%{http_code}' "$WL")" = 429 ]
	fault '{"verb":"watchlist","kind":"500"}'
	[ "$(simcurl -o /dev/null -w '%{http_code}' "$WL")" = 500 ]
	fault '{"verb":"watchlist","kind":"410"}'
	run simcurl -N "$WL"
	[ "${#lines[@]}" -eq 1 ]
	jq -e '.type == "ERROR" and .object.code == 410 and .object.reason == "Expired"' <<<"$output"
	fault '{"verb":"watchlist","kind":"hang","seconds":30}'
	run simcurl -N --max-time 1 -D "$B/h" "$WL"
	[ "$status" -eq 28 ]
	grep -q '^HTTP/1.1 200' "$B/h"
	fault '{"verb":"watchlist","kind":"error429"}'
	run simcurl -N "$WL"
	[ "${#lines[@]}" -eq 6 ]
	jq -e '.type == "BOOKMARK"' <<<"${lines[4]}"
	jq -e '.type == "ERROR" and .object.code == 429' <<<"${lines[5]}"
}

@test "body: any status, Content-Type and bytes instead of the answer, for any verb" {
	fault '{"verb":"list","kind":"body","status":200,"contentType":"text/html","body":"<html>502 Bad Gateway</html>"}'
	simcurl -D "$B/h" -o "$B/body" /api/v1/pods
	grep -qi '^content-type: text/html' "$B/h"
	[ "$(cat "$B/body")" = '<html>502 Bad Gateway</html>' ]
	# base64: bytes JSON strings can't carry as themselves (NUL, invalid UTF-8)
	fault '{"verb":"watch","kind":"body","status":503,"base64":true,"body":"AP8K"}'
	code=$(simcurl -o "$B/body" -w '%{http_code}' '/api/v1/pods?watch=1')
	[ "$code" = 503 ]
	[ "$(xxd -p "$B/body")" = 00ff0a ]
	[ "$(simcurl -o /dev/null -w '%{http_code}' /api/v1/pods)" = 200 ]
}

@test "lines: watch lines first, then the stream as usual or its end" {
	fault '{"verb":"watch","kind":"lines","lines":["{\"type\":\"BOGUS\"}","not json"]}'
	timeout 5 curl -sS -N -H "Authorization: Bearer $SIM_TOKEN" --cacert "$SIM_CACERT" \
		"$SIM_API/api/v1/pods?watch=1&timeoutSeconds=1" >"$B/w" || true
	[ "$(sed -n 1p "$B/w")" = '{"type":"BOGUS"}' ]
	[ "$(sed -n 2p "$B/w")" = 'not json' ]
	[ "$(grep -c '"ADDED"' "$B/w")" -eq 4 ]
	fault '{"verb":"watch","kind":"lines","base64":true,"lines":["AAE="],"end":true}'
	simcurl '/api/v1/pods?watch=1' >"$B/w"
	[ "$(xxd -p "$B/w")" = 00010a ]
	# lines are for watches: a list is answered as usual
	fault '{"verb":"list","kind":"lines","lines":["x"]}'
	simcurl /api/v1/pods | jq -e '.items | length == 4'
	run simctl POST /faults '{"verb":"watch","kind":"lines","lines":"x"}'
	[ "$status" -ne 0 ]
}
