#!/usr/bin/env bats
# The command line's skeleton: --version, --help, help COMMAND, and the
# exit status of usage errors (2, one line naming what was wrong).
# No cluster is needed: every case fails before kinf connects.

load test_helper
bats_require_minimum_version 1.5.0

# One line on stderr, nothing on stdout, status 2, naming $1.
assert_usage_error() {
	assert_status 2
	[ -z "$output" ] || { echo "# stdout: $output" >&2; return 1; }
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] ||
		{ echo "# stderr: $stderr" >&2; return 1; }
	case $stderr in
	"error: "*"$1"*) ;;
	*) echo "# expected an error naming '$1', got: $stderr" >&2; return 1 ;;
	esac
}

# The long options of COMMAND's --help, one per line.
help_options() {
	"$KINF" "$1" --help | sed -n '/^options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u
}

@test "--version and version print the version and exit 0" {
	run --separate-stderr "$KINF" --version
	assert_status 0
	[[ $output =~ ^kinf\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[ -z "$stderr" ]
	want=$output
	run "$KINF" version
	assert_status 0
	[ "$output" = "$want" ]
}

@test "--help and help list every command and exit 0" {
	run --separate-stderr "$KINF" --help
	assert_status 0
	[ -z "$stderr" ]
	for c in watch get tui api-resources version help; do
		grep -qE "^  $c +[A-Z]" <<<"$output" || { echo "# no $c in: $output" >&2; false; }
	done
	# The hidden completion helper is not advertised.
	! grep -q __complete <<<"$output" || false
	want=$output
	run "$KINF" -h
	[ "$output" = "$want" ]
	run "$KINF" help
	assert_status 0
	[ "$output" = "$want" ]
}

@test "kinf without a command prints the usage on stderr and exits 2" {
	run --separate-stderr "$KINF"
	assert_status 2
	[ -z "$output" ]
	[[ $stderr == usage:* ]]
}

@test "help COMMAND is COMMAND --help, on stdout, status 0" {
	for c in watch get tui api-resources version help; do
		run --separate-stderr "$KINF" help "$c"
		assert_status 0
		[ -z "$stderr" ]
		[[ $output == "usage: kinf $c"* ]] || { echo "# $c: $output" >&2; false; }
		want=$output
		run "$KINF" "$c" --help
		assert_status 0
		[ "$output" = "$want" ]
		run "$KINF" "$c" -h
		[ "$output" = "$want" ]
	done
}

@test "watch --help describes every option the parser takes" {
	run "$KINF" watch --help
	assert_status 0
	for opt in --output --selector --field-selector --types --watch-only --diff \
		--events --resync --fifo --client-go --hide-unchanged --max-deltas --timeout --no-headers \
		--keep-managed-fields --color --tui --chunk-size --streaming-list \
		--stall-timeout --renew-silent --dump-cache --quiet --namespace --all-namespaces \
		--kubeconfig --context --cluster --user --request-timeout --verbose --help; do
		grep -qE -- "^  (-[a-zA-Z], )? *$opt( |$)" <<<"$output" ||
			{ echo "# $opt missing from watch --help" >&2; false; }
	done
	for short in -o -l -n -A -q -v -h; do
		grep -qE -- "^  $short, --" <<<"$output" ||
			{ echo "# $short missing from watch --help" >&2; false; }
	done
	# Enumerated values are listed with their option.
	assert_output_contains "(line|wide|json|name|yaml|jsonpath=|"
	assert_output_contains "(delta|real|atomic)"
	assert_output_contains "(auto|always|never)"
	# Every option of --help is accepted by the parser (the table is one).
	for opt in $(help_options watch); do
		run --separate-stderr "$KINF" watch "$opt"
		[[ $stderr != *"unknown option"* ]] || { echo "# $opt: $stderr" >&2; false; }
	done
}

@test "get --help describes every option the parser takes" {
	run "$KINF" get --help
	assert_status 0
	for opt in --from-cache --output --index --selector --field-selector \
		--sync-timeout --no-headers --keep-managed-fields --namespace \
		--all-namespaces --kubeconfig --context --help; do
		grep -qE -- "^  (-[a-zA-Z], )? *$opt( |$)" <<<"$output" ||
			{ echo "# $opt missing from get --help" >&2; false; }
	done
	assert_output_contains "(table|wide|name|json|yaml|jsonpath=|"
	for opt in $(help_options get); do
		run --separate-stderr "$KINF" get "$opt"
		[[ $stderr != *"unknown option"* ]] || { echo "# $opt: $stderr" >&2; false; }
	done
}

@test "an unknown command exits 2 naming it" {
	run --separate-stderr "$KINF" frobnicate
	assert_usage_error "'frobnicate'"
	run --separate-stderr "$KINF" help frobnicate
	assert_usage_error "'frobnicate'"
}

@test "an unknown option exits 2 naming it" {
	run --separate-stderr "$KINF" watch pods --frobnicate
	assert_usage_error "'--frobnicate'"
	run --separate-stderr "$KINF" watch pods --frobnicate=3
	assert_usage_error "'--frobnicate'"
	run --separate-stderr "$KINF" watch -x pods
	assert_usage_error "'-x'"
	run --separate-stderr "$KINF" get pods -Ax
	assert_usage_error "'-x'"
	run --separate-stderr "$KINF" --frobnicate
	assert_usage_error "'--frobnicate'"
	# Options are per command.
	run --separate-stderr "$KINF" get pods --diff
	assert_usage_error "'--diff'"
	run --separate-stderr "$KINF" version --all-namespaces
	assert_usage_error "'--all-namespaces'"
}

@test "an option without its value exits 2 naming it" {
	run --separate-stderr "$KINF" watch pods -o
	assert_usage_error "'-o'"
	run --separate-stderr "$KINF" watch pods --timeout
	assert_usage_error "'--timeout'"
}

@test "bad values exit 2 naming the value" {
	# Output formats, in kubectl's words.
	run --separate-stderr "$KINF" watch pods -o xml
	assert_usage_error '"xml", allowed formats are: line, wide,'
	run --separate-stderr "$KINF" watch pods --output=xml
	assert_usage_error '"xml"'
	run --separate-stderr "$KINF" watch pods --timeout xyz
	assert_usage_error "'xyz'"
	run --separate-stderr "$KINF" watch pods --resync=10parsecs
	assert_usage_error "'10parsecs'"
	run --separate-stderr "$KINF" watch pods --types Bogus
	assert_usage_error "'Bogus'"
	run --separate-stderr "$KINF" watch pods --types Added,Bogus,Deleted
	assert_usage_error "'Bogus'"
	run --separate-stderr "$KINF" watch pods --max-deltas many
	assert_usage_error "'many'"
	run --separate-stderr "$KINF" watch pods --max-deltas -1
	assert_usage_error "'-1'"
	run --separate-stderr "$KINF" watch pods --fifo lifo
	assert_usage_error "'lifo'"
	run --separate-stderr "$KINF" watch pods --color sometimes
	assert_usage_error "'sometimes'"
	run --separate-stderr "$KINF" watch pods --watch-only=maybe
	assert_usage_error "'maybe'"
}

@test "a missing resource exits 2" {
	run --separate-stderr "$KINF" watch
	assert_usage_error "no resource type"
	run --separate-stderr "$KINF" watch -A -o json
	assert_usage_error "no resource type"
	run --separate-stderr "$KINF" get
	assert_usage_error "no resource type"
	run --separate-stderr "$KINF" tui
	assert_status 2
}

@test "arguments that don't go together exit 2" {
	run --separate-stderr "$KINF" watch pods web extra
	assert_usage_error "'extra'"
	run --separate-stderr "$KINF" watch pods,deployments web
	assert_usage_error "NAME"
	run --separate-stderr "$KINF" watch pods --events
	assert_usage_error "--events"
	run --separate-stderr "$KINF" get po,pods -w
	assert_usage_error "a single resource"
	run --separate-stderr "$KINF" get pods,deployments --from-cache --index node=x
	assert_usage_error "exactly one resource type"
	run --separate-stderr "$KINF" get pods/web deploy/web --from-cache --index node=x
	assert_usage_error "exactly one resource type"
	run --separate-stderr "$KINF" get pods --index node=x
	assert_usage_error "--from-cache"
	run --separate-stderr "$KINF" version extra
	assert_usage_error "'extra'"
	run --separate-stderr "$KINF" help watch extra
	assert_usage_error "'extra'"
}

@test "option forms: -n NS, -nNS, -n=NS, --x=y, bundled flags, -- ends options" {
	# A kubeconfig that does not exist makes every form fail the same
	# way at run time (status 1), never as a usage error.
	for args in "-n ns1" "-nns1" "-n=ns1" "--namespace=ns1" "--namespace ns1" \
		"-Aq" "-qA" "-Ao json" "-Aojson" "-qvA" "--watch-only=true" "--diff=false"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$KINF" watch pods $args --kubeconfig /nonexistent/kubeconfig
		[ "$status" -eq 1 ] || { echo "# $args: $status $stderr" >&2; false; }
		[[ $stderr != *"see 'kinf"* ]] || { echo "# $args: $stderr" >&2; false; }
	done
	run --separate-stderr "$KINF" watch --kubeconfig /nonexistent/kubeconfig -- -pods
	assert_status 1
}

@test "a kubeconfig that cannot be read is one line and status 1" {
	run --separate-stderr "$KINF" watch pods --kubeconfig /nonexistent/kubeconfig
	assert_status 1
	[ -z "$output" ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ $stderr == *"/nonexistent/kubeconfig"* ]]
}
