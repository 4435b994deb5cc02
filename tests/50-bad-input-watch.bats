#!/usr/bin/env bats
# The bad-input sweep, continued: a watch's bad events, bad kubeconfigs,
# bad flags and the TUI.  The rows are tests/bad_input_helper.bash's;
# 50-bad-input.bats says what each checks.

load test_helper
load bad_input_helper
bats_require_minimum_version 1.5.0

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
	cli_row 1 "exec plugin of user 'u' has an env entry with no name \\(kubeconfig '.*' line 10\\)$" \
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
	# (api-resources asks once; get asks five times, as kubectl's get;
	# without --no-headers, kubectl's header comes before the error)
	cli_row 1 "401 Unauthorized: the server rejected the credentials of user '.*' \(bearer token\)" \
		api-resources --no-headers --kubeconfig "$B/kubeconfig"
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
	wait_until 20 screen_has ' 3 objects .*synced rv ' || { screen | sed 's/^/# /' >&2; return 1; }
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
	wait_until 20 screen_has ' 3 objects .*synced rv ' || { screen | sed 's/^/# /' >&2; return 1; }
	tmux -L "$TMUX_SOCK" send-keys q
	terminal_restored
	screen_has 'kinf exited 0'
	[ ! -s "$B/err" ] || { sed 's/^/# /' "$B/err" >&2; return 1; }
}
