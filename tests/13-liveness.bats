#!/usr/bin/env bats
# Liveness without false alarms: with --renew-silent, a watch silent that long is
# renewed from the same resourceVersion.  A watch whose server side hung,
# or whose connection froze, is replaced and the changes it missed arrive;
# a watch on an idle resource is never reported, never relisted.
#
# The time scale is shortened: --renew-silent 3s stands for the default
# 45 s, a bookmark every 4 s for the apiserver's minute.

load test_helper
bats_require_minimum_version 1.5.0

start_watch() { kinf_bg watch -o json -v "$@"; }

teardown() {
	local pid
	for pid in ${KINF_PID:-} ${PROXY_PID:-}; do
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	sim_stop
}

synced() { file_has "$ERR" "synced"; }
replay() {
	jq -S -s -c 'reduce (.[] | select(.key != null)) as $d ({};
		if $d.handler == "OnDelete" then del(.[$d.key])
		else .[$d.key] = $d.resourceVersion end)' "$OUT"
}
converged() { [ "$(replay)" = "$(sim_oracle pods | jq -S -c .items)" ]; }
nlists() { simctl GET '/requests?verb=list' | jq length; }
nwatches() { simctl GET '/requests?verb=watch' | jq length; }

# The server side of the next watch hangs (connection up, nothing sent)
# while pods change; everything must arrive anyway, without a relist.
hung_while_changing() {
	start_watch pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --renew-silent 3s
	wait_until 20 synced
	sleep 1.2	# a watch dropped sooner is a "very short watch": a relist
	simctl POST /faults '{"verb":"watch","kind":"hang","count":1,"seconds":120}' >/dev/null
	simctl POST /drop-watches '{"mode":"clean"}' >/dev/null
	sleep 1
	simctl POST /churn '{"resource":"pods","count":20,"seed":5,"mix":{"add":1,"update":3,"delete":1}}' >/dev/null
	local start=$SECONDS
	wait_until 20 converged
	echo "# converged $((SECONDS - start)) s after the changes"
	[ "$(nlists)" -eq 1 ]
	! grep -q "error:" "$ERR" || false
	grep -q "watch renewed (silent for 3 s;" "$ERR"
}

@test "a hung watch on a server without bookmarks: every change arrives, no relist" {
	sim_start --pods 5 --bookmark-interval 3600
	hung_while_changing
}

@test "a hung watch on a server that sends bookmarks: every change arrives, no relist" {
	sim_start --pods 5 --bookmark-interval 4
	hung_while_changing
}

@test "an idle resource is never reported stalled and never relisted, however long it is quiet" {
	sim_start --pods 3 --bookmark-interval 3600
	start_watch pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --renew-silent 1s
	wait_until 20 synced
	sleep 8
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	# Renewed several times (that is the cost of an idle resource) ...
	[ "$(nwatches)" -ge 4 ]
	# ... but nothing else happened: no relist, no error, no warning, no delta.
	[ "$(nlists)" -eq 1 ]
	! grep -qE "error:|warning:|stalled|relist" "$ERR" || false
	[ "$(jq -s length "$OUT")" -eq 3 ]
}

@test "a frozen connection (no FIN, no RST) is replaced and the changes arrive" {
	sim_start --pods 4 --bookmark-interval 3600
	tests_dir=$BATS_TEST_DIRNAME
	"$tests_dir/apiserver/freeze-proxy" "127.0.0.1:${SIM_API##*:}" >"$BATS_TEST_TMPDIR/proxy.out" 2>"$BATS_TEST_TMPDIR/proxy.err" &
	PROXY_PID=$!
	wait_until 10 file_has "$BATS_TEST_TMPDIR/proxy.out" '^proxy: '
	local addr
	addr=$(sed -n 's/^proxy: //p' "$BATS_TEST_TMPDIR/proxy.out")
	sed "s#server: https://127.0.0.1:[0-9]*#server: https://$addr#" "$SIM_KUBECONFIG" >"$BATS_TEST_TMPDIR/kc"
	grep -q "server: https://$addr" "$BATS_TEST_TMPDIR/kc"
	start_watch pods --kubeconfig "$BATS_TEST_TMPDIR/kc" --client-go 1.32 --renew-silent 3s
	wait_until 20 synced
	kill -USR1 "$PROXY_PID"
	wait_until 5 file_has "$BATS_TEST_TMPDIR/proxy.err" 'froze [1-9]'
	simctl POST /churn '{"resource":"pods","count":10,"seed":6}' >/dev/null
	wait_until 20 converged
	[ "$(nlists)" -eq 1 ]
	! grep -q "error:" "$ERR"
}

@test "by default a silent watch is reported, on stderr and as a Warning record, and left alone as client-go leaves it" {
	sim_start --pods 3 --bookmark-interval 3600
	# --stall-timeout 2s stands for the default 75 s (a bookmark minute and a margin).
	start_watch pods --kubeconfig "$SIM_KUBECONFIG" --client-go 1.32 --stall-timeout 2s --events
	wait_until 20 synced
	wait_until 10 file_has "$ERR" "warning: no event or bookmark for 2 s: the watch may be dead; client-go would wait for its timeout \([0-9]+ s left\)"
	sleep 4
	kill -TERM "$KINF_PID"; wait "$KINF_PID" || true; KINF_PID=
	# Said once, also on stdout for a script; nothing was done about it.
	[ "$(grep -c 'no event or bookmark' "$ERR")" -eq 1 ]
	jq -e -s '[.[] | select(.type == "Warning" and (.message | test("the watch may be dead")))] | length == 1' "$OUT"
	[ "$(nwatches)" -eq 1 ]
	[ "$(nlists)" -eq 1 ]
	run ! grep -q "watch renewed" "$ERR"
}
