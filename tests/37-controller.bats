#!/usr/bin/env bats
# `kinf watch --controller` and `kinf replay --controller`: the simulated
# controller-runtime controller on kube-sim's deltas.  A key changed 20
# times while its Reconcile runs is reconciled twice, and the states in
# between are named as never seen; a status-only change under
# GenerationChangedPredicate is never reconciled; a replay gives the same
# records every time, and other ones under another predicate.  The
# Reconciles against the real controller-runtime's: 12-controller-golden.

load test_helper
bats_require_minimum_version 1.5.0

OUT= ERR= KINF_PID=

start_watch() { kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" "$@"; }

# Ends the watch as Ctrl-C would: the controller's end records follow.
stop_watch() { kinf_stop INT; }

synced() { file_has "$ERR" 'synced'; }
# records_at_least TYPE N — $OUT holds N records (deltas too) of TYPE or more.
records_at_least() { [ "$(jq -s "[.[] | select(.type == \"$1\")] | length" "$OUT")" -ge "$2" ]; }
# has TYPE [JQ-COND] — $OUT holds a controller record of TYPE (meeting COND).
has() { jq -e -s "any(.[]; .type == \"$1\" and (${2:-true}))" "$OUT" >/dev/null; }

# The controller's records of a replay, without the deltas (whose time is
# the machine's): what must repeat byte for byte.
controller_records() {
	jq -c 'select(.type | IN("Filtered", "Enqueued", "ReconcileStart",
		"ReconcileDone", "NeverReconciled", "StillQueued", "ControllerSummary"))'
}

# update_many RESOURCE NAME N PATCH-PREFIX — N updates in one curl (one
# connection), so that they all land within a few tens of milliseconds.
update_many() {
	local args=() i
	for ((i = 1; i <= $3; i++)); do
		((i > 1)) && args+=(--next)
		args+=(-sS -o /dev/null -X POST -H 'Content-Type: application/json'
			--data-binary "{\"resource\":\"$1\",\"namespace\":\"default\",\"name\":\"$2\",\"patch\":$4\"$i\"}}}}"
			"$SIM_CONTROL/update")
	done
	curl "${args[@]}"
}

teardown() {
	stop_watch
	sim_stop
}

@test "20 updates while a 1 s Reconcile runs: 2 Reconciles, the states between named as unseen" {
	sim_start --pods 1 --deployments 0
	start_watch pods --controller --reconcile-time 1s -o json --events
	wait_until 20 synced
	# The initial list's Reconcile ends first: the key is idle again.
	wait_until 20 has ReconcileDone
	rv0=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r .metadata.resourceVersion)
	update_many pods pod-0 20 '{"metadata":{"labels":{"n":'
	last=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r .metadata.resourceVersion)
	wait_until 20 has ReconcileDone ".reconcile == 3"
	sleep 1.2	# a fourth Reconcile, if any, would have started
	stop_watch
	jq -c 'select(.type == "Enqueued") | [.time, .how, .resourceVersion]' "$OUT" | sed 's/^/# /'
	# The scenario needs the 20 updates inside one Reconcile's second: a
	# machine too loaded to deliver them that fast cannot show it.
	span=$(jq -s '[.[] | select(.type == "Enqueued" and .cause == "event")] | .[1:] |
		map(.time | (.[0:19] + "Z" | fromdateiso8601) * 1000 + (.[20:23] | tonumber)) |
		max - min' "$OUT")
	echo "# the 20 updates reached the controller within ${span}ms"
	((span < 1000)) || skip "the 20 updates took ${span}ms to arrive, more than the 1 s Reconcile"
	# After the first: the first update's own Reconcile, then one for the rest.
	run jq -r -s --arg k default/pod-0 \
		'[.[] | select(.type == "ReconcileStart" and .key == $k)] | .[1:] | map(.readResourceVersion) | join(" ")' "$OUT"
	echo "# reads: $output (updates after rv $rv0, last $last)"
	[ "$(wc -w <<<"$output")" -eq 2 ]
	[[ $output == *" $last" ]]
	# The second names the 18 states in between: every update but the first and the last.
	run jq -c -s --arg k default/pod-0 \
		'[.[] | select(.type == "ReconcileStart" and .key == $k)] | last | .unseen' "$OUT"
	[ "$(jq length <<<"$output")" -eq 18 ]
	jq -e 'all(.[]; .reason == "coalesced while a Reconcile ran")' <<<"$output" >/dev/null
	jq -e --arg last "$last" 'all(.[]; .resourceVersion != $last)' <<<"$output" >/dev/null
	# The first Add found the key idle (new), the second being reconciled
	# (dirty), the other 18 dirty already (coalesced).
	has Enqueued '.how == "dirty"'
	[ "$(jq -s '[.[] | select(.type == "Enqueued" and .how == "coalesced")] | length' "$OUT")" -eq 18 ]
	has ControllerSummary '.reconciles == 3 and .keysWithUnseenStates == 1 and .unseenStates == 18'
}

@test "a status-only change under --predicate generation is never reconciled, and said so" {
	sim_start --pods 0 --deployments 1
	start_watch deployments --controller --predicate generation
	wait_until 20 synced
	wait_until 20 file_has "$OUT" 'ReconcileDone'
	simctl POST /update '{"resource":"deployments","namespace":"default","name":"web","patch":{"status":{"availableReplicas":7}}}' >/dev/null
	rv=$(simctl GET '/object?resource=deployments&namespace=default&name=web' | jq -r .metadata.resourceVersion)
	wait_until 20 file_has "$OUT" 'Filtered'
	stop_watch
	cat "$OUT"
	# the line output's columns: TIME TYPE KEY RV, then the record's words
	grep -qE "^[0-9:.]{12}  Filtered +default/web +$rv +Update dropped by generation\$" "$OUT"
	grep -qE "^[0-9:.]{12}  NeverReconciled  default/web +rv $rv never reconciled: filtered by generation\$" "$OUT"
	grep -qE "^[0-9:.]{12}  ReconcileStart +default/web +[0-9]+ +#1 read it \(worker 1, 1 delta, priority -100\)\$" "$OUT"
	# the header names them, the type column as wide as the records'
	grep -qE "^TIME +TYPE {13}KEY +RV +STATUS\$" "$OUT"
	[ "$(count_lines "$OUT" 'ReconcileStart')" -eq 1 ]
	grep -q 'kinf: controller (controller-runtime v0.24, priority queue): .* 1 filtered, .* 1 reconciles' "$ERR"
}

# The Reconciles of a run: key@read RV, in order.
reconciles() { jq -r 'select(.type == "ReconcileStart") | "\(.key)@\(.readResourceVersion)"' "$1" | tr '\n' ' '; }

@test "replay --controller of a live run's recording gives the live run's Reconciles, at any speed" {
	sim_start --pods 1 --deployments 0
	REC=$BATS_TEST_TMPDIR/live.rec
	start_watch pods --controller --reconcile-time 1s -o json --events --record "$REC"
	wait_until 20 has ReconcileDone
	update_many pods pod-0 20 '{"metadata":{"labels":{"n":'
	wait_until 20 has ReconcileDone ".reconcile == 3"
	sleep 1.2	# a fourth Reconcile, if any, would have started
	stop_watch
	local live=$(reconciles "$OUT") speed
	echo "# live:   $live"
	[ "$(wc -w <<<"$live")" -ge 3 ]
	for speed in "" "--speed 1" "--speed 50"; do
		"$KINF" replay "$REC" -q --controller --reconcile-time 1s -o json --events $speed \
			>"$BATS_TEST_TMPDIR/replay.out"
		echo "# replay ${speed:-at once}: $(reconciles "$BATS_TEST_TMPDIR/replay.out")"
		[ "$(reconciles "$BATS_TEST_TMPDIR/replay.out")" = "$live" ]
	done
	# --timeline: every state's fate, as NDJSON and as a Chrome trace
	"$KINF" replay "$REC" -q --controller --reconcile-time 1s --timeline "$BATS_TEST_TMPDIR/tl.ndjson" >/dev/null
	"$KINF" replay "$REC" -q --controller --reconcile-time 1s --timeline "$BATS_TEST_TMPDIR/tl.json" >/dev/null
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/tl.json")" = 600 ]
	local tl=$BATS_TEST_TMPDIR/tl.ndjson n=$(wc -w <<<"$live")
	# the initial list's state and the 20 updates', each once
	[ "$(jq -s '[.[] | select(.type == "State")] | length' "$tl")" -eq 21 ]
	[ "$(jq -s '[.[] | select(.type == "Reconcile")] | length' "$tl")" -eq "$n" ]
	# what each Reconcile read is the state it saw; the others are unseen, and why
	[ "$(jq -r 'select(.type == "State" and .seen) | "\(.key)@\(.resourceVersion)"' "$tl" | tr '\n' ' ')" = "$live" ]
	[ "$(jq -s '[.[] | select(.type == "State" and (.seen | not))] | length' "$tl")" -eq $((21 - n)) ]
	jq -e -s 'all(.[] | select(.type == "State" and (.seen | not)); .reason | test("^coalesced"))' "$tl" >/dev/null
	jq -e -s 'all(.[] | select(.type == "State"); .reconcile != null and .fate == "enqueued")' "$tl" >/dev/null
	# the trace: a JSON array, a slice per Reconcile on a worker's track, one per state on its key's
	jq -e --argjson n "$n" '[.[] | select(.cat == "reconcile" and .ph == "X" and .pid == 1)] | length == $n' "$BATS_TEST_TMPDIR/tl.json" >/dev/null
	jq -e '[.[] | select(.cat == "state")] | length == 21' "$BATS_TEST_TMPDIR/tl.json" >/dev/null
	jq -e 'any(.[]; .ph == "M" and .name == "thread_name" and .args.name == "default/pod-0")' "$BATS_TEST_TMPDIR/tl.json" >/dev/null
	run "$KINF" replay "$REC" -q --controller --timeline "$BATS_TEST_TMPDIR/no/such/tl.json"
	assert_status 1
	[[ $output == *"cannot create '$BATS_TEST_TMPDIR/no/such/tl.json'"* ]]
	[ "${#lines[@]}" -eq 1 ]
	# --key: that key's story, deltas and records; the controller still saw all
	"$KINF" replay "$REC" -q --controller --reconcile-time 1s -o json --events \
		--key default/pod-0 >"$BATS_TEST_TMPDIR/key.out"
	[ "$(reconciles "$BATS_TEST_TMPDIR/key.out")" = "$live" ]
	"$KINF" replay "$REC" -q --controller --reconcile-time 1s -o json --events \
		--key default/other >"$BATS_TEST_TMPDIR/other.out"
	OUT=$BATS_TEST_TMPDIR/other.out
	run ! has ReconcileStart
	run ! has Enqueued
	has ControllerSummary ".reconciles == $(wc -w <<<"$live")"
}

@test "replay --controller: the same records every time, other ones under another predicate" {
	sim_start --pods 2 --deployments 0
	REC=$BATS_TEST_TMPDIR/pods.rec
	# The updates come once the controller has started (at a tick of its
	# cache-sync poll after the list), so that the list's Reconciles read
	# the listed states, in the replays too.
	start_watch pods -o json --events --controller --record "$REC"
	wait_until 20 records_at_least ReconcileStart 2
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"tier":"a"}}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"status":{"phase":"Failed"}}}' >/dev/null
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-1","patch":{"metadata":{"annotations":{"x":"1"}}}}' >/dev/null
	wait_until 20 records_at_least Updated 3
	stop_watch
	for p in labels generation; do
		for n in 1 2; do
			"$KINF" replay "$REC" -q --controller --predicate "$p" --reconcile-time 50ms..2s \
				--workers 2 -o json --events | controller_records >"$BATS_TEST_TMPDIR/$p.$n"
		done
		cmp "$BATS_TEST_TMPDIR/$p.1" "$BATS_TEST_TMPDIR/$p.2"
	done
	run ! cmp -s "$BATS_TEST_TMPDIR/labels.1" "$BATS_TEST_TMPDIR/generation.1"
	OUT=$BATS_TEST_TMPDIR/labels.1
	has Filtered '.key == "default/pod-0" and .predicate == "labels"'
	has Filtered '.key == "default/pod-1" and .predicate == "labels"'
	OUT=$BATS_TEST_TMPDIR/generation.1
	# pods have no generation: every update is dropped
	[ "$(jq -s '[.[] | select(.type == "Filtered")] | length' "$OUT")" -eq 3 ]
	has NeverReconciled '.key == "default/pod-0"'
}

@test "a key whose Reconcile was still coming at exit is StillQueued, not NeverReconciled" {
	sim_start --pods 2 --namespaces 0 --deployments 0
	start_watch pods --controller --reconcile-time 60s -o json --events
	wait_until 20 has ReconcileStart
	# one worker, busy for a minute: the other key waits in the queue
	local busy waiting
	busy=$(jq -r -s 'map(select(.type == "ReconcileStart")) | .[0].key' "$OUT")
	waiting=$(jq -r -s --arg b "$busy" '[.[] | select(.type == "Enqueued" and .key != $b)] | .[0].key' "$OUT")
	[ -n "$waiting" ] && [ "$waiting" != null ]
	stop_watch
	has StillQueued ".key == \"$waiting\""
	run ! has NeverReconciled ".key == \"$waiting\""
	# as a line
	start_watch pods --controller --reconcile-time 60s
	wait_until 20 file_has "$OUT" 'ReconcileStart'
	stop_watch
	grep -qE 'StillQueued +default/pod-[01] +rv [0-9]+ still queued at exit' "$OUT"
}

# own_pod NAME API-VERSION — a pod whose controller owner is Deployment web of that API version.
own_pod() {
	simctl POST /create "{\"resource\":\"pods\",\"object\":{\"metadata\":{\"name\":\"$1\",\"namespace\":\"default\",
		\"ownerReferences\":[{\"apiVersion\":\"$2\",\"kind\":\"Deployment\",\"name\":\"web\",
		\"uid\":\"u-web\",\"controller\":true}]},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\"}]}}}" >/dev/null
}
label_pod() {
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":{\"metadata\":{\"labels\":{\"l\":\"$2\"}}}}" >/dev/null
}

@test "--enqueue-owner: one Reconcile of the owner once both informers synced; predicates by source; the owner's group" {
	sim_start --pods 0 --deployments 1
	own_pod p1 apps/v1
	own_pod p2 apps/v1
	own_pod p3 example.com/v1	# a Deployment of another group: not ours
	start_watch deployments,pods --controller --enqueue-owner Deployment --predicate generation -o json --events
	wait_until 20 has ReconcileDone '.key == "default/web"'
	# The workers start once both informers synced: the owner's three
	# initial events (its own and two pods') make one Reconcile, not one
	# at the first event and another after.
	[ "$(jq -s '[.[] | select(.type == "ReconcileStart" and .key == "default/web")] | length' "$OUT")" -eq 1 ]
	run ! has Enqueued '.object == "default/p3"'
	# --predicate is For()'s: a pod's label change passes (Owns() has none) ...
	label_pod p1 one
	wait_until 20 has ReconcileStart '.key == "default/web" and .reconcile == 2'
	has Enqueued '.object == "default/p1" and .event == "Update" and .key == "default/web"'
	run ! has Filtered
	# ... and a p3 change asks for nothing
	label_pod p3 one
	wait_until 20 jq -e -s 'any(.[]; .handler == "OnUpdate" and .key == "default/p3")' "$OUT"
	stop_watch
	run ! has Enqueued '.object == "default/p3"'
	# --owns-predicate filters the owned kinds' updates; --event-filter every kind's
	start_watch deployments,pods --controller --enqueue-owner Deployment --owns-predicate generation -o json --events
	wait_until 20 has ReconcileDone '.key == "default/web"'
	label_pod p2 two
	wait_until 20 has Filtered '.object == "default/p2" and .predicate == "generation"'
	stop_watch
}

@test "a lost event verify finds is in the controller's story: Diverged, then never reconciled, lost" {
	sim_start --pods 1 --deployments 0 --bookmark-interval 1
	start_watch pods --controller --verify-every 1s -o json --events
	wait_until 20 has ReconcileDone
	simctl POST /silent '{"op":"update","resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"lost":"yes"}}}}' >/dev/null
	rv=$(simctl GET '/object?resource=pods&namespace=default&name=pod-0' | jq -r .metadata.resourceVersion)
	# a bookmark takes the informer past it: lost, not lagging
	wait_until 30 has Diverged ".key == \"default/pod-0\" and .class == \"stale\" and .lost and .serverResourceVersion == \"$rv\""
	# two checks more: a lasting divergence is one lost state, not one a check
	wait_until 30 jq -e -s '[.[] | select(.type == "Diverged")] | length >= 3' "$OUT"
	stop_watch
	has NeverReconciled ".key == \"default/pod-0\" and (.unseen | length == 1) and .unseen[0].resourceVersion == \"$rv\" and (.unseen[0].reason | startswith(\"lost\"))"
	has ControllerSummary '.lostStates == 1 and .keysWithUnseenStates == 1'
}

@test "a Reconcile's status write comes back: the hot loop without a predicate, one Reconcile under generation" {
	sim_start --pods 0 --deployments 1
	start_watch deployments --controller --reconcile-time 200ms -o json --events \
		--reconcile-outcome 'default/web=status-write*3'
	wait_until 20 has ReconcileStart '.reconcile == 4'
	stop_watch
	run jq -r 'select(.type == "ReconcileStart") | .readResourceVersion' "$OUT"
	local rv=${lines[0]}
	[ "${lines[1]}" = "$rv+w1" ] && [ "${lines[2]}" = "$rv+w2" ] && [ "${lines[3]}" = "$rv+w3" ]
	[ "${#lines[@]}" -eq 4 ]
	has Enqueued '.cause == "status-write" and .event == "Update" and .resourceVersion == "'"$rv"'+w1"'
	has ReconcileDone '.result == "status-write"'
	# GenerationChangedPredicate drops the write's event: one Reconcile
	start_watch deployments --controller --reconcile-time 200ms -o json --events \
		--reconcile-outcome 'default/web=status-write*3' --predicate generation
	wait_until 20 has Filtered '.resourceVersion | endswith("+w1")'
	stop_watch
	[ "$(jq -s '[.[] | select(.type == "ReconcileStart")] | length' "$OUT")" -eq 1 ]
	run "$KINF" watch deployments --controller --reconcile-outcome '*=status-write'
	assert_status 2
	[[ $output == *"status-write needs --reconcile-time over 0"* ]]
}

@test "--controller's flags: bad values are usage errors; without --controller they are refused" {
	run "$KINF" watch pods --predicate generation
	assert_status 2
	[[ $output == *"need --controller"* ]]
	run "$KINF" watch pods --controller --predicate generatoin
	assert_status 2
	[[ $output == *"unknown predicate 'generatoin'"* ]]
	run "$KINF" watch pods --controller --reconcile-time 2s..1s
	assert_status 2
	[[ $output == *"--reconcile-time"* ]]
	run "$KINF" watch pods --controller --error-rate 1.5
	assert_status 2
	[[ $output == *"--error-rate"* ]]
	local v
	for v in v0.14 v0.25 1.24 0.x; do
		run "$KINF" watch pods --controller --controller-runtime "$v"
		assert_status 2
		[[ $output == *"invalid value '$v' for '--controller-runtime': expected v0.15 to v0.24"* ]]
	done
	run "$KINF" watch pods --controller --reconcile-outcome 'web=error'
	assert_status 2
	[[ $output == *"'web' is not a target"* ]]
	run "$KINF" watch pods --controller --reconcile-outcome '*=retry'
	assert_status 2
	[[ $output == *"unknown outcome 'retry'"* ]]
	run "$KINF" watch pods --controller --reconcile-outcome '*=error*' --reconcile-outcome '*=requeue-after:0s'
	assert_status 2
	[[ $output == *"requeue-after:0s"* ]]
	run "$KINF" watch pods --controller --owns-predicate generation
	assert_status 2
	[[ $output == *"--owns-predicate needs --enqueue-owner"* ]]
	run "$KINF" watch pods --controller-runtime v0.22
	assert_status 2
	[[ $output == *"need --controller"* ]]
	run "$KINF" watch pods --timeline tl.json
	assert_status 2
	[[ $output == *"need --controller"* ]]
}
