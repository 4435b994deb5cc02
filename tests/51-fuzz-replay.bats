#!/usr/bin/env bats
# The fuzz corpora, replayed once under AddressSanitizer and UBSan: every
# seed and every crash the fuzzers ever found (tests/fuzz/corpus/NAME/,
# crash-* files) must go through its parser cleanly.  `make check` builds
# the replay programs (make SANITIZE=address,undefined fuzz-replay) and
# passes their directory as FUZZ_DIR; `make fuzz` is the fuzzing itself.

load test_helper

FUZZ_SRC=$BATS_TEST_DIRNAME/fuzz
FUZZ_DIR=${FUZZ_DIR:-$BATS_TEST_DIRNAME/../build/address-undefined/fuzz}

replay() {	# replay NAME
	local bin=$FUZZ_DIR/${1}_replay corpus=$FUZZ_SRC/corpus/$1
	if [ ! -x "$bin" ]; then
		echo "# no $bin: make SANITIZE=address,undefined fuzz-replay" >&2
		return 1
	fi
	local files
	files=$(find "$corpus" -maxdepth 1 -type f ! -name '.*' | wc -l)
	[ "$files" -gt 0 ]
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run "$bin" "$corpus"
	if [ "$status" -ne 0 ]; then
		# The input that failed is the last one named before the report.
		echo "$output" | grep -v '^replay: ' | head -40 >&2
		echo "$output" | grep '^replay: ' | tail -1 >&2
		return 1
	fi
	assert_output_contains "${1}_replay: $files inputs replayed"
}

@test "every fuzz target has a corpus" {
	local src name
	for src in "$FUZZ_SRC"/*_fuzz.c; do
		name=$(basename "$src" _fuzz.c)
		[ -d "$FUZZ_SRC/corpus/$name" ] || { echo "# no corpus for $name" >&2; return 1; }
	done
}

@test "fuzz corpus: watch streams and paged lists (json_stream)" { replay json_stream; }
@test "fuzz corpus: objects and watch events (kobj)" { replay kobj; }
@test "fuzz corpus: label selectors (selector)" { replay selector; }
@test "fuzz corpus: the server's Warning headers (warning)" { replay warning; }
@test "fuzz corpus: command lines against every command's options (opt)" { replay opt; }
@test "fuzz corpus: exec credential plugin output (exec_credential)" { replay exec_credential; }
@test "fuzz corpus: kubeconfigs (kubeconfig)" { replay kubeconfig; }
@test "fuzz corpus: recordings a user is handed (recording)" { replay recording; }
@test "fuzz corpus: go-templates over server data (gotemplate)" { replay gotemplate; }
@test "fuzz corpus: JSONPath templates over server data (jsonpath)" { replay jsonpath; }
@test "fuzz corpus: any answer through every printer and view (printers)" { replay printers; }
@test "fuzz corpus: a server's discovery documents, aggregated or not (discovery)" { replay discovery; }
