#!/usr/bin/env bats
# Every command the README, the man page's EXAMPLES and each command's
# --help show runs here as written, against kube-sim, and its output is
# checked for what the text next to it says it shows (a --help example,
# for what the command's help says it does).  A new example with no
# check, or a check whose example is gone, fails the first test: the
# table below is the list.
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

# The commands `kinf help` lists.
help_commands() { "$KINF" help | awk '/^commands:$/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1 }'; }

# Each command's examples, as the binary's `kinf help COMMAND` prints them.
help_examples() {
	local c
	for c in $(help_commands); do
		"$KINF" help "$c" | sed -n '/^examples:$/,/^$/p' | sed '1d; /^$/d'
	done | sed -E 's/^ +//'
}

# The examples: the README's code lines that start with kinf, the man
# page's EXAMPLES (.Dl $ kinf ...), unescaped, and the --help examples,
# without trailing comments.
examples() {
	local list=$BATS_FILE_TMPDIR/examples
	[ -s "$list" ] || {
		# a line that ends in | or \ goes on on the next
		# (its '\\' goes: the shell joins the two lines without it)
		awk '/^    (\$ )?kinf [a-z]/ || cont { if (cont) sub(/^ +/, ""); cont = /[|\\]$/;
			sub(/ *\\$/, ""); line = line $0;
			if (!cont) { print line; line = "" } else line = line " " }' \
			"$ROOT/README.md" |
			sed -E 's/^ +(\$ )?//'
		grep -E '^\.Dl \$ kinf ' "$ROOT/man/kinf.1" | sed -E 's/^\.Dl \$ //; s/\\-/-/g; s/\\e/\\/g'
		help_examples
	} | sed -E 's/ +# .*$//' | sort -u >"$list"
	cat "$list"
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
	["kinf watch pods --as system:serviceaccount:default:my-controller"]=chk_watch_as_sa
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
	["kinf watch pods -n shop --controller --controller-runtime v0.22 --reconcile-outcome 'shop/web-1=error*3' --reconcile-outcome '*=requeue-after:30s*'"]=chk_controller_outcomes
	["kinf replay pods.rec --controller --workers 2 --predicate generation -o json --events | jq -c 'select(.type == \"NeverReconciled\")'"]=chk_replay_never_reconciled
	["kinf replay pods.rec --controller --reconcile-time 1s --timeline controller.json"]=chk_timeline_trace
	["kinf watch pods -A --verify-every 1m --metrics 9090 -q >/dev/null &"]=chk_metrics_canary
	["kinf get pods -o go-template='{{range .items}}{{.metadata.name}}{{\"\\t\"}}{{.status.phase}}{{\"\\n\"}}{{end}}'"]=chk_as_kubectl
	["kinf get pods --show-kind --chunk-size 100"]=chk_as_kubectl
	["kinf get pods -w --output-watch-events"]=chk_get_watch
	["kinf watch pods -A --verify-every 5m --flight-recorder 15m --flight-dir dumps"]=chk_flight_watch
	["kinf replay dumps/kinf-20250101T120000Z-verify.rec.gz --at trigger"]=chk_flight_at_trigger
	# --help's
	["kinf api-resources -o wide --verbs list,watch"]=chk_as_kubectl
	["kinf api-resources --api-group apps -o name"]=chk_as_kubectl
	["kinf api-resources --namespaced=false"]=chk_as_kubectl
	["kinf api-resources --categories all"]=chk_as_kubectl
	["kinf get deploy/web -o yaml"]=chk_as_kubectl
	["kinf get pods pod-0 pod-1 -o wide"]=chk_as_kubectl
	["kinf get deploy web api --ignore-not-found -o name"]=chk_as_kubectl
	["kinf get pods -o jsonpath --template '{.items[*].status.podIP}'"]=chk_as_kubectl
	["kinf get pods,deploy --from-cache"]=chk_two_types
	["kinf get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\n\"}{end}'"]=chk_as_kubectl
	["kinf get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName"]=chk_as_kubectl
	["kinf get pods --sort-by=.metadata.creationTimestamp -L app --from-cache"]=chk_cache_as_kubectl
	["kinf get pods -A --from-cache --index node=worker-1 -o wide"]=chk_index_all
	["kinf get pods --from-cache -l app=web -o json | jq '.items | length'"]=chk_count_web
	["kinf tui pods -n default"]=chk_tui
	["kinf tui pods,deployments -A --resync 30s"]=chk_tui
	["kinf verify pods -A"]=chk_verify_pods
	["kinf verify deployments -n shop -o json | jq '.missing[].key'"]=chk_verify_missing
	["kinf watch pods --verify-every 1m"]=chk_verify_every
	["kinf watch pods -n default"]=chk_watch_pods
	["kinf watch pods -o json | jq -r 'select(.handler==\"OnDelete\") | .key'"]=chk_on_delete
	["kinf watch pods --record pods.rec"]=chk_record
	["kinf replay pods.rec -o json | jq -c 'select(.handler==\"OnDelete\")'"]=chk_replay_on_delete
	["kinf replay pods.rec --client-go 1.28 --events -o json"]=chk_replay_128_events
	["kinf replay pods.rec --key default/web-1"]=chk_replay_key
	["kinf replay pods.rec --speed 1"]=chk_replay_speed
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
	# the example whose check failed, and what it printed
	[ -n "${BATS_TEST_COMPLETED:-}" ] || cat "$BATS_TEST_TMPDIR/example" >&2 2>/dev/null || true
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop
}

# The cluster every example runs against: kube-sim's pods, plus web-1 on
# worker-1 in default and in shop (the names the examples use).
cluster_up() {
	sim_start --pods 6
	export KUBECONFIG=$SIM_KUBECONFIG
	create_web_1 default
	create_web_1 shop
}

# create_web_1 NAMESPACE — the pod web-1 on worker-1 in NAMESPACE.
create_web_1() {
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"web-1\",\"namespace\":\"$1\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"worker-1\",\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.25\"}]}}}" >/dev/null
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
chk_as_kubectl() {
	[ "$status" -eq 0 ]
	local kc
	kc=$(cd "$W" && bash -c "kubectl ${EX#kinf }" 2>"$BATS_TEST_TMPDIR/kc.err")
	[ "$(no_age <<<"$output")" = "$(no_age <<<"$kc")" ] ||
		{ printf '# kubectl printed:\n%s\n# on stderr:\n%s\n' "$kc" "$(cat "$BATS_TEST_TMPDIR/kc.err")" >&2; false; }
}

chk_cache_as_kubectl() {	# the cache as kubectl lists the server
	local EX=${EX/ --from-cache/}
	chk_as_kubectl
}

chk_count_web() {	# a lister's selector on the cache: the server's count
	[ "$status" -eq 0 ]
	[ "$output" -ge 1 ]
	[ "$output" -eq "$(simcurl '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb' | jq '.items | length')" ]
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

chk_watch_as_sa() {	# the service account's view: the 403s its RBAC gives it
	[ "$status" -eq 1 ]	# never synced
	grep -qF 'User "system:serviceaccount:default:my-controller" cannot list resource "pods"' <<<"$stderr"
	# (the examples before it listed as the admin itself)
	simctl GET '/requests?verb=list&resource=pods' | jq -e 'map(select(.headers.Impersonate)) |
		length > 0 and all(.[]; .status == 403 and .headers.Impersonate == [["Impersonate-User",
		"system:serviceaccount:default:my-controller"]])'
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
	[[ ${lines[0]} =~ ^TIME\ +TYPE\ +KIND\ +KEY ]]
	grep -qE ' Replaced(All)? +Pod +shop/web-1 ' <<<"$output"
	grep -qE ' Updated +Deployment +default/web ' <<<"$output"
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

chk_verify_pods() {	# the check once, every namespace: equal, every pod counted
	[ "$status" -eq 0 ]
	[[ $output =~ ^pods:\ cache\ equals\ the\ server\ \(([0-9]+)\ objects\ at\ rv\ [0-9]+\)$ ]]
	[ "${BASH_REMATCH[1]}" -eq "$(pod_names "" | wc -l)" ]
}

chk_verify_missing() {	# the keys the cache is missing: none (jq read the array)
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

chk_verify_equal() {	# the check once: missing, extra, stale, all empty
	[ "$status" -eq 0 ]
	[ "$output" = $'[]\n[]\n[]' ]
}

chk_tui() { :; }	# driven in its own test below

chk_record() {		# the recording: gzip'd JSON lines, mode 0600
	local rec=${EX#*--record }
	rec=$W/${rec%% *}
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$rec")" = 600 ]
	zcat "$rec" | head -1 | jq -e '.kinfRecording == 1' >/dev/null
}

chk_replay_tombstone() {	# the tombstone the relist found
	[ "$status" -eq 0 ]
	jq -se 'length == 1 and .[0].key == "shop/web-1" and .[0].tombstone' <<<"$output" >/dev/null
}

chk_replay_key() {	# one object's story: added, updated with its diff, gone
	local key=${EX#*--key }
	key=${key%% *}
	[ "$status" -eq 0 ]
	[ "$(grep -vc '^    \|^TIME' <<<"$output")" -ge 3 ]
	[ -z "$(grep -v '^    \|^TIME' <<<"$output" | grep -vF " $key ")" ]
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
	local rec
	rec=$W/$(awk '{ print $3 }' <<<"$EX")
	[ "$status" -eq 0 ]
	grep -qE '(ReplacedAll|Deleted) +(shop|default)/web-1 .*\(tombstone\)' <<<"$output"
	local last_ms
	last_ms=$(zcat "$rec" | sed 1d | jq -s '[.[] | select(has("data")) | .t] | max')
	# the gap (1.5 s, then the backoff) is in it: a pace to keep
	[ "$last_ms" -ge 1500 ]
	[ "$EX_MS" -ge $((last_ms * 9 / 10)) ]
}

chk_replay_on_delete() {	# the OnDelete a relist handed: default/web-1's tombstone
	[ "$status" -eq 0 ]
	jq -se 'length == 1 and .[0].key == "default/web-1" and .[0].tombstone' <<<"$output" >/dev/null
}

chk_replay_128_events() {	# as 1.28 would: a Deleted tombstone, and (--events) the Relist record
	[ "$status" -eq 0 ]
	jq -se 'any(.[]; .type == "Relist") and
		any(.[]; .type == "Deleted" and .key == "default/web-1" and .tombstone)' <<<"$output" >/dev/null
}

chk_controller_generation() {	# a change no Reconcile saw: filtered by generation
	[ "$status" -eq 0 ]
	grep -qE 'ReconcileStart +shop/web-1 ' <<<"$output"
	grep -qE 'NeverReconciled +shop/web-1 .*filtered by generation' <<<"$output"
}

chk_controller_outcomes() {	# web-1 fails three times, then requeues after 30 s as every key does
	[ "$status" -eq 0 ]
	local done
	done=$(grep -E 'ReconcileDone +shop/web-1 ' <<<"$output" | sed -E 's/.*ReconcileDone +shop\/web-1 +#[0-9]+ ([a-z-]+) after.*/\1/' | tr '\n' ' ')
	[ "$done" = "error error error requeue-after " ]
	grep -qE 'ReconcileDone +shop/web-1 +#4 requeue-after after 0ms .*requeued after 30s' <<<"$output"
	grep -q '^kinf: controller (controller-runtime v0.22, rate-limiting queue): ' <<<"$stderr"
}

chk_timeline_trace() {	# a trace Perfetto opens: web-1's Reconciles on a worker, its states on its track
	[ "$status" -eq 0 ]
	jq -e 'type == "array" and any(.[]; .cat == "reconcile" and .name == "#1 shop/web-1")' "$W/controller.json" >/dev/null
	jq -e 'any(.[]; .ph == "M" and .args.name == "shop/web-1")' "$W/controller.json" >/dev/null
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

# The same, once the controller has started (a tick of its cache-sync
# poll after the sync): the list's Reconcile reads the listed state, and
# the label's comes to no Reconcile.
label_after_reconcile() {
	wait_until 20 grep -q ReconcileStart "$W/out"
	label_shop_web_1
}

# ---- the tests ----------------------------------------------------------------

@test "every example in the README, the man page and --help has a check, and every check an example" {
	local missing=() stale=() e k c
	while IFS= read -r e; do
		[ -n "${CHECK[$e]:-}" ] || missing+=("$e")
	done < <(examples)
	for k in "${!CHECK[@]}"; do
		examples | grep -qxF -- "$k" || stale+=("$k")
	done
	[ "${#missing[@]}" -eq 0 ] || { printf '# no check for: %s\n' "${missing[@]}" >&2; false; }
	[ "${#stale[@]}" -eq 0 ] || { printf '# no such example: %s\n' "${stale[@]}" >&2; false; }
	[ "$(examples | wc -l)" -ge 60 ]
	# the help's examples, read from the binary, and the same either way it is asked
	[ "$(help_examples | wc -l)" -ge 30 ]
	for c in $(help_commands); do
		cmp <("$KINF" help "$c") <("$KINF" "$c" --help)
	done
}

# check EX — EX's check on $output, $stderr and $status.  Called plainly:
# after || or in an if, bash would ignore every failing line of the check
# but its last.  What the example printed is shown if the test fails.
check() {
	EX=$1
	printf '# example: %s\n# status: %s\n# stdout:\n%s\n# stderr:\n%s\n' \
		"$EX" "$status" "$output" "$stderr" >"$BATS_TEST_TMPDIR/example"
	"${CHECK[$EX]}"
}

# run_examples PATTERN — each example matching the ERE, as written, checked.
run_examples() {
	local n=0 e
	while IFS= read -r e; do
		ex "$e"
		check "$e"
		n=$((n + 1))
	done < <(examples | grep -E -- "$1")
	[ "$n" -ge 1 ]
}

# examples_at_once PATTERN — run_examples' examples all at once (each
# mostly waits out its watch's --timeout), then each checked in turn;
# EX_N is how many ran.
examples_at_once() {
	local e i pids=() es=()
	EX_N=0
	while IFS= read -r e; do
		(cd "$W" && bash -c "$e" >"$W/x$EX_N.out" 2>"$W/x$EX_N.err" 3>&-) &
		pids+=($!) es+=("$e") EX_N=$((EX_N + 1))
	done < <(examples | grep -E -- "$1")
	[ "$EX_N" -ge 1 ]
	for ((i = 0; i < EX_N; i++)); do
		status=0
		wait "${pids[$i]}" || status=$?
		output=$(cat "$W/x$i.out") stderr=$(cat "$W/x$i.err") lines=()
		[ -z "$output" ] || mapfile -t lines <<<"$output"
		check "${es[$i]}"
	done
}

@test "the get, api-resources and verify examples" {
	cluster_up
	run_examples '^kinf (get|api-resources|verify) '
	run_examples '^kinf api-resources$'
}

@test "the watch examples on a quiet cluster" {
	cluster_up
	examples_at_once '^kinf watch pods( -n default| --client-go v0\.33\.2| --hide-unchanged| --resync 30s .*| --as .*)?$'
	[ "$EX_N" -eq 7 ]
}

@test "the --verify-every 1m examples: a minute on, the cache equals the server" {
	cluster_up
	# --timeout 70s: one check, at a minute
	EX_TIMEOUT=70s examples_at_once '^kinf watch pods (-A )?--verify-every 1m( --client-go [v0-9.]+)?$'
	[ "$EX_N" -eq 3 ]
}

# ex_while CMD FUNCTION — an example while FUNCTION changes the cluster:
# its output in $output/$stderr once it ends (watch's --timeout).
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

# gap_hides_a_delete [NAMESPACE] — kinf kept out (500s) while web-1 of
# NAMESPACE (shop) changes and goes: only the relist that follows finds
# the delete, as a tombstone.
# The outage is three failed requests, whatever the machine's pace: the
# re-watch, then the streaming list and the LIST it falls back to.  (Had
# the fallback LIST worked, replay --client-go 1.28, which retries the
# streaming list instead, would find no answer to it, and stop.)
gap_hides_a_delete() {
	local ns=${1:-shop}
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"$ns\",\"name\":\"web-1\",\"patch\":{\"metadata\":{\"labels\":{\"step\":\"two\"}}}}" >/dev/null
	sleep 0.5
	simctl POST /faults '{"verb":"any","kind":"500","count":3}' >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	simctl POST /delete "{\"resource\":\"pods\",\"namespace\":\"$ns\",\"name\":\"web-1\"}" >/dev/null
	wait_until 20 grep -q 'relist #1' "$W/err"
}
gap_hides_a_delete_in_default() { gap_hides_a_delete default; }

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
	while IFS= read -r e; do
		simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"spec":{"replicas":1}}}' >/dev/null
		EX_TIMEOUT=5s ex_while "$e" scale_web
		check "$e"
	done < <(examples | grep -E '^kinf watch [a-z,/]+( -A)? --diff$')
	e="kinf watch pods -o json --events | jq 'select(.type==\"Relist\")'"
	EX_TIMEOUT=8s ex_while "$e" default_gap
	check "$e"
	# with -A (the README) and without (--help): default/web-1, deleted
	while IFS= read -r e; do
		ex_while "$e" delete_web_1
		check "$e"
		create_web_1 default
	done < <(examples | grep -F "jq -r 'select(.handler==\"OnDelete\") | .key'")
}

ms_now() { echo $((${EPOCHREALTIME/./} / 1000)); }

# replay_examples ERE — the replay examples matching ERE, each timed ($EX_MS).
replay_examples() {
	local e start n=0
	while IFS= read -r e; do
		start=$(ms_now)
		ex "$e"
		EX_MS=$(($(ms_now) - start))
		check "$e"
		n=$((n + 1))
	done < <(examples | grep -E -- "$1")
	[ "$n" -ge 1 ]
}

@test "the record and replay examples: the gap's delete, kept and replayed" {
	cluster_up
	local e=$(examples | grep -- '--record missed\.rec')
	EX_TIMEOUT=10s ex_while "$e" gap_hides_a_delete
	check "$e"
	replay_examples '^kinf replay missed\.rec '
}

@test "the --help record and replay examples: pods.rec, a gap's delete in default, replayed" {
	cluster_up
	local e=$(examples | grep -x -- 'kinf watch pods --record pods\.rec')
	EX_TIMEOUT=10s ex_while "$e" gap_hides_a_delete_in_default
	check "$e"
	# (the README's replay of a pods.rec is the controller's, below)
	replay_examples '^kinf replay pods\.rec (-o json|--client-go|--key|--speed)'
}

@test "the controller and canary examples: a change no Reconcile saw, live and replayed; the metrics" {
	cluster_up
	local e
	e=$(examples | grep -- 'watch pods -n shop --controller --reconcile-time')
	EX_TIMEOUT=6s ex_while "$e" label_after_reconcile
	check "$e"
	e=$(examples | grep -- '--controller-runtime v0.22')
	EX_TIMEOUT=3s ex "$e"
	check "$e"
	# pods.rec: the same change, recorded (the README leaves how to the
	# reader), by a run whose controller says when a replay's has started
	EX_TIMEOUT=5s ex_while "kinf watch pods -n shop --controller --record pods.rec" label_after_reconcile
	e=$(examples | grep -- 'replay pods.rec --controller --workers')
	ex "$e"
	check "$e"
	e=$(examples | grep -- 'replay pods.rec --controller --reconcile-time')
	ex "$e"
	check "$e"
	e=$(examples | grep -- '--metrics 9090')
	# the example puts kinf in the background: not under `run`, which
	# would wait for it to end
	status=0 output= stderr=
	(cd "$W" && EX_TIMEOUT=8s bash -c "$e") 2>"$W/canary.err" 3>&- || status=$?
	stderr=$(cat "$W/canary.err")
	check "$e"
	sleep 8	# the canary's --timeout: it leaves before the cluster does
}

@test "the flight recorder examples: a dump on SIGUSR1, replayed at its trigger" {
	cluster_up
	mkdir "$W/dumps"
	local e
	e=$(examples | grep -- '--flight-dir dumps')
	EX_TIMEOUT=5s ex_while "$e" usr1_kinf
	check "$e"
	# the dump, under the name the example gives it
	mv "$W"/dumps/kinf-*-signal.rec.gz "$W/dumps/kinf-20250101T120000Z-verify.rec.gz"
	e=$(examples | grep -- '--at trigger')
	ex "$e"
	check "$e"
}

# tui_example EXAMPLE — runs it in a tmux pane of the scratch folder.
tui_example() {
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 30 \
		"cd '$W' && KUBECONFIG='$SIM_KUBECONFIG' $1; echo \"kinf exited \$?\"; sleep 60"
}

@test "the tui --controller example: w shows the controller pane; a status change is filtered" {
	cluster_up
	local e=$(examples | grep '^kinf tui .*--controller')
	tui_example "$e"
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
	tui_example "$(examples | grep -x 'kinf tui pods,deployments')"
	wait_screen ' pods  [0-9]+ objects?' 20
	screen_has 'deployments'
	screen_has ' web-1 '
	keys q
	wait_screen 'kinf exited 0'
}

@test "the --help tui examples: one namespace's pods; every namespace's pods and deployments, with a resync" {
	cluster_up
	tui_example "$(examples | grep -x 'kinf tui pods -n default')"
	wait_screen " pods  $(pod_names default | wc -l) objects " 20
	screen_has 'namespace default' || { show_screen; false; }
	keys q
	wait_screen 'kinf exited 0'
	tmux -L "$TMUX_SOCK" kill-server
	# a server of its own: the old one may still be exiting, and a client
	# that reaches it is told "server exited unexpectedly"
	TMUX_SOCK=$TMUX_SOCK-2
	tui_example "$(examples | grep -x 'kinf tui pods,deployments -A --resync 30s')"
	wait_screen " pods  $(pod_names "" | wc -l) objects " 20
	screen_has 'all namespaces' || { show_screen; false; }
	wait_screen " 2:deployments $(simcurl /apis/apps/v1/deployments | jq '.items | length')( |$)"
	# the resync period on: the next resync is due within it
	wait_screen 'resyncs 0 +last never +next [0-9]+s'
	keys q
	wait_screen 'kinf exited 0'
}
