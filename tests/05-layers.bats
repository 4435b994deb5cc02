#!/usr/bin/env bats
# The sources flow one way: each layer of src/ includes and links against
# only the layers below it, and no modules lean on each other in a circle.

load test_helper

ROOT=$BATS_TEST_DIRNAME/..

@test "includes and linked symbols go one way, with no circles" {
	run "$ROOT/tests/layers" "$(dirname "$(readlink -f "$KINF")")"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "layers lib → cluster → informer → controller → output → tui → cli: one way;"* ]]
	[[ $output == *"symbols: "* ]]
}

@test "the checker finds a circle and an include that goes up" {
	tmp=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tmp/tests"
	cp -r "$ROOT/src" "$tmp/src"
	cp "$ROOT/tests/layers" "$tmp/tests/layers"
	# lib/strbuf.h reaching up to the informer layer: wrong way and a circle.
	printf '#include "informer/kobj.h"\n' >>"$tmp/src/lib/strbuf.h"
	run "$tmp/tests/layers"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"includes: lib/strbuf uses informer/kobj, a higher layer"* ]]
	[[ $output == *"includes: circle between"*"informer/kobj"*"lib/strbuf"* ]]
}
