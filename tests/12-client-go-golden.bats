#!/usr/bin/env bats
# kinf against the real client-go: the scripted scenarios of
# tests/client-go/scenarios where the transport changes an answer, run
# through kinf --client-go VERSION over HTTP/1.1 and compared with what
# that client-go did (the committed goldens, recorded by `make golden`);
# the typed informer's; and the checks that the comparison can fail.
# Every scenario over HTTP/2: 12-client-go-golden-h2.bats, a file of its
# own so that its ten minutes are its alone.  Needs no Go.  Known
# divergences are listed in tests/client-go/known-divergences and
# reported, not failed.

load test_helper
bats_require_minimum_version 1.5.0

CG=$BATS_TEST_DIRNAME/client-go

@test "client-go goldens over HTTP/1.1: the scenarios where the transport changes an answer" {
	# A reset is a reset TCP connection over HTTP/1.1, a 502 or an
	# RST_STREAM over HTTP/2; elsewhere both carry the same bytes, and
	# `compare` alone runs them all.
	local resets
	resets=$(cd "$CG/scenarios" && grep -l '"reset"' -- *.json | sed 's/\.json$//')
	[ "$(wc -w <<<"$resets")" -ge 10 ]
	run "$CG/compare" -j 24 $resets
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" cells: "* ]]
	run ! grep -E ' FAIL( |$)' <<<"$output"
}

@test "client-go goldens: a clientset's typed informer, as users' controllers run it, calls the handlers as kinf does" {
	# Its requests differ only in Accept (protobuf first from 1.32) and a
	# watch's timeout=, which the comparison leaves out and says so.
	[ "$(jq -r 'select(.request) | .request.accept' "$CG/golden-typed/basic-events.1.32.ndjson" | sort -u)" = \
		"application/vnd.kubernetes.protobuf,application/json" ]
	run "$CG/compare" --typed -j 24
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" cells: "* ]]
	run ! grep -E ' FAIL( |$)' <<<"$output"
	# what is left of a request is still compared
	mkdir "$BATS_TEST_TMPDIR/golden"
	sed 's/limit=500/limit=501/' "$CG/golden-typed/basic-events.1.32.ndjson" \
		>"$BATS_TEST_TMPDIR/golden/basic-events.1.32.ndjson"
	run "$CG/compare" --typed --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"requests differ"* ]]
}

@test "client-go goldens: a wait shorter than client-go's range fails the check" {
	# a golden in which client-go waited 10 s before each request: kinf's
	# backoff after the 404 (0.8 to 1.6 s) is too short for it
	mkdir "$BATS_TEST_TMPDIR/golden"
	g=$BATS_TEST_TMPDIR/golden/refusal-404.1.32.ndjson
	jq -c 'if .request then .request.t = input_line_number * 10 else . end' \
		"$CG/golden/refusal-404.1.32.ndjson" >"$g"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" refusal-404
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"times differ"* ]]
	[[ "$output" == *"client-go's 10.00 s"* ]]
	# judged on a second run, which differed too
	[[ "$output" == *"1 run again, their waits alone having differed"* ]]
	# a wait of under 3 s where client-go made none passes: that is the
	# slack a loaded machine needs
	jq -c 'if .request then .request.t = 0 else . end' \
		"$CG/golden/refusal-404.1.32.ndjson" >"$g"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" refusal-404
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "client-go goldens: a run ends on a watch the client rests on, not one it left to back off" {
	# relist-changes with a settle shorter than the backoff before the
	# relist (0.8 s at least): the 410 ERROR's watch, held open by
	# kube-sim, is no place to rest, and the run waits for the relist
	jq '.settle = 0.3' "$CG/scenarios/relist-changes.json" >"$BATS_TEST_TMPDIR/sc.json"
	local h2
	for h2 in --h2 ""; do
		run python3 "$CG/runner.py" --scenario "$BATS_TEST_TMPDIR/sc.json" --client kinf --bin "$KINF" \
			--client-go 1.32 --out "$BATS_TEST_TMPDIR/out" --keep $h2
		echo "$output"
		[ "$status" -eq 0 ]
		jq -e -s '[.[] | .request.answer // empty] == ["list#1", "watch#1", "list#2", "final"]' \
			"$BATS_TEST_TMPDIR/out"
		# the client left that watch, and kube-sim logged it (over HTTP/2
		# only with the relist: libcurl's RST_STREAM waits for it)
		local log=${output##*runner: kept }
		[ -n "$h2" ] || jq -e -s '[.[] | select(.answer == "watch#1")][0].n as $n | any(.[]; .gone == $n)' \
			"$log/requests"
		rm -rf "$log"
	done
}

@test "client-go goldens: a handler call kinf did not make fails the check" {
	# kinf, less its OnDelete lines: the check must catch the missing call.
	# kinf itself is the process the runner stops (a pipeline's shell
	# would leave it running, its parent gone); the filter ends with it.
	cat >"$BATS_TEST_TMPDIR/kinf" <<-EOS
	#!/bin/bash
	exec "$KINF" "\$@" > >(exec grep --line-buffered -v '"OnDelete"')
	EOS
	chmod +x "$BATS_TEST_TMPDIR/kinf"
	KINF=$BATS_TEST_TMPDIR/kinf run "$CG/compare" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"handler calls on 'default/b' differ"* ]]
}

# swap_calls GOLDEN A B: the golden with the call lines matching A and B
# swapped, into the test's golden folder
swap_calls() {
	mkdir -p "$BATS_TEST_TMPDIR/golden"
	awk -v a="$2" -v b="$3" '{ l[NR] = $0; if ($0 ~ a) i = NR; if ($0 ~ b) j = NR }
		END { t = l[i]; l[i] = l[j]; l[j] = t; for (n = 1; n <= NR; n++) print l[n] }' \
		"$CG/golden/$1" >"$BATS_TEST_TMPDIR/golden/$1"
	run ! cmp -s "$CG/golden/$1" "$BATS_TEST_TMPDIR/golden/$1"
}

@test "client-go goldens: calls of two keys in another order fail the check where the version defines it" {
	# basic-events: OnAdd c and OnUpdate a, the watch's, swapped.  Each
	# key's calls are as they were; the whole sequence is not.
	swap_calls basic-events.1.33.ndjson '"OnAdd","key":"default/c"' '"OnUpdate","key":"default/a"'
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"basic-events 1.33 (FAIL)"* ]]
	[[ "$output" == *"the order of handler calls across keys differs from call 3"* ]]
	# before 1.33 the DeltaFIFO's timing decides it: each key's calls only
	swap_calls basic-events.1.32.ndjson '"OnAdd","key":"default/c"' '"OnUpdate","key":"default/a"'
	rm "$BATS_TEST_TMPDIR/golden/basic-events.1.33.ndjson"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 0 ]
	# a streaming list's objects come in Go's map order: each key's calls only
	rm "$BATS_TEST_TMPDIR/golden/basic-events.1.32.ndjson"
	swap_calls basic-events.1.35.ndjson '"OnAdd","key":"default/a"' '"OnAdd","key":"default/b"'
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "client-go goldens: before 1.33 a watch's DELETED may stand in for a relist's tombstone, as in client-go" {
	# basic-events with the golden's OnDelete of b a relist's tombstone
	# (b@11): the DeltaFIFO's race (isDeletionDup) gives either call.
	# From 1.33 (RealFIFO) it is no race: the check fails.
	mkdir "$BATS_TEST_TMPDIR/golden"
	local v
	for v in 1.32 1.33; do
		jq -c 'if .call.handler == "OnDelete" then .call.resourceVersion = "11" | .call.tombstone = true
			else . end' "$CG/golden/basic-events.$v.ndjson" >"$BATS_TEST_TMPDIR/golden/basic-events.$v.ndjson"
	done
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"basic-events 1.33 (FAIL)"* ]]
	[[ "$output" != *"basic-events 1.32 (FAIL)"* ]]
	# two OnDeletes that are not a tombstone and the event are no race
	jq -c 'if .call.handler == "OnDelete" then .call.resourceVersion = "16" else . end' \
		"$CG/golden/basic-events.1.32.ndjson" >"$BATS_TEST_TMPDIR/golden/basic-events.1.32.ndjson"
	rm "$BATS_TEST_TMPDIR/golden/basic-events.1.33.ndjson"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"basic-events 1.32 (FAIL)"* ]]
}

@test "client-go goldens: before 1.33 a later add of a listed key may say initialList, as in client-go" {
	# The DeltaFIFO pops a key's queued deltas at once: a watch's DELETED
	# and ADDED of a listed key that came before its pop say initialList
	# with it (fuzz seed 85, scenario 13, on a loaded machine).  Not after
	# a relist's tombstone, not from 1.33, not for another object.
	run python3 - "$CG/compare" <<-'EOS'
	import importlib.machinery, importlib.util, sys
	loader = importlib.machinery.SourceFileLoader("compare", sys.argv[1])
	m = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", loader))
	loader.exec_module(m)
	add = lambda rv, init=None: dict({"handler": "OnAdd", "key": "default/d", "resourceVersion": rv},
	                                 **({"initialList": True} if init else {}))
	delete = lambda rv, t=None: dict({"handler": "OnDelete", "key": "default/d", "resourceVersion": rv},
	                                 **({"tombstone": True} if t else {}))
	golden = [add("10", 1), delete("11"), add("9")]
	late = [add("10", 1), delete("11"), add("9", 1)]
	print(m.pop_raced(golden, late, "1.29", False), m.pop_raced(late, golden, "1.29", False),
	      m.pop_raced(golden, late, "1.33", False), m.pop_raced(golden, late, "1.29", True),
	      m.pop_raced([add("10", 1), delete("10", 1), add("9")], [add("10", 1), delete("10", 1), add("9", 1)],
	                  "1.29", False),
	      m.pop_raced(golden, [add("10", 1), delete("11"), add("8", 1)], "1.29", False))
	EOS
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "True True False False False False" ]
}

# resync_golden N: resync.1.32's golden with each key's run of unchanged
# updates N long, into the test's golden folder
resync_golden() {
	mkdir -p "$BATS_TEST_TMPDIR/golden"
	jq -c 'select(.call.unchanged | not)' "$CG/golden/resync.1.32.ndjson" \
		>"$BATS_TEST_TMPDIR/golden/resync.1.32.ndjson"
	for key in default/a default/b; do
		for _ in $(seq "$1"); do
			jq -c --arg k "$key" 'select(.call.key == $k and .call.unchanged)' \
				"$CG/golden/resync.1.32.ndjson" | head -1
		done
	done >>"$BATS_TEST_TMPDIR/golden/resync.1.32.ndjson"
}

@test "client-go goldens: a resync count one off passes, two off fails" {
	# resync: a 1 s period over the 2.5 s settle, two resyncs of each key
	[ "$(grep -c '"unchanged":true' "$CG/golden/resync.1.32.ndjson")" -eq 4 ]
	resync_golden 3
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" resync
	echo "$output"
	[ "$status" -eq 0 ]
	resync_golden 4
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" resync
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"handler calls on 'default/a' differ"* ]]
	resync_golden 0
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" resync
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "client-go goldens: a request kinf did not make fails the check" {
	# a golden whose first LIST came twice: kinf, which lists once, differs
	mkdir "$BATS_TEST_TMPDIR/golden"
	g=$BATS_TEST_TMPDIR/golden/basic-events.1.28.ndjson
	sed '2p' "$CG/golden/basic-events.1.28.ndjson" >"$g"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"requests differ"* ]]
	[[ "$output" == *"kinf      (none)"* ]]
}

@test "client-go goldens: a request spelt otherwise fails the check (watch=1 for watch=true)" {
	# a golden in which client-go would have spelt its watch "watch=1":
	# the apiserver reads both alike, but kinf must send what client-go sends
	mkdir "$BATS_TEST_TMPDIR/golden"
	g=$BATS_TEST_TMPDIR/golden/basic-events.1.28.ndjson
	sed 's/&watch=true"/\&watch=1"/' "$CG/golden/basic-events.1.28.ndjson" >"$g"
	run ! cmp -s "$g" "$CG/golden/basic-events.1.28.ndjson"
	run "$CG/compare" --golden "$BATS_TEST_TMPDIR/golden" basic-events
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"requests differ"* ]]
	[[ "$output" == *"client-go GET /api/v1/namespaces/default/pods?allowWatchBookmarks=true&resourceVersion=12&timeoutSeconds=*&watch=1 "* ]]
}
