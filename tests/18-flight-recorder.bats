#!/usr/bin/env bats
# `kinf watch --flight-recorder`: what the server sent, kept in memory and
# written as a recording when something goes wrong.  A lost event
# (kube-sim's POST /silent) found by --verify-every writes one dump that
# replays to the cache lacking the change at the trigger, and holds the
# relist that repaired it; SIGUSR1 writes one; --flight-keep removes the
# oldest.

load test_helper
load tui_helper
bats_require_minimum_version 1.5.0

KINF_PID=

setup() {
	TMUX_SOCK="kinf-flight-$$-${BATS_TEST_NUMBER}"
}

teardown() {
	stop_watch
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	sim_stop 2>/dev/null || true
}

start_watch() {
	DIR=$BATS_TEST_TMPDIR/dumps
	mkdir -p "$DIR"
	kinf_bg watch --kubeconfig "$SIM_KUBECONFIG" "$@" --flight-dir "$DIR"
}

stop_watch() { kinf_stop; }

synced() { file_has "$ERR" 'synced'; }
dumps() { find "$DIR" -name 'kinf-*.rec.gz' | sort; }
ndumps() { [ "$(dumps | wc -l)" -ge "$1" ]; }
wrote() { [ "$(grep -c 'signal: wrote' "$ERR")" -ge "$1" ]; }
# jq -s: jq 1.6's -e looks at the last input only
verify_diverged() { jq -s -e 'any(.[]; .type == "Verify" and .equal == false)' "$OUT" >/dev/null 2>&1; }
relisted() { file_has "$ERR" 'relist'; }

@test "flight recorder: a lost update under --verify-every writes one dump, reason verify, that replays" {
	sim_start --pods 3
	simctl POST /create '{"resource":"configmaps","object":{"metadata":{"name":"app"},"data":{"a":"1"}}}' >/dev/null
	start_watch configmaps --verify-every 5s --lag-wait 2s --flight-recorder 2m \
		--flight-tail 4s -o json --events --dump-cache "$BATS_TEST_TMPDIR/live.json"
	wait_until 20 synced
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"app","patch":{"data":{"lost":"update"}}}' >/dev/null
	wait_until 20 verify_diverged
	# the watch ends and the next one is told 410: the relist repairs the cache
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_until 20 ndumps 1
	# a later check finds the cache equal: no second dump
	sleep 6
	stop_watch
	[ "$(dumps | wc -l)" -eq 1 ] || { cat "$ERR"; dumps; false; }
	dump=$(dumps)
	[[ $(basename "$dump") =~ ^kinf-[0-9]{8}T[0-9]{6}Z-verify\.rec\.gz$ ]]
	[ "$(stat -c %a "$dump")" = 600 ]
	grep -qF "flight recorder: verify: wrote '$dump'" "$ERR"
	jq -s -e --arg p "$dump" 'map(select(.type == "FlightDump")) |
		length == 1 and .[0].reason == "verify" and .[0].path == $p' "$OUT" >/dev/null
	# the trigger is in it: reason, keys, time
	zcat "$dump" | jq -s -e 'map(select(has("trigger"))) | length == 1 and
		.[0].trigger == "verify" and (.[0].keys | map({key, class})) ==
		[{"key":"default/app","class":"stale"}] and
		(.[0].keys[0] | .cacheRV != .serverRV and .cacheRV and .serverRV) and
		(.[0].time | test("T"))' >/dev/null
	# one timeline: "started" is t = 0 of its records, so started + the
	# trigger's t is the trigger's time (to the ms written, and a ms of rounding)
	zcat "$dump" | jq -s -e '
		def ms: sub("(?<s>\\.[0-9]+)?Z$"; "Z") as $z | ($z | fromdateiso8601) * 1000 +
			((capture("\\.(?<f>[0-9]{3})") | .f | tonumber) // 0);
		(.[0].started | ms) as $s | (map(select(has("trigger"))) | .[0]) as $tr |
		(($tr.time | ms) - $s - $tr.t) | fabs <= 2' >/dev/null
	# no credentials
	run ! zgrep -qiE 'authorization|bearer|token' "$dump"
	# at the trigger, the cache lacks the change: its old resourceVersion
	server_rv=$(sim_oracle configmaps | jq -r '.items."default/app"')
	run --separate-stderr kinf replay "$dump" --at trigger -o json --dump-cache "$BATS_TEST_TMPDIR/at.json"
	assert_status 0
	cache_rv=$(jq -r '."default/app"' "$BATS_TEST_TMPDIR/at.json")
	[ -n "$cache_rv" ] && [ "$cache_rv" != "$server_rv" ]
	# what each side had at the trigger: the replayed cache against the server
	jq -e --arg c "$cache_rv" --arg s "$server_rv" 'select(.type == "Trigger") |
		.trigger == "verify" and .keys == [{"key":"default/app","class":"stale",
		"cacheRV":$c,"serverRV":$s}]' <<<"${lines[-1]}" >/dev/null
	run --separate-stderr kinf replay "$dump" --at trigger
	assert_status 0
	[[ $output == *"default/app stale: cache rv $cache_rv, server rv $server_rv"* ]]
	# the relist that followed is in it, after the trigger ...
	zcat "$dump" | jq -s -e '(map(select(has("trigger"))) | .[0].t) as $t |
		any(.[]; has("stream") and .t > $t and (.get | test("sendInitialEvents=true|limit=")))' >/dev/null
	run --separate-stderr kinf replay "$dump" -o json --dump-cache "$BATS_TEST_TMPDIR/end.json"
	assert_status 0
	[[ $stderr == *"relist"* ]]
	# ... and the whole dump replays to the live run's final cache, the server's
	[ "$(jq -r '."default/app"' "$BATS_TEST_TMPDIR/end.json")" = "$server_rv" ]
	[ "$(jq -S . "$BATS_TEST_TMPDIR/end.json")" = "$(jq -S . "$BATS_TEST_TMPDIR/live.json")" ]
}

# checks that found the cache divergent, at least N
diverged_checks() {
	[ "$(jq -s 'map(select(.type == "Verify" and .equal == false)) | length' "$OUT" 2>/dev/null)" -ge "$1" ]
}
verify_wrote() { [ "$(grep -c 'flight recorder: verify: wrote' "$ERR")" -ge "$1" ]; }

@test "flight recorder: a lasting divergence is dumped once, and again only when it changes" {
	sim_start --pods 0 --namespaces 0
	local n
	for n in a b; do
		simctl POST /create "{\"resource\":\"configmaps\",\"object\":{\"metadata\":{\"name\":\"$n\"},\"data\":{\"v\":\"1\"}}}" >/dev/null
	done
	start_watch configmaps --verify-every 1s --lag-wait 1s --flight-recorder 2m \
		--flight-tail 1s -o json --events
	wait_until 20 synced
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"a","patch":{"data":{"v":"2"}}}' >/dev/null
	wait_until 30 verify_wrote 1
	# the same divergence, found again and again: the first dump stays the only one
	local seen
	seen=$(jq -s 'map(select(.type == "Verify" and .equal == false)) | length' "$OUT")
	wait_until 30 diverged_checks $((seen + 3))
	[ "$(grep -c 'flight recorder: verify: wrote' "$ERR")" -eq 1 ]
	# another key lost too: the divergence changed, a second dump
	simctl POST /silent '{"op":"update","resource":"configmaps","namespace":"default","name":"b","patch":{"data":{"v":"2"}}}' >/dev/null
	wait_until 30 verify_wrote 2
}

churn_done() { simctl GET /churn | jq -e '.running == false' >/dev/null; }

@test "flight recorder: a list older than the window: the dump starts from a reconstructed checkpoint, replayed to the live cache" {
	sim_start --pods 5 --bookmark-interval 1
	for streaming in true false; do
		start_watch pods --flight-recorder 3s --flight-tail 0s --streaming-list=$streaming \
			--dump-cache "$BATS_TEST_TMPDIR/live.json"
		wait_until 20 synced
		simctl POST /churn '{"resource":"pods","rate":8,"duration":6,"seed":7}' >/dev/null
		wait_until 20 churn_done
		sleep 1.5	# a bookmark: the ring lets go of the churn's first seconds
		kill -USR1 "$KINF_PID"
		wait_until 10 ndumps 1
		stop_watch
		dump=$(dumps)
		# the stream begins with the reconstructed exchange, marked; the server's own list is not there
		zcat "$dump" | jq -s -e 'map(select(has("stream"))) | .[0].reconstructed == true and
			all(.[]; .reconstructed == true or (.get | test("sendInitialEvents|limit=") | not))' >/dev/null
		run --separate-stderr kinf replay "$dump" -o json --dump-cache "$BATS_TEST_TMPDIR/replayed.json"
		assert_status 0
		[[ $stderr == *"kinf: replay: '/api/v1/namespaces/default/pods' starts from a reconstructed checkpoint"* ]]
		# the same final cache as the live run's, which is the server's
		[ "$(jq -S . "$BATS_TEST_TMPDIR/replayed.json")" = "$(jq -S . "$BATS_TEST_TMPDIR/live.json")" ] ||
			{ diff <(jq -S . "$BATS_TEST_TMPDIR/replayed.json") <(jq -S . "$BATS_TEST_TMPDIR/live.json"); false; }
		[ "$(jq -S . "$BATS_TEST_TMPDIR/live.json")" = "$(sim_oracle pods | jq -S .items)" ]
		rm -f "$dump"
	done
}

@test "flight recorder: SIGUSR1 writes a dump; --flight-keep removes the oldest" {
	sim_start --pods 3
	start_watch pods --flight-recorder 2m --flight-tail 0s --flight-keep 2
	wait_until 20 synced
	for n in 1 2 3; do
		kill -USR1 "$KINF_PID"
		# said once complete (the writer's thread writes it meanwhile)
		wait_until 10 wrote "$n"
		[ "$(dumps | wc -l)" -eq "$(( n < 2 ? n : 2 ))" ]
		sleep 1.1	# a dump a second: names that sort by time
		[ "$(grep -c 'signal: wrote' "$ERR")" -eq "$n" ]
	done
	# written under a hidden name, then given its own: none left behind
	[ -z "$(find "$DIR" -name '.kinf-*')" ]
	first=$(grep -m1 -o "wrote '[^']*'" "$ERR" | cut -d"'" -f2)
	[ "$(dumps | wc -l)" -eq 2 ]
	[ ! -e "$first" ]
	stop_watch
	# a signal's dump replays
	run --separate-stderr kinf replay "$(dumps | tail -1)" --dump-cache "$BATS_TEST_TMPDIR/c.json"
	assert_status 0
	[ "$(jq length "$BATS_TEST_TMPDIR/c.json")" -eq 3 ]
}

@test "flight recorder: in a shared --flight-dir, --flight-keep counts and removes only this user's dumps" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to plant a file of another user"
	sim_start --pods 2
	DIR=$BATS_TEST_TMPDIR/dumps	# start_watch's
	mkdir -p "$DIR"
	# planted, all named to sort after any real dump: another user's, a
	# link to a file of ours, and a name of another pattern
	touch "$DIR/kinf-99991231T235959Z-signal.rec.gz"
	chown nobody "$DIR/kinf-99991231T235959Z-signal.rec.gz"
	printf 'precious\n' >"$BATS_TEST_TMPDIR/target"
	ln -s "$BATS_TEST_TMPDIR/target" "$DIR/kinf-99991231T235958Z-signal.rec.gz"
	touch "$DIR/kinf-zzz.rec.gz"
	start_watch pods --flight-recorder 2m --flight-tail 0s --flight-keep 1
	wait_until 20 synced
	kill -USR1 "$KINF_PID"
	wait_until 10 wrote 1
	sleep 1.1	# a dump a second: names that sort by time
	kill -USR1 "$KINF_PID"
	wait_until 10 wrote 2
	stop_watch
	local first second
	first=$(grep -o "wrote '[^']*'" "$ERR" | sed -n 1p | cut -d"'" -f2)
	second=$(grep -o "wrote '[^']*'" "$ERR" | sed -n 2p | cut -d"'" -f2)
	# ours: the older went, the newer stayed, though planted names sort later
	[ ! -e "$first" ]
	[ -f "$second" ]
	# theirs: all still there, and the link's target untouched
	[ -e "$DIR/kinf-99991231T235959Z-signal.rec.gz" ]
	[ -L "$DIR/kinf-99991231T235958Z-signal.rec.gz" ]
	[ -e "$DIR/kinf-zzz.rec.gz" ]
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = precious ]
}

@test "flight recorder: a hidden dump a dead kinf left goes; one being written, a fresh one and other files stay" {
	DIR=$BATS_TEST_TMPDIR/dumps
	mkdir -p "$DIR"
	for x in DEAD01 HELD01 FRESH1; do echo partial >"$DIR/.kinf-signal.rec.gz.$x"; done
	echo mine >"$DIR/.kinf-notes"
	echo mine >"$DIR/kinf-signal.rec.gz.DEAD02"
	touch -d '-2 min' "$DIR/.kinf-signal.rec.gz.DEAD01" "$DIR/.kinf-signal.rec.gz.HELD01" \
		"$DIR/.kinf-notes" "$DIR/kinf-signal.rec.gz.DEAD02"
	# another kinf's writer, still at it: its lock held (by flock itself, -o)
	flock -o "$DIR/.kinf-signal.rec.gz.HELD01" sleep 60 3>&- &
	local holder=$!
	wait_until 5 bash -c "! flock -n '$DIR/.kinf-signal.rec.gz.HELD01' true"
	sim_start --pods 3
	start_watch pods --flight-recorder 2m --flight-tail 0s
	wait_until 20 synced
	# removed as the recorder starts (its writer's thread): the dead one only
	wait_until 10 bash -c "[ ! -e '$DIR/.kinf-signal.rec.gz.DEAD01' ]"
	[ -e "$DIR/.kinf-signal.rec.gz.HELD01" ]
	[ -e "$DIR/.kinf-signal.rec.gz.FRESH1" ]
	[ -e "$DIR/.kinf-notes" ]
	[ -e "$DIR/kinf-signal.rec.gz.DEAD02" ]
	# after a dump too, once the holder is gone
	pkill -P "$holder" sleep || true
	wait "$holder" 2>/dev/null || true
	kill -USR1 "$KINF_PID"
	wait_until 10 wrote 1
	wait_until 10 bash -c "[ ! -e '$DIR/.kinf-signal.rec.gz.HELD01' ]"
	[ -e "$DIR/.kinf-signal.rec.gz.FRESH1" ]
	[ "$(dumps | wc -l)" -eq 1 ]
	stop_watch
}

@test "flight recorder: D in the TUI writes a dump, and the status line says where" {
	sim_start --pods 3
	DIR=$BATS_TEST_TMPDIR/dumps
	mkdir -p "$DIR"
	kinf_in_pane watch --tui pods --kubeconfig "$SIM_KUBECONFIG" \
		--flight-recorder 2m --flight-tail 1s --flight-dir "$DIR"
	wait_synced 3 20
	keys D
	wait_screen 'flight recorder: key: wrote' 10
	[ "$(dumps | wc -l)" -eq 1 ]
	[[ $(basename "$(dumps)") =~ ^kinf-[0-9]{8}T[0-9]{6}Z-key\.rec\.gz$ ]]
	keys q
	wait_screen 'kinf exited 0'
	run --separate-stderr kinf replay "$(dumps)" --dump-cache "$BATS_TEST_TMPDIR/c.json"
	assert_status 0
	[ "$(jq length "$BATS_TEST_TMPDIR/c.json")" -eq 3 ]
}

@test "flight recorder: in kinf tui, a relist that added a key writes a dump, as in watch" {
	sim_start --pods 3
	DIR=$BATS_TEST_TMPDIR/dumps
	mkdir -p "$DIR"
	kinf_in_pane tui pods --kubeconfig "$SIM_KUBECONFIG" \
		--flight-recorder 2m --flight-tail 1s --flight-dir "$DIR"
	wait_synced 3 20
	# a pod no watch is told of; the next watch is told 410: the relist adds it
	simctl POST /silent '{"op":"create","resource":"pods","object":{"metadata":{"name":"unseen"}}}' >/dev/null
	simctl POST /faults '{"verb":"watch","kind":"410","count":1}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	wait_screen 'flight recorder: relist: wrote' 20
	[ "$(dumps | wc -l)" -eq 1 ]
	[[ $(basename "$(dumps)") =~ ^kinf-[0-9]{8}T[0-9]{6}Z-relist\.rec\.gz$ ]]
	keys q
	wait_screen 'kinf exited 0'
	run --separate-stderr kinf replay "$(dumps)" --dump-cache "$BATS_TEST_TMPDIR/c.json"
	assert_status 0
	jq -e 'has("default/unseen") and length == 4' "$BATS_TEST_TMPDIR/c.json" >/dev/null
}

@test "flight recorder: with --controller, a coalesced state writes a dump, reason controller-coalesced" {
	sim_start --pods 1 --deployments 0
	start_watch pods --controller --reconcile-time 3s --flight-recorder 2m --flight-tail 1s \
		--dump-on controller-coalesced -o json --events
	wait_until 20 synced
	# the initial list's Reconcile ends: the key is idle again
	wait_until 20 jq -e -s 'any(.[]; .type == "ReconcileDone")' "$OUT"
	# three updates within one Reconcile: the second is never read
	for n in 1 2 3; do
		simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"pod-0\",\"patch\":{\"metadata\":{\"labels\":{\"n\":\"$n\"}}}}" >/dev/null
	done
	wait_until 20 ndumps 1
	stop_watch
	jq -e -s 'any(.[]; .type == "ReconcileStart" and (.unseen | length) > 0)' "$OUT" >/dev/null
	[[ $(basename "$(dumps)") =~ ^kinf-[0-9]{8}T[0-9]{6}Z-controller-coalesced\.rec\.gz$ ]]
	zcat "$(dumps)" | jq -s -e 'map(select(has("trigger"))) | length == 1 and
		.[0].trigger == "controller-coalesced" and .[0].keys == [{"key":"default/pod-0","class":"unseen"}]' >/dev/null
	[ "$(grep -c 'flight recorder: controller-coalesced: wrote' "$ERR")" -eq 1 ]
}

update_pod() {	# update_pod NAME N
	simctl POST /update "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"$1\",\"patch\":{\"metadata\":{\"labels\":{\"n\":\"$2\"}}}}" >/dev/null
}

@test "flight recorder: controller-unseen fires for states of an object gone before any Reconcile read them, not for coalescing" {
	sim_start --pods 2 --namespaces 0 --deployments 0
	start_watch pods --controller --reconcile-time 3s --flight-recorder 2m --flight-tail 1s \
		--dump-on controller-unseen -o json --events
	wait_until 20 synced
	wait_until 30 jq -e -s '[.[] | select(.type == "ReconcileDone")] | length >= 2' "$OUT"
	local a b
	a=$(jq -r -s '[.[] | select(.type == "ReconcileDone") | .key] | .[0]' "$OUT")
	b=$(jq -r -s '[.[] | select(.type == "ReconcileDone") | .key] | .[1]' "$OUT")
	# a's Reconcile runs for 3 s; meanwhile a coalesces (routine), and b
	# changes twice and is deleted: its Reconcile will find it gone
	update_pod "${a#*/}" 1
	wait_until 20 jq -e -s --arg k "$a" 'map(select(.type == "ReconcileStart" and .key == $k)) | length >= 2' "$OUT"
	update_pod "${a#*/}" 2
	update_pod "${a#*/}" 3
	update_pod "${b#*/}" 1
	update_pod "${b#*/}" 2
	simctl POST /delete "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":\"${b#*/}\"}" >/dev/null
	wait_until 30 ndumps 1
	# a's coalesced states came to a Reconcile that read a: that is no dump
	wait_until 30 jq -e -s --arg k "$a" 'any(.[]; .type == "ReconcileStart" and .key == $k and
		(.unseen | length) > 0)' "$OUT"
	stop_watch
	[ "$(dumps | wc -l)" -eq 1 ]
	[[ $(basename "$(dumps)") =~ -controller-unseen\.rec\.gz$ ]]
	zcat "$(dumps)" | jq -s -e --arg k "$b" 'map(select(has("trigger"))) |
		.[0].keys == [{"key":$k,"class":"unseen"}]' >/dev/null
	jq -e -s --arg k "$b" 'any(.[]; .type == "ReconcileStart" and .key == $k and
		.readResourceVersion == null and (.unseen | length) > 0)' "$OUT" >/dev/null
}

@test "flight recorder: an unwritable --flight-dir is one line and status 2, before anything starts" {
	sim_start --pods 1
	mkdir "$BATS_TEST_TMPDIR/ro"
	chmod 500 "$BATS_TEST_TMPDIR/ro"
	for dir in "$BATS_TEST_TMPDIR/none" "$BATS_TEST_TMPDIR/ro" "$SIM_KUBECONFIG"; do
		# root writes in a folder of mode 500: nothing to refuse then
		[[ $dir == */ro && $(id -u) == 0 ]] && continue
		run --separate-stderr timeout 10 "$KINF" watch pods --kubeconfig "$SIM_KUBECONFIG" \
			--flight-recorder 1m --flight-dir "$dir"
		assert_status 2
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		[[ $stderr == "error: cannot use '$dir' for --flight-dir: "* ]]
	done
	# nothing reached the server
	[ "$(simctl GET /requests | jq 'length')" -eq 0 ]
	run --separate-stderr "$KINF" watch pods --flight-dir /tmp
	assert_status 2
	[[ $stderr == *"need --flight-recorder"* ]]
}
