#!/usr/bin/env bats
# The canary: `--metrics ADDR` serves /metrics in the Prometheus text
# format and /healthz, 200 while every informer is synced and its watch
# healthy, 503 with the reason otherwise.  Against kube-sim: a lost event
# (POST /silent) shows in kinf_verify_divergent_keys; a hung watch makes
# /healthz 503 until the reflector renews it.  A bad address or a port in
# use is a usage error before anything starts.

load test_helper
bats_require_minimum_version 1.5.0

teardown() {
	stop_watch
	sim_stop 2>/dev/null || true
}

# A TCP port nothing listens on right now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_watch() {
	PORT=$(free_port)
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" --metrics "$PORT" "$@"
}

stop_watch() { kinf_stop; }

metrics() { curl -sf "http://127.0.0.1:$PORT/metrics"; }
# /healthz's status code alone.
healthz() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz"; }
healthz_is() { [ "$(healthz)" = "$1" ]; }
# One sample's value: metric SELECTOR (a regex on the labels)
sample() { metrics | grep -E "^$1\{[^}]*$2[^}]*\} " | awk '{ print $2 }'; }
sample_is() { [ "$(sample "$1" "$2")" = "$3" ]; }

@test "/metrics: promtool check metrics passes; the figures are labelled by resource and cluster" {
	command -v promtool >/dev/null || skip "promtool not installed (Debian's prometheus package)"
	sim_start --pods 3 --bookmark-interval 1
	start_watch pods,configmaps -A --verify-every 1s
	wait_until 20 healthz_is 200
	wait_until 10 sample_is kinf_verify_runs_total 'resource="configmaps"' 1
	metrics >"$BATS_TEST_TMPDIR/metrics"
	run promtool check metrics <"$BATS_TEST_TMPDIR/metrics"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	[ -z "$output" ] || { echo "$output" >&2; false; }
	grep -qE '^kinf_cache_objects\{resource="pods",kube_cluster="kube-sim"\} 3$' "$BATS_TEST_TMPDIR/metrics"
	grep -qE '^kinf_build_info\{version="[0-9][^"]*"\} 1$' "$BATS_TEST_TMPDIR/metrics"
	grep -qE '^kinf_reflector_lists_total\{resource="pods",kube_cluster="kube-sim",cause="initial"\} 1$' "$BATS_TEST_TMPDIR/metrics"
	# every sample carries both labels, and nothing names an object
	run ! grep -vE '^#|^kinf_build_info\{|\{(resource="[^"]+",)?kube_cluster="kube-sim"' "$BATS_TEST_TMPDIR/metrics"
	run ! grep -E 'pod-0|app-config' "$BATS_TEST_TMPDIR/metrics"
	# everything else is a 404
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 404 ]
}

@test "/metrics with --controller: the workqueue's and the controller's figures, labelled by resource and cluster" {
	command -v promtool >/dev/null || skip "promtool not installed (Debian's prometheus package)"
	sim_start --pods 3 --deployments 0 --bookmark-interval 1
	start_watch pods --controller --reconcile-time 200ms --workers 2 \
		--reconcile-outcome 'default/pod-1=error' --reconcile-outcome 'default/pod-2=terminal' \
		--predicate labels
	wait_until 20 healthz_is 200
	# the initial list's 3 Reconciles, then 2 of one key's updates
	for n in 1 2; do
		simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"pod-0\",\"patch\":{\"metadata\":{\"labels\":{\"n\":\"$n\"}}}}" >/dev/null
		sleep 0.5
	done
	# and a status change, dropped by the labels predicate
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"status":{"phase":"Failed"}}}' >/dev/null
	wait_until 10 sample_is kinf_controller_filtered_events_total 'resource="pods"' 1
	# then a label again: its Reconcile names the filtered state as unseen
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"n":"3"}}}}' >/dev/null
	wait_until 10 sample_is kinf_workqueue_work_duration_seconds_count 'resource="pods"' 7
	metrics >"$BATS_TEST_TMPDIR/metrics"
	run promtool check metrics <"$BATS_TEST_TMPDIR/metrics"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	[ -z "$output" ] || { echo "$output" >&2; false; }
	for f in depth:gauge adds_total:counter queue_duration_seconds:histogram \
		work_duration_seconds:histogram unfinished_work_seconds:gauge \
		longest_running_processor_seconds:gauge retries_total:counter; do
		grep -qx "# TYPE kinf_workqueue_${f%%:*} ${f#*:}" "$BATS_TEST_TMPDIR/metrics"
	done
	m=$BATS_TEST_TMPDIR/metrics l='resource="pods",kube_cluster="kube-sim"'
	# 3 initial, 3 label updates, pod-1's requeue after its error
	grep -qx "kinf_workqueue_adds_total{$l} 7" "$m"
	grep -qx "kinf_workqueue_depth{$l} 0" "$m"
	grep -qx "kinf_workqueue_retries_total{$l} 1" "$m"
	# each Reconcile took 200 ms: none within 0.1 s, all within 1 s; the
	# buckets are controller-runtime's, up to 1000 s
	grep -qx "kinf_workqueue_work_duration_seconds_bucket{$l,le=\"0.1\"} 0" "$m"
	grep -qx "kinf_workqueue_work_duration_seconds_bucket{$l,le=\"1\"} 7" "$m"
	grep -qx "kinf_workqueue_work_duration_seconds_bucket{$l,le=\"1000\"} 7" "$m"
	grep -qx "kinf_workqueue_work_duration_seconds_bucket{$l,le=\"+Inf\"} 7" "$m"
	grep -qx "kinf_workqueue_work_duration_seconds_sum{$l} 1.4" "$m"
	grep -qx "kinf_workqueue_queue_duration_seconds_count{$l} 7" "$m"
	# the controller's own
	grep -qx "kinf_controller_reconcile_total{$l,result=\"success\"} 5" "$m"
	grep -qx "kinf_controller_reconcile_total{$l,result=\"error\"} 2" "$m"
	grep -qx "kinf_controller_reconcile_total{$l,result=\"requeue\"} 0" "$m"
	grep -qx "kinf_controller_reconcile_errors_total{$l} 2" "$m"
	grep -qx "kinf_controller_terminal_reconcile_errors_total{$l} 1" "$m"
	grep -qx "kinf_controller_max_concurrent_reconciles{$l} 2" "$m"
	grep -qx "kinf_controller_active_workers{$l} 0" "$m"
	grep -qx "kinf_controller_filtered_events_total{$l} 1" "$m"
	grep -qx "kinf_controller_keys_with_unseen_states{$l} 1" "$m"
	grep -qx "kinf_controller_unseen_states_total{$l} 1" "$m"
}

@test "/metrics with --controller on two resources: a controller each, a workqueue series each" {
	sim_start --pods 2 --deployments 1 --bookmark-interval 1
	start_watch pods,deployments --controller --reconcile-time 100ms
	wait_until 20 sample_is kinf_workqueue_work_duration_seconds_count 'resource="pods"' 2
	wait_until 20 sample_is kinf_workqueue_work_duration_seconds_count 'resource="deployments.apps"' 1
	sample_is kinf_controller_reconcile_total 'resource="pods".*result="success"' 2
	sample_is kinf_controller_reconcile_total 'resource="deployments.apps".*result="success"' 1
	metrics | promtool check metrics
}

@test "/metrics: a Reconcile that wrote its status counts as a success, and nothing else moves" {
	sim_start --pods 0 --deployments 1 --bookmark-interval 1
	start_watch deployments --controller --reconcile-time 100ms \
		--reconcile-outcome 'default/web=status-write*2'
	# two writes come back, each a Reconcile more: three, all returned success
	wait_until 20 sample_is kinf_workqueue_work_duration_seconds_count 'resource="deployments.apps"' 3
	sample_is kinf_controller_reconcile_total 'resource="deployments.apps".*result="success"' 3
	sample_is kinf_controller_reconcile_total 'resource="deployments.apps".*result="error"' 0
	# the initial Create and the two writes' Updates
	sample_is kinf_workqueue_adds_total 'resource="deployments.apps"' 3
}

@test "kinf_verify_divergent_keys goes from 0 to 1 after a lost event" {
	sim_start --pods 3 --bookmark-interval 1
	start_watch configmaps --verify-every 2s
	wait_until 20 sample_is kinf_verify_runs_total 'resource="configmaps"' 1
	sample_is kinf_verify_divergent_keys 'class="stale"' 0
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"app-config","patch":{"data":{"lost":"yes"}}}' >/dev/null
	wait_until 20 sample_is kinf_verify_divergent_keys 'class="stale"' 1
	sample_is kinf_verify_divergent_keys 'class="missing"' 0
	sample_is kinf_verify_divergent_keys 'class="extra"' 0
}

@test "a lost event is told from a lag: once the informer is past it, lost, in the words and kinf_verify_lost_keys" {
	sim_start --pods 0 --namespaces 0
	start_watch configmaps --verify-every 1s --lag-wait 1s
	wait_until 20 sample_is kinf_verify_runs_total 'resource="configmaps"' 1
	sample_is kinf_verify_lost_keys 'resource="configmaps"' 0
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"app-config","patch":{"data":{"lost":"yes"}}}' >/dev/null
	# nothing after it: the informer has not got there, a lag for all it knows
	wait_until 20 file_has "$ERR" 'verify: .* 1 stale: default/app-config \(stale\) \(the informer had not caught up'
	sample_is kinf_verify_lost_keys 'resource="configmaps"' 0
	# an event after it: the informer is past the lost update, which is lost
	simctl POST /update '{"resource":"configmaps","namespace":"default","name":"kube-root-ca.crt","patch":{"metadata":{"labels":{"moved":"on"}}}}' >/dev/null
	wait_until 20 file_has "$ERR" 'verify: .* \(1 lost: the informer is past it and never brought it\)'
	wait_until 20 sample_is kinf_verify_lost_keys 'resource="configmaps"' 1
	sample_is kinf_verify_divergent_keys 'class="stale"' 1
}

@test "/healthz: 200, 503 with the reason while the watch hangs, 200 once it is renewed" {
	sim_start --pods 2 --bookmark-interval 1
	start_watch pods --renew-silent 10s
	wait_until 20 healthz_is 200
	watch_settled
	simctl POST /faults '{"verb":"watch","kind":"hang","count":1,"seconds":60}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 10 healthz_is 503
	curl -s "http://127.0.0.1:$PORT/healthz" | grep -qE '^pods: watch silent for [0-9]+ s \(bookmarks came every 1 s\)$'
	# --renew-silent (kinf's own, opt-in) renews the hung watch; the new one has bookmarks again
	wait_until 20 healthz_is 200
	sample_is kinf_watch_ends_total 'reason="stalled"' 1
	sample_is kinf_reflector_lists_total 'cause="initial"' 1
}

@test "--metrics: a bad address and a port in use are one line and exit 2, before any request" {
	sim_start --pods 1
	for addr in bogus 127.0.0.1:99999 '::1:9090' 'localhost:9090' ''; do
		run -2 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --metrics "$addr"
		[ "${#lines[@]}" -eq 1 ]
		[[ $output == "error: --metrics: "* ]]
	done
	port=$(free_port)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); print("up", flush=True); time.sleep(30)' "$port" >"$BATS_TEST_TMPDIR/busy" &
	busy=$!
	wait_until 5 file_has "$BATS_TEST_TMPDIR/busy" up
	run -2 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" --metrics "127.0.0.1:$port"
	kill "$busy"
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "error: --metrics: cannot listen on '127.0.0.1:$port': Address already in use"* ]]
	# nothing reached the server
	[ "$(simctl GET /requests | jq 'length')" -eq 0 ]
}
