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
bats_require_minimum_version 1.5.0

KINF_PID=
B=

setup() {
	B=$BATS_TEST_TMPDIR
	TMUX_SOCK="kinf-bad-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	if [ -n "$KINF_PID" ]; then
		kill -TERM "$KINF_PID" 2>/dev/null || true
		wait "$KINF_PID" 2>/dev/null || true
	fi
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# ---- helpers -------------------------------------------------------------

fault() { simctl POST /faults "$1" >/dev/null; }

# fault_file FILE — a fault too big for a command line (curl reads FILE).
fault_file() {
	curl -sS -f -H 'Content-Type: application/json' --data-binary "@$1" \
		"$SIM_CONTROL/faults" >/dev/null
}

# body VERB CONTENT-TYPE STATUS BODY — a `body` fault's JSON.
body() {
	jq -cn --arg v "$1" --arg t "$2" --argjson s "$3" --arg b "$4" \
		'{verb:$v, resource:"pods", kind:"body", contentType:$t, status:$s, body:$b}'
}

# body64 VERB BASE64 — the same with bytes JSON can't carry (NUL, \xff).
body64() {
	jq -cn --arg v "$1" --arg b "$2" \
		'{verb:$v, resource:"pods", kind:"body", base64:true, body:$b}'
}

# lines LINE... — a `lines` fault: these lines open the next pods watch.
lines() {
	jq -cn '{verb:"watch", resource:"pods", kind:"lines", lines:$ARGS.positional}' --args "$@"
}

# A list body that lists `items` (JSON) at resourceVersion 1: too old once
# compacted, so kinf's next watch gets a 410 and relists the truth.
fake_list() {
	printf '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":%s}' "$1"
}

pod() {	# pod NAME [RV [NAMESPACE]] — the least a pod can be
	printf '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"%s","namespace":"%s","resourceVersion":"%s"}}' \
		"$1" "${3-default}" "${2:-5}"
}

# No output holds a credential, whole or in part.
no_secrets() {
	local f
	for f in "$@"; do
		[ -f "$f" ] || continue
		if grep -aqF -e "$SIM_TOKEN" -e "${SIM_TOKEN:0:16}" -e "$SIM_VIEWER_TOKEN" "$f"; then
			echo "# a token is in $f" >&2
			return 1
		fi
	done
}

# one_line FILE REGEX — FILE is exactly one line, matching REGEX, with no
# control character in it.
one_line() {
	local n
	n=$(wc -l <"$1")
	if [ "$n" -ne 1 ] || ! grep -qE -- "$2" "$1"; then
		echo "# expected one line matching: $2; got $n:" >&2
		sed 's/^/#   /' "$1" | head -20 >&2
		return 1
	fi
	if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$1"); then
		echo "# a control character in: $(cat -v "$1")" >&2
		return 1
	fi
}

assert_exit() {	# assert_exit GOT WANT FILE
	if [ "$1" -ne "$2" ]; then
		echo "# exit status $1, expected $2; stderr:" >&2
		sed 's/^/#   /' "$3" | head -20 >&2
		return 1
	fi
}

# ---- the row kinds --------------------------------------------------------

get_row() {	# get_row FAULT STATUS ERROR
	sim_start --pods 4
	fault "$1"
	local rc=0
	"$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" || rc=$?
	assert_exit "$rc" "$2" "$B/err"
	one_line "$B/err" "$3"
	[ ! -s "$B/out" ] || { echo "# stdout: $(head -c 300 "$B/out")" >&2; return 1; }
	no_secrets "$B/out" "$B/err"
}

notices() { grep -cE -- "$1" "$B/err" || true; }
notices_at_least() { [ "$(notices "$1")" -ge "$2" ]; }
synced() { grep -q 'synced' "$B/err"; }
watching() { [ "$(simctl GET /stats | jq '.watchesByResource.pods // 0')" -gt 0 ]; }
watch_had_events() { simctl GET /watches | jq -e 'any(.[]; .resource == "pods" and .eventsSent > 0)' >/dev/null; }
has_rv() { grep -q "\"resourceVersion\":\"$1\"" "$B/out"; }
# delta COND — some delta printed meets the jq condition COND.
delta() { jq -s -e "any(.[]; $1)" "$B/out" >/dev/null || { echo "# no delta with $1" >&2; return 1; }; }

# rewatch_into FAULT — the running watch had an event (one ended before
# any is "very short" and relisted, which is not what a row is about);
# then FAULT (a file, or a fault's JSON) is set, and the watch ends
# cleanly, so that kinf re-watches at once and meets it.
rewatch_into() {
	wait_until 10 watching
	simctl POST /bookmark '{"resource":"pods"}' >/dev/null
	wait_until 10 watch_had_events
	if [ -f "$1" ]; then fault_file "$1"; else fault "$1"; fi
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
}

watch_row() {	# watch_row list|watch FAULT NOTICE [COUNT]
	local when=$1 f=$2 notice=$3 count=${4:-1}
	sim_start --pods 4 --namespaces 1
	# RVs from before now are too old: a fake list at RV 1 is relisted.
	simctl POST /compact >/dev/null
	if [ "$when" = list ]; then
		if [ -f "$f" ]; then fault_file "$f"; else fault "$f"; fi
	fi
	# LIST, not a streaming list (1.36's default), so that list faults
	# meet it; the watch rows cover what a streaming list reads.
	"$KINF" watch pods -A -o json --streaming-list=false --dump-cache "$B/cache.json" \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	[ "$when" != watch ] || rewatch_into "$f"
	if [ "$count" -gt 0 ]; then
		wait_until 20 notices_at_least "$notice" "$count" ||
			{ sed 's/^/# /' "$B/err" >&2; return 1; }
	fi
	# Recovered: a change made now is delivered, and nothing is missing.
	wait_until 20 watching
	local rv
	rv=$(simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"sweep":"after"}}}}' |
		jq -r .metadata.resourceVersion)
	wait_until 30 has_rv "$rv" || { sed 's/^/# /' "$B/err" >&2; return 1; }
	local truth
	truth=$(sim_oracle pods | jq -S -c .items)
	kill -TERM "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	assert_exit "$rc" 143 "$B/err"
	[ "$(jq -S -c . "$B/cache.json")" = "$truth" ] ||
		{ echo "# cache: $(head -c 500 "$B/cache.json")"; echo "# truth: $truth"; return 1; }
	local seen
	seen=$(notices "$notice")
	[ "$seen" -eq "$count" ] ||
		{ echo "# '$notice' on stderr $seen times, expected $count:" >&2; sed 's/^/# /' "$B/err" >&2; return 1; }
	# Each line of stderr is one notice; none repeats what the last said.
	if grep -v '^kinf: pods: ' "$B/err" | grep .; then
		echo "# stderr holds more than notices (above)" >&2
		return 1
	fi
	[ -z "$(uniq -d "$B/err" | grep -v 'backing off')" ] || { echo "# a notice repeated" >&2; return 1; }
	# stdout: valid UTF-8, one JSON object a line, no delta twice.
	iconv -f UTF-8 -t UTF-8 "$B/out" >/dev/null || { echo "# stdout is not UTF-8" >&2; return 1; }
	[ -z "$(jq -r '[.type, .key, .resourceVersion, (.listNumber // "")] | @tsv' "$B/out" | sort | uniq -d)" ] ||
		{ echo "# a delta printed twice" >&2; return 1; }
	no_secrets "$B/out" "$B/err" "$B/cache.json"
}

cli_row() {	# cli_row STATUS ERROR ARGS...
	local want=$1 re=$2 rc=0
	shift 2
	"$KINF" "$@" >"$B/out" 2>"$B/err" </dev/null || rc=$?
	assert_exit "$rc" "$want" "$B/err"
	one_line "$B/err" "$re"
	[ ! -s "$B/out" ] || { echo "# stdout: $(head -c 300 "$B/out")" >&2; return 1; }
	if [ -n "${SIM_TOKEN:-}" ]; then no_secrets "$B/out" "$B/err"; fi
}

kubeconfig_with() {	# kubeconfig_with TEXT — a file holding TEXT; prints its path
	printf '%s' "$1" >"$B/kubeconfig"
	echo "$B/kubeconfig"
}

# ---- TUI -----------------------------------------------------------------

tui_start() {	# tui_start ARGS... — kinf tui in a 100x30 tmux pane
	command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
	local cmd
	printf -v cmd '%q ' "$KINF" tui "$@"
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 100 -y 30 \
		"stty -a >'$B/stty.before'; $cmd 2>'$B/err'; echo \"kinf exited \$?\"; stty -a >'$B/stty.after'; sleep 600"
}
screen() { tmux -L "$TMUX_SOCK" capture-pane -p; }
screen_has() { screen | grep -qE -- "$1"; }
pane() { tmux -L "$TMUX_SOCK" display-message -p "$1"; }

# The pane's terminal is as it was: main screen, cursor shown, same modes.
terminal_restored() {
	wait_until 10 screen_has 'kinf exited' || { screen | sed 's/^/# /' >&2; return 1; }
	wait_until 5 test -s "$B/stty.after"
	[ "$(pane '#{alternate_on}')" = 0 ] || { echo "# still on the alternate screen" >&2; return 1; }
	[ "$(pane '#{cursor_flag}')" = 1 ] || { echo "# cursor still hidden" >&2; return 1; }
	diff "$B/stty.before" "$B/stty.after" >&2
}

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

# stuck_row list|watch FAULT RV — the server hands out RV, then refuses it
# (400): client-go's reflector lists again at RV after each backoff, for
# ever, never at "" (nothing makes it give the RV up but a 410).
stuck_row() {
	local when=$1 f=$2 rv=$3
	sim_start --pods 4 --namespaces 1
	[ "$when" != list ] || fault "$f"
	"$KINF" watch pods -A -o json --streaming-list=false \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	[ "$when" != watch ] || rewatch_into "$f"
	wait_until 30 notices_at_least \
		'error: list pods: .*must be a valid resource version \(400\); retrying as client-go does$' 2 ||
		{ sed 's/^/# /' "$B/err" >&2; return 1; }
	notices_at_least 'backing off .*: relisting' 2
	kill -TERM "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	assert_exit "$rc" 143 "$B/err"
	# Every LIST after the RV came asked for it, and none for "" or "0".
	local asked
	asked=$(simctl GET '/requests?verb=list&resource=pods' | jq -r '.[1:][] | .query.resourceVersion // ""' | sort -u)
	[ "$asked" = "$rv" ] || { echo "# relists asked for: $asked" >&2; return 1; }
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

# ==== server misbehaviour: watches ===========================================

@test "watch: a proxy's HTML page with 200 — re-watched" {
	watch_row watch "$(body watch text/html 200 '<html>502 Bad Gateway</html>')" \
		"^kinf: pods: error: server '.*' answered 200 with Content-Type 'text/html', not JSON$"
}

@test "watch: a Status in a 200 answer instead of events — re-watched" {
	watch_row watch "$(body watch application/json 200 '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","code":500}
')" \
		'^kinf: pods: error: cannot decode a watch event: got invalid watch event type: $'
}

@test "watch: a line that is not JSON — re-watched" {
	watch_row watch "$(lines '<html>oops</html>')" \
		"^kinf: pods: error: cannot decode a watch event: invalid character '<' looking for beginning of value$"
}

@test "watch: an event cut short by the end of the stream — re-watched" {
	watch_row watch '{"verb":"watch","resource":"pods","kind":"truncate"}' \
		'^kinf: pods: (watch ended \(cut in the middle of an event\)|error: very short watch)'
}

@test "watch: an unknown event type — re-watched" {
	watch_row watch "$(lines '{"type":"BOGUS","object":{}}')" \
		'^kinf: pods: error: cannot decode a watch event: got invalid watch event type: BOGUS$'
}

@test "watch: an object without a kind — relisted, and said so" {
	watch_row watch "$(lines '{"type":"MODIFIED","object":{"metadata":{"name":"a","namespace":"default"}}}')" \
		"^kinf: pods: error: cannot decode a watch event: unable to decode watch event: Object 'Kind' is missing in '\\{\"metadata\":\\{\"name\":\"a\",\"namespace\":\"default\"}}'$"
}

@test "watch: an event whose own kind is not a string — relisted, as Interpret refuses it" {
	# encoding/json folds member names: the Kelvin sign's "Kind" is "kind"
	watch_row watch "$(lines "{\"\u212aIND\":5,\"type\":\"ADDED\",\"object\":$(pod odd 9)}")" \
		"^kinf: pods: error: cannot decode a watch event: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string$"
	run ! grep -q '"key":"default/odd"' "$B/out"
}

@test "watch: an ERROR event with null message and causes — relisted" {
	watch_row watch "$(lines '{"type":"ERROR","object":{"kind":"Status","message":null,"code":500,"details":{"causes":[{"reason":null,"message":null}]}}}')" \
		'^kinf: pods: error: watch error event \(code 500\): watch error$'
}

@test "streaming list: a bookmark whose initial-events-end is null — not the end, the list goes on" {
	sim_start --pods 4 --namespaces 1
	fault "$(lines '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":null}}}}')"
	"$KINF" watch pods -A -o json --streaming-list=true --dump-cache "$B/cache.json" \
		--kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	[ "$(jq -S -c . "$B/cache.json")" = "$(sim_oracle pods | jq -S -c .items)" ]
}

@test "watch: a number beyond float64 in the object — relisted, in client-go's words" {
	watch_row watch "$(lines "{\"type\":\"MODIFIED\",\"object\":$(pod pod-0 99 | sed 's/}}$/},"spec":{"x":[1,-2e309]}}/')}")" \
		'^kinf: pods: error: cannot decode a watch event: unable to decode watch event: json: cannot unmarshal number -2e309 into Go value of type float64$'
}

@test "list: a number beyond float64 in an item — the list fails, as client-go's" {
	watch_row list "$(body list application/json 200 "$(fake_list "[$(pod a | sed 's/}}$/},"spec":{"x":1e400}}/')]")")" \
		'^kinf: pods: error: cannot parse object: number out of range at byte [0-9]+$'
}

@test "watch: an ERROR event with code 500 — relisted" {
	watch_row watch "$(lines '{"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"etcd\nis down","code":500}}')" \
		'^kinf: pods: error: watch error event \(code 500\): etcd is down$'
}

@test "watch: a line larger than 16 MiB — re-watched" {
	python3 - "$B/fault.json" <<-'EOF'
		import json, sys
		json.dump({"verb": "watch", "resource": "pods", "kind": "lines",
		           "lines": ['{"type":"ADDED","object":{"metadata":{"name":"' + "x" * (17 << 20)]},
		          open(sys.argv[1], "w"))
	EOF
	watch_row watch "$B/fault.json" '^kinf: pods: error: watch event larger than 16 MiB$'
}

@test "watch: an object of 8 MiB — delivered and cached" {
	sim_start --pods 2
	python3 - "$B/create.json" <<-'EOF'
		import json, sys
		json.dump({"resource": "pods", "object": {"metadata": {"name": "big", "namespace": "default",
		           "annotations": {"a": "x" * (8 << 20)}}}}, open(sys.argv[1], "w"))
	EOF
	"$KINF" watch pods -o json --dump-cache "$B/cache.json" --kubeconfig "$SIM_KUBECONFIG" \
		>"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	curl -sS -f -H 'Content-Type: application/json' --data-binary "@$B/create.json" "$SIM_CONTROL/create" >/dev/null
	wait_until 30 bash -c "grep -q '\"key\":\"default/big\"' '$B/out'"
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	[ "$(jq -r 'select(.key == "default/big") | .object.metadata.annotations.a | length' "$B/out")" -eq $((8 << 20)) ]
	[ "$(jq -S -c . "$B/cache.json")" = "$(sim_oracle pods | jq -S -c .items)" ]
	! grep -q error "$B/err" || false
}

@test "watch: an event nested deeper than Go reads (10,000) — re-watched" {
	local deep
	deep=$(printf '%.0s[' {1..10001}; printf '%.0s]' {1..10001})
	watch_row watch "$(lines "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"deep\"},\"spec\":$deep}}")" \
		"^kinf: pods: error: cannot decode a watch event: invalid character '\\[' exceeded max depth$"
}

@test "watch: invalid UTF-8 and a NUL byte in lines — re-watched, output stays UTF-8" {
	local a b
	a=$(printf '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"u\xfft","namespace":"default","resourceVersion":"1"}}}' | base64 -w0)
	b=$(printf '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"n\x00l"}}}' | base64 -w0)
	watch_row watch "{\"verb\":\"watch\",\"resource\":\"pods\",\"kind\":\"lines\",\"base64\":true,\"lines\":[\"$a\",\"$b\"]}" \
		"^kinf: pods: error: cannot decode a watch event: invalid character '.x00' in string literal$"
	delta '.name == "u\ufffdt" and .type == "Added"'
}

@test "watch: resourceVersions that are no numbers — relisted at the last, after each backoff, as client-go" {
	# The stream ends after them: the next watch is from "y-2", refused, and
	# so is every relist at "y-2".
	stuck_row watch "$(lines "{\"type\":\"ADDED\",\"object\":$(pod odd 'x-1')}" "{\"type\":\"MODIFIED\",\"object\":$(pod odd 'y-2')}" | jq -c '. + {end: true}')" \
		y-2
	delta '.key == "default/odd" and .resourceVersion == "y-2"'
}

# ==== bad kubeconfigs ========================================================

@test "kubeconfig: a file that does not exist" {
	cli_row 1 "^error: cannot read kubeconfig '.*/nope': No such file or directory$" \
		get pods --kubeconfig "$B/nope"
}

@test "kubeconfig: an empty file" {
	cli_row 1 "^error: kubeconfig '.*' defines no context" get pods --kubeconfig "$(kubeconfig_with '')"
}

@test "kubeconfig: binary garbage" {
	head -c 4096 /dev/urandom >"$B/kubeconfig"
	printf '\0\xff' >>"$B/kubeconfig"
	cli_row 1 "^error: malformed kubeconfig '.*/kubeconfig'" get pods --kubeconfig "$B/kubeconfig"
}

@test "kubeconfig: a YAML list, not a mapping" {
	cli_row 1 'must be a mapping' get pods --kubeconfig "$(kubeconfig_with $'- a\n- b\n')"
}

@test "kubeconfig: an exec plugin's args and env of the wrong shape, the line named" {
	local head=$'apiVersion: v1\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n'
	cli_row 1 "line 15: 'args' must be a list of strings$" \
		get pods --kubeconfig "$(kubeconfig_with "$head"$'      args: a\n')"
	cli_row 1 "line 17: 'args' must be a list of strings$" \
		get pods --kubeconfig "$(kubeconfig_with "$head"$'      args:\n      - a\n      - [b]\n')"
	cli_row 1 "line 15: 'env' must be a list of \\{name, value\\}$" \
		get pods --kubeconfig "$(kubeconfig_with "$head"$'      env: {name: A}\n')"
	cli_row 1 "line 17: 'env' entry needs a name without '='$" \
		get pods --kubeconfig "$(kubeconfig_with "$head"$'      env:\n      - {name: A, value: b}\n      - {name: B=C, value: d}\n')"
	cli_row 1 "line 16: 'env' entry needs a name without '='$" \
		get pods --kubeconfig "$(kubeconfig_with "$head"$'      env:\n      - {value: d}\n')"
}

@test "kubeconfig: invalid UTF-8" {
	cli_row 1 "^error: malformed kubeconfig '.*' line 1: invalid leading UTF-8 octet" \
		get pods --kubeconfig "$(kubeconfig_with $'apiVersion: v1\nclusters: [\xff]\n')"
}

fastest_us() {	# fastest_us N CMD... — the shortest of N runs of CMD, in microseconds
	local n=$1 best= t0 t
	shift
	for ((i = 0; i < n; i++)); do
		t0=${EPOCHREALTIME/./}
		"$@" >/dev/null 2>&1 || true
		t=$((${EPOCHREALTIME/./} - t0))
		[ -n "$best" ] && [ "$best" -le "$t" ] || best=$t
	done
	echo "$best"
}

@test "kubeconfig: nested 200,000 deep, refused at once" {
	python3 -c 'print("[" * 200000)' >"$B/kubeconfig"
	cli_row 1 "nested deeper than 10000 levels" get pods --kubeconfig "$B/kubeconfig"
	# at once: as fast as a tenth of the depth, refused at the same level
	# (a parse quadratic in the depth would take 100 times as long)
	python3 -c 'print("[" * 20000)' >"$B/shallow"
	local deep shallow
	deep=$(fastest_us 5 "$KINF" get pods --kubeconfig "$B/kubeconfig")
	shallow=$(fastest_us 5 "$KINF" get pods --kubeconfig "$B/shallow")
	echo "# 200,000 deep: ${deep} us, 20,000 deep: ${shallow} us" >&3
	[ "$deep" -lt $((shallow * 4)) ]
}

@test "kubeconfig: a server URL that is no URL" {
	cli_row 1 "^error: " get pods --kubeconfig "$(kubeconfig_with $'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: "::not a url::"}\nusers:\n- name: u\n  user: {token: abc}\n')"
}

@test "kubeconfig: certificate-authority-data that is not base64" {
	cli_row 1 "certificate-authority-data" get pods --kubeconfig "$(kubeconfig_with $'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: "https://127.0.0.1:1", certificate-authority-data: "%%%not base64%%%"}\nusers:\n- name: u\n  user: {token: abc}\n')"
}

@test "kubeconfig: a current-context that names nothing" {
	cli_row 1 "context 'gone'" get pods --kubeconfig "$(kubeconfig_with $'apiVersion: v1\nkind: Config\ncurrent-context: gone\ncontexts: []\n')"
}

@test "kubeconfig: the simulator's own, with its token spoiled, never shows the token" {
	sim_start --pods 1
	sed "s/token: .*/token: ${SIM_TOKEN}x/" "$SIM_KUBECONFIG" >"$B/kubeconfig"
	cli_row 1 "401 Unauthorized: the server rejected the credentials of user '.*' \(bearer token\)" \
		get pods --kubeconfig "$B/kubeconfig"
}

# ==== bad flags ==============================================================

@test "flags: an unknown option" {
	cli_row 2 "^error: unknown option '--nope' \(see 'kinf watch --help'\)$" watch pods --nope
}

@test "flags: an option without its value" {
	cli_row 2 "^error: option '--namespace' requires a value" get pods --namespace
}

@test "flags: -n followed by another option takes no option for a namespace" {
	cli_row 1 "^error: invalid namespace '--timeout': a namespace starts with a letter or digit" \
		get pods -n --timeout 1s
	cli_row 1 "^error: invalid namespace '-A'" watch pods -n -A
}

@test "flags: a value not in the choices" {
	cli_row 2 '^error: unable to match a printer suitable for the output format "xml", allowed formats are: line, wide, ' watch pods -o xml
}

@test "flags: numbers out of range" {
	cli_row 2 "expected a non-negative integer" watch pods --max-deltas -1
	cli_row 2 "expected a non-negative integer" watch pods --chunk-size 99999999999999999999999
}

@test "flags: durations out of range or not durations" {
	cli_row 2 "^error: invalid duration '1e30' for '--resync'" watch pods --resync 1e30
	cli_row 2 "^error: invalid duration 'nan' for '--timeout'" watch pods --timeout nan
	cli_row 2 "^error: invalid duration '2562048h' for '--stall-timeout'" watch pods --stall-timeout 2562048h
}

@test "flags: --history-size that is not a size, or below 64Ki" {
	local msg="expected a size of at least 64Ki, e\\.g\\. 8Mi \\(see 'kinf tui --help'\\)\$"
	cli_row 2 "^error: invalid value '0x' for '--history-size': $msg" tui pods --history-size 0x
	cli_row 2 "^error: invalid value '-1Mi' for '--history-size': $msg" tui pods --history-size -1Mi
	cli_row 2 "^error: invalid value '63Ki' for '--history-size': $msg" tui pods --history-size 63Ki
	cli_row 2 "^error: invalid value '0' for '--history-size': $msg" tui pods --history-size 0
}

@test "flags: --dump-on controller-unseen without --controller, before anything starts" {
	cli_row 2 "^error: --dump-on controller-unseen needs --controller" \
		watch pods --flight-recorder 1m --dump-on verify,controller-unseen --flight-dir "$B"
	cli_row 2 "^error: --dump-on controller-unseen needs --controller" \
		tui pods --flight-recorder 1m --dump-on controller-unseen --flight-dir "$B"
}

@test "flags: an unknown delta type" {
	cli_row 2 "^error: unknown delta type 'Bogus' in --types" watch pods --types Added,Bogus
}

@test "flags: a label selector that does not parse" {
	sim_start --pods 1
	# A usage error, parsed with the other options, before any request.
	for cmd in watch tui verify; do
		cli_row 2 "invalid selector 'app in \(web': " $cmd pods -l 'app in (web' \
			--kubeconfig "$SIM_KUBECONFIG"
	done
	cli_row 2 "invalid selector 'app in \(web': " get pods --from-cache -l 'app in (web' \
		--kubeconfig "$SIM_KUBECONFIG"
}

@test "flags: newlines and escapes in a value stay on one line" {
	cli_row 2 "^error: invalid value 'a b\^\[\[2J' for '--fifo'" watch pods --fifo $'a\nb\e[2J'
}

@test "flags: a 100 KB argument is one line" {
	cli_row 2 "^error: unknown option '--xxxx" watch pods "--$(head -c 100000 /dev/zero | tr '\0' x)"
	[ "$(wc -c <"$B/err")" -lt 2000 ]
}

@test "flags: a resource name with invalid UTF-8 and escapes" {
	sim_start --pods 1
	cli_row 1 "^error: the server doesn't have a resource type 'po\^\[ds\\\\xff'" \
		get $'po\eds\xff' --kubeconfig "$SIM_KUBECONFIG"
}

# ==== the TUI ================================================================

@test "tui: a bad flag leaves the terminal alone" {
	tui_start pods --fifo nope
	terminal_restored
	screen_has 'kinf exited 2'
	one_line "$B/err" "^error: invalid value 'nope' for '--fifo'"
}

@test "tui: forbidden (the viewer's kubeconfig) — shown and retried as client-go does; q restores the terminal" {
	sim_start --pods 2
	tui_start pods --kubeconfig "$SIM_KUBECONFIG.viewer"
	wait_until 20 screen_has 'forbidden' || { screen | sed 's/^/# /' >&2; return 1; }
	wait_until 10 screen_has 'retrying as client-go' || { screen | sed 's/^/# /' >&2; return 1; }
	no_secrets "$B/err" <(screen)
	tmux -L "$TMUX_SOCK" send-keys q
	terminal_restored
	screen_has 'kinf exited 0'
}

@test "tui: out of memory — one line, an abort, the terminal restored" {
	sim_start --pods 3
	tui_start pods --kubeconfig "$SIM_KUBECONFIG"
	wait_until 20 screen_has '3 objects.*synced' || { screen | sed 's/^/# /' >&2; return 1; }
	local pid vm
	pid=$(pgrep -P "$(pane '#{pane_pid}')" -x kinf)
	vm=$(awk '/^VmSize/ {print $2}' "/proc/$pid/status")
	# its address space as it is: the pods that come next do not fit in it
	prlimit --pid "$pid" --as=$((vm * 1024))
	simctl POST /churn '{"resource":"pods","count":10000,"mix":{"add":1}}' >/dev/null
	terminal_restored
	screen_has 'kinf exited 134'	# SIGABRT
	one_line "$B/err" '^error: out of memory( \(allocating [0-9]+ bytes\))?$'
}

@test "tui: a proxy's HTML page shows in the health pane; q restores the terminal" {
	sim_start --pods 3
	fault "$(body list text/html 200 '<html>502</html>')"
	tui_start pods --streaming-list=false --kubeconfig "$SIM_KUBECONFIG"
	wait_until 20 screen_has 'not JSON' || { screen | sed 's/^/# /' >&2; return 1; }
	wait_until 20 screen_has '3 objects.*synced' || { screen | sed 's/^/# /' >&2; return 1; }
	tmux -L "$TMUX_SOCK" send-keys q
	terminal_restored
	screen_has 'kinf exited 0'
	[ ! -s "$B/err" ] || { sed 's/^/# /' "$B/err" >&2; return 1; }
}
