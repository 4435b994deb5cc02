#!/usr/bin/env bats
# Tests that cannot fail are caught: tests/lint-tests over the bats files,
# and the unit harness (tests/unit/unit.h) over the C tests.

load test_helper

LINT=$BATS_TEST_DIRNAME/lint-tests
FIXTURES=$BATS_TEST_DIRNAME/fixtures/lint

@test "lint-tests names every bats line that asserts nothing, and no other" {
	f=$FIXTURES/cannot-fail.fixture	# not *.bats: no runner or checker takes it for a suite
	run "$LINT" "$f"
	[ "$status" -eq 1 ]
	want=$(grep -n '# <- ' "$f" | sed -E "s|^([0-9]+):.*# <- ([a-z]+)\$|$f:\\1: \\2|")
	got=$(cut -d: -f1-3 <<<"$output")
	[ -n "$want" ]
	[ "$got" = "$want" ]
}

@test "every bats file of this suite can fail" {
	run "$LINT"
	[ "$output" = "" ]
	[ "$status" -eq 0 ]
}

@test "the unit harness fails a check that never ran and a test that ran none" {
	cc -std=gnu11 -I"$BATS_TEST_DIRNAME/unit" -o "$BATS_TEST_TMPDIR/can-fail" "$FIXTURES/can-fail.c"
	run "$BATS_TEST_TMPDIR/can-fail"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "ok 1 - checks_in_a_branch_never_taken" ]]
	[[ "${lines[1]}" == "# loops_over_nothing ran no check" ]]
	[[ "${lines[2]}" == "not ok 2 - loops_over_nothing" ]]
	[[ "${lines[3]}" == "ok 3 - checks_a_precondition" ]]
	[[ "$output" == *"not ok 4 - the check at "*"can-fail.c:10 never ran: zero == 1"* ]]
	[[ "$output" == *"not ok 5 - the check at "*"can-fail.c:16 never ran: i == i"* ]]
	[ "${lines[-1]}" = "1..5" ]
}
