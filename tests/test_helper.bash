# test_helper.bash — loaded by every bats file (`load test_helper`).
#
# Gives the tests the binary under test ($KINF, built by make check), the
# simulated apiserver (sim_helper.bash: sim_start, sim_stop, simctl,
# sim_oracle) and small waiting helpers.  Waits are bounded polls of a
# condition, never fixed sleeps.

KINF=${KINF:-$BATS_TEST_DIRNAME/../kinf}
export KINF
export NO_COLOR=1 LC_ALL=C.UTF-8
# Tests never read the user's own kubeconfig.
export HOME=${BATS_TEST_TMPDIR:-$(mktemp -d)}
unset KUBECONFIG
# Nor a proxy of the machine they run on.
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy ALL_PROXY all_proxy NO_PROXY no_proxy

load sim_helper

kinf() { "$KINF" "$@"; }

# kinf_bg ARGS... — runs kinf in the background, its pid in KINF_PID, its
# stdout in $OUT and stderr in $ERR (under the test's own folder).  Both
# are emptied here, before the job starts, so that a wait on $ERR never
# sees a line of the run before.  bats's fd 3 is closed in the job, or bats
# would wait for it at the end of the test.
kinf_bg() {
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	: >"$OUT"; : >"$ERR"
	"$KINF" "$@" >"$OUT" 2>"$ERR" 3>&- &
	KINF_PID=$!
}

# kinf_stop [SIGNAL] — sends the kinf that kinf_bg started SIGNAL (TERM)
# and reaps it; nothing when none runs.
kinf_stop() {
	[ -n "${KINF_PID:-}" ] || return 0
	kill -"${1:-TERM}" "$KINF_PID" 2>/dev/null || true
	wait "$KINF_PID" 2>/dev/null || true
	KINF_PID=
}

# wait_until SECONDS COMMAND... — retries COMMAND every 0.1 s.
wait_until() {
	local limit=$1; shift
	local end=$((SECONDS + limit))
	until "$@"; do
		if [ $SECONDS -ge $end ]; then
			echo "# timed out after ${limit}s waiting for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# file_has FILE PATTERN — grep -E on a file that may not exist yet.
file_has() { [ -f "$1" ] && grep -qE -- "$2" "$1"; }

# count_lines FILE PATTERN
count_lines() { grep -cE -- "$2" "$1" 2>/dev/null || true; }
# matches_at_least FILE REGEX N — FILE has N or more lines matching REGEX (for wait_until).
matches_at_least() { [ "$(count_lines "$1" "$2")" -ge "$3" ]; }

# kubectl_at_least MINOR — the path of this machine's newest kubectl of
# 1.MINOR or later, if it has one: on PATH, or beside the kubectl on PATH
# (a dispatcher that picks a kubectl by the server's version keeps them
# there, as kubectl.1.33 and so on); status 1 if none.
kubectl_at_least() {
	local k v dir=.
	command -v kubectl >/dev/null && dir=$(dirname "$(readlink -f "$(command -v kubectl)")")
	for ((v = 39; v >= $1; v--)); do
		for k in "kubectl.1.$v" "$dir/kubectl.1.$v"; do
			command -v "$k" && return 0
		done
	done
	return 1
}

# kubectl: the newest this machine has, 1.31 or later, when it has one.
# kinf prints as today's kubectl does, where a dispatcher on PATH picks a
# kubectl by the server's version: 1.28's for kube-sim.
# On PATH, so that timeout, backgrounds and signals reach kubectl itself.
if newest_kubectl=$(kubectl_at_least 31) && [ -n "${BATS_RUN_TMPDIR:-}" ]; then
	mkdir -p "$BATS_RUN_TMPDIR/kubectl"
	ln -sf "$newest_kubectl" "$BATS_RUN_TMPDIR/kubectl/kubectl"
	case ":$PATH:" in *":$BATS_RUN_TMPDIR/kubectl:"*) ;; *) PATH=$BATS_RUN_TMPDIR/kubectl:$PATH ;; esac
fi

# A table with its ages (5m, 2d20h) read as AGE: two commands a tick apart print the same.
no_age() { sed -E 's/ [0-9]+[smhdy]([0-9]+[smh])?( +|$)/ AGE /'; }

# Fails with a message unless "$output" contains the string.
assert_output_contains() {
	case $output in
	*"$1"*) return 0 ;;
	esac
	echo "# expected output to contain: $1" >&2
	echo "# output was: $output" >&2
	return 1
}

assert_status() {
	if [ "$status" -ne "$1" ]; then
		echo "# expected status $1, got $status; output: $output" >&2
		return 1
	fi
}

teardown() {
	sim_stop 2>/dev/null || true
}

# True once the simulator has a watch open (kinf's "synced" comes right
# after the list, a moment before its watch is established).
watching() {
	[ "$(simctl GET /stats | jq '.openWatches')" -gt 0 ]
}

# Waits for an open watch and lets it pass one second: a watch the server
# ends sooner, without events, is a "very short watch", which client-go
# (and so kinf) answers with a relist.  Tests that end a watch on purpose
# to see it re-opened wait for this first.
watch_settled() {
	wait_until "${1:-20}" watching && sleep 1.1
}
