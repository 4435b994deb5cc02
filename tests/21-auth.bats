#!/usr/bin/env bats
# Who kinf says it is: bearer tokens, token files, basic auth, exec
# credential plugins (cached, re-run on 401), and what it says when the
# server disagrees — without ever printing a credential.

load test_helper
load kubeconfig_helper
load tui_helper

PLUGIN=$BATS_TEST_DIRNAME/fixtures/exec-plugin

setup() {
	sim_start
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/plugin"
}

# exec_user API_VERSION [EXTRA_EXEC_LINES] — a user stanza running the
# test plugin with PLUGIN_DIR=$T/plugin and the lines given.
exec_user() {
	local api=$1 extra=${2:-}
	printf '    exec:\n      apiVersion: client.authentication.k8s.io/%s\n' "$api"
	printf '      command: %s\n      interactiveMode: Never\n' "$PLUGIN"
	printf '      env:\n      - {name: PLUGIN_DIR, value: "%s"}\n' "$T/plugin"
	[ -z "$extra" ] || printf '%s\n' "$extra"
}

plugin_runs() { wc -l <"$T/plugin/runs"; }

# watch_past_one_401 — kinf watch with $T/kc whose first LIST is refused
# (401): it lists again after the backoff, and syncs.
watch_past_one_401() {
	simctl POST /faults '{"verb": "list", "resource": "pods", "kind": "401", "count": 1}'
	"$KINF" watch pods --client-go 1.32 --kubeconfig "$T/kc" -o json >"$T/out" 2>"$T/err" &
	local pid=$!
	wait_until 15 file_has "$T/err" "synced"
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(simctl GET '/requests?verb=list&resource=pods' | jq -r 'map(.status) | join(" ")')" = "401 200" ]
}

@test "bearer token: the request is made as the token's user" {
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = admin ]
}

@test "impersonation: as, as-uid, as-groups and as-user-extra go as the headers client-go sends" {
	write_kubeconfig "$T/kc" "$(printf '%s\n' "    token: $SIM_TOKEN" "    as: bob" '    as-uid: "42"' \
		'    as-groups: [g1, "g 2", system:masters]' '    as-user-extra:' '      scopes: [view, dev]' \
		'      "reason a%b/c": ["a b"]' '      none: []')"
	run_kinf get pods --kubeconfig "$T/kc"
	assert_status 0
	# Every request, each header once per value.  An extra key as client-go's
	# headerKeyEscape and Go's canonical header key spell it.
	simctl GET /requests | jq -e 'length > 0 and all(.[]; .headers.Impersonate | sort == [
		["Impersonate-Extra-Reason%20a%25b%2fc", "a b"],
		["Impersonate-Extra-Scopes", "dev"], ["Impersonate-Extra-Scopes", "view"],
		["Impersonate-Group", "g 2"], ["Impersonate-Group", "g1"], ["Impersonate-Group", "system:masters"],
		["Impersonate-Uid", "42"], ["Impersonate-User", "bob"]])'
}

@test "error: impersonating groups, a uid or user-extra without a user, as client-go refuses it" {
	local line
	for line in '    as-groups: [g1]' '    as-uid: "7"' "$(printf '    as-user-extra:\n      k: [v]')"; do
		write_kubeconfig "$T/kc" "$(printf '%s\n%s' "    token: $SIM_TOKEN" "$line")"
		run_kinf get pods --kubeconfig "$T/kc"
		assert_one_line_error "user 'tester' impersonates a uid, groups or user-extra without a user ('as')"
	done
}

# The Impersonate headers of every request, sorted, as JSON.
impersonate_headers() { simctl GET /requests | jq -c '[.[] | .headers.Impersonate | sort] | unique'; }

@test "--as, --as-group and --as-uid replace the user's own, as kubectl's flags do; the server answers as the user impersonated" {
	write_kubeconfig "$T/kc" "$(printf '%s\n' "    token: $SIM_TOKEN" "    as: bob" '    as-uid: "42"' \
		'    as-groups: [g1]' '    as-user-extra:' '      scopes: [view]')"
	# a group is one value each time, its comma its own (pflag's string array)
	run_kinf get pods --kubeconfig "$T/kc" --as jane --as-group a,b --as-group c
	assert_status 1
	[[ $stderr == *'User "jane" cannot list resource "pods"'* ]]
	[ "$(impersonate_headers)" = '[[["Impersonate-Extra-Scopes","view"],["Impersonate-Group","a,b"],["Impersonate-Group","c"],["Impersonate-Uid","42"],["Impersonate-User","jane"]]]' ]
	# the kubeconfig's user, in a group the server lets list; an empty group is sent as Go sends it
	simctl DELETE /requests >/dev/null
	run_kinf get pods --kubeconfig "$T/kc" --as-uid 7 --as-group system:masters --as-group ''
	assert_status 0
	[ "$(impersonate_headers)" = '[[["Impersonate-Extra-Scopes","view"],["Impersonate-Group",""],["Impersonate-Group","system:masters"],["Impersonate-Uid","7"],["Impersonate-User","bob"]]]' ]
	# and kinf's own words for a refusal say whom it impersonated
	write_kubeconfig "$T/kc" "    token: wrong"
	run_kinf get pods --kubeconfig "$T/kc" --as jane
	assert_one_line_error "the server rejected the credentials of user 'tester' (bearer token) impersonating 'jane'"
}

@test "error: --as-group or --as-uid without a user to impersonate, as client-go refuses it; nothing is sent" {
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	simctl DELETE /requests >/dev/null
	for flag in --as-group --as-uid; do
		run_kinf get pods --kubeconfig "$T/kc" "$flag" x
		assert_one_line_error "--as-uid and --as-group need --as (or the user's 'as')"
	done
	[ "$(simctl GET /requests | jq length)" -eq 0 ]
}

@test "tui: the header says whom the informers impersonate" {
	TMUX_SOCK=kinf-auth-$$-$BATS_TEST_NUMBER
	tui_start pods --kubeconfig "$SIM_KUBECONFIG" --as jane --as-group system:masters
	wait_screen ' pods  [0-9]+ objects? ' 30
	screen | head -1 | grep -qE '^ kinf  context [^ ]+  as jane  server https://' || { show_screen; false; }
	keys q
	wait_screen 'kinf exited 0'
}

@test "error: a token or a name with a line break in it is not sent, as Go's transport refuses it" {
	printf 'tok\r\nX-Evil: SECRET\n' >"$T/token"
	write_kubeconfig "$T/kc" "    tokenFile: $T/token"
	run_kinf get pods --kubeconfig "$T/kc"
	discovery_tries
	assert_one_line_error "the Authorization header of user 'tester' (token file '$T/token') holds a control character: not sent"
	[[ $stderr != *SECRET* ]]
	write_kubeconfig "$T/kc" "$(printf '    token: %s\n    as: "bob\\r\\nX-Evil: 1"' "$SIM_TOKEN")"
	run_kinf get pods --kubeconfig "$T/kc"
	discovery_tries
	assert_one_line_error "the Impersonate-User header of user 'tester' (bearer token) impersonating 'bob\\r X-Evil: 1' holds a control character"
	# Nothing went out.
	simctl GET /requests | jq -e 'length == 0'
}

@test "error: 401 names the user and the auth method, not the token" {
	write_kubeconfig "$T/kc" "    token: wrong-token-1234"
	run_kinf api-resources --kubeconfig "$T/kc"
	assert_one_line_error "401 Unauthorized" "user 'tester' (bearer token)"
	[[ $stderr != *wrong-token-1234* ]]
}

@test "error: basic auth rejected, the password never shown" {
	write_kubeconfig "$T/kc" "$(printf '    username: jane\n    password: hunter2')"
	run_kinf api-resources --kubeconfig "$T/kc"
	assert_one_line_error "401 Unauthorized" "user 'tester' (basic auth as 'jane')"
	[[ $stderr != *hunter2* ]]
	simctl GET /requests | jq -e 'all(.[]; .headers.Authorization == "Basic jane:<redacted>")'
}

@test "a server URL's user information is sent as Basic auth ahead of the token, as Go's http.Client sends it, and never shown" {
	# The simulator takes Basic auth whose password is a token, as a proxy
	# in front of it might.  The kubeconfig's own token is refused: it
	# must not be the one sent.  The token's first character goes escaped.
	local escaped
	escaped=$(printf '%%%02X%s' "'${SIM_TOKEN:0:1}" "${SIM_TOKEN:1}")
	write_kubeconfig "$T/kc" "    token: wrong-token-1234"
	sed -i "s#server: https://#server: https://al%69ce:$escaped@#" "$T/kc"
	run_kinf get pods --kubeconfig "$T/kc" -v -v
	assert_status 0
	simctl GET /requests | jq -e 'length > 0 and all(.[]; .headers.Authorization == "Basic alice:<redacted>")'
	# Traced, each request goes to the server without it.
	[[ $stderr == *"GET $SIM_API/api?timeout=32s "* ]] || { echo "$stderr" >&2; false; }
	[[ $stderr != *"${SIM_TOKEN:1}"* ]]
	# No file or folder of its own (the discovery cache's) holds it.
	run ! grep -rq --exclude=kc --exclude-dir=sim -- "${SIM_TOKEN:1}" "$HOME"
	run find "$HOME" -name "*${SIM_TOKEN:1}*"
	[ -z "$output" ]
	# Nor does a recording, whose header names the server.
	kinf_bg watch pods --kubeconfig "$T/kc" --record "$T/rec"
	wait_until 20 file_has "$ERR" 'synced'
	kinf_stop INT
	[ "$(zcat "$T/rec" | head -n1 | jq -r .server)" = "$SIM_API" ]
	run ! zgrep -q -- "${SIM_TOKEN:1}" "$T/rec"
	# Nor the TUI's header.
	TMUX_SOCK=kinf-auth-$$-$BATS_TEST_NUMBER
	tui_start pods --kubeconfig "$T/kc"
	wait_screen "server $SIM_API "
	screen_lacks "${SIM_TOKEN:1}"
	keys q
	wait_screen 'kinf exited 0'
	# Refused, it is named as what was sent.
	write_kubeconfig "$T/kc2" "    token: $SIM_TOKEN"
	sed -i "s#server: https://#server: https://alice:wrongPW123@#" "$T/kc2"
	run_kinf api-resources --kubeconfig "$T/kc2"
	assert_one_line_error "401 Unauthorized" "user 'tester' (basic auth as 'alice', from the server's URL)"
	[[ $stderr != *wrongPW123* ]]
	# A bad escape in it is refused, as url.Parse refuses it, unnamed.
	sed -i "s#wrongPW123#wrong%zzPW#" "$T/kc2"
	run_kinf api-resources --kubeconfig "$T/kc2"
	assert_one_line_error "server URL of cluster 'sim'" "which Go's url.Parse refuses"
	[[ $stderr != *zzPW* ]]
}

@test "tokenFile: read relative to the kubeconfig" {
	printf '%s\n' "$SIM_TOKEN" >"$T/token"
	write_kubeconfig "$T/kc" "    tokenFile: token"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = admin ]
}

@test "tokenFile: a 401 is the request's answer, never retried at once; the watch lists again after its backoff" {
	printf '%s\n' "$SIM_TOKEN" >"$T/token"
	write_kubeconfig "$T/kc" "    tokenFile: $T/token"
	# A one-answer request: the 401 is the answer, as kubectl's (client-go's
	# token source forgets the token and hands the 401 back).
	simctl POST /faults '{"verb": "discovery", "kind": "401", "count": 1}'
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_one_line_error "401 Unauthorized" "user 'tester' (token file '$T/token')"
	[ "$(simctl GET /requests | jq -r 'map(.path) | join(" ")')" = "/api" ]
	# An informer's LIST: refused once, then listed again after the
	# reflector's backoff (a 401 does not make client-go read the file).
	simctl DELETE /requests >/dev/null
	watch_past_one_401
	file_has "$T/err" "401 Unauthorized.*; retrying as client-go does"
	file_has "$T/err" "backing off"
}

@test "tokenFile: a rotated file is not read again at once, as client-go's cached token source" {
	printf '%s\n' "$SIM_TOKEN" >"$T/token"
	write_kubeconfig "$T/kc" "    tokenFile: $T/token"
	"$KINF" watch pods --kubeconfig "$T/kc" -o json >"$T/out" 2>"$T/err" 3>&- &
	local pid=$!
	wait_until 10 file_has "$T/err" "synced"
	watch_settled
	# Rotate to another identity: client-go reads the file again only once
	# what it read is 50 s old (tests/unit/test_credential.c counts that),
	# so the re-watch after the drop still presents the first token.
	printf '%s\n' "$SIM_VIEWER_TOKEN" >"$T/token.new"
	mv "$T/token.new" "$T/token"
	simctl DELETE /requests >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 15 watching
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(request_users)" = admin ]
}

@test "exec plugin (v1): its token is used, and KUBERNETES_EXEC_INFO says so" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_TOKEN, value: %s}\n      provideClusterInfo: true' "$SIM_TOKEN")")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = admin ]
	# One run for every request of the command: the answer is cached.
	[ "$(plugin_runs)" -eq 1 ]
	jq -e --arg server "$SIM_API" '.kind == "ExecCredential" and
		.apiVersion == "client.authentication.k8s.io/v1" and
		.spec.interactive == false and .spec.cluster.server == $server and
		(.spec.cluster | has("config") and .config == null) and
		(.spec.cluster["certificate-authority-data"] | length > 0)' "$T/plugin/exec-info"
}

@test "exec plugin (v1beta1), no cluster info unless asked" {
	write_kubeconfig "$T/kc" "$(exec_user v1beta1 "      - {name: PLUGIN_TOKEN, value: $SIM_TOKEN}")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	jq -e '.apiVersion == "client.authentication.k8s.io/v1beta1" and
		(.spec | has("cluster") | not)' "$T/plugin/exec-info"
}

@test "exec plugin returning a client certificate" {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/}
	write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_CERT, value: %s}\n      - {name: PLUGIN_KEY, value: %s}' \
		"$dir/$base.client.crt" "$dir/$base.client.key")")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = kinf-admin ]
}

@test "a token, a username or a client certificate beside an exec plugin is what goes out, the plugin never run, as client-go's exec authenticator stands aside" {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/} plugin
	# The plugin would present the viewer: what is sent must be the admin.
	plugin=$(exec_user v1 "      - {name: PLUGIN_TOKEN, value: $SIM_VIEWER_TOKEN}")
	write_kubeconfig "$T/kc" "$(printf '    token: %s\n%s' "$SIM_TOKEN" "$plugin")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = admin ]
	simctl DELETE /requests >/dev/null
	write_kubeconfig "$T/kc" "$(printf '    username: jane\n    password: %s\n%s' "$SIM_TOKEN" "$plugin")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	simctl GET /requests | jq -e 'length > 0 and all(.[]; .headers.Authorization == "Basic jane:<redacted>")'
	simctl DELETE /requests >/dev/null
	write_kubeconfig "$T/kc" "$(printf '    client-certificate: %s\n    client-key: %s\n%s' \
		"$dir/$base.client.crt" "$dir/$base.client.key" "$plugin")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = kinf-admin ]
	[ ! -e "$T/plugin/runs" ]
}

@test "a password without a username sends nothing, as client-go's HasBasicAuth reads the username only" {
	write_kubeconfig "$T/kc" "    password: $SIM_TOKEN"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_one_line_error "401 Unauthorized" "user 'tester' (no credentials)"
	simctl GET /requests | jq -e 'length > 0 and all(.[]; .headers.Authorization == null)'
}

@test "a token beside a tokenFile stands in for the file while it cannot be read, as client-go's file token source" {
	write_kubeconfig "$T/kc" "$(printf '    token: %s\n    tokenFile: %s' "$SIM_VIEWER_TOKEN" "$T/token")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = system:serviceaccount:default:viewer ]
	simctl DELETE /requests >/dev/null
	printf '%s\n' "$SIM_TOKEN" >"$T/token"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(request_users)" = admin ]
}

@test "exec plugin: an expired credential is fetched again" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_TOKEN, value: %s}\n      - {name: PLUGIN_EXPIRY, value: "2000-01-01T00:00:00Z"}' "$SIM_TOKEN")")"
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	[ "$(plugin_runs)" -gt 1 ]
}

@test "exec plugin: a 401 is the answer, and the next request runs the plugin again" {
	printf '%s\n%s\n' "$SIM_TOKEN" "$SIM_TOKEN" >"$T/plugin/tokens"
	write_kubeconfig "$T/kc" "$(exec_user v1)"
	# The watch's first LIST is refused; the plugin runs again for the
	# LIST after the backoff, which works.
	watch_past_one_401
	[ "$(plugin_runs)" -eq 2 ]
}

@test "error: exec plugin whose token keeps being refused" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "      - {name: PLUGIN_TOKEN, value: never-good}")"
	run_kinf api-resources --kubeconfig "$T/kc"
	assert_one_line_error "401 Unauthorized" "user 'tester' (exec plugin '$PLUGIN')"
	# One request, one run: nothing retried the 401.
	[ "$(plugin_runs)" -eq 1 ]
}

@test "error: exec plugin not installed shows its installHint on one line" {
	write_kubeconfig "$T/kc" "$(printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: kinf-no-such-plugin\n      installHint: |\n        Install it with:\n          brew install kinf-no-such-plugin\n')"
	run_kinf api-resources --kubeconfig "$T/kc"
	assert_one_line_error "exec plugin 'kinf-no-such-plugin' of user 'tester' not found: Install it with: brew install kinf-no-such-plugin"
}

@test "error: exec plugin that fails" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "      - {name: PLUGIN_EXIT, value: '3'}")"
	run_kinf api-resources --kubeconfig "$T/kc"
	# The plugin's own stderr passes through, then kinf's one line.
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "exec-plugin: refusing, as asked" ]
	[ "${stderr_lines[1]}" = "error: exec plugin '$PLUGIN' of user 'tester' failed with exit status 3" ]
}

@test "error: exec plugin v1 without interactiveMode, as kubectl refuses it" {
	write_kubeconfig "$T/kc" "$(printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n' "$PLUGIN")"
	run_kinf api-resources --kubeconfig "$T/kc"
	assert_one_line_error "exec plugin of user 'tester' needs interactiveMode"
}

@test "-v -v traces requests with the Authorization header redacted" {
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN"
	run_kinf api-resources --kubeconfig "$T/kc" -o name -v -v
	assert_status 0
	[[ $stderr == *"> Authorization: <redacted>"* ]]
	[[ $stderr == *"> User-Agent: kinf/"* ]]
	[[ $stderr == *"GET $SIM_API/api?timeout=32s 200 OK in "* ]]
	[[ $stderr != *"$SIM_TOKEN"* ]]
}

@test "error: 403 names the verb and the resource" {
	require_command watch
	# A watch keeps trying (the permission may be granted later); each
	# failure says what was refused to whom.
	run --separate-stderr timeout 3 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG.viewer" --client-go 1.32
	[[ $stderr == *'list pods: pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "pods"'* ]]
	# A streaming list (1.35 on) is a watch: the verb refused is watch.
	run --separate-stderr timeout 3 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG.viewer" --client-go 1.36
	[[ $stderr == *'list pods: pods is forbidden: User "system:serviceaccount:default:viewer" cannot '*' resource "pods"'* ]]
}

@test "error: 403 from get is one line" {
	require_command get
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG.viewer"
	assert_one_line_error "pods is forbidden" "cannot list resource \"pods\""
}

@test "error: unknown resource, with a did-you-mean" {
	require_command watch
	run_kinf watch podz --kubeconfig "$SIM_KUBECONFIG"
	assert_one_line_error "the server doesn't have a resource type 'podz'; did you mean 'pods'?"
	run_kinf watch deploymnt --kubeconfig "$SIM_KUBECONFIG"
	assert_one_line_error "did you mean 'deployments.apps'?"
	run_kinf watch zzzzzz --kubeconfig "$SIM_KUBECONFIG"
	assert_one_line_error "the server doesn't have a resource type 'zzzzzz'"
	[[ $stderr != *"did you mean"* ]]
}

@test "resource names as kubectl takes them: kind, short name, resource.version.group" {
	require_command watch
	run --separate-stderr timeout 3 "$KINF" watch Deployment.apps,ct.stable.example.com,crontabs.v1.stable.example.com \
		--kubeconfig "$SIM_KUBECONFIG"
	[[ $stderr == *"deployments: listed"* ]]
	[[ $stderr == *"crontabs: listed"* ]]
}

@test "exec plugin: a bare command found only through an empty or '.' PATH entry is refused, as Go's exec.LookPath" {
	mkdir -p "$T/cwd"
	cp "$PLUGIN" "$T/cwd/kinf-dot-plugin"
	write_kubeconfig "$T/kc" "$(printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: kinf-dot-plugin\n      interactiveMode: Never\n      env:\n      - {name: PLUGIN_DIR, value: "%s"}\n      - {name: PLUGIN_TOKEN, value: %s}' "$T/plugin" "$SIM_TOKEN")"
	local entry
	for entry in "" "."; do
		run --separate-stderr bash -c "cd '$T/cwd' && PATH='$entry:$PATH' '$KINF' api-resources --kubeconfig '$T/kc' -o name"
		assert_status 1
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == *"exec plugin 'kinf-dot-plugin' of user 'tester' is found only relative to the current directory"* ]]
	done
	[ ! -e "$T/plugin/runs" ]
	# Through an absolute PATH entry it runs.
	run --separate-stderr bash -c "cd '$T/cwd' && PATH='$T/cwd:$PATH' '$KINF' api-resources --kubeconfig '$T/kc' -o name"
	assert_status 0
	[ "$(plugin_runs)" -eq 1 ]
}

@test "exec plugin that hangs: --request-timeout bounds it, and the plugin is killed, not left behind" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "      - {name: PLUGIN_HANG, value: '617'}")"
	run --separate-stderr timeout 60 "$KINF" api-resources --kubeconfig "$T/kc" --request-timeout 2s
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"exec plugin '$PLUGIN' of user 'tester' did not answer within 2.0 s (--request-timeout): killed"* ]]
	run ! pgrep -f 'sleep 617'
}

@test "no core dump and no other process of the user holds the credential: kinf is not dumpable" {
	[ "$(id -u)" -eq 0 ] || skip "runs kinf as nobody, which needs root"
	# A user-owned process that is dumpable owns its /proc files; one that
	# is not has them owned by root, and its user's other processes can
	# neither ptrace it nor read its memory or environment.
	local d
	d=$(mktemp -d) && chmod 755 "$d"
	write_kubeconfig "$d/kc" "    token: $SIM_TOKEN" "    insecure-skip-tls-verify: true"
	chmod 644 "$d/kc"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KINF" watch pods --kubeconfig "$d/kc" --cache-dir "$d/cache" >"$T/out" 2>"$T/err" 3>&- &
	local pid=$!
	wait_until 20 file_has "$T/err" 'synced'
	local owner
	owner=$(stat -c %U "/proc/$pid/environ")
	kill -TERM "$pid"
	wait "$pid" || true
	rm -rf "$d"
	[ "$owner" = root ]
}

# ---- a refusal (401, 403) with a cold or a warm discovery cache ------------
#
# Decided once, with or without kubectl's discovery cache (--cache-dir):
# what runs informers until stopped (watch, tui) retries a refusal with
# backoff for ever, as client-go's Reflector retries its list; what answers
# once (get, get --from-cache, verify, api-resources) fails at once with one
# line naming the refusal, and claims no retry.

teardown() {
	kinf_stop
	[ -z "${TMUX_SOCK:-}" ] || tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop 2>/dev/null || true
}

# refuse KIND [COUNT] [VERB] — the next COUNT (all) requests of VERB (any) answered KIND.
refuse() {
	simctl DELETE /faults >/dev/null
	simctl POST /faults "{\"verb\":\"${3:-any}\",\"kind\":\"$1\",\"count\":${2:-100000}}" >/dev/null
}

# A discovery cache that an earlier run filled.
warm_cache() {
	run_kinf get pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/warm"
	assert_status 0
	[ -s "$(find "$T/warm" -name servergroups.json)" ]
}

@test "a refusal (401, 403) ends get, get --from-cache, verify and api-resources with one line, cold or warm cache (get's discovery: five tries)" {
	warm_cache
	local kind cache cmd what
	for kind in 401 403; do
		refuse "$kind"
		for cache in cold warm; do
			for cmd in "get pods" "get pods --from-cache" "verify pods" "api-resources"; do
				rm -rf "$T/cold"
				simctl DELETE /requests >/dev/null
				run_kinf $cmd --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/$cache"
				# where it met the refusal: discovery, unless the cache spared it
				# (api-resources asks the server whatever the cache holds)
				what="list pods: "
				[ "$cache" = cold ] || [ "$cmd" = api-resources ] && what="discover the server's APIs: "
				[ "$cmd $cache" != "get pods cold" ] || discovery_tries
				assert_one_line_error "$what" "$kind" ||
					{ echo "# $cmd, $cache cache, $kind" >&2; false; }
				[[ $stderr != *retrying* ]] || { echo "# $cmd, $cache cache: $stderr" >&2; false; }
			done
		done
	done
}

@test "get --from-cache and verify: a refused streaming list alone does not end them, the LIST after it may be let in" {
	warm_cache
	local cmd
	for cmd in "get pods --from-cache" "verify pods"; do
		refuse 403 1000 watchlist
		run_kinf $cmd --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/warm"
		assert_status 0
		[[ $output == *pod-0* || $output == *"cache equals the server"* ]]
	done
}

# notices PATTERN — how many lines of the background kinf's stderr match.
notices() { count_lines "$ERR" "$1"; }

@test "watch retries a refused discovery (no cache) as the Reflector retries its list, and syncs once let in" {
	refuse 401 2 discovery
	kinf_bg watch pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/cold"
	wait_until 30 file_has "$ERR" 'pods: synced' || { cat "$ERR" >&2; false; }
	kinf_stop
	[ "$(notices "^kinf: error: discover the server's APIs: 401 Unauthorized: .*; retrying as client-go's reflector retries a refusal$")" -eq 2 ]
	[ "$(notices '^kinf: backing off [0-9.]+s: discovering again$')" -eq 2 ]
	[ "$(simctl GET '/requests?verb=discovery' | jq -r '[.[] | select(.path == "/api") | .status] | join(" ")')" = "401 401 200" ]
}

@test "tui retries a refused discovery (no cache) too, then shows the informer's cache" {
	TMUX_SOCK=kinf-auth-$$-$BATS_TEST_NUMBER
	refuse 401 2 discovery
	tui_start pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/cold"
	wait_screen ' pods  [0-9]+ objects? ' 30
	[ "$(count_lines "$BATS_TEST_TMPDIR/stderr" "^kinf: error: discover the server's APIs: 401 Unauthorized: .*; retrying as client-go's reflector retries a refusal$")" -eq 2 ]
	keys q
	wait_screen 'kinf exited 0'
}

@test "watch with a warm cache retries a refusal as client-go does: a refused streaming list, then the LIST it says it falls back to" {
	warm_cache
	refuse 401
	simctl DELETE /requests >/dev/null
	kinf_bg watch pods --kubeconfig "$SIM_KUBECONFIG" --cache-dir "$T/warm"
	wait_until 30 bash -c "[ \$(grep -c 'backing off .*: relisting' '$ERR') -ge 2 ]" || { cat "$ERR" >&2; false; }
	simctl DELETE /faults >/dev/null
	wait_until 60 file_has "$ERR" 'pods: synced' || { cat "$ERR" >&2; false; }
	kinf_stop
	# no discovery: the cache had it
	[ "$(simctl GET '/requests?verb=discovery' | jq length)" -eq 0 ]
	# each cycle: the streaming list refused, then the LIST the warning
	# announces (client-go's fallbackToList), refused too; then the backoff
	local seq cycles
	seq=$(simctl GET '/requests?resource=pods' | jq -r 'map((if .verb == "watch" and .query.sendInitialEvents == "true" then "S"
		elif .verb == "list" then "L" else "W" end) + (.status | tostring)) | join(" ")')
	cycles=$(notices '^kinf: pods: warning: the server refused the streaming list \(401\): listing with LIST this time')
	[ "$cycles" -ge 2 ]
	[ "$(grep -o 'S401' <<<"$seq" | wc -l)" -eq "$cycles" ] || { echo "# $seq" >&2; false; }
	run ! grep -qE 'S401( [^L]|$)' <<<"$seq"
}

@test "exec plugin: its output read as client-go's universal decoder reads it, JSON or YAML" {
	local head='"apiVersion":"@API@","kind":"ExecCredential"' n want took=0
	local outputs=(
		"{$head,\"status\":{\"token\":\"@TOKEN@\"}}"
		$'apiVersion: @API@\nkind: ExecCredential\nstatus:\n  token: @TOKEN@'	# YAML
		$'\xef\xbb\xbf'"{$head,\"status\":{\"token\":\"@TOKEN@\"}}"	# a BOM: YAML
		'{"apiVersion":"@API@","status":{"token":"@TOKEN@"}}'	# the kind left out
		"{$head,\"status\":{\"token\":\"@TOKEN@\"}} x"		# more than one value
		"{$head,\"status\":{\"token\":\"@TOKEN@\"}}{}"
		"{$head,\"status\":{\"token\":\"@TOKEN@\",\"expirationTimestamp\":\"\"}}"
		"{$head,\"status\":{\"token\":\"@TOKEN@\",\"expirationTimestamp\":null}}"
		"{$head,\"status\":{\"token\":\"@TOKEN@\",\"expirationTimestamp\":5}}"
		"{$head,\"status\":{'token':'@TOKEN@'}}"			# not Go's JSON
		$'apiVersion: @API@\nstatus: {token: yes}'		# a boolean
		$'a: &a {token: @TOKEN@}\napiVersion: @API@\nstatus: {<<: *a}'
	)
	for n in "${!outputs[@]}"; do
		printf '%s\n' "${outputs[n]}" >"$T/out.$n"
		write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_TOKEN, value: %s}\n      - {name: PLUGIN_OUTPUT, value: %s}' "$SIM_TOKEN" "$T/out.$n")")"
		run kubectl --kubeconfig "$T/kc" get ns default -o name
		want=$status
		run_kinf get ns default -o name --kubeconfig "$T/kc"
		[ "$status" -eq "$want" ] || { echo "# output $n: kubectl $want, kinf $status" >&2; false; }
		took=$((took + !want))
	done
	[ "$took" -eq 6 ]
	sed -i "s|$T/out.11|$T/out.4|" "$T/kc"
	run_kinf get ns default -o name --kubeconfig "$T/kc"
	assert_one_line_error "of user 'tester' did not print an ExecCredential (more than one JSON value)"
}

@test "exec plugin: provideClusterInfo hands it the cluster's exec extension as its config, as kubectl" {
	write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_TOKEN, value: %s}\n      provideClusterInfo: true' "$SIM_TOKEN")")" \
		"$(printf '    certificate-authority: %s\n    extensions:\n    - {name: other, extension: {a: 1}}\n    - name: client.authentication.k8s.io/exec\n      extension: {aud: x, n: 1, yes: no, list: [a, 2, 0x1F], nested: {k: ~}}' "$SIM_CACERT")"
	kubectl --kubeconfig "$T/kc" get ns default -o name
	cp "$T/plugin/exec-info" "$T/want"
	run_kinf get ns default -o name --kubeconfig "$T/kc"
	assert_status 0
	jq -e '.spec.cluster.config | .aud == "x" and .true == false and .false == 1 and .list[2] == 31' \
		"$T/plugin/exec-info"
	diff <(jq -S . "$T/want") <(jq -S . "$T/plugin/exec-info")
}

@test "tokenFile: white space trimmed as Go's TrimSpace, a file of white space sent whole, a NUL refused: as kubectl" {
	# What client-go does (transport's cached file token source over
	# clientcmd's BearerToken, the file untrimmed): Unicode spaces go; a
	# file of nothing else is the token as read; a NUL or a line end
	# left in it is a header Go refuses, so nothing goes out.
	local files=(
		$'\xc2\xa0@TOKEN@\xe3\x80\x80'
		$'\v@TOKEN@\f'
		'   '
		$'\xc2\xa0'
		$'\n'
		'x@TOKEN@\0'
	)
	local n want sent took=0
	write_kubeconfig "$T/kc" "    tokenFile: $T/token"
	for n in "${!files[@]}"; do
		printf "${files[n]//@TOKEN@/$SIM_TOKEN}" >"$T/token"
		simctl DELETE /requests >/dev/null
		run kubectl --kubeconfig "$T/kc" get ns default -o name
		want=$status
		sent=$(simctl GET /requests | jq -c '[.[] | [.user, .headers.Authorization]] | unique')
		simctl DELETE /requests >/dev/null
		run_kinf get ns default -o name --kubeconfig "$T/kc"
		[ "$((status != 0))" -eq "$((want != 0))" ] || { echo "# file $n: kubectl $want, kinf $status" >&2; false; }
		[ "$(simctl GET /requests | jq -c '[.[] | [.user, .headers.Authorization]] | unique')" = "$sent" ] ||
			{ echo "# file $n: kubectl sent $sent" >&2; simctl GET /requests >&2; false; }
		took=$((took + !want))
	done
	[ "$took" -eq 2 ]
	assert_one_line_error "the Authorization header of user 'tester' (token file '$T/token') holds a control character: not sent"
}

# new_client_pair NAME CN — a client certificate and key the sim's CA signs,
# $T/NAME.crt and $T/NAME.key, for the user CN (an admin).
new_client_pair() {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/}
	openssl req -newkey rsa:2048 -nodes -keyout "$T/$1.key" -out "$T/$1.csr" \
		-subj "/O=system:masters/CN=$2" 2>/dev/null
	openssl x509 -req -in "$T/$1.csr" -CA "$dir/$base.ca.crt" -CAkey "$dir/$base.ca.key" \
		-CAcreateserial -out "$T/$1.crt" -days 1 2>/dev/null
}

# files_kubeconfig — $T/kc, whose user's client certificate and key are
# the files $T/c.crt and $T/c.key, copies of the sim's admin pair.
files_kubeconfig() {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/}
	cp "$dir/$base.client.crt" "$T/c.crt"
	cp "$dir/$base.client.key" "$T/c.key"
	write_kubeconfig "$T/kc" "$(printf '    client-certificate: %s\n    client-key: %s' "$T/c.crt" "$T/c.key")"
}

# watch_users — the users of the pods watches, in order.
watch_users() { simctl GET '/requests?verb=watch&resource=pods' | jq -r '.[].user' | uniq; }

@test "client certificate files: a new pair in them is read at the next check, and every connection closed for it, as client-go's certificate rotation" {
	files_kubeconfig
	KINF_CERT_CHECK_SECONDS=1 kinf_bg watch pods --client-go 1.32 --kubeconfig "$T/kc" -o json -v
	wait_until 20 file_has "$ERR" 'synced'
	wait_until 10 file_has "$ERR" 'watching from rv'
	# The same pair written again, another file: no rotation.
	cp "$T/c.crt" "$T/same.crt"
	mv "$T/same.crt" "$T/c.crt"
	# A key that is not the certificate's: refused, the old pair kept.
	new_client_pair other kinf-other
	cp "$T/other.key" "$T/c.key.new"
	mv "$T/c.key.new" "$T/c.key"
	wait_until 10 file_has "$ERR" "are no pair TLS can use"
	[ "$(watch_users)" = kinf-admin ]
	run ! grep -q 'certificate in its files changed' "$ERR"
	# A new pair (another admin's): read at the next check; the watch ends
	# and opens again from its resourceVersion as the new user, no relist.
	new_client_pair new admin
	cp "$T/new.crt" "$T/c.crt"
	cp "$T/new.key" "$T/c.key"
	wait_until 10 file_has "$ERR" "the client certificate in its files changed: closing every connection"
	wait_until 10 eval '[ "$(watch_users)" = "$(printf "kinf-admin\nadmin")" ]'
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"after-rotation","namespace":"default"}}}' >/dev/null
	wait_until 10 file_has "$OUT" after-rotation
	kinf_stop
	[ "$(simctl GET '/requests?verb=list&resource=pods' | jq -r '.[].user')" = kinf-admin ]
	run ! grep -q 'relist' "$ERR"
	grep -q "connection to server '.*' closed: the client certificate changed" "$ERR"
}

@test "client certificate files: a new connection's handshake reads them too, a new pair closing every connection, that one's too: its request sent again 1 s later" {
	files_kubeconfig
	# Discovery from the cache: the LIST's connection and the watch's are
	# all there are; the watch cut, it goes on the LIST's, the one left.
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	kinf_bg watch pods --client-go 1.32 --kubeconfig "$T/kc" -o json -v
	wait_until 20 file_has "$ERR" 'watching from rv'
	local n
	for n in 1 2; do
		simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"before-'$n'","namespace":"default"}}}' >/dev/null
		wait_until 10 file_has "$OUT" '"name":"before-'$n'"'
		[ $n = 2 ] || simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	done
	# client-go reads the files again once its last read is a second old
	# (cachingCertificateLoader): time must pass, and more does no harm.
	sleep 1.1
	new_client_pair new admin
	cp "$T/new.crt" "$T/c.crt"
	cp "$T/new.key" "$T/c.key"
	# No check falls due for 5 minutes: the connection the watch opens
	# again after the server closed its own finds the new pair.
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 10 file_has "$ERR" "the client certificate in its files changed: closing every connection"
	wait_until 10 eval '[ "$(watch_users)" = "$(printf "kinf-admin\nadmin")" ]'
	kinf_stop
	grep -q "watch=true failed after [0-9]* ms: connection to server '.*' closed: the client certificate changed" "$ERR"
	grep -q "backing off 1.0s: no answer from the server: retrying as client-go's REST client does (1 of 10)" "$ERR"
	run ! grep -q 'relist' "$ERR"
}

@test "client certificate files: a handshake that cannot read them fails, as client-go's: no request reaches the server until they are back" {
	files_kubeconfig
	# Discovery from the cache: the streaming list's connection is the one.
	run_kinf api-resources --kubeconfig "$T/kc" -o name
	assert_status 0
	kinf_bg watch pods --client-go 1.35 --kubeconfig "$T/kc" -o json
	wait_until 20 file_has "$ERR" 'synced'
	# The read at the start stands for a second (cachingCertificateLoader).
	sleep 1.1
	mv "$T/c.key" "$T/c.key.away"
	simctl DELETE /requests >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	# The watch, then the relist after it, fail to connect.
	local why="error: cannot use the client certificate for server '.*': cannot read client certificate '$T/c.crt' or key '$T/c.key': No such file or directory"
	wait_until 20 eval '[ "$(count_lines "$ERR" "$why")" -ge 2 ]'
	grep -q "backing off .*: relisting" "$ERR"
	[ "$(simctl GET /requests | jq length)" -eq 0 ]
	mv "$T/c.key.away" "$T/c.key"
	wait_until 30 file_has "$ERR" 'relist #1 \(watch failed: cannot use the client certificate'
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"after","namespace":"default"}}}' >/dev/null
	wait_until 10 file_has "$OUT" '"name":"after"'
}

@test "exec plugin: another client certificate in its answer closes every connection, as client-go's exec authenticator" {
	local dir=${SIM_CACERT%/*} base=${SIM_KUBECONFIG##*/}
	cp "$dir/$base.client.crt" "$T/c.crt"
	cp "$dir/$base.client.key" "$T/c.key"
	# An answer already expired: the plugin runs for every request.
	write_kubeconfig "$T/kc" "$(exec_user v1 "$(printf '      - {name: PLUGIN_CERT, value: %s}\n      - {name: PLUGIN_KEY, value: %s}\n      - {name: PLUGIN_EXPIRY, value: "2000-01-01T00:00:00Z"}' \
		"$T/c.crt" "$T/c.key")")"
	kinf_bg watch pods,deployments --client-go 1.32 --kubeconfig "$T/kc" -o json -v
	wait_until 20 matches_at_least "$ERR" "watching from rv" 2
	# (an event on each: the watches that end are no very short ones)
	simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"before","namespace":"default"}}}' >/dev/null
	simctl POST /create '{"resource":"deployments","object":{"metadata":{"name":"before","namespace":"default"}}}' >/dev/null
	wait_until 10 matches_at_least "$OUT" '"name":"before"' 2
	new_client_pair new admin
	cp "$T/new.crt" "$T/c.crt"
	cp "$T/new.key" "$T/c.key"
	# The pods watch ends and opens again: the plugin's new answer closes
	# the deployments watch's connection too, which opens again as the new user.
	simctl POST /drop-watches '{"mode":"clean","resource":"pods"}' >/dev/null
	wait_until 10 file_has "$ERR" "the exec plugin's client certificate changed: closing every connection"
	wait_until 10 eval '[ "$(simctl GET "/requests?verb=watch&resource=deployments" | jq -r ".[].user" | uniq)" = "$(printf "kinf-admin\nadmin")" ]'
	kinf_stop
	run ! grep -q 'relist' "$ERR"
}

@test "a CA file: client-go 1.36 reads it again as a request is made, once the last read is old, and new connections trust what it holds; 1.35 keeps the CA it started with" {
	local v
	# A CA that signed nothing of the server's.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other.key" -out "$T/other.crt" \
		-days 1 -subj /CN=other-ca 2>/dev/null
	for v in 1.35 1.36; do
		cp "$SIM_CACERT" "$T/ca.crt"
		write_kubeconfig "$T/kc" "    token: $SIM_TOKEN" "    certificate-authority: $T/ca.crt"
		KINF_CERT_CHECK_SECONDS=1 kinf_bg watch pods --client-go $v --kubeconfig "$T/kc" -o json -v
		wait_until 20 file_has "$ERR" 'synced'
		simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"before-'$v'","namespace":"default"}}}' >/dev/null
		wait_until 10 file_has "$OUT" "before-$v"
		# Read again unchanged: nothing to tell.
		sleep 1.1
		simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
		simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"same-'$v'","namespace":"default"}}}' >/dev/null
		wait_until 10 file_has "$OUT" "same-$v"
		run ! grep -q "CA file" "$ERR"
		cp "$T/other.crt" "$T/ca.crt"
		# The file is read again once the last read is a second old (the
		# hook's period): time must pass, and more does no harm.
		sleep 1.1
		# The watch opens again: a request, on a new connection for 1.36.
		simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
		if [ $v = 1.36 ]; then
			wait_until 10 file_has "$ERR" "the CA file '$T/ca.crt' changed: new connections trust what it holds"
			wait_until 10 file_has "$ERR" "error: cannot verify the certificate of server '$SIM_API'"
			# The CA back in the file: read at a later request, and trusted.
			cp "$SIM_CACERT" "$T/ca.crt"
			simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"after-'$v'","namespace":"default"}}}' >/dev/null
			wait_until 60 file_has "$OUT" "after-$v"
		else
			simctl POST /create '{"resource":"pods","object":{"metadata":{"name":"after-'$v'","namespace":"default"}}}' >/dev/null
			wait_until 10 file_has "$OUT" "after-$v"
			run ! grep -q "CA file" "$ERR"
		fi
		kinf_stop
	done
}

@test "the system's roots as Go reads them, SSL_CERT_FILE's and every file of SSL_CERT_DIR's folders; an empty CA file is a pool of none from client-go 1.36, which trusts nothing" {
	: >"$T/empty.crt"
	# No CA in the kubeconfig: the system's roots, which SSL_CERT_FILE names for Go.
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN" "    insecure-skip-tls-verify: false"
	run_kinf get pods --kubeconfig "$T/kc"
	[ "$status" -eq 1 ]
	[[ ${stderr_lines[-1]} == "error: cannot verify the certificate of server '$SIM_API'"* ]]
	SSL_CERT_FILE=$SIM_CACERT run_kinf get pods --kubeconfig "$T/kc"
	assert_status 0
	# SSL_CERT_DIR: Go reads every file of each folder, whatever its name
	# (OpenSSL only hashed names); a SSL_CERT_FILE that is not there is
	# passed over for them.
	mkdir "$T/roots"
	cp "$SIM_CACERT" "$T/roots/sim-ca.pem"
	SSL_CERT_DIR=/nowhere:$T/roots run_kinf get pods --kubeconfig "$T/kc"
	assert_status 0
	SSL_CERT_FILE=$T/missing.crt SSL_CERT_DIR=$T/roots run_kinf get pods --kubeconfig "$T/kc"
	assert_status 0
	# An empty CA file: the system's roots up to 1.35, nothing from 1.36.
	write_kubeconfig "$T/kc" "    token: $SIM_TOKEN" "    certificate-authority: $T/empty.crt"
	SSL_CERT_FILE=$SIM_CACERT kinf_bg watch pods --client-go 1.35 --kubeconfig "$T/kc" -o json
	wait_until 20 file_has "$ERR" 'synced'
	kinf_stop
	# discovery's requests (no cache) trust what the informers' do: none
	# reaches the server
	simctl DELETE /requests >/dev/null
	SSL_CERT_FILE=$SIM_CACERT kinf_bg watch pods --client-go 1.36 --kubeconfig "$T/kc" -o json \
		--cache-dir "$T/no-cache"
	wait_until 20 file_has "$ERR" "error: cannot verify the certificate of server '$SIM_API'"
	kinf_stop
	run ! grep -q synced "$ERR"
	[ "$(simctl GET /requests | jq length)" -eq 0 ]
}
