#!/usr/bin/env bats
# A Secret's values never reach the screen: line, wide and name output,
# --diff on them and the TUI show sizes ("6 bytes", as kubectl describe
# does); -o json prints the object whole, as kubectl get -o json does.

load test_helper
bats_require_minimum_version 1.5.0

KINF_PID=

# The simulator's app-secret in "default": password "s3cr3t", username "admin".
OLD_B64=czNjcjN0	# s3cr3t
NEW_PLAIN='n3w-s3cr3t!'
NEW_B64=bjN3LXMzY3IzdCE=

setup() {
	sim_start --pods 1 --namespaces 0
	B=$BATS_TEST_TMPDIR
	TMUX_SOCK="kinf-secrets-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	if [ -n "$KINF_PID" ]; then
		kill -TERM "$KINF_PID" 2>/dev/null || true
		wait "$KINF_PID" 2>/dev/null || true
	fi
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

change_password() {	# prints the new resourceVersion
	simctl POST /update "{\"resource\":\"secrets\",\"namespace\":\"default\",\"name\":\"app-secret\",\"patch\":{\"data\":{\"password\":\"$NEW_B64\"}}}" |
		jq -r .metadata.resourceVersion
}

# No value of the secret, old or new, encoded or not, is in FILE.
no_values() {
	local v
	for v in "$OLD_B64" s3cr3t "$NEW_B64" "$NEW_PLAIN" YWRtaW4= admin; do
		if grep -qF -- "$v" "$1"; then
			echo "# '$v' is in $1:" >&2
			grep -F -- "$v" "$1" | sed 's/^/#   /' >&2
			return 1
		fi
	done
}

# watch_secret ARGS... — kinf watch secrets ARGS until the password change
# has been printed; stdout in $B/out.
watch_secret() {
	"$KINF" watch secrets --kubeconfig "$SIM_KUBECONFIG" "$@" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 grep -q synced "$B/err"
	local rv
	rv=$(change_password)
	if [ "$*" = "-o name" ]; then
		wait_until 20 matches_at_least "$B/out" . 2
	else
		wait_until 20 grep -q -- "$rv" "$B/out"
	fi
	kill -TERM "$KINF_PID"
	wait "$KINF_PID" || true
	KINF_PID=
}

@test "watch secrets: line output shows no value; --diff shows the change as sizes" {
	watch_secret --diff
	grep -q 'default/app-secret' "$B/out"
	grep -q 'Updated' "$B/out"
	grep -qF 'data.password: 6 bytes → 11 bytes' "$B/out"
	no_values "$B/out"
	no_values "$B/err"
}

@test "watch secrets: the last-applied-configuration annotation, data in the clear, shows as its size" {
	"$KINF" watch secrets --diff --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 grep -q synced "$B/err"
	# kubectl apply writes the object as applied, its data sorted first.
	local applied
	applied=$(jq -c -n --arg p "$NEW_B64" --arg u YWRtaW4= \
		'{apiVersion: "v1", data: {password: $p, username: $u}, kind: "Secret"} | tojson')
	local rv
	rv=$(simctl POST /update "{\"resource\":\"secrets\",\"namespace\":\"default\",\"name\":\"app-secret\",\"patch\":{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":$applied}},\"data\":{\"password\":\"$NEW_B64\"}}}" |
		jq -r .metadata.resourceVersion)
	wait_until 20 grep -q -- "$rv" "$B/out"
	kill -TERM "$KINF_PID"
	wait "$KINF_PID" || true
	KINF_PID=
	grep -qE 'last-applied-configuration"\]: .*[0-9]+ bytes' "$B/out"
	no_values "$B/out"
	no_values "$B/err"
}

@test "watch secrets: a change of the same size still shows, without the values" {
	"$KINF" watch secrets --diff --kubeconfig "$SIM_KUBECONFIG" >"$B/out" 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 grep -q synced "$B/err"
	simctl POST /update '{"resource":"secrets","namespace":"default","name":"app-secret","patch":{"data":{"password":"YWJjZGVm"}}}' >/dev/null
	wait_until 20 grep -q 'data.password' "$B/out"
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	grep -qF 'data.password: 6 bytes → 6 bytes, changed' "$B/out"
	! grep -q 'YWJjZGVm\|abcdef' "$B/out" || false
	no_values "$B/out"
}

@test "watch secrets -o wide and -o name show no value" {
	watch_secret -o wide --diff
	no_values "$B/out"
	grep -q 'default/app-secret' "$B/out"
	watch_secret -o name
	no_values "$B/out"
}

@test "watch secrets -o json prints the data, as kubectl get -o json does" {
	watch_secret -o json
	jq -s -e --arg old "$OLD_B64" 'any(.[]; (.type == "Replaced" or .type == "ReplacedAll") and .object.data.password == $old)' "$B/out" >/dev/null
	jq -s -e --arg new "$NEW_B64" 'any(.[]; .type == "Updated" and .object.data.password == $new)' "$B/out" >/dev/null
}

@test "get secrets, from the server and from the cache, shows no value" {
	run -0 "$KINF" get secrets -o wide --kubeconfig "$SIM_KUBECONFIG"
	printf '%s\n' "$output" >"$B/out"
	grep -q 'app-secret' "$B/out"
	no_values "$B/out"
	run -0 "$KINF" get secrets --from-cache --kubeconfig "$SIM_KUBECONFIG"
	printf '%s\n' "$output" >"$B/out"
	grep -q 'app-secret' "$B/out"
	no_values "$B/out"
}

@test "-v -v traces no Secret's body: get, get --from-cache, watch (list and events); other bodies are traced" {
	local cmd
	for cmd in "get secrets" "get secrets app-secret" "get secrets -n default --from-cache" \
		"get secrets -o json" "get secrets -A"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" $cmd --kubeconfig "$SIM_KUBECONFIG" -v -v
		assert_status 0
		printf '%s\n' "$stderr" >"$B/err"
		grep -q '(of Secrets: not shown)' "$B/err" || { echo "# $cmd: $stderr" >&2; false; }
		no_values "$B/err"
	done
	"$KINF" watch secrets --kubeconfig "$SIM_KUBECONFIG" -vv >/dev/null 2>"$B/err" 3>&- &
	KINF_PID=$!
	wait_until 20 file_has "$B/err" 'synced'
	simctl POST /update "{\"resource\":\"secrets\",\"namespace\":\"default\",\"name\":\"app-secret\",\"patch\":{\"data\":{\"password\":\"$NEW_B64\"}}}" >/dev/null
	wait_until 20 bash -c "[ \$(grep -c 'of Secrets: not shown' '$B/err') -ge 2 ]"
	kill -TERM "$KINF_PID"
	wait "$KINF_PID" || true
	KINF_PID=
	no_values "$B/err"
	run ! grep -qF "$NEW_B64" "$B/err"
	# A body of anything else is traced, as before.
	run --separate-stderr "$KINF" get pods --kubeconfig "$SIM_KUBECONFIG" -v -v
	[[ $stderr == *'< ['*' bytes] {"kind":"Table"'* ]] || { echo "$stderr" >&2; false; }
}

@test "tui: a Secret's detail shows sizes, its last update too" {
	command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
	local cmd
	printf -v cmd '%q ' "$KINF" tui secrets --kubeconfig "$SIM_KUBECONFIG"
	# Tall enough for the whole detail: history, diff and JSON.
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 90 "$cmd; sleep 600"
	tui_has() { tmux -L "$TMUX_SOCK" capture-pane -p | grep -qE -- "$1"; }
	wait_until 20 tui_has 'app-secret'
	local rv
	rv=$(change_password)
	wait_until 20 tui_has "app-secret .*$rv"
	tmux -L "$TMUX_SOCK" send-keys g Enter
	wait_until 10 tui_has '"password": '
	tmux -L "$TMUX_SOCK" capture-pane -p >"$B/screen"
	grep -qF 'data.password: 6 bytes → 11 bytes' "$B/screen" || { sed 's/^/# /' "$B/screen" >&2; return 1; }
	grep -qF '"password": "11 bytes"' "$B/screen"
	no_values "$B/screen"
}
