#!/usr/bin/env bats
# Every command the README and the man page's EXAMPLES show runs here as
# written, against kube-sim, and its output is checked for what the text
# next to it says it shows.  A new example with no check, or a check whose
# example is gone, fails the first test: the table below is the list.
#
# Commands run through `bash -c` in a scratch folder with KUBECONFIG set;
# `kinf` on PATH is the binary under test, with --timeout added to the
# commands that would run until Ctrl-C (watch), so that a pipe ends and
# jq prints.  The example whose meaning depends on the client-go profile
# runs under every profile in 33-docs.bats.

load test_helper
load tui_helper
bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/..

# The examples: the README's code lines that start with kinf, and the man
# page's EXAMPLES (.Dl $ kinf ...), unescaped, without trailing comments.
examples() {
	{
		# a line that ends in | or \ goes on on the next
		awk '/^    (\$ )?kinf [a-z]/ || cont { if (cont) sub(/^ +/, ""); line = line $0;
			cont = /[|\\]$/; if (!cont) { print line; line = "" } else line = line " " }' \
			"$ROOT/README.md" |
			sed -E 's/^ +(\$ )?//'
		grep -E '^\.Dl \$ kinf ' "$ROOT/man/kinf.1" | sed -E 's/^\.Dl \$ //; s/\\-/-/g; s/\\e/\\/g'
	} | sed -E 's/ +# .*$//' | sort -u
}

# example -> the function that checks its output ($output, $stderr, $status).
declare -gA CHECK=(
	["kinf api-resources"]=chk_api_resources
	["kinf get all -A"]=chk_get_all
	["kinf get deploy/web -o yaml --from-cache"]=chk_get_deploy_yaml
	["kinf get pods --from-cache"]=chk_get_pods_table
	["kinf get pods --from-cache --index node=worker-1 -o wide"]=chk_index_default
	["kinf get pods -A --from-cache --index node=worker-1"]=chk_index_all
	["kinf get pods --sort-by=.metadata.creationTimestamp -L app --show-labels"]=chk_as_kubectl
	["kinf get pods -o custom-columns=NAME:.metadata.name,IMAGE:.spec.containers[*].image"]=chk_as_kubectl
	["kinf get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\t\"}{.spec.nodeName}{\"\\n\"}{end}'"]=chk_as_kubectl
	["kinf get pods -o yaml --from-cache"]=chk_pods_yaml
	["kinf get pods,deploy"]=chk_two_types
	["kinf watch pods"]=chk_watch_pods
	["kinf watch pods --client-go v0.33.2"]=chk_watch_pods
	["kinf watch pods --hide-unchanged"]=chk_watch_pods
	["kinf watch pods --resync 30s --types Sync,Updated"]=chk_types_sync_updated
	["kinf watch pods --resync 30s -o json | jq 'select(.resync)'"]=chk_json_resync
	["kinf watch pods -o json --events | jq 'select(.type==\"Relist\")'"]=chk_relist_records
	["kinf watch pods -A -o json | jq -r 'select(.handler==\"OnDelete\") | .key'"]=chk_on_delete
	["kinf watch pods,deployments -A --diff"]=chk_watch_diff
	["kinf watch deploy,pods -A --diff"]=chk_watch_diff
	["kinf watch deploy/web --diff"]=chk_watch_one_diff
	["kinf watch pods -A --verify-every 1m"]=chk_verify_every
	["kinf watch pods -A --verify-every 1m --client-go v0.33.2"]=chk_verify_every
	["kinf verify pods -A -o json | jq '.missing, .extra, .stale'"]=chk_verify_equal
	["kinf tui pods,deployments"]=chk_tui
	["kinf tui pods -n shop --controller --predicate generation"]=chk_tui
	["kinf watch pods -A --record missed.rec"]=chk_record
	["kinf replay missed.rec -o json | jq -c 'select(.tombstone)'"]=chk_replay_tombstone
	["kinf replay missed.rec --key shop/web-1"]=chk_replay_key
	["kinf replay missed.rec --client-go 1.28"]=chk_replay_128
	["kinf replay missed.rec --client-go 1.28 -o json"]=chk_replay_128_json
	["kinf replay missed.rec --speed 1"]=chk_replay_speed
	["kinf watch pods -n shop --controller --reconcile-time 1s --predicate generation"]=chk_controller_generation
	["kinf replay pods.rec --controller --workers 2 --predicate generation -o json --events | jq -c 'select(.type == \"NeverReconciled\")'"]=chk_replay_never_reconciled
	["kinf watch pods -A --verify-every 1m --metrics 9090 -q >/dev/null &"]=chk_metrics_canary
	["kinf get pods -o go-template='{{range .items}}{{.metadata.name}}{{\"\\t\"}}{{.status.phase}}{{\"\\n\"}}{{end}}'"]=chk_as_kubectl
	["kinf get pods --show-kind --chunk-size 100"]=chk_as_kubectl
	["kinf get pods -w --output-watch-events"]=chk_get_watch
	["kinf watch pods -A --verify-every 5m --flight-recorder 15m --flight-dir dumps"]=chk_flight_watch
	["kinf replay dumps/kinf-20250101T120000Z-verify.rec.gz --at trigger"]=chk_flight_at_trigger
)

setup() {
	W=$BATS_TEST_TMPDIR/work BIN=$BATS_TEST_TMPDIR/bin
	mkdir -p "$W" "$BIN"
	# watch runs until Ctrl-C: here until --timeout, $EX_TIMEOUT (4s)
	cat >"$BIN/kinf" <<EOF
#!/bin/sh
case \$1 in watch) exec "$KINF" "\$@" --timeout "\${EX_TIMEOUT:-4s}" ;; esac
# get -w too, as Ctrl-C would end it
case " \$* " in *" get "*" -w "*) exec timeout -s TERM "\${EX_TIMEOUT:-4s}" "$KINF" "\$@" ;; esac
exec "$KINF" "\$@"
EOF
	chmod +x "$BIN/kinf"
	export PATH=$BIN:$PATH
	TMUX_SOCK=kinf-doc-$$-$BATS_TEST_NUMBER
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# The cluster every example runs against: kube-sim's pods, plus web-1 on
# worker-1 in default and in shop (the names the examples use).
cluster_up() {
	sim_start --pods 6
	export KUBECONFIG=$SIM_KUBECONFIG
	for ns in default shop; do
		simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"web-1\",\"namespace\":\"$ns\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"worker-1\",\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.25\"}]}}}" >/dev/null
	done
}

# ex CMD — runs one example in the scratch folder.
ex() { run --separate-stderr bash -c "cd '$W' && $1"; }

# The pods of a namespace ("" for all), as the server has them.
pod_names() { simcurl /api/v1/pods | jq -r --arg ns "$1" '.items[].metadata | select($ns == "" or .namespace == $ns) | .name' | sort; }

# ---- the checks: what the text beside each example says -------------------

chk_api_resources() {	# what the server offers
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^NAME\ +SHORTNAMES\ +APIVERSION\ +NAMESPACED\ +KIND$ ]]
	grep -qE '^pods +po +v1 +true +Pod$' <<<"$output"
	grep -qE '^deployments +deploy +apps/v1 +true +Deployment$' <<<"$output"
}

chk_get_all() {		# every type of the "all" category, all namespaces
	[ "$status" -eq 0 ]
	grep -qE '^shop +pod/web-1 ' <<<"$output"
	grep -qE '^default +deployment\.apps/web ' <<<"$output"
}

chk_get_deploy_yaml() {	# one object as itself, from the cache
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "apiVersion: apps/v1" ]
	grep -qx 'kind: Deployment' <<<"$output"
	grep -qx '  name: web' <<<"$output"
}

chk_get_pods_table() {	# the cache, as a lister: the namespace's pods
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE$ ]]
	[ "$(sed 1d <<<"$output" | awk '{print $1}' | sort)" = "$(pod_names default)" ]
}

chk_index_default() {	# the Indexer's node index: web-1 alone, -o wide
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == NAME*NODE* ]]
	[[ ${lines[1]} =~ ^web-1\ .*\ worker-1\ + ]]
}

chk_index_all() {	# the same index across namespaces
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} == NAMESPACE* ]]
	[[ ${lines[1]} =~ ^default\ +web-1\  ]]
	[[ ${lines[2]} =~ ^shop\ +web-1\  ]]
}

# kubectl's output formats, byte for byte: the same command through kubectl
# (the AGE column aside, which moves on between the two: a pod 5h59m old
# is 6h a moment later, so every form of an age is masked, 2d20h and 5h9m
# as well as 8s), and the spaces after it, which its length moves: 8s
# and 10s of a pod made just before are padded apart).  kubectl's stdout
# alone: the kubectl on PATH may be a dispatcher that warns on stderr when
# it is slow to learn the server's version, which is not the format.
no_age() { sed -E 's/ [0-9]+[smhdy]([0-9]+[smh])?( +|$)/ AGE /'; }
chk_as_kubectl() {
	[ "$status" -eq 0 ]
	local kc
	kc=$(cd "$W" && bash -c "kubectl ${EX#kinf }" 2>"$BATS_TEST_TMPDIR/kc.err")
	[ "$(no_age <<<"$output")" = "$(no_age <<<"$kc")" ] ||
		{ printf '# kubectl printed:\n%s\n# on stderr:\n%s\n' "$kc" "$(cat "$BATS_TEST_TMPDIR/kc.err")" >&2; false; }
}

chk_get_watch() {	# kubectl's get -w: the list, each row with its event's type
	[ "$status" -eq 124 ]	# ended by the timeout, as by Ctrl-C
	[[ ${lines[0]} =~ ^EVENT\ +NAME\ +READY\ +STATUS\ +RESTARTS\ +AGE$ ]]
	[ "$(sed 1d <<<"$output" | awk '$1 == "ADDED" {print $2}' | sort)" = "$(pod_names default)" ]
}

chk_pods_yaml() {	# the cache as kubectl's -o yaml: a List of the pods
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "apiVersion: v1" ]
	grep -qx 'kind: List' <<<"$output"
	[ "$(grep -c '^  kind: Pod$' <<<"$output")" -eq "$(pod_names default | wc -l)" ]
}

chk_two_types() {	# several types at once
	[ "$status" -eq 0 ]
	grep -qE '^pod/web-1 ' <<<"$output"
	grep -qE '^deployment\.apps/web ' <<<"$output"
}

chk_watch_pods() {	# every delta of the pods in the namespace
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^TIME\ +TYPE\ +KEY\ +RV ]]
	[ "$(sed 1d <<<"$output" | awk '{print $3}' | sed 's|^default/||' | sort)" = "$(pod_names default)" ]
}

chk_types_sync_updated() {	# only resyncs (1.36: SyncAll) and Updated deltas
	[ "$status" -eq 0 ]
	[ "$(sed 1d <<<"$output" | awk '$2 != "Sync" && $2 != "SyncAll" && $2 != "Updated"' | wc -l)" -eq 0 ]
}

chk_json_resync() {	# updates that changed nothing: none before the first resync
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

chk_relist_records() {	# one Relist record per relist: the run forced one
	[ "$status" -eq 0 ]
	jq -se 'length == 1 and .[0].type == "Relist" and .[0].listNumber == 1' <<<"$output" >/dev/null
}

chk_on_delete() {	# the OnDelete keys: web-1, deleted while it ran
	[ "$status" -eq 0 ]
	[ "$output" = default/web-1 ]
}

chk_watch_diff() {	# several kinds, each update with what it changed
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^TIME\ +KIND\ +TYPE\ +KEY ]]
	grep -qE ' Pod +Replaced +shop/web-1 ' <<<"$output"
	grep -qE ' Deployment +Updated +default/web ' <<<"$output"
	grep -qx '    spec\.replicas: [0-9]* → 7' <<<"$output"
}

chk_watch_one_diff() {	# one object, its updates' changes
	[ "$status" -eq 0 ]
	[ "$(sed 1d <<<"$output" | grep -cv '^    ' )" -eq 2 ]
	grep -qx '    spec\.replicas: [0-9]* → 7' <<<"$output"
}

chk_verify_every() {	# the cache checked against the server while it watches
	[ "$status" -eq 0 ]
	grep -qE '^kinf: pods: verify: cache equals the server \([0-9]+ objects\)$' <<<"$stderr"
}

chk_verify_equal() {	# the check once: missing, extra, stale, all empty
	[ "$status" -eq 0 ]
	[ "$output" = $'[]\n[]\n[]' ]
}

chk_tui() { :; }	# driven in its own test below

chk_record() {		# the recording: gzip'd JSON lines, mode 0600
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$W/missed.rec")" = 600 ]
	zcat "$W/missed.rec" | head -1 | jq -e '.kinfRecording == 1' >/dev/null
}

chk_replay_tombstone() {	# the tombstone the relist found
	[ "$status" -eq 0 ]
	jq -se 'length == 1 and .[0].key == "shop/web-1" and .[0].tombstone' <<<"$output" >/dev/null
}

chk_replay_key() {	# one object's story: added, updated with its diff, gone
	[ "$status" -eq 0 ]
	[ "$(grep -vc '^    \|^TIME' <<<"$output")" -ge 3 ]
	[ -z "$(grep -v '^    \|^TIME' <<<"$output" | grep -v 'shop/web-1')" ]
	grep -qx '    metadata\.labels\.step: + two' <<<"$output"
}

chk_replay_128() {	# what client-go 1.28 (DeltaFIFO) was handed: Deleted for the tombstone
	[ "$status" -eq 0 ]
	grep -qE ' Deleted +shop/web-1 .*\(tombstone\)' <<<"$output"
}

chk_replay_128_json() {
	[ "$status" -eq 0 ]
	jq -se 'any(.[]; .type == "Deleted" and .key == "shop/web-1" and .tombstone)' <<<"$output" >/dev/null
}

chk_replay_speed() {	# at the recorded pace: as long as the recording's last data took
	[ "$status" -eq 0 ]
	grep -qE 'ReplacedAll +shop/web-1 .*\(tombstone\)|Deleted +shop/web-1 .*\(tombstone\)' <<<"$output"
	local last_ms
	last_ms=$(zcat "$W/missed.rec" | sed 1d | jq -s '[.[] | select(has("data")) | .t] | max')
	[ "$last_ms" -ge 2000 ]
	[ "$EX_SECONDS" -ge $((last_ms / 1000 - 1)) ]
}

chk_controller_generation() {	# a change no Reconcile saw: filtered by generation
	[ "$status" -eq 0 ]
	grep -qE 'ReconcileStart +shop/web-1 ' <<<"$output"
	grep -qE 'NeverReconciled +shop/web-1 .*filtered by generation' <<<"$output"
}

chk_replay_never_reconciled() {	# the same answer from the recording, as records
	[ "$status" -eq 0 ]
	jq -se 'length >= 1 and all(.[]; .type == "NeverReconciled" and .key == "shop/web-1")' <<<"$output" >/dev/null
}

# The canary in the background, then the README's next line, its curl.
chk_metrics_canary() {
	[ "$status" -eq 0 ]
	local curl_line
	curl_line=$(grep -A1 -F -- "$EX" "$ROOT/README.md" | tail -1 | sed -E 's/^ +//')
	[[ $curl_line == "curl -s localhost:9090/metrics | grep kinf_verify_divergent_keys" ]]
	wait_until 10 bash -c "curl -s localhost:9090/metrics | grep -q '^kinf_verify_divergent_keys'"
	run bash -c "$curl_line"
	[ "$status" -eq 0 ]
	grep -qE '^kinf_verify_divergent_keys\{.*resource="pods".*\} 0$' <<<"$output"
}

chk_flight_watch() {	# kill -USR1: a dump in dumps/, 0600, said on stderr
	[ "$status" -eq 0 ]
	grep -qE "^kinf: flight recorder: signal: wrote 'dumps/kinf-[0-9]{8}T[0-9]{6}Z-signal\.rec\.gz'$" <<<"$stderr"
	local f
	f=$(ls "$W"/dumps/kinf-*-signal.rec.gz)
	[ "$(stat -c %a "$f")" = 600 ]
	zcat "$f" | head -1 | jq -e '.kinfRecording == 1' >/dev/null
}

chk_flight_at_trigger() {	# the informer's state at the trigger, and the trigger
	[ "$status" -eq 0 ]
	grep -qE '^trigger: signal at [0-9T:.-]+Z, [0-9]+ keys?$' <<<"$output"
	grep -qE 'default/web-1 ' <<<"$output"
}

# SIGUSR1 to this test's kinf alone (others may run beside it): the one
# whose working folder is the scratch folder.
usr1_kinf() {
	local pid
	for pid in $(pgrep -x kinf); do
		[ "$(readlink "/proc/$pid/cwd")" = "$W" ] && kill -USR1 "$pid"
	done
	sleep 1
}

label_shop_web_1() {
	simctl POST /update '{"resource":"pods","namespace":"shop","name":"web-1","patch":{"metadata":{"labels":{"step":"three"}}}}' >/dev/null
	sleep 2
}

# ---- the tests ----------------------------------------------------------------

@test "every example in the README and the man page has a check, and every check an example" {
	local missing=() stale=() e k
	while IFS= read -r e; do
		[ -n "${CHECK[$e]:-}" ] || missing+=("$e")
	done < <(examples)
	for k in "${!CHECK[@]}"; do
		examples | grep -qxF -- "$k" || stale+=("$k")
	done
	[ "${#missing[@]}" -eq 0 ] || { printf '# no check for: %s\n' "${missing[@]}" >&2; false; }
	[ "${#stale[@]}" -eq 0 ] || { printf '# no such example: %s\n' "${stale[@]}" >&2; false; }
	[ "$(examples | wc -l)" -ge 30 ]
}

# run_examples PATTERN — each example matching the ERE, as written, checked.
run_examples() {
	local n=0
	while IFS= read -r EX; do
		ex "$EX"
		"${CHECK[$EX]}" || { echo "# example: $EX" >&2; echo "# stdout: $output" >&2; echo "# stderr: $stderr" >&2; return 1; }
		n=$((n + 1))
	done < <(examples | grep -E -- "$1")
	[ "$n" -ge 1 ]
}

@test "the get, api-resources and verify examples" {
	cluster_up
	run_examples '^kinf (get|api-resources|verify) '
	run_examples '^kinf api-resources$'
}

@test "the watch examples on a quiet cluster" {
	cluster_up
	run_examples '^kinf watch pods( --client-go v0\.33\.2| --hide-unchanged| --resync 30s .*)?$'
}

@test "the --verify-every 1m examples: a minute on, the cache equals the server" {
	cluster_up
	local e i=0 pids=()
	while IFS= read -r e; do
		(cd "$W" && EX_TIMEOUT=70s bash -c "$e" >"$W/v$i.out" 2>"$W/v$i.err" 3>&-) &
		pids+=($!) i=$((i + 1))
	done < <(examples | grep -- '--verify-every 1m' | grep -v -- '--metrics')
	[ "$i" -eq 2 ]
	for ((i = 0; i < ${#pids[@]}; i++)); do
		wait "${pids[$i]}"	# --timeout 70s: one check, at a minute
		run --separate-stderr bash -c "cat '$W/v$i.out'; cat '$W/v$i.err' >&2"
		chk_verify_every || { echo "# stderr: $stderr" >&2; false; }
	done
}

# in_background CMD — an example while the test changes the cluster: its
# output in $output/$stderr once it ends (watch's --timeout).
ex_while() {
	: >"$W/out"; : >"$W/err"	# a wait on err sees this run only
	bash -c "cd '$W' && $1" >"$W/out" 2>"$W/err" 3>&- &
	local pid=$!
	wait_until 20 grep -q synced "$W/err"
	"$2"
	local rc=0
	wait "$pid" || rc=$?
	run --separate-stderr bash -c "cat '$W/out'; cat '$W/err' >&2; exit $rc"
}

scale_web() { simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":7}}}' >/dev/null; }

delete_web_1() { simctl POST /delete '{"resource":"pods","namespace":"default","name":"web-1"}' >/dev/null; sleep 1; }

# kinf kept out (500s) while shop/web-1 changes and goes: only the relist that
# follows finds the delete, as a tombstone.
gap_hides_a_delete() {
	simctl POST /update '{"resource":"pods","namespace":"shop","name":"web-1","patch":{"metadata":{"labels":{"step":"two"}}}}' >/dev/null
	sleep 0.5
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"shop","name":"web-1"}' >/dev/null
	sleep 1
	simctl DELETE /faults >/dev/null
	wait_until 20 grep -q 'relist #1' "$W/err"
}

# (with --events the relist is a record on stdout, which jq holds till the
# end: the second "listed" notice says it happened)
default_gap() {
	simctl POST /faults '{"verb":"any","kind":"500","count":1000}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	sleep 1
	simctl DELETE /faults >/dev/null
	wait_until 20 bash -c "[ \$(grep -c ': listed ' '$W/err') -ge 2 ]"
}

@test "the watch examples while the cluster changes: diffs, a relist, a delete" {
	cluster_up
	local e
	for e in "kinf watch pods,deployments -A --diff" "kinf watch deploy,pods -A --diff" "kinf watch deploy/web --diff"; do
		simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":1}}}' >/dev/null
		EX=$e EX_TIMEOUT=5s ex_while "$e" scale_web
		"${CHECK[$e]}" || { echo "# $e: $output" >&2; false; }
	done
	e="kinf watch pods -o json --events | jq 'select(.type==\"Relist\")'"
	EX_TIMEOUT=8s ex_while "$e" default_gap
	"${CHECK[$e]}" || { echo "# $e: $output" >&2; false; }
	e="kinf watch pods -A -o json | jq -r 'select(.handler==\"OnDelete\") | .key'"
	ex_while "$e" delete_web_1
	"${CHECK[$e]}" || { echo "# $e: $output" >&2; false; }
}

@test "the record and replay examples: the gap's delete, kept and replayed" {
	cluster_up
	local e=$(examples | grep -- '--record')
	EX_TIMEOUT=10s ex_while "$e" gap_hides_a_delete
	"${CHECK[$e]}"
	local start
	while IFS= read -r EX; do
		start=$SECONDS
		ex "$EX"
		EX_SECONDS=$((SECONDS - start))
		"${CHECK[$EX]}" || { echo "# example: $EX" >&2; echo "# stdout: $output" >&2; echo "# stderr: $stderr" >&2; false; }
	done < <(examples | grep '^kinf replay missed\.rec ')
}

@test "the controller and canary examples: a change no Reconcile saw, live and replayed; the metrics" {
	cluster_up
	local e
	e=$(examples | grep -- '--controller --reconcile-time')
	EX=$e EX_TIMEOUT=6s ex_while "$e" label_shop_web_1
	chk_controller_generation || { echo "# $e: $output $stderr" >&2; false; }
	# pods.rec: the same change, recorded (the README leaves how to the reader)
	EX_TIMEOUT=5s ex_while "kinf watch pods -n shop --record pods.rec" label_shop_web_1
	e=$(examples | grep -- 'replay pods.rec --controller')
	EX=$e; ex "$e"
	chk_replay_never_reconciled || { echo "# $e: $output $stderr" >&2; false; }
	e=$(examples | grep -- '--metrics 9090')
	# the example puts kinf in the background: not under `run`, which
	# would wait for it to end
	EX=$e status=0
	(cd "$W" && EX_TIMEOUT=8s bash -c "$e") 2>"$W/canary.err" 3>&- || status=$?
	chk_metrics_canary || { cat "$W/canary.err" >&2; false; }
	sleep 8	# the canary's --timeout: it leaves before the cluster does
}

@test "the flight recorder examples: a dump on SIGUSR1, replayed at its trigger" {
	cluster_up
	mkdir "$W/dumps"
	local e
	e=$(examples | grep -- '--flight-dir dumps')
	EX=$e EX_TIMEOUT=5s ex_while "$e" usr1_kinf
	chk_flight_watch || { echo "# $e: $output $stderr" >&2; false; }
	# the dump, under the name the example gives it
	mv "$W"/dumps/kinf-*-signal.rec.gz "$W/dumps/kinf-20250101T120000Z-verify.rec.gz"
	e=$(examples | grep -- '--at trigger')
	EX=$e; ex "$e"
	chk_flight_at_trigger || { echo "# $e: $output $stderr" >&2; false; }
}

@test "the tui --controller example: w shows the controller pane; a status change is filtered" {
	cluster_up
	local e=$(examples | grep '^kinf tui .*--controller')
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 30 \
		"cd '$W' && KUBECONFIG='$SIM_KUBECONFIG' $e; echo \"kinf exited \$?\"; sleep 60"
	wait_screen ' pods  1 object' 20
	keys w
	wait_screen 'reconciles 1$'
	simctl POST /update '{"resource":"pods","namespace":"shop","name":"web-1","patch":{"status":{"phase":"Failed"}}}' >/dev/null
	wait_screen 'filtered 1 '
	keys Enter
	wait_screen 'Updated .*filtered by generation'
	keys Escape q
	wait_screen 'kinf exited 0'
}

@test "the tui example: both tabs, the pods in the table, q ends it" {
	cluster_up
	local e=$(examples | grep '^kinf tui pods,deployments')
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 30 \
		"cd '$W' && KUBECONFIG='$SIM_KUBECONFIG' $e; echo \"kinf exited \$?\"; sleep 60"
	wait_screen ' pods  [0-9]+ objects?' 20
	screen_has 'deployments'
	screen_has ' web-1 '
	keys q
	wait_screen 'kinf exited 0'
}
