#!/usr/bin/env bats
# kinf against the real client-go: every scripted scenario of
# tests/client-go/scenarios, run through kinf --client-go VERSION over
# HTTP/2, as users run it, and compared with what that client-go did (the
# committed goldens of golden-h2/, recorded by `make golden`).  The
# longest file of the suite: alone here, it has the file's time to itself
# (12-client-go-golden.bats has the rest).  Needs no Go.

load test_helper
bats_require_minimum_version 1.5.0

CG=$BATS_TEST_DIRNAME/client-go

@test "client-go goldens over HTTP/2 (nghttpx before kube-sim), as users run it: every scenario x version" {
	# 24 at a time: a cell mostly waits for its client to settle
	run "$CG/compare" --h2 -j 24
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" cells: "* ]]
	run ! grep -E ' FAIL( |$)' <<<"$output"
}
