#!/usr/bin/env bats
# The property every informer test comes down to: after any churn and any
# fault, the cache equals the server's truth and every change reached the
# listeners as a delta (or was folded into a relist while disconnected).
#
# A seeded random schedule of every fault the simulator offers runs under
# churn, once for each client-go generation kinf imitates (--client-go:
# DeltaFIFO and LIST, RealFIFO, streaming lists and batches, the atomic
# FIFO).  The seed is printed; replay a failure with KINF_SEED=N.

load test_helper

FAULTS=(
	'POST /drop-watches {"mode":"abrupt"}'
	'POST /drop-watches {"mode":"clean"}'
	'POST /compact'
	'POST /restart-watch-cache'
	'POST /faults {"verb":"watch","kind":"500","count":2}'
	'POST /faults {"verb":"list","kind":"500","count":1}'
	'POST /faults {"verb":"any","kind":"429","count":2,"retryAfter":1}'
	'POST /faults {"verb":"watch","kind":"410","count":1}'
	'POST /faults {"verb":"list","kind":"410","count":1}'
	'POST /faults {"verb":"watch","kind":"hang","count":1,"seconds":30}'
	'POST /faults {"verb":"watch","kind":"truncate","count":1}'
	'POST /faults {"verb":"list","kind":"truncate","count":1}'
	'POST /faults {"verb":"watch","kind":"garbage","count":1}'
	'POST /faults {"verb":"list","kind":"garbage","count":1}'
	'POST /faults {"verb":"any","kind":"drip","count":1,"seconds":1}'
	'POST /faults {"verb":"list-continue","kind":"410","count":1}'
	'POST /faults {"verb":"watch","kind":"reset","count":3}'
	'POST /faults {"verb":"list","kind":"reset","count":2}'
	'POST /faults {"verb":"watch","kind":"403","count":1}'
	'POST /faults {"verb":"list","kind":"401","count":1}'
	'POST /faults {"verb":"watch","kind":"hang","count":1,"seconds":4}'
)

teardown() {
	if [ -n "${KINF_PID:-}" ]; then
		kill -TERM "$KINF_PID" 2>/dev/null
		wait "$KINF_PID" 2>/dev/null || true
	fi
	sim_stop	# before any bare wait: the simulator runs until stopped
}

# The cache as the handlers were told of it: OnDelete removes, OnAdd and
# OnUpdate set (the atomic FIFO's relist tombstones are ReplacedAll deltas
# that reached OnDelete).
REPLAY='reduce (.[] | select(.key != null)) as $d ({};
	if $d.handler == "OnDelete" then del(.[$d.key])
	else .[$d.key] = $d.resourceVersion end)'

replay_deltas() { jq -S -s -c "$REPLAY" "$1"; }

run_schedule() {	# run_schedule SEED CLIENT_GO_VERSION
	local seed=$1 fifo=$2
	echo "# seed $seed (replay with KINF_SEED=$seed), client-go $fifo"
	RANDOM=$seed
	sim_start --pods 40 --seed "$seed"
	local out=$BATS_TEST_TMPDIR/out-$fifo.ndjson err=$BATS_TEST_TMPDIR/err-$fifo.log
	local dump=$BATS_TEST_TMPDIR/cache-$fifo.json
	"$KINF" watch pods -A -o json --client-go "$fifo" --chunk-size 7 --renew-silent 2s \
		--resync 1s --dump-cache "$dump" --kubeconfig "$SIM_KUBECONFIG" >"$out" 2>"$err" &
	KINF_PID=$!
	wait_until 20 file_has "$err" synced

	simctl POST /churn "{\"resource\":\"pods\",\"rate\":150,\"duration\":8,\"seed\":$seed,\"mix\":{\"add\":2,\"update\":5,\"delete\":2}}" >/dev/null
	local i
	for i in $(seq 1 10); do
		local f=${FAULTS[RANDOM % ${#FAULTS[@]}]}
		local method=${f%% *} rest=${f#* }
		local path=${rest%% *} body=
		[ "$path" != "$rest" ] && body=${rest#* }
		echo "# fault $i: $method $path $body"
		simctl "$method" "$path" "$body" >/dev/null
		sleep "0.$((RANDOM % 9 + 1))"
	done
	wait_until 15 bash -c "$(declare -f simctl); ! simctl GET /churn | jq -e .running >/dev/null"
	simctl DELETE /faults >/dev/null

	local truth
	truth=$(sim_oracle pods | jq -S -c '.items')
	# Converges: the deltas printed rebuild exactly the server's truth.
	if ! wait_until 60 bash -c "$(declare -f replay_deltas); REPLAY='$REPLAY'; [ \"\$(replay_deltas '$out')\" = '$truth' ]"; then
		echo "# deltas: $(replay_deltas "$out" | head -c 2000)"
		echo "# truth:  $truth"
		tail -20 "$err"
		return 1
	fi
	# Resyncs reach the listener as Sync (or SyncAll) deltas.  They run
	# only while a watch is open (as client-go's resync goroutine does),
	# so a schedule of back-to-back relists may have left no room for
	# one before now: wait for one on the quiet watch.
	wait_until 15 file_has "$out" '"type":"Sync(All)?"'
	kill -TERM "$KINF_PID"
	wait "$KINF_PID" || true
	KINF_PID=
	# And the Indexer itself holds exactly the truth.
	[ "$(jq -S -c . "$dump")" = "$(jq -S -c . <<<"$truth")" ] || {
		echo "# indexer: $(head -c 2000 "$dump")"; echo "# truth: $truth"; return 1; }
	# Every fault that forced a relist shows as a relist, never silence.
	local lists
	lists=$(jq -s '[.[] | select(.listNumber != null) | .listNumber] | max' "$out")
	echo "# relists seen in deltas: $lists"
	sim_stop
}

seed() { echo "${KINF_SEED:-$((RANDOM * 32768 + RANDOM))}"; }

@test "client-go 1.28 (DeltaFIFO, LIST): cache equals the truth after random churn and faults" {
	run_schedule "$(seed)" 1.28
}

@test "client-go 1.32 (DeltaFIFO, LIST): cache equals the truth after random churn and faults" {
	run_schedule "$(seed)" 1.32
}

@test "client-go 1.34 (RealFIFO): cache equals the truth after random churn and faults" {
	run_schedule "$(seed)" 1.34
}

@test "client-go 1.35 (RealFIFO, batches, streaming list): cache equals the truth after random churn and faults" {
	run_schedule "$(seed)" 1.35
}

@test "client-go 1.36 (atomic FIFO, streaming list): cache equals the truth after random churn and faults" {
	run_schedule "$(seed)" 1.36
}
