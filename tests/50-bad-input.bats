#!/usr/bin/env bats
# The bad-input sweep: every malformed input and server misbehaviour we can
# name, one row each, and for each what kinf must do about it.
#
# A row is one @test calling one of these with its cells:
#
#   get_row   FAULT STATUS ERROR        `kinf get pods` against a server that
#                                       misbehaves once (FAULT: POST /faults
#                                       JSON): STATUS, and stderr exactly one
#                                       line matching ERROR, stdout empty.
#   watch_row WHEN FAULT NOTICE [N]     `kinf watch pods -A -o json` (LIST, not
#                                       a streaming list) meets the
#                                       fault at its first list (WHEN=list) or
#                                       at a watch (WHEN=watch): the notice
#                                       NOTICE is on stderr N times (default 1,
#                                       0: no notice), then kinf recovers: a
#                                       change made afterwards arrives, the
#                                       Indexer equals the server's truth, no
#                                       delta is printed twice, stdout is
#                                       valid UTF-8 NDJSON.
#   cli_row   STATUS ERROR ARGS...      kinf ARGS (bad flags, bad kubeconfigs):
#                                       STATUS, one line matching ERROR, no
#                                       control characters, stdout empty.
#   tui_row   ...                       the same through the TUI in tmux, and
#                                       the terminal restored.
#
# Every row also checks that no output holds a credential (the simulator's
# tokens).  kube-sim serves the bodies with its `body` and `lines` faults
# (tests/apiserver/README.md).

load test_helper
load bad_input_helper
bats_require_minimum_version 1.5.0

# ==== server misbehaviour: lists =============================================

@test "list: a proxy's HTML page with 200 — get" {
	get_row "$(body list text/html 200 '<html><body>502 Bad Gateway</body></html>')" 1 \
		"^error: server 'https://127.0.0.1:[0-9]+' answered 200 with Content-Type 'text/html', not JSON$"
}

@test "list: a proxy's HTML page with 200 — watch relists" {
	watch_row list "$(body list 'text/html; charset=utf-8' 200 '<html>502</html>')" \
		"^kinf: pods: error: server '.*' answered 200 with Content-Type 'text/html; charset=utf-8', not JSON$"
}

@test "list: a proxy's HTML error page with 502 — get" {
	get_row "$(body list text/html 502 '<html><body><h1>502 Bad Gateway</h1></body></html>')" 1 \
		'^error: .*HTTP 502 Bad Gateway$'
}

@test "list: a proxy's HTML error page with 502 — watch relists" {
	watch_row list "$(body list text/html 502 '<html>502</html>')" \
		'^kinf: pods: error: list pods: HTTP 502 Bad Gateway$'
}

@test "list: wrong Content-Type (text/plain) on a JSON body — watch relists" {
	watch_row list "$(body list text/plain 200 "$(fake_list "[$(pod a)]")")" \
		"answered 200 with Content-Type 'text/plain', not JSON"
}

@test "list: a Status (500) in a 200 answer — get" {
	local status='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd is down","reason":"InternalError","code":500}'
	get_row "$(body list application/json 200 "$status")" 1 '^error: .*etcd is down'
}

# client-go's dynamic client reads a 2xx answer without an items array as
# a list of no items (ToList), at the RV of its metadata: kinf does, and says so.
NO_ITEMS="client-go's dynamic client reads it as a list of no items$"

@test "list: a Status (500) in a 200 answer — watch takes it for a list of no items, as client-go" {
	local status='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd is down","reason":"InternalError","code":500}'
	watch_row list "$(body list application/json 200 "$status")" \
		"^kinf: pods: warning: the list's answer is a Status \(500: etcd is down\): $NO_ITEMS"
	grep -q '^kinf: pods: listed 0 objects at rv "" (1 page)$' "$B/err"
	# and watched from no resourceVersion, as client-go's reflector then does
	simctl GET '/requests?verb=watch' | jq -e '.[0].query | has("resourceVersion") | not' >/dev/null
}

@test "list: a Status (410) in a 200 answer — a list of no items too" {
	local status='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}'
	watch_row list "$(body list application/json 200 "$status")" \
		"^kinf: pods: warning: the list's answer is a Status \(410: too old\): $NO_ITEMS"
}

@test "list: a JSON document that is no list — a list of no items at its RV" {
	watch_row list "$(body list application/json 200 "$(pod a)")" \
		"^kinf: pods: warning: the list's answer is no list \(kind 'Pod', no items\): $NO_ITEMS"
	grep -q '^kinf: pods: listed 0 objects at rv 5 (1 page)$' "$B/err"
}

@test "list: no kind, or a kind that is no string — relisted, as client-go refuses it" {
	watch_row list "$(body list application/json 200 '{"apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}')" \
		'^kinf: pods: error: list response without a kind$'
	sim_stop
	watch_row list "$(body list application/json 200 '{"kind":7,"metadata":{"resourceVersion":"1"},"items":[]}')" \
		'^kinf: pods: error: list response without a kind$'
}

@test "list: items that are no array — relisted; null items — an empty list" {
	watch_row list "$(body list application/json 200 "$(fake_list '{}')")" \
		'^kinf: pods: error: list response whose items are no array$'
	sim_stop
	watch_row list "$(body list application/json 200 "$(fake_list null)")" 'error' 0
	grep -q '^kinf: pods: listed 0 objects at rv 1 (1 page)$' "$B/err"
}

@test "list: a null item — an object of the list's kind, under the key \"\", as client-go" {
	watch_row list "$(body list application/json 200 "$(fake_list "[null,$(pod a)]")")" 'error' 0
	delta '.key == "" and .object == {"kind":"Pod","apiVersion":"v1"} and .initialList'
	delta '.key == "default/a" and .initialList'
}

@test "list: a resourceVersion or continue that is no string is none, as client-go reads it" {
	watch_row list "$(body list application/json 200 '{"kind":"PodList","metadata":{"resourceVersion":5,"continue":7},"items":[]}')" 'error' 0
	grep -q '^kinf: pods: listed 0 objects at rv "" (1 page)$' "$B/err"
}

# json-c reads a null member as no value: each of these once crashed kinf
@test "list: null where the list's kind, resourceVersion and continue go — get" {
	get_row "$(body list application/json 200 '{"kind":null,"metadata":{"resourceVersion":null,"continue":null},"items":[]}')" \
		0 '^No resources found in default namespace\.$'
}

@test "list: null continue — watch goes on as at the last page" {
	watch_row list "$(body list application/json 200 '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1","continue":null},"items":[]}')" 'error' 0
}

@test "list: a Status with a null message in a 200 answer — no message" {
	watch_row list "$(body list application/json 200 '{"kind":"Status","message":null,"code":500}')" \
		"^kinf: pods: warning: the list's answer is a Status \(500: no message\): $NO_ITEMS"
}

@test "list: a 403 Status whose message and reason are null — get says the code" {
	get_row "$(body list application/json 403 '{"kind":"Status","apiVersion":"v1","status":"Failure","message":null,"reason":null,"code":403}')" \
		1 '^error: .*403'
}

@test "list: null where a Table's or a list's arrays go — get and get -w: no crash, at most one line of error" {
	local table='"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1"},"columnDefinitions":[{"name":"Name","type":"string","format":"name"}]'
	local bad args rc fails=0
	for bad in "{$table,\"rows\":[{\"cells\":null}]}" "{$table,\"rows\":null}" \
		   '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":null}'; do
		for args in "" "--sort-by=.metadata.name" "-w --request-timeout=1s"; do
			sim_start --pods 2
			fault "$(body list application/json 200 "$bad")"
			rc=0
			"$KINF" get pods $args --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" || rc=$?
			[ "$rc" -le 1 ] && [ "$(wc -l <"$B/err")" -le 1 ] ||
				{ echo "# get pods $args on $bad: status $rc: $(head -c 300 "$B/err")" >&2; fails=$((fails + 1)); }
			sim_stop
		done
	done
	[ "$fails" -eq 0 ]
}

@test "list: a body cut in the middle — get" {
	get_row "$(body list application/json 200 '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"')" \
		1 '^error: '
}

@test "list: a body cut in the middle — watch relists" {
	watch_row list "$(body list application/json 200 '{"kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"')" \
		'^kinf: pods: error: list response ended early$'
}

@test "list: an empty 200 body — watch relists" {
	watch_row list "$(body list application/json 200 '')" '^kinf: pods: error: list response ended early$'
}

@test "list: garbage with a JSON Content-Type — watch relists" {
	watch_row list "$(body list application/json 200 'this is not JSON {{{')" \
		"^kinf: pods: error: list response is not JSON: it begins 'this is not JSON \\{\\{\\{'$"
}

@test "list: items that are no objects (1, \"x\", null) — watch relists, deletes nothing" {
	watch_row list "$(body list application/json 200 "$(fake_list '[1,"x",null]')")" \
		'^kinf: pods: error: malformed list response$'
	! grep -q '"handler":"OnDelete"' "$B/out" || false
}

@test "list: an item larger than 16 MiB — watch relists" {
	python3 - "$B/fault.json" <<-'EOF'
		import json, sys
		item = {"metadata": {"name": "huge", "namespace": "default",
		        "annotations": {"a": "x" * (17 << 20)}}}
		body = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": [item]}
		json.dump({"verb": "list", "resource": "pods", "kind": "body", "body": json.dumps(body)},
		          open(sys.argv[1], "w"))
	EOF
	watch_row list "$B/fault.json" '^kinf: pods: error: list response holds a piece larger than 16 MiB$'
}

@test "list: an item nested deeper than Go reads (10,000) — watch relists" {
	local deep
	deep=$(printf '%.0s[' {1..10001}; printf '%.0s]' {1..10001})
	watch_row list "$(body list application/json 200 "$(fake_list "[{\"metadata\":{\"name\":\"deep\",\"namespace\":\"default\"},\"spec\":$deep}]")")" \
		'^kinf: pods: error: cannot parse object: nested too deeply at byte [0-9]+$'
}

@test "list: metadata nested 100,000 deep — watch relists" {
	python3 - "$B/fault.json" <<-'EOF'
		import json, sys
		deep = '{"a":' * 100000 + "1" + "}" * 100000
		json.dump({"verb": "list", "resource": "pods", "kind": "body",
		           "body": '{"metadata":' + deep + ',"items":[]}'}, open(sys.argv[1], "w"))
	EOF
	watch_row list "$B/fault.json" '^kinf: pods: error: malformed list response$'
}

@test "list: invalid UTF-8 in a name — U+FFFD, as Go decodes it" {
	# {"kind":"PodList",...,"items":[{"metadata":{"name":"bad<ff>name","namespace":"default","resourceVersion":"5"}}]}
	local b64
	b64=$(printf '%s' "$(fake_list "[$(pod 'badXname')]")" | sed 's/X/\xff/' | base64 -w0)
	watch_row list "$(body64 list "$b64")" 'error' 0
	delta '.name == "bad\ufffdname" and (.type | startswith("Replaced"))'
	# ... and then deleted by the relist: the server never had it.
	delta '.name == "bad\ufffdname" and .handler == "OnDelete"'
}

@test "list: a NUL byte in the body — watch relists" {
	local b64
	b64=$(printf '%s' "$(fake_list "[$(pod 'nulXname')]")" | sed 's/X/\x00/' | base64 -w0)
	watch_row list "$(body64 list "$b64")" '^kinf: pods: error: cannot parse object: '
}

@test "list: an escaped NUL (\\u0000) in a name — refused, watch relists" {
	watch_row list "$(body list application/json 200 "$(fake_list "[$(pod 'x\u0000y')]")")" \
		'^kinf: pods: error: cannot parse object: a NUL byte in its name or namespace at byte [0-9]+$'
}

@test "list: a resourceVersion that is no number — relisted at it after each backoff, as client-go" {
	stuck_row list "$(body list application/json 200 '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"not-a-number"},"items":[]}')" \
		not-a-number
	grep -q 'listed .* at rv not-a-number' "$B/err"
}

@test "list: the same key twice — the later one wins, as in client-go's Replace" {
	watch_row list "$(body list application/json 200 "$(fake_list "[$(pod twin 5),$(pod twin 6)]")")" 'error' 0
	[ "$(jq -r 'select(.key == "default/twin" and (.type | startswith("Replaced")) and .handler != "OnDelete") | .resourceVersion' "$B/out" | tail -1)" = 6 ]
	delta '.key == "default/twin" and .handler == "OnDelete" and .tombstone and .resourceVersion == "6"'
}

@test "list: an object without a namespace in a namespaced list — keyed by its name, as client-go" {
	watch_row list "$(body list application/json 200 "$(fake_list "[$(pod loner 5 '')]")")" 'error' 0
	delta '.key == "loner" and (.type | startswith("Replaced"))'
}

@test "list: a number beyond float64 in an item — the list fails, as client-go's" {
	watch_row list "$(body list application/json 200 "$(fake_list "[$(pod a | sed 's/}}$/},"spec":{"x":1e400}}/')]")")" \
		'^kinf: pods: error: cannot parse object: number out of range at byte [0-9]+$'
}
