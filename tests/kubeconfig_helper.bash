# kubeconfig_helper.bash — kubeconfigs for the simulated apiserver, for the
# kubeconfig and authentication tests (20-kubeconfig.bats, 21-auth.bats).
# Load after test_helper (sim_start must have run for the writers).

bats_require_minimum_version 1.5.0

# write_kubeconfig FILE USER_YAML [CLUSTER_YAML]
#   One cluster "sim" (the simulator, its CA unless CLUSTER_YAML says
#   otherwise), one user "tester" whose body is USER_YAML (lines, indented
#   by the caller as "    key: value"), one context "sim", current.
write_kubeconfig() {
	local file=$1 user=$2 cluster=${3:-"    certificate-authority: $SIM_CACERT"}
	cat >"$file" <<-YAML
	apiVersion: v1
	kind: Config
	clusters:
	- name: sim
	  cluster:
	    server: $SIM_API
	$cluster
	users:
	- name: tester
	  user:
	$user
	contexts:
	- name: sim
	  context:
	    cluster: sim
	    user: tester
	current-context: sim
	YAML
}

# run_kinf ARGS... — runs kinf with stdout and stderr apart.
run_kinf() {
	run --separate-stderr "$KINF" "$@"
}

# After a `get` that failed at discovery: kubectl's get asks five times,
# so four warnings in the error's own words come before it.  Checks them,
# then leaves the error alone on stderr for the asserts that follow.
discovery_tries() {
	local last=${stderr_lines[${#stderr_lines[@]}-1]} i
	if [ "${#stderr_lines[@]}" -ne 5 ]; then
		echo "# expected 5 lines on stderr, got ${#stderr_lines[@]}:" >&2
		printf '#   %s\n' "${stderr_lines[@]}" >&2
		return 1
	fi
	for i in 0 1 2 3; do
		[ "${stderr_lines[i]}" = "warning: ${last#error: }; asking again, as kubectl does" ] ||
			{ echo "# line $i: ${stderr_lines[i]}" >&2; return 1; }
	done
	stderr=$last
	stderr_lines=("$last")
}

# Fails unless kinf failed with status 1 and exactly one line on stderr,
# "error: ..." containing each argument.
assert_one_line_error() {
	if [ "$status" -ne 1 ]; then
		echo "# expected status 1, got $status; stderr: $stderr" >&2
		return 1
	fi
	if [ "${#stderr_lines[@]}" -ne 1 ]; then
		echo "# expected one line on stderr, got ${#stderr_lines[@]}:" >&2
		printf '#   %s\n' "${stderr_lines[@]}" >&2
		return 1
	fi
	case $stderr in
	"error: "*) ;;
	*) echo "# stderr does not start with 'error: ': $stderr" >&2; return 1 ;;
	esac
	local want
	for want in "$@"; do
		case $stderr in
		*"$want"*) ;;
		*) echo "# stderr lacks '$want': $stderr" >&2; return 1 ;;
		esac
	done
}

# The users and user agents of the API requests the simulator saw.
request_users() { simctl GET /requests | jq -r '.[].user' | sort -u; }

# Skips the test until a command exists (it is wired by another change).
require_command() {
	"$KINF" help "$1" >/dev/null 2>&1 || skip "kinf $1 is not built in yet"
}
