#!/usr/bin/env bats
# `kinf watch --record` and `kinf replay`: a recording made against the
# simulator under faults replays, with no server, to the deltas the live
# run printed; under another client-go it shows that generation's deltas;
# --key tells one object's story; a bad recording is one line and status 1.

load test_helper
bats_require_minimum_version 1.5.0

REC= OUT= ERR= KINF_PID=

teardown() { kinf_stop; }	# a run a failed test left going

start_recording() {
	REC=$BATS_TEST_TMPDIR/pods.rec OUT=$BATS_TEST_TMPDIR/live.json ERR=$BATS_TEST_TMPDIR/live.err
	: >"$OUT"; : >"$ERR"	# a wait on $ERR sees this watch only
	"$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods -o json --record "$REC" "$@" \
		>"$OUT" 2>"$ERR" 3>&- &
	KINF_PID=$!
}

stop_recording() {
	kill -INT "$KINF_PID"
	wait "$KINF_PID" || [ $? -eq 130 ]
	KINF_PID=
}

synced() { file_has "$ERR" 'synced'; }
lines_of() { [ "$(wc -l <"$1")" -ge "$2" ]; }

# The deltas without their time: what must replay byte for byte.
deltas() { jq -c 'del(.time)' "$1"; }

# record_under_faults ARGS... — a watch recorded while pods churn and the
# server drops watches (cleanly and not), answers a 410, cuts a stream in
# the middle of a line, sends an event that is no JSON, and compacts.
record_under_faults() {
	sim_start --pods 6
	start_recording "$@"
	wait_until 20 synced
	watch_settled
	local n=0
	step() {
		local before
		before=$(wc -l <"$OUT")
		simctl POST /churn "{\"resource\":\"pods\",\"count\":4,\"seed\":$((++n)),\"mix\":{\"update\":3,\"add\":1}}" >/dev/null
		wait_until 20 lines_of "$OUT" $((before + 4))
		watch_settled
	}
	step
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	step
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	step
	simctl POST /faults '{"verb":"watch","kind":"truncate","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	step
	simctl POST /faults '{"verb":"watch","kind":"badevent","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	step
	# a delete the watch never told (a lost event), found by the relist
	# after a 410: a tombstone
	simctl POST /silent '{"op":"delete","resource":"pods","namespace":"default","name":"pod-0"}' >/dev/null
	simctl POST /compact >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 20 file_has "$OUT" '"tombstone":true'
	step
	stop_recording
}

@test "replay: where the recording stops, a watch cut by kinf is no very short watch and no relist, and replay says so" {
	sim_start --pods 3
	# a watch stopped at once: it had no event and lasted less than a second
	start_recording
	wait_until 20 synced
	stop_recording
	# and a flight recorder's dump written at once
	mkdir "$BATS_TEST_TMPDIR/dumps"
	: >"$ERR"	# the wait below sees this watch's "synced", not the last one's
	"$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods --flight-recorder 1m --flight-tail 0s \
		--flight-dir "$BATS_TEST_TMPDIR/dumps" 2>"$ERR" 3>&- &
	KINF_PID=$!
	wait_until 20 synced
	kill -USR1 "$KINF_PID"
	wait_until 10 file_has "$ERR" "signal: wrote"
	stop_recording
	for f in "$REC" "$BATS_TEST_TMPDIR"/dumps/*.rec.gz; do
		run --separate-stderr "$KINF" replay "$f" -v --dump-cache "$BATS_TEST_TMPDIR/c.json"
		assert_status 0
		[[ $stderr == *"synced: 3 objects cached"* ]]
		[[ ${stderr_lines[-1]} == "kinf: replay: the recording ends here" ]]
		[[ $stderr != *"very short"* && $stderr != *relist* && $stderr != *"backing off"* ]] ||
			{ echo "$stderr"; false; }
		[ "$(jq length "$BATS_TEST_TMPDIR/c.json")" -eq 3 ]
	done
}

@test "--record: a file of 0600, gzip'd JSON lines, no credential in it" {
	sim_start --pods 3
	touch "$BATS_TEST_TMPDIR/pods.rec"
	chmod 644 "$BATS_TEST_TMPDIR/pods.rec"
	start_recording
	wait_until 20 synced
	stop_recording
	[ "$(stat -c %a "$REC")" = 600 ]
	gzip -t "$REC"
	zcat "$REC" | jq -e . >/dev/null
	zcat "$REC" | head -1 | jq -e '.kinfRecording == 1 and .resources[0].name == "pods" and
		.namespace == "default" and (.clientGo | type == "string")' >/dev/null
	zcat "$REC" | sed 1d | jq -e 'has("t") and has("x")' >/dev/null
	token=$(awk '/token:/ {print $2}' "$SIM_KUBECONFIG" | head -1)
	[ -n "$token" ]
	! zgrep -qF -- "$token" "$REC" || false
	! zgrep -qi authorization "$REC" || false
	# a file that can't be made: one line before anything is watched
	run --separate-stderr "$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods \
		--record "$BATS_TEST_TMPDIR/no/such/dir/x.rec"
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "error: cannot create "*"No such file or directory" ]]
	[ -z "$output" ]
}

@test "--record and --dump-cache never write through a symbolic link: the file it names is left alone" {
	sim_start --pods 2
	local t=$BATS_TEST_TMPDIR
	printf 'precious\n' >"$t/target"
	chmod 644 "$t/target"
	ln -s "$t/target" "$t/planted"
	run --separate-stderr timeout 20 "$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods --record "$t/planted"
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "error: cannot create '$t/planted': it is a symbolic link, which kinf does not follow" ]]
	run --separate-stderr "$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods --max-deltas 2 \
		--dump-cache "$t/planted"
	assert_status 1
	[[ $stderr == *"error: cannot create '$t/planted': it is a symbolic link"* ]]
	[ "$(cat "$t/target")" = precious ]
	[ "$(stat -c %a "$t/target")" = 644 ]
	# A plain file is written as before.
	run --separate-stderr "$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods --max-deltas 2 \
		--dump-cache "$t/cache.json"
	assert_status 0
	jq -e 'length == 2' "$t/cache.json"
	[ "$(stat -c %a "$t/cache.json")" = 600 ]
}

@test "replay: a recording under faults gives the live run's deltas, byte for byte, time aside (1.36, streaming lists)" {
	record_under_faults
	grep -q 'relist #' "$ERR"
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
	[ "$(deltas "$OUT" | wc -l)" -gt 20 ]
	# a tombstone was among them, and the relists were told again
	jq -se 'any(.[]; .tombstone)' <<<"$output" >/dev/null
	[[ $stderr == *'relist #'* ]]
	# no server: the simulator is gone, the replay is the same
	sim_stop
	run --separate-stderr "$KINF" replay "$REC" -o json --dump-cache "$BATS_TEST_TMPDIR/cache.json"
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
	jq -e 'length > 0' "$BATS_TEST_TMPDIR/cache.json" >/dev/null
}

@test "replay: the same under client-go 1.28's paged LIST and DeltaFIFO" {
	record_under_faults --client-go 1.28 --chunk-size 2
	zcat "$REC" | jq -se 'any(.[]; .get? // "" | test("limit=2"))' >/dev/null
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
	jq -se 'any(.[]; .type=="Replaced")' <<<"$output" >/dev/null
}

@test "replay --client-go and --fifo: what another generation hands the controller from the same answers" {
	record_under_faults --client-go 1.28
	run --separate-stderr "$KINF" replay "$REC" -o json --dump-cache "$BATS_TEST_TMPDIR/c128"
	assert_status 0
	old=$output
	run --separate-stderr "$KINF" replay "$REC" -o json --client-go 1.36 --dump-cache "$BATS_TEST_TMPDIR/c136"
	assert_status 0
	# the same cache at the end, by other deltas: DeltaFIFO's Replaced,
	# the atomic FIFO's ReplacedAll
	diff "$BATS_TEST_TMPDIR/c128" "$BATS_TEST_TMPDIR/c136"
	jq -se 'any(.[]; .type=="Replaced")' <<<"$old" >/dev/null
	! jq -se 'any(.[]; .type=="ReplacedAll")' <<<"$old" >/dev/null || false
	jq -se 'any(.[]; .type=="ReplacedAll")' <<<"$output" >/dev/null
	! jq -se 'any(.[]; .type=="Replaced")' <<<"$output" >/dev/null || false
	run --separate-stderr "$KINF" replay "$REC" -o json --fifo real
	assert_status 0
	jq -se 'any(.[]; .type=="Replaced")' <<<"$output" >/dev/null
	# deterministic: twice the same
	run --separate-stderr "$KINF" replay "$REC" -o json --fifo real
	a=$(jq -c 'del(.time)' <<<"$output")
	run --separate-stderr "$KINF" replay "$REC" -o json --fifo real
	[ "$a" = "$(jq -c 'del(.time)' <<<"$output")" ]
}

# record_outage FAULT — a 1.36 watch recorded while FAULT (a /faults
# script) fails its re-watch and, after it, the relist's requests.
record_outage() {
	sim_start --pods 3
	start_recording
	wait_until 20 synced
	watch_settled	# so the watch, not a very short one, is what fails
	simctl POST /faults "$1" >/dev/null
	simctl POST /restart-watch-cache >/dev/null
	wait_until 20 file_has "$ERR" 'relist #1'
	stop_recording
}

@test "replay --client-go: where that client-go asks what the recorded one never asked, the resource's replay ends, said in one line, status 1" {
	# 1.36's streaming list fails, and it falls back to a LIST that
	# works; 1.28 would have asked a streaming list again
	record_outage '{"verb":"watch","kind":"500","count":2}'
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	[[ ${stderr_lines[-1]} == "kinf: replay: the recording ends here" ]]
	run --separate-stderr "$KINF" replay "$REC" -o json --client-go 1.28
	assert_status 1
	[[ ${stderr_lines[-1]} =~ ^"error: pods: at "[0-9]+\.[0-9]{3}" s client-go 1.28 asks a streaming list, and the recording has a LIST: no answer to replay from there"$ ]] ||
		{ echo "$stderr"; false; }
	# what came before is replayed: the first list, as 1.28's DeltaFIFO hands it
	[ "$(jq -s 'map(select(.type=="Replaced")) | length' <<<"$output")" -eq 3 ]
	run ! grep -q 'invalid watch event' <<<"$stderr"
}

@test "replay --client-go: an error answers whatever that client-go asks, so an outage replays whole" {
	# the streaming list and its fallback LIST both fail: 1.28 asks a
	# streaming list where 1.36 asked the LIST, and gets its 500
	record_outage '{"verb":"any","kind":"500","count":3}'
	zcat "$REC" | jq -se '[.[] | .get? // empty | select(test("watch=true") | not)] | length == 1' >/dev/null
	run --separate-stderr "$KINF" replay "$REC" -o json --client-go 1.28 -v
	assert_status 0
	[[ ${stderr_lines[-1]} == "kinf: replay: the recording ends here" ]]
	[[ $stderr == *"relist #1"* ]] || { echo "$stderr"; false; }
}

@test "replay keeps the recorded queue: --fifo real under 1.36 replays as RealFIFO" {
	sim_start --pods 3
	start_recording --fifo real
	wait_until 20 synced
	watch_settled
	simctl POST /churn '{"resource":"pods","count":3,"seed":2}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	wait_until 20 file_has "$ERR" 'relist #1'
	stop_recording
	zcat "$REC" | head -1 | jq -e '.fifo == "real" and .clientGo == "1.36"' >/dev/null
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
	jq -se 'any(.[]; .type=="Replaced")' <<<"$output" >/dev/null
}

@test "replay of several resources: each resource's deltas as live" {
	sim_start --pods 4
	REC=$BATS_TEST_TMPDIR/m.rec OUT=$BATS_TEST_TMPDIR/live.json ERR=$BATS_TEST_TMPDIR/live.err
	"$KINF" watch --kubeconfig "$SIM_KUBECONFIG" pods,configmaps,nodes -o json --record "$REC" \
		>"$OUT" 2>"$ERR" 3>&- &
	KINF_PID=$!
	wait_until 20 bash -c "[ \$(grep -c synced '$ERR') -ge 3 ]"
	watch_settled
	simctl POST /churn '{"resource":"pods","count":6,"seed":5}' >/dev/null
	simctl POST /churn '{"resource":"configmaps","count":4,"seed":5}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410","count":2}' >/dev/null
	simctl POST /drop-watches '{"mode":"abrupt"}' >/dev/null
	# Both relists delivered (each one's summary follows its deltas): a
	# list kinf had read but not yet delivered, the replay would have.
	wait_until 30 bash -c "[ \$(grep -c 'relist #1' '$ERR') -ge 2 ]"
	stop_recording
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	for r in pods configmaps nodes; do
		diff <(jq -c "select(.resource==\"$r\") | del(.time)" "$OUT") \
			<(jq -c "select(.resource==\"$r\") | del(.time)" <<<"$output")
	done
	[ "$(jq -r .resource <<<"$output" | sort -u | tr '\n' ' ')" = "configmaps nodes pods " ]
	# a cluster-scoped object's story is told by its name
	run --separate-stderr "$KINF" replay "$REC" --key node-1 -o json
	[ "$(jq -r .key <<<"$output" | sort -u)" = node-1 ]
}

@test "replay --key: one object's story, each update with what it changed" {
	sim_start --pods 3
	start_recording
	wait_until 20 synced
	for v in 1 2 3; do
		simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"pod-1\",\"patch\":{\"metadata\":{\"labels\":{\"step\":\"s$v\"}}}}" >/dev/null
	done
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-2","patch":{"metadata":{"labels":{"other":"x"}}}}' >/dev/null
	simctl POST /delete '{"resource":"pods","namespace":"default","name":"pod-1","graceful":false}' >/dev/null
	wait_until 20 file_has "$OUT" '"type":"Deleted"'
	stop_recording
	run --separate-stderr "$KINF" replay "$REC" --key default/pod-1 --no-headers
	assert_status 0
	# added, three updates, deleted: only pod-1, each update's change shown
	[ "$(grep -c 'default/pod-1' <<<"$output")" -eq 5 ]
	! grep -q 'pod-2' <<<"$output" || false
	grep -q 'step: s1 -> s2\|step: s1 → s2\|s1.*s2' <<<"$output"
	run --separate-stderr "$KINF" replay "$REC" --key default/pod-1 -o json
	[ "$(jq -r .type <<<"$output" | tr '\n' ' ')" = "ReplacedAll Updated Updated Updated Deleted " ]
}

@test "replay --speed 1 keeps the recorded pace; without it, at once" {
	sim_start --pods 2
	start_recording
	wait_until 20 synced
	sleep 2
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"late":"yes"}}}}' >/dev/null
	wait_until 20 file_has "$OUT" '"type":"Updated"'
	stop_recording
	start=$(date +%s%N)
	run --separate-stderr "$KINF" replay "$REC" -o json
	fast=$((($(date +%s%N) - start) / 1000000))
	assert_status 0
	start=$(date +%s%N)
	run --separate-stderr "$KINF" replay "$REC" -o json --speed 1
	slow=$((($(date +%s%N) - start) / 1000000))
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
	# the recorded pace holds the 2 s gap; at once, a fraction of it, however loaded the machine
	[ "$slow" -ge 2000 ] && [ $((fast * 2)) -lt "$slow" ]
}

@test "replay: bad recordings and options are one line, status 1 or 2" {
	local d=$BATS_TEST_TMPDIR
	run --separate-stderr "$KINF" replay "$d/none.rec"
	assert_status 1
	[ "$stderr" = "error: cannot open '$d/none.rec': No such file or directory" ]
	echo 'not a recording' | gzip >"$d/text.rec"
	run --separate-stderr "$KINF" replay "$d/text.rec"
	assert_status 1
	[[ $stderr == "error: $d/text.rec:1: not a JSON object" ]]
	echo '{"hello":1}' >"$d/plain.rec"	# not gzip'd: read as it is
	run --separate-stderr "$KINF" replay "$d/plain.rec"
	assert_status 1
	[[ $stderr == *'not a kinf recording'* ]]
	printf '{"kinfRecording":1,"resources":[]}\n' | gzip >"$d/empty.rec"
	run --separate-stderr "$KINF" replay "$d/empty.rec"
	assert_status 1
	[[ $stderr == *'names no resource'* ]]
	head -c 100 /dev/urandom >"$d/random.rec"
	run --separate-stderr "$KINF" replay "$d/random.rec"
	assert_status 1
	[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == error:* ]]
	for bad in "--speed 0" "--speed x" "--client-go 9.99" "--key ="; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" replay "$d/plain.rec" $bad
		[ "$status" -eq 2 ] || [[ $bad == "--key =" ]]
	done
	run --separate-stderr "$KINF" replay
	assert_status 2
}

# hostile NAME PYTHON — the fixture's recording, its records (r, a dict)
# changed by PYTHON, as $BATS_TEST_TMPDIR/NAME.rec.
hostile() {
	zcat "$BATS_TEST_DIRNAME/fixtures/replay/relist-tombstone.rec" | python3 -c '
import json, sys
out = []
for i, line in enumerate(sys.stdin):
    r = json.loads(line)
'"$2"'
    out.append(json.dumps(r, separators=(",", ":")))
print("\n".join(out))' | gzip >"$BATS_TEST_TMPDIR/$1.rec"
}

@test "replay: a hostile recording is one line and status 1, bounded in memory" {
	local d=$BATS_TEST_TMPDIR
	# a header alone: no request to answer (it used to retry for ever)
	zcat "$BATS_TEST_DIRNAME/fixtures/replay/relist-tombstone.rec" | head -1 | gzip >"$d/header.rec"
	run --separate-stderr "$KINF" replay "$d/header.rec"
	assert_status 1
	[ "$stderr" = "error: $d/header.rec: the recording holds no request: nothing to replay" ]
	# a member of another type, or out of range: the line and the member named
	hostile null-stream '    if r.get("x") == 2 and "stream" in r: r["stream"] = None'
	hostile null-verb '    if i == 0: r["resources"][0]["verbs"].append(None)'
	hostile huge-t '    if r.get("x") == 3: r["t"] = 10**30'
	hostile num-stream-error '    if "end" in r: r["streamError"] = 5'
	local what
	for what in 'null-stream.rec:6: "stream" is not a string' \
		    'num-stream-error.rec:5: "streamError" is not a string' \
		    'null-verb.rec: the recording'"'"'s header has a resource without' \
		    'huge-t.rec:10: "t" is not an integer'; do
		run --separate-stderr "$KINF" replay "$d/${what%%:*}"
		assert_status 1
		[ "${#stderr_lines[@]}" -eq 1 ] && [[ $stderr == "error: $d/$what"* ]]
	done
	# 300 MB of one line in 300 KB of gzip: refused at 64 MiB, never all held
	{ zcat "$BATS_TEST_DIRNAME/fixtures/replay/relist-tombstone.rec" | head -1
	  head -c 300000000 /dev/zero | tr '\0' ' '; } | gzip -1 >"$d/bomb.rec"
	# (under AddressSanitizer, freed buffers wait in its quarantine: not
	# what kinf holds)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 \
	run --separate-stderr python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$KINF" replay "$d/bomb.rec"
	[ "$stderr" = "error: $d/bomb.rec:2: a line longer than 64 MiB" ]
	[ "$output" -lt 200 ] || { echo "# peak RSS $output MB" >&2; false; }
}

@test "replay --speed: SIGINT ends a replay that waits for a record an hour on" {
	hostile hour '    if r.get("t", 0) > 100: r["t"] += 3600000'
	"$KINF" replay "$BATS_TEST_TMPDIR/hour.rec" --speed 1 -o json \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	KINF_PID=$!
	wait_until 20 file_has "$BATS_TEST_TMPDIR/out" '"initialList":true'
	kill -INT "$KINF_PID"
	local rc=0
	wait "$KINF_PID" || rc=$?
	KINF_PID=
	[ "$rc" -eq 130 ] || { cat "$BATS_TEST_TMPDIR/err" >&2; false; }
}

@test "replay of a recording cut short (kinf killed): what it holds" {
	sim_start --pods 3
	start_recording
	wait_until 20 synced
	simctl POST /update '{"resource":"pods","namespace":"default","name":"pod-0","patch":{"metadata":{"labels":{"a":"b"}}}}' >/dev/null
	wait_until 20 file_has "$OUT" '"type":"Updated"'
	kill -KILL "$KINF_PID"
	wait "$KINF_PID" || true
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	[ "$(jq -r .type <<<"$output" | sort -u | tr '\n' ' ')" = "ReplacedAll Updated " ]
}

# cut_in_list REC OUT — REC (gzip) up to the first piece of its first
# continue page: a recording that stops in the middle of a paginated list.
cut_in_list() {
	zcat "$1" | python3 -c '
import json, sys
x = None
for line in sys.stdin:
    r = json.loads(line)
    if x is None and "continue=" in r.get("get", ""):
        x = r["x"]
    sys.stdout.write(line)
    if x is not None and r.get("x") == x and "data" in r:
        break
' | gzip >"$2"
}

@test "replay of a recording that stops in the middle of a paginated list: it says so and stops, no relist" {
	sim_start --pods 5
	# a 410 on the first list makes the reflector list again at "", in pages
	simctl POST /faults '{"verb":"list","kind":"410","count":1}' >/dev/null
	start_recording -A --chunk-size 2 --streaming-list=false
	wait_until 20 synced
	stop_recording
	cut_in_list "$REC" "$BATS_TEST_TMPDIR/cut.rec"
	# the cut recording holds a continue page's beginning and no end of it
	zcat "$BATS_TEST_TMPDIR/cut.rec" | tail -1 | grep -q '"data"'
	zcat "$BATS_TEST_TMPDIR/cut.rec" | grep -q 'continue='
	run --separate-stderr timeout 20 "$KINF" replay "$BATS_TEST_TMPDIR/cut.rec" -o json -v
	assert_status 0
	[ -z "$output" ]	# client-go's pager hands out no list half read
	[[ $stderr == *"kinf: replay: the recording ends here"* ]]
	run ! grep -E 'relist|backing off|error' <<<"$stderr"
}

@test "replay fixture: a small recording kept in the tree replays to its NDJSON" {
	local f=$BATS_TEST_DIRNAME/fixtures/replay
	run --separate-stderr "$KINF" replay "$f/relist-tombstone.rec" -o json
	assert_status 0
	diff "$f/relist-tombstone.json" <(jq -c 'del(.time)' <<<"$output")
}

# paced_recording MARK1 MARK2 — a DeltaFIFO recording: a list of pod-a and
# pod-b, then a watch that updates pod-a; MARK1 and MARK2 are the pops the
# consumer had made when the list and the update were queued ("q"
# records), "" for none.
paced_recording() {
	local pod='{"kind":"Pod","apiVersion":"v1","metadata":{"name":"%s","namespace":"default","uid":"u-%s","resourceVersion":"%s"}}'
	local a b a2
	a=$(printf "$pod" pod-a a 10) b=$(printf "$pod" pod-b b 10) a2=$(printf "$pod" pod-a a 11)
	local list="{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[$a,$b]}"
	local event="{\"type\":\"MODIFIED\",\"object\":$a2}"
	local stream=/api/v1/namespaces/default/pods
	{
		echo '{"kinfRecording":1,"kinf":"0.1.0","started":"2026-11-24T00:00:00Z","server":"https://127.0.0.1:1","namespace":"default","clientGo":"1.28","fifo":"delta","streamingList":false,"resources":[{"name":"pods","singularName":"pod","kind":"Pod","group":"","version":"v1","namespaced":true,"verbs":["list","watch"]}]}'
		jq -nc --arg s "$stream" '{t:0,x:1,stream:$s,get:($s+"?limit=500&resourceVersion=0")}'
		echo '{"t":1,"x":1,"status":200,"contentType":"application/json"}'
		jq -nc --arg d "$list" '{t:1,x:1,data:$d}'
		echo '{"t":1,"x":1,"end":0}'
		[ -z "$1" ] || echo "{\"t\":1,\"x\":1,\"q\":$1}"
		jq -nc --arg s "$stream" '{t:2,x:2,stream:$s,get:($s+"?watch=true&resourceVersion=10")}'
		echo '{"t":2,"x":2,"status":200,"contentType":"application/json"}'
		jq -nc --arg d "$event"$'\n' '{t:3,x:2,data:$d}'
		[ -z "$2" ] || echo "{\"t\":3,\"x\":2,\"q\":$2}"
		echo '{"t":4,"x":2,"end":0}'
	} | gzip >"$BATS_TEST_TMPDIR/paced.rec"
}

# The replay's deltas as "name rv" lines, in the order handed out.
paced_replay() {
	run --separate-stderr timeout 20 "$KINF" replay "$BATS_TEST_TMPDIR/paced.rec" -o json "$@"
	assert_status 0
	output=$(jq -r '"\(.name) \(.resourceVersion)"' <<<"$output" | paste -sd' ')
}

@test "replay keeps the consumer's recorded pace: a DeltaFIFO merges what waited, as it did live" {
	# live, the update came before the consumer popped anything: pod-a's
	# key was still queued, and its update went with it, before pod-b
	paced_recording 0 0
	paced_replay
	[ "$output" = "pod-a 10 pod-a 11 pod-b 10" ]
	# the consumer had popped both: the update comes last
	paced_recording 0 2
	paced_replay
	[ "$output" = "pod-a 10 pod-b 10 pod-a 11" ]
	# no pace recorded (an older recording): the queue drains between requests
	paced_recording "" ""
	paced_replay
	[ "$output" = "pod-a 10 pod-b 10 pod-a 11" ]
	# another queue: the recorded pace is not applied (RealFIFO merges nothing)
	paced_recording 0 0
	paced_replay --fifo real
	[ "$output" = "pod-a 10 pod-b 10 pod-a 11" ]
}

@test "--record keeps the consumer's pace: a q record for each entry the reflector queued" {
	sim_start --pods 3
	start_recording --client-go 1.28
	wait_until 20 synced
	simctl POST /churn '{"resource":"pods","count":3,"seed":1,"mix":{"update":3}}' >/dev/null
	wait_until 20 lines_of "$OUT" 6
	stop_recording
	# one mark for the list, one for each watch event, in order, never going back
	zcat "$REC" | jq -se '[.[] | select(has("q")) | .q] | length >= 4 and . == sort' >/dev/null
	# the list's mark is the first and finds nothing popped
	zcat "$REC" | jq -se '[.[] | select(has("q"))][0].q == 0' >/dev/null
	run --separate-stderr "$KINF" replay "$REC" -o json
	assert_status 0
	diff <(deltas "$OUT") <(jq -c 'del(.time)' <<<"$output")
}
