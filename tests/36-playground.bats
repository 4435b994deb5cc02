#!/usr/bin/env bats
# What a new user runs first: `make demo` shows what kinf is for and ends
# with a suggestion that works; `make playground` keeps a simulated
# cluster up and prints commands that work as pasted.

load test_helper
bats_require_minimum_version 1.5.0

ROOT=$BATS_TEST_DIRNAME/..

teardown() {
	kinf_stop	# a watch a failed test left running
	[ -n "${PG_PID:-}" ] && kill -TERM "$PG_PID" 2>/dev/null && wait "$PG_PID" 2>/dev/null
	true
}

@test "demo: a watch drop, a relist with its tombstone and summary; then it points at the playground" {
	cd "$ROOT"
	run timeout 90 tests/apiserver/demo
	[ "$status" -eq 0 ] || { echo "$output" | tail -20; false; }
	[[ $output == *"==> (demo) the server drops the watch"* ]]
	grep -qE '^kinf: pods: watch ended .*re-watching from rv [0-9]+$' <<<"$output"
	grep -qE '^kinf: pods: relist #1 \(watch expired: .*\): disconnected [0-9.]+ s: .*[1-9][0-9]* deleted \(tombstones\)' <<<"$output"
	grep -qE '\(tombstone\) \(relist #1\)$' <<<"$output"
	[[ $output == *"make playground"* ]]
}

@test "playground: the printed commands work as pasted; Ctrl-C (or TERM) cleans up" {
	cd "$ROOT"
	tests/apiserver/playground --pods 5 >"$BATS_TEST_TMPDIR/pg.out" 2>&1 &
	PG_PID=$!
	wait_until 20 file_has "$BATS_TEST_TMPDIR/pg.out" 'Ctrl-C stops the playground'
	local line dir
	line=$(grep -m1 -- '--from-cache' "$BATS_TEST_TMPDIR/pg.out")
	[[ $line == *"KUBECONFIG="*"./kinf get pods -A --from-cache" ]]
	# As pasted, from the checkout (./kinf is what make builds).
	ln -sf "$KINF" "$BATS_TEST_TMPDIR/kinf"
	run bash -c "cd '$BATS_TEST_TMPDIR' && $line"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(grep -c ' Running \| ContainerCreating ' <<<"$output")" -ge 5 ]
	dir=$(sed -n 's/.*KUBECONFIG=\([^ ]*\)\/kubeconfig .*/\1/p' <<<"$line")
	[ -d "$dir" ]
	kill -TERM "$PG_PID"
	wait "$PG_PID" || true
	PG_PID=
	[ ! -e "$dir" ]
	grep -q 'playground: stopped' "$BATS_TEST_TMPDIR/pg.out"
}

# recipe N — the Nth "curl" line the playground printed, run as pasted.
recipe() {
	local line
	line=$(grep -- '^  curl ' "$BATS_TEST_TMPDIR/pg.out" | sed -n "${1}p")
	[ -n "$line" ] || { echo "# no recipe $1" >&2; return 1; }
	bash -c "$line"
}

@test "playground: each printed recipe does what it says, to a watch running beside it" {
	cd "$ROOT"
	tests/apiserver/playground --pods 5 >"$BATS_TEST_TMPDIR/pg.out" 2>&1 &
	PG_PID=$!
	wait_until 20 file_has "$BATS_TEST_TMPDIR/pg.out" 'Ctrl-C stops the playground'
	local kc err=$BATS_TEST_TMPDIR/err
	kc=$(sed -n 's/.*KUBECONFIG=\([^ ]*\) .*--from-cache.*/\1/p' "$BATS_TEST_TMPDIR/pg.out")
	[ -s "$kc" ]
	"$KINF" watch pods -A --kubeconfig "$kc" --verify-every 1s -v -o json \
		>"$BATS_TEST_TMPDIR/out" 2>"$err" 3>&- &
	KINF_PID=$!
	# a watch that delivered an event (one that ended at once would be
	# very short: a relist, as client-go's)
	wait_until 20 file_has "$BATS_TEST_TMPDIR/out" '"initialList":false'
	# a watch drop: re-watched, no relist
	recipe 1
	wait_until 20 file_has "$err" 're-watching from rv' || { cat "$err" >&2; false; }
	run ! grep -q 'relist #' "$err"
	# too old: a relist
	recipe 2
	wait_until 20 file_has "$err" 'relist #1'
	# a lost event, of the pod the recipe names: verify finds it
	local name
	name=$(recipe 3)
	[ -n "$name" ] && [ "$name" != null ]
	wait_until 30 file_has "$err" "verify: .*ns-1/$name \\(extra\\)"
	kinf_stop
}

